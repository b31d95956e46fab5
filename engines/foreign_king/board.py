"""The map of Belgium and the fixed quantities of The Foreign King.

Provinces and borders are contract section 4.3. A route (of the King or of a
citizen) crosses borders one at a time and never enters a province twice nor
returns to its start. Only where a route ends and how long it is matter (the
King's marker falls by its length, each step but the first costs a franc), so
:func:`routes` lists one route per end province and length, shortest first:

    >>> NEIGHBOURS["luxembourg"]
    ('liege', 'namur')
    >>> routes("luxembourg", 1)
    [['liege'], ['namur']]
    >>> [" ".join(route) for route in routes("luxembourg", 2)][2:5]
    ['liege brabant', 'liege limburg', 'liege namur']
    >>> [route[-1] for route in routes("luxembourg", 2)]
    ['liege', 'namur', 'brabant', 'limburg', 'namur', 'hainaut', 'liege']
"""

from __future__ import annotations

from collections.abc import Iterator

PROVINCES: tuple[str, ...] = (
    "antwerpen",
    "limburg",
    "brabant",
    "liege",
    "namur",
    "luxembourg",
    "hainaut",
    "west-vlaanderen",
    "oost-vlaanderen",
)
BORDERS: tuple[tuple[str, str], ...] = (
    ("west-vlaanderen", "oost-vlaanderen"),
    ("west-vlaanderen", "hainaut"),
    ("oost-vlaanderen", "antwerpen"),
    ("oost-vlaanderen", "brabant"),
    ("oost-vlaanderen", "hainaut"),
    ("antwerpen", "brabant"),
    ("antwerpen", "limburg"),
    ("brabant", "limburg"),
    ("brabant", "liege"),
    ("brabant", "namur"),
    ("brabant", "hainaut"),
    ("limburg", "liege"),
    ("liege", "namur"),
    ("liege", "luxembourg"),
    ("namur", "hainaut"),
    ("namur", "luxembourg"),
)
#: The personal supply as the target of a citizen's move.
SUPPLY = "supply"
KINDS: tuple[str, ...] = ("textile", "metal")
FACTORY_POINTS = {"metal": 6, "textile": 3}
CITIZENS_PER_SEAT = 3  # one victory point per this many citizens in a province without factories

CITIZENS_PER_COLOUR = 16
FACTORIES_PER_KIND = 5
ROYAL_ORDERS = 9
TRACK_START = 30
FIRST_COINS = 5  # the first in turn order gets 5 francs, the next 6, 7, 8
FACTORY_COST = 3
QUEEN_COST = 2
LOAN_AMOUNT = 3
REPAY_AMOUNT = 4
LOAN_PENALTY = 6
TURN_ORDER_INCOME = 1
COINS_INCOME = 3
VIRTUAL = "virtual"

BUILD = "build_factory"
PLACE = "place_citizens"
MOVE = "move_citizens"
PARLIAMENT = "parliament"
COINS = "take_coins"
KING = "king"
QUEEN = "queen"
TURN_ORDER = "turn_order"
BASIC_ACTIONS: tuple[str, ...] = (BUILD, PLACE, MOVE, PARLIAMENT, COINS, KING)


def table_actions(players: int) -> tuple[str, ...]:
    """The actions of the action table in a game of ``players``."""
    extra = (TURN_ORDER,) if players >= 3 else ()
    return BASIC_ACTIONS + extra + ((QUEEN,) if players == 4 else ())


def _neighbours() -> dict[str, tuple[str, ...]]:
    """Each province's neighbours, sorted by name."""
    found: dict[str, set[str]] = {province: set() for province in PROVINCES}
    for first, second in BORDERS:
        found[first].add(second)
        found[second].add(first)
    return {province: tuple(sorted(names)) for province, names in found.items()}


NEIGHBOURS = _neighbours()


def simple_routes(start: str) -> Iterator[list[str]]:
    """Every route from ``start`` that visits no province twice (the start left out of each)."""
    return _extend([start])


def _extend(path: list[str]) -> Iterator[list[str]]:
    """The routes continuing ``path`` (its first province is the start, left out of each route)."""
    for neighbour in NEIGHBOURS[path[-1]]:
        if neighbour not in path:
            yield path[1:] + [neighbour]
            yield from _extend(path + [neighbour])


def _one_route_per_end_and_length(start: str) -> list[list[str]]:
    """The first route found for each end province and length, shortest first."""
    found: dict[tuple[str, int], list[str]] = {}
    for route in simple_routes(start):
        found.setdefault((route[-1], len(route)), route)
    return sorted(found.values(), key=len)


ROUTES = {start: _one_route_per_end_and_length(start) for start in PROVINCES}


def routes(start: str, most_steps: int) -> list[list[str]]:
    """One route of 1 to ``most_steps`` steps from ``start`` per end province and length."""
    return [route for route in ROUTES[start] if len(route) <= most_steps]
