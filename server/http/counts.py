"""The rate limits' counts in each worker's memory, without a timer thread.

``TURNPOST_RATELIMIT_STORAGE=memory://`` (the default) counts every limit
in the worker process: this is the storage the request limits count in then
(:data:`PROCESS_COUNTS`, registered with ``limits`` under its scheme).
``limits``' own memory storage starts a timer thread 10 ms after any count
whenever none runs, to drop expired counts: under load a thread (a greenlet
under gevent) per request or two, and the locks to hand the counts between
them, about a fifth of a move's time in the app (``docs/performance.md``).
Here the counts are fixed windows kept in one dict, each dropped when read
after its window ended, and all the expired ones swept every
:data:`SWEEP_EVERY` counts, so that the memory stays bounded by the clients
of recent windows.

    >>> from limits import RateLimitItemPerMinute
    >>> from limits.storage import storage_from_string
    >>> from limits.strategies import FixedWindowRateLimiter
    >>> limiter = FixedWindowRateLimiter(storage_from_string(PROCESS_COUNTS))
    >>> two = RateLimitItemPerMinute(2)
    >>> [limiter.hit(two, "ip:10.0.0.1") for _ in range(3)], limiter.hit(two, "ip:10.0.0.2")
    ([True, True, False], True)
"""

from __future__ import annotations

import threading
import time
from typing import Any

from limits.storage import Storage

#: The storage URL of counts kept by :class:`ProcessCounts`.
PROCESS_COUNTS = "turnpost-memory://"
#: Counts between two sweeps of the expired windows.
SWEEP_EVERY = 10_000


class ProcessCounts(Storage):
    """Fixed-window counts in this process: ``key -> [count, end of its window]``."""

    STORAGE_SCHEME = [PROCESS_COUNTS.removesuffix("://")]

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: Any):
        super().__init__(uri, wrap_exceptions, **options)
        self._windows: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        self._until_sweep = SWEEP_EVERY

    @property
    def base_exceptions(self) -> type[Exception]:
        """What this storage may raise (nothing of its own)."""
        return ValueError

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        """Add ``amount`` to ``key``'s count, starting a window of ``expiry`` seconds if none
        runs; the count."""
        now = time.time()
        with self._lock:
            self._until_sweep -= 1
            if self._until_sweep <= 0:
                self._sweep(now)
            window = self._windows.get(key)
            if window is None or window[1] <= now:
                window = self._windows[key] = [0, now + expiry]
            window[0] += amount
            return int(window[0])

    def get(self, key: str) -> int:
        """The count of ``key`` in its running window (0 if none runs)."""
        window = self._windows.get(key)
        return int(window[0]) if window is not None and window[1] > time.time() else 0

    def get_expiry(self, key: str) -> float:
        """When ``key``'s window ends (now if none runs)."""
        now = time.time()
        window = self._windows.get(key)
        return window[1] if window is not None and window[1] > now else now

    def check(self) -> bool:
        """Always reachable: the counts are in this process."""
        return True

    def reset(self) -> int:
        """Forget every count; how many keys there were."""
        with self._lock:
            count = len(self._windows)
            self._windows.clear()
        return count

    def clear(self, key: str) -> None:
        """Forget ``key``'s count."""
        with self._lock:
            self._windows.pop(key, None)

    def _sweep(self, now: float) -> None:
        """Drop every window that ended (under the lock)."""
        self._windows = {key: window for key, window in self._windows.items() if window[1] > now}
        self._until_sweep = SWEEP_EVERY
