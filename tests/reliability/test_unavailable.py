"""The database out of reach: ``503 unavailable`` with ``Retry-After``, never a ``500``.

PostgreSQL: a real gunicorn server (one worker: each worker process may answer
one more ``503`` on a connection the restart broke, before its pool checks the
others) on a cluster of the test's own, which the test stops under it (as if it
died) and starts again: the API answers the contract's error body at once, a
page a polite page, nothing changes, and once the database is back the same
requests succeed. SQLite: a write waits for a
database another process holds locked past the busy timeout (shortened for
the test), then answers ``503``.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

import pytest
import requests

from server import create_app
from server.http.errors import UNAVAILABLE_RETRY_SECONDS
from server.store import sqlite as sqlite_backend
from tests.reliability.conftest import UNLIMITED
from tests.server.test_api import WINNING_LINE, auth, create_siam
from tests.servers import running_postgres
from tests.support import start_background

#: Seconds the database may take to be found down or up again.
NOTICE_SECONDS = 20


def assert_unavailable(answer: Any, body: dict[str, Any]) -> None:
    """A ``503 unavailable`` in the contract's shape, with ``Retry-After`` and no detail of
    the database."""
    assert answer.status_code == 503, (answer.status_code, body)
    assert answer.headers["Retry-After"] == str(UNAVAILABLE_RETRY_SECONDS)
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == "unavailable" and body["error"]["details"] == {}
    assert "try again" in body["error"]["message"]
    assert "127.0.0.1" not in body["error"]["message"]


def test_a_stopped_postgresql_answers_503_then_serves_again() -> None:
    with running_postgres() as cluster:
        server = start_background(cluster.create_database("turnpost"), 1, UNLIMITED)
        try:
            game = create_siam(server)
            moves, seat = (
                server.api(f"/games/{game['id']}/moves"),
                auth(game["players"][0]["token"]),
            )
            cluster.stop()
            for _ in range(3):  # the pool's broken connections first, then no connection
                started = time.monotonic()
                read = requests.get(moves, timeout=30)
                assert_unavailable(read, read.json())
                assert time.monotonic() - started < 5, "a server that is down answers at once"
            move = requests.post(
                moves, json={"notation": WINNING_LINE[0]}, headers=seat, timeout=30
            )
            assert_unavailable(move, move.json())
            page = requests.get(f"{server.url}/games/{game['id']}", timeout=30)
            assert page.status_code == 503 and page.headers["Content-Type"].startswith("text/html")
            assert "try again" in page.text and "Traceback" not in page.text
            cluster.start()
            deadline = time.monotonic() + NOTICE_SECONDS
            while requests.get(moves, timeout=30).status_code != 200:
                assert time.monotonic() < deadline, "still unavailable after the database came back"
                time.sleep(0.2)
            assert requests.get(moves, timeout=30).json() == [], "the refused move did not land"
            again = requests.post(
                moves, json={"notation": WINNING_LINE[0]}, headers=seat, timeout=30
            )
            assert again.status_code == 201, again.text
            assert "Traceback" not in server.log()
        finally:
            server.stop()


def test_a_sqlite_database_locked_past_the_busy_timeout_answers_503(
    db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_MS", 300)
    client = create_app({"TURNPOST_DB": db_path, "TESTING": True}).test_client()
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = client.post("/api/v1/games", json=body).get_json()
    moves = f"/api/v1/games/{game['id']}/moves"
    seat = auth(game["players"][0]["token"])
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        refused = client.post(moves, json={"notation": WINNING_LINE[0]}, headers=seat)
        assert_unavailable(refused, refused.get_json())
        assert client.get(moves).get_json() == [], "WAL readers still read"
    finally:
        holder.rollback()
        holder.close()
    played = client.post(moves, json={"notation": WINNING_LINE[0]}, headers=seat)
    assert played.status_code == 201, played.get_json()
