"""Answers sent without their schema's dump (server/http/answers.py: shaped_answer) are in the
schema's shape: the schema's dump of each is the answer itself.

A move's answer is built in ``MoveSubmittedSchema``'s shape and sent as it is. For games of
every engine (and a clock, a bot seat, an Idempotency-Key's repeat), every move's answer is
dumped again by marshmallow: a key the schema does not name (the dump would drop it), an
integer in a float field or a field missing would make the dump differ from the answer.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engines import ENGINES
from schemas.api import MoveSubmittedSchema
from tests.api.conftest import new_game, seat_header

#: Plies played in each game.
PLIES = 8


def json_text(data: Any) -> str:
    """``data`` as JSON, keys sorted: equal texts are equal answers (``1``, ``1.0`` and
    ``true`` told apart)."""
    return json.dumps(data, sort_keys=True)


def assert_shaped(answer: Any) -> dict[str, Any]:
    """A move's answer, checked: ``201``, and its schema's dump changes nothing."""
    assert answer.status_code == 201, answer.get_json()
    sent = answer.get_json()
    assert json_text(MoveSubmittedSchema().dump(sent)) == json_text(sent)
    return sent


def play_randomly(client: Any, game: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """:data:`PLIES` random legal moves (fewer if the game ends), each answer checked."""
    path, answers = f"/api/v1/games/{game['id']}", []
    for _ in range(PLIES):
        state = client.get(path).get_json()
        if state["status"] != "active":
            break
        seat = state["to_move"][0]
        listed = client.get(f"{path}/legal-moves", headers=seat_header(game, seat)).get_json()
        body = {"move": rng.choice(listed["moves"]), "expected_seq": state["seq"]}
        answer = client.post(f"{path}/moves", json=body, headers=seat_header(game, seat))
        answers.append(assert_shaped(answer))
    return answers


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_every_move_answer_of_every_engine_is_in_its_schemas_shape(client, engine_id) -> None:
    game = new_game(client, engine_id, players=ENGINES[engine_id].min_players, seed=7)
    answers = play_randomly(client, game, random.Random(engine_id))
    assert answers and all(answer["game"]["engine"] == engine_id for answer in answers)


def test_a_clock_a_bot_seat_and_a_repeat_are_in_the_schemas_shape(client) -> None:
    clock = {"kind": "bank", "bank_hours": 48, "increment_hours": 2, "max_bank_hours": 72}
    game = new_game(client, clock=clock, seed=3)
    answers = play_randomly(client, game, random.Random(3))
    assert all(answer["game"]["clock"] is not None for answer in answers)
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"bot": "random"}], "seed": 1}
    bot = client.post("/api/v1/games", json=body).get_json()
    path, headers = f"/api/v1/games/{bot['id']}/moves", seat_header(bot, 0)
    repeat = {**headers, "Idempotency-Key": "first move"}
    first = assert_shaped(client.post(path, json={"notation": "enter a1 N"}, headers=repeat))
    again = assert_shaped(client.post(path, json={"notation": "enter a1 N"}, headers=repeat))
    assert again == first and first["game"]["players"][1]["bot"] == {"bot": "random"}
