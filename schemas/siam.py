"""Schemas of ``siam`` (contract section 4.1): moves, the public state and the board data.

The move schemas (one per action) check what clients send; :class:`StateSchema`
describes the public view (``state`` of a game object, the same for every
seat) and :class:`BoardSchema` the static board of ``GET /api/v1/engines/siam``.
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from schemas.base import StrictSchema

SQUARE = validate.Regexp(r"^[a-e][1-5]$", error="Not a square a1..e5.")
FACING = validate.OneOf(["N", "E", "S", "W"])
ANIMAL = validate.OneOf(["elephant", "rhino"])
PIECE = validate.OneOf(["rock", "elephant", "rhino"])
ANIMALS_PER_KIND = validate.Range(min=0, max=5)
POSITION_KEY = validate.Regexp(r"^[.#NESWnesw]{25}[01]$", error="Not a position key.")


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


# -- the public state -------------------------------------------------------------
class PieceSchema(StrictSchema):
    """A piece on a square: ``{"kind": "rock"}`` or ``{"kind": "elephant", "facing": "N"}``."""

    kind = fields.String(required=True, validate=PIECE, metadata={"example": "elephant"})
    facing = fields.String(
        validate=FACING, metadata={"description": "An animal's facing (rocks have none)."}
    )

    @validates_schema
    def _facing_for_animals_only(self, data: dict[str, Any], **kwargs: Any) -> None:
        """An animal has a facing, a rock has none."""
        if (data.get("kind") == "rock") == ("facing" in data):
            raise ValidationError("An animal has a facing N, E, S or W; a rock has none.")


class PerKindSchema(StrictSchema):
    """A count per side: ``{"elephant": 4, "rhino": 5}``."""

    elephant = fields.Integer(required=True, validate=ANIMALS_PER_KIND)
    rhino = fields.Integer(required=True, validate=ANIMALS_PER_KIND)


class OptionsSchema(StrictSchema):
    """The game's options: the cross rule and variant B (one voluntary exit per side)."""

    cross_rule = fields.Boolean(required=True)
    exit_once = fields.Boolean(required=True)


class PushedOffSchema(StrictSchema):
    """The piece a push sent off the board, and the square it left from."""

    kind = fields.String(required=True, validate=PIECE)
    from_ = fields.String(required=True, validate=SQUARE, data_key="from", attribute="from")


class LastPushSchema(StrictSchema):
    """How the last move pushed: its direction, where the pushed pieces now stand, what fell off."""

    direction = fields.String(required=True, validate=FACING)
    squares = fields.List(
        fields.String(validate=SQUARE),
        required=True,
        metadata={"description": "The pushed pieces' squares now, nearest the pusher first."},
    )
    off = fields.Nested(PushedOffSchema, required=True, allow_none=True)


class StateSchema(StrictSchema):
    """The public view of a Siam game (every seat sees the same)."""

    board = fields.Dict(
        keys=fields.String(validate=SQUARE),
        values=fields.Nested(PieceSchema),
        required=True,
        metadata={"description": 'Occupied squares only, e.g. {"c3": {"kind": "rock"}}.'},
    )
    reserve = fields.Nested(
        PerKindSchema, required=True, metadata={"description": "Animals beside the board."}
    )
    ply = fields.Integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={"description": "Moves made so far; the elephants move at even plies."},
    )
    options = fields.Nested(OptionsSchema, required=True)
    exits = fields.Nested(
        PerKindSchema,
        required=True,
        metadata={"description": "Animals each side took off the board by choice (variant B)."},
    )
    last_push = fields.Nested(
        LastPushSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The last move's push; null when it pushed nothing."},
    )
    positions = fields.Dict(
        keys=fields.String(validate=POSITION_KEY),
        values=fields.Integer(validate=validate.Range(min=1, max=3)),
        required=True,
        metadata={
            "description": "How often each position came up since the last entry, exit or"
            " push (the third time draws the game), by its key: a1 to e5 rank by rank"
            " (`.` empty, `#` a rock, `NESW` an elephant facing that way, `nesw` a rhino),"
            " then the seat to move.",
            "example": {"N..........###..........s1": 2},
        },
    )


# -- the static board ---------------------------------------------------------------
class DirectionSchema(StrictSchema):
    """A direction: ``{"id": "N", "name": "north", "file_step": 0, "rank_step": 1}``."""

    id = fields.String(required=True, validate=FACING)
    name = fields.String(required=True, validate=validate.OneOf(["north", "east", "south", "west"]))
    file_step = fields.Integer(required=True, validate=validate.Range(min=-1, max=1))
    rank_step = fields.Integer(required=True, validate=validate.Range(min=-1, max=1))


class BoardSchema(StrictSchema):
    """The Siam board: 5x5 squares, the outer ring, the cross squares, the start and counts."""

    files = fields.List(fields.String(validate=validate.OneOf(list("abcde"))), required=True)
    ranks = fields.List(fields.String(validate=validate.OneOf(list("12345"))), required=True)
    squares = fields.List(fields.String(validate=SQUARE), required=True)
    outer_squares = fields.List(
        fields.String(validate=SQUARE),
        required=True,
        metadata={"description": "Where animals enter and may be taken off the board."},
    )
    cross_squares = fields.List(
        fields.String(validate=SQUARE),
        required=True,
        metadata={"description": "Closed to entering and moving animals during the first plies."},
    )
    cross_plies = fields.Integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={"description": "How many plies the cross squares stay closed (0: never)."},
    )
    directions = fields.List(fields.Nested(DirectionSchema), required=True)
    start_rocks = fields.List(fields.String(validate=SQUARE), required=True)
    rocks = fields.Integer(required=True, validate=validate.Range(min=1))
    kinds = fields.List(
        fields.String(validate=ANIMAL),
        required=True,
        metadata={"description": "The animals of each seat, by seat: elephants move first."},
    )
    animals_per_kind = fields.Integer(required=True, validate=validate.Range(min=1))
    exits_per_side = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "Voluntary exits allowed per side; null: no limit."},
    )
    ply_limit = fields.Integer(
        required=True,
        validate=validate.Range(min=1),
        metadata={"description": "A game still running after this many plies is drawn."},
    )
    repetitions = fields.Integer(
        required=True,
        validate=validate.Range(min=2),
        metadata={
            "description": "The same position coming up this often (since the last entry,"
            " exit or push) draws the game."
        },
    )
