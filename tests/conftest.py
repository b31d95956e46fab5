"""Shared fixtures: an app on a real SQLite file, and a real gunicorn server process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from server import create_app

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    """A fresh SQLite file for one test."""
    return str(tmp_path / "turnpost.db")


@pytest.fixture
def app(db_path: str):
    """The Flask app on a fresh database file."""
    return create_app({"TURNPOST_DB": db_path, "TESTING": True})


@pytest.fixture
def client(app):
    """Flask's test client for ``app``."""
    return app.test_client()


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LiveServer:
    """A gunicorn process serving the app on a temp database."""

    url: str
    db_path: str
    process: subprocess.Popen

    def api(self, path: str) -> str:
        """The absolute URL of an API path."""
        return f"{self.url}/api/v1{path}"


def start_server(db_path: str, workers: int = 2) -> LiveServer:
    """Start gunicorn on a free port and wait until it answers."""
    port = free_port()
    code = f"from server.gunicorn import run; run({db_path!r}, '127.0.0.1', {port}, {workers}, 16)"
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{url}/api/v1/engines", timeout=1).ok:
                return LiveServer(url, db_path, process)
        except requests.ConnectionError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server did not start: {process.stderr.read().decode()[-2000:]}")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A real gunicorn server process shared by one test module."""
    server = start_server(str(tmp_path_factory.mktemp("live") / "turnpost.db"))
    yield server
    server.process.terminate()
    server.process.wait(timeout=10)
