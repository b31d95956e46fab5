"""Shared pieces of the request and response schemas."""

from __future__ import annotations

from functools import cache
from typing import Any
from zoneinfo import available_timezones

from marshmallow import RAISE, Schema

from schemas.dumping import plan_of


class StrictSchema(Schema):
    """A schema that refuses unknown fields (``422`` with a field-level message)."""

    class Meta:
        unknown = RAISE

    def dump(self, obj: Any, *, many: bool | None = None) -> Any:
        """What marshmallow's ``dump`` answers, through the schema's plan (made once,
        :mod:`schemas.dumping`)."""
        return plan_of(self).dump(obj, self.many if many is None else bool(many))


@cache
def time_zones() -> tuple[str, ...]:
    """The IANA time zones a player may pick (``UTC`` first, then by name)."""
    return ("UTC", *sorted(zone for zone in available_timezones() if "/" in zone))
