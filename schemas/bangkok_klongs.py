"""Move schemas for ``bangkok-klongs`` (contract section 4.4), one per action.

The schemas check the shape; the engine checks the rules (which fields are
free, which boats are yours, whose turn it is).
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from schemas.base import StrictSchema

FIELD_PATTERN = r"r\d{1,2}c\d{1,2}"
FIELD = validate.Regexp(rf"^{FIELD_PATTERN}$", error="Not a water field like r3c4.")
TILE = validate.Regexp(r"^t\d{1,3}$", error="Not a tile id like t50.")
LANDING = validate.Regexp(r"^L\d{1,2}-\d{1,2}$", error="Not a landing place like L4-5.")
MERCHANT = validate.Regexp(
    rf"^(new|none|{FIELD_PATTERN})$", error="Merchant is new, none or the field of an own boat."
)
KEEP = validate.Regexp(
    rf"^(hand|inventory|{FIELD_PATTERN})$", error="Keep is hand, inventory or a thief's field."
)


PILE = validate.OneOf(["merchant", "plain"])


class RelocateSchema(StrictSchema):
    """``{"from": "r2c2", "to": "r2c3", "when": "before"}``: a move card played in the turn.

    ``{"when": "after"}`` alone: the boat to move is chosen as the next decision.
    """

    from_ = fields.String(validate=FIELD, data_key="from", attribute="from")
    to = fields.String(validate=FIELD)
    when = fields.String(required=True, validate=validate.OneOf(["before", "after"]))

    @validates_schema
    def check_fields(self, data: dict[str, Any], **kwargs: Any) -> None:
        """Both fields, or neither and ``when`` is ``after``."""
        if ("from" in data) != ("to" in data) or ("from" not in data and data["when"] != "after"):
            raise ValidationError(
                'A relocation names "from" and "to", or is {"when": "after"} to choose the boat '
                "next."
            )


class PlaceSchema(StrictSchema):
    """``{"action": "place", "tile": "t50", "at": "r3c4", "merchant": "new", ...}``

    Optional: ``relocate``, ``steal`` and ``keep`` (thief), ``remove_thieves``
    and ``keep`` (overseer), ``draw`` (tactical variant).
    """

    action = fields.Constant("place", required=True)
    tile = fields.String(required=True, validate=TILE)
    at = fields.String(required=True, validate=FIELD)
    merchant = fields.String(required=True, validate=MERCHANT)
    relocate = fields.Nested(RelocateSchema)
    steal = fields.String(validate=FIELD)
    keep = fields.String(validate=KEEP)
    remove_thieves = fields.Boolean(
        validate=validate.Equal(True, error="remove_thieves is true or left out.")
    )
    draw = fields.String(validate=PILE)


class RelocateStepSchema(StrictSchema):
    """``{"action": "relocate", "from": "r2c2", "to": "r2c3"}``: a move card as its own decision.

    Before placing (no ``draw``), or after it (``draw`` in the tactical variant).
    """

    action = fields.Constant("relocate", required=True)
    from_ = fields.String(required=True, validate=FIELD, data_key="from", attribute="from")
    to = fields.String(required=True, validate=FIELD)
    draw = fields.String(validate=PILE)


class FinishSchema(StrictSchema):
    """``{"action": "finish"}``: end a placed turn without relocating (``draw``: tactical)."""

    action = fields.Constant("finish", required=True)
    draw = fields.String(validate=PILE)


class ScoreSchema(StrictSchema):
    """``{"action": "score", "landing": "L4-5", "remove": "r3c4"}``: a market-day scoring."""

    action = fields.Constant("score", required=True)
    landing = fields.String(required=True, validate=LANDING)
    remove = fields.String(required=True, validate=FIELD)


class DeclineSchema(StrictSchema):
    """``{"action": "decline"}``: pass on a market-day scoring."""

    action = fields.Constant("decline", required=True)


MOVE_SCHEMAS = {
    "place": PlaceSchema,
    "relocate": RelocateStepSchema,
    "finish": FinishSchema,
    "score": ScoreSchema,
    "decline": DeclineSchema,
}
