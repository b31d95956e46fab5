"""The OpenAPI document: valid, typed per engine, every route and answer documented."""

from __future__ import annotations

from typing import Any

import pytest
from openapi_schema_validator import OAS30Validator
from openapi_schema_validator import validate as validate_value
from openapi_spec_validator import validate

from engines import ENGINES
from schemas.moves import load_move, move_schemas
from server.http.api_spec import camel, examples, game_module
from tests.api.conftest import new_game, seat_header

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

OPERATIONS = {
    "listEngines",
    "getEngine",
    "createGame",
    "listGames",
    "getGame",
    "listMoves",
    "submitMove",
    "getLegalMoves",
    "getHint",
    "getAnalysis",
    "streamEvents",
    "resignSeat",
    "abortGame",
    "reissueSeatToken",
    "setVacation",
    "createWebhook",
    "listWebhooks",
    "deleteWebhook",
    "createPing",
    "listPings",
    "deletePing",
    "createMyPing",
    "listMyPings",
    "deleteMyPing",
    "listMyGames",
    "listMessages",
    "postMessage",
    "deleteMessage",
    "getGameRecord",
    "getTakeback",
    "takeBack",
    "getConditionalMoves",
    "setConditionalMoves",
}


@pytest.fixture
def document(client) -> dict[str, Any]:
    """The served OpenAPI document."""
    return client.get("/api/v1/openapi.json").get_json()


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every ``(method, path, operation)`` of the document."""
    return [
        (method, path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method != "parameters"
    ]


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A component with the document's components beside it, so that its refs resolve."""
    return {**schema, "components": document["components"]}


def conforms(value: Any, schema: dict[str, Any]) -> None:
    """Check ``value`` against an OpenAPI 3.0 schema (``nullable`` and all)."""
    validate_value(value, schema, cls=OAS30Validator)


def test_the_document_passes_the_openapi_validator(document) -> None:
    validate(document)


def test_every_route_of_the_api_is_in_the_document(app, document) -> None:
    routes = {
        (rule.rule.replace("<", "{").replace("int:", "").replace(">", "}"), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/v1/") and rule.rule != "/api/v1/openapi.json"
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    documented = {(path, method) for method, path, _ in operations(document)}
    assert routes == documented


def test_every_operation_is_named_and_lists_its_errors(document) -> None:
    names = [operation["operationId"] for _, _, operation in operations(document)]
    assert len(names) == len(set(names))
    assert set(names) == OPERATIONS
    for method, path, operation in operations(document):
        responses = operation["responses"]
        assert {"405", "429", "503"} <= set(responses), (method, path)
        assert "Retry-After" in responses["429"]["headers"]
        assert "`unavailable`" in responses["503"]["description"]
        assert "Retry-After" in responses["503"]["headers"]
        if "requestBody" in operation:
            assert {"400", "413", "422"} <= set(responses), (method, path)
        for status, answer in responses.items():
            if status.startswith("4"):
                assert "`" in answer["description"], f"{path} {status} names no error code"


def test_a_players_games_take_a_personal_token_or_the_session(document) -> None:
    schemes = document["components"]["securitySchemes"]
    assert schemes["personalToken"]["type"] == "http"
    assert schemes["personalToken"]["scheme"] == "bearer"
    assert schemes["session"] == {**schemes["session"], "type": "apiKey", "in": "cookie"}
    operation = document["paths"]["/api/v1/me/games"]["get"]
    assert operation["security"] == [{"personalToken": []}, {"session": []}]
    assert "401" in operation["responses"]
    listed = document["components"]["schemas"]["MyGame"]["properties"]
    assert {"you", "waiting", "last_move", "players", "deadline"} <= set(listed)


def test_moments_are_date_times(document) -> None:
    schemas = document["components"]["schemas"]
    for name, field in [("Game", "created_at"), ("Game", "deadline"), ("LoggedMove", "at")]:
        assert schemas[name]["properties"][field]["format"] == "date-time"


def test_the_event_stream_is_documented_with_last_event_id(document) -> None:
    operation = document["paths"]["/api/v1/games/{game_id}/events"]["get"]
    assert "text/event-stream" in operation["responses"]["200"]["content"]
    headers = [p["name"] for p in operation["parameters"] if p["in"] == "header"]
    assert "Last-Event-ID" in headers
    assert "204" in operation["responses"]


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_each_engine_has_its_moves_as_a_discriminated_one_of(document, engine_id) -> None:
    schemas = document["components"]["schemas"]
    prefix = camel(engine_id)
    union = schemas[f"{prefix}Move"]
    actions = set(move_schemas(ENGINES[engine_id]))
    assert union["discriminator"]["propertyName"] == "action"
    assert set(union["discriminator"]["mapping"]) == actions
    for action, target in union["discriminator"]["mapping"].items():
        component = schemas[target.rsplit("/", 1)[1]]
        assert component["properties"]["action"]["enum"] == [action]
    moves = document["components"]["schemas"]["MoveSubmit"]["properties"]["move"]["anyOf"]
    assert {"$ref": f"#/components/schemas/{prefix}Move"} in moves


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_every_example_move_is_accepted_where_it_is_legal(document, engine_id) -> None:
    """Each example is the move the engine listed in a seeded game: it loads, parses back
    from its notation, validates against its component, and the engine plays it there."""
    engine = ENGINES[engine_id]
    schemas = document["components"]["schemas"]
    found = examples(engine_id)
    assert found, f"{engine_id} gives no example"
    for action, example in found.items():
        component = schemas[f"{camel(engine_id)}{camel(action)}Move"]
        assert component["example"] == example.move
        conforms(example.move, resolve(document, component))
        loaded = load_move(engine_id, example.move)
        assert engine.parse(engine.format(loaded), example.state) == loaded
        engine.apply(example.state, example.seat, loaded)


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_state_and_board_components_follow_the_game_schemas(document, engine_id) -> None:
    schemas = document["components"]["schemas"]
    module = game_module(ENGINES[engine_id])
    for kind in ("State", "Board"):
        component = schemas[f"{camel(engine_id)}{kind}"]
        typed = hasattr(module, f"{kind}Schema")
        assert ("properties" in component) == typed, (engine_id, kind)


def test_engine_detail_gives_the_board_in_its_schema(client, document) -> None:
    for engine_id, engine in ENGINES.items():
        answer = client.get(f"/api/v1/engines/{engine_id}")
        assert answer.status_code == 200
        body = answer.get_json()
        assert body["board"] == engine.board_data(engine.options({}))
        component = document["components"]["schemas"][f"{camel(engine_id)}Board"]
        conforms(body["board"], resolve(document, component))
    assert client.get("/api/v1/engines/chess").status_code == 404
    wrong = client.get("/api/v1/engines/siam", query_string={"colour": "red"})
    assert wrong.status_code == 422 and wrong.get_json()["error"]["code"] == "invalid_request"
    choice = client.get("/api/v1/engines/siam", query_string={"cross_rule": "false"})
    assert choice.status_code == 200
    assert choice.get_json()["board"] == ENGINES["siam"].board_data(
        ENGINES["siam"].options({"cross_rule": False})
    )


def test_game_states_validate_against_their_engine_component(client, document) -> None:
    schemas = document["components"]["schemas"]
    for engine_id, engine in ENGINES.items():
        game = new_game(client, engine_id, players=engine.min_players, seed=11)
        component = resolve(document, schemas[f"{camel(engine_id)}State"])
        for headers in ({}, seat_header(game, 0)):
            view = client.get(f"/api/v1/games/{game['id']}", headers=headers).get_json()
            conforms(view["state"], component)
        seat = game["to_move"][0]
        listed = client.get(
            f"/api/v1/games/{game['id']}/legal-moves", headers=seat_header(game, seat)
        ).get_json()
        union = resolve(document, schemas[f"{camel(engine_id)}Move"])
        for entry in listed["moves"][:50]:
            conforms(entry, union)


@pytest.mark.parametrize(
    "value",
    ["[" * 3000 + "]" * 3000, '{"a":' * 2000, "x" * 3000, "1e999", "%ED%A0%80", "%00", "null"],
)
def test_hostile_engine_options_are_refused_politely(client, value) -> None:
    answer = client.get(f"/api/v1/engines/king-of-siam?map={value}")
    assert answer.status_code == 422, answer.get_data()[:200]
    assert answer.get_json()["error"]["code"] == "invalid_request"
