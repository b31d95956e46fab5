"""Conditional moves through a real server: the issue's Siam line, privacy, refusals."""

from __future__ import annotations

import re
from typing import Any

import requests

from server.games.service import GameService, MoveRequest
from server.mail.commands import parse_command, run_command
from server.store import open_store
from tests.corr.test_takebacks import read
from tests.server.test_api import auth, create_siam, submit
from tests.server.test_web import play_by_form, seat_session
from tests.support import BackgroundServer

#: The new store tables run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

LINE = [["enter a1 N", "enter e5 S"]]


def put_lines(server: BackgroundServer, game: dict[str, Any], seat: int | None, body: Any):
    """PUT the conditional moves of ``seat`` (``None``: without a token)."""
    headers = {} if seat is None else auth(game["players"][seat]["token"])
    return requests.put(
        server.api(f"/games/{game['id']}/conditional"), json=body, headers=headers, timeout=10
    )


def get_lines(server: BackgroundServer, game: dict[str, Any], seat: int) -> Any:
    """GET the conditional moves of ``seat``."""
    answer = requests.get(
        server.api(f"/games/{game['id']}/conditional"),
        headers=auth(game["players"][seat]["token"]),
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["lines"]


def test_a_stored_answer_is_played_at_once(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    stored = put_lines(live_server, game, 1, {"lines": LINE})
    assert stored.status_code == 200, stored.text
    assert stored.json() == {"lines": LINE}
    assert get_lines(live_server, game, 1) == LINE
    assert get_lines(live_server, game, 0) == []  # another seat never sees the line

    played = submit(live_server, game, 0, {"notation": "enter a1 N", "expected_seq": 0})
    assert played.status_code == 201, played.text
    log = read(live_server, game, "/moves")
    assert [(e["seat"], e["notation"], e["conditional"]) for e in log] == [
        (0, "enter a1 N", False),
        (1, "enter e5 S", True),
    ]
    assert played.json()["game"]["seq"] == 2 and played.json()["game"]["to_move"] == [0]
    assert get_lines(live_server, game, 1) == []  # the line is used up

    events = requests.get(live_server.api(f"/games/{game['id']}/events"), stream=True, timeout=10)
    seen = b""
    for chunk in events.iter_content(chunk_size=None):
        seen += chunk
        if seen.count(b"event: move") >= 2:
            break
    events.close()
    assert b"enter e5 S" in seen and b"lines" not in seen
    for path in ("", "?at=1", "/moves", "/record", "/takeback"):
        text = requests.get(live_server.api(f"/games/{game['id']}{path}"), timeout=10).text
        assert "lines" not in text
    assert "2. (1) enter e5 S {conditional}" in read_text(live_server, game, "/record")


def read_text(server: BackgroundServer, game: dict[str, Any], path: str) -> str:
    """GET a route of the game as text."""
    return requests.get(server.api(f"/games/{game['id']}{path}"), timeout=10).text


def test_a_move_off_the_line_drops_it(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    lines = [
        ["enter a1 N", "enter e5 S", "move a1 a2 N", "enter d5 S"],
        ["enter b1 N", "enter a5 S"],
    ]
    assert put_lines(live_server, game, 1, {"lines": lines}).status_code == 200
    assert submit(live_server, game, 0, {"notation": "enter a1 N"}).status_code == 201
    assert get_lines(live_server, game, 1) == [["move a1 a2 N", "enter d5 S"]]
    assert submit(live_server, game, 0, {"notation": "rotate a1 E"}).status_code == 201
    assert get_lines(live_server, game, 1) == []
    assert read(live_server, game)["to_move"] == [1]  # no answer was played


def test_refused_lines(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    assert put_lines(live_server, game, None, {"lines": LINE}).status_code == 401
    mine = put_lines(live_server, game, 0, {"lines": LINE})  # seat 0 is to move
    assert mine.status_code == 422 and "your turn" in mine.json()["error"]["message"]
    for bad in [
        {"lines": [["enter a1 N", "fly away"]]},
        {"lines": [["enter c3 N", "enter e5 S"]]},
        {"lines": [["enter a1 N"]]},
        {"lines": "enter a1 N"},
        {"lines": [[1, 2]]},
        {"lines": [["enter a1 N", "enter e5 S"]] * 21},
        {},
    ]:
        answer = put_lines(live_server, game, 1, bad)
        assert answer.status_code == 422, (bad, answer.text)
    assert get_lines(live_server, game, 1) == []

    body = {"engine": "bangkok-klongs", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    hidden = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    waiting = 1 - read(live_server, hidden)["to_move"][0]
    refused = put_lines(live_server, hidden, waiting, {"lines": [["decline", "decline"]]})
    assert refused.status_code == 422 and "hides" in refused.json()["error"]["message"]


def test_mail_commands_store_lines_and_take_back(db_path: str) -> None:
    store = open_store(db_path)
    store.init()
    try:
        games = GameService(store)
        game_id = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {})["id"]
        command = parse_command("If enter a1 N then enter e5 S")
        run_command(games, game_id, 1, None, command)
        assert store.conditional_lines(game_id) == {1: LINE}
        run_command(games, game_id, 1, None, parse_command("if fly then land"))
        assert store.conditional_lines(game_id) == {1: LINE}  # refused, nothing changed
        games.submit(MoveRequest(game_id, seat=0, notation="enter a1 N"))
        assert games.load(game_id).seq == 2  # Bob's answer came at once
        run_command(games, game_id, 1, None, parse_command("takeback"))
        run_command(games, game_id, 0, None, parse_command("takeback accept"))
        entries = games.move_log(games.load(game_id))
        assert [entry["notation"] for entry in entries][-1] == "takeback 2"
    finally:
        store.close()


def test_lines_on_the_game_page(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    ann, bob = seat_session(live_server, game, 0), seat_session(live_server, game, 1)
    page = bob.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    form = page.partition('<details id="conditional"')[2].partition("</details>")[0]
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', form)[1]
    stored = bob.post(
        f"{live_server.url}/games/{game['id']}/conditional",
        data={"csrf_token": csrf, "seat": "1", "lines": "if enter a1 N then enter e5 S\n"},
        timeout=10,
    )
    assert stored.status_code == 200 and "enter a1 N then enter e5 S</textarea>" in stored.text
    watched = requests.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert 'id="conditional"' not in watched and "enter e5 S" not in watched
    assert "enter e5 S" not in ann.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    refused = bob.post(
        f"{live_server.url}/games/{game['id']}/conditional",
        data={"csrf_token": csrf, "seat": "1", "lines": "enter c3 N then enter e5 S"},
        timeout=10,
    )
    assert refused.status_code == 422 and "Line 1, step 1" in refused.text
    assert play_by_form(live_server, ann, game, "enter a1 N").status_code == 200
    log = read(live_server, game, "/moves")
    assert [entry["notation"] for entry in log] == ["enter a1 N", "enter e5 S"]
    assert log[1]["conditional"] is True


def test_a_takeback_or_a_resignation_drops_every_line(db_path: str) -> None:
    store = open_store(db_path)
    store.init()
    try:
        games = GameService(store)
        game_id = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {})["id"]
        games.submit(MoveRequest(game_id, seat=0, notation="enter b1 N"))
        games.submit(MoveRequest(game_id, seat=1, notation="enter e5 S"))
        run_command(games, game_id, 1, None, parse_command("if move b1 b2 N then enter d5 S"))
        assert store.conditional_lines(game_id) == {1: [["move b1 b2 N", "enter d5 S"]]}
        run_command(games, game_id, 1, None, parse_command("takeback"))
        run_command(games, game_id, 0, None, parse_command("takeback accept"))
        assert store.conditional_lines(game_id) == {}
        games.submit(MoveRequest(game_id, seat=1, notation="enter d5 S"))
        run_command(games, game_id, 1, None, parse_command("if move b1 b2 N then enter a5 S"))
        assert store.conditional_lines(game_id) != {}
        games.resign(game_id, 0)
        assert store.conditional_lines(game_id) == {}
    finally:
        store.close()
