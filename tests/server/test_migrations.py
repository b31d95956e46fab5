"""Migrations: databases made by older Turnposts are upgraded on start and stay playable.

The old databases are built from the CREATE statements their release left
in ``sqlite_master`` (``fixtures/schema-*.sql``), then given a game played
by today's Turnpost, copied column by column into what the old tables have.
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import sqlite3
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from click.testing import CliRunner

from server import create_app
from server.cli import demo_game, main
from server.games.game import log_entry
from server.games.service import GameService, MoveRequest
from server.mail.outbox import Notifier
from server.mail.settings import MailSettings
from server.phrases import render
from server.store import open_store
from server.store.base import canonical_json
from server.store.migrations import migrate, migrations
from server.store.records import LoggedMove
from server.store.sqlite import SqliteStore

FIXTURES = Path(__file__).parent / "fixtures"
OLD_SCHEMAS = {
    "first release": FIXTURES / "schema-b92bc0d.sql",
    "before versioned migrations": FIXTURES / "schema-d593141.sql",
}
TABLES = ("games", "seats", "moves", "outbox", "idempotency")
APPEND_ONLY = {"moves_no_update", "moves_no_delete", "moves_no_replace"}
PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]
OPENING = ["enter a1 N", "enter e5 S"]
#: The schema version of a database with every migration applied.
LATEST = migrate(sqlite_utils.Database(memory=True)).after


def old_database(path: str, schema: Path) -> None:
    """A database file with ``schema``'s tables, as its release made them."""
    conn = sqlite3.connect(path)
    conn.executescript(schema.read_text())
    conn.close()


def played_into(path: str, scratch: str) -> dict[str, Any]:
    """Play two moves of a Siam game (with mail) on ``scratch``, copy its rows into ``path``."""
    store = open_store(scratch)
    store.init()
    games = GameService(store, Notifier(MailSettings(secret="s3cret")))
    game = games.create("siam", PLAYERS, {}, seed=7)
    for ply, notation in enumerate(OPENING):
        token = game["players"][ply % 2]["token"]
        games.submit(MoveRequest(game["id"], token=token, notation=notation, idempotency_key="k"))
    old = sqlite3.connect(path)
    # old releases kept a seat's one token in its seats row
    hashes = {(r["game_id"], r["seat"]): r["token_hash"] for r in store.db["seat_tokens"].rows}
    for table in TABLES:
        kept = {row[1]: row[3] for row in old.execute(f"PRAGMA table_info({table})")}
        for row in store.db[table].rows:
            if table == "seats":
                row = {**row, "token_hash": hashes[(row["game_id"], row["seat"])]}
            if table == "moves":  # old releases kept the sentence, in English
                phrase = json.loads(row["description"])
                row = {**row, "description": render(phrase, ["Ann", "Bob"], "en")}
            values = {column: row.get(column) for column in kept if column in row or kept[column]}
            for column, value in values.items():
                if value is None and kept[column]:  # today's queued mail: no body, no id yet
                    values[column] = f"<{row['id']}@old>" if column == "message_id" else ""
            marks = ", ".join("?" for _ in values)
            old.execute(
                f"INSERT INTO {table} ({', '.join(values)}) VALUES ({marks})", [*values.values()]
            )
    old.commit()
    old.close()
    store.close()
    return game


def schema_of(path: str) -> dict[str, Any]:
    """Tables with their columns, indexes with their columns, and trigger names of a database."""
    conn = sqlite3.connect(path)
    names = conn.execute(
        "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
    )
    shape: dict[str, Any] = {}
    for kind, name, table in names.fetchall():
        if kind == "table":
            columns = conn.execute(f"PRAGMA table_info({name})").fetchall()
            shape[name] = sorted((c[1], c[2], c[3], c[4], c[5]) for c in columns)
        elif kind == "index":
            columns = [c[2] for c in conn.execute(f"PRAGMA index_info({name})")]
            shape[name] = (table, columns)
        else:
            shape[name] = (kind, table)
    conn.close()
    return shape


@pytest.fixture(params=list(OLD_SCHEMAS), ids=list(OLD_SCHEMAS))
def upgraded(request, tmp_path: Path, caplog: pytest.LogCaptureFixture):
    """An old database with a game in it, opened by today's app; the game, the app, the log."""
    path = str(tmp_path / "old.db")
    old_database(path, OLD_SCHEMAS[request.param])
    game = played_into(path, str(tmp_path / "scratch.db"))
    caplog.set_level(logging.INFO)
    app = create_app({"TURNPOST_DB": path, "TESTING": True})
    return path, game, app, caplog.text


def test_an_old_database_is_migrated_on_start_with_a_log_line(upgraded) -> None:
    path, _, app, log = upgraded
    assert f"database {path} migrated from schema version 0 to {LATEST}" in log
    assert app.extensions["turnpost"].schema.after == LATEST


def test_an_upgraded_database_has_the_schema_of_a_new_one(upgraded, tmp_path: Path) -> None:
    path = upgraded[0]
    fresh = str(tmp_path / "fresh.db")
    open_store(fresh).init()
    assert schema_of(path) == schema_of(fresh)


def test_the_move_log_stays_append_only_after_the_upgrade(upgraded) -> None:
    path, game = upgraded[0], upgraded[1]
    conn = sqlite3.connect(path, isolation_level=None)
    triggers = {
        row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    assert triggers >= APPEND_ONLY
    for statement in (
        "UPDATE moves SET notation = 'exit a1'",
        "DELETE FROM moves",
        "REPLACE INTO moves (game_id, seq, seat, move, public_move, notation, at)"
        f" VALUES ('{game['id']}', 1, 0, '{{}}', '{{}}', 'exit a1', 'then')",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            conn.execute(statement)
    conn.close()


def test_games_of_an_old_database_stay_playable(upgraded) -> None:
    path, game = upgraded[0], upgraded[1]
    store = open_store(path)
    games = GameService(store)
    loaded = games.load(game["id"])
    assert loaded.seq == 2 and canonical_json(games.replay(loaded)) == canonical_json(loaded.state)
    again = games.submit(
        MoveRequest(
            game["id"], token=game["players"][0]["token"], notation=OPENING[0], idempotency_key="k"
        )
    )
    assert again["seq"] == 1, "the first answer to key k: the idempotency record survived"
    answer = games.submit(
        MoveRequest(
            game["id"], token=game["players"][0]["token"], notation="enter a2 N", expected_seq=2
        )
    )
    assert (
        answer["seq"] == 3 and [m["notation"] for m in games.move_log(loaded)][-1] == "enter a2 N"
    )
    store.close()


def test_a_siam_game_from_before_its_draws_counts_positions_from_its_next_move(
    tmp_path: Path,
) -> None:
    """m013: a running Siam game's snapshot without ``positions`` gets an empty count, plays
    on, and is drawn the third time a position comes up after the upgrade."""
    path = str(tmp_path / "siam.db")
    store = open_store(path)
    store.init()
    game = GameService(store).create("siam", PLAYERS, {}, seed=7)
    for seat, notation in enumerate(OPENING):
        token = game["players"][seat]["token"]
        GameService(store).submit(MoveRequest(game["id"], token=token, notation=notation))
    store.close()
    db = sqlite_utils.Database(path)
    db.execute("UPDATE games SET state = json_remove(state, '$.positions')")
    db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm013_siam_positions'")
    db.conn.commit()
    db.close()
    assert start(path) == (LATEST - 1, LATEST)
    store = open_store(path)
    games = GameService(store)
    assert games.load(game["id"]).state["positions"] == {}
    rotations = (["rotate a1 E", "rotate e5 W", "rotate a1 N", "rotate e5 S"] * 3)[:9]
    for ply, notation in enumerate(rotations):  # the first rotation's position: 1, 5, 9
        assert games.load(game["id"]).status == "active", f"drawn before rotation {ply + 1}"
        token = game["players"][ply % 2]["token"]
        games.submit(MoveRequest(game["id"], token=token, notation=notation))
    assert games.load(game["id"]).state["outcome"] == {"draw": "repetition"}
    store.close()


def test_mail_after_the_upgrade_counts_against_the_gate(upgraded) -> None:
    """What a database from before the mail gate lacked: the columns every mail is counted by."""
    app = upgraded[2]
    turnpost = app.extensions["turnpost"]
    store = open_store(turnpost.db_url)
    created = GameService(store, turnpost.notifier).create("siam", PLAYERS, {}, client="192.0.2.1")
    [row] = store.db["outbox"].rows_where("game_id = ?", [created["id"]])
    assert (row["rcpt_key"], row["client"], row["invitation"]) == (
        "ann@example.org",
        "192.0.2.1",
        1,
    )
    store.close()


def test_a_second_start_migrates_nothing(upgraded, caplog: pytest.LogCaptureFixture) -> None:
    caplog.clear()
    app = create_app({"TURNPOST_DB": upgraded[0], "TESTING": True})
    schema = app.extensions["turnpost"].schema
    assert (schema.before, schema.after, schema.created) == (LATEST, LATEST, False)
    assert "migrated" not in caplog.text


def test_init_db_migrates_and_says_the_version(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    old_database(path, OLD_SCHEMAS["first release"])
    result = CliRunner().invoke(main, ["init-db"], env={"TURNPOST_DB": path})
    assert result.exit_code == 0, result.output
    assert f"Database ready: {path} (schema version {LATEST})" in result.output
    columns = {column[0] for column in schema_of(path)["games"]}
    assert {"seeded", "creator_client"} <= columns


def start(path: str) -> tuple[int, int]:
    """Open ``path`` as a starting process does; the schema versions before and after."""
    store = open_store(path)
    change = store.init()
    store.close()
    return change.before, change.after


def test_processes_starting_at_once_apply_each_migration_once(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    old_database(path, OLD_SCHEMAS["first release"])
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(4, mp_context=context) as pool:
        changes = list(pool.map(start, [path] * 4))
    assert sorted(changes) == [(0, LATEST)] + [(LATEST, LATEST)] * 3
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0] == LATEST
    conn.close()


def test_m009_carries_over_the_mails_by_reply_already_answered() -> None:
    db = sqlite_utils.Database(memory=True)
    migrations.apply(db, stop_before="m009_inbound_mail")
    db["games"].insert(
        {
            "id": "g1",
            "engine": "siam",
            "options": "{}",
            "seed": 1,
            "status": "active",
            "seq": 0,
            "state": "{}",
            "to_move": "[0]",
        }
    )
    for kind, in_reply_to in (("answer", "<a@x>"), ("rejected", "<r@x>"), ("turn", "<t@x>")):
        db["outbox"].insert(
            {
                "game_id": "g1",
                "seat": 0,
                "kind": kind,
                "to_addr": "ann@x",
                "in_reply_to": in_reply_to,
                "created_at": "2026-01-01T00:00:00Z",
            }
        )
    migrate(db)
    assert sorted(row["message_id"] for row in db["inbound"].rows) == ["<a@x>", "<r@x>"]


def test_an_old_siam_log_past_todays_draws_is_refused_in_words_not_replayed(
    tmp_path: Path,
) -> None:
    """A log written before Siam's draw by repetition may hold moves today's rules refuse:
    its replay (``?at=N``, ``turnpost replay``) says so instead of failing with a 500."""
    path = str(tmp_path / "siam.db")
    store = open_store(path)
    store.init()
    games = GameService(store)
    game = games.create("siam", PLAYERS, {}, seed=7)
    for seat, notation in enumerate(OPENING):
        games.submit(
            MoveRequest(game["id"], token=game["players"][seat]["token"], notation=notation)
        )
    rotations = ["rotate a1 E", "rotate e5 W", "rotate a1 N", "rotate e5 S"] * 3
    with store.write():  # logged by an older Turnpost, which knew no draw
        for seq, notation in enumerate(rotations, start=3):
            move = games.engine("siam").parse(notation, games.load(game["id"]).state)
            store.append_move(
                LoggedMove(
                    game["id"],
                    seq,
                    (seq - 1) % 2,
                    "move",
                    move,
                    move,
                    notation,
                    None,
                    [0],
                    "active",
                    "2026-01-01T00:00:00.000000Z",
                )
            )
        store.update_game(game["id"], {"seq": 2 + len(rotations)})
    store.close()
    client = create_app({"TURNPOST_DB": path, "TESTING": True}).test_client()
    answer = client.get(f"/api/v1/games/{game['id']}?at={1 + len(rotations)}")
    assert answer.status_code == 422, answer.get_data(as_text=True)
    assert "cannot be replayed past move 10" in answer.get_json()["error"]["message"]
    assert client.get(f"/api/v1/games/{game['id']}?at=10").status_code == 200
    result = CliRunner().invoke(main, ["replay", game["id"]], env={"TURNPOST_DB": path})
    assert result.exit_code == 1 and "cannot be replayed past move 10" in result.output


def test_m016_leaves_old_games_running_listed_and_hostless(upgraded) -> None:
    """Games from before tables: no open seat, listed to their seats, no host, no rematch yet;
    a table and a rematch can then be made beside them."""
    app, game = upgraded[2], upgraded[1]
    client = app.test_client()
    seat = {"Authorization": f"Bearer {game['players'][0]['token']}"}
    listed = client.get("/api/v1/games", headers=seat).get_json()["games"]
    [old] = [entry for entry in listed if entry["id"] == game["id"]]
    assert (old["status"], old["open_seats"], old["forming_until"]) == ("active", 0, None)
    store = open_store(upgraded[0])
    row = store.game(game["id"])
    assert (row.creator_id, row.hidden_at, row.rematch_of) == (None, None, None)
    assert all(seat.joined_at is None for seat in store.seats(game["id"]))
    table = GameService(store).create("siam", [{"name": "Ann"}, {"open": True}], {})
    assert (
        table["status"] == "forming" and store.open_tables("2000-01-01", 10)[0].id == (table["id"])
    )
    store.close()


def test_m018_gives_players_who_chose_the_digest_their_first_one_and_a_place_for_pushes() -> None:
    db = sqlite_utils.Database(memory=True)
    migrations.apply(db, stop_before="m018_notifications")
    for player, preference in (("p1", "digest"), ("p2", "turn")):
        db["players"].insert(
            {
                "id": player,
                "email": f"{player}@x",
                "email_key": f"{player}@x",
                "name": player,
                "time_zone": "UTC",
                "language": "en",
                "mail_pref": preference,
                "created_at": "2026-01-01T00:00:00.000000Z",
            }
        )
    migrate(db)
    store = SqliteStore(db)
    assert [row.id for row in store.digests_due("2026-01-02T00:00:00.000000Z", 10)] == ["p1"]
    subscription = {
        "player_id": "p1",
        "endpoint": "https://push.example.org/1",
        "p256dh": "k",
        "auth": "a",
        "created_at": "2026-01-02T00:00:00.000000Z",
    }
    assert store.add_push_subscription(subscription, keep=10) == 1
    assert [row.endpoint for row in store.push_subscriptions("p1")] == [subscription["endpoint"]]


def test_m023_makes_the_log_phrases_read_in_each_language_and_keeps_every_move() -> None:
    db = sqlite_utils.Database(memory=True)
    migrations.apply(db, stop_before="m023_move_phrases")
    db["games"].insert(
        {
            "id": "g1",
            "engine": "siam",
            "options": "{}",
            "seed": 1,
            "status": "finished",
            "seq": 3,
            "state": "{}",
            "to_move": "[]",
        }
    )
    old_log = [  # a sentence, a move from before sentences, a resignation
        (1, 0, "move", "enter a1 N", "Ann enters an elephant on a1, facing north."),
        (2, 1, "move", "enter e5 S", None),
        (3, 0, "resign", "resign", "Ann resigns."),
    ]
    for seq, seat, kind, notation, description in old_log:
        db["moves"].insert(
            {
                "game_id": "g1",
                "seq": seq,
                "seat": seat,
                "kind": kind,
                "move": "{}",
                "public_move": "{}",
                "notation": notation,
                "description": description,
                "to_move": "[]",
                "status": "active",
                "at": f"2026-01-0{seq}T00:00:00Z",
            }
        )
    migrate(db)
    logged = SqliteStore(db).logged_moves("g1", 0, None)
    assert [(move.seq, move.notation) for move in logged] == [
        (1, "enter a1 N"),
        (2, "enter e5 S"),
        (3, "resign"),
    ]
    read = {
        language: [log_entry(move, ["Ann", "Bob"], language)["description"] for move in logged]
        for language in ("en", "nl", "de")
    }
    assert read["en"] == [
        "Ann enters an elephant on a1, facing north.",
        "enter e5 S",
        "Ann resigns.",
    ]
    assert read["nl"][2] == "Ann geeft op." and read["de"][2] == "Ann gibt auf."
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.execute("UPDATE moves SET description = NULL")


def test_m019_imports_the_secret_key_and_demo_game_files_of_earlier_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Earlier versions kept the secret key and the demo game's id in ``<db>.secret`` and
    ``<db>.demo``: the upgrade keeps both (the server signs with the old key, ``serve --demo``
    finds the old game) and leaves the files as they were."""
    monkeypatch.delenv("TURNPOST_SECRET_KEY", raising=False)
    path = str(tmp_path / "old.db")
    store = open_store(path)
    store.init()
    game = GameService(store).create("siam", PLAYERS, {}, seed=7)
    store.close()
    db = sqlite_utils.Database(path)  # the schema as it was before m019: no settings table
    db.execute("DROP TABLE settings")
    db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm019_settings'")
    db.conn.commit()
    db.close()
    files = {Path(f"{path}.secret"): "the old key\n", Path(f"{path}.demo"): f"{game['id']}\n"}
    for file, text in files.items():
        file.write_text(text)
    app = create_app({"TURNPOST_DB": path, "TESTING": True})
    assert app.extensions["turnpost"].schema.before == LATEST - 1
    assert app.config["SECRET_KEY"] == "the old key"
    store = open_store(path)
    assert demo_game(GameService(store))["id"] == game["id"]
    assert "Demo Siam game, as you left it" in capsys.readouterr().out
    store.close()
    assert {file: file.read_text() for file in files} == files
