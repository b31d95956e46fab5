"""Shared pieces of the request and response schemas."""

from __future__ import annotations

from marshmallow import RAISE, Schema


class StrictSchema(Schema):
    """A schema that refuses unknown fields (``422`` with a field-level message)."""

    class Meta:
        unknown = RAISE
