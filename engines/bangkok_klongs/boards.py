"""Board layouts of Bangkok Klongs: everything the rulebook's missing pictures hold.

One :class:`Layout` per board name in :data:`BOARDS` (the ``board`` option)
carries the water fields and their sub-markets, the landing places, the start
fields, the Luk Phat track, the tile mix and the per-player supplies. The rules
read only the layout, so a corrected board is one more entry in
:data:`BOARDS`. ``standard`` is the project's default of CONTRACT section 4.4.

    >>> layout = BOARDS["standard"]
    >>> len(layout.tiles), len(layout.landing_places), layout.track[0]
    (72, 43, 6)
    >>> layout.landing_places["L1-2"]
    ('r0c1', 'r0c2', 'r1c1', 'r1c2')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GOODS = ("shrimp", "flower", "avocado", "pineapple", "aubergine", "fish", "banana")
SPECIALS = ("thief", "overseer", "cook")
SMALL, BIG = "small", "big"


@dataclass(frozen=True)
class Layout:
    """One board: fields, lines, landing places, track, tiles and supplies."""

    name: str
    #: field name -> (row, column); rows run top to bottom, columns left to right.
    coords: dict[str, tuple[int, int]]
    #: field name -> the name of its sub-market.
    sub_market: dict[str, str]
    #: field name -> the other fields of its sub-market.
    sub_market_mates: dict[str, tuple[str, ...]]
    #: most boats one sub-market may hold.
    sub_market_capacity: int
    #: field name -> the fields touching it orthogonally or diagonally.
    neighbours: dict[str, tuple[str, ...]]
    #: field name -> the other fields of its thief line (its row).
    thief_line: dict[str, tuple[str, ...]]
    #: field name -> the other fields of its overseer line (its column).
    overseer_line: dict[str, tuple[str, ...]]
    #: landing place name -> the four fields it touches.
    landing_places: dict[str, tuple[str, ...]]
    #: player count -> the start fields of the first round.
    start_fields: dict[int, frozenset[str]]
    #: points of the Luk Phat spaces after the start space.
    track: tuple[int, ...]
    #: Luk Phat space number (1 = first space after the start) -> "small" or "big".
    market_days: dict[int, str]
    #: tile id -> {"good", "baskets", "neutral", "luk_phat", "special"}.
    tiles: dict[str, dict[str, Any]]
    #: player count -> merchants per player.
    merchants: dict[int, int]
    move_cards: int
    hand_size: int


def field_name(row: int, col: int) -> str:
    """The name ``r{row}c{col}`` of a water field."""
    return f"r{row}c{col}"


def _grid(rows: int, cols: int) -> dict[str, tuple[int, int]]:
    """Every field of a ``rows`` x ``cols`` grid with its coordinates."""
    return {field_name(r, c): (r, c) for r in range(rows) for c in range(cols)}


def _neighbours(coords: dict[str, tuple[int, int]]) -> dict[str, tuple[str, ...]]:
    """The 8-neighbourhood of every field of the grid."""
    result = {}
    for name, (row, col) in coords.items():
        around = (
            field_name(row + dr, col + dc)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr, dc) != (0, 0)
        )
        result[name] = tuple(n for n in around if n in coords)
    return result


def _mates(sub_market: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """For every field, the other fields of its sub-market."""
    return {
        name: tuple(o for o, os in sub_market.items() if os == sub and o != name)
        for name, sub in sub_market.items()
    }


def _lines(coords: dict[str, tuple[int, int]], axis: int) -> dict[str, tuple[str, ...]]:
    """For every field, the other fields sharing its row (axis 0) or column (axis 1)."""
    return {
        name: tuple(o for o, oc in coords.items() if oc[axis] == rc[axis] and o != name)
        for name, rc in coords.items()
    }


def _landing_places(rows: int, cols: int) -> dict[str, tuple[str, ...]]:
    """``L{i}-{j}`` between rows i-1, i and columns j-1, j, except sub-market centres."""
    return {
        f"L{i}-{j}": (
            field_name(i - 1, j - 1),
            field_name(i - 1, j),
            field_name(i, j - 1),
            field_name(i, j),
        )
        for i in range(1, rows)
        for j in range(1, cols)
        if not (i % 2 == 1 and j % 2 == 1)
    }


def _standard_tiles() -> dict[str, dict[str, Any]]:
    """The 72 tiles of CONTRACT 4.4: 9 boats per good, then 3 of each special."""
    baskets = (0, 1, 1, 1, 2, 2, 2, 3, 3)
    neutral, luk_phat = (1, 4, 7), (4, 7)
    tiles = {}
    for g, good in enumerate(GOODS):
        for i, count in enumerate(baskets):
            tiles[f"t{9 * g + i}"] = {
                "good": good,
                "baskets": count,
                "neutral": i in neutral,
                "luk_phat": i in luk_phat,
                "special": None,
            }
    first_special = 9 * len(GOODS)
    for s, special in enumerate(SPECIALS):
        for k in range(3):
            tiles[f"t{first_special + 3 * s + k}"] = {
                "good": None,
                "baskets": 0,
                "neutral": False,
                "luk_phat": False,
                "special": special,
            }
    return tiles


def _standard() -> Layout:
    """The project's default board (CONTRACT section 4.4)."""
    rows, cols = 8, 10
    coords = _grid(rows, cols)
    light = frozenset(field_name(7, c) for c in range(2, 8))
    with_dark = light | frozenset(field_name(0, c) for c in range(cols))
    sub_market = {name: f"{r // 2}-{c // 2}" for name, (r, c) in coords.items()}
    return Layout(
        name="standard",
        coords=coords,
        sub_market=sub_market,
        sub_market_mates=_mates(sub_market),
        sub_market_capacity=3,
        neighbours=_neighbours(coords),
        thief_line=_lines(coords, 0),
        overseer_line=_lines(coords, 1),
        landing_places=_landing_places(rows, cols),
        start_fields={2: light, 3: with_dark, 4: with_dark},
        track=(6, 5, 4, 3, 5, 4, 3, 3, 4, 3, 3, 2),
        market_days={4: SMALL, 8: SMALL, 12: BIG},
        tiles=_standard_tiles(),
        merchants={2: 17, 3: 12, 4: 9},
        move_cards=2,
        hand_size=4,
    )


BOARDS: dict[str, Layout] = {"standard": _standard()}
