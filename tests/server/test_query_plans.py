"""The lists that must stay fast as games pile up read games, seats and moves by index.

Every statement that the lobby, a watcher's game page, the public list of games, a player's
games page, its live list, the catch-up of its event stream, ``GET /api/v1/me/games`` and the
worker's search for games to analyse run is recorded
(SQLite's trace callback on the app's connection) and its plan read with
``EXPLAIN QUERY PLAN``: no step may scan a whole table of games, seats, moves
or players, and a step that walks an index in order (the lobby's newest
tables) must be cut by a ``LIMIT`` and need no sort; only an index of rows
that leave it in time (:data:`BOUNDED`: the tables that form, which the
public list of games reads) may be read whole.
The figures are in ``docs/performance.md`` (``bench/players.py``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from server import create_app
from server.accounts.service import AccountService
from server.games.service import GameService, MoveRequest
from server.store import open_store
from server.store.records import Player

#: The tables that grow with the games; a full scan of one grows with them.
GROWING = ("games", "seats", "moves", "players", "sessions", "api_tokens")
SCAN = re.compile(r"^SCAN (\w+)( USING (?:COVERING )?INDEX (\w+))?")
#: Partial indexes whose rows leave them as time passes, however many games there are: the
#: tables that form (a table starts, or is cancelled after 14 days). Reading one whole, and
#: sorting what it holds, does not grow with the database.
BOUNDED = frozenset({"games_forming"})


@pytest.fixture
def signed_in(db_path: str) -> tuple[Any, dict[str, str]]:
    """An app whose database holds a player with running and finished games, and the
    player's ``session`` (its cookie's value) and personal API ``token``."""
    app = create_app({"TURNPOST_DB": db_path, "TESTING": True, "RATELIMIT_ENABLED": False})
    store = open_store(db_path)
    games = GameService(store)
    accounts = AccountService(store, "key")
    player = Player(
        id="p1",
        email="ann@example.org",
        email_key="ann@example.org",
        name="Ann",
        time_zone="Europe/Brussels",
        language="en",
        mail_pref="turn",
        created_at="2026-01-01T00:00:00.000000Z",
    )
    with store.write():
        store.add_player(player)
    for number in range(6):
        game = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {}, turn_hours=24)
        with store.write():
            store.tie_seat(game["id"], number % 2, "p1")
        games.submit(MoveRequest(game["id"], seat=0, notation="enter a1 N"))
        if number == 5:
            games.resign(game["id"], 1)
    session = accounts.open_session("p1")
    token = accounts.create_api_token("p1", "plans")["token"]
    store.close()
    return app, {"session": session, "token": token}


def statements(app: Any, requests: list[tuple[str, str | None, str | None]]) -> list[str]:
    """Every SELECT the app runs to answer ``requests`` (path, session, API token)."""
    turnpost = app.extensions["turnpost"]
    ran: list[str] = []
    with app.app_context():
        turnpost.store().db.conn.set_trace_callback(ran.append)  # the pool's one connection
    for path, session, token in requests:
        client = app.test_client()
        if session:
            client.set_cookie("turnpost_player", session)
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = client.get(path, headers=headers)
        assert answer.status_code == 200, (path, answer.status_code)
    with app.app_context():
        turnpost.store().db.conn.set_trace_callback(None)
    return [sql for sql in ran if sql.lstrip().upper().startswith("SELECT")]


def plan(app: Any, sql: str) -> list[str]:
    """The steps of ``sql``'s query plan."""
    with app.app_context():
        rows = app.extensions["turnpost"].store().db.execute(f"EXPLAIN QUERY PLAN {sql}")
        return [row[3] for row in rows.fetchall()]


def full_scans(sql: str, steps: list[str]) -> list[str]:
    """The steps of a plan that read a growing table whole.

    Walking an index in order is bounded only when the statement stops after
    ``LIMIT`` rows and needs no sort of its own.
    """
    found = []
    for step in steps:
        scan = SCAN.match(step)
        if scan is None or scan.group(1) not in GROWING or scan.group(3) in BOUNDED:
            continue
        ordered = scan.group(2) and " LIMIT " in sql.upper()
        if not ordered or any("TEMP B-TREE" in other for other in steps):
            found.append(step)
    return found


def test_the_lists_read_games_seats_and_moves_by_index(signed_in) -> None:
    app, player = signed_in
    session, token = player["session"], player["token"]
    with app.app_context():
        (game_id,) = (
            app.extensions["turnpost"].store().db.execute("SELECT id FROM games").fetchone()
        )
    ran = statements(
        app,
        [
            ("/", None, None),
            (f"/games/{game_id}", None, None),  # a watcher's page and table: their version
            (f"/games/{game_id}/live", None, None),
            ("/", session, None),
            ("/api/v1/games", None, None),
            ("/me/games", session, None),
            ("/me/games/live", session, None),
            ("/api/v1/me/games", None, token),
            ("/api/v1/me/games", session, None),
        ],
    )
    with app.app_context():  # the catch-up of the player's stream (its answer never ends)
        store = app.extensions["turnpost"].store()
        store.db.conn.set_trace_callback(ran.append)
        store.player_moved_since("p1", 0)
        store.games_to_analyse(5)  # the worker's search for finished games to analyse
        store.db.conn.set_trace_callback(None)
    assert any("FROM seats AS s JOIN games" in sql for sql in ran), "the player's games ran no SQL"
    assert any("status = 'forming'" in sql for sql in ran), "the lobby's tables ran no SQL"
    assert any("WHERE creator_id =" in sql for sql in ran), "the lobby's own games ran no SQL"
    assert any("FROM analyses" in sql for sql in ran), "the analysis search ran no SQL"
    assert any("CROSS JOIN" in sql for sql in ran), "the game page's version ran no SQL"
    scans = {sql: full_scans(sql, plan(app, sql)) for sql in ran}
    assert {sql: steps for sql, steps in scans.items() if steps} == {}


def test_a_full_scan_is_told_apart_from_an_index_walk() -> None:
    assert full_scans("SELECT * FROM games", ["SCAN games"]) == ["SCAN games"]
    walk = ["SCAN games USING INDEX games_updated"]
    assert full_scans("SELECT * FROM games ORDER BY updated_at DESC LIMIT 50", walk) == []
    assert full_scans("SELECT * FROM games ORDER BY updated_at DESC", walk) == walk
    sorted_walk = [*walk, "USE TEMP B-TREE FOR ORDER BY"]
    assert full_scans("SELECT * FROM games ORDER BY x LIMIT 5", sorted_walk) == walk
    assert full_scans("SELECT 1", ["SCAN json_each VIRTUAL TABLE INDEX 1:"]) == []
    tables = ["SCAN games USING INDEX games_forming", "USE TEMP B-TREE FOR ORDER BY"]
    assert full_scans("SELECT * FROM games WHERE status = 'forming' ORDER BY x", tables) == []
