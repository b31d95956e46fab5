"""Move schemas of the test-only Nim engine (:mod:`tests.engines.tiny_game`)."""

from __future__ import annotations

from marshmallow import fields, validate

from schemas.base import StrictSchema


class TakeSchema(StrictSchema):
    """``{"action": "take", "count": 2}``: how many stones to take is a rule, not a shape."""

    action = fields.Constant("take", required=True)
    count = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))


MOVE_SCHEMAS = {"take": TakeSchema}
