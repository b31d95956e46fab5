"""The SQLite store: WAL, the append-only log enforced by the database, unique (game, seq)."""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest

from server.games.service import GameService, MoveRequest
from server.store import open_store
from server.store.base import Store


@pytest.fixture
def store(db_path: str):
    store = open_store(db_path)
    store.init()
    yield store
    store.close()


def played_game(store: Store) -> str:
    """A Siam game with one logged move; returns its id."""
    games = GameService(store)
    game = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {}, seed=1)
    games.submit(MoveRequest(game["id"], token=game["players"][0]["token"], notation="enter a1 N"))
    return game["id"]


def test_database_is_in_wal_mode(store: Store) -> None:
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_logged_moves_cannot_be_updated(store: Store) -> None:
    game_id = played_game(store)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.db.execute("UPDATE moves SET notation = 'exit a1' WHERE game_id = ?", [game_id])


def test_logged_moves_cannot_be_deleted(store: Store) -> None:
    game_id = played_game(store)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.db.execute("DELETE FROM moves WHERE game_id = ?", [game_id])
    assert len(store.moves(game_id)) == 1


def test_game_and_seq_are_unique(store: Store) -> None:
    game_id = played_game(store)
    duplicate = next(store.db["moves"].rows_where("game_id = ?", [game_id]))
    with pytest.raises(sqlite3.IntegrityError):
        store.db["moves"].insert(duplicate)


def test_failed_transaction_appends_nothing(store: Store) -> None:
    game_id = played_game(store)
    with pytest.raises(RuntimeError), store.write() as db:
        db["games"].update(game_id, {"seq": 99})
        raise RuntimeError("crash between writes")
    assert store.game(game_id).seq == 1


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
