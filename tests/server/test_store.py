"""The store on both backends (SQLite, PostgreSQL): one transaction per write, the log's
refusals, one winner per seq, claims (of mail, webhook deliveries and pushes) never shared,
changes heard; then SQLite's own: WAL, the append-only log enforced by the file's triggers, a
private file."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from server.errors import TurnpostError
from server.games.service import GameService, MoveRequest, Table
from server.store import open_store
from server.store.base import Conflict, Store
from server.store.records import (
    Analysis,
    NewMail,
    NewPush,
    NewSubscription,
    Player,
    TakebackOffer,
)
from tests.support import ROOT

NOW = "2026-01-01T00:00:00.000000Z"
LATER = "2026-01-01T00:10:00.000000Z"


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """A store on a fresh database, on each backend."""
    store = open_store(store_url)
    store.init()
    yield store
    store.close()


def played_game(store: Store) -> str:
    """A Siam game with one logged move; returns its id."""
    games = GameService(store)
    game = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {}, seed=1)
    games.submit(MoveRequest(game["id"], token=game["players"][0]["token"], notation="enter a1 N"))
    return game["id"]


def in_threads(count: int, task: Callable[[], Any]) -> list[Any]:
    """Run ``task`` in ``count`` threads released at once; what each returned or raised."""
    start = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(index: int) -> None:
        start.wait()
        try:
            results[index] = task()
        except Exception as error:  # noqa: BLE001 (the test looks at what each got)
            results[index] = error

    threads = [threading.Thread(target=run, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_a_failed_write_leaves_nothing(store: Store) -> None:
    game_id = played_game(store)
    [move] = store.moves(game_id)
    with pytest.raises(RuntimeError), store.write():
        store.update_game(game_id, {"seq": 2})
        store.append_move(replace(move, seq=2))
        raise RuntimeError("crash between writes")
    assert store.game(game_id).seq == 1
    assert [entry.seq for entry in store.moves(game_id)] == [1]


def test_a_second_entry_for_a_seq_is_refused(store: Store) -> None:
    game_id = played_game(store)
    [move] = store.moves(game_id)
    with pytest.raises(Conflict), store.write():
        store.append_move(replace(move, notation="exit a1"))
    assert store.moves(game_id) == [move]


def test_racing_submissions_for_one_seq_have_one_winner(store_url: str, store: Store) -> None:
    games = GameService(store)
    created = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {}, seed=2)
    game_id, seat_token = created["id"], created["players"][0]["token"]

    def submit() -> int:
        own = open_store(store_url)
        try:
            request = MoveRequest(game_id, token=seat_token, notation="enter a1 N")
            return GameService(own).submit(request)["seq"]
        finally:
            own.close()

    results = in_threads(4, submit)
    assert results.count(1) == 1, results
    assert all(isinstance(result, TurnpostError) for result in results if result != 1), results
    assert [entry.seq for entry in store.moves(game_id)] == [1]


def queue_mails(store: Store, game_id: str, count: int) -> None:
    """Put ``count`` mails due now in the outbox."""
    with store.write():
        for number in range(count):
            mail: NewMail = {
                "game_id": game_id,
                "seat": 0,
                "kind": "turn",
                "to_addr": f"ann{number}@example.org",
                "facts": None,
                "seq": 1,
                "created_at": NOW,
                "next_attempt_at": NOW,
                "rcpt_key": f"ann{number}@example.org",
                "client": None,
                "invitation": False,
            }
            store.queue_mail(mail)


def test_workers_claiming_at_once_never_take_one_mail_twice(store_url: str, store: Store) -> None:
    game_id = played_game(store)
    queue_mails(store, game_id, 40)
    every = claimed_by_racing_workers(store_url, lambda own: own.claim_due_mail(NOW, LATER, 3))
    assert sorted(every) == sorted(set(every)), "a mail was claimed twice"
    assert len(every) == store.outbox_count(game_id=game_id) == 40


def claimed_by_racing_workers(store_url: str, claim: Callable[[Store], list[Any]]) -> list[int]:
    """The ids four workers (each on its own store) took, claiming at once until none is
    left."""

    def work() -> list[int]:
        own = open_store(store_url)
        try:
            taken = []
            while batch := claim(own):
                taken.extend(row.id for row in batch)
            return taken
        finally:
            own.close()

    claims = in_threads(4, work)
    assert not [claim for claim in claims if isinstance(claim, Exception)], claims
    return [row_id for taken in claims for row_id in taken]


def test_workers_claiming_at_once_never_take_one_webhook_delivery_twice(
    store_url: str, store: Store
) -> None:
    game_id = played_game(store)
    for hook in range(4):
        store.add_webhook(game_id, f"http://127.0.0.1:9/hook{hook}", NOW)
    with store.write():
        for seq in range(10):
            store.queue_webhooks(game_id, "move", seq, {"seq": seq}, NOW, max_pending=100)
    every = claimed_by_racing_workers(
        store_url, lambda own: own.claim_due_webhooks(NOW, LATER, 3, per_webhook=2)
    )
    assert sorted(every) == sorted(set(every)), "a delivery was claimed twice"
    queued = store.webhook_deliveries(game_id)
    assert sorted(every) == sorted(delivery.id for delivery in queued)
    assert len(queued) == 40 and {delivery.attempts for delivery in queued} == {1}


def test_workers_claiming_at_once_never_take_one_push_twice(store_url: str, store: Store) -> None:
    games = [played_game(store), played_game(store)]
    with store.write():
        store.add_player(Player("p1", "ann@example.org", "ann", "Ann", "UTC", "en", "turn", NOW))
    for browser in range(10):
        subscription: NewSubscription = {
            "player_id": "p1",
            "endpoint": f"https://push.example.org/{browser}",
            "p256dh": "key",
            "auth": "auth",
            "created_at": NOW,
        }
        store.add_push_subscription(subscription, keep=10)
    with store.write():
        for game_id in games:
            for seat in (0, 1):
                push: NewPush = {
                    "game_id": game_id,
                    "seat": seat,
                    "seq": 1,
                    "payload": {"game": game_id},
                    "created_at": NOW,
                    "next_attempt_at": NOW,
                }
                assert store.queue_pushes("p1", push) == 10
    every = claimed_by_racing_workers(store_url, lambda own: own.claim_due_pushes(NOW, LATER, 3))
    assert sorted(every) == sorted(set(every)), "a push was claimed twice"
    again = store.claim_due_pushes(LATER, LATER, 100)  # every lease has run out, none sent
    assert sorted(push.id for push in again) == sorted(every)
    assert {push.attempts for push in again} == {1}, "a push was attempted twice"


def test_a_commit_elsewhere_wakes_a_waiting_store_within_a_second(
    store_url: str, store: Store
) -> None:
    seen = store.wait_for_change(None, 0)
    writer = open_store(store_url)
    woke: list[float] = []

    def wait() -> None:
        store.wait_for_change(seen, 10)
        woke.append(time.monotonic())

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    committed = time.monotonic()
    played_game(writer)
    waiter.join(timeout=15)
    writer.close()
    assert woke and woke[0] - committed < 1.0


def test_the_feed_cursor_passes_every_move_once(store: Store) -> None:
    cursor = store.last_move_cursor()
    first, second = played_game(store), played_game(store)
    seen = store.moves_since(cursor)
    assert [(move.game_id, move.seq) for _, move in seen] == [(first, 1), (second, 1)]
    assert store.moves_since(seen[-1][0]) == []
    assert store.last_move_cursor() >= seen[-1][0]


# -- SQLite's own ------------------------------------------------------------------------


@pytest.fixture
def sqlite_store(db_path: str):
    store = open_store(db_path)
    store.init()
    yield store
    store.close()


def test_database_is_in_wal_mode(sqlite_store: Store) -> None:
    assert sqlite_store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_logged_moves_cannot_be_updated(sqlite_store: Store) -> None:
    game_id = played_game(sqlite_store)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        sqlite_store.db.execute(
            "UPDATE moves SET notation = 'exit a1' WHERE game_id = ?", [game_id]
        )


def test_logged_moves_cannot_be_deleted(sqlite_store: Store) -> None:
    game_id = played_game(sqlite_store)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        sqlite_store.db.execute("DELETE FROM moves WHERE game_id = ?", [game_id])
    assert len(sqlite_store.moves(game_id)) == 1


def test_game_and_seq_are_unique(sqlite_store: Store) -> None:
    game_id = played_game(sqlite_store)
    duplicate = next(sqlite_store.db["moves"].rows_where("game_id = ?", [game_id]))
    with pytest.raises(sqlite3.IntegrityError):
        sqlite_store.db["moves"].insert(duplicate)


@pytest.mark.parametrize("statement", ["INSERT OR REPLACE INTO", "REPLACE INTO"])
def test_replace_cannot_rewrite_a_logged_move(db_path: str, statement: str) -> None:
    """Issue 11: REPLACE deletes the logged row without firing the DELETE trigger.

    Run on a plain connection to the real file (as the ``sqlite3`` shell would),
    not through the store: the refusal must live in the database itself.
    """
    store = open_store(db_path)
    store.init()
    game_id = played_game(store)
    store.close()
    conn = sqlite3.connect(db_path, isolation_level=None)
    try:
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(
                f"{statement} moves (game_id, seq, seat, move, public_move, notation, at)"
                " VALUES (?, 1, 0, '{}', '{}', 'exit a1', 'then')",
                [game_id],
            )
        rows = conn.execute("SELECT seq, notation FROM moves WHERE game_id = ?", [game_id])
        assert rows.fetchall() == [(1, "enter a1 N")]
    finally:
        conn.close()


def test_the_database_and_its_wal_files_are_private(db_path: str) -> None:
    """Issue 11: the database was created 0644, readable by every local user."""
    old_umask = os.umask(0o022)
    try:
        store = open_store(db_path)
        store.init()
        played_game(store)
        modes = {
            suffix: stat.S_IMODE(os.stat(db_path + suffix).st_mode)
            for suffix in ("", "-wal", "-shm")
        }
        store.close()
    finally:
        os.umask(old_umask)
    assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}


def test_an_existing_readable_database_is_made_private(db_path: str) -> None:
    open_store(db_path).close()
    os.chmod(db_path, 0o644)
    open_store(db_path).close()
    assert stat.S_IMODE(os.stat(db_path).st_mode) == 0o600


def test_a_games_page_version_changes_with_every_row_its_page_shows(store: Store) -> None:
    """A watcher's kept game page is found by it (server/http/pages.py): any change it
    misses would serve that page stale."""
    games = GameService(store)
    game_id = played_game(store)

    def version() -> str | None:
        return store.page_version(game_id, "table", 31)

    versions = [version()]

    def changed(write: Callable[[], Any]) -> None:
        with store.write():
            write()
        versions.append(version())
        assert versions[-1] != versions[-2], f"change {len(versions) - 1} went unseen"

    message = {"game_id": game_id, "thread": "table", "seat": 1, "via": "web", "at": LATER}
    said = store.add_message({**message, "text": "hello"})
    versions.append(version())
    assert versions[-1] != versions[-2], "a message went unseen"
    changed(lambda: store.forget_message_text(said.id, LATER, "host"))
    offer = TakebackOffer(game_id, 1, 0, [], LATER)
    changed(lambda: store.set_takeback_offer(offer))
    changed(lambda: store.set_takeback_offer(replace(offer, accepted_seats=[1])))
    changed(lambda: store.drop_takeback_offer(game_id))
    changed(lambda: store.update_seat(game_id, 1, {"name": "Bea"}))
    changed(lambda: store.update_game(game_id, {"turn_hours": 48.0, "deadline": LATER}))
    state = store.game(game_id).state
    changed(lambda: store.update_game(game_id, {"state": {**state, "turn": "other"}}))
    changed(lambda: store.save_analysis(Analysis(game_id, LATER, None)))
    games.create("siam", [{"name": "Ann"}, {"name": "Bea"}], {}, table=Table(rematch_of=game_id))
    assert version() != versions[-1], "a rematch went unseen"
    assert store.page_version("no-such-game", "table", 31) is None


#: Under gevent, a greenlet writing again and again on one connection, and another greenlet
#: on a connection of its own that wants to write once meanwhile (as two requests of a worker
#: with the app's store pool); prints the names written, in commit order.
TAKING_TURNS = """
from gevent import monkey

monkey.patch_all()
import json, sys
import gevent
from server.store import open_store

path = sys.argv[1]


def again_and_again():
    store = open_store(path)
    for number in range(10):
        store.set_setting(f"again {number}", "x")


def once():
    open_store(path).set_setting("once", "x")


first = gevent.spawn(again_and_again)
gevent.sleep(0)  # the first is in its first write: its COMMIT waits for a thread
second = gevent.spawn(once)
gevent.joinall([first, second], timeout=30)
rows = open_store(path).db.execute("SELECT name FROM settings ORDER BY rowid").fetchall()
print(json.dumps([name for (name,) in rows if name.startswith(("again", "once"))]))
"""


def test_a_greenlet_waiting_to_write_goes_before_the_writer_writes_again(db_path: str) -> None:
    """Issue 27: the writer lock is served in order under gevent. gevent's own lock let a
    greenlet that gave it back take it again before the greenlet waiting for it woke, so
    a worker's request could wait behind all the writes of another (p99 of moves past half
    a second in ``bench/writes.py``)."""
    open_store(db_path).init()
    code = [sys.executable, "-c", TAKING_TURNS, db_path]
    done = subprocess.run(code, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout)[:3] == ["again 0", "once", "again 1"]
