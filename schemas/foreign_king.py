"""Move schemas for ``foreign-king`` (contract section 4.3), one per action.

Turn moves (``loan``, ``repay`` and the main actions, ``step`` being the
first step of moving citizens) and the answers to a pending decision
(``step`` and ``end_move`` while moving citizens, ``bring_parliament``,
``deactivate``, ``virtual``, ``set_position``, ``finish``). The rules
themselves are checked by the engine.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from engines.foreign_king.board import KINDS, PROVINCES, SUPPLY
from schemas.base import StrictSchema

PROVINCE = validate.OneOf(PROVINCES, error="Not a province: {choices}.")
PROVINCE_OR_SUPPLY = validate.OneOf((*PROVINCES, SUPPLY), error="Not a province or 'supply'.")
MAX_CITIZENS = 16
MAX_SEATS = 4


def _from_field(choices: validate.OneOf) -> fields.String:
    """A required ``from`` field (a Python keyword, so stored under ``from``)."""
    return fields.String(required=True, validate=choices, data_key="from", attribute="from")


class StrictBoolean(fields.Boolean):
    """JSON ``true`` or ``false`` only (no 1, 0 or strings)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        """``value`` itself when it is a boolean."""
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class LoanSchema(StrictSchema):
    """``{"action": "loan"}``: turn a royal order face down for 3 francs."""

    action = fields.Constant("loan", required=True)


class RepaySchema(StrictSchema):
    """``{"action": "repay"}``: pay 4 francs to turn a royal order face up again."""

    action = fields.Constant("repay", required=True)


class BuildFactorySchema(StrictSchema):
    """``{"action": "build_factory", "kind": "textile", "province": "liege"}``"""

    action = fields.Constant("build_factory", required=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    province = fields.String(required=True, validate=PROVINCE)


class PlaceCitizensSchema(StrictSchema):
    """``{"action": "place_citizens", "province": "namur", "count": 3}``"""

    action = fields.Constant("place_citizens", required=True)
    province = fields.String(required=True, validate=PROVINCE)
    count = fields.Integer(
        required=True, strict=True, validate=validate.Range(min=1, max=MAX_CITIZENS)
    )


class MoveCitizensSchema(StrictSchema):
    """``{"action": "move_citizens", "from": "namur", "paths": [["liege"], ["supply"]]}``"""

    action = fields.Constant("move_citizens", required=True)
    from_ = _from_field(PROVINCE)
    paths = fields.List(
        fields.List(fields.String(validate=PROVINCE_OR_SUPPLY), validate=validate.Length(min=1)),
        required=True,
        validate=validate.Length(min=1, max=MAX_CITIZENS),
    )


class StepSchema(StrictSchema):
    """``{"action": "step", "from": "namur", "to": "liege"}``: one citizen one province on."""

    action = fields.Constant("step", required=True)
    from_ = _from_field(PROVINCE)
    to = fields.String(required=True, validate=PROVINCE_OR_SUPPLY)


class EndMoveSchema(StrictSchema):
    """``{"action": "end_move"}``: end a move of citizens made step by step."""

    action = fields.Constant("end_move", required=True)


class ParliamentSchema(StrictSchema):
    """``{"action": "parliament", "from": "supply"}`` (or a province)."""

    action = fields.Constant("parliament", required=True)
    from_ = _from_field(PROVINCE_OR_SUPPLY)


class TakeCoinsSchema(StrictSchema):
    """``{"action": "take_coins"}``"""

    action = fields.Constant("take_coins", required=True)


class KingSchema(StrictSchema):
    """``{"action": "king", "path": ["namur", "liege"]}``"""

    action = fields.Constant("king", required=True)
    path = fields.List(
        fields.String(validate=PROVINCE),
        required=True,
        validate=validate.Length(min=1, max=len(PROVINCES)),
    )


class TurnOrderSchema(StrictSchema):
    """``{"action": "turn_order"}`` (3-4 players)."""

    action = fields.Constant("turn_order", required=True)


COPYABLE_SCHEMAS: dict[str, type[Schema]] = {
    "build_factory": BuildFactorySchema,
    "place_citizens": PlaceCitizensSchema,
    "move_citizens": MoveCitizensSchema,
    "step": StepSchema,
    "parliament": ParliamentSchema,
    "take_coins": TakeCoinsSchema,
    "king": KingSchema,
    "turn_order": TurnOrderSchema,
}


class CopiedAction(fields.Field):
    """A main action other than the Queen, validated by its own schema."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        """Load ``value`` with the schema of its ``action``."""
        action = value.get("action") if isinstance(value, dict) else None
        if not isinstance(action, str) or action not in COPYABLE_SCHEMAS:
            expected = ", ".join(COPYABLE_SCHEMAS)
            raise ValidationError(f"Must be a main action other than the Queen: {expected}.")
        return COPYABLE_SCHEMAS[action]().load(value)


class QueenSchema(StrictSchema):
    """``{"action": "queen", "copy": {"action": "place_citizens", ...}}`` (4 players)."""

    action = fields.Constant("queen", required=True)
    copy = CopiedAction(required=True)


class BringParliamentSchema(StrictSchema):
    """``{"action": "bring_parliament", "accept": true}``"""

    action = fields.Constant("bring_parliament", required=True)
    accept = StrictBoolean(required=True)


class DeactivateSchema(StrictSchema):
    """``{"action": "deactivate", "factory": 0}`` (index in the province) or ``null``."""

    action = fields.Constant("deactivate", required=True)
    factory = fields.Integer(
        required=True, allow_none=True, strict=True, validate=validate.Range(min=0)
    )


class VirtualStepSchema(StrictSchema):
    """``{"place": "liege"}`` or ``{"move": ["liege", "namur"]}``."""

    place = fields.String(validate=PROVINCE)
    move = fields.List(fields.String(validate=PROVINCE), validate=validate.Length(equal=2))

    @validates_schema
    def one_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        """A step either places or moves."""
        if len(data) != 1:
            raise ValidationError("A step has exactly one of 'place' or 'move'.")


class VirtualSchema(StrictSchema):
    """``{"action": "virtual", "steps": [{"place": "liege"}, {"move": ["liege", "namur"]}]}``"""

    action = fields.Constant("virtual", required=True)
    steps = fields.List(
        fields.Nested(VirtualStepSchema), required=True, validate=validate.Length(min=1)
    )


class SetPositionSchema(StrictSchema):
    """``{"action": "set_position", "position": 0}`` (0 = first in turn order)."""

    action = fields.Constant("set_position", required=True)
    position = fields.Integer(
        required=True, strict=True, validate=validate.Range(min=0, max=MAX_SEATS - 1)
    )


class FinishSchema(StrictSchema):
    """``{"action": "finish"}``: end the final repay window."""

    action = fields.Constant("finish", required=True)


MOVE_SCHEMAS: dict[str, type[Schema]] = {
    "loan": LoanSchema,
    "repay": RepaySchema,
    **COPYABLE_SCHEMAS,
    "queen": QueenSchema,
    "bring_parliament": BringParliamentSchema,
    "deactivate": DeactivateSchema,
    "end_move": EndMoveSchema,
    "virtual": VirtualSchema,
    "set_position": SetPositionSchema,
    "finish": FinishSchema,
}
