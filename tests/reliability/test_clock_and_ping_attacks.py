"""Issue 28's inputs replayed against a real server process: clocks that would never run
or make no sense, and chat pings aimed at the server's own network, each a clear 4xx that
creates nothing."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

TIMEOUT = 10
PLAYERS = [{"name": "Ann"}, {"name": "Bob"}]


def create(server: BackgroundServer, **extra: Any) -> requests.Response:
    """``POST /api/v1/games`` for a Siam game with ``extra`` fields."""
    body = {"engine": "siam", "players": PLAYERS, **extra}
    return requests.post(server.api("/games"), json=body, timeout=TIMEOUT)


@pytest.mark.parametrize(
    "clock",
    [
        {
            "kind": "per_move",
            "hours": 24,
            "pause": {"weekdays": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]},
        },
        {"kind": "per_move", "hours": 24, "pause": {"nightly": {"from": "00:00", "to": "00:00"}}},
        {"kind": "bank", "bank_hours": 1e308},
        {"kind": "bank", "bank_hours": "NaN"},
        {"kind": "bank", "bank_hours": 10, "max_bank_hours": 1},
        {
            "kind": "per_move",
            "hours": 24,
            "pause": {"weekdays": ["sat"], "time_zone": "../../etc/passwd"},
        },
        {"kind": "per_move", "hours": 24, "vacation_days": -1},
        [],
    ],
)
def test_a_clock_that_cannot_run_is_refused(live_server: BackgroundServer, clock: Any) -> None:
    before = requests.get(live_server.api("/games"), timeout=TIMEOUT).json()["games"]
    answer = create(live_server, clock=clock)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["code"] == "invalid_request"
    assert "clock" in answer.json()["error"]["details"]
    assert requests.get(live_server.api("/games"), timeout=TIMEOUT).json()["games"] == before


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/api/v1/games",
        "http://[::ffff:127.0.0.1]/x",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.8/hook",
        "file:///etc/passwd",
    ],
)
def test_a_ping_to_the_servers_own_network_is_refused(
    live_server: BackgroundServer, url: str
) -> None:
    game = create(live_server).json()
    token = game["players"][1]["token"]
    answer = requests.post(
        live_server.api(f"/games/{game['id']}/pings"),
        json={"kind": "discord", "url": url},
        headers={"Authorization": f"Bearer {token}"},
        timeout=TIMEOUT,
    )
    assert answer.status_code == 422, answer.text
    assert "url" in answer.json()["error"]["details"]
    listed = requests.get(
        live_server.api(f"/games/{game['id']}/pings"),
        headers={"Authorization": f"Bearer {token}"},
        timeout=TIMEOUT,
    )
    assert listed.json() == []
