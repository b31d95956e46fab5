"""Chat pings of a seat (``/api/v1/games/{id}/pings``): where its turns are announced.

>>> sorted(PingCreateSchema().validate({"kind": "discord", "url": "https://x.example/h",
...     "mention": "@everyone"}))
['mention']
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from schemas.api import printable, timestamp
from schemas.base import StrictSchema
from server.webhooks.pings import KINDS, MENTIONS

#: What a mention looks like, in words, by chat.
MENTION_WORDS = {
    "discord": "a Discord user id (digits)",
    "slack": "a Slack member id (U or W, then letters and digits)",
    "matrix": "a Matrix user id (@name:server)",
    "generic": "1 to 100 characters, no control characters",
}


class PingCreateSchema(StrictSchema):
    """``POST /api/v1/games/{id}/pings`` body."""

    kind = fields.String(
        required=True,
        validate=validate.OneOf(KINDS),
        metadata={"description": "The chat's message format: discord, slack, matrix, generic."},
    )
    url = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=2000), printable],
        metadata={
            "description": "The chat's incoming-webhook URL (http or https, a public address"
            " unless the operator allows more).",
            "example": "https://discord.com/api/webhooks/123/abc",
        },
    )
    mention = fields.String(
        load_default=None,
        allow_none=True,
        metadata={
            "description": "Who to mention: "
            + "; ".join(f"{kind}: {words}" for kind, words in MENTION_WORDS.items())
            + ". Without: the seat's name, pinging nobody."
        },
    )

    @validates_schema
    def mention_of_its_chat(self, data: dict[str, Any], **_: Any) -> None:
        """A mention as the chat writes its users."""
        mention = data.get("mention")
        if mention is not None and not MENTIONS[data["kind"]].fullmatch(mention):
            raise ValidationError(f"Must be {MENTION_WORDS[data['kind']]}.", "mention")


class PingSchema(StrictSchema):
    """A chat ping of a seat."""

    id = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    kind = fields.String(required=True)
    url = fields.String(required=True)
    mention = fields.String(required=True, allow_none=True)
    created_at = timestamp(required=True)


class PlayerPingSchema(StrictSchema):
    """A chat ping of a player, for every game of theirs."""

    id = fields.Integer(required=True)
    kind = fields.String(required=True)
    url = fields.String(required=True)
    mention = fields.String(required=True, allow_none=True)
    created_at = timestamp(required=True)


class PingCreatedSchema(PingSchema):
    """A new chat ping, with the secret its deliveries are signed with (shown once; a
    ``generic`` receiver may check ``Turnpost-Signature`` as a webhook's)."""

    secret = fields.String(required=True)
