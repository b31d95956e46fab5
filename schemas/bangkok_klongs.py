"""Schemas for ``bangkok-klongs`` (contract section 4.4): moves, the state view, the board.

The move schemas (one per action) check the shape; the engine checks the
rules (which fields are free, which boats are yours, whose turn it is).
:class:`StateSchema` describes a view of the game (``GET /games/{id}``'s
``state``) and :class:`BoardSchema` the static board of
:meth:`~engines.bangkok_klongs.BangkokKlongsEngine.board_data`.
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from engines.bangkok_klongs.board import BIG, BOARDS, GOODS, SMALL, SPECIALS
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


# -- the state as a seat or the public sees it ----------------------------------------

SEAT = validate.Range(min=0, max=3)
COUNT = validate.Range(min=0)
MARKET_DAY = validate.OneOf([SMALL, BIG])
SUB_MARKET = validate.Regexp(r"^\d{1,2}-\d{1,2}$", error="Not a sub-market like 1-2.")


class TileSchema(StrictSchema):
    """What a boat shows: its good or special kind, baskets, a printed merchant, Luk Phat."""

    good = fields.String(required=True, allow_none=True, validate=validate.OneOf(GOODS))
    baskets = fields.Integer(required=True, validate=validate.Range(min=0, max=3))
    neutral = fields.Boolean(required=True, metadata={"description": "a printed merchant"})
    luk_phat = fields.Boolean(required=True, metadata={"description": "moves the Luk Phat marker"})
    special = fields.String(required=True, allow_none=True, validate=validate.OneOf(SPECIALS))


class CellSchema(StrictSchema):
    """A boat on a water field and the seat whose merchant stands on it (null: none)."""

    tile = fields.String(required=True, validate=TILE)
    merchant = fields.Integer(required=True, allow_none=True, validate=SEAT)


class OptionsSchema(StrictSchema):
    """The game's options."""

    tactical = fields.Boolean(required=True)
    board = fields.String(required=True, validate=validate.OneOf(list(BOARDS)))


class MarketSchema(StrictSchema):
    """A market day in progress: ``step`` (small: the decision of its two rounds) or
    ``declined`` (big: seats that declined since the last scoring)."""

    kind = fields.String(required=True, validate=MARKET_DAY)
    trigger = fields.Integer(required=True, validate=SEAT)
    seat = fields.Integer(required=True, validate=SEAT, metadata={"description": "asked now"})
    step = fields.Integer(validate=validate.Range(min=0, max=7))
    declined = fields.List(fields.Integer(validate=SEAT))

    @validates_schema
    def check_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        """A small market day counts steps, a big one its declines."""
        expected = "step" if data["kind"] == SMALL else "declined"
        if expected not in data or ({"step", "declined"} - {expected}) & set(data):
            raise ValidationError(f"A {data['kind']} market day has {expected!r} only.")


class PendingSchema(StrictSchema):
    """The rest of a turn split into decisions: place a boat after a move card (``place``),
    or move a boat and draw once the boat lies (``finish``)."""

    seat = fields.Integer(required=True, validate=SEAT)
    kind = fields.String(required=True, validate=validate.OneOf(["place", "finish"]))
    relocate = fields.Boolean(metadata={"description": "finish: a move card may still be played"})
    draw = fields.Boolean(metadata={"description": "finish: the hand is refilled"})


class PlayerSchema(StrictSchema):
    """One seat's public entry."""

    seat = fields.Integer(required=True, validate=SEAT)
    score = fields.Integer(required=True, validate=COUNT)
    merchants = fields.Integer(
        required=True, validate=COUNT, metadata={"description": "merchants not on the board"}
    )
    move_cards = fields.Integer(required=True, validate=validate.Range(min=0, max=2))
    inventory = fields.List(fields.String(validate=TILE), required=True)
    hand_size = fields.Integer(required=True, validate=validate.Range(min=0, max=4))


class PilesSchema(StrictSchema):
    """Tactical variant: the boats left in each pile."""

    merchant = fields.Integer(required=True, validate=COUNT)
    plain = fields.Integer(required=True, validate=COUNT)


class StateSchema(StrictSchema):
    """A view of a Bangkok Klongs game (``hand`` only in a seat's own view)."""

    options = fields.Nested(OptionsSchema, required=True)
    board = fields.Dict(
        keys=fields.String(validate=FIELD), values=fields.Nested(CellSchema), required=True
    )
    tiles = fields.Dict(
        keys=fields.String(validate=TILE),
        values=fields.Nested(TileSchema),
        required=True,
        metadata={"description": "every tile the viewer can see"},
    )
    luk_phat = fields.Integer(
        required=True, validate=COUNT, metadata={"description": "spaces moved (0 = start)"}
    )
    track = fields.List(fields.Integer(validate=COUNT), required=True)
    market = fields.Nested(MarketSchema, required=True, allow_none=True)
    pending = fields.Nested(PendingSchema, required=True, allow_none=True)
    players = fields.List(fields.Nested(PlayerSchema), required=True)
    draw_pile = fields.Integer(required=True, validate=COUNT, metadata={"description": "boats"})
    draw_piles = fields.Nested(PilesSchema)
    box = fields.List(fields.String(validate=TILE), required=True)
    first_round = fields.List(fields.Integer(validate=SEAT), required=True)
    hand = fields.List(fields.String(validate=TILE), validate=validate.Length(max=4))


# -- the static board ------------------------------------------------------------------


class FieldSchema(StrictSchema):
    """A water field: its name, row (from the top), column (from the left), sub-market."""

    name = fields.String(required=True, validate=FIELD)
    row = fields.Integer(required=True, validate=COUNT)
    column = fields.Integer(required=True, validate=COUNT)
    sub_market = fields.String(required=True, validate=SUB_MARKET)


class TrackSpaceSchema(StrictSchema):
    """A Luk Phat space after the start: its points and the market day it holds."""

    space = fields.Integer(required=True, validate=validate.Range(min=1))
    points = fields.Integer(required=True, validate=COUNT)
    market_day = fields.String(required=True, allow_none=True, validate=MARKET_DAY)


PLAYER_COUNT = fields.String(validate=validate.OneOf(["2", "3", "4"]))


class BoardSchema(StrictSchema):
    """The board of ``GET /engines/bangkok-klongs``: fields in sub-markets, landing places
    with the four fields each touches, start fields by player count, the Luk Phat track,
    the tiles, and the supplies."""

    name = fields.String(required=True, validate=validate.OneOf(list(BOARDS)))
    rows = fields.Integer(required=True, validate=COUNT)
    columns = fields.Integer(required=True, validate=COUNT)
    fields_ = fields.List(
        fields.Nested(FieldSchema), required=True, data_key="fields", attribute="fields"
    )
    sub_markets = fields.Dict(
        keys=fields.String(validate=SUB_MARKET),
        values=fields.List(fields.String(validate=FIELD)),
        required=True,
    )
    sub_market_capacity = fields.Integer(required=True, validate=COUNT)
    landing_places = fields.Dict(
        keys=fields.String(validate=LANDING),
        values=fields.List(fields.String(validate=FIELD), validate=validate.Length(equal=4)),
        required=True,
    )
    start_fields = fields.Dict(
        keys=PLAYER_COUNT, values=fields.List(fields.String(validate=FIELD)), required=True
    )
    luk_phat_track = fields.List(fields.Nested(TrackSpaceSchema), required=True)
    tiles = fields.Dict(
        keys=fields.String(validate=TILE), values=fields.Nested(TileSchema), required=True
    )
    merchants = fields.Dict(
        keys=PLAYER_COUNT,
        values=fields.Integer(validate=COUNT),
        required=True,
        metadata={"description": "merchants per player by player count"},
    )
    move_cards = fields.Integer(required=True, validate=COUNT)
    hand_size = fields.Integer(required=True, validate=COUNT)
