"""Issue 20, the webhook findings of an outside attack, replayed: a receiver answering a byte at a
time, one that never answers the TLS handshake, one that drops the packets opening a connection,
and a name that never resolves (against a delivery round, and against ``turnpost worker`` run as
a child process beside a real SMTP server), and a game flooding its webhooks beside an honest
game."""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest

from server import create_app
from server.games.clock import format_time, parse_time, utcnow
from server.store import open_store
from server.store.records import WebhookDelivery
from server.webhooks.delivery import DEADLINE_SECONDS, MAX_PENDING, deliver_due, verify
from server.webhooks.destinations import configured
from tests.api.conftest import new_game, play, register
from tests.api.receivers import (
    LOOPBACK,
    Blackhole,
    Mute,
    Receiver,
    Trickler,
    deliver,
    deliver_round,
    flood,
)
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


def stop_time(worker: subprocess.Popen, wait: Callable[[], object]) -> tuple[float, str]:
    """SIGTERM ``worker`` once ``wait()`` returned; the seconds it took to exit (it exits 0),
    and its output."""
    try:
        wait()
        started = time.monotonic()
        worker.send_signal(signal.SIGTERM)
        out, err = worker.communicate(timeout=15)
        took = time.monotonic() - started
    finally:
        if worker.returncode is None:
            stopped(worker)
    assert worker.returncode == 0, err
    return took, out


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


def mailed_game(mail_app, url: str) -> tuple[Any, dict[str, Any]]:
    """A game whose every turn is mailed, with a webhook to ``url`` and Ann's first move
    played (Bob's turn mail and a delivery due); a test client, and the game."""
    client = mail_app.test_client()
    created = client.post("/api/v1/games", json={"engine": "siam", "players": PLAYERS})
    game: dict[str, Any] = created.get_json()
    with mail_app.app_context():  # both players opened their mails' links: every turn is mailed
        opened_links(mail_app.extensions["turnpost"].service(), game)
    register(client, game, url)
    play(client, game, 0, "enter a1 N")
    return client, game


def next_turn_mailed(client: Any, game: dict[str, Any], sink: Sink) -> float:
    """Wait for Bob's turn mail, then play his move: the seconds Ann's turn mail took."""
    wait_until(lambda: turn_mails(sink, "bob@example.org") == 1, 10, "Bob's turn mail")
    play(client, game, 1, "enter e5 S")
    return wait_until(lambda: turn_mails(sink, "ann@example.org") == 1, 8, "Ann's turn mail")


def first_delivery(db_path: str, game: dict[str, Any]) -> WebhookDelivery:
    """The first delivery of ``game``'s webhooks, as it stands."""
    store = open_store(db_path)
    try:
        return store.webhook_deliveries(game["id"])[0]
    finally:
        store.close()


def claimed(db_path: str, game: dict[str, Any]) -> bool:
    """Whether a worker claimed the first delivery of ``game`` (its next attempt leased)."""
    next_attempt = first_delivery(db_path, game).next_attempt_at
    return next_attempt is not None and parse_time(next_attempt) > parse_time(utcnow()) + timedelta(
        seconds=60
    )


def stalled(receiver: Mute | Blackhole, db_path: str, game: dict[str, Any]) -> float:
    """Wait until a worker's delivery to ``receiver`` stalls (a second in the step it stalls
    in: connecting, or the TLS handshake); when it was claimed (``time.monotonic()``)."""
    wait_until(lambda: claimed(db_path, game), 20, "the delivery claimed")
    claimed_at = time.monotonic()
    if isinstance(receiver, Mute):
        receiver.wait_for_connection()
    time.sleep(1.0)
    return claimed_at


def test_a_delivery_stalled_before_its_request_fails_within_the_deadline_and_holds_up_no_mail(
    mail_app,
    smtp_sink: tuple[Sink, str],  # noqa: F811 (the fixture imported)
    stalling: Mute | Blackhole,
    db_path: str,
) -> None:
    """A receiver that never answers the TLS handshake, or drops the packets opening a
    connection, holds neither the worker's mail nor its own delivery past the deadline."""
    sink, smtp_url = smtp_sink
    client, game = mailed_game(mail_app, stalling.url)
    worker = start_worker(db_path, smtp_url)
    try:
        claimed_at = stalled(stalling, db_path, game)
        assert next_turn_mailed(client, game, sink) < 4
        wait_until(lambda: first_delivery(db_path, game).last_error is not None, 15, "failed")
        took = time.monotonic() - claimed_at
    finally:
        out, err = stopped(worker)
    assert worker.returncode == 0, err
    assert DEADLINE_SECONDS - 1 < took < DEADLINE_SECONDS + 2
    row = first_delivery(db_path, game)
    assert row.last_error == f"no answer within {DEADLINE_SECONDS:g} s"
    assert row.delivered_at is None and row.next_attempt_at is not None, "tried again"


def test_sigterm_stops_the_worker_within_seconds_while_a_delivery_stalls_before_its_request(
    allowed_app, stalling: Mute | Blackhole, db_path: str
) -> None:
    client = allowed_app.test_client()
    game = new_game(client)
    register(client, game, stalling.url)
    play(client, game, 0, "enter a1 N")
    took, out = stop_time(start_worker(db_path), lambda: stalled(stalling, db_path, game))
    assert took < 3 and "worker stopped" in out
    row = first_delivery(db_path, game)
    assert row.last_error == "the worker stopped during the delivery"


@pytest.fixture
def hung_resolver(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A system resolver that answers no lookup (until the test ends): the resolver hook of
    ``socket.getaddrinfo``, the only part a test cannot make slow for real."""
    released = threading.Event()

    def never_answers(*args: Any, **kwargs: Any) -> list[Any]:
        released.wait()
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", never_answers)
    yield
    released.set()


@pytest.mark.parametrize("stop_after", [None, 1.0])
def test_a_lookup_that_never_ends_is_cut_at_the_deadline_or_the_stop(
    allowed_app, hung_resolver: None, db_path: str, stop_after: float | None
) -> None:
    client = allowed_app.test_client()
    game = new_game(client)
    assert register(client, game, "https://hooks.example.org/in").status_code == 201
    play(client, game, 0, "enter a1 N")
    stop = threading.Event()
    if stop_after is not None:
        threading.Timer(stop_after, stop.set).start()
    started = time.monotonic()
    with allowed_app.app_context():
        store = allowed_app.extensions["turnpost"].store()
        assert deliver_due(store, "key", configured(allowed_app.config), stop=stop) == (0, 1)
    took = time.monotonic() - started
    row = first_delivery(db_path, game)
    if stop_after is None:
        assert DEADLINE_SECONDS - 0.5 < took < DEADLINE_SECONDS + 1
        assert row.last_error == f"no answer within {DEADLINE_SECONDS:g} s"
    else:
        assert took < stop_after + 1
        assert row.last_error == "the worker stopped during the delivery"
    assert row.next_attempt_at is not None, "tried again"


def test_a_turn_mail_goes_out_promptly_while_a_webhook_trickles(
    mail_app,
    smtp_sink: tuple[Sink, str],  # noqa: F811 (the fixture imported)
    trickler: Trickler,
    db_path: str,
) -> None:
    """The attack: with a webhook answering a byte every 5 s, no turn mail went out for 150 s."""
    sink, smtp_url = smtp_sink
    client, game = mailed_game(mail_app, trickler.url)
    worker = start_worker(db_path, smtp_url)
    try:
        trickler.wait_for_connection()
        assert next_turn_mailed(client, game, sink) < 4
        assert time.monotonic() - trickler.connections[0] < DEADLINE_SECONDS, "still trickling"
    finally:
        out, err = stopped(worker)
    assert worker.returncode == 0, err
    assert "worker stopped" in out


def test_sigterm_stops_the_worker_within_seconds_in_the_middle_of_a_delivery(
    trickled_game: dict[str, Any], trickler: Trickler, db_path: str
) -> None:
    def reading_the_answer() -> None:
        trickler.wait_for_connection()
        time.sleep(1.5)  # a byte or two trickled: the worker is reading the answer

    took, out = stop_time(start_worker(db_path), reading_the_answer)
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
