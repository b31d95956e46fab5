"""Parts of the web pages that many requests share, rendered once per worker and kept.

A game page's board picture and its move list are the same for every
reader who sees the same thing: the board for the same view of the game
(the same state as the viewer may see it, players, result, whose turn, the
same clickable places, the same language); the move list for the same
version of the game (seq and last change), the same page of moves, the same
seat shown and language. Each part is kept under a digest of exactly what it
is rendered from (:func:`part_key`), so a move, a takeback, a renamed seat or
another language makes another key: a part is never served stale, and a
seat's board (its hand in its view) is never served to a watcher or to
another seat, whose views differ. What differs per request (the script
nonce, CSRF tokens, the reader's account, moments and clocks measured from
now, the talk) is rendered outside these parts, per request.

The parts are kept like the API's answers (:class:`server.http.answers.AnswerCache`):
least recently used first out, within :data:`MAX_BYTES` per worker.

    >>> part_key("board", {"state": [1, 2]}, "en") == part_key("board", {"state": [1, 2]}, "en")
    True
    >>> part_key("board", {"state": [1, 2]}, "en") == part_key("board", {"state": [1, 3]}, "en")
    False
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Set
from dataclasses import fields, is_dataclass
from typing import Any

from flask import current_app

from server.http.answers import AnswerCache

#: The bytes of page parts a worker keeps (a Bangkok Klongs board is about 60 KB).
MAX_BYTES = 16 * 1024 * 1024


def part_key(kind: str, *inputs: Any) -> str:
    """A digest of ``kind`` and everything a part is rendered from (JSON-like values;
    sets are taken sorted)."""
    text = json.dumps([kind, *inputs], sort_keys=True, separators=(",", ":"), default=_plain)
    return hashlib.blake2b(text.encode(), digest_size=20).hexdigest()


def _plain(value: Any) -> Any:
    """A value JSON does not know, as one it does: a dataclass's fields, a set sorted,
    anything else its ``repr``."""
    if is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name) for field in fields(value)}
    if isinstance(value, Set):
        return sorted(value, key=repr)
    return repr(value)


def kept_part(key: str, render: Callable[[], str]) -> str:
    """The part kept under ``key``, or ``render()`` (then kept)."""
    body = found_part(key)
    if body is None:
        body = render()
        _parts().put(key, body.encode())
    return body


def found_part(key: str) -> str | None:
    """The part kept under ``key``, if this worker keeps one."""
    body = _parts().get(key)
    return None if body is None else body.decode()


def _parts() -> AnswerCache:
    """This worker's kept parts."""
    return current_app.extensions.setdefault("turnpost_page_parts", AnswerCache(MAX_BYTES))
