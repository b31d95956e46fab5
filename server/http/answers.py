"""The JSON bodies of the API's reads, serialized once per worker and kept by their ETag.

A read's ETag (:func:`server.http.api.conditional`) is a digest of
everything its answer depends on: the route, the game and its version
(seq, status, last change, deadline), the viewer's seat, the page. Two
requests with the same ETag get the same body, so the body is built (the
game loaded, the game object put together, dumped by its schema, encoded)
by the first of them and the others are given the kept bytes (each app
keeps its own). Every request still reads the game's stamp (its version and
seats, not its state: :meth:`~server.store.base.GameStore.game_stamp`) to
make the ETag, and still checks the token in that read: only the loading and
building are saved. A body is kept under the ETag of the game it was built
from, which a move between the stamp's read and the game's may have changed.
The bodies are kept in least-recently-used order within :data:`MAX_BYTES`
per worker process, one version of each game (a move drops the bodies of the
game's earlier seqs: :class:`AnswerCache`), and with them each body's brotli or gzip copy once a
client that accepts it asked (:class:`CompressedAnswers`, flask-compress's
cache): a kept answer is compressed once, not for every request.

    >>> cache = AnswerCache(max_bytes=10)
    >>> cache.put('W/"a"', b"12345"); cache.put('W/"b"', b"12345")
    >>> cache.get('W/"a"')
    b'12345'
    >>> cache.put('W/"c"', b"123")  # over 10 bytes: the least recently used goes
    >>> cache.get('W/"b"') is None, cache.get('W/"a"'), cache.get('W/"c"')
    (True, b'12345', b'123')
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from flask import Request, Response, current_app, jsonify, request
from marshmallow import Schema

#: The bytes of bodies a worker keeps (a King of Siam legal-move list is up to 256 KB).
MAX_BYTES = 32 * 1024 * 1024
#: Where :func:`answer` notes, in the request's environ, the ETag of the kept body it sends.
KEPT_ETAG = "turnpost.kept_etag"


class AnswerCache:
    """Bodies by ETag, the least recently used dropped first past ``max_bytes``.

    A body may be kept with its game's version (``(game id, seq)``): a body of a newer
    seq drops those of the game's earlier ones (their ETags will not be asked again but
    by a client holding an old view, which rebuilds), and a body of an earlier seq than
    the game's newest is not kept. A copy (:meth:`put_copy`) goes with its body.

        >>> cache = AnswerCache()
        >>> cache.put('W/"1"', b"one", ("g", 1)); cache.put_copy('br;W/"1"', 'W/"1"', b"1")
        >>> cache.put('W/"x"', b"other game", ("h", 1)); cache.put('W/"2"', b"two", ("g", 2))
        >>> [cache.get(key) for key in ('W/"1"', 'br;W/"1"', 'W/"x"', 'W/"2"')]
        [None, None, b'other game', b'two']
        >>> cache.put('W/"late"', b"one again", ("g", 1)); cache.get('W/"late"') is None
        True
    """

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self._bodies: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        #: Per game: its newest seq kept, and the keys kept for it; per key: its game.
        self._versions: dict[str, tuple[int, set[str]]] = {}
        self._games: dict[str, str] = {}

    def get(self, etag: str) -> bytes | None:
        """The body kept for ``etag``, or ``None``."""
        with self._lock:
            body = self._bodies.get(etag)
            if body is not None:
                self._bodies.move_to_end(etag)
            return body

    def put(self, etag: str, body: bytes, version: tuple[str, int] | None = None) -> None:
        """Keep ``body`` for ``etag`` (not a body larger than the whole cache), of the game
        version ``version`` if given (not if the game has a newer one kept)."""
        if len(body) > self._max_bytes:
            return
        with self._lock:
            if version is not None and not self._enter(etag, *version):
                return
            self._keep(etag, body)

    def put_copy(self, key: str, etag: str, body: bytes) -> None:
        """Keep ``body`` under ``key``, a copy of the body kept for ``etag`` (its compressed
        copy), dropped with it: not kept if that body is not."""
        with self._lock:
            if etag not in self._bodies or len(body) > self._max_bytes:
                return
            game = self._games.get(etag)
            if game is not None:
                self._games[key] = game
                self._versions[game][1].add(key)
            self._keep(key, body)

    def _enter(self, key: str, game: str, seq: int) -> bool:
        """Note ``key`` as of ``game`` at ``seq``, dropping the game's earlier keys; whether
        to keep it (not when the game has a newer seq kept). Under the lock."""
        newest, keys = self._versions.get(game, (seq, set()))
        if seq < newest:
            return False
        if seq > newest:
            for old in list(keys):
                self._drop(old)
            keys = set()
        keys.add(key)
        self._versions[game] = (seq, keys)
        self._games[key] = game
        return True

    def _keep(self, key: str, body: bytes) -> None:
        """Keep ``body`` under ``key``, the least recently used dropped past the bound."""
        old = self._bodies.pop(key, None)
        self._bytes += len(body) - (0 if old is None else len(old))
        self._bodies[key] = body
        while self._bytes > self._max_bytes:
            self._drop(next(iter(self._bodies)))

    def _drop(self, key: str) -> None:
        """Forget ``key``'s body and its game's note of it. Under the lock."""
        body = self._bodies.pop(key, None)
        if body is not None:
            self._bytes -= len(body)
        game = self._games.pop(key, None)
        if game is not None:
            keys = self._versions[game][1]
            keys.discard(key)
            if not keys:
                del self._versions[game]


def kept_answers() -> AnswerCache:
    """The app's kept answers."""
    return current_app.extensions.setdefault("turnpost_answers", AnswerCache())


def answer(
    etag: str, schema: Schema, build: Callable[[], tuple[str, Any]], version: tuple[str, int]
) -> Response:
    """``200`` with the body of ``etag``: kept, or built: ``build()`` loads the game and
    gives the ETag of what it loaded and the answer's data, dumped by ``schema`` and encoded
    as Flask encodes any answer, then kept under that ETag (and sent with it) as of the
    game's ``version`` (its id and the seq the ETag was made from)."""
    answers = kept_answers()
    body = answers.get(etag)
    if body is None:
        etag, data = build()
        body = f"{current_app.json.dumps(schema.dump(data))}\n".encode()
        answers.put(etag, body, version)
    request.environ[KEPT_ETAG] = etag
    response = current_app.response_class(body, 200, mimetype=current_app.json.mimetype)
    response.headers["ETag"] = etag
    return response


def shaped_answer(data: Any, status: int) -> Response:
    """``data`` as flask-smorest sends an answer (``jsonify``), without its schema's dump: for
    an answer its service builds in the schema's shape already (a move's: the dump cost about
    30 us of a move's CPU). ``tests/api/test_shaped_answers.py`` checks, for every engine, that
    the schema's dump of each such answer is the answer itself."""
    response = jsonify(data)
    response.status_code = status
    return response


def compressed_key(sent: Request) -> str | None:
    """flask-compress's cache key of an answer (``COMPRESS_CACHE_KEY``): the ETag of the
    kept body it sends; ``None`` for any other answer (never kept)."""
    return sent.environ.get(KEPT_ETAG)


class CompressedAnswers:
    """flask-compress's cache (``COMPRESS_CACHE_BACKEND``): the compressed copies of the kept
    bodies, in the app's :class:`AnswerCache` under ``<algorithm>;<ETag>``. Answers that
    are not kept (their key ends in ``;None``) are neither found nor kept."""

    def get(self, key: str) -> bytes | None:
        """The compressed copy kept under ``key``, or ``None``."""
        return None if key.endswith(";None") else kept_answers().get(key)

    def set(self, key: str, compressed: bytes) -> None:
        """Keep ``compressed`` under ``key`` (the copy of a kept body only, dropped with it)."""
        if not key.endswith(";None"):
            kept_answers().put_copy(key, key.partition(";")[2], compressed)
