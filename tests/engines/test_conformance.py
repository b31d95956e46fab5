"""What every engine promises (``engines.base``), checked on random games of every engine.

As OpenSpiel runs ``random_sim_test`` on every game: each registered engine
(and the test-only Nim), at every player count, plays random games from a few
seeds to their end (at most :data:`MAX_PLIES` moves), choosing among the
listed moves. At every step of the game:

- ``to_move`` is empty exactly when ``result`` is not None; a seat not to
  move has no legal moves, a seat to move has some;
- every listed move passes the engine's move schema unchanged, its notation
  reads back as the move (``parse(format(m)) == m``) and starts with one of
  the engine's ``move_words``, it is listed once, and ``apply`` accepts it (a
  random sample of :data:`APPLIED` moves in longer lists);
- no method changes the state it is given (``apply`` included);
- no view holds an ``rng`` or ``seed`` key at any depth, and no view changes
  when the private parts the contract names that are not the seat's own
  (another seat's ``hand``, the ``draw_pile``) get other pieces or another
  order.

At the end, replaying the log from ``setup`` with the same seed gives the
live state byte for byte (canonical JSON), and so does a second ``setup``.

What search needs (``engines.base``, "Search") is checked on the same games:

- ``returns`` and ``margins`` are None exactly while the game runs; at the
  end there is one return per seat, they add up to 0, the winners get the
  most and a draw gives 0 to all;
- for one seat at each step (each in turn), ``determinize`` keeps the
  seat's view and information key, conserves every piece (the state's shape
  and the multiset of its values but the PRNG), and depends only on what the
  seat knows: determinizing another determinization with the same ``rng``
  gives the same state;
- ``apply_fast`` on a ``clone`` gives the state ``apply`` gives; and in random
  games chosen by hypothesis, a state carried along by ``apply_fast`` alone
  (switching once to a determinization of it) stays equal to ``apply``'s.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import Schema

from engines import ENGINES, Engine
from engines.base import DETERMINISTIC, IMPERFECT, PERFECT, SAMPLED, Move, State
from engines.base import canonical_json as canonical
from engines.phrases import english
from schemas.moves import move_schemas
from tests.engines.tiny_game import NimEngine

#: Enough for every engine's random games to end (Siam's are drawn at 500 plies at the latest).
MAX_PLIES = 1500
SEEDS = (1, 2)
#: At most this many listed moves of one decision are applied (a sample of longer lists).
APPLIED = 60
#: Keys that would hold the PRNG or the seed.
SECRET_KEYS = frozenset({"rng", "seed"})

GAMES: dict[str, Engine] = {**ENGINES, NimEngine.id: NimEngine()}
CASES = [
    pytest.param(engine_id, players, id=f"{engine_id}-{players}")
    for engine_id, engine in GAMES.items()
    for players in range(engine.min_players, engine.max_players + 1)
]

pytestmark = pytest.mark.usefixtures("nim")


def keys_in(value: Any) -> Iterator[str]:
    """Every dict key inside ``value``, at any depth."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from keys_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from keys_in(item)


def disguised(state: State, seat: int | None) -> State:
    """A copy of ``state`` where what ``seat`` may not know is changed.

    The contract's private parts other than the seat's own (every other
    seat's ``hand`` in its ``players`` entry, the ``draw_pile`` list) are
    turned backwards and each of their pieces is replaced by the next one of
    all the pieces in hands and pile (sorted), so they hold other pieces in
    another order and keep their lengths.
    """
    copy = json.loads(canonical(state))
    players = copy.get("players", [])
    hands = {other: player.get("hand") for other, player in enumerate(players)}
    hidden = [hand for other, hand in hands.items() if other != seat]
    hidden = [part for part in [*hidden, copy.get("draw_pile")] if isinstance(part, list)]
    every = [part for part in [*hands.values(), *hidden] if isinstance(part, list)]
    pieces = sorted({canonical(piece) for part in every for piece in part})
    following = dict(zip(pieces, pieces[1:] + pieces[:1], strict=True))
    for part in hidden:
        part[:] = [json.loads(following[canonical(piece)]) for piece in reversed(part)]
    return copy


def check_views(engine: Engine, state: State, players: int) -> None:
    """No view holds the PRNG or the seed, nor depends on what the seat may not know."""
    for seat in [None, *range(players)]:
        view = engine.view(state, seat)
        assert SECRET_KEYS.isdisjoint(keys_in(view)), f"the view of seat {seat} has the PRNG"
        hidden_changed = engine.view(disguised(state, seat), seat)
        assert canonical(hidden_changed) == canonical(view), f"seat {seat} sees hidden parts"


def check_moves(engine: Engine, state: State, seat: int, rng: random.Random) -> list[Move]:
    """The legal moves of ``seat``, checked: schema, notation, ``apply``, each listed once."""
    moves = engine.legal_moves(state, seat)
    assert moves, f"seat {seat} is to move but has no legal move"
    schemas = schema_instances(engine)
    for move in moves:
        assert schemas[move["action"]].load(move) == move
        assert engine.parse(engine.format(move), state) == move, move
        assert engine.format(move).split()[0].lower() in engine.move_words, move
    assert len({canonical(move) for move in moves}) == len(moves), "a move is listed twice"
    for move in moves if len(moves) <= APPLIED else rng.sample(moves, APPLIED):
        engine.apply(state, seat, move)
    return moves


def shape(value: Any) -> Any:
    """``value`` with every leaf replaced by None: its keys and the length of its lists."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return None


def leaves(value: Any) -> Counter[str]:
    """The multiset of the leaves (numbers, strings...) of ``value``, as canonical JSON."""
    return Counter(canonical(leaf) for leaf in leaf_values(value))


def leaf_values(value: Any) -> Iterator[Any]:
    """Every leaf of ``value``, depth first."""
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        yield value
        return
    for item in value:
        yield from leaf_values(item)


def without_rng(state: State) -> State:
    """``state`` without its PRNG (which ``determinize`` redraws)."""
    return {key: value for key, value in state.items() if key != "rng"}


def check_determinize(engine: Engine, state: State, seat: int, salt: int) -> None:
    """The seat's determinizations keep what it sees and knows, and every piece."""
    redrawn = engine.determinize(state, seat, random.Random(salt))
    assert canonical(engine.view(redrawn, seat)) == canonical(engine.view(state, seat))
    assert engine.information_key(redrawn, seat) == engine.information_key(state, seat)
    assert shape(redrawn) == shape(state), "determinize changed the state's shape"
    assert leaves(without_rng(redrawn)) == leaves(without_rng(state)), "pieces not conserved"
    other = engine.determinize(state, seat, random.Random(salt + 1))
    again = engine.determinize(other, seat, random.Random(salt))
    assert canonical(again) == canonical(redrawn), "determinize reads hidden parts"


def check_returns(engine: Engine, state: State, players: int) -> None:
    """Returns and margins exist exactly at the end; returns add up to 0, winners best."""
    result = engine.result(state)
    returns, margins = engine.returns(state), engine.margins(state)
    if result is None:
        assert returns is None and margins is None
        return
    assert engine.seats(state) == players
    assert len(returns) == len(margins) == players
    assert abs(sum(returns)) < 1e-9 and all(-1 <= value <= 1 for value in returns)
    winners = set(result["winners"])
    if not winners or len(winners) == players:
        assert returns == [0.0] * players
    else:
        assert min(returns[seat] for seat in winners) > max(
            returns[seat] for seat in range(players) if seat not in winners
        )


@cache
def schema_instances(engine: Engine) -> dict[str, Schema]:
    """One instance of each move schema of ``engine`` (making one per move is slow)."""
    return {action: schema() for action, schema in move_schemas(engine).items()}


def play(engine: Engine, players: int, seed: int) -> tuple[State, list[tuple[int, Move]]]:
    """A random game of ``engine``, checked at every step; the final state and the log."""
    rng = random.Random(seed)
    state = engine.setup(players, engine.options({}), seed)
    log: list[tuple[int, Move]] = []
    for _ in range(MAX_PLIES):
        before = canonical(state)
        to_move = engine.to_move(state)
        assert (to_move == []) == (engine.result(state) is not None)
        check_views(engine, state, players)
        for seat in set(range(players)) - set(to_move):
            assert engine.legal_moves(state, seat) == []
        if not to_move:
            break
        check_returns(engine, state, players)
        check_determinize(engine, state, len(log) % players, salt=len(log))
        seat = rng.choice(to_move)
        move = rng.choice(check_moves(engine, state, seat, rng))
        after = engine.apply(state, seat, move)
        assert canonical(state) == before, "a method changed the state it was given"
        fast = engine.apply_fast(engine.clone(state), seat, move)
        assert canonical(fast) == canonical(after), f"apply_fast differs from apply: {move}"
        log.append((seat, move))
        state = after
    check_returns(engine, state, players)
    return state, log


@pytest.mark.parametrize(("engine_id", "players"), CASES)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_games_keep_the_engine_promises(engine_id: str, players: int, seed: int) -> None:
    engine = ENGINES[engine_id]
    state, log = play(engine, players, seed)
    assert engine.result(state) is not None, f"no end within {MAX_PLIES} moves"
    fresh = type(engine)()
    replayed = fresh.setup(players, fresh.options({}), seed)
    assert canonical(replayed) == canonical(engine.setup(players, engine.options({}), seed))
    for seat, move in log:
        replayed = fresh.apply(replayed, seat, move)
    assert canonical(replayed) == canonical(state)


@pytest.mark.parametrize("engine_id", sorted(GAMES))
@pytest.mark.parametrize("ending", ["resigned", "forfeit"])
def test_a_game_ended_without_its_rules_is_told_in_words(engine_id: str, ending: str) -> None:
    """A resignation or a forfeit ends a game without scores: every engine still says it."""
    result = {"winners": [1], "scores": {}, "reason": "Ann gave up", ending: [0]}
    names = ["Ann", "Bob"]
    sentence = english(ENGINES[engine_id].describe_result(result, names), names)
    told = {"resigned": "Ann resigned", "forfeit": "Ann ran out of time and forfeits"}[ending]
    assert sentence == f"Bob wins: {told}."


@pytest.mark.parametrize("engine_id", sorted(GAMES))
def test_the_kind_is_declared(engine_id: str) -> None:
    engine = GAMES[engine_id]
    kind = engine.kind
    assert kind.information in (PERFECT, IMPERFECT) and kind.chance in (DETERMINISTIC, SAMPLED)
    assert (kind.min_seats, kind.max_seats) == (engine.min_players, engine.max_players)
    state = engine.setup(engine.min_players, engine.options({}), 1)
    assert engine.seats(state) == engine.min_players
    if kind.chance == DETERMINISTIC:
        other = engine.setup(engine.min_players, engine.options({}), 2)
        assert canonical(other) == canonical(state), "a deterministic game depends on its seed"


@pytest.mark.parametrize(("engine_id", "players"), CASES)
@settings(max_examples=8, deadline=None)
@given(choices=st.randoms(use_true_random=False), switch=st.integers(0, 60))
def test_the_fast_path_follows_apply(
    engine_id: str, players: int, choices: random.Random, switch: int
) -> None:
    """A state carried along by ``apply_fast`` alone (from a clone, then from a determinized
    state at ply ``switch``) stays equal to the state ``apply`` gives, to the end."""
    engine = GAMES[engine_id]
    state = engine.setup(players, engine.options({}), choices.randrange(1000))
    fast = engine.clone(state)
    for ply in range(MAX_PLIES):
        if ply == switch:
            state = engine.determinize(state, choices.randrange(players), choices)
            fast = engine.clone(state)
        to_move = engine.to_move(state)
        if not to_move:
            break
        seat = to_move[0]
        move = choices.choice(engine.legal_moves(state, seat))
        state = engine.apply(state, seat, move)
        fast = engine.apply_fast(fast, seat, move)
        assert canonical(fast) == canonical(state), f"ply {ply}: {move}"
    assert engine.result(state) is not None
