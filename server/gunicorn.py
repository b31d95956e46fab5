"""Run the app under gunicorn from Python (used by ``turnpost serve`` and the tests).

The serving model: gunicorn with **gevent workers** (2 by default). Every
connection is a greenlet, not a thread, so a worker holds thousands of open
connections for the memory of a few: 1,000 event streams and hundreds of
slow clients take no thread away from moves and reads. gunicorn's gevent
worker reads each request's line and headers under a deadline of
``keepalive`` seconds (:data:`HEADER_SECONDS`): a client that sends one
header line every few seconds is cut off then, and never held a thread.
Each worker accepts up to :data:`WORKER_CONNECTIONS` connections and serves
at most ``TURNPOST_MAX_STREAMS`` event streams (``TURNPOST_MAX_STREAMS_PER_CLIENT``
per address), all fed by one poller per worker (:mod:`server.events`).

A greenlet runs until it waits for I/O, so CPU-heavy work holds its worker's
loop: :func:`server.cooperative.offload` runs the heaviest (legal-move lists,
replays) in a real thread, and the rate limits charge large answers more
(:mod:`server.limits`).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gunicorn.app.base import BaseApplication

ROOT = Path(__file__).resolve().parent.parent


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


@dataclass
class BackgroundServer:
    """A gunicorn process serving the app, started by :func:`start_background`."""

    url: str
    db_path: str
    process: subprocess.Popen
    log_path: Path

    def log(self) -> str:
        """What the server wrote to stderr so far (gunicorn's and the app's log)."""
        return self.log_path.read_text(errors="replace")

    def api(self, path: str) -> str:
        """The absolute URL of an API path."""
        return f"{self.url}/api/v1{path}"

    def stop(self) -> None:
        """Stop the server and wait for it."""
        self.process.terminate()
        self.process.wait(timeout=10)


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_background(
    db_path: str, workers: int = 2, environment: dict[str, str] | None = None
) -> BackgroundServer:
    """Start gunicorn in a child process on a free port and wait until it answers.

    ``environment`` adds variables to the server's environment (e.g. limits).
    Its stderr goes to ``<db_path>.<port>.log`` (a file, so that a busy log can
    never block the server the way an unread pipe does).
    """
    port = free_port()
    log_path = Path(f"{db_path}.{port}.log")
    code = f"from server.gunicorn import run; run({db_path!r}, '127.0.0.1', {port}, {workers})"
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **(environment or {}), "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=log_path.open("wb"),
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/api/v1/engines", timeout=1):
                return BackgroundServer(url, db_path, process, log_path)
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server did not start: {log_path.read_text(errors='replace')[-2000:]}")
