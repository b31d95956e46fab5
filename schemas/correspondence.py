"""Request and response schemas of correspondence play: takebacks and conditional moves."""

from __future__ import annotations

from marshmallow import fields, validate

from schemas.api import GameSchema, expected_seq_field, timestamp
from schemas.base import StrictSchema


class TakebackRequestSchema(StrictSchema):
    """``POST /api/v1/games/{id}/takeback`` body: empty (or without ``accept``) to offer to
    take back the caller's last move; ``{"accept": true}`` or ``false`` to answer an offer."""

    #: An empty body is ``{}`` (see :class:`server.http.api.ContractParser`).
    optional_body = True

    accept = fields.Boolean(
        load_default=None,
        allow_none=True,
        truthy={True},
        falsy={False},
        metadata={
            "description": "Answer the open offer: true accepts, false declines. Left out (or"
            " null): offer to take back your own last move."
        },
    )
    expected_seq = expected_seq_field()


class TakebackOfferSchema(StrictSchema):
    """An open takeback offer."""

    seq = fields.Integer(required=True, metadata={"description": "The move offered back."})
    seat = fields.Integer(required=True, metadata={"description": "The seat that offers."})
    offered_at = timestamp(required=True)
    accepted = fields.List(
        fields.Integer(), required=True, metadata={"description": "Seats that accepted so far."}
    )
    waiting = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "Seats whose answer it waits for (a bot's seat accepts)."},
    )


class TakebackStatusSchema(StrictSchema):
    """``GET /api/v1/games/{id}/takeback``: the game's open offer, if any."""

    offer = fields.Nested(TakebackOfferSchema, required=True, allow_none=True)


class TakebackAnsweredSchema(TakebackStatusSchema):
    """What an offer or an answer did, the offer still open and the game after it."""

    outcome = fields.String(
        required=True,
        validate=validate.OneOf(["offered", "accepted", "declined", "taken_back"]),
        metadata={
            "description": "`offered`; `accepted` (other seats still to answer); `declined`"
            " (the offer is over); `taken_back` (a `takeback N` entry was logged)."
        },
    )
    game = fields.Nested(GameSchema, required=True)


#: The most lines a seat stores in one game, the most steps of a line, the longest notation.
MAX_LINES, MAX_STEPS, MAX_NOTATION = 20, 40, 200


class ConditionalLinesSchema(StrictSchema):
    """A seat's conditional moves: ``PUT /api/v1/games/{id}/conditional`` (replacing the
    earlier ones; ``[]`` forgets them) and what ``GET`` answers."""

    lines = fields.List(
        fields.List(
            fields.String(validate=validate.Length(min=1, max=MAX_NOTATION)),
            validate=validate.Length(min=2, max=MAX_STEPS),
        ),
        required=True,
        validate=validate.Length(max=MAX_LINES),
        metadata={
            "description": "Each line alternates another seat's move and your answer, in"
            ' notation, from the game as it stands: [["enter a1 N", "enter e5 S"]]. Stored'
            " in canonical notation; only your seat ever sees them.",
            "example": [["enter a1 N", "enter e5 S"]],
        },
    )
