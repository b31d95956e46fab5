"""A whole turn on the game page: its decisions asked one by one, previewed, sent once.

Some turns are several decisions of the same seat (a King of Siam card and
its take, a Bangkok Klongs placement and its move card, the Foreign King's
citizen moves for the virtual player; see "Turns in several decisions" in
docs/api.md). The page walks through them as one turn: each decision taken
is carried in the address as its notation (``?step=rama korat sukhothai``),
the board shows the state after the decisions so far (the engine applied to
a copy: nothing is sent), any earlier decision can be changed (its link
drops it and those after it), and once the turn is over the page previews
the whole turn as the one move the engine joins from the decisions
(:meth:`~engines.base.Engine.join_turn`): one confirm, one log entry.

Where the game must reveal something or ask another seat before the turn
goes on (:meth:`~engines.base.Engine.turn_pause`, e.g. a market day), the
turn is sent up to there and the page says why.

    >>> from engines import get_engine
    >>> siam = get_engine("king-of-siam")
    >>> state = siam.setup(2, siam.options({}), 3)
    >>> seat = siam.to_move(state)[0]
    >>> card = siam.legal_moves(state, seat)[1]
    >>> turn = read_turn(siam, state, seat, [siam.format(card)], ["Ann", "Bob"])
    >>> turn.moved_on, len(turn.moves), turn.state["pending"]["kind"]
    (False, 1, 'take')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engines import Engine
from engines.base import Move, State
from engines.phrases import Words

#: The query parameter carrying each decision of the turn taken so far, as its notation.
STEP = "step"
#: The most decisions one turn may carry in the address (a Foreign King turn has the most).
MAX_STEPS = 40


@dataclass
class TurnSoFar:
    """The decisions of the seat's turn taken so far, and the state after them (not sent).

    ``sentences`` says each decision in the game's words (phrases, read with
    the seats' ``names``); ``moved_on`` says decisions in the address were
    dropped (the game moved on, or the link was edited).
    """

    state: State
    names: Sequence[str] = ()
    moves: list[Move] = field(default_factory=list)
    sentences: list[Words] = field(default_factory=list)
    moved_on: bool = False

    @property
    def notations(self) -> list[str]:
        """The decisions as the address carries them."""
        return [move["notation"] for move in self.moves]

    def then(
        self, engine: Engine, seat: int, move: Move, after: State, names: Sequence[str]
    ) -> None:
        """Take the decision ``move`` (leading to ``after``) as the next one of the turn."""
        self.sentences.append(engine.describe(self.state, after, seat, _bare(move), names))
        self.moves.append({**move, "notation": engine.format(_bare(move))})
        self.state = after


def read_turn(
    engine: Engine, state: State, seat: int, texts: Sequence[str], names: Sequence[str]
) -> TurnSoFar:
    """The turn so far from the decisions ``texts`` (notations of listed moves, in order).

    Each must be a legal move listed at its point that leaves the turn going
    on; the first that is not is dropped with those after it.
    """
    turn = TurnSoFar(state, names)
    for text in texts[:MAX_STEPS]:
        listed = {engine.format(move): move for move in engine.legal_moves(turn.state, seat)}
        move = listed.get(text)
        after = engine.apply(turn.state, seat, move) if move is not None else None
        if after is None or not engine.turn_goes_on(after, seat, move):
            turn.moved_on = True
            break
        turn.then(engine, seat, move, after, names)
    turn.moved_on |= len(texts) > MAX_STEPS
    return turn


@dataclass
class WholeTurn:
    """The turn as the one move to send: its notation, its sentence, the state after it and,
    when it stops before its end, why."""

    notation: str
    sentence: Words
    after: State
    move: Move
    pause: Words


def whole_turn(
    engine: Engine, state: State, seat: int, turn: TurnSoFar, last: Move, names: Sequence[str]
) -> WholeTurn:
    """The turn ``turn`` ended by the decision ``last``, joined into one move from ``state``."""
    steps = [_bare(move) for move in (*turn.moves, last)]
    move = engine.join_turn(state, seat, steps)
    after = engine.apply(state, seat, move)
    pause = engine.turn_pause(after, seat, steps[-1])
    sentence = engine.describe(state, after, seat, move, names)
    return WholeTurn(engine.format(move), sentence, after, move, pause)


def _bare(entry: dict[str, Any]) -> Move:
    """A listed move without its ``notation``: the move itself."""
    return {key: value for key, value in entry.items() if key != "notation"}
