"""The SQLite store: WAL, the append-only log enforced by the database, unique (game, seq)."""

from __future__ import annotations

import sqlite3

import pytest

from server.service import GameService
from server.store import Store


@pytest.fixture
def store(db_path: str):
    store = Store.open(db_path)
    store.init()
    yield store
    store.close()


def played_game(store: Store) -> str:
    """A Siam game with one logged move; returns its id."""
    games = GameService(store)
    game = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {}, seed=1)
    games.submit(game["id"], game["players"][0]["token"], notation="enter a1 N")
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
    duplicate = {**store.moves(game_id)[0]}
    with pytest.raises(sqlite3.IntegrityError):
        store.db["moves"].insert(duplicate)


def test_failed_transaction_appends_nothing(store: Store) -> None:
    game_id = played_game(store)
    with pytest.raises(RuntimeError), store.write() as db:
        db["games"].update(game_id, {"seq": 99})
        raise RuntimeError("crash between writes")
    assert store.game(game_id)["seq"] == 1
