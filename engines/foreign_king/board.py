"""The map of Belgium and the fixed quantities of The Foreign King.

Provinces and borders are contract section 4.3. ``ROUTES`` gives, for every
ordered pair of provinces, the canonical shortest route (fewest borders
crossed, ties broken by the alphabetically smallest list of names).

    >>> NEIGHBOURS["luxembourg"]
    ('liege', 'namur')
    >>> ROUTES["west-vlaanderen"]["luxembourg"]
    ['hainaut', 'namur', 'luxembourg']
"""

from __future__ import annotations

from collections import deque

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


def _routes_from(start: str) -> dict[str, list[str]]:
    """Canonical shortest routes from ``start`` (breadth first, neighbours by name)."""
    routes: dict[str, list[str]] = {start: []}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for neighbour in NEIGHBOURS[here]:
            if neighbour not in routes:
                routes[neighbour] = routes[here] + [neighbour]
                queue.append(neighbour)
    return routes


ROUTES: dict[str, dict[str, list[str]]] = {start: _routes_from(start) for start in PROVINCES}
