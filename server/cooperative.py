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
from collections.abc import Callable
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
