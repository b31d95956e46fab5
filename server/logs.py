"""One structured log line per request and per mail sent (or failed), on standard error.

The lines are text (``key=value``), or JSON with ``TURNPOST_LOG_FORMAT=json``.

A line holds only named fields, never a request's path or query string (a
seat link's path holds its token: the route's rule is logged instead, as
``/games/<game_id>/seat/<token>``), a header, or a mail address (a mail is
named by its outbox id, kind, game and seat; addresses in a failure's
reason are masked)::

    turnpost.request method=POST route=/games/<game_id>/moves status=201 ms=8.1 client=::1
    {"time": "...", "event": "request", "method": "POST", "route": "...", "status": 201, ...}

    >>> masked("550 5.1.1 <bob@example.org>: Recipient address rejected")
    '550 5.1.1 <address>: Recipient address rejected'
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from datetime import UTC, datetime
from typing import Any

#: The loggers of the structured lines (``turnpost.request``, ``turnpost.mail``).
NAMESPACE = "turnpost"
REQUEST_LOG = logging.getLogger(f"{NAMESPACE}.request")
MAIL_LOG = logging.getLogger(f"{NAMESPACE}.mail")
#: What looks like a mail address, in text that may hold one (an SMTP server's answer).
ADDRESS = re.compile(r"[^\s<>\"'(),;:]+@[^\s<>\"'(),;:]+")


def masked(text: str) -> str:
    """``text`` with every mail address in it replaced by the word ``address``."""
    return ADDRESS.sub("address", text)


class StandardError(logging.StreamHandler):
    """A handler writing to the current ``sys.stderr`` (which a daemon or a test may swap)."""

    @property
    def stream(self) -> Any:  # type: ignore[override]
        """``sys.stderr`` now."""
        return sys.stderr

    @stream.setter
    def stream(self, _stream: Any) -> None:
        """Ignored: the stream is always ``sys.stderr``."""


class JsonLines(logging.Formatter):
    """A record as one JSON object: time, level, event, message (if any) and its fields."""

    def format(self, record: logging.LogRecord) -> str:
        """The record's line."""
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname.lower(),
            "event": record.name.removeprefix(f"{NAMESPACE}."),
        }
        message = record.getMessage()
        if message:
            line["message"] = message
        line.update(getattr(record, "fields", {}))
        return json.dumps(line)


class TextLines(logging.Formatter):
    """A record as ``logger key=value ...`` (values with a space quoted as JSON)."""

    def format(self, record: logging.LogRecord) -> str:
        """The record's line."""
        fields = getattr(record, "fields", {})
        pairs = [f"{key}={_text(value)}" for key, value in fields.items()]
        return " ".join([record.name, *filter(None, [record.getMessage()]), *pairs])


def _text(value: Any) -> str:
    text = str(value)
    return json.dumps(text) if not text or " " in text or '"' in text else text


def configure_logging(log_format: str | None = None) -> None:
    """Send the structured lines to standard error in ``log_format`` (``text`` or ``json``;
    default ``TURNPOST_LOG_FORMAT``, else text); once per process, later calls change the
    format only."""
    log_format = log_format or os.environ.get("TURNPOST_LOG_FORMAT", "text")
    if log_format not in ("text", "json"):
        raise ValueError("TURNPOST_LOG_FORMAT must be text or json")
    logger = logging.getLogger(NAMESPACE)
    handler = next((h for h in logger.handlers if isinstance(h, StandardError)), None)
    if handler is None:
        handler = StandardError()
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    handler.setFormatter(JsonLines() if log_format == "json" else TextLines())


def log_request(method: str, route: str, status: int, seconds: float, client: str) -> None:
    """The line of one answered request (``route``: its rule, never its path)."""
    fields = {
        "method": method,
        "route": route,
        "status": status,
        "ms": round(seconds * 1000, 1),
        "client": client,
    }
    REQUEST_LOG.info("", extra={"fields": fields})


def log_mail(
    mail_id: int, kind: str, game_id: str | None, seat: int | None, status: str, reason: str
) -> None:
    """The line of one mail sent, superseded or failed (``reason`` for a failure, masked)."""
    fields: dict[str, Any] = {"mail": mail_id, "kind": kind, "game": game_id, "seat": seat}
    fields["status"] = status
    if status == "failed":
        fields["reason"] = masked(reason)
    MAIL_LOG.info("", extra={"fields": fields})
