"""The contract's error codes and the exception that carries them.

Every error leaves the server as
``{"error": {"code": "...", "message": "...", "details": {}}}``.

    >>> TurnpostError("stale_seq", "Moved on.", {"seq": 3}).status
    409
"""

from __future__ import annotations

from typing import Any

from engines.phrases import Words, english

STATUS_BY_CODE = {
    "bad_request": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "request_timeout": 408,
    "not_your_turn": 409,
    "stale_seq": 409,
    "game_over": 409,
    "not_started": 409,
    "table_full": 409,
    "takeback_refused": 409,
    "payload_too_large": 413,
    "unsupported_media_type": 415,
    "invalid_move": 422,
    "illegal_move": 422,
    "invalid_position": 422,
    "invalid_request": 422,
    "rate_limited": 429,
    "internal_error": 500,
    "unavailable": 503,
}

#: The code used for an HTTP status raised by Flask or Werkzeug itself.
CODE_BY_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
}


class TurnpostError(Exception):
    """A refusal with a contract error code, a human message and details.

    The message may be a phrase (:mod:`engines.phrases`): ``words`` keeps it
    for the answer, said in its reader's language; ``message`` is its English.
    """

    def __init__(
        self,
        code: str,
        message: Words,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.words: Words = message
        self.message = english(message)
        super().__init__(self.message)
        self.code = code
        self.details = details or {}
        #: Headers the answer carries (e.g. ``Retry-After`` on ``429``).
        self.headers = headers or {}

    @property
    def status(self) -> int:
        """The HTTP status for this code."""
        return STATUS_BY_CODE[self.code]

    def body(self, message: str | None = None) -> dict[str, Any]:
        """The contract's error object (its ``message`` given in the reader's language, else in
        English)."""
        said = self.message if message is None else message
        return {"error": {"code": self.code, "message": said, "details": self.details}}
