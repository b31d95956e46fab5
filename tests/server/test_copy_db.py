"""``turnpost copy-db``: a database played through the service, copied to the other backend and
back, every table row for row, games replayed; a target that holds data refused in words; a
copy whose games do not replay on the target undone.

The source is made by the app (games of every engine with moves, an idempotent
retry, mailed seats, a webhook and its deliveries, table talk, conditional
moves) and the account service (players, a sign-in link, a session, a personal
token), with a row put by the store's own operations in each table those leave
empty (pushes, replies handled, mail suppressions...), on each backend in turn.
It is copied to a new database of the other backend and from there to a new one
of the first. Each table (as the schema lists it, not as the test names it) must
hold rows, and the same rows in all three.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from engines import ENGINES
from server import create_app
from server.accounts.service import AccountService
from server.cli import main
from server.games.clock import utcnow
from server.store import open_store, records
from server.store.base import Store
from tests.api.receivers import LOOPBACK
from tests.conftest import new_database

#: The other backend of each.
OTHER = {"sqlite": "postgresql", "postgresql": "sqlite"}


def bearer(token: str) -> dict[str, str]:
    """The ``Authorization`` header of a token."""
    return {"Authorization": f"Bearer {token}"}


def play_first_legal_move(client: Any, game: dict[str, Any], key: str) -> None:
    """The seat to move plays its first legal move, sent twice with one ``Idempotency-Key``."""
    seat = client.get(f"/api/v1/games/{game['id']}").get_json()["to_move"][0]
    auth = bearer(game["players"][seat]["token"])
    legal = client.get(f"/api/v1/games/{game['id']}/legal-moves", headers=auth).get_json()
    move = {k: v for k, v in legal["moves"][0].items() if k != "notation"}
    for _ in range(2):
        answer = client.post(
            f"/api/v1/games/{game['id']}/moves",
            json={"move": move, "expected_seq": legal["seq"]},
            headers={**auth, "Idempotency-Key": key},
        )
        assert answer.status_code == 201, answer.get_json()


def make_database(url: str) -> None:
    """Fill the new database ``url`` through the app and the account service."""
    app = create_app({"TURNPOST_DB": url, "TESTING": True, "TURNPOST_WEBHOOK_NETWORKS": LOOPBACK})
    client = app.test_client()
    for number, engine in enumerate(sorted(ENGINES)):
        count = ENGINES[engine].min_players
        players = [{"name": f"P{i}", "email": f"p{i}.{number}@example.org"} for i in range(count)]
        created = client.post("/api/v1/games", json={"engine": engine, "players": players})
        game = created.get_json()
        assert created.status_code == 201, game
        hook = client.post(
            f"/api/v1/games/{game['id']}/webhooks",
            json={"url": "http://127.0.0.1:9/hook"},
            headers=bearer(game["admin_token"]),
        )
        assert hook.status_code == 201, hook.get_json()
        play_first_legal_move(client, game, f"first-{engine}")
        if engine == "siam":  # an open takeback offer and conditional moves are copied too
            offered = client.post(
                f"/api/v1/games/{game['id']}/takeback", headers=bearer(game["players"][0]["token"])
            )
            assert offered.status_code == 200, offered.get_json()
            store_conditional_line(client, url, game)
        said = client.post(
            f"/api/v1/games/{game['id']}/messages",
            json={"text": f"Good luck at {engine}!"},
            headers=bearer(game["players"][0]["token"]),
        )
        assert said.status_code == 201, said.get_json()
    store = open_store(url)
    try:
        accounts = AccountService(store, "a key")
        first = store.moves(game["id"])[0]
        difference = records.Difference(1, first.seat, first.move, first.move)
        with store.write():
            store.save_analysis(records.Analysis(game["id"], utcnow(), [difference]))
            store.add_player(
                records.Player("p1", "ann@example.org", "ann", "Ann", "UTC", "en", "turn", utcnow())
            )
        accounts.open_session("p1")
        accounts.create_api_token("p1", "laptop")
        assert accounts.request_link("bob@example.org", "127.0.0.1")
        with store.write():
            store.add_player_ping("p1", "slack", "http://127.0.0.1:9/slack", "U024BE7LH", utcnow())
        fill_the_rest(store, game["id"])
    finally:
        store.close()


def store_conditional_line(client: Any, url: str, game: dict[str, Any]) -> None:
    """Seat 0, having moved, stores its answer to seat 1's first legal move."""
    store = open_store(url)
    state = store.game(game["id"]).state
    store.close()
    engine = ENGINES[game["engine"]]
    theirs = engine.legal_moves(state, 1)[0]
    mine = engine.legal_moves(engine.apply(state, 1, theirs), 0)[0]
    stored = client.put(
        f"/api/v1/games/{game['id']}/conditional",
        json={"lines": [[engine.format(theirs), engine.format(mine)]]},
        headers=bearer(game["players"][0]["token"]),
    )
    assert stored.status_code == 200, stored.get_json()


def fill_the_rest(store: Store, game_id: str) -> None:
    """A row in each table the API calls above leave empty, by the store's own operations: a
    browser subscribed with a push queued, a handled reply, a recipient who asked for no
    more mail, a muted seat, a remembered created page, a worker's claim of a bot turn, a
    player's automatic vacation day spent."""
    now = utcnow()
    subscription: records.NewSubscription = {
        "player_id": "p1",
        "endpoint": "https://push.example.org/1",
        "p256dh": "key",
        "auth": "auth",
        "created_at": now,
    }
    store.add_push_subscription(subscription, keep=10)
    store.suppress_mail("gone@example.org", now)
    store.set_muted(game_id, 0, 1, True, now)
    store.add_created_page("a page key's hash", game_id, "2999-01-01T00:00:00.000000Z", now)
    with store.write():
        push: records.NewPush = {
            "game_id": game_id,
            "seat": 0,
            "seq": 1,
            "payload": {"game": game_id},
            "created_at": now,
            "next_attempt_at": now,
        }
        assert store.queue_pushes("p1", push) == 1
        assert store.claim_inbound("<reply@example.org>", game_id, 1, now)
        assert store.claim_bot_turn(game_id, "worker-1", now, "2999-01-01T00:00:00.000000Z")
        assert store.spend_vacation_day("p1", 2026, 10)


def contents(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of ``url``, sorted (JSON as canonical text)."""
    store = open_store(url)
    try:
        tables = store.tables()
        return {name: sorted(store.table_rows(table), key=repr) for name, table in tables.items()}
    finally:
        store.close()


def copy(source: str, target: str) -> Any:
    """Run ``turnpost copy-db SOURCE TARGET``."""
    return CliRunner().invoke(main, ["copy-db", source, target])


@pytest.fixture
def made(store_url: str) -> str:
    """A database played through the service, on each backend in turn."""
    make_database(store_url)
    return store_url


def backend_of(url: str) -> str:
    """``sqlite`` or ``postgresql``."""
    return "postgresql" if url.startswith("postgresql://") else "sqlite"


def test_a_database_copies_to_the_other_backend_and_back_row_for_row(
    made: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    (tmp_path / "there").mkdir()
    (tmp_path / "back").mkdir()
    there = new_database(request, OTHER[backend_of(made)], tmp_path / "there")
    back = new_database(request, backend_of(made), tmp_path / "back")
    original = contents(made)
    assert [name for name, rows in original.items() if not rows] == []
    for source, target in [(made, there), (there, back)]:
        result = copy(source, target)
        assert result.exit_code == 0, result.output
        assert "4 games replay to their snapshots" in result.output
        assert contents(target) == original
    games = open_store(back)
    assert len(games.game_ids()) == len(ENGINES)
    games.close()


def test_every_table_of_the_schema_is_copied(
    made: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """The copy is driven by the schema: each table (both backends list the same) is in the
    command's report with its rows."""
    (tmp_path / "copy").mkdir()
    target = new_database(request, OTHER[backend_of(made)], tmp_path / "copy")
    store: Store = open_store(made)
    tables, counts = store.tables(), {t: store.count_rows(t) for t in store.tables()}
    store.close()
    result = copy(made, target)
    assert result.exit_code == 0, result.output
    for name in tables:
        assert f"{name}: {counts[name]} rows" in result.output
    copied = open_store(target)
    assert set(copied.tables()) == set(tables)
    copied.close()


def test_a_target_that_holds_data_is_refused_in_words_and_left_as_it_was(
    made: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    (tmp_path / "full").mkdir()
    target = new_database(request, OTHER[backend_of(made)], tmp_path / "full")
    make_database(target)
    before = contents(target)
    result = copy(made, target)
    assert result.exit_code == 1
    assert "The target database is not empty: it holds" in result.output
    assert "games (4 rows)" in result.output and "Traceback" not in result.output
    assert contents(target) == before


#: A trigger that drops the log entries of one game as they are written, as each backend says
#: it: a target that does not keep what it is given.
LOSE_MOVES = {
    "sqlite": [
        "CREATE TRIGGER lose_moves BEFORE INSERT ON moves WHEN NEW.game_id = '{game_id}'"
        " BEGIN SELECT RAISE(IGNORE); END"
    ],
    "postgresql": [
        "CREATE FUNCTION lose_move() RETURNS trigger LANGUAGE plpgsql"
        " AS $$ BEGIN RETURN NULL; END $$",
        "CREATE TRIGGER lose_moves BEFORE INSERT ON moves FOR EACH ROW"
        " WHEN (NEW.game_id = '{game_id}') EXECUTE FUNCTION lose_move()",
    ],
}


def run_sql(url: str, statements: list[str]) -> None:
    """Run ``statements`` on the database ``url``, outside the store, and commit."""
    if backend_of(url) == "sqlite":
        conn = sqlite3.connect(url)
        conn.executescript(";".join(statements))
        conn.close()
    else:
        with psycopg.connect(url, autocommit=True) as pg:
            for statement in statements:
                pg.execute(statement)


def test_a_copy_whose_game_does_not_replay_on_the_target_is_undone(
    made: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    (tmp_path / "lossy").mkdir()
    target = new_database(request, OTHER[backend_of(made)], tmp_path / "lossy")
    open_store(target).init()
    source = open_store(made)
    game_id = source.game_ids()[-1]
    source.close()
    statements = LOSE_MOVES[backend_of(target)]
    run_sql(target, [statement.format(game_id=game_id) for statement in statements])
    before = contents(target)
    result = copy(made, target)
    assert result.exit_code == 1, result.output
    assert f"Game {game_id} on the copy: replaying 1 moves does not give the snapshot" in (
        result.output
    )
    assert "Traceback" not in result.output
    assert contents(target) == before
    assert not any(rows for name, rows in before.items() if name != "settings")
