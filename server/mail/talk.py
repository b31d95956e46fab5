"""Table talk by mail: which replies are words for the table rather than a move.

A reply to a game's mail is read as a command or a move first
(:mod:`server.mail.inbound`). It is table talk instead when

- its first line starts with ``say:`` (the table) or ``team:`` (the private
  thread of the seat's team, in 4-player King of Siam), or
- it is neither a command nor a move, and does not look like one: its first
  word is not one a move of the game starts with (``Engine.move_words``), nor
  one letter away from one (its first two words joined too: "Khon Tai"), and
  none of its words is a board coordinate (``a1``, ``r3c4``). So "gg",
  "Thanks, well played!" and "see you tomorrow" are posted, while "enter a1"
  (a Siam move missing its facing) or "hop a1" are refused as moves, with the
  reason. Names as the cards print
  them count as the words they stand for ("Khon Thai ..." is a King of Siam
  move, :meth:`~engines.base.Engine.canonical_names`).

The words posted are the reply's text up to the quoted mail or the
signature, not only its first line (:func:`server.mail.inbound.reply_words`).

    >>> from engines import ENGINES
    >>> siam = ENGINES["siam"]
    >>> [spoken(siam, None, line, line) for line in ("gg", "enter a1", "hop a1", "entr b1 N")]
    [('table', 'gg'), None, None, None]
    >>> spoken(siam, None, "Say: good luck", "Say: good luck\\nand have fun")
    ('table', 'good luck\\nand have fun')
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from engines import Engine, NotationError
from server.games.talk import PARTNERS, TABLE

#: The first line of explicit talk: ``say: ...`` for the table, ``team: ...`` for partners.
EXPLICIT = re.compile(r"^(?P<word>say|team)\s*:\s*", re.IGNORECASE)
THREAD_OF = {"say": TABLE, "team": PARTNERS}
#: A board coordinate, as the games write them: ``a1``, ``b12``, ``r3c4``, ``t50``.
COORDINATE = re.compile(r"^[a-z]{1,2}\d{1,2}([a-z]\d{1,2})?$")
#: How alike a word must be to a move's first word to be taken for a mistyped one.
NEAR_MISS = 0.8


def spoken(
    engine: Engine, state: dict[str, Any] | None, first: str, text: str
) -> tuple[str, str] | None:
    """``(thread, words)`` when a reply whose first line is ``first`` (and whose text is
    ``text``) is table talk; ``None`` when it is to be read as a command or a move."""
    explicit = EXPLICIT.match(text.lstrip())
    if explicit:
        return THREAD_OF[explicit["word"].lower()], text.lstrip()[explicit.end() :]
    if _parses(engine, state, first) or looks_like_a_move(engine, first):
        return None
    return TABLE, text


def _parses(engine: Engine, state: dict[str, Any] | None, line: str) -> bool:
    try:
        engine.parse(line, state)
    except NotationError:
        return False
    return True


def looks_like_a_move(engine: Engine, line: str) -> bool:
    """Whether ``line`` looks like a move of ``engine``, mistyped or not (see above).

    An engine that names no ``move_words`` takes every line for a move.

    >>> from engines import ENGINES
    >>> [looks_like_a_move(ENGINES["siam"], line) for line in ("Move b2 b3", "rotte", "ok!")]
    [True, True, False]
    """
    spelled = engine.canonical_names(line).lower()
    words = [word.strip(".,!?:") for word in re.split(r"[\s;]+", spelled) if word]
    if not engine.move_words:
        return True
    if not words:
        return False
    for first in (words[0], "_".join(words[:2])):  # "Khon Tai": a name of two words
        if first in engine.move_words or difflib.get_close_matches(
            first, engine.move_words, n=1, cutoff=NEAR_MISS
        ):
            return True
    return any(COORDINATE.match(word) for word in words)
