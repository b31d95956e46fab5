"""``docs/api.md`` against the code: every route documented, every example move read.

Blocks after ``<!-- moves: ENGINE -->`` hold one JSON move per line,
``<!-- notation: ENGINE -->`` one notation per line and ``<!-- state: ENGINE -->``
one public state.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engines import ENGINES
from schemas.moves import LISTED_NOTATION, load_move
from server.http.api_spec import game_module
from tests.api.conftest import new_game, seat_header

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

DOC = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
BLOCK = re.compile(r"<!-- (moves|notation|state): ([a-z-]+) -->\n```[a-z]*\n(.*?)```", re.S)
ROUTE = re.compile(r"`(GET|POST|DELETE|PUT|PATCH) (/api/v1/[^`\s?]*)")


def blocks(kind: str) -> list[tuple[str, str]]:
    """``(engine id, text)`` of every block of ``kind``."""
    return [(engine, text) for found, engine, text in BLOCK.findall(DOC) if found == kind]


def documented_moves() -> list[tuple[str, dict[str, Any]]]:
    """Every example move of the page with its engine."""
    return [
        (engine, json.loads(line))
        for engine, text in blocks("moves")
        for line in text.splitlines()
        if line.strip()
    ]


def shape(path: str) -> str:
    """A path with its parameters unnamed: ``/games/{}/moves``."""
    return re.sub(r"\{[^}]*\}|<[^>]*>", "{}", path)


def test_every_route_of_the_app_is_documented_and_no_other(app) -> None:
    served = {
        (method, shape(rule.rule))
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/v1/")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    documented = {(method, shape(path)) for method, path in ROUTE.findall(DOC)}
    assert served - documented == set(), "routes missing from docs/api.md"
    assert documented - served == set(), "docs/api.md documents routes that do not exist"


def test_every_engine_has_moves_notation_and_a_section() -> None:
    for engine_id, engine in ENGINES.items():
        if engine_id.startswith("tiny"):
            continue
        assert f"### {engine.name}" in DOC
        assert engine_id in {engine for engine, _ in blocks("moves")}
        assert engine_id in {engine for engine, _ in blocks("notation")}


@pytest.mark.parametrize(("engine_id", "move"), documented_moves())
def test_each_example_move_passes_its_schema_and_its_notation_round_trips(
    engine_id: str, move: dict[str, Any]
) -> None:
    engine = ENGINES[engine_id]
    loaded = load_move(engine_id, move)
    text = engine.format(loaded)
    assert engine.parse(text) == loaded
    if LISTED_NOTATION in move:
        assert move[LISTED_NOTATION] == text, "a listed entry's notation is the move's"


@pytest.mark.parametrize(
    ("engine_id", "line"),
    [(engine, line) for engine, text in blocks("notation") for line in text.splitlines() if line],
)
def test_each_example_notation_is_read_by_its_parser(engine_id: str, line: str) -> None:
    engine = ENGINES[engine_id]
    move = engine.parse(line)
    assert load_move(engine_id, move) == move


@pytest.mark.parametrize(("engine_id", "text"), blocks("state"))
def test_each_example_state_passes_its_state_schema(engine_id: str, text: str) -> None:
    schema = game_module(ENGINES[engine_id]).StateSchema
    assert schema().validate(json.loads(text)) == {}


def test_example_moves_legal_at_the_start_are_accepted_by_the_server(client) -> None:
    """Where an example move is legal (in a new game of a few seeds), the API accepts it."""
    played = set()
    for engine_id in {engine for engine, _ in documented_moves()}:
        examples = [
            load_move(engine, move) for engine, move in documented_moves() if engine == engine_id
        ]
        for seed in range(4):
            game = new_game(client, engine_id, players=ENGINES[engine_id].min_players, seed=seed)
            seat = game["to_move"][0]
            path = f"/api/v1/games/{game['id']}"
            listed = client.get(f"{path}/legal-moves", headers=seat_header(game, seat)).get_json()
            legal = [load_move(engine_id, entry) for entry in listed["moves"]]
            for move in [move for move in examples if move in legal][:1]:
                answer = client.post(
                    f"{path}/moves",
                    json={"move": move, "expected_seq": 0},
                    headers=seat_header(game, seat),
                )
                assert answer.status_code == 201, (engine_id, move, answer.get_json())
                played.add(engine_id)
    assert "siam" in played


def test_the_readme_links_the_api_docs_and_no_outside_contract() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "docs/api.md" in readme
    assert "shared folder" not in readme and "CONTRACT.md" not in readme
