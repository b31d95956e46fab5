"""The SQL of one move, counted: a move runs what its transaction needs and nothing twice.

Every statement the app runs on its SQLite connection for one Siam move
submitted through the API (``POST /api/v1/games/{id}/moves``: the seat check
before the body, then the service's one write) is recorded with SQLite's
trace callback. The figures are in ``docs/performance.md`` (issue 27): the
move took 13 statements before, with the game, its seats and the token's
seat each read twice.
"""

from __future__ import annotations

from typing import Any

import pytest

from server import create_app

#: The statements of one move: the token's seat before the body is read, then BEGIN, the game
#: with its seats and the token's seat (one read), the log entry (SQLite traces the append-only
#: trigger's step as the INSERT again), the snapshot, the game's webhooks, COMMIT.
MOVE_STATEMENTS = 8
#: A read of a game, public or a seat's, of its legal moves or of its move log, whose answer a
#: worker keeps: the game's stamp (version and seats, not its state) with the token's seat.
READ_STATEMENTS = 1
#: The first such read of a game's version builds the answer: the stamp, then the game with its
#: seats and the token's seat (the move log reads its page too).
FIRST_READ_STATEMENTS = 2


@pytest.fixture
def siam(db_path: str) -> tuple[Any, str, list[str]]:
    """An app on a SQLite file, a Siam game two moves in, and its seat tokens."""
    app = create_app({"TURNPOST_DB": db_path, "TESTING": True, "RATELIMIT_ENABLED": False})
    client = app.test_client()
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = client.post("/api/v1/games", json=body).get_json()
    tokens = [player["token"] for player in game["players"]]
    for seat, notation in enumerate(["enter a1 N", "enter e5 S"]):
        move(app, game["id"], tokens[seat], notation, seat + 1)
    return app, game["id"], tokens


def move(app: Any, game_id: str, token: str, notation: str, seq: int) -> None:
    """Submit ``notation`` with ``token``; the answer must be the move number ``seq``."""
    answer = app.test_client().post(
        f"/api/v1/games/{game_id}/moves",
        json={"notation": notation},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 201, answer.get_json()
    assert answer.get_json()["seq"] == seq


def traced(app: Any, action: Any) -> list[str]:
    """Every statement the app's connection runs during ``action()``."""
    ran: list[str] = []
    with app.app_context():
        conn = app.extensions["turnpost"].store().db.conn  # the pool's one connection
    conn.set_trace_callback(ran.append)
    try:
        action()
    finally:
        conn.set_trace_callback(None)
    return ran


def test_one_move_runs_only_what_its_transaction_needs(siam: tuple[Any, str, list[str]]) -> None:
    app, game_id, tokens = siam
    ran = traced(app, lambda: move(app, game_id, tokens[0], "exit a1", 3))
    assert len(ran) <= MOVE_STATEMENTS, "\n".join(ran)
    reads = [sql for sql in ran if sql.startswith("SELECT")]
    assert sum("FROM games" in sql for sql in reads) == 1, "\n".join(reads)
    assert [sql.split()[0] for sql in ran].count("COMMIT") == 1


@pytest.mark.parametrize(
    ("path", "seated"), [("", False), ("", True), ("/legal-moves", True), ("/moves", False)]
)
def test_a_read_is_one_statement(siam: tuple[Any, str, list[str]], path: str, seated: bool) -> None:
    """The first read of a version: the stamp, the game (with the seat of the token, if one is
    sent) in one read, the log in one; each later read of it: the stamp alone, no state."""
    app, game_id, tokens = siam
    headers = {"Authorization": f"Bearer {tokens[0]}"} if seated else {}
    url = f"/api/v1/games/{game_id}{path}"
    first = traced(app, lambda: app.test_client().get(url, headers=headers))
    assert len(first) <= FIRST_READ_STATEMENTS + (path == "/moves"), "\n".join(first)
    again = traced(app, lambda: app.test_client().get(url, headers=headers))
    assert len(again) == READ_STATEMENTS, "\n".join(again)
    assert "games.state" not in again[0] and "games.options" not in again[0], again[0]
