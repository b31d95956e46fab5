"""Move schemas for ``king-of-siam`` (contract section 4.2), one per action.

A turn is a card and its take: one ``play`` move with ``take``, or a
``play`` without ``take`` followed by a ``take`` move (the pending take of
the same seat). The schemas check the shape (which fields each card takes
and their types); the engine checks the rules (which provinces, the pool,
adjacency, whether a take is due...).
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from engines.king_of_siam.board import FACTIONS, MAPS
from engines.king_of_siam.cards import CARD_FIELDS, CARDS, FIELD_SETS, HAND
from engines.king_of_siam.rules import BRITISH
from schemas.base import StrictSchema

PROVINCE = validate.Regexp(r"^[a-z][a-z0-9-]{0,39}$", error="Not a province name.")
FACTION = validate.OneOf(FACTIONS)
PLAY_FIELDS = {"swap", "king", "place", "give", "get", "two", "one"}


def _province(value: Any) -> str:
    if not isinstance(value, str):
        raise ValidationError("Not a province name.")
    PROVINCE(value)
    return value


class PlaceField(fields.Field):
    """A faction card's list of at most two provinces, or Khon Thai's faction -> province map."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, list):
            if len(value) > 2:
                raise ValidationError("At most two provinces.")
            return [_province(province) for province in value]
        if isinstance(value, dict):
            unknown = set(value) - set(FACTIONS)
            if unknown:
                raise ValidationError("Keys must be factions: rama, lao, malay.")
            return {faction: _province(province) for faction, province in value.items()}
        raise ValidationError("A list of provinces or an object faction -> province.")


class FollowerSchema(StrictSchema):
    """``{"province": "kedah", "faction": "lao"}``"""

    province = fields.String(required=True, validate=PROVINCE)
    faction = fields.String(required=True, validate=FACTION)


class TwoSchema(StrictSchema):
    """``{"province": "korat", "factions": ["rama", "lao"]}`` (one faction: a 1-for-1 swap)"""

    province = fields.String(required=True, validate=PROVINCE)
    factions = fields.List(
        fields.String(validate=FACTION), required=True, validate=validate.Length(min=1, max=2)
    )


class PassSchema(StrictSchema):
    """``{"action": "pass"}``"""

    action = fields.Constant("pass", required=True)


class PlaySchema(StrictSchema):
    """``{"action": "play", "card": "rama", "place": ["korat"], "take": {...}}``

    Each card takes exactly its own fields (see the engine docstring). Without
    ``take`` the card is played alone and the take follows as its own move; a
    1 vs 1 with ``give`` alone or a 2 vs 1 with ``two`` alone is a first step
    (the other side follows as a ``swap`` move).
    """

    action = fields.Constant("play", required=True)
    card = fields.String(required=True, validate=validate.OneOf(CARDS))
    take = fields.Nested(FollowerSchema, allow_none=True)
    swap = fields.List(fields.String(validate=PROVINCE), validate=validate.Length(max=2))
    king = fields.String(allow_none=True, validate=PROVINCE)
    place = PlaceField()
    give = fields.Nested(FollowerSchema, allow_none=True)
    get_ = fields.Nested(FollowerSchema, allow_none=True, data_key="get", attribute="get")
    two = fields.Nested(TwoSchema, allow_none=True)
    one = fields.Nested(FollowerSchema, allow_none=True)

    @validates_schema
    def card_fields(self, data: dict[str, Any], **kwargs: Any) -> None:
        """Exactly the fields of the card played, with the right kind of ``place``."""
        card = data.get("card")
        if card not in CARD_FIELDS:
            return
        wanted = set(CARD_FIELDS[card])
        given = PLAY_FIELDS & set(data)
        errors = {}
        if given not in FIELD_SETS[card]:
            errors = {name: [f"Not a field of {card}."] for name in given - wanted}
            errors |= {name: [f"Missing: {card} needs it."] for name in wanted - given}
        if card == "maharacha" and len(data.get("swap") or []) == 1:
            errors["swap"] = ["Two provinces, or none."]
        place = data.get("place")
        if card == "khon_thai" and isinstance(place, list):
            errors["place"] = ["Khon Thai places an object faction -> province."]
        if card in FACTIONS and isinstance(place, dict):
            errors["place"] = [f"{card} places a list of provinces."]
        if errors:
            raise ValidationError(errors)


class TakeSchema(FollowerSchema):
    """``{"action": "take", "province": "kedah", "faction": "lao"}``: the take after a card."""

    action = fields.Constant("take", required=True)


class SwapSchema(FollowerSchema):
    """``{"action": "swap", "province": "kedah", "faction": "lao"}``: the other side of a
    1 vs 1 or 2 vs 1 played in steps."""

    action = fields.Constant("swap", required=True)


class PlaceSchema(FollowerSchema):
    """``{"action": "place", "faction": "lao", "province": "kedah"}``: the next faction of a
    Khon Thai played in steps."""

    action = fields.Constant("place", required=True)


MOVE_SCHEMAS = {
    "pass": PassSchema,
    "play": PlaySchema,
    "take": TakeSchema,
    "swap": SwapSchema,
    "place": PlaceSchema,
}


# -- the state (a seat's or the public view) and the map ---------------------------
CONTROL = validate.OneOf((*FACTIONS, BRITISH))


class FactionCountsSchema(StrictSchema):
    """Followers per faction: ``{"rama": 2, "lao": 0, "malay": 1}``."""

    rama = fields.Integer(required=True, validate=validate.Range(min=0))
    lao = fields.Integer(required=True, validate=validate.Range(min=0))
    malay = fields.Integer(required=True, validate=validate.Range(min=0))


class ProvinceStateSchema(StrictSchema):
    """One province: its followers, who controls it (null while its struggle is open) and
    whether its tile carries a King marker."""

    followers = fields.Nested(FactionCountsSchema, required=True)
    control = fields.String(required=True, allow_none=True, validate=CONTROL)
    king_marker = fields.Boolean(required=True)


class ControlSchema(StrictSchema):
    """A decided struggle: ``{"province": "korat", "control": "british"}``."""

    province = fields.String(required=True, validate=PROVINCE)
    control = fields.String(required=True, validate=CONTROL)


class PlayerStateSchema(StrictSchema):
    """A player as everyone sees them: aid card, team, followers, cards left, top card."""

    seat = fields.Integer(required=True, validate=validate.Range(min=0, max=3))
    aid_card = fields.Integer(required=True, validate=validate.Range(min=1, max=4))
    team = fields.Integer(
        required=True,
        allow_none=True,
        validate=validate.OneOf((0, 1)),
        metadata={"description": "seat % 2 with 4 players (partners), else null"},
    )
    followers = fields.Nested(FactionCountsSchema, required=True)
    cards_left = fields.Integer(required=True, validate=validate.Range(min=0, max=len(HAND)))
    top_card = fields.String(required=True, allow_none=True, validate=validate.OneOf(CARDS))


class PendingSchema(StrictSchema):
    """The decision the seat to move still owes in its turn (see the engine docstring)."""

    seat = fields.Integer(required=True, validate=validate.Range(min=0, max=3))
    kind = fields.String(required=True, validate=validate.OneOf(("take", "place", "swap")))
    card = fields.String(validate=validate.OneOf(("khon_thai", "one_vs_one", "two_vs_one")))
    place = fields.Dict(
        keys=fields.String(validate=FACTION), values=fields.String(validate=PROVINCE)
    )
    give = fields.Nested(FollowerSchema)
    two = fields.Nested(TwoSchema)


class CardPlayedSchema(PlaySchema):
    """The previous action card of the game with its fields, as a play without ``action``."""

    class Meta:
        exclude = ("action", "take")


class OptionsSchema(StrictSchema):
    """The game's options."""

    map = fields.String(required=True, validate=validate.OneOf(MAPS))


class StateSchema(StrictSchema):
    """The state as a seat (with its ``hand``) or a watcher (without) sees it."""

    map = fields.String(required=True, validate=validate.OneOf(MAPS))
    options = fields.Nested(OptionsSchema, required=True)
    provinces = fields.Dict(
        keys=fields.String(validate=PROVINCE),
        values=fields.Nested(ProvinceStateSchema),
        required=True,
    )
    struggle_order = fields.List(
        fields.String(validate=PROVINCE),
        required=True,
        metadata={"description": "the province tiles in struggle order (box 1 first)"},
    )
    contested = fields.String(
        required=True,
        allow_none=True,
        validate=PROVINCE,
        metadata={"description": "the province of the struggle now (null at the end)"},
    )
    pool = fields.Nested(FactionCountsSchema, required=True)
    control_history = fields.List(fields.Nested(ControlSchema), required=True)
    players = fields.List(fields.Nested(PlayerStateSchema), required=True)
    passes_in_a_row = fields.Integer(required=True, validate=validate.Range(min=0))
    pending = fields.Nested(PendingSchema, required=True, allow_none=True)
    last_card = fields.Nested(CardPlayedSchema, required=True, allow_none=True)
    card_recency = fields.List(
        fields.Integer(validate=validate.Range(min=0, max=3)),
        required=True,
        metadata={"description": "seats that played an action card, least recent first"},
    )
    auto_passed = fields.List(
        fields.Integer(validate=validate.Range(min=0, max=3)),
        required=True,
        metadata={"description": "seats passed automatically after the last move, in order"},
    )
    hand = fields.List(
        fields.String(validate=validate.OneOf(CARDS)),
        metadata={"description": "the viewing seat's action cards (only in a seat's view)"},
    )


class ProvinceInfoSchema(StrictSchema):
    """A province of the map: its key, its name, whose home it is and its neighbours."""

    key = fields.String(required=True, validate=PROVINCE)
    name = fields.String(required=True)
    home_of = fields.String(required=True, allow_none=True, validate=FACTION)
    neighbours = fields.List(fields.String(validate=PROVINCE), required=True)


class FactionInfoSchema(StrictSchema):
    """A faction: ``{"key": "rama", "name": "Rama", "colour": "yellow"}``."""

    key = fields.String(required=True, validate=FACTION)
    name = fields.String(required=True)
    colour = fields.String(required=True, validate=validate.OneOf(("yellow", "red", "blue")))


class CardInfoSchema(StrictSchema):
    """An action card of each player's set: its key, its printed name, its copies."""

    key = fields.String(required=True, validate=validate.OneOf(CARDS))
    name = fields.String(required=True)
    copies = fields.Integer(required=True, validate=validate.Range(min=1))


class HomesSchema(StrictSchema):
    """The home province of each faction."""

    rama = fields.String(required=True, validate=PROVINCE)
    lao = fields.String(required=True, validate=PROVINCE)
    malay = fields.String(required=True, validate=PROVINCE)


class BoardSchema(StrictSchema):
    """``GET /api/v1/engines/king-of-siam``: the map, the factions and the cards."""

    map = fields.String(required=True, validate=validate.OneOf(MAPS))
    provinces = fields.List(
        fields.Nested(ProvinceInfoSchema),
        required=True,
        metadata={"description": "in map order (the canonical order of moves)"},
    )
    borders = fields.List(
        fields.List(fields.String(validate=PROVINCE), validate=validate.Length(equal=2)),
        required=True,
    )
    homes = fields.Nested(HomesSchema, required=True)
    colony_at = fields.Integer(
        required=True,
        metadata={"description": "British provinces that end the game as a colony"},
    )
    factions = fields.List(fields.Nested(FactionInfoSchema), required=True)
    cards = fields.List(fields.Nested(CardInfoSchema), required=True)
    followers = fields.Dict(
        keys=fields.String(validate=validate.OneOf(("2", "3", "4"))),
        values=fields.Integer(),
        required=True,
        metadata={"description": "followers of each faction by number of players"},
    )
    aid_cards = fields.Dict(
        keys=fields.String(validate=validate.OneOf(("1", "2", "3"))),
        values=fields.List(fields.String(validate=FACTION)),
        required=True,
        metadata={
            "description": "the followers on playing aids 1-3; aid 4 shows its left neighbour's"
        },
    )
