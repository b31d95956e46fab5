"""Resigning: ``POST /api/v1/games/{id}/resign`` with a seat token, and forfeits logged alike."""

from __future__ import annotations

from typing import Any

from server.games.service import GameService, MoveRequest
from server.store import open_store
from tests.api.conftest import bearer, new_game, seat_header

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def resign(client: Any, game: dict[str, Any], seat: int, **body: Any) -> Any:
    """POST a resignation for ``seat`` (an empty body unless ``body`` is given)."""
    path = f"/api/v1/games/{game['id']}/resign"
    if body:
        return client.post(path, json=body, headers=seat_header(game, seat))
    return client.post(path, headers=seat_header(game, seat))


def test_the_resigning_seat_loses_and_the_other_wins(client, siam_game) -> None:
    answer = resign(client, siam_game, 0)
    assert answer.status_code == 200, answer.get_json()
    game = answer.get_json()["game"]
    assert game["status"] == "finished" and game["to_move"] == [] and game["you"] == 0
    assert game["result"]["winners"] == [1] and game["result"]["resigned"] == [0]
    assert "Ann resigned" in game["result"]["reason"]


def test_a_seat_may_resign_when_it_is_not_its_turn(client, siam_game) -> None:
    answer = resign(client, siam_game, 1, expected_seq=0)
    assert answer.status_code == 200
    assert answer.get_json()["game"]["result"]["winners"] == [0]


def test_partners_lose_together(client) -> None:
    game = new_game(client, "king-of-siam", players=4, seed=3)
    result = resign(client, game, 1).get_json()["game"]["result"]
    assert result["resigned"] == [1, 3] and result["winners"] == [0, 2]


def test_the_resignation_is_in_the_move_log_and_replays(client, siam_game, db_url) -> None:
    played = client.post(
        f"/api/v1/games/{siam_game['id']}/moves",
        json={"notation": "enter a1 N", "expected_seq": 0},
        headers=seat_header(siam_game, 0),
    )
    assert played.status_code == 201
    assert resign(client, siam_game, 1).get_json()["seq"] == 2
    log = client.get(f"/api/v1/games/{siam_game['id']}/moves").get_json()
    assert [entry["notation"] for entry in log] == ["enter a1 N", "resign"]
    assert log[1]["move"] == {"action": "resign"} and log[1]["description"] == "Bob resigns."
    assert log[1]["status"] == "finished" and log[1]["to_move"] == []
    games = GameService(open_store(db_url))
    game = games.load(siam_game["id"])
    assert games.replay(game) == game.state
    before = client.get(f"/api/v1/games/{siam_game['id']}?at=1").get_json()
    assert before["status"] == "active" and before["result"] is None


def test_refusals_change_nothing(client, siam_game) -> None:
    path = f"/api/v1/games/{siam_game['id']}/resign"
    assert client.post(path).status_code == 401
    assert client.post(path, headers=bearer("not-a-token")).status_code == 401
    admin = client.post(path, headers=bearer(siam_game["admin_token"]))
    assert admin.status_code == 401, "the admin token is not a seat"
    stale = resign(client, siam_game, 0, expected_seq=5)
    assert stale.status_code == 409 and stale.get_json()["error"]["code"] == "stale_seq"
    assert resign(client, siam_game, 0, expected_seq="0").status_code == 422
    unknown = client.post("/api/v1/games/nope/resign", headers=seat_header(siam_game, 0))
    assert unknown.status_code == 404
    game = client.get(f"/api/v1/games/{siam_game['id']}").get_json()
    assert game["status"] == "active" and game["seq"] == 0
    assert resign(client, siam_game, 0).status_code == 200
    again = resign(client, siam_game, 1)
    assert again.status_code == 409 and again.get_json()["error"]["code"] == "game_over"


def test_no_move_after_a_resignation(client, siam_game) -> None:
    resign(client, siam_game, 1)
    refused = client.post(
        f"/api/v1/games/{siam_game['id']}/moves",
        json={"notation": "enter a1 N"},
        headers=seat_header(siam_game, 0),
    )
    assert refused.status_code == 409 and refused.get_json()["error"]["code"] == "game_over"


def test_a_forfeit_is_logged_like_a_resignation(db_url) -> None:
    store = open_store(db_url)
    store.init()
    games = GameService(store)
    created = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {}, seed=1)
    games.submit(MoveRequest(created["id"], seat=0, notation="enter a1 N"))
    assert games.forfeit(created["id"], 1, expected_seq=1)
    assert not games.forfeit(created["id"], 1, expected_seq=1)
    game = games.load(created["id"])
    log = games.move_log(game)
    assert [entry["notation"] for entry in log] == ["enter a1 N", "forfeit"]
    assert log[1]["description"] == "Bob ran out of time and forfeits."
    result = games.game_object(game, None)["result"]
    assert result["forfeit"] == [1] and result["winners"] == [0]
    assert games.replay(game) == game.state
