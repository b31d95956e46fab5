"""Schemathesis against the OpenAPI document of a real gunicorn process.

Every operation of ``/api/v1/openapi.json`` gets generated requests, valid
and invalid (bodies, query strings, headers, bearer tokens). Some of them
are aimed at real games with real tokens: an active Siam game (its two seat
tokens), a finished one and one that the fuzzer may abort with its admin
token, so that the code behind authentication is reached too. Checks: all
of schemathesis's (``--checks all``): no 5xx, status codes, content types,
headers and bodies as documented, schema-valid data accepted, invalid data
refused, methods the document does not list answered ``405`` with ``Allow``;
and every 4xx body in the contract's error shape. A second, hypothesis-driven
test puts JSON nested thousands deep and strings with lone surrogates into
every field of every JSON body.

The event stream of an active game never ends, so the fuzzer points
``/events`` only at finished games (or at ids that do not exist).

``FUZZ_EXAMPLES`` (environment) sets the examples per operation; the default
keeps the module well under a minute.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.config import SchemathesisConfig

from server import create_app
from tests.server.test_api import WINNING_LINE, create_siam, submit
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "50"))
load_all_checks()
#: Every check schemathesis has (``--checks all``), e.g. ``unsupported_method``: a method
#: the document does not list gets ``405`` with an ``Allow`` header.
ALL_CHECKS = CHECKS.get_all()


@pytest.fixture(scope="module")
def games(load_server: BackgroundServer) -> dict[str, Any]:
    """Real games for the fuzzer: ``active``, ``finished`` and ``abortable``."""
    active = create_siam(load_server, seed=7)
    finished = create_siam(load_server)
    for seq, notation in enumerate(WINNING_LINE):
        response = submit(load_server, finished, seq % 2, {"notation": notation})
        assert response.status_code == 201, response.text
    TARGETS["games"] = {
        "active": active,
        "finished": finished,
        "abortable": create_siam(load_server),
    }
    return TARGETS["games"]


#: The generated requests aim at these (filled by the ``games`` fixture before the first case).
TARGETS: dict[str, Any] = {}


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document as the app generates it (the server's copy is compared below)."""
    client = create_app({"TURNPOST_DB": ":memory:", "TESTING": True}).test_client()
    return client.get("/api/v1/openapi.json").get_json()


#: A body the schema allows may still be refused by the game itself: the wrong number of
#: players for the engine, an option it does not know, a move of another engine or one its
#: rules forbid (``422``), or a game that is over (``409``). A generated ``If-None-Match``
#: (``*`` matches every copy) may be answered ``304``.
ACCEPTED_STATUSES = ["2xx", "304", "401", "404", "409", "422", "429"]
CONFIG = SchemathesisConfig.from_dict(
    {"checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED_STATUSES}}}
)
schema = schemathesis.openapi.from_dict(openapi_document(), config=CONFIG)


@schema.hook
def flatmap_case(context: Any, case: Any) -> st.SearchStrategy:
    """Keep the generated case, or swap in a real game id and/or a real token."""
    games = TARGETS["games"]
    path = dict(case.path_parameters or {})
    headers = dict(case.headers or {})
    finished = games["finished"]["id"]

    def aim(choice: tuple[str | None, str | None]) -> Any:
        game_id, token = choice
        if "game_id" in path:
            target = game_id or path["game_id"]
            if case.path.endswith("/events") and game_id is not None:
                target = finished  # the stream of an active game never ends
            case.path_parameters = {**path, "game_id": target}
        case.headers = dict(headers)
        if token is not None:
            case.headers["Authorization"] = f"Bearer {token}"
        return case

    game_ids = [games[name]["id"] for name in ("active", "finished", "abortable")]
    tokens = [
        games["active"]["players"][0]["token"],
        games["active"]["players"][1]["token"],
        games["finished"]["players"][0]["token"],
        games["abortable"]["admin_token"],
    ]
    choices = st.tuples(st.sampled_from([None, *game_ids]), st.sampled_from([None, *tokens]))
    return choices.map(aim)


#: gunicorn answers longer request lines itself (414, HTML) before the app sees them.
GUNICORN_REQUEST_LINE_LIMIT = 4094


def request_line_length(case: Any, base_url: str) -> int:
    """Bytes of the HTTP request line ``METHOD /path?query HTTP/1.1`` that ``case`` sends."""
    url = base_url + case.formatted_path
    prepared = requests.Request(case.method, url, params=case.query).prepare()
    return len(f"{case.method} {prepared.path_url} HTTP/1.1")


def assert_contract_error(response: requests.Response) -> None:
    """A 4xx answer must be ``{"error": {"code", "message", "details"}}`` with a message."""
    if not 400 <= response.status_code < 500:
        return
    body = response.json()
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "message", "details"}, error
    assert isinstance(error["code"], str) and error["code"], error
    assert isinstance(error["message"], str) and error["message"], error
    assert isinstance(error["details"], dict), error


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_api_answers_as_documented(
    case: Any, load_server: BackgroundServer, games: dict[str, Any]
) -> None:
    assume(request_line_length(case, load_server.url) <= GUNICORN_REQUEST_LINE_LIMIT)
    response = case.call_and_validate(base_url=load_server.url, checks=ALL_CHECKS, timeout=10)
    assert_contract_error(response)


def test_the_server_serves_the_document_fuzzed_here(load_server: BackgroundServer) -> None:
    served = requests.get(load_server.api("/openapi.json"), timeout=10)
    assert served.status_code == 200
    assert served.json() == openapi_document()


@pytest.mark.parametrize(
    "until", ["0001-01-01T00:00:00Z", "0999-01-01T00:00:00Z", "9999-12-31T23:59:59-05:00"]
)
def test_vacation_dates_out_of_range_are_refused_not_500(
    load_server: BackgroundServer, games: dict[str, Any], until: str
) -> None:
    """Found by the fuzzer: a valid ISO date far in the past or future must be a 422."""
    game = games["active"]
    response = requests.post(
        load_server.api(f"/games/{game['id']}/vacation"),
        json={"until": until},
        headers={"Authorization": f"Bearer {game['players'][1]['token']}"},
        timeout=10,
    )
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_request"


# -- hostile JSON: deep nesting and lone surrogates (issue 11) ------------------------------
def nested(depth: int, leaf: str = "1") -> str:
    """``leaf`` inside ``depth`` levels of arrays and objects, alternating."""
    opened = "".join('{"k": ' if level % 2 else "[" for level in range(depth))
    closed = "".join("}" if level % 2 else "]" for level in reversed(range(depth)))
    return opened + leaf + closed


def with_lone_surrogate(text: str, code: int, at: int) -> str:
    """``text`` as a JSON string with the escape of surrogate ``code`` inserted at ``at``."""
    at = min(at, len(text))
    return json.dumps(text[:at])[:-1] + f"\\u{code:04x}" + json.dumps(text[at:])[1:]


hostile_values = st.one_of(
    st.builds(nested, st.integers(33, 3000)),
    st.builds(
        with_lone_surrogate, st.text(max_size=20), st.integers(0xD800, 0xDFFF), st.integers(0, 20)
    ),
)
#: Where a hostile value goes (``HOSTILE``), per operation with a JSON body.
HOSTILE_BODIES = [
    ("/games", '{"engine": "siam", "players": [{"name": HOSTILE}, {"name": "B"}]}'),
    (
        "/games",
        '{"engine": "king-of-siam", "players": [{"name": "A"}, {"name": "B"}],'
        ' "options": {"map": HOSTILE}}',
    ),
    (
        "/games",
        '{"engine": "bangkok-klongs", "players": [{"name": "A"}, {"name": "B"}],'
        ' "position": {"x": HOSTILE}}',
    ),
    ("/games", '{"engine": HOSTILE, "players": []}'),
    ("/games", "HOSTILE"),
    ("/games/GAME/moves", '{"move": {"action": HOSTILE}}'),
    ("/games/GAME/moves", '{"notation": HOSTILE, "expected_seq": 0}'),
    ("/games/GAME/moves", "HOSTILE"),
    ("/games/GAME/vacation", '{"until": HOSTILE}'),
]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(where=st.sampled_from(HOSTILE_BODIES), value=hostile_values)
def test_deep_or_surrogate_json_anywhere_is_a_clear_4xx(
    load_server: BackgroundServer, games: dict[str, Any], where: tuple[str, str], value: str
) -> None:
    """JSON nested ~1,000 deep was a ``RecursionError`` (500); a lone surrogate in a name
    could not be stored by SQLite (500). Either, anywhere in any body, is a 4xx now."""
    path, body = where
    game = games["active"]
    response = requests.post(
        load_server.api(path.replace("GAME", game["id"])),
        data=body.replace("HOSTILE", value).encode(),
        headers={"Authorization": f"Bearer {game['players'][0]['token']}"},
        timeout=10,
    )
    assert 400 <= response.status_code < 500, response.text[:300]
    assert_contract_error(response)
