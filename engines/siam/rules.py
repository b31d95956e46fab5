"""Playing Siam: the moves' fields, legal moves, pushes and the four actions.

``play`` checks a well-formed move of the seat to move (IllegalMove naming the
broken rule) and carries it out on a copy of the state; ``carry_out`` carries out
a legal move on the state it is given (the playout path of a search).
"""

from __future__ import annotations

from typing import Any

from engines.base import Engine, IllegalMove, Move, State
from engines.phrases import Phrase, either, phrase
from engines.siam.board import (
    CROSS_PLIES,
    CROSS_SQUARES,
    DIRECTIONS,
    INWARD,
    KINDS,
    NEXT,
    OPPOSITE,
    OUTER,
    OUTER_SET,
    PLY_LIMIT,
    RAY,
    REPETITIONS,
    SQUARE_SET,
    STEP_DIRECTION,
    owner,
    position_key,
)
from engines.siam.words import TOWARDS as DIRECTION_WORDS
from engines.siam.words import says

FIELDS = {
    "enter": ("to", "facing"),
    "move": ("from", "to", "facing"),
    "rotate": ("at", "facing"),
    "exit": ("from",),
}


def shape_problem(move: Any) -> Phrase | None:
    """Why ``move`` is not a well-formed Siam move, or None if it is."""
    if not isinstance(move, dict):
        return phrase("A move must be a JSON object with an 'action' field.")
    action = move.get("action")
    if not isinstance(action, str) or action not in FIELDS:
        return phrase("The action must be one of enter, move, rotate or exit.")
    fields = FIELDS[action]
    if set(move) != {"action", *fields}:
        return phrase(
            "A %(action)s move has exactly the fields action, %(fields)s.",
            action=action,
            fields=", ".join(fields),
        )
    for field in fields:
        value = move[field]
        if field == "facing" and (not isinstance(value, str) or value not in DIRECTIONS):
            return phrase("The field 'facing' must be one of N, E, S, W.")
        if field != "facing" and (not isinstance(value, str) or value not in SQUARE_SET):
            return phrase("The field %(field)r must be a square a1..e5.", field=field)
    return None


# -- legal move generation ------------------------------------------------
def legal_moves(state: State, kind: str) -> list[Move]:
    """One legal move of the ``kind`` side per outcome: entries first, then per animal."""
    board = state["board"]
    blocked = _cross_blocked(state)
    moves = _legal_entries(state, board, kind, blocked)
    may_exit = not (state["options"]["exit_once"] and state["exits"][kind])
    for square, piece in board.items():
        if piece["kind"] == kind:
            moves += _legal_steps(board, square, piece["facing"], blocked)
            moves += [
                {"action": "rotate", "at": square, "facing": facing}
                for facing in DIRECTIONS
                if facing != piece["facing"]
            ]
            if may_exit and square in OUTER_SET:
                moves.append({"action": "exit", "from": square})
    return moves


def _cross_blocked(state: State) -> frozenset[str]:
    """The squares no animal may be entered or moved onto now (cross rule)."""
    if state["options"]["cross_rule"] and state["ply"] < CROSS_PLIES:
        return CROSS_SQUARES
    return frozenset()


def _legal_entries(
    state: State, board: dict[str, Any], kind: str, blocked: frozenset[str]
) -> list[Move]:
    """Every legal ``enter`` for ``kind``."""
    if not state["reserve"][kind]:
        return []
    moves = []
    for square in OUTER:
        if square in blocked:
            continue
        if square in board:
            facings = [
                d
                for d in INWARD[square]
                if _push_problem(board, square, d) is None
                and not _same_as_entering_behind(board, square, d, kind, blocked)
            ]
        else:
            facings = list(DIRECTIONS)
        moves += [{"action": "enter", "to": square, "facing": facing} for facing in facings]
    return moves


def _same_as_entering_behind(
    board: dict[str, Any], square: str, direction: str, kind: str, blocked: frozenset[str]
) -> bool:
    """True when entering on the occupied ``square`` toward ``direction`` gives the same board
    as entering on the free outer square behind the pushed line: every pushed piece is an
    animal of ``kind`` facing ``direction``, so shifting them adds one more of the same."""
    line = _push_line(board, square, direction)
    behind = NEXT[line[-1]][direction]
    return (
        behind in OUTER_SET
        and behind not in blocked
        and all(board[sq] == {"kind": kind, "facing": direction} for sq in line)
    )


def _legal_steps(
    board: dict[str, Any], square: str, facing: str, blocked: frozenset[str]
) -> list[Move]:
    """Every legal ``move`` of the animal on ``square`` facing ``facing``."""
    moves = []
    for direction, target in NEXT[square].items():
        if target is None or target in blocked:
            continue
        if target not in board:
            moves += [
                {"action": "move", "from": square, "to": target, "facing": new}
                for new in DIRECTIONS
            ]
        elif direction == facing and _push_problem(board, target, direction) is None:
            moves.append({"action": "move", "from": square, "to": target, "facing": facing})
    return moves


# -- pushing ------------------------------------------------------------
def _push_line(board: dict[str, Any], target: str, direction: str) -> list[str]:
    """The contiguous run of occupied squares from ``target`` toward ``direction``."""
    line = []
    for square in RAY[target][direction]:
        if square not in board:
            break
        line.append(square)
    return line


def _push_problem(board: dict[str, Any], target: str, direction: str) -> IllegalMove | None:
    """Why one animal cannot push into ``target`` toward ``direction``, or None if it can."""
    pushing, against, rocks = 1, 0, 0
    backward = OPPOSITE[direction]
    for square in _push_line(board, target, direction):
        facing = board[square].get("facing")
        if facing is None:
            rocks += 1
        elif facing == direction:
            pushing += 1
        elif facing == backward:
            against += 1
    force = pushing - against
    if force < 1:
        return IllegalMove(
            phrase(
                "Push rule C: an animal cannot push animals facing it unless more animals push "
                "the same way; here %(pushing)s push and %(against)s face against the push.",
                pushing=pushing,
                against=against,
            ),
            "push_facing",
        )
    if force < rocks:
        return IllegalMove(
            phrase(
                "Push rule B: each rock needs one animal's force; a net force of %(force)s "
                "cannot push %(rocks)s rocks.",
                force=force,
                rocks=rocks,
            ),
            "push_rocks",
        )
    return None


def _check_push(board: dict[str, Any], target: str, direction: str) -> None:
    """Raise IllegalMove if one animal cannot push into ``target`` toward ``direction``."""
    problem = _push_problem(board, target, direction)
    if problem:
        raise problem


def _shift_line(state: State, line: list[str], direction: str, seat: int) -> dict[str, Any]:
    """Move every piece of ``line`` one square on; a piece leaving the board leaves the state.

    Return the push as the state's ``last_push`` records it: the direction, the
    squares the pushed pieces now stand on, and the piece pushed off (if any).
    """
    board = state["board"]
    last = line[-1]
    off = None
    if NEXT[last][direction] is None:
        leaving = board.pop(last)
        off = {"kind": leaving["kind"], "from": last}
        line = line[:-1]
        if leaving["kind"] == "rock":
            state["outcome"] = _rock_outcome(board, line, last, direction, seat)
        else:
            state["reserve"][leaving["kind"]] += 1
    for square in reversed(line):
        board[NEXT[square][direction]] = board.pop(square)
    return {
        "direction": direction,
        "squares": [NEXT[square][direction] for square in line],
        "off": off,
    }


def _rock_outcome(
    board: dict[str, Any], behind: list[str], rock: str, direction: str, seat: int
) -> dict[str, Any]:
    """The outcome when the rock on ``rock`` leaves: nearest animal behind it facing the push.

    ``behind`` are the line's squares before the rock (before the shift); the
    pusher, which lands on the line's first square, faces the push and ends
    the walk.
    """
    for square in reversed(behind):
        piece = board[square]
        if piece.get("facing") == direction:
            winner, animal = owner(piece["kind"]), NEXT[square][direction]
            break
    else:
        winner, animal = seat, behind[0] if behind else rock
    return {"winner": winner, "mover": seat, "rock": rock, "direction": direction, "animal": animal}


def winner_if_played(state: State, kind: str, move: Move) -> int | None:
    """The seat that wins at once if the ``kind`` side plays the legal ``move``: a push
    that sends a rock off the board; None for any other move."""
    square = move.get("to")
    board = state["board"]
    if move["action"] not in ("enter", "move") or square not in board:
        return None
    direction = move["facing"]  # a pusher faces the push (push rule I, and entering)
    line = _push_line(board, square, direction)
    rock = line[-1]
    if NEXT[rock][direction] is not None or board[rock]["kind"] != "rock":
        return None
    return _rock_outcome(board, line[:-1], rock, direction, KINDS.index(kind))["winner"]


# -- actions --------------------------------------------------------------
def play(state: State, kind: str, move: Move) -> State:
    """The state after the ``kind`` side, to move, plays the well-formed ``move``: the move
    is checked (IllegalMove naming the broken rule), then carried out on a copy."""
    CHECKS[move["action"]](state, kind, move)
    return carry_out(Engine.copy_state(state), kind, move)


def carry_out(state: State, kind: str, move: Move) -> State:
    """Carry out the legal ``move`` of the ``kind`` side to move on ``state`` itself."""
    return CARRY_OUT[move["action"]](state, kind, move)


def _require_cross_free(state: State, square: str) -> None:
    """Refuse a destination forbidden by the cross rule."""
    if square in _cross_blocked(state):
        raise IllegalMove(
            phrase(
                "Cross rule: no animal may enter or move onto %(square)s (c1 and c5) during "
                "each player's first two turns.",
                square=square,
            ),
            "cross_rule",
        )


def _place(state: State, square: str, piece: dict[str, str], entering: bool) -> State:
    """Push the line starting on ``square`` (if occupied) on, put ``piece`` there and pass
    the turn."""
    board = state["board"]
    line = _push_line(board, square, piece["facing"]) if square in board else []
    seat = state["ply"] % 2
    state["last_push"] = _shift_line(state, line, piece["facing"], seat) if line else None
    board[square] = piece
    return _pass_turn(state, irreversible=entering or bool(line))


def _pass_turn(state: State, irreversible: bool) -> State:
    """Count the move, record the new position, and end a game that goes round in circles.

    ``positions`` counts each position since the last entry, exit or push
    (``irreversible``: the positions before it are forgotten). The third time
    the same position comes up, or at :data:`PLY_LIMIT` plies, the game is drawn.
    """
    state["ply"] += 1
    key = position_key(state["board"], state["ply"] % 2)
    positions = {} if irreversible else state["positions"]
    positions[key] = positions.get(key, 0) + 1
    state["positions"] = positions
    if state["outcome"] is None:
        if positions[key] >= REPETITIONS:
            state["outcome"] = {"draw": "repetition"}
        elif state["ply"] >= PLY_LIMIT:
            state["outcome"] = {"draw": "ply_limit"}
    return state


def _check_enter(state: State, kind: str, move: Move) -> None:
    """An animal enters from the reserve onto an outer square, pushing if it is occupied."""
    square, facing = move["to"], move["facing"]
    if not state["reserve"][kind]:
        raise IllegalMove(says(kind, "none_left"), "reserve_empty")
    if square not in OUTER_SET:
        raise IllegalMove(
            phrase(
                "An animal enters only onto an outer square; %(square)s is not one.", square=square
            ),
            "outer_square",
        )
    _require_cross_free(state, square)
    if square in state["board"]:
        if facing not in INWARD[square]:
            raise IllegalMove(
                phrase(
                    "Push rule E: entering onto the occupied square %(square)s is a push: the "
                    "animal must face inward, perpendicular to the edge (%(inward)s).",
                    square=square,
                    inward=either(*INWARD[square]),
                ),
                "enter_push_facing",
            )
        _check_push(state["board"], square, facing)


def _enter(state: State, kind: str, move: Move) -> State:
    state["reserve"][kind] -= 1
    piece = {"kind": kind, "facing": move["facing"]}
    return _place(state, move["to"], piece, entering=True)


def _own_animal(state: State, kind: str, square: str) -> dict[str, str]:
    """The ``kind`` animal on ``square``; raise IllegalMove if there is none."""
    piece = state["board"].get(square)
    if piece is None or piece["kind"] != kind:
        raise IllegalMove(says(kind, "not_yours", square=square), "own_animal")
    return piece


def _check_move(state: State, kind: str, move: Move) -> None:
    """An animal moves one square orthogonally, pushing if the square is occupied."""
    origin, square, facing = move["from"], move["to"], move["facing"]
    piece = _own_animal(state, kind, origin)
    direction = STEP_DIRECTION.get((origin, square))
    if direction is None:
        raise IllegalMove(
            phrase(
                "An animal moves one square orthogonally; %(origin)s to %(square)s is not such "
                "a step.",
                origin=origin,
                square=square,
            ),
            "orthogonal_step",
        )
    _require_cross_free(state, square)
    if square in state["board"]:
        if piece["facing"] != direction:
            raise IllegalMove(
                says(
                    kind,
                    "not_forward",
                    square=origin,
                    facing=DIRECTION_WORDS[piece["facing"]],
                    direction=DIRECTION_WORDS[direction],
                ),
                "push_forward",
            )
        if facing != direction:
            raise IllegalMove(
                phrase("Push rule I: an animal never changes its facing while pushing."),
                "push_orientation",
            )
        _check_push(state["board"], square, direction)


def _move(state: State, kind: str, move: Move) -> State:
    del state["board"][move["from"]]
    piece = {"kind": kind, "facing": move["facing"]}
    return _place(state, move["to"], piece, entering=False)


def _check_rotate(state: State, kind: str, move: Move) -> None:
    """An animal turns on its square by a quarter or half turn."""
    square, facing = move["at"], move["facing"]
    if _own_animal(state, kind, square)["facing"] == facing:
        raise IllegalMove(
            says(kind, "same_facing", square=square, facing=DIRECTION_WORDS[facing]),
            "same_facing",
        )


def _rotate(state: State, kind: str, move: Move) -> State:
    state["board"][move["at"]] = {"kind": kind, "facing": move["facing"]}
    state["last_push"] = None
    return _pass_turn(state, irreversible=False)


def _check_exit(state: State, kind: str, move: Move) -> None:
    """An animal on an outer square goes back to its owner's reserve."""
    square = move["from"]
    _own_animal(state, kind, square)
    if square not in OUTER_SET:
        raise IllegalMove(
            phrase(
                "An animal leaves the board only from an outer square; %(square)s is not one.",
                square=square,
            ),
            "exit_outer",
        )
    if state["options"]["exit_once"] and state["exits"][kind]:
        raise IllegalMove(says(kind, "exit_once"), "exit_once")


def _exit(state: State, kind: str, move: Move) -> State:
    del state["board"][move["from"]]
    state["reserve"][kind] += 1
    state["exits"][kind] += 1
    state["last_push"] = None
    return _pass_turn(state, irreversible=True)


#: Per action: the check raising IllegalMove, and the change it makes to a state.
CHECKS = {"enter": _check_enter, "move": _check_move, "rotate": _check_rotate, "exit": _check_exit}
CARRY_OUT = {"enter": _enter, "move": _move, "rotate": _rotate, "exit": _exit}
