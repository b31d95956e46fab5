"""PostgreSQL's own guarantees, on a real server: the move log refuses to be rewritten from
any connection, the feed's cursor never passes a move committed late, and an unreachable or
stopped server is reported as unavailable."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import replace

import psycopg
import pytest
import requests

from server.store import open_store
from server.store.base import Store, StoreUnavailable
from server.store.postgres import PostgresStore
from tests.conftest import new_database
from tests.server.test_api import create_siam, read_event, submit
from tests.server.test_store import played_game
from tests.servers import as_postgres_user, postgres_bin, running_postgres
from tests.support import free_port, start_background


@pytest.fixture
def url(request: pytest.FixtureRequest, tmp_path) -> str:
    return new_database(request, "postgresql", tmp_path)


@pytest.fixture
def store(url: str) -> Iterator[Store]:
    store = open_store(url)
    store.init()
    yield store
    store.close()


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE moves SET notation = 'exit a1' WHERE game_id = %s",
        "DELETE FROM moves WHERE game_id = %s",
        "TRUNCATE moves CASCADE",
        "INSERT INTO moves (game_id, seq, seat, move, public_move, notation, at)"
        " VALUES (%s, 1, 0, '{}', '{}', 'exit a1', 'then')",
        "INSERT INTO moves (game_id, seq, seat, move, public_move, notation, at)"
        " VALUES (%s, 1, 0, '{}', '{}', 'exit a1', 'then')"
        " ON CONFLICT (game_id, seq) DO UPDATE SET notation = excluded.notation",
    ],
)
def test_the_log_refuses_a_plain_connection(url: str, store: Store, statement: str) -> None:
    """As ``psql`` would: the refusal lives in the database, not in the store."""
    game_id = played_game(store)
    with psycopg.connect(url, autocommit=True) as conn:
        with pytest.raises(psycopg.errors.IntegrityError, match="append-only|duplicate key"):
            conn.execute(statement, [game_id] if "%s" in statement else None)
        rows = conn.execute("SELECT seq, notation FROM moves WHERE game_id = %s", [game_id])
        assert rows.fetchall() == [(1, "enter a1 N")]


def test_a_move_committed_late_is_not_passed_by_the_cursor(url: str, store: Store) -> None:
    """A write that logged first but commits last: the feed reads it after, never skips it."""
    early = played_game(store)
    [move] = store.moves(early)
    cursor = store.last_move_cursor()
    logged, release = threading.Event(), threading.Event()

    def slow_write() -> None:
        own = open_store(url)
        with own.write():
            own.update_game(early, {"seq": 2})
            own.append_move(replace(move, seq=2))
            logged.set()
            release.wait(30)
        own.close()

    writer = threading.Thread(target=slow_write)
    writer.start()
    assert logged.wait(30)
    quick = played_game(store)  # committed while the slow write is still open
    first = store.moves_since(cursor)
    release.set()
    writer.join(30)
    later = store.moves_since(first[-1][0] if first else cursor)
    read = [(m.game_id, m.seq) for _, m in first + later]
    assert sorted(read) == sorted([(early, 2), (quick, 1)]), read


def test_a_stopped_server_is_unavailable() -> None:
    with running_postgres() as server:
        url = server.create_database("doomed")
        store = open_store(url)
        store.init()
        game_id = played_game(store)
        pg_ctl = [str(postgres_bin() / "pg_ctl"), "-D", str(server.socket_dir / "data")]
        subprocess.run(as_postgres_user([*pg_ctl, "-m", "fast", "stop"]), check=True)
        with pytest.raises(StoreUnavailable):
            store.game(game_id)
        with pytest.raises(StoreUnavailable):
            store.wait_for_change(None, 1)


def test_an_unreachable_server_is_unavailable() -> None:
    store = PostgresStore(f"postgresql://nobody@127.0.0.1:{free_port()}/turnpost")
    with pytest.raises(StoreUnavailable):
        store.game("any")


def test_a_move_held_behind_a_running_write_reaches_its_stream_when_that_ends(url: str) -> None:
    """The feed reads only moves older than every running transaction: a move committed
    while another write runs is published once that write ends, though it notifies nothing."""
    server = start_background(url, workers=1)
    store = open_store(url)
    try:
        held, moving = create_siam(server), create_siam(server)
        events = server.api(f"/games/{moving['id']}/events")
        with requests.get(events, stream=True, timeout=10) as stream:
            lines = stream.iter_lines(decode_unicode=True)
            arrived: list[float] = []

            def read() -> None:
                read_event(lines)
                arrived.append(time.monotonic())

            reader = threading.Thread(target=read)
            with store.write():
                store.update_game(held["id"], {"updated_at": "2026-01-01T00:00:00Z"})
                submit(server, moving, 0, {"notation": "enter a1 N"})
                reader.start()
                reader.join(1.5)
                assert not arrived, "a move passed a transaction still running"
                ended = time.monotonic()
            reader.join(10)
            assert arrived, "the move never reached its stream"
            assert arrived[0] - ended < 1.0
    finally:
        store.close()
        server.stop()
