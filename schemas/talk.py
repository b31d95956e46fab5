"""Schemas of the table talk: a message posted, a message shown, a page of a thread.

The web form and mail replies load a message through :func:`message_text` too,
so the pages, the API and mail refuse the same things in the same words.

    >>> MessageCreateSchema().load({"text": "  good game!\\r\\nsee you  "})
    {'text': 'good game!\\nsee you', 'thread': 'table'}
    >>> sorted(MessageCreateSchema().validate({"text": "\\u202egg", "thread": "all"}))
    ['text', 'thread']
"""

from __future__ import annotations

import unicodedata
from typing import Any

from marshmallow import ValidationError, fields, validate

from engines.phrases import Phrase, english, phrase
from schemas.api import MAX_SEED, shows_something, timestamp
from schemas.base import StrictSchema

#: The longest message, in characters, and the most lines it may have.
MAX_TEXT = 500
MAX_LINES = 12
#: The threads of a game: everyone's, and the private one of a seat's team (its partners).
THREADS = ("table", "partners")
#: Format characters a message may hold: the zero-width joiner and non-joiner of emoji
#: sequences and of scripts that need them. Every other one (bidirectional overrides and
#: isolates, zero-width spaces...) can make a message look like another or reverse the text
#: around it.
JOINERS = frozenset("\u200c\u200d")
#: Unicode categories refused anywhere in a message (a line break is the one control allowed).
REFUSED = {"Cc", "Cs", "Zl", "Zp"}
#: The most messages one page of a thread holds (also its default).
MESSAGES_PAGE_SIZE = 200


def message_text(value: str) -> str:
    """``value`` as a message: line breaks as ``\\n``, outer blanks gone; or ``ValidationError``
    (its message in English, its ``words`` keyword the phrase said to a player).

    Refused: more than :data:`MAX_TEXT` characters or :data:`MAX_LINES` lines, control
    characters (other than line breaks), invisible formatting (bidirectional overrides,
    zero-width spaces; joiners are fine), and text that shows nothing.

    >>> message_text("gg \\U0001f469\\u200d\\U0001f4bb\\r\\n")
    'gg \\U0001f469\\u200d\\U0001f4bb'
    >>> message_text("evil \\u202egnp.exe")
    Traceback (most recent call last):
    marshmallow.exceptions.ValidationError: Must not contain bidirectional or invisible formatting.
    """
    text = value.replace("\r\n", "\n").strip()
    problem = _text_problem(text)
    if problem is not None:
        raise ValidationError(english(problem), words=problem)
    return text


def _text_problem(text: str) -> Phrase | None:
    """What is wrong with a message's ``text``, or ``None``."""
    if len(text) > MAX_TEXT:
        return phrase("At most %(most)s characters.", most=MAX_TEXT)
    if text.count("\n") >= MAX_LINES:
        return phrase("At most %(most)s lines.", most=MAX_LINES)
    categories = {unicodedata.category(character) for character in text.replace("\n", "")}
    if categories & REFUSED:
        return phrase("Must not contain control characters (other than line breaks).")
    if any(unicodedata.category(c) == "Cf" and c not in JOINERS for c in text):
        return phrase("Must not contain bidirectional or invisible formatting.")
    if not shows_something(text):
        return phrase("Must show at least one letter, digit or sign.")
    return None


class MessageText(fields.String):
    """A message's text, loaded as :func:`message_text`."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        return message_text(super()._deserialize(value, attr, data, **kwargs))


def thread_field(**kwargs: Any) -> fields.String:
    """Which thread: ``table`` (everyone) or ``partners`` (the seat's team only)."""
    return fields.String(
        load_default="table",
        validate=validate.OneOf(THREADS),
        metadata={
            "description": "`table`: everyone's thread (players and watchers read it);"
            " `partners`: the private thread of the caller's team, in games with partners"
            " (4-player King of Siam)."
        },
        **kwargs,
    )


class MessageCreateSchema(StrictSchema):
    """``POST /api/v1/games/{id}/messages``: a message of the caller's seat."""

    text = MessageText(
        required=True,
        metadata={
            "description": f"Plain text, 1 to {MAX_TEXT} characters and at most {MAX_LINES}"
            " lines; no control characters but line breaks, no bidirectional or invisible"
            " formatting. Outer blanks are dropped.",
            "example": "Good game!",
        },
    )
    thread = thread_field()


class MessageSchema(StrictSchema):
    """A message of a game's table talk."""

    thread = fields.String(required=True, validate=validate.OneOf(THREADS))
    number = fields.Integer(
        required=True, metadata={"description": "Its place in its thread: 1, 2, 3..."}
    )
    seat = fields.Integer(required=True, metadata={"description": "Who wrote it."})
    name = fields.String(required=True, metadata={"description": "The writer's name."})
    text = fields.String(
        required=True, allow_none=True, metadata={"description": "null once the host deleted it."}
    )
    deleted = fields.Boolean(required=True, metadata={"description": "The host deleted it."})
    at = timestamp(required=True)


class MessagesQuerySchema(StrictSchema):
    """``GET /games/{id}/messages``: a page of one thread (the next one is in ``Link``)."""

    thread = thread_field()
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_SEED),
        metadata={"description": "Only the messages after this number."},
    )
    limit = fields.Integer(
        load_default=MESSAGES_PAGE_SIZE,
        validate=validate.Range(min=1, max=MESSAGES_PAGE_SIZE),
        metadata={"description": "Messages per page."},
    )
