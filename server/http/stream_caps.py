"""Caps on open event streams, in all and per client address: per worker, or shared.

An event stream holds a connection for as long as its listener stays, so
streams are capped in all (``TURNPOST_MAX_STREAMS``) and per client address
(``TURNPOST_MAX_STREAMS_PER_CLIENT``): past a cap, ``429 rate_limited`` with
``Retry-After``. Where they are counted follows ``TURNPOST_RATELIMIT_STORAGE``,
the rate limits' storage (:func:`open_stream_caps`):

- unset or ``memory://``: each worker process counts its own streams
  (:class:`LocalStreamCaps`), so with ``N`` workers a client may hold ``N``
  times its cap;
- ``redis://...`` (or ``rediss://``): every worker of every host counts in
  one Redis (:class:`RedisStreamCaps`). Each open stream is a member of two
  sorted sets, every stream's and its client's, scored with the Redis clock
  at its last heartbeat. A worker refreshes its own streams every
  :data:`HEARTBEAT_SECONDS`, and an admission first drops the members
  nobody refreshed for :data:`STALE_SECONDS`: the streams of a worker that
  died without closing them stop counting :data:`STALE_SECONDS` later at
  most. While Redis cannot be reached, the worker admits streams by its own
  counts (and logs it) rather than refusing every stream or failing.

    >>> caps = LocalStreamCaps(max_streams=3, max_per_client=2)
    >>> first, second, third = object(), object(), object()
    >>> caps.admit(first, "10.0.0.1"); caps.admit(second, "10.0.0.1")
    >>> caps.admit(third, "10.0.0.1")
    Traceback (most recent call last):
    server.errors.TurnpostError: This address already follows 2 event streams; close one first.
    >>> caps.release(first); caps.admit(third, "10.0.0.1")
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import Counter
from typing import Protocol

import redis

from engines.phrases import phrase
from server.errors import TurnpostError

logger = logging.getLogger(__name__)

#: ``Retry-After`` of a ``429`` past a stream cap: a stream closes at most a keep-alive later.
STREAM_RETRY_SECONDS = 60
#: Storage URLs of a shared Redis (the rate limits' storage, ``TURNPOST_RATELIMIT_STORAGE``).
REDIS_SCHEMES = ("redis://", "rediss://")
#: The storage URL of counts kept in each worker's memory.
MEMORY_STORAGE = "memory://"
#: Options of a Redis client: a call may take a second (connecting, then each answer)
#: before Redis counts as unreachable.
REDIS_OPTIONS = {"socket_timeout": 1.0, "socket_connect_timeout": 1.0}
#: Seconds between a worker's refreshes of its open streams in Redis.
HEARTBEAT_SECONDS = 5.0
#: Seconds after its last refresh that a stream stops counting (its worker died).
STALE_SECONDS = 15
#: The Redis sorted set of every open stream; a client's is this, ``:``, its address.
STREAMS_KEY = "turnpost:streams"

#: Admit a stream if both caps allow it. KEYS: every stream's set, the client's set.
#: ARGV: the stream's id, STALE_SECONDS, the cap in all, the cap per client. Answers 0
#: (admitted), 1 (the cap in all is reached) or 2 (the client's cap is).
ADMIT_SCRIPT = """
local now = tonumber(redis.call('TIME')[1])
for _, key in ipairs(KEYS) do
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - tonumber(ARGV[2]))
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 2 end
for _, key in ipairs(KEYS) do
    redis.call('ZADD', key, now, ARGV[1])
    redis.call('EXPIRE', key, ARGV[2])
end
return 0
"""
#: Refresh streams still counted (``XX``: never one released meanwhile). KEYS: every
#: stream's set, then each stream's client's set. ARGV: STALE_SECONDS, then each stream's id.
HEARTBEAT_SCRIPT = """
local now = tonumber(redis.call('TIME')[1])
for i = 2, #KEYS do
    redis.call('ZADD', KEYS[1], 'XX', now, ARGV[i])
    redis.call('ZADD', KEYS[i], 'XX', now, ARGV[i])
    redis.call('EXPIRE', KEYS[i], ARGV[1])
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
"""

#: Forget one stream (ARGV[1]) in the global set and its client's set, at once.
RELEASE_SCRIPT = """
for _, key in ipairs(KEYS) do redis.call('ZREM', key, ARGV[1]) end
"""


class StreamCaps(Protocol):
    """Counts the open event streams and refuses those past a cap."""

    def admit(self, stream: object, client: str) -> None:
        """Count ``stream``, a new stream of ``client``; ``429 rate_limited`` past a cap."""

    def release(self, stream: object) -> None:
        """Stop counting ``stream`` (idempotent)."""


def refusal(over_total: bool, max_per_client: int) -> TurnpostError:
    """The ``429`` past the cap in all (``over_total``) or past the client's cap."""
    if over_total:
        message = phrase("Too many open event streams on this server; retry in a minute.")
    else:
        message = phrase(
            "This address already follows %(most)s event streams; close one first.",
            most=max_per_client,
        )
    return TurnpostError(
        "rate_limited", message, headers={"Retry-After": str(STREAM_RETRY_SECONDS)}
    )


class LocalStreamCaps:
    """The streams of this worker process, counted in its memory."""

    def __init__(self, max_streams: int, max_per_client: int) -> None:
        self.max_streams = max_streams
        self.max_per_client = max_per_client
        self._lock = threading.Lock()
        self._clients: dict[object, str] = {}
        self._by_client: Counter[str] = Counter()

    def admit(self, stream: object, client: str) -> None:
        """Count ``stream``, a new stream of ``client``; ``429 rate_limited`` past a cap."""
        with self._lock:
            over_total = len(self._clients) >= self.max_streams
            if over_total or self._by_client[client] >= self.max_per_client:
                raise refusal(over_total, self.max_per_client)
            self._clients[stream] = client
            self._by_client[client] += 1

    def release(self, stream: object) -> None:
        """Stop counting ``stream`` (idempotent)."""
        with self._lock:
            client = self._clients.pop(stream, None)
            if client is None:
                return
            self._by_client[client] -= 1
            if not self._by_client[client]:
                del self._by_client[client]


class RedisStreamCaps:
    """The streams of every worker of every host, counted in one Redis (see the module)."""

    def __init__(self, client: redis.Redis, max_streams: int, max_per_client: int) -> None:
        self.redis = client
        self.max_streams = max_streams
        self.max_per_client = max_per_client
        self._admit = client.register_script(ADMIT_SCRIPT)
        self._heartbeat = client.register_script(HEARTBEAT_SCRIPT)
        self._release = client.register_script(RELEASE_SCRIPT)
        #: Streams of this worker counted in Redis: their ids and their clients' keys.
        self._live: dict[object, tuple[str, str]] = {}
        #: Streams admitted while Redis could not be reached.
        self._unshared = LocalStreamCaps(max_streams, max_per_client)
        self._lock = threading.Lock()
        self._beating: threading.Thread | None = None

    def admit(self, stream: object, client: str) -> None:
        """Count ``stream``, a new stream of ``client``; ``429 rate_limited`` past a cap."""
        stream_id, client_key = secrets.token_hex(8), f"{STREAMS_KEY}:{client}"
        args = [stream_id, STALE_SECONDS, self.max_streams, self.max_per_client]
        try:
            answer = self._admit(keys=[STREAMS_KEY, client_key], args=args)
        except redis.RedisError:
            logger.warning("Redis is unreachable: event streams are capped per worker meanwhile")
            self._unshared.admit(stream, client)
            return
        if answer:
            raise refusal(answer == 1, self.max_per_client)
        with self._lock:
            self._live[stream] = (stream_id, client_key)
            if self._beating is None:
                self._beating = threading.Thread(target=self._beat, name="streams", daemon=True)
                self._beating.start()

    def release(self, stream: object) -> None:
        """Stop counting ``stream`` (idempotent); if Redis is unreachable, its count expires."""
        with self._lock:
            counted = self._live.pop(stream, None)
        if counted is None:
            self._unshared.release(stream)
            return
        stream_id, client_key = counted
        try:
            self._release(keys=[STREAMS_KEY, client_key], args=[stream_id])
        except redis.RedisError:
            logger.warning("Redis is unreachable: a closed stream counts until it goes stale")

    def _beat(self) -> None:
        """Forever: refresh this worker's open streams in Redis (a failure is logged and
        retried at the next beat: the streams count until they go stale meanwhile)."""
        while True:
            time.sleep(HEARTBEAT_SECONDS)
            with self._lock:
                counted = list(self._live.values())
            if not counted:
                continue
            keys = [STREAMS_KEY, *(client_key for _, client_key in counted)]
            try:
                self._heartbeat(keys=keys, args=[STALE_SECONDS, *(i for i, _ in counted)])
            except redis.RedisError:
                logger.warning("Redis is unreachable: open streams were not refreshed")


def uses_redis(storage: str) -> bool:
    """Whether a storage URL names a shared Redis (else each worker counts in memory).

    >>> uses_redis("redis://cache.internal:6379/2"), uses_redis("memory://")
    (True, False)
    """
    return storage.startswith(REDIS_SCHEMES)


def open_stream_caps(storage: str, max_streams: int, max_per_client: int) -> StreamCaps:
    """The stream caps counted where ``storage`` (``TURNPOST_RATELIMIT_STORAGE``) says.

    Raises ``ValueError`` for a storage that is neither ``memory://`` nor Redis.
    """
    if uses_redis(storage):
        client = redis.Redis.from_url(storage, **REDIS_OPTIONS)
        return RedisStreamCaps(client, max_streams, max_per_client)
    if storage != MEMORY_STORAGE:
        scheme = storage.partition("://")[0]  # not the rest: it may hold a password
        raise ValueError(f"TURNPOST_RATELIMIT_STORAGE must be memory:// or redis://, not {scheme}")
    return LocalStreamCaps(max_streams, max_per_client)
