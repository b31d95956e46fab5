"""The bots of :mod:`engines.search` on every engine (the test suite's Nim too).

Strength and time are measured in ``bench/bots.py``, not here: these tests
check what a bot promises whatever its strength. Its turn is legal and
whole, the same for the same seed, and blind to what its seat cannot know.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engines import Engine
from engines.base import State, canonical_json
from engines.search import LEVELS, Bot, Mcts, RandomBot, make_bot
from engines.search.bots import CAPS, sampler
from engines.search.mcts import Sampler, Search, principal_turn
from engines.search.policies import bangkok_klongs_gain, policy_of
from tests.engines import test_bangkok_klongs_helpers as klongs
from tests.engines.test_conformance import CASES, GAMES

ROOT = Path(__file__).resolve().parents[2]
#: A search of a few hundred moves keeps every promise a longer one does, quicker.
BOTS = [pytest.param(RandomBot(), id="random"), pytest.param(Mcts(moves=200), id="mcts")]


def sampled_states(engine: Engine, players: int) -> list[State]:
    """A few states of a seeded random game: the start and every 13th decision after it."""
    rng = random.Random(players)
    state = engine.setup(players, engine.options({}), 11)
    states = []
    for ply in range(40):
        to_move = engine.to_move(state)
        if not to_move:
            break
        if ply % 13 == 0:
            states.append(state)
        state = engine.apply(state, to_move[0], rng.choice(engine.legal_moves(state, to_move[0])))
    return states


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("engine_id", "players"), CASES)
def test_a_turn_is_legal_whole_and_the_same_for_a_seed(engine_id, players, bot) -> None:
    engine = GAMES[engine_id]
    for state in sampled_states(engine, players):
        (seat,) = engine.to_move(state)
        turn = bot.turn(engine, state, seat, seed=5)
        assert turn, "a seat to move got no move"
        assert turn == bot.turn(engine, state, seat, seed=5)
        after = state
        for move in turn:
            assert engine.to_move(after) == [seat], "a move out of turn"
            after = engine.apply(after, seat, move)
        assert engine.to_move(after) != [seat], "the turn stopped halfway"
        other = (seat + 1) % players
        assert bot.turn(engine, state, other, seed=5) == []


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize(("engine_id", "players"), CASES)
def test_what_its_seat_cannot_see_does_not_change_a_bots_turn(engine_id, players, bot) -> None:
    """Another determinization of the true state (other hands, another draw order, another
    PRNG) is a state the seat cannot tell apart: the bot answers it the same turn."""
    engine = GAMES[engine_id]
    changed = 0
    for index, state in enumerate(sampled_states(engine, players)):
        (seat,) = engine.to_move(state)
        other = engine.determinize(state, seat, random.Random(100 + index))
        changed += canonical_json(other) != canonical_json(state)
        assert bot.turn(engine, other, seat, seed=index) == bot.turn(engine, state, seat, index)
    if "rng" in engine.setup(players, engine.options({}), 1):
        assert changed, "the test changed nothing hidden"


def root_statistics(engine: Engine, sample: Sampler, seat: int) -> dict[str, tuple[int, float]]:
    """Visits and total return of every move at the root of a seeded search over ``sample``."""
    root = Search(engine, sample, seat, policy_of(engine), random.Random(4)).run(500)
    return {key: (child.visits, child.total) for key, child in root.children.items()}


def swapped_hand(state: State, seat: int) -> State:
    """``state`` with the next seat's boats swapped with as many from the top of the pile."""
    swapped = json.loads(json.dumps(state))
    other = swapped["players"][(seat + 1) % len(swapped["players"])]
    size = len(other["hand"])
    other["hand"], swapped["draw_pile"][:size] = swapped["draw_pile"][:size], other["hand"]
    return swapped


@pytest.mark.parametrize("players", [2, 3])
def test_bangkok_klongs_hidden_boats_would_change_a_search_but_not_a_bots(players) -> None:
    """Another seat's boats swapped with the pile's, and the hidden parts redrawn: the seat
    cannot tell these states apart. A search handed the true states (the control) weighs
    its moves differently in them, so the hidden parts matter; the bots' searches, which
    see them only through ``determinize``, weigh and answer them the same."""
    engine = GAMES["bangkok-klongs"]
    state = sampled_states(engine, players)[2]
    (seat,) = engine.to_move(state)
    others = [swapped_hand(state, seat), engine.determinize(state, seat, random.Random(100))]
    for other in others:
        assert canonical_json(other) != canonical_json(state)
        assert engine.information_key(other, seat) == engine.information_key(state, seat)
        cheat = [
            root_statistics(engine, lambda rng, s=s: engine.clone(s), seat) for s in (state, other)
        ]
        assert cheat[0] != cheat[1], "the control: the hidden parts changed nothing"
        honest = [root_statistics(engine, sampler(engine, s, seat), seat) for s in (state, other)]
        assert honest[0] == honest[1]
        for bot in (RandomBot(), Mcts(moves=500)):
            assert bot.turn(engine, other, seat, seed=3) == bot.turn(engine, state, seat, seed=3)


def test_a_search_plays_nim_perfectly_from_every_winning_position() -> None:
    """Nim is solved (leave a multiple of four): a small search finds the winning take."""
    engine = GAMES["nim"]
    for stones in range(1, 11):
        if stones % 4 == 0:
            continue
        state = engine.from_position(2, {}, 0, {"stones": stones})
        for seed in range(3):
            (move,) = Mcts(moves=4000).turn(engine, state, 0, seed)
            assert (stones - move["count"]) % 4 == 0, f"{stones} stones: {move}"


def match(engine: Engine, bots: list[Bot], seed: int) -> set[int]:
    """The winners of a seeded two-seat game between ``bots``."""
    state, ply = engine.setup(2, engine.options({}), seed), 0
    while to_move := engine.to_move(state):
        seat = to_move[0]
        for move in bots[seat].turn(engine, state, seat, seed=seed * 1000 + ply):
            state = engine.apply(state, seat, move)
            ply += 1
    return set(engine.result(state)["winners"])


@pytest.mark.parametrize(
    ("engine_id", "moves", "games", "needed"),
    [("siam", 300, 8, 7), ("king-of-siam", 300, 6, 5), ("foreign-king", 1000, 4, 4)],
)
def test_a_small_search_beats_the_random_bot(engine_id, moves, games, needed) -> None:
    """Seeded games, seats alternating (a random player wins half). Bangkok Klongs, whose
    games cost too much here, and the levels' margins are measured in ``bench/bots.py``."""
    engine = GAMES[engine_id]
    wins = 0
    for game in range(games):
        seat = game % 2
        bots: list[Bot] = [RandomBot(), RandomBot()]
        bots[seat] = Mcts(moves=moves)
        wins += match(engine, bots, game) == {seat}
    assert wins >= needed


def test_a_turn_does_not_depend_on_the_hash_seed() -> None:
    """Two processes with other string hashes answer the same turn (sets never order it)."""
    script = (
        "from engines import get_engine; from engines.search import Mcts; "
        "import json; e = get_engine('bangkok-klongs'); s = e.setup(3, e.options({}), 4); "
        "print(json.dumps(Mcts(1).turn(e, s, 0, seed=9)))"
    )
    turns = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env={"PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for hash_seed in ("1", "2")
    }
    assert len(turns) == 1


def test_a_split_turn_is_answered_whole() -> None:
    """King of Siam: the card, its steps and the take; the next seat moves after them."""
    engine = GAMES["king-of-siam"]
    state = engine.setup(2, engine.options({}), 3)
    (seat,) = engine.to_move(state)
    turn = Mcts(2).turn(engine, state, seat, seed=1)
    assert turn[0]["action"] in ("play", "pass")
    if turn[0]["action"] == "play":
        assert turn[-1]["action"] == "take" and len(turn) >= 2


def test_bot_specs() -> None:
    assert make_bot({"bot": "random"}) == RandomBot()
    assert make_bot({"bot": "mcts", "level": 5}) == Mcts(5)
    assert make_bot({"bot": "mcts"}) == Mcts(3)
    for bad in ({"bot": "mcts", "level": 6}, {"bot": "mcts", "level": "1"}, {"bot": "alpha"}):
        with pytest.raises(ValueError):
            make_bot(bad)
    assert sorted(LEVELS) == [1, 2, 3, 4, 5]
    siam = GAMES["siam"]
    budgets = [Mcts(level).budget(siam) for level in LEVELS]
    assert budgets == sorted(budgets) and budgets[0] < budgets[-1]
    caps = [CAPS[level] for level in LEVELS]
    assert caps == sorted(caps) and caps[0] < 0.2 and caps[-1] <= 5, "the issue's CPU limits"


def test_a_search_past_its_deadline_stops_after_one_iteration() -> None:
    """The CPU cap (for moves that cost far more than usual) still leaves a move to play."""
    engine = GAMES["king-of-siam"]
    state = engine.setup(2, engine.options({}), 3)
    (seat,) = engine.to_move(state)
    search = Search(engine, sampler(engine, state, seat), seat, policy_of(engine), random.Random())
    root = search.run(10**9, deadline=time.thread_time() - 1)
    assert root.visits == 1 and principal_turn(root, seat)


def own_landing_place_to_fill() -> State:
    """Seat 0 owns two boats of landing place L4-5 (r3c4, r3c5, r4c4, r4c5), a neutral boat
    lies on r4c4, and r4c5 is free; its hand: a fish boat of 3 baskets and a shrimp boat of
    none, both with an empty merchant spot."""
    return klongs.make(
        board={"r3c4": ("t8", 0), "r3c5": ("t17", 0), "r4c4": ("t19", None)},
        hands=[[klongs.plain("fish", 3), klongs.plain("shrimp", 0)], ["t26"]],
        first_round=[],
    )


def test_bangkok_klongs_gain_ranks_filling_an_own_landing_place_with_a_merchant_first() -> None:
    engine = GAMES["bangkok-klongs"]
    state = own_landing_place_to_fill()
    moves = engine.legal_moves(state, 0)
    ranked = sorted(moves, key=lambda move: -bangkok_klongs_gain(state, 0, move))
    best = {"action": "place", "tile": klongs.plain("fish", 3), "at": "r4c5", "merchant": "new"}
    assert ranked[0] == best
    without_merchant = {**best, "merchant": "none"}
    assert bangkok_klongs_gain(state, 0, without_merchant) < bangkok_klongs_gain(state, 0, best)
    elsewhere = {**best, "at": "r5c5"}
    assert bangkok_klongs_gain(state, 0, elsewhere) < bangkok_klongs_gain(state, 0, best)


def test_a_widening_search_weighs_only_its_most_promising_moves() -> None:
    """Bangkok Klongs lists more moves than a level's search has iterations: the search tries
    the most promising ones (progressive widening) and plays the one that fills its own
    landing place."""
    engine = GAMES["bangkok-klongs"]
    state = own_landing_place_to_fill()
    policy = policy_of(engine)
    root = Search(engine, sampler(engine, state, 0), 0, policy, random.Random(2)).run(600)
    tried = len(root.children)
    assert tried <= policy.width(root.visits) + 1 < len(engine.legal_moves(state, 0)) / 2
    assert principal_turn(root, 0)[0] == {
        "action": "place",
        "tile": klongs.plain("fish", 3),
        "at": "r4c5",
        "merchant": "new",
    }
