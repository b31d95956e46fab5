"""Siam (Ferti, Didier Dhorbait): elephants against rhinos around three rocks.

Contract section 4.1. Seat 0 plays the elephants and moves first, seat 1 the
rhinos. The game ends when a rock is pushed off the 5x5 board; the nearest
animal behind it facing the push wins for its owner.

State
    ``{"board": {"c3": {"kind": "rock"}, "a1": {"kind": "elephant", "facing": "N"}},
    "reserve": {"elephant": 5, "rhino": 5}, "ply": 0,
    "options": {"cross_rule": true, "exit_once": false},
    "exits": {"elephant": 0, "rhino": 0}, "outcome": null}``.
    ``exits`` counts each side's voluntary exits (variant B); ``outcome`` is
    ``null`` while the game runs, then ``{"winner", "mover", "rock",
    "direction", "animal"}`` (``animal``: the winning animal's square after
    the push). Siam has no chance and no hidden information, so the state
    holds no PRNG and every view is the same public view (everything but
    ``outcome``, which the result reports).

Notation (case-insensitive, any spacing between words)::

    enter a1 N        {"action": "enter", "to": "a1", "facing": "N"}
    move b2 b3 E      {"action": "move", "from": "b2", "to": "b3", "facing": "E"}
    rotate b2 S       {"action": "rotate", "at": "b2", "facing": "S"}
    exit a1           {"action": "exit", "from": "a1"}

Decisions
    - Cross rule: "the first two turns" of each player are plies 0 to 3. It
      forbids only the acting animal's destination (an ``enter`` or ``move``
      onto c1 or c5, pushing or not). Pieces pushed onto c1 or c5 by a push,
      and rotations or exits of an animal already there, are allowed.
    - An animal entering onto an occupied square is the pusher: it faces
      inward, perpendicular to the edge (either inward direction on a
      corner), and counts in the push like any pusher.
    - Moving onto an empty square may keep or change the facing freely.
      ``rotate`` must change the facing. An animal leaves the board only by
      ``exit`` (from an outer square, whatever its facing) or by being pushed.
    - Winner: walk back from the rock's last square against the push,
      through the pushed line to the pusher, skipping rocks and animals not
      facing the push. The pusher always faces the push, so there is always
      a winner; it may be the opponent of the mover.
    - ``legal_moves`` lists one move per outcome. Entering on an occupied
      square whose pushed line holds only animals of the entering kind facing
      the push, with a free outer square behind it, gives the same board as
      entering on that square, which alone is listed; both are legal.
    - Variant B (``exit_once``) limits the voluntary ``exit`` action to once
      per side; animals pushed off do not count. Variant A (other board side,
      4 animals) is not offered: the contract defines no option for it.
    - ``from_position`` accepts ``board`` (required), ``reserve`` (default: 5
      minus that kind's animals on the board), ``ply``, ``to_move`` (a seat or
      a one-seat list), ``exits`` (default none used) and ``options`` (must
      equal the game's options, so that a view can be posted back). Given
      only ``to_move``, the ply is 4 or 5 (cross rule over); given neither,
      the ply is 4 and the elephants move. A position always has 3 rocks.
"""

from __future__ import annotations

from typing import Any

from engines.base import Engine, IllegalMove, InvalidPosition, Move, NotationError, State

FILES = "abcde"
RANKS = "12345"
SQUARES = tuple(file + rank for rank in RANKS for file in FILES)
SQUARE_SET = frozenset(SQUARES)
DIRECTIONS = ("N", "E", "S", "W")
DIRECTION_NAMES = {"N": "north", "E": "east", "S": "south", "W": "west"}
OPPOSITE = {"N": "S", "E": "W", "S": "N", "W": "E"}
KINDS = ("elephant", "rhino")
ANIMALS_PER_KIND = 5
ROCK_START = ("b3", "c3", "d3")
CROSS_SQUARES = frozenset({"c1", "c5"})
CROSS_PLIES = 4
FIELDS = {
    "enter": ("to", "facing"),
    "move": ("from", "to", "facing"),
    "rotate": ("at", "facing"),
    "exit": ("from",),
}
POSITION_KEYS = frozenset({"board", "reserve", "ply", "to_move", "exits", "options"})


def _neighbour(square: str, direction: str) -> str | None:
    """The square one step from ``square`` toward ``direction``, or None off the board."""
    file, rank = FILES.index(square[0]), RANKS.index(square[1])
    file += {"E": 1, "W": -1}.get(direction, 0)
    rank += {"N": 1, "S": -1}.get(direction, 0)
    if 0 <= file < 5 and 0 <= rank < 5:
        return FILES[file] + RANKS[rank]
    return None


def _inward(square: str) -> tuple[str, ...]:
    """Directions perpendicular to the edges ``square`` lies on, pointing into the board."""
    edges = {
        "N": square[1] == "1",
        "E": square[0] == "a",
        "S": square[1] == "5",
        "W": square[0] == "e",
    }
    return tuple(direction for direction in DIRECTIONS if edges[direction])


NEXT = {sq: {d: _neighbour(sq, d) for d in DIRECTIONS} for sq in SQUARES}
STEP_DIRECTION = {(sq, to): d for sq in SQUARES for d, to in NEXT[sq].items() if to}
INWARD = {sq: _inward(sq) for sq in SQUARES}
OUTER = tuple(sq for sq in SQUARES if INWARD[sq])
OUTER_SET = frozenset(OUTER)


def _ray(square: str, direction: str) -> tuple[str, ...]:
    """``square`` and every square after it toward ``direction`` up to the edge."""
    squares = [square]
    while (following := NEXT[squares[-1]][direction]) is not None:
        squares.append(following)
    return tuple(squares)


RAY = {sq: {d: _ray(sq, d) for d in DIRECTIONS} for sq in SQUARES}


def _owner(kind: str) -> int:
    """The seat playing ``kind``."""
    return KINDS.index(kind)


def _shape_problem(move: Any) -> str | None:
    """Why ``move`` is not a well-formed Siam move, or None if it is."""
    if not isinstance(move, dict):
        return "A move must be a JSON object with an 'action' field."
    action = move.get("action")
    if not isinstance(action, str) or action not in FIELDS:
        return "The action must be one of enter, move, rotate or exit."
    fields = FIELDS[action]
    if set(move) != {"action", *fields}:
        return f"A {action} move has exactly the fields action, {', '.join(fields)}."
    for field in fields:
        value = move[field]
        allowed = DIRECTIONS if field == "facing" else SQUARE_SET
        if not isinstance(value, str) or value not in allowed:
            what = "one of N, E, S, W" if field == "facing" else "a square a1..e5"
            return f"The field {field!r} must be {what}."
    return None


class SiamEngine(Engine):
    """The rules of Siam on the 5x5 board (contract section 4.1)."""

    id = "siam"
    name = "Siam"
    min_players = 2
    max_players = 2
    default_options = {"cross_rule": True, "exit_once": False}

    # -- creation -------------------------------------------------------
    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """The starting state: rocks on b3, c3, d3, all animals in reserve, elephants to move."""
        return {
            "board": {square: {"kind": "rock"} for square in ROCK_START},
            "reserve": {kind: ANIMALS_PER_KIND for kind in KINDS},
            "ply": 0,
            "options": self.options(options),
            "exits": {kind: 0 for kind in KINDS},
            "outcome": None,
        }

    def from_position(
        self, players: int, options: dict[str, Any], seed: int, position: dict[str, Any]
    ) -> State:
        """A running state built from ``position``; raise InvalidPosition if it is inconsistent."""
        if not isinstance(position, dict):
            raise InvalidPosition("A position must be a JSON object with a 'board'.")
        unknown = sorted(str(key) for key in set(position) - POSITION_KEYS)
        if unknown:
            raise InvalidPosition(f"Unknown position field(s): {', '.join(unknown)}.")
        merged = self.options(options)
        if "options" in position and position["options"] != merged:
            raise InvalidPosition("The position's options differ from the game's options.")
        board = _position_board(position.get("board"))
        return {
            "board": board,
            "reserve": _position_reserve(position.get("reserve"), board),
            "ply": _position_ply(position.get("ply"), position.get("to_move")),
            "options": merged,
            "exits": _position_exits(position.get("exits"), merged["exit_once"]),
            "outcome": None,
        }

    # -- play -----------------------------------------------------------
    def to_move(self, state: State) -> list[int]:
        """``[ply % 2]`` while the game runs, ``[]`` once a rock has left the board."""
        return [] if state["outcome"] else [state["ply"] % 2]

    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """One legal move of ``seat`` per outcome, in a fixed order (enter, then per animal).

        An ``enter`` that only pushes animals like the entering one (same kind,
        facing the push) onto a free outer square gives the board of entering
        on that square: only the latter is listed; ``apply`` takes both.
        """
        if type(seat) is not int or seat not in self.to_move(state):
            return []
        kind = KINDS[seat]
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

    def apply(self, state: State, seat: int, move: Move) -> State:
        """The state after ``seat`` plays ``move``; raise IllegalMove naming the broken rule."""
        if state["outcome"]:
            raise IllegalMove("The game is over: a rock has left the board.", "game_over")
        if type(seat) is not int or seat not in self.to_move(state):
            raise IllegalMove(
                f"It is not seat {seat}'s turn; seat {state['ply'] % 2} moves.", "turn"
            )
        problem = _shape_problem(move)
        if problem:
            raise IllegalMove(problem, "malformed")
        handler = {
            "enter": _apply_enter,
            "move": _apply_move,
            "rotate": _apply_rotate,
            "exit": _apply_exit,
        }[move["action"]]
        return handler(state, KINDS[seat], move)

    def result(self, state: State) -> dict[str, Any] | None:
        """None while running, else the winner, scores, a reason and the final push."""
        outcome = state["outcome"]
        if not outcome:
            return None
        winner = outcome["winner"]
        direction = DIRECTION_NAMES[outcome["direction"]]
        reason = (
            f"The rock on {outcome['rock']} was pushed off the board to the {direction}; "
            f"the nearest animal behind it facing the push is the {KINDS[winner]} "
            f"now on {outcome['animal']}, so the {KINDS[winner]}s (seat {winner}) win"
        )
        if outcome["mover"] != winner:
            reason += f" although seat {outcome['mover']} made the push"
        return {
            "winners": [winner],
            "scores": {str(seat): int(seat == winner) for seat in (0, 1)},
            "reason": reason + ".",
            "rock": outcome["rock"],
            "direction": outcome["direction"],
            "winning_animal": outcome["animal"],
            "pushed_by": outcome["mover"],
        }

    # -- views ----------------------------------------------------------
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The public view (the same for every seat): board, reserve, ply, options, exits."""
        view = {key: state[key] for key in ("board", "reserve", "ply", "options", "exits")}
        return self.copy_state(view)

    # -- notation -------------------------------------------------------
    def format(self, move: Move) -> str:
        """``enter a1 N``, ``move b2 b3 E``, ``rotate b2 S`` or ``exit a1``."""
        problem = _shape_problem(move)
        if problem:
            raise NotationError(problem)
        return " ".join([move["action"], *(move[field] for field in FIELDS[move["action"]])])

    def parse(self, text: str, state: State | None = None) -> Move:
        """The move written as ``text`` (case-insensitive); raise NotationError otherwise."""
        if not isinstance(text, str) or not text.split():
            raise NotationError(
                "Write a move such as 'enter a1 N', 'move b2 b3 E', 'rotate b2 S' or 'exit a1'."
            )
        action, *words = text.split()
        action = action.lower()
        if action not in FIELDS:
            raise NotationError(f"Unknown action {action!r}: use enter, move, rotate or exit.")
        fields = FIELDS[action]
        if len(words) != len(fields):
            example = {
                "enter": "enter a1 N",
                "move": "move b2 b3 E",
                "rotate": "rotate b2 S",
                "exit": "exit a1",
            }[action]
            raise NotationError(
                f"'{action}' takes {len(fields)} word(s) after it, e.g. '{example}'."
            )
        move = {"action": action}
        for field, word in zip(fields, words, strict=True):
            move[field] = _parse_word(field, word)
        return move


# -- notation helpers ---------------------------------------------------
def _parse_word(field: str, word: str) -> str:
    """A facing (upper case) or a square (lower case) read from ``word``."""
    if field == "facing":
        if word.upper() not in DIRECTIONS:
            raise NotationError(f"{word!r} is not a facing: use N, E, S or W.")
        return word.upper()
    if word.lower() not in SQUARE_SET:
        raise NotationError(f"{word!r} is not a square: use a1..e5.")
    return word.lower()


# -- legal move generation ------------------------------------------------
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
            f"Push rule C: an animal cannot push animals facing it unless more animals push "
            f"the same way; here {pushing} push and {against} face against the push.",
            "push_facing",
        )
    if force < rocks:
        return IllegalMove(
            f"Push rule B: each rock needs one animal's force; a net force of {force} "
            f"cannot push {rocks} rocks.",
            "push_rocks",
        )
    return None


def _checked_push(board: dict[str, Any], target: str, direction: str) -> list[str]:
    """The line an animal pushes into ``target``; raise IllegalMove if the push fails."""
    problem = _push_problem(board, target, direction)
    if problem:
        raise problem
    return _push_line(board, target, direction)


def _shift_line(state: State, line: list[str], direction: str, seat: int) -> None:
    """Move every piece of ``line`` one square on; a piece leaving the board leaves the state."""
    board = state["board"]
    last = line[-1]
    if NEXT[last][direction] is None:
        leaving = board.pop(last)
        line = line[:-1]
        if leaving["kind"] == "rock":
            state["outcome"] = _rock_outcome(board, line, last, direction, seat)
        else:
            state["reserve"][leaving["kind"]] += 1
    for square in reversed(line):
        board[NEXT[square][direction]] = board.pop(square)


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
            winner, animal = _owner(piece["kind"]), NEXT[square][direction]
            break
    else:
        winner, animal = seat, behind[0] if behind else rock
    return {"winner": winner, "mover": seat, "rock": rock, "direction": direction, "animal": animal}


# -- actions --------------------------------------------------------------
def _require_cross_free(state: State, square: str) -> None:
    """Refuse a destination forbidden by the cross rule."""
    if square in _cross_blocked(state):
        raise IllegalMove(
            f"Cross rule: no animal may enter or move onto {square} (c1 and c5) during "
            f"each player's first two turns.",
            "cross_rule",
        )


def _place(state: State, line: list[str], square: str, piece: dict[str, str]) -> State:
    """Push ``line`` (if any) on, put ``piece`` on ``square`` and pass the turn."""
    seat = state["ply"] % 2
    if line:
        _shift_line(state, line, piece["facing"], seat)
    state["board"][square] = piece
    state["ply"] += 1
    return state


def _apply_enter(state: State, kind: str, move: Move) -> State:
    """Enter an animal from the reserve onto an outer square, pushing if it is occupied."""
    square, facing = move["to"], move["facing"]
    if not state["reserve"][kind]:
        raise IllegalMove(
            f"All five {kind}s are already on the board; none is left to enter.", "reserve_empty"
        )
    if square not in OUTER_SET:
        raise IllegalMove(
            f"An animal enters only onto an outer square; {square} is not one.", "outer_square"
        )
    _require_cross_free(state, square)
    line = []
    if square in state["board"]:
        if facing not in INWARD[square]:
            inward = " or ".join(INWARD[square])
            raise IllegalMove(
                f"Entering onto the occupied square {square} is a push: the animal must face "
                f"inward, perpendicular to the edge ({inward}).",
                "enter_push_facing",
            )
        line = _checked_push(state["board"], square, facing)
    new = Engine.copy_state(state)
    new["reserve"][kind] -= 1
    return _place(new, line, square, {"kind": kind, "facing": facing})


def _own_animal(state: State, kind: str, square: str) -> dict[str, str]:
    """The ``kind`` animal on ``square``; raise IllegalMove if there is none."""
    piece = state["board"].get(square)
    if piece is None or piece["kind"] != kind:
        raise IllegalMove(f"There is no {kind} of yours on {square}.", "own_animal")
    return piece


def _apply_move(state: State, kind: str, move: Move) -> State:
    """Move an animal one square orthogonally, pushing if the square is occupied."""
    origin, square, facing = move["from"], move["to"], move["facing"]
    piece = _own_animal(state, kind, origin)
    direction = STEP_DIRECTION.get((origin, square))
    if direction is None:
        raise IllegalMove(
            f"An animal moves one square orthogonally; {origin} to {square} is not such a step.",
            "orthogonal_step",
        )
    _require_cross_free(state, square)
    line = []
    if square in state["board"]:
        if piece["facing"] != direction:
            raise IllegalMove(
                f"Push rule A: an animal pushes only forward; the {kind} on {origin} faces "
                f"{piece['facing']}, not {direction}.",
                "push_forward",
            )
        if facing != direction:
            raise IllegalMove(
                "Push rule I: an animal never changes its facing while pushing.", "push_orientation"
            )
        line = _checked_push(state["board"], square, direction)
    new = Engine.copy_state(state)
    del new["board"][origin]
    return _place(new, line, square, {"kind": kind, "facing": facing})


def _apply_rotate(state: State, kind: str, move: Move) -> State:
    """Turn an animal on its square by a quarter or half turn."""
    square, facing = move["at"], move["facing"]
    if _own_animal(state, kind, square)["facing"] == facing:
        raise IllegalMove(
            f"Rotating must change the facing; the {kind} on {square} already faces {facing}.",
            "same_facing",
        )
    new = Engine.copy_state(state)
    new["board"][square]["facing"] = facing
    new["ply"] += 1
    return new


def _apply_exit(state: State, kind: str, move: Move) -> State:
    """Take an animal on an outer square back to its owner's reserve."""
    square = move["from"]
    _own_animal(state, kind, square)
    if square not in OUTER_SET:
        raise IllegalMove(
            f"An animal leaves the board only from an outer square; {square} is not one.",
            "exit_outer",
        )
    if state["options"]["exit_once"] and state["exits"][kind]:
        raise IllegalMove(
            f"Variant B: each player may take an animal off the board only once "
            f"per game, and the {kind}s already have.",
            "exit_once",
        )
    new = Engine.copy_state(state)
    del new["board"][square]
    new["reserve"][kind] += 1
    new["exits"][kind] += 1
    new["ply"] += 1
    return new


# -- positions ------------------------------------------------------------
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
    if not _is_count(ply):
        raise InvalidPosition("'ply' must be an integer of at least 0.")
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
