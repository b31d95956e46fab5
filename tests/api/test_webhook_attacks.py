"""Issue 20, the webhook findings of an outside attack, replayed: a receiver answering a byte at a
time (against a delivery round, and against ``turnpost worker`` run as a child process beside a
real SMTP server), and a game flooding its webhooks beside an honest game."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from server import create_app
from server.games.clock import format_time, parse_time, utcnow
from server.store import open_store
from server.webhooks.delivery import DEADLINE_SECONDS, MAX_PENDING, verify
from tests.api.conftest import new_game, play, register
from tests.api.receivers import LOOPBACK, Receiver, Trickler, deliver, deliver_round, flood
from tests.mail.conftest import (  # noqa: F401 (smtp_sink: a fixture)
    DOMAIN,
    PLAYERS,
    Sink,
    opened_links,
    smtp_sink,
)
from tests.support import run_command

#: Seconds ``turnpost worker`` waits between mail rounds in these tests.
INTERVAL = "0.5"


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> float:
    """Wait until ``condition()`` holds; the seconds it took."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout, f"not within {timeout} s: {what}"
        time.sleep(0.05)
    return time.monotonic() - started


def stopped(worker: subprocess.Popen) -> tuple[str, str]:
    """Stop ``worker`` (SIGTERM, then SIGKILL after 15 s); its output."""
    worker.terminate()
    try:
        return worker.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        worker.kill()
        return worker.communicate()


@pytest.fixture
def trickled_game(allowed_app, trickler: Trickler) -> dict[str, Any]:
    """A game with a webhook to the trickler and a move played (one delivery due)."""
    client = allowed_app.test_client()
    game = new_game(client)
    register(client, game, trickler.url)
    play(client, game, 0, "enter a1 N")
    return game


def test_a_trickling_receiver_fails_within_the_deadline_and_is_retried_later(
    allowed_app, trickled_game: dict[str, Any], trickler: Trickler, db_path: str
) -> None:
    now = utcnow()
    started = time.monotonic()
    assert deliver_round(allowed_app, now) == (0, 1)
    assert DEADLINE_SECONDS - 0.5 < time.monotonic() - started < DEADLINE_SECONDS + 2
    [row] = open_store(db_path).webhook_deliveries(trickled_game["id"])
    assert row.last_error == f"no answer within {DEADLINE_SECONDS:g} s"
    assert row.next_attempt_at == format_time(parse_time(now) + timedelta(seconds=30))
    assert deliver_round(allowed_app, now) == (0, 0), "not claimed again before its retry"
    later = format_time(parse_time(now) + timedelta(seconds=31))
    assert deliver_round(allowed_app, later) == (1, 0), "the receiver answers the retry at once"
    assert len(trickler.connections) == 2


def test_an_answer_whose_body_trickles_is_decided_by_its_status_at_the_deadline(
    allowed_app, db_path: str
) -> None:
    trickler = Trickler(head=b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
    client = allowed_app.test_client()
    game = new_game(client)
    register(client, game, trickler.url)
    play(client, game, 0, "enter a1 N")
    started = time.monotonic()
    assert deliver_round(allowed_app) == (1, 0)
    assert DEADLINE_SECONDS - 0.5 < time.monotonic() - started < DEADLINE_SECONDS + 2
    trickler.stop()
    [row] = open_store(db_path).webhook_deliveries(game["id"])
    assert row.delivered_at and row.last_status == 200


@pytest.fixture
def mail_app(db_path: str, smtp_sink: tuple[Sink, str]):  # noqa: F811 (the fixture imported)
    """An app mailing to the SMTP sink and allowing webhooks to loopback."""
    return create_app(
        {
            "TURNPOST_DB": db_path,
            "TESTING": True,
            "TURNPOST_MAIL_DOMAIN": DOMAIN,
            "TURNPOST_SMTP_URL": smtp_sink[1],
            "TURNPOST_WEBHOOK_NETWORKS": LOOPBACK,
        }
    )


def start_worker(db_path: str, smtp_url: str = "") -> subprocess.Popen:
    """``turnpost worker`` in a child process, with the tests' mail and webhook settings."""
    env = {
        "TURNPOST_DB": db_path,
        "TURNPOST_SMTP_URL": smtp_url,
        "TURNPOST_MAIL_DOMAIN": DOMAIN,
        "TURNPOST_WEBHOOK_NETWORKS": LOOPBACK,
    }
    return run_command(["worker", "--interval", INTERVAL], env)


def turn_mails(sink: Sink, address: str) -> int:
    """How many turn mails ``address`` got."""
    return sum(m["To"] == address and m["Subject"].startswith("Your turn") for m in sink.messages)


def test_a_turn_mail_goes_out_promptly_while_a_webhook_trickles(
    mail_app,
    smtp_sink: tuple[Sink, str],  # noqa: F811 (the fixture imported)
    trickler: Trickler,
    db_path: str,
) -> None:
    """The attack: with a webhook answering a byte every 5 s, no turn mail went out for 150 s."""
    sink, smtp_url = smtp_sink
    client = mail_app.test_client()
    created = client.post("/api/v1/games", json={"engine": "siam", "players": PLAYERS})
    game: dict[str, Any] = created.get_json()
    with mail_app.app_context():  # both players opened their mails' links: every turn is mailed
        opened_links(mail_app.extensions["turnpost"].service(), game)
    register(client, game, trickler.url)
    play(client, game, 0, "enter a1 N")
    worker = start_worker(db_path, smtp_url)
    try:
        trickler.wait_for_connection()
        wait_until(lambda: turn_mails(sink, "bob@example.org") == 1, 10, "Bob's turn mail")
        play(client, game, 1, "enter e5 S")
        took = wait_until(lambda: turn_mails(sink, "ann@example.org") == 1, 8, "Ann's turn mail")
        assert took < 4
        assert time.monotonic() - trickler.connections[0] < DEADLINE_SECONDS, "still trickling"
    finally:
        out, err = stopped(worker)
    assert worker.returncode == 0, err
    assert "worker stopped" in out


def test_sigterm_stops_the_worker_within_seconds_in_the_middle_of_a_delivery(
    trickled_game: dict[str, Any], trickler: Trickler, db_path: str
) -> None:
    worker = start_worker(db_path)
    try:
        trickler.wait_for_connection()
        time.sleep(1.5)  # a byte or two trickled: the worker is reading the answer
        started = time.monotonic()
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=15)
        took = time.monotonic() - started
    finally:
        if worker.returncode is None:
            stopped(worker)
    assert worker.returncode == 0, err
    assert took < 3 and "worker stopped" in out
    [row] = open_store(db_path).webhook_deliveries(trickled_game["id"])
    assert row.delivered_at is None and row.next_attempt_at is not None, "tried again"
    assert row.last_error == "the worker stopped during the delivery"


def test_a_flooded_game_does_not_keep_another_games_event_waiting(
    allowed_app, receiver: Receiver, db_path: str
) -> None:
    """The attack: one game's 5 webhooks and 1,000 moves queued 5,000 deliveries, and another
    game's event was not delivered in 90 s."""
    client = allowed_app.test_client()
    flooding = new_game(client)
    slow = Receiver(delay=0.2)
    for _ in range(5):
        register(client, flooding, slow.url)
    flood(db_path, flooding["id"], 1000, utcnow())
    queued = open_store(db_path).webhook_deliveries(flooding["id"])
    assert len(queued) == 5 * MAX_PENDING, "each webhook keeps its newest events only"
    honest = new_game(client)
    register(client, honest, receiver.url)
    play(client, honest, 0, "enter a1 N")
    started = time.monotonic()
    deliver_round(allowed_app)
    assert [event["game_id"] for event in receiver.events()] == [honest["id"]]
    assert time.monotonic() - started < 2
    assert len(slow.requests) == 5, "one delivery of each flooding webhook went in that round"
    slow.server.shutdown()


def test_a_backlog_past_the_cap_is_dropped_and_the_next_event_says_what_was_missed(
    allowed_app, receiver: Receiver, db_path: str
) -> None:
    client = allowed_app.test_client()
    game = new_game(client)
    hook = register(client, game, receiver.url).get_json()
    moves = 2 * MAX_PENDING + 20
    flood(db_path, game["id"], moves, utcnow())
    assert deliver(allowed_app) == (20, 0)
    events = receiver.events()
    assert [event["seq"] for event in events] == list(range(2 * MAX_PENDING + 1, moves + 1))
    assert events[0]["missed"] == {"from_seq": 1, "to_seq": 2 * MAX_PENDING}
    assert not any("missed" in event for event in events[1:])
    first = receiver.requests[0]
    headers = first["headers"]
    assert verify(
        hook["secret"], headers["Turnpost-Delivery"], first["body"], headers["Turnpost-Signature"]
    ), "the body as sent, missed included, is what is signed"
