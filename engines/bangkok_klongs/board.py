"""The board of Bangkok Klongs: its layouts, and what a board allows.

The layouts hold everything the rulebook's missing pictures hold.

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

The queries after the layouts are the board rules shared by move validation
(``apply``) and move generation (``legal_moves``). A *board* is ``{field:
{"tile": id, "merchant": seat or None}}`` (occupied fields only). Nothing
here changes a board. A *problem* is ``(rule, message)``: the rule's short
name and a sentence a player understands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.phrases import Phrase, phrase

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
    #: field name -> the landing places it touches.
    field_landings: dict[str, tuple[str, ...]]
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


def _field_landings(
    coords: dict[str, tuple[int, int]], landing_places: dict[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """For every field, the landing places it touches."""
    return {
        name: tuple(landing for landing, fields in landing_places.items() if name in fields)
        for name in coords
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
    landing_places = _landing_places(rows, cols)
    return Layout(
        name="standard",
        coords=coords,
        sub_market=sub_market,
        sub_market_mates=_mates(sub_market),
        sub_market_capacity=3,
        neighbours=_neighbours(coords),
        thief_line=_lines(coords, 0),
        overseer_line=_lines(coords, 1),
        landing_places=landing_places,
        field_landings=_field_landings(coords, landing_places),
        start_fields={2: light, 3: with_dark, 4: with_dark},
        track=(6, 5, 4, 3, 5, 4, 3, 3, 4, 3, 3, 2),
        market_days={4: SMALL, 8: SMALL, 12: BIG},
        tiles=_standard_tiles(),
        merchants={2: 17, 3: 12, 4: 9},
        move_cards=2,
        hand_size=4,
    )


BOARDS: dict[str, Layout] = {"standard": _standard()}


def board_data(layout: Layout) -> dict[str, Any]:
    """The static board for clients to draw it, as plain JSON data.

    >>> data = board_data(BOARDS["standard"])
    >>> data["rows"], data["columns"], data["fields"][13]
    (8, 10, {'name': 'r1c3', 'row': 1, 'column': 3, 'sub_market': '0-1'})
    >>> data["landing_places"]["L4-5"], data["luk_phat_track"][3]
    (['r3c4', 'r3c5', 'r4c4', 'r4c5'], {'space': 4, 'points': 3, 'market_day': 'small'})
    """
    rows = 1 + max(row for row, _ in layout.coords.values())
    columns = 1 + max(column for _, column in layout.coords.values())
    sub_markets: dict[str, list[str]] = {}
    for name, sub in layout.sub_market.items():
        sub_markets.setdefault(sub, []).append(name)
    return {
        "name": layout.name,
        "rows": rows,
        "columns": columns,
        "fields": [
            {"name": name, "row": row, "column": column, "sub_market": layout.sub_market[name]}
            for name, (row, column) in layout.coords.items()
        ],
        "sub_markets": sub_markets,
        "sub_market_capacity": layout.sub_market_capacity,
        "landing_places": {name: list(f) for name, f in layout.landing_places.items()},
        "start_fields": {
            str(count): sorted(f, key=layout.coords.__getitem__)
            for count, f in layout.start_fields.items()
        },
        "luk_phat_track": [
            {"space": space, "points": points, "market_day": layout.market_days.get(space)}
            for space, points in enumerate(layout.track, start=1)
        ],
        "tiles": {tile_id: dict(tile) for tile_id, tile in layout.tiles.items()},
        "merchants": {str(count): n for count, n in layout.merchants.items()},
        "move_cards": layout.move_cards,
        "hand_size": layout.hand_size,
    }


# -- what a board allows ------------------------------------------------------
Board = dict[str, dict[str, Any]]
Problem = tuple[str, Phrase]

THIEF, OVERSEER, COOK = "thief", "overseer", "cook"


def has_merchant_spot(tile: dict[str, Any]) -> bool:
    """True for a boat with an empty merchant spot (neither neutral nor special)."""
    return not tile["neutral"] and tile["special"] is None


def special_at(layout: Layout, board: Board, field: str) -> str | None:
    """The special kind of the boat on ``field`` (None for goods boats)."""
    return layout.tiles[board[field]["tile"]]["special"]


def sub_market_full(layout: Layout, board: Board, field: str, leaving: str | None = None) -> bool:
    """True when ``field``'s sub-market already holds its maximum, not counting ``leaving``."""
    load = sum(1 for f in layout.sub_market_mates[field] if f in board and f != leaving)
    return load >= layout.sub_market_capacity


def protected(layout: Layout, board: Board, field: str) -> bool:
    """True when an overseer stands on ``field``'s column (its overseer line)."""
    return any(
        f in board and special_at(layout, board, f) == OVERSEER for f in layout.overseer_line[field]
    )


def placement_problem(
    layout: Layout, board: Board, tile: dict[str, Any], at: str, starts: frozenset[str] | None
) -> Problem | None:
    """Why ``tile`` may not be placed on ``at`` (None if it may).

    ``starts`` is the set of start fields during the placer's first round,
    None afterwards.
    """
    if at not in layout.coords:
        return "field", phrase("There is no water field %(field)s on this board.", field=at)
    if at in board:
        return "free_field", phrase(
            "A boat may only be placed on a free water field; %(field)s holds one.", field=at
        )
    if starts is not None and at not in starts:
        return "start_field", phrase(
            "Placement rule 1: in the first round every player places a boat on a start field "
            "(%(fields)s).",
            fields=", ".join(sorted(starts)),
        )
    if starts is None and not any(n in board for n in layout.neighbours[at]):
        return "adjacency", phrase(
            "Placement rule 2: after the first round a boat must touch another boat "
            "horizontally, vertically or diagonally."
        )
    if sub_market_full(layout, board, at):
        return "sub_market", phrase(
            "Placement rule 3: a sub-market may hold at most %(count)s boats, and the "
            "sub-market of %(field)s is full.",
            count=layout.sub_market_capacity,
            field=at,
        )
    if tile["special"] == THIEF and protected(layout, board, at):
        return "overseer_protection", phrase(
            "Placement rule 4: no thief may be placed on %(field)s, which an overseer in its "
            "column protects.",
            field=at,
        )
    return None


def own_fields(board: Board, seat: int) -> list[str]:
    """The fields of the boats carrying one of ``seat``'s merchants."""
    return [f for f, cell in board.items() if cell["merchant"] == seat]


def merchants_on_board(board: Board, seat: int) -> int:
    """How many of ``seat``'s merchants stand on the board."""
    return len(own_fields(board, seat))


def relocation_destinations(layout: Layout, board: Board, origin: str) -> list[str]:
    """The free fields next to ``origin`` (diagonals too) a boat from there may move to."""
    return [
        n
        for n in layout.neighbours[origin]
        if n not in board and not sub_market_full(layout, board, n, leaving=origin)
    ]


def relocations(layout: Layout, board: Board, seat: int) -> list[tuple[str, str]]:
    """Every move-card relocation ``(from, to)`` of one of ``seat``'s boats on ``board``."""
    return [
        (origin, target)
        for origin in own_fields(board, seat)
        for target in relocation_destinations(layout, board, origin)
    ]


def can_relocate(layout: Layout, board: Board, seat: int) -> bool:
    """True when some boat of ``seat`` has a free neighbouring field to move to."""
    return any(relocation_destinations(layout, board, f) for f in own_fields(board, seat))


def relocated(board: Board, origin: str, target: str) -> Board:
    """A new board with the boat of ``origin`` moved to ``target``."""
    moved = dict(board)
    moved[target] = moved.pop(origin)
    return moved


def merchant_choices(board: Board, seat: int, supply: int, tile: dict[str, Any]) -> list[str]:
    """The ``merchant`` values allowed for placing ``tile``.

    ``new`` while the supply lasts, a field of an own boat once every merchant
    is in use, ``none`` always; only ``none`` for a boat without merchant spot.
    """
    if not has_merchant_spot(tile):
        return ["none"]
    if supply > 0:
        return ["new", "none"]
    return ["none", *own_fields(board, seat)]


def steal_targets(layout: Layout, board: Board, at: str) -> list[str]:
    """The boats a thief on ``at`` may take: its row, no overseer, nothing protected."""
    return [
        f
        for f in layout.thief_line[at]
        if f in board
        and special_at(layout, board, f) != OVERSEER
        and not protected(layout, board, f)
    ]


def thieves_in_column(layout: Layout, board: Board, at: str) -> list[str]:
    """The thieves on the overseer line (column) of ``at``."""
    return [
        f for f in layout.overseer_line[at] if f in board and special_at(layout, board, f) == THIEF
    ]


def can_score(layout: Layout, board: Board, landing: str, seat: int) -> bool:
    """True when all four fields of ``landing`` hold boats and one of them is ``seat``'s."""
    fields = layout.landing_places[landing]
    return all(f in board for f in fields) and any(board[f]["merchant"] == seat for f in fields)


def scorable_landings(layout: Layout, board: Board, seat: int) -> list[str]:
    """The landing places ``seat`` may score now."""
    return [name for name in layout.landing_places if can_score(layout, board, name, seat)]


def landing_value(tiles: list[dict[str, Any]]) -> int:
    """What each merchant at a landing place of ``tiles`` scores: the baskets (a thief's
    count nothing), doubled by a cook."""
    baskets = sum(t["baskets"] for t in tiles if t["special"] != THIEF)
    return baskets * (2 if any(t["special"] == COOK for t in tiles) else 1)


def landing_points(layout: Layout, board: Board, landing: str) -> dict[int, int]:
    """Points per seat for scoring ``landing``: baskets x own merchants, doubled by a cook."""
    value = landing_value([layout.tiles[board[f]["tile"]] for f in layout.landing_places[landing]])
    points: dict[int, int] = {}
    for f in layout.landing_places[landing]:
        owner = board[f]["merchant"]
        if owner is not None:
            points[owner] = points.get(owner, 0) + value
    return points


def removable(layout: Layout, board: Board, landing: str, seat: int, kind: str) -> list[str]:
    """The boats of ``landing`` the scorer may take: own ones; on the big day also neutral ones.

    Neutral boats are those with a printed merchant; a boat whose merchant
    spot is empty belongs to nobody and is not neutral either.
    """
    return [
        f
        for f in layout.landing_places[landing]
        if board[f]["merchant"] == seat
        or (kind == BIG and layout.tiles[board[f]["tile"]]["neutral"])
    ]


def inventory_points(layout: Layout, inventory: list[str]) -> int:
    """1 + 2 + ... + n for the n boats of each good; specials count nothing."""
    counts: dict[str, int] = {}
    for tile_id in inventory:
        good = layout.tiles[tile_id]["good"]
        if good is not None:
            counts[good] = counts.get(good, 0) + 1
    return sum(n * (n + 1) // 2 for n in counts.values())
