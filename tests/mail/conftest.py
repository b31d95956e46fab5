"""Fixtures for mail tests: a real SMTP server (aiosmtpd) that keeps what it receives,
the players' mailboxes on it, and replies as players write them."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from click.testing import CliRunner

from server import create_app
from server.cli import main
from server.games.service import GameService
from server.mail.delivery import deliver_due
from server.store import open_store
from tests.support import BackgroundServer, free_port, run_command, start_background

DOMAIN = "play.example.org"
BASE_URL = "https://turnpost.example.org"
#: The mail settings of the processes of a test: links on BASE_URL, replies to DOMAIN.
MAIL_SETTINGS = {"TURNPOST_MAIL_DOMAIN": DOMAIN, "TURNPOST_BASE_URL": BASE_URL}


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
def mail_app(db_url: str, smtp_sink: tuple[Sink, str]):
    """An app on a fresh database whose mail goes to the sink."""
    return create_app(
        {
            "TURNPOST_DB": db_url,
            "TESTING": True,
            "TURNPOST_MAIL_DOMAIN": DOMAIN,
            "TURNPOST_BASE_URL": BASE_URL,
            "TURNPOST_SMTP_URL": smtp_sink[1],
        }
    )


@pytest.fixture
def games(mail_app) -> Iterator[GameService]:
    """The game service of ``mail_app`` on its own store connection."""
    turnpost = mail_app.extensions["turnpost"]
    store = open_store(turnpost.db_url)
    yield GameService(store, turnpost.notifier)
    store.close()


PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]


def reply_to(turn: EmailMessage, text: str, **headers: str) -> bytes:
    """A human reply to ``turn`` with ``text`` on top and the turn mail quoted below."""
    message = EmailMessage()
    message["From"] = turn["To"]
    message["To"] = turn["Reply-To"]
    message["Subject"] = "Re: " + turn["Subject"]
    message["Message-ID"] = make_msgid(domain="example.org")
    message["In-Reply-To"] = turn["Message-ID"]
    for name, value in headers.items():
        del message[name.replace("_", "-")]
        message[name.replace("_", "-")] = value
    quoted = "\n".join("> " + line for line in turn.get_body(("plain",)).get_content().splitlines())
    message.set_content(f"{text}\n\nOn Monday, Turnpost wrote:\n{quoted}\n")
    return bytes(message)


def send(
    games: GameService, now: str | None = None, smtp_url: str | None = None
) -> tuple[int, int]:
    """Deliver the due outbox rows (to ``smtp_url`` if given); ``(mails sent, rows failed)``."""
    settings = games.notifier.settings
    if smtp_url is not None:
        settings = dataclasses.replace(settings, smtp_url=smtp_url)
    report = deliver_due(games.store, settings, now)
    return report.count("sent"), report.count("failed")


class Mailbox:
    """The players' side: delivered mails, newest turn mail per seat."""

    def __init__(self, games: GameService, sink: Sink, url: str) -> None:
        self.games, self.sink, self.url = games, sink, url

    def latest(self, address: str, subject_start: str = "Your turn") -> EmailMessage:
        """Deliver pending mail, then the newest mail to ``address`` with that subject."""
        send(self.games)
        mails = [
            m
            for m in self.sink.messages
            if m["To"] == address and m["Subject"].startswith(subject_start)
        ]
        assert mails, f"no '{subject_start}' mail to {address}"
        return mails[-1]


@pytest.fixture
def mailbox(games: GameService, smtp_sink: tuple[Sink, str]) -> Mailbox:
    return Mailbox(games, *smtp_sink)


def mail_in_outcomes(db_url: str, smtp_url: str, raw: bytes, *recipients: str) -> list[dict]:
    """Run ``turnpost mail-in RECIPIENTS...`` with ``raw`` on stdin; its JSON outcomes."""
    env = {"TURNPOST_DB": db_url, "TURNPOST_MAIL_DOMAIN": DOMAIN, "TURNPOST_SMTP_URL": smtp_url}
    result = CliRunner().invoke(main, ["mail-in", *recipients], input=raw, env=env)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines()]


def mail_in(db_url: str, smtp_url: str, raw: bytes) -> dict:
    """Run ``turnpost mail-in`` with ``raw`` on stdin; its JSON outcome."""
    [outcome] = mail_in_outcomes(db_url, smtp_url, raw)
    return outcome


def opened_links(games: GameService, game: dict) -> None:
    """Every player of ``game`` opened their mail's link (as following it does), so each gets
    every turn mail from now on, whoever moves for them (see ``server.mail.gate``)."""
    for player in game["players"]:
        games.player_acted(game["id"], player["seat"])


@pytest.fixture
def mail_server(db_url: str) -> Iterator[BackgroundServer]:
    """gunicorn with the mail settings (its mails are queued; a worker sends them)."""
    server = start_background(db_url, workers=1, environment=MAIL_SETTINGS)
    yield server
    server.stop()


@pytest.fixture
def worker(db_url: str, smtp_sink: tuple[Sink, str], mail_server: BackgroundServer) -> Iterator:
    """``turnpost worker`` in a child process, sending to the SMTP sink every 0.2 s."""
    env = {"TURNPOST_DB": db_url, "TURNPOST_SMTP_URL": smtp_sink[1], **MAIL_SETTINGS}
    process = run_command(["worker", "--interval", "0.2"], env)
    yield process
    process.terminate()
    process.communicate(timeout=30)


def first_mail(sink: Sink, address: str, subject_start: str = "") -> EmailMessage:
    """The first mail to ``address`` (with that subject), waiting for the worker to send it."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        mails = [
            mail
            for mail in sink.messages
            if mail["To"] == address and str(mail["Subject"]).startswith(subject_start)
        ]
        if mails:
            return mails[0]
        time.sleep(0.1)
    raise AssertionError(f"no mail to {address}")


def log(games: GameService, game_id: str) -> list[str]:
    """The notations in the log."""
    return [m.notation for m in games.store.moves(game_id)]


# A fresh browser context per person (tests/web/conftest.py) opens the links of mails;
# the screenshots of pages go where the browser tests put theirs.
from tests.web.conftest import new_context, screenshots  # noqa: E402, F401
