"""Words made when read: a sentence kept as a phrase key and its parameters.

The log keeps what happened, never an English sentence: an engine says
what a move did as a :data:`Phrase`, a JSON object ``{"key": message id,
"args": {name: value}}`` whose key is the English message (a gettext id
with ``%(name)s`` placeholders) and whose values are plain words or numbers
(squares, notation), a seat (``{"seat": 1}``: the reader sees that seat's
player's name), another phrase, or a list of these (read as "A, B and C").
The server renders it in each reader's language when a page, mail, event
or answer is made (:func:`server.phrases.render`). A sentence logged before
phrases were kept is ``{"text": sentence}``, read as it was written.

>>> phrase("%(seat)s resigns.", seat=seat(1))
{'key': '%(seat)s resigns.', 'args': {'seat': {'seat': 1}}}
>>> verbatim("Ann passes.")
{'text': 'Ann passes.'}
"""

from __future__ import annotations

from typing import Any

#: A phrase: ``{"key": message id, "args": {...}}``, or ``{"text": sentence}`` kept verbatim.
Phrase = dict[str, Any]


def phrase(key: str, **args: Any) -> Phrase:
    """The phrase of message ``key`` with its parameters (marked for the catalogs by name)."""
    return {"key": key, "args": args} if args else {"key": key}


def seat(number: int) -> dict[str, int]:
    """A parameter naming seat ``number``: read as its player's name."""
    return {"seat": number}


def verbatim(text: str) -> Phrase:
    """A sentence kept as it was written (an engine's that has no phrases yet, or an old log's)."""
    return {"text": text}


def as_phrase(words: str | Phrase) -> Phrase:
    """``words`` as a phrase: a sentence is kept :func:`verbatim`."""
    return verbatim(words) if isinstance(words, str) else words
