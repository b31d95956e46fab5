"""Issue 20, HTTP edge and input side: each finding of the attack, replayed against a real
gunicorn process with the attack's own inputs."""

from __future__ import annotations

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
