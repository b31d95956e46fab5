"""Property tests for Siam: random legal games checked against invariants and an oracle.

Games choose among ``legal_moves`` with a hypothesis-drawn seed, preferring
pushes with a drawn bias (light bias: long games through the middle game;
heavy bias: quick endings); each game stops at 400 plies. The oracle
re-derives legality and every push's result from the rules with board
coordinates, independently of the engine's precomputed tables, and counts
the positions since the last entry, exit or push to know when the third
repetition draws the game.
"""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import IllegalMove
from engines.siam import SiamEngine

SIAM = SiamEngine()
MAX_PLIES = 400
KINDS = ("elephant", "rhino")
SQUARES = [f + r for f in "abcde" for r in "12345"]
FACINGS = "NESW"
STEP = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
BACK = {"N": "S", "E": "W", "S": "N", "W": "E"}
PUBLIC_KEYS = {"board", "reserve", "ply", "options", "exits", "last_push", "positions"}

OPTIONS = st.fixed_dictionaries({"cross_rule": st.booleans(), "exit_once": st.booleans()})
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
PUSH_BIASES = st.sampled_from([0.05, 0.2, 0.5, 0.9])


def every_move_shape() -> list[dict]:
    """Every well-formed move over all squares and facings (legal or not)."""
    moves = [{"action": "exit", "from": sq} for sq in SQUARES]
    for sq in SQUARES:
        for facing in FACINGS:
            moves.append({"action": "enter", "to": sq, "facing": facing})
            moves.append({"action": "rotate", "at": sq, "facing": facing})
            moves += [{"action": "move", "from": sq, "to": to, "facing": facing} for to in SQUARES]
    return moves


ALL_MOVES = every_move_shape()
MALFORMED = [
    None,
    {},
    {"action": "fly"},
    {"action": "enter", "to": "a1"},
    {"action": "enter", "to": "a1", "facing": "N", "seat": 0},
    {"action": "move", "from": "a1", "to": "z1", "facing": "N"},
    {"action": "rotate", "at": "a1", "facing": "up"},
    {"action": "exit", "from": 3},
]


def step(square: str, direction: str) -> str | None:
    """The square next to ``square`` toward ``direction`` (None off the board)."""
    dx, dy = STEP[direction]
    file, rank = ord(square[0]) - ord("a") + dx, int(square[1]) + dy
    return f"{chr(ord('a') + file)}{rank}" if 0 <= file < 5 and 1 <= rank <= 5 else None


def oracle_push(board: dict, target: str, direction: str) -> tuple[dict, dict | None]:
    """The board after pushing into ``target`` and the piece pushed off, by brute force."""
    line, square = [], target
    while square is not None and square in board:
        line.append(square)
        square = step(square, direction)
    after = {sq: piece for sq, piece in board.items() if sq not in line}
    for sq in line:
        if step(sq, direction) is not None:
            after[step(sq, direction)] = board[sq]
    off = board[line[-1]] if line and step(line[-1], direction) is None else None
    return after, off


def oracle_push_allowed(board: dict, target: str, direction: str) -> bool:
    """F = pusher + animals facing the push - animals facing back; legal iff F >= 1, F >= R."""
    force, rocks, square = 1, 0, target
    while square is not None and square in board:
        facing = board[square].get("facing")
        rocks += facing is None
        force += (facing == direction) - (facing == BACK[direction])
        square = step(square, direction)
    return force >= 1 and force >= rocks


def is_outer(square: str) -> bool:
    """Whether ``square`` is on the edge of the board."""
    return any(step(square, d) is None for d in STEP)


def oracle_is_legal(state: dict, seat: int, move: dict) -> bool:
    """Whether the rules allow ``move`` (a well-formed one), worked out from scratch."""
    kind, board, options = KINDS[seat], state["board"], state["options"]
    crossed = options["cross_rule"] and state["ply"] < 4 and move.get("to") in ("c1", "c5")
    if move["action"] == "enter":
        to, facing = move["to"], move["facing"]
        if crossed or not state["reserve"][kind] or not is_outer(to):
            return False
        # Inward and perpendicular: the square behind the entering animal is off the board.
        return to not in board or (
            step(to, BACK[facing]) is None and oracle_push_allowed(board, to, facing)
        )
    origin = move.get("from", move.get("at"))
    piece = board.get(origin)
    if piece is None or piece["kind"] != kind:
        return False
    if move["action"] == "rotate":
        return piece["facing"] != move["facing"]
    if move["action"] == "exit":
        return is_outer(origin) and not (options["exit_once"] and state["exits"][kind])
    direction = next((d for d in STEP if step(origin, d) == move["to"]), None)
    if direction is None or crossed:
        return False
    return move["to"] not in board or (
        piece["facing"] == direction == move["facing"]
        and oracle_push_allowed(board, move["to"], direction)
    )


def oracle_board(state: dict, seat: int, move: dict) -> dict:
    """The board the rules predict after ``move`` (pushes by brute force)."""
    board = dict(state["board"])
    kind = KINDS[seat]
    if move["action"] == "exit":
        del board[move["from"]]
        return board
    if move["action"] == "rotate":
        board[move["at"]] = {"kind": kind, "facing": move["facing"]}
        return board
    if move["action"] == "move":
        del board[move["from"]]
    board, _ = oracle_push(board, move["to"], move["facing"])
    board[move["to"]] = {"kind": kind, "facing": move["facing"]}
    return board


def is_push(state: dict, move: dict) -> bool:
    """Whether ``move`` pushes (enters or moves onto an occupied square)."""
    return move["action"] in ("enter", "move") and move["to"] in state["board"]


def check_invariants(state: dict) -> None:
    """Pieces conserved, JSON round trip, views public and equal, notation round trip."""
    board = state["board"]
    for kind in KINDS:
        on_board = sum(piece["kind"] == kind for piece in board.values())
        assert on_board + state["reserve"][kind] == 5
    rocks = sum(piece["kind"] == "rock" for piece in board.values())
    result = SIAM.result(state)
    assert rocks == (2 if result and result["winners"] else 3)
    assert json.loads(json.dumps(state)) == state
    public = SIAM.view(state, None)
    assert set(public) == PUBLIC_KEYS
    assert public == SIAM.view(state, 0) == SIAM.view(state, 1)
    assert "rng" not in json.dumps(public) and "seed" not in json.dumps(public)


def outcome(state: dict, seat: int, move: dict) -> str:
    """The position after ``move`` as canonical JSON: the state without ``last_push``, which
    only records how the last move was made (for drawing it), not where the game stands."""
    after = SIAM.apply(state, seat, move)
    del after["last_push"]
    return json.dumps(after, sort_keys=True)


def check_moves(state: dict, legal: list[dict], rng: random.Random) -> None:
    """Legal moves round-trip through notation; sampled other moves are refused harmlessly,
    or (legal but not listed) lead where a listed move leads."""
    assert len({json.dumps(m, sort_keys=True) for m in legal}) == len(legal)
    for move in legal:
        assert SIAM.parse(SIAM.format(move), state) == move
    seat = SIAM.to_move(state)[0]
    assert SIAM.legal_moves(state, 1 - seat) == []
    snapshot = json.dumps(state, sort_keys=True)
    listed = None
    for move in rng.sample(ALL_MOVES, 12) + rng.sample(MALFORMED, 2):
        if move in legal:
            assert oracle_is_legal(state, seat, move), move
            continue
        try:
            reached = outcome(state, seat, move)
        except IllegalMove as refusal:
            assert refusal.rule and refusal.message
            assert move in MALFORMED or not oracle_is_legal(state, seat, move), move
        else:
            listed = listed or {outcome(state, seat, m) for m in legal}
            assert reached in listed, f"{move} was applied and leads where no listed move leads"
    assert json.dumps(state, sort_keys=True) == snapshot


def choose(state: dict, legal: list[dict], rng: random.Random, push_bias: float) -> dict:
    """A random legal move; a push with probability ``push_bias`` when there is one."""
    pushes = [m for m in legal if is_push(state, m)]
    return rng.choice(pushes if pushes and rng.random() < push_bias else legal)


def play_game(options: dict, seed: int, push_bias: float, checks: bool = True) -> tuple[dict, list]:
    """Play a random game, checking every ply; return the final state and the move log."""
    rng = random.Random(seed)
    state = SIAM.setup(2, SIAM.options(options), seed)
    log = []
    seen = Counter([position(state)])
    while SIAM.result(state) is None and state["ply"] < MAX_PLIES:
        seat = SIAM.to_move(state)[0]
        legal = SIAM.legal_moves(state, seat)
        if checks:
            check_moves(state, legal, rng)
        move = choose(state, legal, rng, push_bias)
        before = json.dumps(state, sort_keys=True)
        expected = oracle_board(state, seat, move)
        state_after = SIAM.apply(state, seat, move)
        assert json.dumps(state, sort_keys=True) == before
        assert state_after["board"] == expected
        if is_push(state, move) or move["action"] in ("enter", "exit"):
            seen.clear()
        seen[position(state_after)] += 1
        state = state_after
        log.append((seat, move))
        check_invariants(state)
        result = SIAM.result(state)
        third = seen[position(state)] == 3 and not (result and result["winners"])
        assert third == (result is not None and result.get("draw") == "repetition")
    return state, log


def position(state: dict) -> str:
    """The board and the player to move, for counting repetitions."""
    return json.dumps([state["board"], state["ply"] % 2], sort_keys=True)


@settings(max_examples=80, deadline=None)
@given(options=OPTIONS, seed=SEEDS, push_bias=PUSH_BIASES)
def test_random_games_keep_every_invariant(options: dict, seed: int, push_bias: float) -> None:
    state, log = play_game(options, seed, push_bias)
    replayed = SIAM.setup(2, SIAM.options(options), seed)
    for seat, move in log:
        replayed = SIAM.apply(replayed, seat, move)
    assert replayed == state
    if SIAM.result(state) is not None:
        assert SIAM.to_move(state) == []
        assert SIAM.legal_moves(state, 0) == SIAM.legal_moves(state, 1) == []


@settings(max_examples=60, deadline=None)
@given(options=OPTIONS, seed=SEEDS)
def test_winner_is_nearest_animal_behind_the_rock_facing_the_push(options: dict, seed: int) -> None:
    state, log = play_game(options, seed, push_bias=0.9, checks=False)
    result = SIAM.result(state)
    if result is None:
        return
    seat, move = log[-1]
    before = SIAM.setup(2, SIAM.options(options), seed)
    for earlier_seat, earlier in log[:-1]:
        before = SIAM.apply(before, earlier_seat, earlier)
    direction = move["facing"]
    board = dict(before["board"])
    if move["action"] == "move":
        del board[move["from"]]
    square, line = move["to"], []
    while square in board:
        line.append(square)
        square = step(square, direction)
    assert board[line[-1]] == {"kind": "rock"} and step(line[-1], direction) is None
    facing_push = [
        board[sq]["kind"] for sq in reversed(line) if board[sq].get("facing") == direction
    ]
    winner_kind = facing_push[0] if facing_push else KINDS[seat]
    assert result["winners"] == [KINDS.index(winner_kind)]
    assert sum(result["scores"].values()) == 1 and result["rock"] == line[-1]


@settings(max_examples=20, deadline=None)
@given(options=OPTIONS, seed=SEEDS, push_bias=PUSH_BIASES)
def test_legal_moves_list_one_move_per_outcome_of_every_move_apply_accepts(
    options: dict, seed: int, push_bias: float
) -> None:
    state, log = play_game(options, seed, push_bias, checks=False)
    replayed = SIAM.setup(2, SIAM.options(options), seed)
    for index, (seat, move) in enumerate(log):
        if index % 15 == 0:
            legal = SIAM.legal_moves(replayed, seat)
            accepted = []
            for candidate in ALL_MOVES:
                try:
                    SIAM.apply(replayed, seat, candidate)
                except IllegalMove:
                    continue
                accepted.append(candidate)
            predicted = [m for m in ALL_MOVES if oracle_is_legal(replayed, seat, m)]
            assert sorted(map(json.dumps, predicted)) == sorted(map(json.dumps, accepted))
            assert all(m in accepted for m in legal)
            listed = [outcome(replayed, seat, m) for m in legal]
            assert len(set(listed)) == len(listed), "two listed moves lead to the same position"
            assert {outcome(replayed, seat, m) for m in accepted} == set(listed)
        replayed = SIAM.apply(replayed, seat, move)
    assert replayed == state


def test_legal_moves_leave_out_an_entry_that_pushes_only_its_own_kind_to_the_edge() -> None:
    board = {**{sq: {"kind": "rock"} for sq in ("b3", "c3", "d3")}}
    board["a5"] = {"kind": "rhino", "facing": "E"}
    state = SIAM.from_position(2, {}, 0, {"board": board, "to_move": 1})
    legal = SIAM.legal_moves(state, 1)
    push = {"action": "enter", "to": "a5", "facing": "E"}
    plain = {"action": "enter", "to": "b5", "facing": "E"}
    assert plain in legal and push not in legal
    assert outcome(state, 1, push) == outcome(state, 1, plain)
    assert {"action": "enter", "to": "a5", "facing": "S"} in legal, "pushing south differs"


def test_random_games_often_end_with_a_rock_pushed_off() -> None:
    results = [SIAM.result(play_game({}, seed, 0.5, checks=False)[0]) for seed in range(20)]
    assert sum(result is not None and "rock" in result for result in results) >= 10
