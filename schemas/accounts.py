"""Schemas of players: signing in, a player's profile, personal API tokens, their games.

The web forms load through these schemas too, so the pages and the API refuse
the same things in the same words.

    >>> ProfileSchema().load({"name": "Ann", "time_zone": "Europe/Brussels",
    ...     "language": "nl", "mail_pref": "digest"})["time_zone"]
    'Europe/Brussels'
    >>> sorted(ProfileSchema().validate({"name": "\\u202e", "time_zone": "Mars/Olympus",
    ...     "language": "xx", "mail_pref": "often"}))
    ['language', 'mail_pref', 'name', 'time_zone']
"""

from __future__ import annotations

from marshmallow import fields, validate

from engines.phrases import N_
from schemas.api import (
    LANGUAGES,
    MAX_PAGE_SIZE,
    PAGE_SIZE,
    GameSummarySchema,
    MailAddress,
    printable,
    timestamp,
    visible_name,
)
from schemas.base import StrictSchema, time_zones

#: The longest display name and API token name.
MAX_NAME = 64
#: The longest cursor of a player's game list.
MAX_CURSOR = 80
#: How a player wants to hear of their turns by mail.
MAIL_PREFERENCES = {
    "turn": N_("A mail for every turn"),
    "digest": N_("One mail a day with every game waiting for me"),
    "none": N_("No mail (I look at my games page)"),
}


def name_field(**kwargs: object) -> fields.String:
    """A name a person reads: printable, visible, 1 to :data:`MAX_NAME` characters."""
    return fields.String(
        validate=[validate.Length(min=1, max=MAX_NAME), printable, visible_name], **kwargs
    )


class SignInSchema(StrictSchema):
    """Ask for a sign-in link."""

    email = MailAddress(required=True)


class ProfileSchema(StrictSchema):
    """What a player may change about themselves."""

    name = name_field(required=True, metadata={"description": "Shown to other players."})
    time_zone = fields.String(
        required=True,
        validate=validate.OneOf(time_zones(), error="Pick a time zone from the list."),
        metadata={"description": "Deadlines are shown in it, on pages and in mails."},
    )
    language = fields.String(
        required=True, validate=validate.OneOf(LANGUAGES, error="Pick a language from the list.")
    )
    mail_pref = fields.String(
        required=True,
        validate=validate.OneOf(MAIL_PREFERENCES, error="Pick how you want to hear of turns."),
    )


class ApiTokenCreateSchema(StrictSchema):
    """Name a new personal API token."""

    name = name_field(required=True)


class LastMoveSchema(StrictSchema):
    """The last entry of a game's log, in the game's words."""

    seq = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    description = fields.String(
        required=True, metadata={"description": "The move in a sentence, in the game's words."}
    )
    at = timestamp(required=True)


class MyGameSchema(GameSummarySchema):
    """One of the player's games: its summary, with ``you`` the player's seat in it."""

    waiting = fields.Boolean(
        required=True, metadata={"description": "The game waits for the player (`you`)."}
    )
    last_move = fields.Nested(
        LastMoveSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The last log entry; null before the first move."},
    )


class MyGamesQuerySchema(StrictSchema):
    """``GET /api/v1/me/games``: a page of the player's games."""

    limit = fields.Integer(
        load_default=PAGE_SIZE,
        validate=validate.Range(min=1, max=MAX_PAGE_SIZE),
        metadata={"description": "Games per page."},
    )
    cursor = fields.String(
        validate=validate.Length(min=1, max=MAX_CURSOR),
        metadata={"description": "The `next_cursor` of the previous page."},
    )


class MyGameListSchema(StrictSchema):
    """A page of the player's games: those waiting for them first (the nearest deadline
    first), then the others running (the latest change first), then those over (the latest
    first)."""

    games = fields.List(fields.Nested(MyGameSchema), required=True)
    next_cursor = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Pass as `cursor` for the next page; null on the last page."},
    )
