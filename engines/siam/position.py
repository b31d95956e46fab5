"""Building Siam states: a new game, and a running game from a posted position."""

from __future__ import annotations

from typing import Any

from engines.base import InvalidPosition, State
from engines.siam.board import (
    ANIMALS_PER_KIND,
    CROSS_PLIES,
    DIRECTIONS,
    KINDS,
    PLY_LIMIT,
    ROCK_START,
    SQUARE_SET,
    position_key,
)

#: ``last_push`` and ``positions`` are accepted so that a view can be posted back, and left
#: out: a position starts without a last move, and counts only itself as seen.
POSITION_KEYS = frozenset(
    {"board", "reserve", "ply", "to_move", "exits", "options", "last_push", "positions"}
)


def new_game(options: dict[str, Any]) -> State:
    """The starting state: rocks on b3, c3, d3, all animals in reserve, elephants to move."""
    board = {square: {"kind": "rock"} for square in ROCK_START}
    return {
        "board": board,
        "reserve": {kind: ANIMALS_PER_KIND for kind in KINDS},
        "ply": 0,
        "options": options,
        "exits": {kind: 0 for kind in KINDS},
        "last_push": None,
        "positions": {position_key(board, 0): 1},
        "outcome": None,
    }


def check_fields(position: Any) -> None:
    """Refuse a position that is not an object of known fields (InvalidPosition)."""
    if not isinstance(position, dict):
        raise InvalidPosition("A position must be a JSON object with a 'board'.")
    unknown = sorted(str(key) for key in set(position) - POSITION_KEYS)
    if unknown:
        raise InvalidPosition(f"Unknown position field(s): {', '.join(unknown)}.")


def build_position(options: dict[str, Any], position: dict[str, Any]) -> State:
    """A running state built from ``position`` (its fields checked) under merged ``options``.

    Raise InvalidPosition naming the first inconsistency.
    """
    if "options" in position and position["options"] != options:
        raise InvalidPosition("The position's options differ from the game's options.")
    board = _position_board(position.get("board"))
    ply = _position_ply(position.get("ply"), position.get("to_move"))
    return {
        "board": board,
        "reserve": _position_reserve(position.get("reserve"), board),
        "ply": ply,
        "options": options,
        "exits": _position_exits(position.get("exits"), options["exit_once"]),
        "last_push": None,
        "positions": {position_key(board, ply % 2): 1},
        "outcome": None,
    }


# -- the parts of a position ------------------------------------------------
def _position_piece(square: Any, piece: Any) -> dict[str, str]:
    """A validated copy of the piece on ``square``; raise InvalidPosition if it is wrong."""
    if not isinstance(square, str) or square not in SQUARE_SET:
        raise InvalidPosition(f"Unknown square {square!r} on the board: squares are a1..e5.")
    if not isinstance(piece, dict):
        raise InvalidPosition(f"The piece on {square} must be an object with a 'kind'.")
    kind = piece.get("kind")
    if kind == "rock":
        if set(piece) != {"kind"}:
            raise InvalidPosition(f"The rock on {square} takes no other field (no facing).")
        return {"kind": "rock"}
    if not isinstance(kind, str) or kind not in KINDS:
        raise InvalidPosition(
            f"Unknown piece kind {kind!r} on {square}: use rock, elephant or rhino."
        )
    facing = piece.get("facing")
    if set(piece) != {"kind", "facing"} or not isinstance(facing, str) or facing not in DIRECTIONS:
        raise InvalidPosition(
            f"The {kind} on {square} needs a facing N, E, S or W and no other field."
        )
    return {"kind": kind, "facing": facing}


def _position_board(board: Any) -> dict[str, Any]:
    """A validated copy of a position's board: 3 rocks, at most 5 animals per kind."""
    if not isinstance(board, dict):
        raise InvalidPosition("The position needs a 'board' object mapping squares to pieces.")
    checked = {square: _position_piece(square, piece) for square, piece in board.items()}
    rocks = _count(checked, "rock")
    if rocks != len(ROCK_START):
        raise InvalidPosition(f"A position has exactly 3 rocks on the board, not {rocks}.")
    for kind in KINDS:
        if _count(checked, kind) > ANIMALS_PER_KIND:
            raise InvalidPosition(
                f"There are only {ANIMALS_PER_KIND} {kind}s, but the board "
                f"has {_count(checked, kind)}."
            )
    return checked


def _count(board: dict[str, Any], kind: str) -> int:
    """How many ``kind`` pieces stand on ``board``."""
    return sum(piece["kind"] == kind for piece in board.values())


def _is_count(value: Any) -> bool:
    """Whether ``value`` is a non-negative integer (booleans excluded)."""
    return type(value) is int and value >= 0


def _position_reserve(reserve: Any, board: dict[str, Any]) -> dict[str, int]:
    """The reserve of a position: given and consistent, or what the board leaves over."""
    left = {kind: ANIMALS_PER_KIND - _count(board, kind) for kind in KINDS}
    if reserve is None:
        return left
    if (
        not isinstance(reserve, dict)
        or set(reserve) != set(KINDS)
        or not all(_is_count(value) for value in reserve.values())
    ):
        raise InvalidPosition(
            '\'reserve\' must be {"elephant": n, "rhino": n} with counts of at least 0.'
        )
    for kind in KINDS:
        if reserve[kind] != left[kind]:
            raise InvalidPosition(
                f"Each side has {ANIMALS_PER_KIND} animals: the {kind}s have "
                f"{ANIMALS_PER_KIND - left[kind]} on the board and "
                f"{reserve[kind]} in reserve."
            )
    return dict(reserve)


def _position_seat(to_move: Any) -> int | None:
    """The seat named by a position's ``to_move`` (a seat or a one-seat list), or None."""
    if to_move is None:
        return None
    if isinstance(to_move, list) and len(to_move) == 1:
        to_move = to_move[0]
    if type(to_move) is not int or to_move not in (0, 1):
        raise InvalidPosition("'to_move' must be seat 0 or 1, or a list holding one of them.")
    return to_move


def _position_ply(ply: Any, to_move: Any) -> int:
    """The ply of a position, consistent with ``to_move`` (ply 4 or 5 if only that is given)."""
    seat = _position_seat(to_move)
    if ply is None:
        return CROSS_PLIES + (seat or 0)
    if not _is_count(ply) or ply >= PLY_LIMIT:
        raise InvalidPosition(
            f"'ply' must be an integer from 0 to {PLY_LIMIT - 1}: at ply {PLY_LIMIT} the game"
            " is drawn."
        )
    if seat is not None and ply % 2 != seat:
        raise InvalidPosition(f"At ply {ply} seat {ply % 2} moves, not seat {seat}.")
    return ply


def _position_exits(exits: Any, exit_once: bool) -> dict[str, int]:
    """The voluntary exits used per side (variant B allows at most one)."""
    if exits is None:
        return {kind: 0 for kind in KINDS}
    if (
        not isinstance(exits, dict)
        or set(exits) != set(KINDS)
        or not all(_is_count(value) for value in exits.values())
    ):
        raise InvalidPosition(
            '\'exits\' must be {"elephant": n, "rhino": n} with counts of at least 0.'
        )
    if exit_once and max(exits.values()) > 1:
        raise InvalidPosition("Variant B allows each side only one exit per game.")
    return dict(exits)
