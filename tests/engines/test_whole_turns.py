"""A whole turn as one move: for every engine, the decisions of a turn joined by
``join_turn`` give exactly the state the decisions give one by one, over random games.

The pages and mails collect a seat's decisions while ``turn_goes_on`` and send
the joined move once; its notation is read back to the same move.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import ENGINES, Engine
from engines.base import IllegalMove, State

#: Each engine with the player counts whose turns are split differently (the Foreign King's
#: virtual player plays in 2-player games only; King of Siam's partners in 4).
GAMES = [
    ("siam", 2, {}),
    ("king-of-siam", 2, {}),
    ("king-of-siam", 4, {}),
    ("foreign-king", 2, {}),
    ("foreign-king", 3, {}),
    ("bangkok-klongs", 2, {}),
    ("bangkok-klongs", 4, {"tactical": True}),
]
#: Turns checked per game (the games are long; a turn is checked wherever it starts).
TURNS = 60


def play_turn(engine: Engine, state: State, seat: int, rnd: random.Random) -> tuple[list, State]:
    """Random listed decisions of ``seat`` from ``state`` until its turn is over or pauses."""
    steps = []
    while True:
        step = rnd.choice(engine.legal_moves(state, seat))
        steps.append(step)
        state = engine.apply(state, seat, step)
        if not engine.turn_goes_on(state, seat, step):
            return steps, state


@pytest.mark.parametrize(("engine_id", "players", "options"), GAMES)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), rnd=st.randoms(use_true_random=False))
def test_a_joined_turn_gives_the_state_of_its_decisions(
    engine_id: str, players: int, options: dict, seed: int, rnd: random.Random
) -> None:
    engine = ENGINES[engine_id]
    state = engine.setup(players, engine.options(options), seed)
    for _ in range(TURNS):
        if engine.result(state) is not None:
            break
        seat = engine.to_move(state)[0]
        steps, after = play_turn(engine, state, seat, rnd)
        whole = engine.join_turn(state, seat, steps)
        assert engine.apply(state, seat, whole) == after, (steps, whole)
        assert engine.parse(engine.format(whole), state) == whole
        state = after


def state_with_a_loan(engine: Engine, rnd: random.Random) -> State:
    """A Foreign King state (random moves from the setup) where the seat to move may take a
    loan before taking coins."""
    state = engine.setup(2, {}, 1)
    while True:
        seat = engine.to_move(state)[0]
        moves = engine.legal_moves(state, seat)
        if {"loan", "take_coins"} <= {move["action"] for move in moves}:
            return state
        state = engine.apply(state, seat, rnd.choice(moves))


def test_a_foreign_king_turn_is_refused_whole_when_a_decision_is_illegal() -> None:
    engine = ENGINES["foreign-king"]
    state = state_with_a_loan(engine, random.Random(0))
    seat = engine.to_move(state)[0]
    with pytest.raises(IllegalMove):
        engine.apply(state, seat, engine.parse("loan; coins; coins"))
    assert engine.apply(state, seat, engine.parse("loan; coins")) == engine.apply(
        engine.apply(state, seat, {"action": "loan"}), seat, {"action": "take_coins"}
    )


def test_siam_has_no_move_joining_two_decisions() -> None:
    engine = ENGINES["siam"]
    state = engine.setup(2, {}, 1)
    moves = engine.legal_moves(state, 0)
    with pytest.raises(IllegalMove):
        engine.join_turn(state, 0, moves[:2])
