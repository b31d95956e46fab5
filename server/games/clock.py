"""Moments as Turnpost stores them: ISO 8601 UTC strings with microseconds and a ``Z``.

Stored moments compare in time order as plain strings.

    >>> format_time(parse_time("2025-03-01T12:00:00.000000Z"))
    '2025-03-01T12:00:00.000000Z'
"""

from __future__ import annotations

from datetime import UTC, datetime

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def utcnow() -> str:
    """Now as an ISO 8601 UTC string with a ``Z``."""
    return datetime.now(UTC).strftime(TIME_FORMAT)


def parse_time(text: str) -> datetime:
    """An ISO 8601 UTC string (as written by :func:`utcnow`) as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def format_time(moment: datetime) -> str:
    """An aware datetime as an ISO 8601 UTC string with a ``Z``."""
    return moment.astimezone(UTC).strftime(TIME_FORMAT)
