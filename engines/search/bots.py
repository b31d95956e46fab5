"""Bots: a random player and Monte Carlo tree search in five levels.

A bot is asked for its seat's *turn*: the decisions it makes now, one after
the other, until another seat is to move (a split turn is searched and
answered whole: King of Siam's card, steps and take, a Foreign King move of
citizens step by step, Bangkok Klongs' placement and move card; and again
when the other seats pass automatically). The turn stops early after a
decision that shows the seat something hidden, so that every move it
answers is legal in the true state (in today's games a seat sees something
new, a boat it draws, only as its turn ends; :func:`_known_part` checks it).
Each move goes through ``apply`` like any player's.

A bot reads nothing of the state it is given but whose turn it is: it hands
the state to the engine's ``determinize`` for its seat and looks only at
what comes back, whose hidden parts are redrawn from the bot's own random
numbers. Two states its seat cannot tell apart give the same turn for the
same seed.

    >>> from engines import get_engine
    >>> siam = get_engine("siam")
    >>> state = siam.setup(2, {}, 1)
    >>> turn = Mcts(level=1).turn(siam, state, 0, seed=7)
    >>> turn == Mcts(level=1).turn(siam, state, 0, seed=7) and len(turn) == 1
    True
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Protocol

from engines.base import Engine, Move, State
from engines.search.mcts import Sampler, Search, principal_turn
from engines.search.policies import policy_of

#: Seconds of one search at each level on the reference machine (``docs/bots.md``), turned
#: into a budget of moves applied by the game's policy ``rate`` (the same on every machine).
#: A turn whose tree ends before the turn does searches on with half the budget, and so on,
#: so a turn takes at most about twice as long.
LEVELS = {1: 0.05, 2: 0.2, 3: 0.5, 4: 1.2, 5: 2.5}
#: The most CPU seconds a turn takes at each level: where moves cost far more than the
#: game's ``rate`` says, the search stops there (and is then no longer repeatable).
CAPS = {1: 0.15, 2: 0.5, 3: 1.5, 4: 3.0, 5: 4.5}


class Bot(Protocol):
    """What the server asks a bot: its seat's turn now."""

    def turn(self, engine: Engine, state: State, seat: int, seed: int) -> list[Move]:
        """The moves ``seat`` makes now, in order: at least one while it is to move (the
        only seat to move), none otherwise."""


def sampler(engine: Engine, state: State, seat: int) -> Sampler:
    """What a bot may look at: states of ``seat``'s information set drawn by ``determinize``."""
    return lambda rng: engine.determinize(state, seat, rng)


@dataclass(frozen=True)
class RandomBot:
    """Plays a listed move at random, decision after decision."""

    def turn(self, engine: Engine, state: State, seat: int, seed: int) -> list[Move]:
        """Random moves of ``seat`` until another seat is to move."""
        if engine.to_move(state) != [seat]:
            return []
        rng = random.Random(seed)
        sample = sampler(engine, state, seat)(rng)
        moves = []
        while engine.to_move(sample) == [seat]:
            options = engine.legal_moves(sample, seat)
            moves.append(options[rng.randrange(len(options))])
            sample = engine.apply_fast(sample, seat, moves[-1])
        return _known_part(engine, sampler(engine, state, seat), seat, moves, seed)


@dataclass(frozen=True)
class Mcts:
    """Information-set Monte Carlo tree search with the game's playout policy; ``moves``
    (moves applied per search) replaces the level's budget and time cap where given."""

    level: int = 3
    moves: int | None = None

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(map(str, LEVELS))}")

    def budget(self, engine: Engine) -> int:
        """Moves applied per search at this level."""
        if self.moves is not None:
            return self.moves
        return max(1, round(LEVELS[self.level] * policy_of(engine).rate))

    def turn(self, engine: Engine, state: State, seat: int, seed: int) -> list[Move]:
        """The most visited line of ``seat``'s decisions; where the tree ends before the
        turn does, a search from there (with half the budget, and so on) goes on."""
        if engine.to_move(state) != [seat]:
            return []
        rng = random.Random(seed)
        sample, policy = sampler(engine, state, seat), policy_of(engine)
        moves: list[Move] = []
        budget = self.budget(engine)
        deadline = None if self.moves is not None else time.thread_time() + CAPS[self.level]
        while True:
            search = Search(engine, _after(engine, sample, seat, moves), seat, policy, rng)
            line = principal_turn(search.run(budget, deadline), seat)
            moves += line
            ahead = _after(engine, sample, seat, moves)(rng)
            if not line or engine.to_move(ahead) != [seat]:
                return _known_part(engine, sample, seat, moves, seed)
            budget = max(1, budget // 2)


def _after(engine: Engine, sample: Sampler, seat: int, moves: list[Move]) -> Sampler:
    """Samples with ``seat``'s ``moves`` played."""
    played = list(moves)

    def draw(rng: random.Random) -> State:
        """A sample with the moves played."""
        state = sample(rng)
        for move in played:
            state = engine.apply_fast(state, seat, move)
        return state

    return draw


def _known_part(
    engine: Engine, sample: Sampler, seat: int, moves: list[Move], seed: int
) -> list[Move]:
    """The moves up to the first after which ``seat`` may learn something hidden.

    Two samples play the moves side by side; where a move is not legal in both or
    leaves the seat with different information keys, the turn stops (after it, in
    the second case: the move itself was legal).
    """
    rng = random.Random(seed)
    pair = [sample(rng), sample(rng)]
    known: list[Move] = []
    for move in moves:
        if any(
            engine.to_move(s) != [seat] or move not in engine.legal_moves(s, seat) for s in pair
        ):
            break
        pair = [engine.apply_fast(s, seat, move) for s in pair]
        known.append(move)
        if engine.information_key(pair[0], seat) != engine.information_key(pair[1], seat):
            break
    return known


def make_bot(spec: dict[str, Any]) -> Bot:
    """The bot a seat asks for: ``{"bot": "random"}`` or ``{"bot": "mcts", "level": 1..5}``."""
    kind = spec.get("bot")
    if kind == "random" and set(spec) == {"bot"}:
        return RandomBot()
    if kind == "mcts" and set(spec) <= {"bot", "level"}:
        level = spec.get("level", 3)
        if type(level) is int:
            return Mcts(level)
    raise ValueError('A bot is {"bot": "random"} or {"bot": "mcts", "level": 1 to 5}.')
