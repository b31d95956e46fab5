"""Conditional moves: lines a seat stores ahead, "if you play X, I answer Y".

A seat stores lines (``PUT /api/v1/games/{id}/conditional``), each a list of
notations alternating another seat's move and the seat's answer. When a move
of another seat is logged, the seat's lines whose next step is that move are
followed: the answer of the first of them is played at once, through the
service's normal path (checked, logged with ``conditional``, mailed,
streamed), and the lines that go on with that same answer are kept for the
next move; every other line is dropped. A line whose answer is no longer
legal, a move of the seat itself, the end of the game, a resignation and a
takeback drop them. Lines are private to their seat: no other seat's view,
event, mail or API answer shows them.

The rule for hidden information: a line is stored only in a game that hides
nothing from its seats (``information`` is perfect: Siam, King of Siam, the
Foreign King), and only while the others are to move; every step is checked
by playing it on the game as it stands. In a game that hides information
(Bangkok Klongs) the answer could depend on what the seat cannot see (a
tile drawn), so lines are refused there (``422``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engines import IMPERFECT, EngineError
from engines.phrases import N_, Words, english, phrase
from schemas.correspondence import MAX_LINES, MAX_STEPS
from server.errors import TurnpostError
from server.games.game import Game, status_words

if TYPE_CHECKING:  # the service plays the lines through this module
    from server.games.service import GameService


@dataclass(frozen=True)
class Followed:
    """What a logged move does to a seat's lines: the answer to play (or ``None``) and the
    lines kept after it."""

    answer: str | None
    lines: list[list[str]]


def follow(lines: list[list[str]], notation: str) -> Followed:
    """The lines of a seat after another seat played ``notation``: the first matching line's
    answer, and the matching lines that give that same answer, past it.

    >>> follow([["a", "x", "b", "y"], ["a", "x", "c", "z"], ["d", "w"]], "a")
    Followed(answer='x', lines=[['b', 'y'], ['c', 'z']])
    >>> follow([["a", "x"], ["d", "w"]], "e")
    Followed(answer=None, lines=[])
    """
    matching = [line for line in lines if len(line) >= 2 and line[0] == notation]
    if not matching:
        return Followed(None, [])
    answer = matching[0][1]
    kept = [line[2:] for line in matching if line[1] == answer and len(line) > 2]
    return Followed(answer, kept)


def checked_lines(game: Game, seat: int, lines: list[list[str]]) -> list[list[str]]:
    """``lines`` in canonical notation, each step played on the game as it stands; ``422``
    naming the first line and step that is not legal, ``409`` once the game is over."""
    if game.engine.information == IMPERFECT:
        _refuse(
            phrase(
                "%(game)s hides information: an answer could depend on what you cannot"
                " see, so it takes no conditional moves.",
                game=game.engine.name,
            )
        )
    if game.status != "active":
        raise TurnpostError("game_over", status_words(game.status))
    if lines and seat in game.to_move:
        _refuse(
            phrase("It is your turn: store conditional moves after your move, while others play.")
        )
    return [_checked_line(game, seat, number, line) for number, line in enumerate(lines, 1)]


def _checked_line(game: Game, seat: int, number: int, line: list[str]) -> list[str]:
    """One line in canonical notation, played from the game's state; ``422`` saying why not."""
    engine, state, canonical = game.engine, game.state, []
    for step, text in enumerate(line, 1):
        where = {"line": number, "step": step, "move": text}
        mine = step % 2 == 0
        movers = engine.to_move(state)
        mover = seat if mine else next((s for s in movers if s != seat), None)
        if mover is None or mover not in movers:
            _refuse(phrase(YOU_NOT_TO_MOVE if mine else OTHER_NOT_TO_MOVE, **where))
        try:
            move = engine.parse(text, state)
            state = engine.apply(state, mover, move)
        except EngineError as error:
            _refuse(
                phrase("Line %(line)s, step %(step)s (%(move)s): %(why)s", why=error.words, **where)
            )
        canonical.append(engine.format(move))
    return canonical


#: Why a step of a line cannot be played: its mover is not to move then.
YOU_NOT_TO_MOVE = N_("Line %(line)s, step %(step)s (%(move)s): you are not to move then.")
OTHER_NOT_TO_MOVE = N_(
    "Line %(line)s, step %(step)s (%(move)s): another player is not to move then."
)

#: How the game page writes the steps of one line (one line a row).
THEN = " then "


def lines_text(lines: list[list[str]]) -> str:
    """Lines as the game page shows them: one a row, the steps joined by "then".

    >>> lines_text([["enter a1 N", "enter e5 S"]])
    'enter a1 N then enter e5 S'
    """
    return "\n".join(THEN.join(line) for line in lines)


def read_lines_text(text: str) -> list[list[str]]:
    """The lines written on the game page (:func:`lines_text`, an ``if`` before a row allowed);
    ``422`` for more lines or steps than a seat may store.

    >>> read_lines_text("If enter a1 N THEN enter e5 S")
    [['enter a1 N', 'enter e5 S']]
    """
    rows = [row.strip() for row in text.splitlines() if row.strip()]
    lines = [
        [
            step.strip()
            for step in re.split(r"\s+then\s+", re.sub(r"(?i)^if\s+", "", row), flags=re.I)
        ]
        for row in rows
    ]
    if len(lines) > MAX_LINES or any(len(line) > MAX_STEPS for line in lines):
        _refuse(
            phrase(
                "At most %(lines)s lines of %(steps)s steps each.", lines=MAX_LINES, steps=MAX_STEPS
            )
        )
    return lines


def conditional_panel(games: GameService, game: Game, seat: int | None) -> dict[str, Any]:
    """What the game page shows ``seat`` of its conditional moves: whether it may store some
    now (a running game hiding nothing, the others to move) and its lines as text."""
    available = (
        seat is not None
        and game.status == "active"
        and game.engine.information != IMPERFECT
        and seat not in game.to_move
    )
    lines = games.store.conditional_lines(game.id).get(seat, []) if available else []
    return {"available": available, "text": lines_text(lines)}


def _refuse(words: Words) -> Any:
    """``422 invalid_request`` about conditional lines (the details in English)."""
    raise TurnpostError("invalid_request", words, {"lines": [english(words)]})
