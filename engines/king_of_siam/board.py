"""Map data for King of Siam: provinces, home provinces and borders, keyed by map name.

A map is plain data, so another board (the printed one, or King of Saba) is
one more entry in :data:`MAPS`; the rules read everything through
:class:`Board`. ``colony_at`` is how many British provinces end the game.

    >>> board = get_board("siam-1874")
    >>> board.homes["lao"]
    'luang-prabang'
    >>> sorted(board.adjacent["kedah"])
    ['nakhon-si-thammarat']
    >>> board.names["nakhon-si-thammarat"]
    'Nakhon Si Thammarat'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

FACTIONS = ("rama", "lao", "malay")
#: The factions as players name them, and the colour of their followers.
FACTION_NAMES = {"rama": "Rama", "lao": "Lao", "malay": "Malay"}
FACTION_COLOURS = {"rama": "yellow", "lao": "red", "malay": "blue"}
#: Who controls a province, as in "Korat falls to the Malays".
RULERS = {"rama": "the Rama", "lao": "the Lao", "malay": "the Malays", "british": "the British"}

MAPS: dict[str, dict[str, Any]] = {
    "siam-1874": {
        "provinces": [
            "chiang-mai",
            "luang-prabang",
            "sukhothai",
            "korat",
            "ayutthaya",
            "chanthaburi",
            "nakhon-si-thammarat",
            "kedah",
        ],
        "names": {
            "chiang-mai": "Chiang Mai",
            "luang-prabang": "Luang Prabang",
            "sukhothai": "Sukhothai",
            "korat": "Korat",
            "ayutthaya": "Ayutthaya",
            "chanthaburi": "Chanthaburi",
            "nakhon-si-thammarat": "Nakhon Si Thammarat",
            "kedah": "Kedah",
        },
        "homes": {"rama": "ayutthaya", "lao": "luang-prabang", "malay": "kedah"},
        "borders": [
            ["chiang-mai", "luang-prabang"],
            ["chiang-mai", "sukhothai"],
            ["luang-prabang", "sukhothai"],
            ["luang-prabang", "korat"],
            ["sukhothai", "korat"],
            ["sukhothai", "ayutthaya"],
            ["korat", "ayutthaya"],
            ["korat", "chanthaburi"],
            ["ayutthaya", "chanthaburi"],
            ["ayutthaya", "nakhon-si-thammarat"],
            ["nakhon-si-thammarat", "kedah"],
        ],
        "colony_at": 4,
    },
}


@dataclass(frozen=True)
class Board:
    """A map ready for the rules: provinces in map order, homes and adjacency."""

    name: str
    provinces: tuple[str, ...]
    names: dict[str, str]
    homes: dict[str, str]
    adjacent: dict[str, frozenset[str]]
    colony_at: int

    def rank(self, province: str) -> int:
        """The place of ``province`` in map order (the order of canonical moves)."""
        return _ranks(self.name)[province]


@cache
def _ranks(name: str) -> dict[str, int]:
    return {province: i for i, province in enumerate(MAPS[name]["provinces"])}


@cache
def get_board(name: str) -> Board:
    """The :class:`Board` of map ``name``; ``KeyError`` for an unknown map."""
    data = MAPS[name]
    provinces = tuple(data["provinces"])
    neighbours: dict[str, set[str]] = {province: set() for province in provinces}
    for first, second in data["borders"]:
        neighbours[first].add(second)
        neighbours[second].add(first)
    adjacent = {province: frozenset(found) for province, found in neighbours.items()}
    return Board(
        name, provinces, dict(data["names"]), dict(data["homes"]), adjacent, data["colony_at"]
    )


def map_data(name: str) -> dict[str, Any]:
    """Map ``name`` for clients: provinces in map order with names, homes and neighbours.

    >>> data = map_data("siam-1874")
    >>> data["provinces"][-1]
    {'key': 'kedah', 'name': 'Kedah', 'home_of': 'malay', 'neighbours': ['nakhon-si-thammarat']}
    >>> data["factions"][0], data["colony_at"]
    ({'key': 'rama', 'name': 'Rama', 'colour': 'yellow'}, 4)
    """
    board = get_board(name)
    home_of = {province: faction for faction, province in board.homes.items()}
    return {
        "map": name,
        "provinces": [
            {
                "key": province,
                "name": board.names[province],
                "home_of": home_of.get(province),
                "neighbours": sorted(board.adjacent[province], key=board.rank),
            }
            for province in board.provinces
        ],
        "borders": [list(pair) for pair in MAPS[name]["borders"]],
        "homes": dict(board.homes),
        "colony_at": board.colony_at,
        "factions": [
            {"key": f, "name": FACTION_NAMES[f], "colour": FACTION_COLOURS[f]} for f in FACTIONS
        ],
    }
