"""Fixtures for mail tests: a real SMTP server (aiosmtpd) that keeps what it receives."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from server import create_app
from server.gunicorn import free_port
from server.service import GameService
from server.store import Store

DOMAIN = "play.example.org"


@dataclass
class Sink:
    """An aiosmtpd handler keeping every received message."""

    messages: list[EmailMessage] = field(default_factory=list)
    recipients: list[list[str]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.messages.append(BytesParser(policy=policy.default).parsebytes(envelope.content))
        self.recipients.append(list(envelope.rcpt_tos))
        return "250 OK"


@pytest.fixture
def smtp_sink() -> Iterator[tuple[Sink, str]]:
    """A running SMTP server and its ``smtp://`` URL."""
    sink = Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    yield sink, f"smtp://127.0.0.1:{port}"
    controller.stop()


@pytest.fixture
def mail_app(db_path: str, smtp_sink: tuple[Sink, str]):
    """An app on a fresh database whose mail goes to the sink."""
    return create_app(
        {
            "TURNPOST_DB": db_path,
            "TESTING": True,
            "TURNPOST_MAIL_DOMAIN": DOMAIN,
            "TURNPOST_BASE_URL": "https://turnpost.example.org",
            "TURNPOST_SMTP_URL": smtp_sink[1],
        }
    )


@pytest.fixture
def games(mail_app) -> Iterator[GameService]:
    """The game service of ``mail_app`` on its own store connection."""
    turnpost = mail_app.extensions["turnpost"]
    store = Store.open(turnpost.db_path)
    yield GameService(store, turnpost.notifier)
    store.close()
