"""A turn split into decisions by the same seat (Foreign King citizens moved step by step).

Through the API on a real SQLite file: each step is a logged move, the
whole-turn move stays one move with the same result, and idempotency,
stale-seq checks and replay from the log work in the middle of a turn.
"""

from __future__ import annotations

from typing import Any

from server.games.service import GameService
from server.store import open_store
from server.store.base import canonical_json
from tests.server.test_api import move_of

#: Runs on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True
POSITION = {"provinces": {"namur": {"citizens": {"0": 3}}}, "to_move": 0}
STEPS = ["step namur liege", "step namur hainaut", "step hainaut west-vlaanderen", "end"]


def create(client, seed: int = 3) -> dict[str, Any]:
    """A 2-player Foreign King game where seat 0 has three citizens in Namur."""
    body = {
        "engine": "foreign-king",
        "players": [{"name": "Ann"}, {"name": "Bob"}],
        "seed": seed,
        "position": POSITION,
    }
    response = client.post("/api/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def post(client, game: dict[str, Any], seat: int, body: dict[str, Any], **headers: str):
    """POST a move for ``seat``."""
    token = game["players"][seat]["token"]
    return client.post(
        f"/api/v1/games/{game['id']}/moves",
        json=body,
        headers={"Authorization": f"Bearer {token}", **headers},
    )


def error_code(response) -> str:
    """The contract error code of an error answer."""
    return response.get_json()["error"]["code"]


def test_each_step_is_a_logged_move_of_the_same_seat_until_the_end(client) -> None:
    game = create(client)
    for seq, notation in enumerate(STEPS):
        response = post(client, game, 0, {"notation": notation, "expected_seq": seq})
        assert response.status_code == 201, response.get_json()
        answer = response.get_json()["game"]
        pending = answer["state"]["pending"]
        if notation != "end":
            assert answer["to_move"] == [0] and pending["kind"] == "move_citizens"
    assert answer["to_move"] == [1] and pending is None
    log = client.get(f"/api/v1/games/{game['id']}/moves").get_json()
    assert [entry["notation"] for entry in log] == STEPS


def test_the_whole_move_is_one_move_with_the_state_of_its_steps(client) -> None:
    stepwise, whole = create(client), create(client)
    for seq, notation in enumerate(STEPS):
        response = post(client, stepwise, 0, {"notation": notation, "expected_seq": seq})
        assert response.status_code == 201
    text = "move namur: liege | hainaut west-vlaanderen"
    answer = post(client, whole, 0, {"notation": text, "expected_seq": 0}).get_json()
    assert answer["seq"] == 1
    after_steps = client.get(f"/api/v1/games/{stepwise['id']}").get_json()
    assert answer["game"]["state"] == after_steps["state"]


def test_an_open_move_keeps_idempotency_stale_seq_and_the_turn(client) -> None:
    game = create(client)
    first = {"notation": "step namur liege", "expected_seq": 0}
    once = post(client, game, 0, first, **{"Idempotency-Key": "step-1"})
    again = post(client, game, 0, first, **{"Idempotency-Key": "step-1"})
    assert once.status_code == again.status_code == 201
    assert once.get_json() == again.get_json() and once.get_json()["seq"] == 1
    stale = post(client, game, 0, {"notation": "step namur hainaut", "expected_seq": 0})
    assert stale.status_code == 409 and error_code(stale) == "stale_seq"
    other = post(client, game, 1, {"notation": "coins", "expected_seq": 1})
    assert other.status_code == 409 and error_code(other) == "not_your_turn"
    another_action = post(client, game, 0, {"notation": "coins", "expected_seq": 1})
    assert another_action.status_code == 422 and error_code(another_action) == "illegal_move"
    url = f"/api/v1/games/{game['id']}"
    auth = {"Authorization": f"Bearer {game['players'][0]['token']}"}
    legal = client.get(f"{url}/legal-moves", headers=auth).get_json()
    listed = [move_of(entry) for entry in legal["moves"]]
    assert legal["seq"] == 1 and {"action": "end_move"} in listed
    assert {"action": "step", "from": "liege", "to": "brabant"} in listed
    assert client.get(url).get_json()["seq"] == 1


def test_replay_from_the_log_rebuilds_an_open_move(client, db_url: str) -> None:
    game = create(client)
    for seq, notation in enumerate(STEPS[:2]):
        assert post(client, game, 0, {"notation": notation, "expected_seq": seq}).status_code == 201
    store = open_store(db_url)
    try:
        games = GameService(store)
        loaded = games.load(game["id"])
        assert loaded.state["pending"]["paths"] == [["liege"], ["hainaut"]]
        assert canonical_json(games.replay(loaded)) == canonical_json(loaded.state)
        assert games.replay(loaded, upto=1)["pending"]["paths"] == [["liege"]]
    finally:
        store.close()
