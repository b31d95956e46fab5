"""Seat tokens: the admin token reissues a lost one, and the old one stops working."""

from __future__ import annotations

from tests.api.conftest import bearer, seat_header

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def test_the_admin_token_reissues_a_seat_token(client, siam_game) -> None:
    path = f"/api/v1/games/{siam_game['id']}/seats/1/token"
    answer = client.post(path, headers=bearer(siam_game["admin_token"]))
    assert answer.status_code == 200
    fresh = answer.get_json()
    assert fresh["seat"] == 1 and fresh["name"] == "Bob"
    assert fresh["token"] != siam_game["players"][1]["token"]
    game_path = f"/api/v1/games/{siam_game['id']}"
    assert client.get(game_path, headers=seat_header(siam_game, 1)).status_code == 401
    assert client.get(game_path, headers=bearer(fresh["token"])).get_json()["you"] == 1
    assert client.get(game_path, headers=seat_header(siam_game, 0)).get_json()["you"] == 0
    assert answer.headers["Cache-Control"] == "no-store"


def test_only_the_admin_token_reissues(client, siam_game) -> None:
    path = f"/api/v1/games/{siam_game['id']}/seats/0/token"
    for headers in ({}, seat_header(siam_game, 0), bearer("guess")):
        answer = client.post(path, headers=headers)
        assert answer.status_code == 401 and answer.get_json()["error"]["code"] == "unauthorized"
    game_path = f"/api/v1/games/{siam_game['id']}"
    assert client.get(game_path, headers=seat_header(siam_game, 0)).status_code == 200


def test_no_such_seat_or_game(client, siam_game) -> None:
    admin = bearer(siam_game["admin_token"])
    assert (
        client.post(f"/api/v1/games/{siam_game['id']}/seats/2/token", headers=admin).status_code
        == 404
    )
    assert (
        client.post(f"/api/v1/games/{siam_game['id']}/seats/-1/token", headers=admin).status_code
        == 404
    )
    assert client.post("/api/v1/games/nope/seats/0/token", headers=admin).status_code == 404
