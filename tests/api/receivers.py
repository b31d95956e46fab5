"""Webhook receivers for the tests, real local servers: an honest one, and one that answers a
byte every few seconds (issue 20); and delivery rounds as the worker runs them."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from server.store import open_store
from server.webhooks.delivery import MAX_PENDING, deliver_due
from server.webhooks.destinations import Destinations

#: What the tests' operator allows webhooks to reach: the local receivers.
LOOPBACK = "127.0.0.1/32"


class Receiver:
    """A local HTTP server that records each request and answers the next queued status,
    after ``delay`` seconds."""

    def __init__(self, delay: float = 0.0) -> None:
        self.requests: list[dict[str, Any]] = []
        self.statuses: list[int] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                time.sleep(delay)
                receiver.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": body}
                )
                self.send_response(receiver.statuses.pop(0) if receiver.statuses else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook?game=1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def events(self) -> list[dict[str, Any]]:
        """The JSON bodies received, in order."""
        return [json.loads(request["body"]) for request in self.requests]


class Listener:
    """A local TCP server that records when each connection came and hands it to
    :meth:`_answer` (in a thread of its own) until stopped."""

    def __init__(self, scheme: str = "http", path: str = "/slow") -> None:
        #: When each connection came (``time.monotonic()``).
        self.connections: list[float] = []
        self.stopped = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"{scheme}://127.0.0.1:{self.listener.getsockname()[1]}{path}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections.append(time.monotonic())
            threading.Thread(
                target=self._answer, args=(conn, len(self.connections)), daemon=True
            ).start()

    def _answer(self, conn: socket.socket, number: int) -> None:
        """Answer the ``number``th connection."""
        raise NotImplementedError

    def stop(self) -> None:
        """Stop listening and answering."""
        self.stopped.set()
        self.listener.close()

    def wait_for_connection(self, count: int = 1, timeout: float = 20.0) -> None:
        """Wait until ``count`` connections came."""
        deadline = time.monotonic() + timeout
        while len(self.connections) < count:
            assert time.monotonic() < deadline, f"{len(self.connections)} connections, not {count}"
            time.sleep(0.05)


class Trickler(Listener):
    """A receiver that reads the request, then answers one byte every ``gap`` seconds, never
    finishing (the attack of issue 20), after sending ``head`` at once; connections after the
    first ``trickled`` get ``200`` at once."""

    ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"

    def __init__(self, gap: float = 1.0, trickled: int = 1, head: bytes = b"") -> None:
        self.gap, self.trickled, self.head = gap, trickled, head
        super().__init__()

    def _answer(self, conn: socket.socket, number: int) -> None:
        with conn:
            conn.recv(65536)
            if number > self.trickled:
                conn.sendall(self.ANSWER)
                return
            conn.sendall(self.head)
            endless = (self.head or self.ANSWER[:17] + b"X-Slow: ") + b"z" * 60000
            for byte in endless[len(self.head) :]:
                if self.stopped.wait(self.gap):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return


class Mute(Listener):
    """An ``https`` receiver that accepts each connection and never says a word: a TLS
    handshake with it waits for an answer that never comes (until it is stopped)."""

    def __init__(self) -> None:
        super().__init__("https", "/hook")

    def _answer(self, conn: socket.socket, number: int) -> None:
        with conn:
            self.stopped.wait()


class Blackhole:
    """A receiver that drops the packets opening a connection, as a firewall blackholing them
    does: its listening socket's backlog is full and never accepted from, so the kernel drops
    each new connection's SYNs."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=0)
        address = self.listener.getsockname()
        self.url = f"http://127.0.0.1:{address[1]}/hook"
        self.queued: list[socket.socket] = []
        while opened := self._opened(address):  # the last one's SYNs were dropped
            self.queued.append(opened)

    @staticmethod
    def _opened(address: tuple[str, int]) -> socket.socket | None:
        """A connection to ``address`` if it opens within a moment."""
        try:
            return socket.create_connection(address, timeout=0.3)
        except TimeoutError:
            return None

    def stop(self) -> None:
        """Close the listening socket and the connections queued on it."""
        for sock in self.queued:
            sock.close()
        self.listener.close()


def deliver_round(app: Any, now: str | None = None) -> tuple[int, int]:
    """One delivery round of ``app``'s webhooks, as the worker runs it."""
    with app.app_context():
        store = app.extensions["turnpost"].store()
        policy = Destinations.from_settings("", app.config.get("TURNPOST_WEBHOOK_NETWORKS", ""))
        return deliver_due(store, app.config["SECRET_KEY"], policy, now)


def deliver(app: Any, now: str | None = None) -> tuple[int, int]:
    """Delivery rounds of ``app``'s webhooks until none is due at ``now``, as ``send-webhooks``
    runs them; ``(delivered, failed)`` in all."""
    delivered = failed = 0
    while sum(outcome := deliver_round(app, now)):
        delivered, failed = delivered + outcome[0], failed + outcome[1]
    return delivered, failed


def flood(db_path: str, game_id: str, moves: int, at: str) -> None:
    """Queue the webhook events of ``moves`` moves of ``game_id``, as playing them does."""
    store = open_store(db_path)
    with store.write():
        for seq in range(1, moves + 1):
            body = {"event": "move", "game_id": game_id, "seq": seq, "notation": "x"}
            store.queue_webhooks(game_id, "move", seq, body, at, MAX_PENDING)
    store.close()
