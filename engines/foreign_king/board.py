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
from typing import Any

from engines.phrases import N_

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
#: How the game prints the provinces' names.
NAMES: dict[str, str] = {
    "antwerpen": "Antwerpen",
    "limburg": "Limburg",
    "brabant": "Brabant",
    "liege": "Liège",
    "namur": "Namur",
    "luxembourg": "Luxembourg",
    "hainaut": "Hainaut",
    "west-vlaanderen": "West-Vlaanderen",
    "oost-vlaanderen": "Oost-Vlaanderen",
}

# -- the map -----------------------------------------------------------------------
# Borders and frontiers as lines of (longitude, latitude) points, roughly as in 1831:
# each border runs from one meeting point of provinces (or of a province and the
# frontier) to another, so that neighbouring outlines share their border exactly.
_WO = (3.47, 51.25)  # West-Vlaanderen, Oost-Vlaanderen and the Netherlands
_OA = (4.22, 51.36)  # Oost-Vlaanderen, Antwerpen and the Netherlands
_AL = (5.22, 51.27)  # Antwerpen, Limburg and the Netherlands
_LLI = (5.69, 50.76)  # Limburg, Liège and the Netherlands
_LIX = (6.10, 50.15)  # Liège, Luxembourg and the Grand Duchy
_NX = (4.87, 49.80)  # Namur, Luxembourg and France
_HN = (4.43, 49.95)  # Hainaut, Namur and France
_WH = (3.10, 50.78)  # West-Vlaanderen, Hainaut and France
_WOH = (3.45, 50.77)
_OAB = (4.25, 51.05)
_OBH = (4.07, 50.70)
_ABL = (5.02, 51.00)
_BLLI = (5.08, 50.72)
_BLIN = (5.00, 50.60)
_BNH = (4.42, 50.52)
_NLIX = (5.40, 50.22)

#: The borders of the provinces (contract section 4.3), each with its course on the map.
BORDER_LINES: dict[tuple[str, str], tuple[tuple[float, float], ...]] = {
    ("west-vlaanderen", "oost-vlaanderen"): (_WO, (3.40, 51.05), (3.46, 50.86), _WOH),
    ("west-vlaanderen", "hainaut"): (_WH, _WOH),
    ("oost-vlaanderen", "antwerpen"): (_OA, (4.32, 51.15), _OAB),
    ("oost-vlaanderen", "brabant"): (_OAB, (4.10, 50.98), (4.15, 50.85), _OBH),
    ("oost-vlaanderen", "hainaut"): (_OBH, (3.75, 50.72), _WOH),
    ("antwerpen", "brabant"): (_OAB, (4.50, 51.03), (4.80, 51.02), _ABL),
    ("antwerpen", "limburg"): (_AL, (5.15, 51.12), _ABL),
    ("brabant", "limburg"): (_ABL, (5.05, 50.85), _BLLI),
    ("brabant", "liege"): (_BLLI, (4.98, 50.65), _BLIN),
    ("brabant", "namur"): (_BLIN, (4.75, 50.55), (4.55, 50.52), _BNH),
    ("brabant", "hainaut"): (_OBH, (4.25, 50.62), _BNH),
    ("limburg", "liege"): (_BLLI, (5.40, 50.75), _LLI),
    ("liege", "namur"): (_BLIN, (5.15, 50.45), (5.35, 50.32), _NLIX),
    ("liege", "luxembourg"): (_NLIX, (5.75, 50.25), _LIX),
    ("namur", "hainaut"): (_BNH, (4.45, 50.40), (4.42, 50.20), _HN),
    ("namur", "luxembourg"): (_NLIX, (5.20, 50.05), (5.02, 49.90), _NX),
}
BORDERS: tuple[tuple[str, str], ...] = tuple(BORDER_LINES)
#: Each province's stretch of the kingdom's frontier (the coast included); Brabant has none.
FRONTIERS: dict[str, tuple[tuple[float, float], ...]] = {
    "west-vlaanderen": (
        _WH,
        (2.90, 50.70),
        (2.63, 50.82),
        (2.60, 50.94),
        (2.54, 51.09),
        (2.93, 51.23),
        (3.37, 51.37),
        _WO,
    ),
    "oost-vlaanderen": (_WO, (3.80, 51.21), (4.05, 51.25), _OA),
    "antwerpen": (
        _OA,
        (4.40, 51.45),
        (4.55, 51.48),
        (4.77, 51.50),
        (5.03, 51.48),
        (5.10, 51.43),
        _AL,
    ),
    "limburg": (_AL, (5.50, 51.29), (5.85, 51.15), (5.76, 50.95), (5.70, 50.80), _LLI),
    "liege": (_LLI, (6.02, 50.75), (6.27, 50.62), (6.40, 50.33), _LIX),
    "luxembourg": (
        _LIX,
        (5.95, 49.95),
        (5.83, 49.75),
        (5.82, 49.52),
        (5.47, 49.50),
        (5.15, 49.69),
        _NX,
    ),
    "namur": (_NX, (4.88, 50.00), (4.82, 50.15), (4.70, 50.08), _HN),
    "hainaut": (
        _HN,
        (4.20, 49.96),
        (4.15, 50.15),
        (3.97, 50.35),
        (3.67, 50.32),
        (3.60, 50.48),
        (3.29, 50.52),
        (3.25, 50.70),
        _WH,
    ),
}
#: Where each province's name is written (longitude, latitude); its pieces stand below.
LABELS: dict[str, tuple[float, float]] = {
    "antwerpen": (4.70, 51.36),
    "limburg": (5.42, 51.16),
    "brabant": (4.62, 50.93),
    "liege": (5.80, 50.62),
    "namur": (4.85, 50.42),
    "luxembourg": (5.52, 50.06),
    "hainaut": (3.90, 50.60),
    "west-vlaanderen": (3.00, 51.10),
    "oost-vlaanderen": (3.85, 51.13),
}
#: The map's drawing units: x = (longitude - WEST) * SCALE, y = (NORTH - latitude) * SCALE
#: * STRETCH (a degree of latitude is about 1.57 degrees of longitude long in Belgium).
WEST, NORTH, SCALE, STRETCH = 2.40, 51.62, 170, 1.57
MAP_WIDTH, MAP_HEIGHT = 700, 580


def map_point(point: tuple[float, float]) -> tuple[int, int]:
    """A (longitude, latitude) point in the map's drawing units.

    >>> map_point((5.00, 50.60))
    (442, 272)
    """
    longitude, latitude = point
    return round((longitude - WEST) * SCALE), round((NORTH - latitude) * SCALE * STRETCH)


def outline(province: str) -> list[tuple[int, int]]:
    """The closed outline of ``province`` on the map: its borders and frontier, chained."""
    lines = [list(line) for pair, line in BORDER_LINES.items() if province in pair]
    lines += [list(FRONTIERS[province])] if province in FRONTIERS else []
    chain = lines.pop(0)
    while lines:
        line = next(line for line in lines if chain[-1] in (line[0], line[-1]))
        lines.remove(line)
        chain += (line if line[0] == chain[-1] else line[::-1])[1:]
    return [map_point(point) for point in chain[:-1]]


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
#: The game ends with the final scoring after this round at the latest (the rulebook sets no
#: limit: players who never move the King could otherwise play forever).
ROUND_LIMIT = 100
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
#: The actions as the action table names them.
ACTION_NAMES = {
    BUILD: N_("Build a factory"),
    PLACE: N_("Place citizens"),
    MOVE: N_("Move citizens"),
    PARLIAMENT: N_("Parliament"),
    COINS: N_("Take coins"),
    KING: N_("The King"),
    QUEEN: N_("The Queen"),
    TURN_ORDER: N_("Turn order"),
}


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


def board_data() -> dict[str, Any]:
    """The static board for clients: the map, the factories, the action tables and tracks.

    >>> data = board_data()
    >>> data["provinces"][3]["name"], data["provinces"][3]["neighbours"]
    ('Liège', ['brabant', 'limburg', 'luxembourg', 'namur'])
    >>> [action["name"] for action in data["actions"]["3"]][-2:]
    ['The King', 'Turn order']
    """
    return {
        "provinces": [
            {
                "id": province,
                "name": NAMES[province],
                "neighbours": list(NEIGHBOURS[province]),
                "outline": [list(point) for point in outline(province)],
                "label": list(map_point(LABELS[province])),
            }
            for province in PROVINCES
        ],
        "borders": [list(pair) for pair in BORDERS],
        "map": {"width": MAP_WIDTH, "height": MAP_HEIGHT},
        "factories": [
            {"kind": kind, "name": f"{kind} factory", "points": FACTORY_POINTS[kind]}
            for kind in KINDS
        ],
        "actions": {
            str(players): [
                {"id": name, "name": ACTION_NAMES[name]} for name in table_actions(players)
            ]
            for players in (2, 3, 4)
        },
        "tracks": {"king": {"start": TRACK_START, "end": 0}, "turn_order": {"players": [3, 4]}},
        "pieces": {
            "citizens_per_player": CITIZENS_PER_COLOUR,
            "factories_per_kind": FACTORIES_PER_KIND,
            "royal_orders": ROYAL_ORDERS,
        },
        "round_limit": ROUND_LIMIT,
    }
