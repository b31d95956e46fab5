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

from engines.foreign_king.board import (
    BASIC_ACTIONS,
    KINDS,
    PROVINCES,
    QUEEN,
    ROUND_LIMIT,
    SUPPLY,
    TURN_ORDER,
)
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


DECISION_SCHEMAS: dict[str, type[Schema]] = {
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


class Decision(fields.Field):
    """One decision of a whole turn (any move but a turn), validated by its own schema."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        """Load ``value`` with the schema of its ``action``."""
        action = value.get("action") if isinstance(value, dict) else None
        if not isinstance(action, str) or action not in DECISION_SCHEMAS:
            expected = ", ".join(DECISION_SCHEMAS)
            raise ValidationError(f"Must be a decision of a turn: {expected}.")
        return DECISION_SCHEMAS[action]().load(value)


class TurnSchema(StrictSchema):
    """``{"action": "turn", "moves": [{"action": "loan"}, {"action": "take_coins"}]}``: the
    decisions of one turn in one move, played in order."""

    action = fields.Constant("turn", required=True)
    moves = fields.List(Decision(), required=True, validate=validate.Length(min=2))


MOVE_SCHEMAS: dict[str, type[Schema]] = {**DECISION_SCHEMAS, "turn": TurnSchema}


# -- the public state (every seat sees the same) ------------------------------------------
OWNER = validate.Regexp(r"^([0-3]|virtual)$", error="A seat 0-3 or 'virtual'.")
SEAT_KEY = validate.Regexp(r"^[0-3]$", error="A seat 0-3.")
ACTION = validate.OneOf((*BASIC_ACTIONS, TURN_ORDER, QUEEN))
DECISION = validate.OneOf(
    ("move_citizens", "bring_parliament", "deactivate", "virtual", "set_position", "finish")
)


def _count() -> fields.Integer:
    """A required whole number of at least 0."""
    return fields.Integer(required=True, strict=True, validate=validate.Range(min=0))


class FactorySchema(StrictSchema):
    """A built factory: ``{"kind": "textile", "active": true}`` (inactive: scored, on its side)."""

    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    active = fields.Boolean(required=True)


class ProvinceSchema(StrictSchema):
    """What stands in a province."""

    citizens = fields.Dict(
        keys=fields.String(validate=OWNER),
        values=fields.Integer(validate=validate.Range(min=1)),
        required=True,
        metadata={"description": 'Citizens by owner (seat or "virtual"), e.g. {"0": 2}.'},
    )
    factories = fields.List(
        fields.Nested(FactorySchema),
        required=True,
        metadata={"description": "In building order; `deactivate` names one by its index."},
    )


class KingPositionSchema(StrictSchema):
    """Where the King stands and his marker on the track."""

    at = fields.String(
        required=True,
        allow_none=True,
        validate=PROVINCE,
        metadata={"description": "His province; null while he is on his portrait."},
    )
    track = fields.Integer(
        required=True,
        validate=validate.Range(min=0, max=30),
        metadata={"description": "His marker: from 30 down to 0."},
    )


class PlayerSchema(StrictSchema):
    """A player's purse, points, citizens in supply, royal orders and loans."""

    seat = fields.Integer(required=True, validate=validate.Range(min=0, max=MAX_SEATS - 1))
    coins = _count()
    vp = fields.Integer(
        required=True,
        metadata={"description": "Victory points (loans may make them negative at the end)."},
    )
    supply = _count()
    orders = fields.Integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={"description": "Royal orders held, face up or face down."},
    )
    loans = fields.Integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={"description": "How many royal orders are face down for a loan."},
    )


class VirtualPlayerSchema(StrictSchema):
    """The virtual third player of a 2-player game."""

    supply = _count()
    vp = _count()


class StockSchema(StrictSchema):
    """What is left beside the board."""

    orders = _count()
    textile = _count()
    metal = _count()


class PendingSchema(StrictSchema):
    """A decision the game waits for that is not a regular turn, and its details."""

    seat = fields.Integer(required=True, validate=validate.Range(min=0, max=MAX_SEATS - 1))
    kind = fields.String(required=True, validate=DECISION)
    province = fields.String(
        validate=PROVINCE,
        metadata={"description": "The scored province (bring_parliament, deactivate)."},
    )
    queue = fields.List(
        fields.Integer(validate=validate.Range(min=0, max=MAX_SEATS - 1)),
        metadata={"description": "The seats offered to bring parliamentarians after this one."},
    )
    steps = fields.Integer(
        validate=validate.Range(min=1),
        metadata={"description": "Virtual steps still owed (virtual)."},
    )
    from_ = fields.String(
        validate=PROVINCE,
        data_key="from",
        attribute="from",
        metadata={"description": "Where the moved citizens come from (move_citizens)."},
    )
    paths = fields.List(
        fields.List(fields.String(validate=PROVINCE_OR_SUPPLY)),
        metadata={"description": "Each moved citizen's path so far, the last moved last."},
    )


class FinalSchema(StrictSchema):
    """One owner's end-of-game points by category (a player's or the virtual player's)."""

    loans = fields.Integer()
    provinces = fields.Integer(required=True)
    orders = fields.Integer()
    parliament = fields.Integer()
    coins = fields.Integer()
    majorities = fields.Integer(metadata={"description": "Virtual player: 1 per province held."})
    industry = fields.Integer(
        metadata={"description": "Virtual player: 3 per industrial province held."}
    )


class StateSchema(StrictSchema):
    """The public view of a Foreign King game (the game hides nothing from any seat)."""

    provinces = fields.Dict(
        keys=fields.String(validate=PROVINCE),
        values=fields.Nested(ProvinceSchema),
        required=True,
        metadata={"description": "All nine provinces."},
    )
    king = fields.Nested(KingPositionSchema, required=True)
    parliament = fields.Dict(
        keys=fields.String(validate=SEAT_KEY),
        values=fields.Integer(validate=validate.Range(min=1)),
        required=True,
        metadata={"description": "Parliamentarians by seat."},
    )
    actions = fields.Dict(
        keys=fields.String(validate=ACTION),
        values=fields.Integer(allow_none=True, validate=validate.Range(min=0, max=MAX_SEATS - 1)),
        required=True,
        metadata={"description": "The action table: the seat whose figure stands on each action."},
    )
    players = fields.List(fields.Nested(PlayerSchema), required=True)
    virtual = fields.Nested(
        VirtualPlayerSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The virtual player (2 players only; else null)."},
    )
    stock = fields.Nested(StockSchema, required=True)
    turn_order = fields.List(
        fields.Integer(validate=validate.Range(min=0, max=MAX_SEATS - 1)), required=True
    )
    round = fields.Integer(
        required=True,
        validate=validate.Range(min=1, max=ROUND_LIMIT),
        metadata={
            "description": f"The round; the game ends after round {ROUND_LIMIT} at the latest."
        },
    )
    pending = fields.Nested(PendingSchema, required=True, allow_none=True)
    final = fields.Dict(
        keys=fields.String(validate=OWNER),
        values=fields.Nested(FinalSchema),
        required=True,
        allow_none=True,
        metadata={
            "description": "The end-of-game points by owner and category; null while running."
        },
    )
    current = fields.Integer(
        required=True,
        allow_none=True,
        validate=validate.Range(min=0, max=MAX_SEATS - 1),
        metadata={
            "description": "The seat whose turn it is; null between rounds and after the game."
        },
    )


# -- the static board ------------------------------------------------------------------------
class BoardProvinceSchema(StrictSchema):
    """A province of the map: its id, printed name, neighbours and shape in map units."""

    id = fields.String(required=True, validate=PROVINCE)
    name = fields.String(required=True, metadata={"description": 'As printed: "Liège".'})
    neighbours = fields.List(fields.String(validate=PROVINCE), required=True)
    outline = fields.List(
        fields.List(fields.Integer(), validate=validate.Length(equal=2)),
        required=True,
        metadata={"description": "The closed outline as [x, y] points (x east, y south)."},
    )
    label = fields.List(
        fields.Integer(),
        required=True,
        validate=validate.Length(equal=2),
        metadata={"description": "Where the name is written; the pieces stand below it."},
    )


class MapSizeSchema(StrictSchema):
    """The size of the map in its units."""

    width = fields.Integer(required=True)
    height = fields.Integer(required=True)


class FactoryKindSchema(StrictSchema):
    """A kind of factory and what it scores when the King comes."""

    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    name = fields.String(required=True)
    points = fields.Integer(required=True)


class TableActionSchema(StrictSchema):
    """A space of the action table."""

    id = fields.String(required=True, validate=ACTION)
    name = fields.String(
        required=True, metadata={"description": 'As the table names it: "Build a factory".'}
    )


class KingTrackSchema(StrictSchema):
    """The King's marker moves from ``start`` down to ``end``."""

    start = fields.Integer(required=True)
    end = fields.Integer(required=True)


class TurnOrderTrackSchema(StrictSchema):
    """The player counts that play with the turn-order track."""

    players = fields.List(fields.Integer(), required=True)


class TracksSchema(StrictSchema):
    """The King's track and the turn-order track."""

    king = fields.Nested(KingTrackSchema, required=True)
    turn_order = fields.Nested(TurnOrderTrackSchema, required=True)


class PiecesSchema(StrictSchema):
    """How many pieces the game has."""

    citizens_per_player = fields.Integer(required=True)
    factories_per_kind = fields.Integer(required=True)
    royal_orders = fields.Integer(required=True)


class BoardSchema(StrictSchema):
    """The map of Belgium, the factories, the action table per player count and the tracks."""

    provinces = fields.List(fields.Nested(BoardProvinceSchema), required=True)
    borders = fields.List(
        fields.List(fields.String(validate=PROVINCE), validate=validate.Length(equal=2)),
        required=True,
    )
    map = fields.Nested(MapSizeSchema, required=True)
    factories = fields.List(fields.Nested(FactoryKindSchema), required=True)
    actions = fields.Dict(
        keys=fields.String(validate=validate.OneOf(["2", "3", "4"])),
        values=fields.List(fields.Nested(TableActionSchema)),
        required=True,
        metadata={"description": "The action table by player count."},
    )
    tracks = fields.Nested(TracksSchema, required=True)
    pieces = fields.Nested(PiecesSchema, required=True)
    round_limit = fields.Integer(
        required=True,
        validate=validate.Range(min=1),
        metadata={"description": "The game ends with the final scoring after this round."},
    )
