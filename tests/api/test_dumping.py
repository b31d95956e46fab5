"""The answers' plans (schemas/dumping.py) write what marshmallow's own dump writes.

Every schema dump the app makes while games of every engine are created, played and read
through the API (each seat's view, the public one, an earlier move's, the legal moves, the
log, the move and resignation answers, a clock, a bot seat) is made twice: through the plan,
as the app does, and through marshmallow's ``Schema.dump``; the two must give the same JSON
(``1``, ``1.0`` and ``true`` told apart).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from marshmallow import Schema

from engines import ENGINES
from schemas.base import StrictSchema
from tests.api.conftest import new_game, seat_header

#: Plies played in each engine's game (each followed by every read of the game).
PLIES = 8


def json_text(data: Any) -> str:
    """``data`` as JSON, keys sorted: equal texts are equal answers."""
    return json.dumps(data, sort_keys=True)


@pytest.fixture
def dumped(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Check every dump of the app against marshmallow's own; the names of the schemas dumped."""
    planned, names = StrictSchema.dump, []

    def both(schema: Schema, obj: Any, *, many: bool | None = None) -> Any:
        fast = planned(schema, obj, many=many)
        assert json_text(fast) == json_text(Schema.dump(schema, obj, many=many)), schema
        names.append(type(schema).__name__)
        return fast

    monkeypatch.setattr(StrictSchema, "dump", both)
    return names


def read_all(client: Any, game: dict[str, Any], seats: int) -> None:
    """Every read of ``game``: public, each seat's view and legal moves, the log, move 0."""
    path = f"/api/v1/games/{game['id']}"
    headers = [seat_header(game, seat) for seat in range(seats)]
    for url, header in [(path, {}), (f"{path}?at=0", {}), (f"{path}/moves", {})] + [
        (url, header) for header in headers for url in (path, f"{path}/legal-moves")
    ]:
        assert client.get(url, headers=header).status_code == 200, url


def play_randomly(client: Any, game: dict[str, Any], seats: int, rng: random.Random) -> None:
    """Play :data:`PLIES` random legal moves (fewer if the game ends), reading after each."""
    path = f"/api/v1/games/{game['id']}"
    for _ in range(PLIES):
        state = client.get(path).get_json()
        if state["status"] != "active":
            return
        seat = state["to_move"][0]
        listed = client.get(f"{path}/legal-moves", headers=seat_header(game, seat)).get_json()
        move = rng.choice(listed["moves"])
        answer = client.post(f"{path}/moves", json={"move": move}, headers=seat_header(game, seat))
        assert answer.status_code == 201, answer.get_json()
        read_all(client, game, seats)


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_every_answer_of_a_game_dumps_as_marshmallow_dumps_it(client, dumped, engine_id) -> None:
    seats = ENGINES[engine_id].min_players
    game = new_game(client, engine_id, players=seats, seed=7)
    read_all(client, game, seats)
    play_randomly(client, game, seats, random.Random(engine_id))
    resigned = client.post(f"/api/v1/games/{game['id']}/resign", headers=seat_header(game, 0))
    assert resigned.status_code == 200, resigned.get_json()
    read_all(client, game, seats)
    answers = {"GameCreatedSchema", "GameSchema", "LegalMovesSchema", "LoggedMoveSchema"}
    assert {*answers, "MoveSubmittedSchema"} <= set(dumped)


def test_a_clock_a_bot_and_the_lists_dump_as_marshmallow_dumps_them(client, dumped) -> None:
    clock = {"kind": "bank", "bank_hours": 48, "increment_hours": 2, "max_bank_hours": 72}
    game = new_game(client, clock=clock, seed=3)
    play_randomly(client, game, 2, random.Random(3))
    bot = client.post(
        "/api/v1/games", json={"engine": "siam", "players": [{"name": "Ann"}, {"bot": "random"}]}
    )
    assert bot.status_code == 201
    for url in ("/api/v1/engines", "/api/v1/engines/siam", f"/api/v1/games/{bot.get_json()['id']}"):
        assert client.get(url).status_code == 200, url
    listed = client.get("/api/v1/games", headers=seat_header(game, 0))
    assert listed.status_code == 200, listed.get_json()
    answers = {"GameSchema", "EngineSchema", "EngineDetailSchema", "GameListSchema"}
    assert {*answers, "MoveSubmittedSchema"} <= set(dumped)
