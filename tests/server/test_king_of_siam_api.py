"""King of Siam split turns through the real API (gunicorn): each decision is one logged
move with its own seq; stale seqs, idempotency, ``?at=N`` and replay hold."""

from __future__ import annotations

from typing import Any

import requests
from click.testing import CliRunner

from server.cli import main
from tests.server.test_api import auth, error_code, submit
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def create(server: BackgroundServer) -> dict[str, Any]:
    body = {
        "engine": "king-of-siam",
        "seed": 5,
        "players": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}],
    }
    response = requests.post(server.api("/games"), json=body, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()


def legal(server: BackgroundServer, game: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    response = requests.get(
        server.api(f"/games/{game['id']}/legal-moves"),
        headers=auth(game["players"][seat]["token"]),
        timeout=10,
    )
    assert response.status_code == 200
    return [{k: v for k, v in move.items() if k != "notation"} for move in response.json()["moves"]]


def test_card_then_take_are_two_moves_of_the_same_seat(live_server: BackgroundServer) -> None:
    game = create(live_server)
    seat = game["to_move"][0]
    card = next(m for m in legal(live_server, game, seat) if m.get("card") == "maharacha")
    first = submit(
        live_server, game, seat, {"move": card, "expected_seq": 0}, **{"Idempotency-Key": "card"}
    )
    assert first.status_code == 201, first.text
    assert first.json()["seq"] == 1 and first.json()["game"]["to_move"] == [seat]
    assert first.json()["game"]["state"]["pending"] == {"seat": seat, "kind": "take"}
    again = submit(
        live_server, game, seat, {"move": card, "expected_seq": 0}, **{"Idempotency-Key": "card"}
    )
    assert again.json() == first.json(), "a repeated request is answered, not played twice"
    takes = legal(live_server, game, seat)
    assert takes and {m["action"] for m in takes} == {"take"}
    assert legal(live_server, game, (seat + 1) % 3) == []
    passed = submit(live_server, game, seat, {"notation": "pass", "expected_seq": 1})
    assert (passed.status_code, error_code(passed)) == (422, "illegal_move")
    stale = submit(live_server, game, seat, {"move": takes[0], "expected_seq": 0})
    assert (stale.status_code, error_code(stale)) == (409, "stale_seq")
    taken = submit(live_server, game, seat, {"move": takes[0], "expected_seq": 1})
    assert taken.status_code == 201 and taken.json()["game"]["to_move"] == [(seat + 1) % 3]
    at_one = requests.get(live_server.api(f"/games/{game['id']}?at=1"), timeout=10).json()
    assert at_one["to_move"] == [seat] and at_one["state"]["pending"]["kind"] == "take"
    log = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [(m["seq"], m["seat"]) for m in log] == [(1, seat), (2, seat)]
    assert log[1]["notation"].startswith("take ")
    replay = CliRunner().invoke(
        main, ["replay", game["id"]], env={"TURNPOST_DB": live_server.db_path}
    )
    assert replay.exit_code == 0, replay.output


def test_whole_turn_move_is_still_one_move(live_server: BackgroundServer) -> None:
    game = create(live_server)
    seat = game["to_move"][0]
    card = next(m for m in legal(live_server, game, seat) if m.get("card") == "rama")
    notation = " ".join(["rama", *card["place"]]) + "; take rama ayutthaya"
    response = submit(live_server, game, seat, {"notation": notation, "expected_seq": 0})
    assert response.status_code == 201, response.text
    assert response.json()["seq"] == 1 and response.json()["game"]["to_move"] == [(seat + 1) % 3]
