"""Blocking work off a gevent worker's event loop: CPU-heavy calls, SQLite's waits.

Under gunicorn's gevent workers every request is a greenlet of one thread,
and a greenlet runs until it waits for I/O: a King of Siam legal-move list
(0.1 to 0.3 s of CPU) would stop every other request of its worker for that
long. :func:`offload` runs such a call in one of gevent's real threads, so
the worker's loop goes on serving (Python switches threads every 5 ms).
The SQLite store commits a write the same way (the fsync), and waits for
another process's write in gevent sleeps when :func:`cooperative`
(:meth:`server.store.sqlite.SqliteStore.write`). Offload no call that takes
the store's writer lock: it is a greenlet lock.

A caller that must be able to stop while the call runs (the server's bots,
:mod:`server.games.bots`) passes ``stop``: once it is set, :func:`offload`
raises :class:`Abandoned` and leaves the thread's result to nobody.

Without gevent's monkey-patching (the tests' app, the command line, a
threaded server) it is a plain call:

    >>> offload(sum, [1, 2, 3])
    6
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

import gevent
from gevent import monkey

T = TypeVar("T")

#: Seconds between two looks at ``stop`` while an offloaded call runs.
STOP_SECONDS = 0.1


class Abandoned(Exception):
    """The caller of :func:`offload` was told to stop before the call ended."""


def cooperative() -> bool:
    """Whether this process runs under gevent's monkey-patching (greenlets, one loop)."""
    return monkey.is_module_patched("threading")


def offload(function: Callable[..., T], *args: Any, stop: threading.Event | None = None) -> T:
    """``function(*args)``, in a real thread when running under gevent.

    An exception of ``function`` is raised here, in the request, as if the call
    ran in it: the error handlers answer it (a refusal is logged nowhere), rather
    than gevent's hub, which prints the traceback of any exception a thread raises.
    Under gevent, :class:`Abandoned` once ``stop`` is set (looked at every
    :data:`STOP_SECONDS`); the thread's call then runs to its end unheard.
    """
    if not cooperative():
        return function(*args)
    job = gevent.get_hub().threadpool.spawn(_outcome, function, args)
    while stop is not None and not job.ready():
        if stop.is_set():
            raise Abandoned(f"stopped while {function.__qualname__} ran")
        job.wait(STOP_SECONDS)
    result, error = job.get()
    if error is not None:
        raise error
    return result


def _outcome(
    function: Callable[..., T], args: tuple[Any, ...]
) -> tuple[T | None, Exception | None]:
    """``(function(*args), None)``, or ``(None, the exception it raised)``."""
    try:
        return function(*args), None
    except Exception as error:  # handed to the caller, which raises it
        return None, error


class FairLock:
    """A lock that its waiters get in the order they came, greenlets or threads.

    gevent's lock (what ``threading.Lock`` is under its monkey-patching) lets
    a greenlet that gives it back take it again at once, before the waiter it
    woke runs: on a worker posting moves over kept-alive connections, one
    greenlet could write many times in a row while another waited hundreds of
    milliseconds (``docs/performance.md``, issue 27). This one hands itself to
    its first waiter on release, so it is never free while someone waits.

    >>> lock = FairLock()
    >>> with lock:
    ...     lock.locked()
    True
    >>> lock.locked()
    False
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()  # held only for a few lines, never while waiting
        self._held = False
        self._waiters: deque[threading.Event] = deque()

    def locked(self) -> bool:
        """Whether someone holds the lock."""
        return self._held

    def acquire(self) -> None:
        """Take the lock, after every caller already waiting for it."""
        with self._guard:
            if not self._held:
                self._held = True
                return
            turn = threading.Event()
            self._waiters.append(turn)
        try:
            turn.wait()  # set once the lock is handed over: it stays held meanwhile
        except BaseException:  # killed while waiting: leave the line, or pass the lock on
            with self._guard:
                if turn.is_set():
                    self._hand_over()
                else:
                    self._waiters.remove(turn)
            raise

    def release(self) -> None:
        """Give the lock to the first waiter, or free it when nobody waits."""
        with self._guard:
            self._hand_over()

    def _hand_over(self) -> None:
        """Wake the first waiter, the lock's holder from now on (call with the guard held)."""
        if self._waiters:
            self._waiters.popleft().set()
        else:
            self._held = False

    def __enter__(self) -> FairLock:
        self.acquire()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()
