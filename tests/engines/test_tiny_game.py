"""Adding a game as ``engines.base`` says, with nothing else changed: Nim, registered in the tests.

Through the real app (Flask's test client on a real SQLite file): creation,
legal moves with their notation, a refused move naming its rule, the end and
its result, and the game page on the default board template. Registering a
game with a missing or broken part fails at once, not at a request.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engines import ENGINES, register, unregister
from schemas.moves import load_move
from tests.engines.tiny_game import NimEngine


def create(client) -> dict[str, Any]:
    """A Nim game for Ann (seat 0) and Bob (seat 1)."""
    body = {"engine": "nim", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    response = client.post("/api/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def post(client, game: dict[str, Any], seat: int, notation: str):
    """POST ``notation`` as the move of ``seat``."""
    return client.post(
        f"/api/v1/games/{game['id']}/moves",
        json={"notation": notation},
        headers={"Authorization": f"Bearer {game['players'][seat]['token']}"},
    )


def test_nim_is_listed_among_the_engines_while_registered(client, nim: NimEngine) -> None:
    listed = client.get("/api/v1/engines").get_json()
    assert {"id": "nim", "name": "Nim", "min_players": 2, "max_players": 2}.items() <= next(
        engine for engine in listed if engine["id"] == "nim"
    ).items()


def test_nim_is_played_to_the_end_through_the_api(client, nim: NimEngine) -> None:
    game = create(client)
    assert game["state"] == {"stones": 10, "ply": 0} and game["to_move"] == [0]
    token = game["players"][0]["token"]
    legal = client.get(
        f"/api/v1/games/{game['id']}/legal-moves", headers={"Authorization": f"Bearer {token}"}
    ).get_json()
    assert [entry["notation"] for entry in legal["moves"]] == ["take 1", "take 2", "take 3"]
    assert legal["moves"][1] == {"action": "take", "count": 2, "notation": "take 2"}

    refused = post(client, game, 0, "take 4")
    assert refused.status_code == 422
    assert refused.get_json()["error"]["code"] == "illegal_move"
    assert refused.get_json()["error"]["details"]["rule"] == "take_one_to_three"

    for seat, notation in [(0, "take 3"), (1, "take 3"), (0, "take 3")]:
        assert post(client, game, seat, notation).status_code == 201
    too_many = post(client, game, 1, "take 2")
    assert too_many.get_json()["error"]["details"]["rule"] == "enough_stones"
    answer = post(client, game, 1, "take 1").get_json()["game"]

    assert answer["status"] == "finished" and answer["to_move"] == []
    assert answer["result"]["winners"] == [1]
    assert answer["result"]["scores"] == {"0": 0, "1": 1}
    log = client.get(f"/api/v1/games/{game['id']}/moves").get_json()
    assert [entry["notation"] for entry in log] == ["take 3", "take 3", "take 3", "take 1"]


def test_the_nim_page_falls_back_to_the_default_board(client, nim: NimEngine) -> None:
    game = create(client)
    page = client.get(f"/games/{game['id']}")
    assert page.status_code == 200
    assert '<pre>{\n "ply": 0,\n "stones": 10\n}</pre>' in page.get_data(as_text=True)


def test_an_unregistered_game_is_gone(client, nim: NimEngine) -> None:
    unregister("nim")
    try:
        assert "nim" not in ENGINES
        response = client.post(
            "/api/v1/games", json={"engine": "nim", "players": [{"name": "A"}, {"name": "B"}]}
        )
        assert response.status_code == 404
    finally:
        register(nim)


class BrokenSchemas(NimEngine):
    """Nim naming move schemas that are not there."""

    id = "broken-nim"
    move_schemas = "tests.engines.tiny_game_schemas:NO_SUCH_SCHEMAS"


class NotSchemas(NimEngine):
    """Nim naming something that is not a dict of schema classes."""

    id = "not-nim"
    move_schemas = "tests.engines.tiny_game:HINT"


class MissingModule(NimEngine):
    """Nim naming a module that does not exist."""

    id = "lost-nim"
    move_schemas = "tests.engines.no_such_module:MOVE_SCHEMAS"


@pytest.mark.parametrize(
    ("engine", "words"),
    [
        (BrokenSchemas(), "cannot be loaded"),
        (NotSchemas(), "must be a dict"),
        (MissingModule(), "cannot be loaded"),
    ],
)
def test_a_game_whose_move_schemas_cannot_be_loaded_is_refused_at_registration(
    engine: NimEngine, words: str
) -> None:
    with pytest.raises(ValueError, match=words):
        register(engine)
    assert engine.id not in ENGINES


class NoSchemaReference(NimEngine):
    """Nim without a ``move_schemas`` reference of the right form."""

    id = "bare-nim"
    move_schemas = "MOVE_SCHEMAS"


class BadId(NimEngine):
    """Nim with an id that cannot appear in a URL as it is."""

    id = "Nim Game"


class NoPlayers(NimEngine):
    """Nim for more players at least than at most."""

    id = "odd-nim"
    min_players = 3


@pytest.mark.parametrize(
    ("engine", "words"),
    [
        (NoSchemaReference(), "'move_schemas' must name"),
        (BadId(), "'id' must be"),
        (NoPlayers(), "'min_players' and 'max_players'"),
    ],
)
def test_a_game_with_malformed_attributes_is_refused(engine: NimEngine, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        register(engine)
    assert engine.id not in ENGINES


def test_a_second_game_with_a_taken_id_is_refused(nim: NimEngine) -> None:
    with pytest.raises(ValueError, match="already registered as 'nim'"):
        register(NimEngine())
    assert ENGINES["nim"] is nim


def test_a_game_registered_before_the_schemas_are_loaded_is_checked_when_they_are() -> None:
    script = (
        "import sys\n"
        "from engines import register\n"
        "from tests.engines.tiny_game import NimEngine\n"
        "class Broken(NimEngine):\n"
        "    id = 'broken-nim'\n"
        "    move_schemas = 'tests.engines.tiny_game_schemas:NO_SUCH_SCHEMAS'\n"
        "register(Broken())\n"
        "assert 'schemas.moves' not in sys.modules\n"
        "import schemas.moves\n"
    )
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert run.returncode != 0
    assert "ValueError: Engine 'broken-nim': its move schemas" in run.stderr


def test_registered_moves_load_through_their_schemas(nim: NimEngine) -> None:
    assert load_move("nim", {"action": "take", "count": 2}) == {"action": "take", "count": 2}
