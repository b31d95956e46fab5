"""Shared pieces of the request and response schemas."""

from __future__ import annotations

from functools import cache
from zoneinfo import available_timezones

from marshmallow import RAISE, Schema


class StrictSchema(Schema):
    """A schema that refuses unknown fields (``422`` with a field-level message)."""

    class Meta:
        unknown = RAISE


@cache
def time_zones() -> tuple[str, ...]:
    """The IANA time zones a player may pick (``UTC`` first, then by name)."""
    return ("UTC", *sorted(zone for zone in available_timezones() if "/" in zone))
