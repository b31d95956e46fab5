"""Issue 20, HTTP edge and input side: each finding of the attack, replayed against a real
gunicorn process with the attack's own inputs."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest
import requests

from schemas.api import MAX_SEED
from server.store.sqlite import Store
from tests.server.test_api import create_siam, error_code
from tests.support import BackgroundServer, start_background


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """A gunicorn server with the default settings."""
    server = start_background(str(tmp_path_factory.mktemp("edge") / "turnpost.db"))
    yield server
    server.stop()


# -- IPv6 clients are counted by their /64 -----------------------------------------------
@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """One worker behind a proxy (the client address is X-Forwarded-For's), with low limits."""
    server = start_background(
        str(tmp_path_factory.mktemp("proxied") / "turnpost.db"),
        workers=1,
        environment={
            "TURNPOST_PROXY_HOPS": "1",
            "TURNPOST_RATELIMIT_IP": "4/minute",
            "TURNPOST_RATELIMIT_CREATE": "2/hour",
            "TURNPOST_MAX_STREAMS_PER_CLIENT": "2",
        },
    )
    yield server
    server.stop()


def get_from(server: BackgroundServer, address: str, path: str = "/engines") -> int:
    """The status of a GET of an API path from ``address``."""
    forwarded = {"X-Forwarded-For": address}
    return requests.get(server.api(path), headers=forwarded, timeout=10).status_code


def test_the_addresses_of_one_ipv6_network_share_one_rate_limit(proxied: BackgroundServer) -> None:
    """Each of a /64's 2^64 addresses had its own limit: a new address, a new budget."""
    statuses = [get_from(proxied, f"2001:db8:a:1:{n:x}::{n + 1:x}") for n in range(6)]
    assert statuses == [200] * 4 + [429] * 2
    assert get_from(proxied, "2001:db8:a:2::1") == 200, "the next /64 is another client"


def test_an_ipv4_mapped_address_is_that_ipv4_client(proxied: BackgroundServer) -> None:
    addresses = ["198.51.100.7", "::ffff:198.51.100.7", "::ffff:c633:6407", "198.51.100.7"]
    assert [get_from(proxied, address) for address in addresses] == [200] * 4
    assert get_from(proxied, "::ffff:198.51.100.7") == 429
    assert get_from(proxied, "198.51.100.8") == 200


def test_the_creation_limit_counts_an_ipv6_network_once(proxied: BackgroundServer) -> None:
    body = {"engine": "siam", "players": [{"name": "A", "email": "a@example.org"}, {"name": "B"}]}
    answers = [
        requests.post(
            proxied.api("/games"),
            json=body,
            headers={"X-Forwarded-For": f"2001:db8:b:1::{n + 1}"},
            timeout=10,
        )
        for n in range(3)
    ]
    assert [answer.status_code for answer in answers] == [201, 201, 429]
    store = Store.open(proxied.db_path)
    try:
        created = {answer.json()["id"] for answer in answers[:2]}
        clients = {store.game(game_id)["creator_client"] for game_id in created}
    finally:
        store.close()
    assert clients == {"2001:db8:b:1::/64"}, "the mail limits per client count the /64 too"


def test_the_stream_cap_per_client_counts_an_ipv6_network_once(proxied: BackgroundServer) -> None:
    game = requests.post(
        proxied.api("/games"),
        json={"engine": "siam", "players": [{"name": "A"}, {"name": "B"}]},
        headers={"X-Forwarded-For": "203.0.113.50"},
        timeout=10,
    ).json()
    streams = [
        requests.get(
            proxied.api(f"/games/{game['id']}/events"),
            headers={"X-Forwarded-For": f"2001:db8:c:1::{n + 1}"},
            stream=True,
            timeout=10,
        )
        for n in range(3)
    ]
    try:
        assert [stream.status_code for stream in streams] == [200, 200, 429]
        assert error_code(streams[2]) == "rate_limited"
    finally:
        for stream in streams:
            stream.close()


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
