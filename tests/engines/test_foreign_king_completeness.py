"""The Foreign King: the legal moves reach every outcome ``apply`` accepts, and no more.

On small random positions the whole moves are enumerated independently (every
combination of citizens' paths, every route of the King, every sequence of
virtual steps), applied, and their outcomes compared with the states reached
by playing listed moves one after the other.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from itertools import combinations_with_replacement
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import IllegalMove
from engines.foreign_king.board import NEIGHBOURS, PROVINCES
from tests.engines.test_foreign_king_support import ENGINE, moving_citizens, position

State = dict[str, Any]
Move = dict[str, Any]
SEAT = 0

provinces = st.sampled_from(PROVINCES)


def walks(start: str, most_steps: int) -> Iterator[list[str]]:
    """Every walk over borders from ``start`` that enters no province twice (start excluded)."""
    stack = [[start]]
    while stack:
        path = stack.pop()
        if len(path) > 1:
            yield path[1:]
        if len(path) <= most_steps:
            stack += [path + [n] for n in NEIGHBOURS[path[-1]] if n not in path]


def key(state: State) -> str:
    """A canonical text of ``state``."""
    return json.dumps(state, sort_keys=True)


def as_queen(move: Move, queen: bool) -> Move:
    """``move``, copied by the Queen if ``queen``."""
    return {"action": "queen", "copy": move} if queen else move


def outcomes_of(state: State, moves: Iterator[Move]) -> set[str]:
    """The states ``apply`` gives for ``moves`` (each must be accepted)."""
    return {key(ENGINE.apply(state, SEAT, move)) for move in moves}


def listed_outcomes(state: State, first: str, still_open: Callable[[State], bool]) -> set[str]:
    """Every state reached by listed moves, the first of action ``first``, while ``still_open``."""
    (seat,) = ENGINE.to_move(state)
    moves = [move for move in ENGINE.legal_moves(state, seat) if move["action"] == first]
    frontier = {key(after): after for after in (ENGINE.apply(state, seat, m) for m in moves)}
    seen, reached = set(frontier), set()
    while frontier:
        text, current = frontier.popitem()
        if not still_open(current):
            reached.add(text)
            continue
        (seat,) = ENGINE.to_move(current)
        for move in ENGINE.legal_moves(current, seat):
            after = ENGINE.apply(current, seat, move)
            if key(after) not in seen:
                seen.add(key(after))
                frontier[key(after)] = after
    return reached


# -- moving citizens -------------------------------------------------------------
@st.composite
def citizen_positions(draw: st.DrawFn) -> tuple[State, bool]:
    """A turn of seat 0 with own citizens in one or two provinces and 0-3 francs to spend.

    With the Queen (4 players, moving citizens occupied) the francs come on top of her 2.
    """
    queen = draw(st.booleans(), label="queen")
    players = 4 if queen else draw(st.integers(2, 3), label="players")
    origins = draw(st.lists(provinces, min_size=1, max_size=2, unique=True), label="origins")
    counts = {origin: {"0": draw(st.integers(1, 3), label=origin)} for origin in origins}
    other = draw(provinces, label="other citizens")
    counts[other] = {**counts.get(other, {}), "1": draw(st.integers(1, 2), label="other count")}
    coins = draw(st.integers(0, 3), label="coins") + (2 if queen else 0)
    fields: dict[str, Any] = {
        "provinces": {name: {"citizens": owners} for name, owners in counts.items()},
        "players": [{"coins": coins}] + [{}] * (players - 1),
        "to_move": SEAT,
    }
    if queen:
        fields["actions"] = {"move_citizens": 1}
    return position(players, **fields), queen


def whole_moves(state: State, queen: bool) -> Iterator[Move]:
    """Every whole move of citizens the rules allow in ``state``, enumerated independently."""
    budget = state["players"][SEAT]["coins"] - (2 if queen else 0) + 1
    for origin in PROVINCES:
        own = state["provinces"][origin]["citizens"].get(str(SEAT), 0)
        paths = [["supply"], *walks(origin, budget)]
        for count in range(1, own + 1):
            for chosen in combinations_with_replacement(paths, count):
                if sum(len(path) for path in chosen) <= budget:
                    move = {"action": "move_citizens", "from": origin, "paths": list(chosen)}
                    yield as_queen(move, queen)


@settings(max_examples=40, deadline=None)
@given(citizen_positions())
def test_every_whole_move_of_citizens_is_reached_by_listed_steps_and_nothing_else(drawn):
    state, queen = drawn
    whole = outcomes_of(state, whole_moves(state, queen))
    assert listed_outcomes(state, "queen" if queen else "step", moving_citizens) == whole


# -- the King ------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(at=st.none() | provinces, coins=st.integers(0, 8), queen=st.booleans())
def test_every_route_of_the_king_is_reached_by_a_listed_route(at, coins, queen):
    players = 4 if queen else 3
    fields: dict[str, Any] = {
        "king": {"at": at},
        "players": [{"coins": coins + (2 if queen else 0)}] + [{}] * (players - 1),
        "to_move": SEAT,
    }
    if queen:
        fields["actions"] = {"king": 1}
    state = position(players, **fields)
    listed = [move.get("copy", move) for move in ENGINE.legal_moves(state, SEAT)]
    routes = [move["path"] for move in listed if move["action"] == "king"]
    every = [[p] for p in PROVINCES] if at is None else list(walks(at, coins + 1))
    assert sorted((r[-1], len(r)) for r in routes) == sorted({(w[-1], len(w)) for w in every})
    by_outcome = {(r[-1], len(r)): as_queen({"action": "king", "path": r}, queen) for r in routes}
    for walk in every:
        reached = ENGINE.apply(state, SEAT, by_outcome[walk[-1], len(walk)])
        assert reached == ENGINE.apply(
            state, SEAT, as_queen({"action": "king", "path": walk}, queen)
        )


# -- the virtual player ------------------------------------------------------------------
@st.composite
def virtual_decisions(draw: st.DrawFn) -> State:
    """Seat 1 owes the virtual player 1 or 2 steps after seat 0 scores Liège."""
    owed = draw(st.integers(1, 2), label="owed steps")
    liege = {"citizens": {"0": 3 * (owed + 1)}} if owed == 1 else {"citizens": {"0": 3}}
    if owed == 2:
        liege["factories"] = [{"kind": "textile"}]
    others = [p for p in PROVINCES if p != "liege"]
    on_board = draw(st.dictionaries(st.sampled_from(others), st.integers(1, 2), max_size=3))
    if draw(st.booleans(), label="supply empty"):
        on_board[others[0]] = 15 - sum(
            count for name, count in on_board.items() if name != others[0]
        )
    fields = {name: {"citizens": {"virtual": count}} for name, count in on_board.items()}
    state = position(2, provinces={**fields, "liege": liege}, king={"at": "namur"}, to_move=0)
    state = ENGINE.apply(state, 0, {"action": "king", "path": ["liege"]})
    assert state["pending"] == {"seat": 1, "kind": "virtual", "steps": owed}
    return state


def virtual_answers(owed: int) -> Iterator[Move]:
    """Every answer of ``owed`` virtual steps, each step any placement or any move over a border."""
    steps = [{"place": p} for p in PROVINCES]
    steps += [{"move": [a, b]} for a in PROVINCES for b in NEIGHBOURS[a]]
    chosen: list[list[dict[str, Any]]] = [[]]
    for _ in range(owed):
        chosen = [done + [step] for done in chosen for step in steps]
    return ({"action": "virtual", "steps": answer} for answer in chosen)


@settings(max_examples=25, deadline=None)
@given(virtual_decisions())
def test_every_answer_of_several_virtual_steps_is_reached_by_listed_single_steps(state):
    whole = set()
    for move in virtual_answers(state["pending"]["steps"]):
        try:
            whole.add(key(ENGINE.apply(state, 1, move)))
        except IllegalMove:
            continue

    assert listed_outcomes(state, "virtual", owes_virtual_steps) == whole


def owes_virtual_steps(state: State) -> bool:
    """Whether the game waits for virtual steps."""
    return state["pending"] is not None and state["pending"]["kind"] == "virtual"
