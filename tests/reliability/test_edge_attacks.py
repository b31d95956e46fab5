"""Issue 20, HTTP edge and input side: each finding of the attack, replayed against a real
gunicorn process with the attack's own inputs."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
import requests

from schemas.api import MAX_SEED
from tests.server.test_api import create_siam, error_code
from tests.support import BackgroundServer, start_background


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """A gunicorn server with the default settings."""
    server = start_background(str(tmp_path_factory.mktemp("edge") / "turnpost.db"))
    yield server
    server.stop()


# -- integers past what SQLite holds ----------------------------------------------------
@pytest.mark.parametrize("cursor", [str(MAX_SEED + 1), str(2**80), "9" * 40])
def test_a_cursor_past_sqlite_integers_is_refused(server: BackgroundServer, cursor: str) -> None:
    """``?cursor=9223372036854775808`` reached SQLite as an integer it cannot hold: a 500."""
    response = requests.get(server.api("/games"), params={"cursor": cursor}, timeout=10)
    assert (response.status_code, error_code(response)) == (422, "invalid_request")
    assert response.json()["error"]["details"] == {"cursor": [cursor]}


def test_the_largest_cursor_sqlite_holds_is_a_cursor(server: BackgroundServer) -> None:
    create_siam(server)
    response = requests.get(server.api("/games"), params={"cursor": str(MAX_SEED)}, timeout=10)
    assert response.status_code == 200 and response.json()["games"]


# -- expected client errors write no traceback ------------------------------------------
def test_a_replay_out_of_range_is_refused_without_a_traceback_in_the_log(
    server: BackgroundServer,
) -> None:
    """``?at=N`` past the game ran in a thread, whose refusal gevent printed with its traceback."""
    game = create_siam(server)
    logged = len(server.log())
    for at in (1, 5, 1000):
        response = requests.get(server.api(f"/games/{game['id']}"), params={"at": at}, timeout=10)
        assert (response.status_code, error_code(response)) == (422, "invalid_request")
        assert response.json()["error"]["details"] == {"at": [0]}
    assert requests.get(server.api(f"/games/{game['id']}?at=0"), timeout=10).status_code == 200
    assert "Traceback" not in server.log()[logged:]


# -- names that show nothing, or show something else ---------------------------------
INVISIBLE_NAMES = [
    "\u200b",  # zero-width space
    "\u202eevil",  # right-to-left override
    "Ann\u200d",  # zero-width joiner: looks like "Ann"
    "\ufeffAnn",  # byte order mark
    "\u2067Bob\u2069",  # right-to-left isolate
    "\u00adAnn",  # soft hyphen
    "   ",
    "\u3000\u2003",  # ideographic and em spaces
    "\u3164",  # Hangul filler (a letter that shows nothing)
    "\u0301\u0301",  # combining marks alone
]


@pytest.mark.parametrize("name", INVISIBLE_NAMES)
def test_invisible_names_are_refused_by_the_api(server: BackgroundServer, name: str) -> None:
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": name}]}
    response = requests.post(server.api("/games"), json=body, timeout=10)
    assert (response.status_code, error_code(response)) == (422, "invalid_request")
    assert response.json()["error"]["details"]["players"]["1"]["name"]


@pytest.mark.parametrize("name", [name for name in INVISIBLE_NAMES if name.strip()])
def test_invisible_names_are_refused_by_the_lobby_form(server: BackgroundServer, name: str) -> None:
    browser = requests.Session()
    lobby = browser.get(f"{server.url}/", timeout=10).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', lobby).group(1)
    form = {"csrf_token": csrf, "engine": "siam", "name0": "Ann", "name1": name}
    answer = browser.post(f"{server.url}/games", data=form, allow_redirects=False, timeout=10)
    assert answer.status_code == 422
    assert "player 2 name: Must" in html.unescape(answer.text)


def test_names_in_other_scripts_are_still_welcome(server: BackgroundServer) -> None:
    players = [{"name": "\u0645\u0631\u064a\u0645"}, {"name": "Zo\u00eb \u674e"}]
    response = requests.post(
        server.api("/games"), json={"engine": "siam", "players": players}, timeout=10
    )
    assert response.status_code == 201
    assert [player["name"] for player in response.json()["players"]] == [p["name"] for p in players]
