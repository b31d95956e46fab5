"""Backups that restore: ``turnpost backup`` while a real server takes moves, ``turnpost
restore`` into a fresh database, and every game of the copy replays to its snapshot; on
SQLite (its online backup) and on PostgreSQL (``pg_dump`` and ``pg_restore``)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from server.games.service import GameService
from server.store import open_store
from server.store.base import Store, canonical_json
from tests.conftest import new_database
from tests.reliability.conftest import start_unlimited
from tests.server.test_api import auth, create_siam, move_of
from tests.support import BackgroundServer, run_command

GAMES = 4
BACKUPS = 3
KEEP = 2
ON_BOTH_BACKENDS = True


class Mover(threading.Thread):
    """Plays random legal moves in ``games`` through the server until stopped; counts them."""

    def __init__(self, server: BackgroundServer, games: list[dict]) -> None:
        super().__init__(daemon=True)
        self.server, self.games = server, games
        self.stop = threading.Event()
        self.played = 0
        self.errors: list[str] = []

    def run(self) -> None:
        """Move in each game in turn (one whose game ended is left alone)."""
        rng = random.Random(26)
        with requests.Session() as session:
            while not self.stop.is_set():
                for game in self.games:
                    self.move(session, game, rng)

    def move(self, session: requests.Session, game: dict, rng: random.Random) -> None:
        """One legal move of the seat to move in ``game``, if it waits for one."""
        api = self.server.api
        view = session.get(api(f"/games/{game['id']}"), timeout=10).json()
        if not view["to_move"]:
            return
        headers = auth(game["players"][view["to_move"][0]]["token"])
        legal = session.get(api(f"/games/{game['id']}/legal-moves"), headers=headers, timeout=10)
        options = legal.json()
        body = {"move": move_of(rng.choice(options["moves"])), "expected_seq": options["seq"]}
        answer = session.post(
            api(f"/games/{game['id']}/moves"), json=body, headers=headers, timeout=10
        )
        if answer.status_code == 201:
            self.played += 1
        else:
            self.errors.append(answer.text)


def fresh_database(request: pytest.FixtureRequest, backend: str, folder: Path) -> str:
    """A fresh, empty database of ``backend`` (a SQLite file in ``folder``)."""
    folder.mkdir()
    return new_database(request, backend, folder)


@pytest.fixture
def server(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> Iterator[BackgroundServer]:
    """A gunicorn server on a database of its own."""
    running = start_unlimited(fresh_database(request, backend, tmp_path / "live"))
    yield running
    running.stop()


def turnpost(command: list[str], db: str) -> tuple[int, str, str]:
    """Run ``turnpost COMMAND`` on the database ``db``: its exit status, stdout and stderr."""
    process = run_command(command, {"TURNPOST_DB": db})
    out, err = process.communicate(timeout=60)
    return process.returncode, out, err


def replays_equal(store: Store, game_id: str) -> bool:
    """Whether the game's move log rebuilds its stored snapshot."""
    games = GameService(store)
    game = games.load(game_id)
    return canonical_json(games.replay(game)) == canonical_json(game.state)


def test_backup_under_moves_restores_into_a_fresh_database_and_replays(
    request: pytest.FixtureRequest, backend: str, server: BackgroundServer, tmp_path: Path
) -> None:
    games = [create_siam(server) for _ in range(GAMES)]
    mover = Mover(server, games)
    mover.start()
    folder = tmp_path / "backups"
    folder.mkdir()
    try:
        for _ in range(BACKUPS):
            before = mover.played
            status, out, err = turnpost(
                ["backup", str(folder), "--keep", str(KEEP)], server.db_path
            )
            assert status == 0, err
            time.sleep(1.1)  # the next copy gets the next second's name
            assert mover.played > before, "no move was played while the backup ran"
    finally:
        mover.stop.set()
        mover.join(timeout=30)
    assert not mover.errors
    kept = sorted(folder.glob("turnpost-*.backup"))
    assert len(kept) == KEEP
    assert "Removed the older backup" in out
    assert all(path.stat().st_mode & 0o777 == 0o600 for path in kept)

    fresh = fresh_database(request, backend, tmp_path / "fresh")
    status, out, err = turnpost(["restore", str(kept[-1])], fresh)
    assert status == 0, err
    assert "Restored" in out

    live, restored = open_store(server.db_path), open_store(fresh)
    try:
        assert restored.setting("secret_key") == live.setting("secret_key") is not None
        logged = 0
        for game in games:
            copy, now = restored.moves(game["id"]), live.moves(game["id"])
            assert copy == now[: len(copy)]  # the copy is the log at one moment
            assert replays_equal(restored, game["id"])
            logged += len(copy)
        assert logged > 0
    finally:
        live.close()
        restored.close()


def test_restore_refuses_to_overwrite_a_database_unless_told(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> None:
    db, copy = fresh_database(request, backend, tmp_path / "db"), tmp_path / "copy.backup"
    status, _, err = turnpost(["backup", str(copy)], db)
    assert status == 0, err
    store = open_store(db)
    try:
        game = GameService(store).create("siam", [{"name": "Ann"}, {"name": "Bob"}], {})
    finally:
        store.close()
    status, _, err = turnpost(["restore", str(copy)], db)
    assert status == 1
    assert "already holds a Turnpost database" in err and "--replace" in err
    status, out, err = turnpost(["restore", "--replace", str(copy)], db)
    assert status == 0, err
    store = open_store(db)
    try:
        assert store.game(game["id"]) is None, "the game made after the backup is gone"
        assert store.schema_version() > 0
    finally:
        store.close()


def test_restore_refuses_a_file_that_is_no_backup(
    request: pytest.FixtureRequest, backend: str, tmp_path: Path
) -> None:
    junk = tmp_path / "junk.backup"
    junk.write_text("not a database " * 100)
    fresh = fresh_database(request, backend, tmp_path / "fresh")
    status, _, err = turnpost(["restore", str(junk)], fresh)
    assert status == 1
    assert "is not a Turnpost backup" in err
    store = open_store(fresh)
    try:
        assert store.schema_version() == 0  # nothing was restored
    finally:
        store.close()


def test_keep_needs_a_folder(tmp_path: Path) -> None:
    db = str(tmp_path / "turnpost.db")
    status, _, err = turnpost(["backup", str(tmp_path / "one.backup"), "--keep", "3"], db)
    assert status == 1
    assert "give a folder as DEST" in err
    assert not (tmp_path / "one.backup").exists()
