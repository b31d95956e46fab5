"""Clocks at creation (``"clock"`` of ``POST /api/v1/games``) and in the game object.

>>> ClockSchema().load({"kind": "bank", "bank_hours": 240, "increment_hours": 36,
...     "max_bank_hours": 480, "pause": {"weekdays": ["sat", "sun"]}})["pause"]["weekdays"]
['sat', 'sun']
>>> sorted(ClockSchema().validate({"kind": "bank", "hours": 72}))
['bank_hours', 'hours']
"""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from schemas.base import StrictSchema, time_zones
from server.games.time_control import WEEKDAYS

#: The longest a turn or a bank may be: a year.
MAX_HOURS = 24 * 365
CLOCK_TIME = validate.Regexp(r"^([01]\d|2[0-3]):[0-5]\d$", error="A time of day as HH:MM.")

NightlySchema = StrictSchema.from_dict(
    {
        "from": fields.String(required=True, validate=CLOCK_TIME),
        "to": fields.String(required=True, validate=CLOCK_TIME),
    },
    name="NightlySchema",
)


class PauseSchema(StrictSchema):
    """Quiet times in which no clock runs, in the seat's time zone (its player's, else
    ``time_zone``)."""

    weekdays = fields.List(
        fields.String(validate=validate.OneOf(WEEKDAYS)),
        load_default=list,
        validate=validate.Length(max=7),
        metadata={"description": "Whole days without a clock (at most 5), e.g. sat, sun."},
    )
    nightly = fields.Nested(
        NightlySchema,
        load_default=None,
        allow_none=True,
        metadata={
            "description": "Quiet hours every night, up to 14 (`from` later than `to`: overnight)."
        },
    )
    time_zone = fields.String(
        load_default="UTC",
        validate=validate.OneOf(time_zones()),
        metadata={"description": "The zone of a seat whose player has none (IANA name)."},
    )


class ClockSchema(StrictSchema):
    """A game's time control: ``per_move`` (``hours`` every turn) or ``bank`` (a bank of
    ``bank_hours`` that each finished turn refills by ``increment_hours``, up to
    ``max_bank_hours``)."""

    kind = fields.String(required=True, validate=validate.OneOf(["per_move", "bank"]))
    hours = fields.Float(validate=validate.Range(min=1, max=MAX_HOURS))
    bank_hours = fields.Float(validate=validate.Range(min=1, max=MAX_HOURS))
    increment_hours = fields.Float(validate=validate.Range(min=0, max=MAX_HOURS))
    max_bank_hours = fields.Float(allow_none=True, validate=validate.Range(min=1, max=MAX_HOURS))
    pause = fields.Nested(PauseSchema, load_default=None, allow_none=True)
    vacation_days = fields.Integer(
        load_default=0,
        strict=True,
        validate=validate.Range(min=0, max=60),
        metadata={
            "description": "Days per seat and year spent automatically (a day at a time)"
            " before its time runs out; a signed-in player's seat also spends them from the"
            " player's own days (TURNPOST_AUTO_VACATION_DAYS a year, shared by all their"
            " games)."
        },
    )

    @validates_schema
    def fields_of_its_kind(self, data: dict[str, Any], **_: Any) -> None:
        """``hours`` for a per-move clock, ``bank_hours`` (and its refills) for a bank."""
        own = {"per_move": {"hours"}, "bank": {"bank_hours", "increment_hours", "max_bank_hours"}}
        required = {"per_move": "hours", "bank": "bank_hours"}[data["kind"]]
        errors = {
            name: [f"Not a setting of a {data['kind']} clock."]
            for name in set().union(*own.values()) - own[data["kind"]]
            if name in data
        }
        if required not in data:
            errors[required] = [f"A {data['kind']} clock needs {required}."]
        if errors:
            raise ValidationError(errors)


class SeatTimeSchema(StrictSchema):
    """A seat's time in the game object."""

    seat = fields.Integer(required=True)
    remaining_seconds = fields.Integer(
        required=True,
        metadata={"description": "Its time left when the answer was made (whole seconds)."},
    )
    running = fields.Boolean(
        required=True, metadata={"description": "Its clock runs now (not quiet time)."}
    )
    runs_out_at = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "format": "date-time",
            "description": "When its time runs out if it does"
            " not move (quiet times counted); null while it does not move.",
        },
    )


class ClockViewSchema(StrictSchema):
    """The ``clock`` of the game object: the time control and every seat's time."""

    kind = fields.String(required=True)
    hours = fields.Float()
    bank_hours = fields.Float()
    increment_hours = fields.Float()
    max_bank_hours = fields.Float(allow_none=True)
    pause = fields.Dict(allow_none=True)
    vacation_days = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatTimeSchema), required=True)
    vacation_days_left = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "In a seat's own view only (null otherwise): the automatic vacation"
            " days it may still spend this year, in this game and, for a signed-in player,"
            " out of the player's days shared by all their games."
        },
    )
