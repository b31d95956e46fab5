"""JSON from clients: parsed with a bounded depth and without lone surrogates.

Every JSON document a client sends (API bodies, the lobby's options field)
goes through :func:`load_untrusted`, so that nothing behind it (marshmallow,
the engines, ``json.dumps`` for the log, SQLite) meets a structure deep
enough to exhaust Python's recursion limit, or a string that cannot be
encoded as UTF-8 (a ``\\ud800`` escape is valid JSON syntax but no text).

    >>> load_untrusted(b'{"move": {"action": "pass"}}')
    {'move': {'action': 'pass'}}
    >>> load_untrusted("[" * 40 + "]" * 40)
    Traceback (most recent call last):
    ...
    server.errors.TurnpostError: JSON nested deeper than 32 levels.
    >>> load_untrusted('{"name": "\\\\ud800"}')
    Traceback (most recent call last):
    ...
    server.errors.TurnpostError: JSON text with a lone surrogate (\\ud800...\\udfff) is not text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engines.phrases import phrase
from server.errors import TurnpostError

#: Deeper than any move, position or option of any engine (a few levels each).
MAX_DEPTH = 32
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def load_untrusted(text: str | bytes) -> Any:
    """``text`` parsed as JSON, or ``400 bad_request`` (invalid, too deep, or not text)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TurnpostError(
            "bad_request", phrase("JSON nested deeper than %(depth)s levels.", depth=MAX_DEPTH)
        ) from None
    except (ValueError, UnicodeDecodeError):
        raise TurnpostError("bad_request", phrase("The body is not valid JSON.")) from None
    check_shape(value)
    return value


def check_shape(value: Any) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and lone surrogates, without recursing."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if LONE_SURROGATE.search(item):
                raise TurnpostError(
                    "bad_request",
                    phrase("JSON text with a lone surrogate (\\ud800...\\udfff) is not text."),
                )
            continue
        if not isinstance(item, dict | list):
            continue
        if depth > MAX_DEPTH:
            raise TurnpostError(
                "bad_request", phrase("JSON nested deeper than %(depth)s levels.", depth=MAX_DEPTH)
            )
        children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
        pending.extend((child, depth + 1) for child in children)
