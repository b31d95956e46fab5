"""Board rules shared by move validation (``apply``) and move generation (``legal_moves``).

A *board* is ``{field: {"tile": id, "merchant": seat or None}}`` (occupied
fields only). Nothing here changes a board. A *problem* is ``(rule, message)``:
the rule's short name and a sentence a player understands.
"""

from __future__ import annotations

from typing import Any

from engines.bangkok_klongs.boards import BIG, Layout

Board = dict[str, dict[str, Any]]
Problem = tuple[str, str]

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
        return "field", f"There is no water field {at} on this board."
    if at in board:
        return "free_field", f"A boat may only be placed on a free water field; {at} holds one."
    if starts is not None and at not in starts:
        return "start_field", (
            "Placement rule 1: in the first round every player places a boat on a start field "
            f"({', '.join(sorted(starts))})."
        )
    if starts is None and not any(n in board for n in layout.neighbours[at]):
        return "adjacency", (
            "Placement rule 2: after the first round a boat must touch another boat "
            "horizontally, vertically or diagonally."
        )
    if sub_market_full(layout, board, at):
        return "sub_market", (
            f"Placement rule 3: a sub-market may hold at most {layout.sub_market_capacity} "
            f"boats, and the sub-market of {at} is full."
        )
    if tile["special"] == THIEF and protected(layout, board, at):
        return "overseer_protection", (
            f"Placement rule 4: no thief may be placed on {at}, which an overseer in its "
            "column protects."
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


def landing_points(layout: Layout, board: Board, landing: str) -> dict[int, int]:
    """Points per seat for scoring ``landing``: baskets x own merchants, doubled by a cook."""
    tiles = [layout.tiles[board[f]["tile"]] for f in layout.landing_places[landing]]
    baskets = sum(t["baskets"] for t in tiles if t["special"] != THIEF)
    factor = 2 if any(t["special"] == COOK for t in tiles) else 1
    points: dict[int, int] = {}
    for f in layout.landing_places[landing]:
        owner = board[f]["merchant"]
        if owner is not None:
            points[owner] = points.get(owner, 0) + baskets * factor
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
