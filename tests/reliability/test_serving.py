"""The serving model against clients that hold connections (issue 11).

gthread workers read request headers in their pool threads with no
deadline: 34 sockets sending one header line every 3 s took every thread,
and ``/healthz`` timed out for everyone. Under gevent workers a slow client
holds a greenlet, not a thread, and is cut off when its headers are not in
after ``HEADER_SECONDS``. These tests hold more slow clients and event
streams than the old server had threads and check that moves and reads are
still answered; how fast is measured by ``bench/load.py`` (docs/performance.md).
"""

from __future__ import annotations

import socket
import sqlite3
import threading
import time
from collections.abc import Iterator

import pytest
import requests

from server.serving import HEADER_SECONDS
from tests.reliability.conftest import start_unlimited
from tests.server.test_api import auth, create_siam, submit
from tests.support import BackgroundServer, start_background

SLOW_CLIENTS = 100
LISTENERS = 200


@pytest.fixture
def server(tmp_path) -> Iterator[BackgroundServer]:
    """A gunicorn server with the default serving model (rate limits out of the way)."""
    server = start_unlimited(str(tmp_path / "serving.db"))
    yield server
    server.stop()


def connect(server: BackgroundServer, source: str = "127.0.0.1") -> socket.socket:
    """A TCP connection to the server from ``source`` (any 127.x.y.z address is this machine)."""
    host, port = server.url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=10, source_address=(source, 0))


def test_slow_clients_neither_block_others_nor_stay(server: BackgroundServer) -> None:
    game = create_siam(server)
    slow = [connect(server) for _ in range(SLOW_CLIENTS)]
    for sock in slow:
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")
    started = time.monotonic()
    try:
        for tick in range(3):
            for sock in slow:  # one header line each, now and then
                sock.sendall(f"X-Slow-{tick}: yes\r\n".encode())
            assert requests.get(f"{server.url}/healthz", timeout=10).status_code == 200
            assert requests.get(server.api(f"/games/{game['id']}"), timeout=10).status_code == 200
            time.sleep(1)
        moved = submit(server, game, 0, {"notation": "enter a1 N", "expected_seq": 0})
        assert moved.status_code == 201
        time.sleep(max(0.0, started + HEADER_SECONDS + 1 - time.monotonic()))
        cut = sum(1 for sock in slow if closed_by_server(sock))
        assert cut == SLOW_CLIENTS, "clients whose headers never ended are cut off"
    finally:
        for sock in slow:
            sock.close()


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed this connection (EOF or reset) without answering."""
    sock.settimeout(2)
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_hundreds_of_listeners_get_every_move_and_moves_still_pass(
    server: BackgroundServer,
) -> None:
    """More open streams than the old server's 2 x 8 stream slots and 2 x 16 threads together."""
    game = create_siam(server)
    path = f"/api/v1/games/{game['id']}/events"
    listeners = [connect(server) for _ in range(LISTENERS)]
    try:
        for sock in listeners:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode())
        for sock in listeners:
            assert read_until(sock, b": connected\n\n").startswith(b"HTTP/1.1 200")
        for seq, notation in enumerate(["enter a1 N", "enter e1 N"]):
            response = submit(server, game, seq % 2, {"notation": notation, "expected_seq": seq})
            assert response.status_code == 201
        for sock in listeners:
            assert b"id: 2\nevent: move" in read_until(sock, b"id: 2\n")
        token = game["players"][0]["token"]
        legal = requests.get(server.api(f"/games/{game['id']}/legal-moves"), headers=auth(token))
        assert legal.status_code == 200 and legal.json()["moves"]
    finally:
        for sock in listeners:
            sock.close()


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    """What the socket sends until ``marker`` has been seen (chunked framing left in)."""
    received = b""
    while marker not in received:
        chunk = sock.recv(65536)
        assert chunk, f"closed before {marker!r}: {received[-200:]!r}"
        received += chunk
    return received


def test_a_move_waiting_for_the_database_stalls_no_other_request(tmp_path) -> None:
    """Issue 27: SQLite waits for another process's write in its busy handler, in C: under
    gevent that held the worker's whole loop, so one waiting move stopped every read of
    the worker. One worker here, and another process holding SQLite's write lock."""
    db_path = str(tmp_path / "waiting.db")
    server = start_background(db_path, workers=1)
    try:
        game = create_siam(server)
        holder = sqlite3.connect(db_path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # another process's write, not yet committed
        moved: list[requests.Response] = []
        mover = threading.Thread(
            target=lambda: moved.append(submit(server, game, 0, {"notation": "enter a1 N"}))
        )
        mover.start()
        try:
            time.sleep(1)  # the move now waits for the write lock
            assert not moved, "the move waits for the other process's write"
            started = time.monotonic()
            read = requests.get(server.api(f"/games/{game['id']}"), timeout=5)
            waited = time.monotonic() - started
        finally:
            holder.execute("ROLLBACK")
            holder.close()
            mover.join(timeout=30)
        assert read.status_code == 200 and read.json()["seq"] == 0
        assert waited < 1, f"the read waited {waited:.1f} s behind the waiting move"
        assert moved[0].status_code == 201, "the move goes through once the lock is free"
    finally:
        server.stop()
