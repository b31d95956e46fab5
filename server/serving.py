"""Serving: the app under gunicorn's gevent workers (``turnpost serve``, ``./run``).

The serving model: gunicorn with **gevent workers** (2 by default). Every
connection is a greenlet, not a thread, so a worker holds thousands of open
connections for the memory of a few: 1,000 event streams and hundreds of
slow clients take no thread away from moves and reads. gunicorn's gevent
worker reads each request's line and headers under a deadline of
``keepalive`` seconds (:data:`HEADER_SECONDS`): a client that sends one
header line every few seconds is cut off then, and never held a thread.
Each worker accepts up to :data:`WORKER_CONNECTIONS` connections and serves
at most ``TURNPOST_MAX_STREAMS`` event streams (``TURNPOST_MAX_STREAMS_PER_CLIENT``
per address), all fed by one poller per worker (:mod:`server.http.events`).

A greenlet runs until it waits for I/O, so CPU-heavy work holds its worker's
loop: :func:`server.http.cooperative.offload` runs the heaviest (legal-move lists,
replays) in a real thread, and the rate limits charge large answers more
(:mod:`server.http.limits`).
"""

from __future__ import annotations

import os
from typing import Any

from gunicorn.app.base import BaseApplication


class TurnpostServer(BaseApplication):
    """A gunicorn application serving :func:`server.create_app` with the given settings."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        """Copy the options into gunicorn's settings."""
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        """Build the WSGI app in each worker."""
        from server import create_app

        return create_app()


#: Connections one worker holds at once: event streams, idle keep-alives, slow clients, requests.
WORKER_CONNECTIONS = 2000
#: Seconds a client has to send a request's line and headers (also the keep-alive idle time).
HEADER_SECONDS = 5


def run(
    db_path: str, host: str, port: int, workers: int = 2, connections: int = WORKER_CONNECTIONS
) -> None:
    """Serve ``db_path`` on ``host:port`` with gevent workers until stopped."""
    os.environ["TURNPOST_DB"] = db_path
    TurnpostServer(
        {
            "bind": f"{host}:{port}",
            "workers": workers,
            "worker_class": "gevent",
            "worker_connections": connections,
            "keepalive": HEADER_SECONDS,
            "timeout": 60,
            "graceful_timeout": 5,
            "accesslog": None,
        }
    ).run()
