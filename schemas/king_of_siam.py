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

from engines.king_of_siam.board import FACTIONS
from engines.king_of_siam.cards import CARD_FIELDS, CARDS, FIELD_SETS
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
