"""PostgreSQL's migrations: the same steps as SQLite's, so a schema version means the same;
``init`` creates, then finds nothing to do; processes starting at once migrate once; a
database of an older schema that holds a game played by today's app (copied column by
column into what the old tables have) upgrades without losing a row, and the game plays on."""

from __future__ import annotations

import json
from typing import Any

import psycopg
import pytest
import sqlite_utils

from server import create_app
from server.games.service import GameService, MoveRequest
from server.phrases import render
from server.store import open_store
from server.store.base import canonical_json
from server.store.migrations import migrations as sqlite_migrations
from server.store.postgres_migrations import MIGRATIONS, migrate
from server.store.sqlite import SqliteStore
from tests.api.receivers import LOOPBACK
from tests.conftest import new_database
from tests.server.test_migrations import OPENING, PLAYERS
from tests.server.test_store import in_threads
from tests.support import run_command


def test_the_steps_are_sqlites_steps() -> None:
    sqlite = SqliteStore.open(":memory:")
    sqlite.init()
    applied = [step.name for step in sqlite_migrations.applied(sqlite.db)]
    assert [name for name, _ in MIGRATIONS] == applied


def test_init_creates_then_finds_nothing_to_do(request: pytest.FixtureRequest, tmp_path) -> None:
    store = open_store(new_database(request, "postgresql", tmp_path))
    assert store.schema_version() == 0
    created = store.init()
    assert (created.before, created.after, created.created) == (0, len(MIGRATIONS), True)
    again = store.init()
    assert (again.before, again.after, again.created) == (len(MIGRATIONS), len(MIGRATIONS), False)
    assert store.schema_version() == len(MIGRATIONS)


def test_processes_starting_at_once_migrate_once(request: pytest.FixtureRequest, tmp_path) -> None:
    url = new_database(request, "postgresql", tmp_path)
    changes = in_threads(4, lambda: open_store(url).init())
    assert sorted(change.created for change in changes) == [False, False, False, True], changes
    assert open_store(url).schema_version() == len(MIGRATIONS)


def test_the_commands_create_and_tell_the_version(request: pytest.FixtureRequest, tmp_path) -> None:
    url = new_database(request, "postgresql", tmp_path)
    made = run_command(["init-db"], {"TURNPOST_DB": url})
    out, err = made.communicate(timeout=60)
    assert made.returncode == 0, err
    assert f"schema version {len(MIGRATIONS)}" in out and url in out
    told = run_command(["db-version"], {"TURNPOST_DB": url})
    out, err = told.communicate(timeout=60)
    assert told.returncode == 0, err
    assert out.strip().endswith(f"postgresql, schema version {len(MIGRATIONS)}")
    assert open_store(url).schema_version() == len(MIGRATIONS)


# -- an upgrade of a database that holds a game ---------------------------------------------

#: The old schema: the last before the move log's sentences became phrases (m023), so before
#: takebacks, clocks, chat pings and analyses too.
OLD_UNTIL = "m023_move_phrases"
#: The tables of the game copied into the old schema, as it had them.
GAME_TABLES = (
    "games",
    "seats",
    "seat_tokens",
    "moves",
    "outbox",
    "idempotency",
    "webhooks",
    "webhook_deliveries",
    "messages",
)
NAMES = [player["name"] for player in PLAYERS]


def played_today(scratch: str) -> dict[str, Any]:
    """A Siam game played by today's app on the SQLite file ``scratch``: mailed seats, a
    webhook and its deliveries, two moves sent with an ``Idempotency-Key``, a message."""
    app = create_app(
        {"TURNPOST_DB": scratch, "TESTING": True, "TURNPOST_WEBHOOK_NETWORKS": LOOPBACK}
    )
    client = app.test_client()
    game = client.post("/api/v1/games", json={"engine": "siam", "players": PLAYERS}).get_json()
    auth = [{"Authorization": f"Bearer {seat['token']}"} for seat in game["players"]]
    hook = client.post(
        f"/api/v1/games/{game['id']}/webhooks",
        json={"url": "http://127.0.0.1:9/hook"},
        headers={"Authorization": f"Bearer {game['admin_token']}"},
    )
    assert hook.status_code == 201, hook.get_json()
    for ply, notation in enumerate(OPENING):
        answer = client.post(
            f"/api/v1/games/{game['id']}/moves",
            json={"notation": notation},
            headers={**auth[ply % 2], "Idempotency-Key": "k"},
        )
        assert answer.status_code == 201, answer.get_json()
    said = client.post(
        f"/api/v1/games/{game['id']}/messages", json={"text": "Good luck!"}, headers=auth[0]
    )
    assert said.status_code == 201, said.get_json()
    return game


def old_rows(scratch: str, conn: psycopg.Connection) -> dict[str, list[dict[str, Any]]]:
    """The rows of :data:`GAME_TABLES` on ``scratch``, each with the columns the old schema on
    ``conn`` has (a move's description as the English sentence old releases kept)."""
    kept: dict[str, list[str]] = {}
    for table, column in conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = 'public' AND is_generated = 'NEVER' AND identity_generation"
        " IS DISTINCT FROM 'ALWAYS' ORDER BY table_name, ordinal_position"
    ):
        kept.setdefault(table, []).append(column)
    kept["moves"].remove("xact")  # PostgreSQL's own: the transaction that logs a move
    db = sqlite_utils.Database(scratch)
    rows = {}
    for table in GAME_TABLES:
        rows[table] = [{column: row[column] for column in kept[table]} for row in db[table].rows]
    for move in rows["moves"]:
        move["description"] = render(json.loads(move["description"]), NAMES, "en")
    db.close()
    return rows


def insert_rows(conn: psycopg.Connection, rows: dict[str, list[dict[str, Any]]]) -> None:
    """Insert ``rows`` (JSON as text, as SQLite keeps it), table by table."""
    for table, table_rows in rows.items():
        for row in table_rows:
            marks = ", ".join("%s" for _ in row)
            conn.execute(
                f"INSERT INTO {table} ({', '.join(row)}) VALUES ({marks})", [*row.values()]
            )


def same_value(kept: Any, held: Any) -> bool:
    """Whether a value as inserted is the value the database holds (JSON compared as JSON)."""
    if kept == held:
        return True
    try:
        return json.loads(kept) == (json.loads(held) if isinstance(held, str) else held)
    except (TypeError, ValueError):
        return False


def test_an_old_database_holding_a_game_upgrades_and_loses_nothing(
    request: pytest.FixtureRequest, tmp_path
) -> None:
    url = new_database(request, "postgresql", tmp_path)
    game = played_today(str(tmp_path / "scratch.db"))
    store = open_store(url)
    with store.write() as conn:
        old = migrate(conn, stop_before=OLD_UNTIL)
        rows = old_rows(str(tmp_path / "scratch.db"), conn)
        insert_rows(conn, rows)
    assert all(rows.values()), {table: len(held) for table, held in rows.items()}
    assert old == (0, [name for name, _ in MIGRATIONS].index(OLD_UNTIL), True)
    upgrade = store.init()
    assert (upgrade.before, upgrade.after) == (old[1], len(MIGRATIONS))
    with store.write() as conn:
        for table, inserted in rows.items():
            columns = ", ".join(inserted[0])
            order = "rowid" if table in ("games", "moves", "seat_tokens") else columns
            held = conn.execute(f"SELECT {columns} FROM {table} ORDER BY {order}").fetchall()
            assert len(held) == len(inserted), table
            for row, values in zip(inserted, held, strict=True):
                for (column, kept), value in zip(row.items(), values, strict=True):
                    if (table, column) == ("moves", "description"):
                        kept = json.dumps({"text": kept})  # m023: the old sentence, kept
                    assert same_value(kept, value), (table, column, kept, value)
    games = GameService(store)
    loaded = games.load(game["id"])
    assert loaded.seq == 2 and canonical_json(games.replay(loaded)) == canonical_json(loaded.state)
    sentences = [entry["description"] for entry in games.move_log(loaded)]
    assert sentences == [move["description"] for move in rows["moves"]]
    assert len(store.webhook_deliveries(game["id"])) == len(rows["webhook_deliveries"]) > 0
    assert store.outbox_count(game_id=game["id"]) == len(rows["outbox"]) > 0
    token = game["players"][0]["token"]
    again = games.submit(
        MoveRequest(game["id"], token=token, notation=OPENING[0], idempotency_key="k")
    )
    assert again["seq"] == 1, "the first answer to key k: the idempotency record survived"
    answer = games.submit(MoveRequest(game["id"], token=token, notation="enter a2 N"))
    assert answer["seq"] == 3
    store.close()
