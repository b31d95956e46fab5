"""Move schemas for ``siam`` (contract section 4.1), one per action."""

from __future__ import annotations

from marshmallow import fields, validate

from schemas.base import StrictSchema

SQUARE = validate.Regexp(r"^[a-e][1-5]$", error="Not a square a1..e5.")
FACING = validate.OneOf(["N", "E", "S", "W"])


class EnterSchema(StrictSchema):
    """``{"action": "enter", "to": "a1", "facing": "N"}``"""

    action = fields.Constant("enter", required=True)
    to = fields.String(required=True, validate=SQUARE)
    facing = fields.String(required=True, validate=FACING)


class MoveSchema(StrictSchema):
    """``{"action": "move", "from": "b2", "to": "b3", "facing": "E"}``"""

    action = fields.Constant("move", required=True)
    from_ = fields.String(required=True, validate=SQUARE, data_key="from", attribute="from")
    to = fields.String(required=True, validate=SQUARE)
    facing = fields.String(required=True, validate=FACING)


class RotateSchema(StrictSchema):
    """``{"action": "rotate", "at": "b2", "facing": "S"}``"""

    action = fields.Constant("rotate", required=True)
    at = fields.String(required=True, validate=SQUARE)
    facing = fields.String(required=True, validate=FACING)


class ExitSchema(StrictSchema):
    """``{"action": "exit", "from": "a1"}``"""

    action = fields.Constant("exit", required=True)
    from_ = fields.String(required=True, validate=SQUARE, data_key="from", attribute="from")


MOVE_SCHEMAS = {
    "enter": EnterSchema,
    "move": MoveSchema,
    "rotate": RotateSchema,
    "exit": ExitSchema,
}
