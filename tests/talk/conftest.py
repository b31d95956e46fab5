"""Helpers of the table-talk tests: games and seats on a real server, messages, streams."""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests

from server.http.pages import seat_cookie
from tests.support import BackgroundServer

NAMES = ["Ann", "Bob", "Cleo", "Dan"]
XSS = "<script>alert(1)</script>"


def create(server: BackgroundServer, engine: str = "siam", players: int = 2) -> dict[str, Any]:
    """A game created over the API (with every seat's token and the admin token)."""
    body = {"engine": engine, "players": [{"name": name} for name in NAMES[:players]]}
    answer = requests.post(server.api("/games"), json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()


def auth(token: str) -> dict[str, str]:
    """The Authorization header of ``token``."""
    return {"Authorization": f"Bearer {token}"}


def say(
    server: BackgroundServer, game: dict, token: str | None, text: Any, thread: str = "table"
) -> requests.Response:
    """POST a message with ``token`` (``None``: none)."""
    return requests.post(
        server.api(f"/games/{game['id']}/messages"),
        json={"text": text, "thread": thread},
        headers=auth(token) if token else {},
        timeout=10,
    )


def said(
    server: BackgroundServer, game: dict, thread: str = "table", token: str | None = None
) -> requests.Response:
    """GET a thread, with ``token`` (``None``: none)."""
    return requests.get(
        server.api(f"/games/{game['id']}/messages"),
        params={"thread": thread},
        headers=auth(token) if token else {},
        timeout=10,
    )


def seat_token(game: dict, seat: int) -> str:
    """The token handed out for ``seat`` at creation."""
    return game["players"][seat]["token"]


@dataclass
class Browser:
    """A seat taken by following its link in a plain HTTP session (cookies and all)."""

    server: BackgroundServer
    game: dict
    session: requests.Session = field(default_factory=requests.Session)

    def take(self, seat: int) -> Browser:
        """Follow the seat's link as its player does (the handed token is then revoked)."""
        link = f"{self.server.url}/games/{self.game['id']}/seat/{seat_token(self.game, seat)}"
        page = self.session.get(link, headers={"Sec-Fetch-Site": "none"}, timeout=10)
        assert page.status_code == 200 and "(you)" in page.text, page.text[:300]
        return self

    @property
    def token(self) -> str:
        """The token this browser holds for its seat (what its cookie carries)."""
        return self.session.cookies[seat_cookie(self.game["id"])]

    def page(self) -> str:
        """The game page as this browser sees it."""
        answer = self.session.get(f"{self.server.url}/games/{self.game['id']}", timeout=10)
        assert answer.status_code == 200
        return answer.text

    def post(self, path: str, **form: Any) -> requests.Response:
        """POST a form of the game page (with its CSRF token) to ``/games/<id>/<path>``."""
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', self.page())[1]
        return self.session.post(
            f"{self.server.url}/games/{self.game['id']}/{path}",
            data={"csrf_token": csrf, **form},
            timeout=10,
        )


class Stream:
    """An event stream read in a thread: every event it got, as ``(event, data)``."""

    def __init__(self, url: str, **headers: str) -> None:
        self.events: list[tuple[str, Any]] = []
        self.opened = threading.Event()
        self.got = threading.Condition()
        self.response = requests.get(url, headers=headers, stream=True, timeout=30)
        assert self.response.status_code == 200, self.response.text
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        assert self.opened.wait(10)

    def _read(self) -> None:
        event: dict[str, str] = {}
        try:
            for line in self.response.iter_lines(decode_unicode=True):
                if line == ": connected":
                    self.opened.set()
                elif line == "" and "data" in event:
                    with self.got:
                        self.events.append((event.get("event", ""), json.loads(event["data"])))
                        self.got.notify_all()
                    event = {}
                elif line and not line.startswith(":"):
                    name, _, value = line.partition(": ")
                    event[name] = value
        except (requests.exceptions.RequestException, AttributeError):
            return  # closed by the test

    def wait_for(self, text: str, timeout: float = 15) -> list[tuple[str, Any]]:
        """Every event up to the message whose text is ``text`` (fails if it never comes)."""
        with self.got:
            found = self.got.wait_for(
                lambda: any(
                    kind == "message" and data["text"] == text for kind, data in self.events
                ),
                timeout,
            )
        assert found, f"no message {text!r} on the stream: {self.events}"
        return list(self.events)

    def close(self) -> None:
        """Stop reading: the socket shut first, which wakes the thread blocked reading it
        (closing alone waits for that read, until the stream's next heartbeat)."""
        connection = self.response.raw.connection
        if connection is not None and connection.sock is not None:
            with suppress(OSError):
                connection.sock.shutdown(socket.SHUT_RDWR)
        self.response.close()


@pytest.fixture
def streams() -> Iterator[list[Stream]]:
    """The streams a test opened, closed at its end."""
    opened: list[Stream] = []
    yield opened
    for stream in opened:
        stream.close()


# The mail tests' SMTP server, app, game service and mailboxes (tests/mail/conftest.py), and
# the browser tests' separate browser contexts (tests/web/conftest.py).
from tests.mail.conftest import games, mail_app, mail_server, mailbox, smtp_sink, worker  # noqa: E402, F401
from tests.web.conftest import new_context, screenshots  # noqa: E402, F401
