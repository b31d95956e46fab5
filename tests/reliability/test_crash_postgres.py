"""Crash durability on PostgreSQL: two app servers and two mail workers on one database,
SIGKILLed under load and restarted; every acknowledged move logged once, no mail sent twice.

The clients of :mod:`tests.reliability.test_crash` (each plays its own Siam
game, with ``expected_seq``, both seats mailed every turn) send to two
gunicorn servers, half of them to each; two ``turnpost worker`` processes send
the outbox to a real SMTP server (aiosmtpd). At random moments one server
(master and worker) and one mail worker are killed with SIGKILL and started
again, ``KILLS`` times, alternating. Then:

* every game's log is exactly the moves answered 201 plus the adopted
  uncertain ones (see :mod:`tests.reliability.test_crash`), the outbox holds
  one mail per position, and ``turnpost replay`` rebuilds every snapshot;
* every mail the SMTP server received is one outbox mail (its Message-ID is
  one row's), every mail the outbox says was sent arrived, and no two workers
  sent one mail: a Message-ID arrives twice only when a worker was killed
  after the SMTP server accepted it and before the row was marked sent (at
  most once per kill; the resend keeps the Message-ID, so mail clients show
  it once).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from aiosmtpd.controller import Controller
from click.testing import CliRunner

from server.cli import main
from server.store import open_store
from tests.mail.conftest import MAIL_SETTINGS, Sink
from tests.reliability.conftest import UNLIMITED
from tests.reliability.test_crash import (
    Cluster,
    Player,
    expected_mails,
    kill_server,
    logged_moves,
    opened_links,
    play,
)
from tests.servers import PostgresServer
from tests.support import BackgroundServer, free_port, run_command, start_background, table_rows

CLIENTS = 6
KILLS = 4
#: The most seconds a patient client thinks before a move.
THINK_SECONDS = 3.0
#: Seconds the mail workers sleep between rounds.
WORKER_INTERVAL = "0.2"


class PatientPlayer(Player):
    """A client that thinks a moment before each move, so that the workers mail turns that
    are still to play (a turn played at once supersedes its mail before it is sent)."""

    def step(self, session: requests.Session, cluster: Cluster) -> None:
        """Wait up to :data:`THINK_SECONDS`, then submit one move (see :class:`Player`)."""
        time.sleep(self.rng.uniform(0, THINK_SECONDS))
        super().step(session, cluster)


def start_server(db_url: str) -> BackgroundServer:
    """A gunicorn server (one worker process) on ``db_url``, mail settings and no limits."""
    return start_background(db_url, workers=1, environment={**UNLIMITED, **MAIL_SETTINGS})


def start_worker(db_url: str, smtp_url: str) -> subprocess.Popen:
    """``turnpost worker`` sending to ``smtp_url``."""
    env = {"TURNPOST_DB": db_url, "TURNPOST_SMTP_URL": smtp_url, **MAIL_SETTINGS}
    return run_command(["worker", "--interval", WORKER_INTERVAL], env)


def outbox(db_url: str) -> list[dict[str, Any]]:
    """Every outbox row, by column name."""
    store = open_store(db_url)
    try:
        return table_rows(store, "outbox")
    finally:
        store.close()


def create_games(server: BackgroundServer, seed: int) -> list[Player]:
    """``CLIENTS`` Siam games, both seats with an address; half their clients patient."""
    players = []
    for index in range(CLIENTS):
        seats = [{"name": n, "email": f"{n}{index}@example.org"} for n in ("ann", "bob")]
        body = {"engine": "siam", "players": seats, "seed": 0}
        created = requests.post(server.api("/games"), json=body, timeout=10)
        assert created.status_code == 201, created.text
        kind = PatientPlayer if index % 4 < 2 else Player  # each server gets both kinds
        players.append(kind(created.json(), random.Random(seed * 100 + index)))
    return players


@pytest.fixture(scope="module")
def smtp() -> Iterator[tuple[Sink, str]]:
    """A real SMTP server keeping what it receives, and its URL."""
    sink, port = Sink(), free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    yield sink, f"smtp://127.0.0.1:{port}"
    controller.stop()


def run_with_crashes(
    db_url: str, smtp_url: str, seed: int
) -> tuple[list[Player], list[Cluster], int]:
    """Play on two servers with two mail workers, killing one of each ``KILLS`` times;
    the players, the two slots (servers) and the worker kills."""
    rng = random.Random(seed)
    stop, failures = threading.Event(), []
    slots = [Cluster(start_server(db_url), seed, stop=stop, failures=failures) for _ in range(2)]
    workers = [start_worker(db_url, smtp_url) for _ in range(2)]
    players = create_games(slots[0].server, seed)
    opened_links(db_url, [player.game for player in players])
    for slot in slots:
        slot.up.set()
    threads = [
        threading.Thread(target=play, args=(player, slots[index % 2]))
        for index, player in enumerate(players)
    ]
    for thread in threads:
        thread.start()
    try:
        for kill in range(KILLS):
            time.sleep(rng.uniform(0.5, 1.5))
            slot = slots[kill % 2]
            slot.up.clear()
            workers[kill % 2].send_signal(signal.SIGKILL)
            kill_server(slot.server)
            workers[kill % 2].wait(timeout=10)
            slot.replace(start_server(db_url))
            workers[kill % 2] = start_worker(db_url, smtp_url)
            slot.up.set()
        time.sleep(1)
    finally:
        stop.set()
        for slot in slots:
            slot.up.set()
        for thread in threads:
            thread.join(timeout=30)
        for slot in slots:
            slot.server.stop()
            slot.logs.append(slot.server.log())
        for process in workers:
            process.terminate()
            process.communicate(timeout=30)
    return players, slots, KILLS


@pytest.fixture(scope="module")
def crashed(
    postgres_server: PostgresServer, smtp: tuple[Sink, str]
) -> tuple[str, list[Player], list[Cluster], Sink]:
    """A PostgreSQL database that went through ``KILLS`` crashes under load."""
    db_url = postgres_server.create_database(f"crash_{os.getpid()}_{time.time_ns()}")
    open_store(db_url).init()
    players, slots, _ = run_with_crashes(db_url, smtp[1], seed=time.time_ns())
    return db_url, players, slots, smtp[0]


def test_every_acknowledged_move_is_logged_once_on_either_server(crashed) -> None:
    db_url, players, slots, _ = crashed
    seed = slots[0].seed
    assert slots[0].failures == [], f"seed {seed}\n" + "\n".join(s.errors() for s in slots)
    assert all(player.uncertain is None for player in players)
    assert sum(player.acknowledged for player in players) >= CLIENTS * 5, "too little load"
    assert sum(player.lost for player in players) > 0, "no kill hit a request in flight"
    for player in players:
        assert logged_moves(db_url, player.game["id"]) == player.ledger, f"seed {seed}"
        rows = [r for r in outbox(db_url) if r["game_id"] == player.game["id"]]
        queued = sorted((r["seq"], r["kind"], r["seat"]) for r in rows)
        assert queued == sorted(expected_mails(player.ledger)), f"seed {seed}"


def test_no_mail_is_sent_twice_by_two_workers(crashed) -> None:
    db_url, _, _, sink = crashed
    received = Counter(str(message["Message-ID"]) for message in sink.messages)
    rows = outbox(db_url)
    ids = Counter(row["message_id"] for row in rows if row["message_id"])
    assert received, "no mail was sent"
    assert set(received) <= set(ids), "a mail arrived that no outbox row is"
    assert all(count == 1 for count in ids.values()), "two rows gave one Message-ID"
    sent = {row["message_id"] for row in rows if row["sent_at"] and row["message_id"]}
    assert sent <= set(received), "the outbox says sent, the SMTP server never got it"
    again = sum(count - 1 for count in received.values())
    assert again <= KILLS, f"{again} mails arrived twice, in {KILLS} worker kills"


def test_replay_rebuilds_every_snapshot(crashed) -> None:
    db_url, players, _, _ = crashed
    for player in players:
        result = CliRunner().invoke(
            main, ["replay", player.game["id"]], env={"TURNPOST_DB": db_url}
        )
        assert result.exit_code == 0, result.output
        assert f"OK: {len(player.ledger)} moves" in result.output
