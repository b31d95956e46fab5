"""Issue 20, HTTP edge and input side: each finding of the attack, replayed against a real
gunicorn process with the attack's own inputs."""

from __future__ import annotations

import contextlib
import html
import json
import re
import resource
import socket
import time
from collections.abc import Iterator

import pytest
import requests

from schemas.api import MAX_SEED
from server.serving import BODY_SECONDS, CONNECTIONS_PER_CLIENT
from server.store import open_store
from tests.reliability.test_serving import connect
from tests.server.test_api import WINNING_LINE, create_siam, error_code, submit
from tests.support import BackgroundServer, start_background


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """A gunicorn server with the default settings."""
    server = start_background(str(tmp_path_factory.mktemp("edge") / "turnpost.db"))
    yield server
    server.stop()


# -- slow bodies and many connections -----------------------------------------------------
#: The attack: about 4,000 connections from 2 addresses, one byte each every 3 seconds.
ATTACKERS = ("127.0.0.2", "127.0.0.3")
ATTACK_CONNECTIONS = 4200
TRICKLE_SECONDS = 3


def trickle_head(path: str = "/api/v1/games", content_type: str = "application/json") -> bytes:
    """The attack's request: a body of 60,000 bytes announced, then sent a byte at a time."""
    return (
        f"POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: {content_type}\r\n"
        "Content-Length: 60000\r\n\r\n{"
    ).encode()


def trickle(socks: list[socket.socket], data: bytes = b" ") -> None:
    """Send ``data`` on every socket the server has not closed."""
    for sock in socks:
        with contextlib.suppress(OSError):  # closed by the server
            sock.send(data)


def answer_and_close(sock: socket.socket, wait: float = 0.5) -> tuple[bytes, bool]:
    """What the server sent on ``sock``, and whether it then closed it (within ``wait`` s)."""
    sock.settimeout(wait)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except (ConnectionResetError, BrokenPipeError):
        return received, True
    except TimeoutError:
        return received, False
    return received, True


def test_thousands_of_slow_bodies_neither_starve_others_nor_stay(tmp_path) -> None:
    """Issue 20: 4,000 connections from 2 addresses trickling a 60,000-byte body took every
    connection of both workers: ``/healthz`` answered 0 of 4 for 20 s, and a body that never
    ended held its connection for over a minute."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 3 * ATTACK_CONNECTIONS)), hard))
    server = start_background(str(tmp_path / "trickle.db"))  # 2 workers of 2,000 connections
    tricklers: list[socket.socket] = []
    try:
        game = create_siam(server)
        for number in range(ATTACK_CONNECTIONS):
            sock = connect(server, ATTACKERS[number % 2])
            trickle([sock], trickle_head())
            tricklers.append(sock)
        started = time.monotonic()
        waits = []
        for seq in range(BODY_SECONDS // TRICKLE_SECONDS + 1):
            trickle(tricklers)
            asked = time.monotonic()
            assert requests.get(f"{server.url}/healthz", timeout=5).status_code == 200
            moved = submit(server, game, seq % 2, {"notation": WINNING_LINE[seq]})
            assert moved.status_code == 201, moved.text
            waits.append(time.monotonic() - asked)
            time.sleep(max(0.0, started + (seq + 1) * TRICKLE_SECONDS - time.monotonic()))
        assert max(waits) < 2, waits
        time.sleep(max(0.0, started + BODY_SECONDS + 1 - time.monotonic()))
        outcomes = [answer_and_close(sock) for sock in tricklers]
    finally:
        for sock in tricklers:
            sock.close()
        server.stop()
    assert "Traceback" not in server.log()
    assert all(closed for _, closed in outcomes), "a slow body still holds its connection"
    timed_out = [answer for answer, _ in outcomes if answer]
    held = 2 * len(ATTACKERS) * CONNECTIONS_PER_CLIENT  # 2 workers, per client per worker
    assert 0 < len(timed_out) <= held, "the rest were closed at once: too many from one client"
    assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in timed_out)


def trickle_until_closed(
    server: BackgroundServer, head: bytes, piece: bytes
) -> tuple[bytes, float]:
    """Send ``head``, then ``piece`` every second until the server closes the connection
    (or gives up 5 s past the deadline): what it answered, and after how many seconds."""
    sock = connect(server)
    started = time.monotonic()
    sock.sendall(head)
    closed = False
    received = b""
    while not closed and time.monotonic() < started + BODY_SECONDS + 5:
        trickle([sock], piece)
        answer, closed = answer_and_close(sock, wait=1)
        received += answer
    sock.close()
    assert closed, "the body is still waited for"
    return received, time.monotonic() - started


@pytest.mark.parametrize(
    ("path", "content_type"),
    [("/api/v1/games", "application/json"), ("/games", "application/x-www-form-urlencoded")],
)
def test_a_body_that_never_ends_is_cut_off_at_the_deadline(
    server: BackgroundServer, path: str, content_type: str
) -> None:
    """One connection sending a byte a second stayed open over 60 s (the API and the lobby form)."""
    logged = len(server.log())
    received, elapsed = trickle_until_closed(server, trickle_head(path, content_type), b" ")
    assert BODY_SECONDS - 1 < elapsed < BODY_SECONDS + 2, elapsed
    head, _, body = received.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 ") and b"Connection: close" in head
    if path.startswith("/api/"):
        assert json.loads(body)["error"]["code"] == "request_timeout"
    assert "Traceback" not in server.log()[logged:]


def test_a_chunked_body_that_never_ends_is_cut_off_at_the_deadline(
    server: BackgroundServer,
) -> None:
    head = b"POST /api/v1/games HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n"
    received, elapsed = trickle_until_closed(server, head + b"1\r\n{\r\n", b"1\r\n \r\n")
    assert elapsed < BODY_SECONDS + 2, elapsed
    assert received.startswith(b"HTTP/1.1 408 ")


def answer_before_the_body(server: BackgroundServer, path: str, bearer: str | None) -> bytes:
    """The head of the answer to a POST of ``path`` whose 60,000-byte body never comes: it
    must come within a second."""
    headers = b"" if bearer is None else f"Authorization: Bearer {bearer}\r\n".encode()
    sock = connect(server)
    started = time.monotonic()
    sock.sendall(
        f"POST {path} HTTP/1.1\r\nHost: test\r\n".encode()
        + headers
        + b"Content-Length: 60000\r\n\r\n{"
    )
    sock.settimeout(2)
    head = sock.recv(65536)
    assert time.monotonic() - started < 1, path
    sock.close()
    return head


@pytest.mark.parametrize("token", [None, "made-up", "admin"])
def test_a_seat_operation_without_its_token_does_not_wait_for_the_body(
    server: BackgroundServer, token: str | None
) -> None:
    """The body used to be read (and waited for) before the token was checked."""
    game = create_siam(server)
    bearer = {"admin": game["admin_token"]}.get(token, token)
    for operation in ("moves", "resign", "vacation"):
        head = answer_before_the_body(server, f"/api/v1/games/{game['id']}/{operation}", bearer)
        assert head.startswith(b"HTTP/1.1 401 "), (operation, head[:80])
    moved = submit(server, game, 0, {"notation": "enter a1 N"})
    assert moved.status_code == 201, "the seat's own token still moves"


@pytest.mark.parametrize("token", [None, "made-up", "tpp_made-up", "seat", "admin"])
def test_a_webhook_or_a_players_ping_without_its_token_does_not_wait_for_the_body(
    server: BackgroundServer, token: str | None
) -> None:
    """A webhook needs the game's admin token, a player's chat ping a personal API token: both
    were checked only once the body had come."""
    game = create_siam(server)
    bearer = {"admin": game["admin_token"], "seat": game["players"][0]["token"]}.get(token, token)
    webhooks = f"/api/v1/games/{game['id']}/webhooks"
    if token != "admin":
        assert answer_before_the_body(server, webhooks, bearer).startswith(b"HTTP/1.1 401 ")
    head = answer_before_the_body(server, "/api/v1/me/pings", bearer)
    assert head.startswith(b"HTTP/1.1 401 "), head[:80]
    assert answer_before_the_body(server, "/api/v1/games/nope/webhooks", bearer).startswith(
        b"HTTP/1.1 404 "
    )
    registered = requests.post(
        server.url + webhooks,
        json={"url": "https://hooks.example.org/in"},
        headers={"Authorization": f"Bearer {game['admin_token']}"},
        timeout=10,
    )
    assert registered.status_code == 201, "the admin token still registers a webhook"


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """One worker holding at most 5 connections of a client."""
    server = start_background(
        str(tmp_path_factory.mktemp("capped") / "turnpost.db"),
        workers=1,
        environment={"TURNPOST_MAX_CONNECTIONS_PER_CLIENT": "5"},
    )
    yield server
    server.stop()


def test_connections_past_the_cap_of_one_client_are_closed_at_once(
    capped: BackgroundServer,
) -> None:
    held = [connect(capped, "127.0.0.2") for _ in range(20)]
    try:
        trickle(held, b"GET /healthz HTTP/1.1\r\n")
        outcomes = [answer_and_close(sock, wait=0.5) for sock in held]
        assert [closed for _, closed in outcomes].count(False) == 5
        assert requests.get(f"{capped.url}/healthz", timeout=5).status_code == 200
        for sock in held:
            sock.close()
        time.sleep(0.5)
        again = connect(capped, "127.0.0.2")
        again.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        assert again.recv(65536).startswith(b"HTTP/1.1 200 "), "closed ones are given back"
        again.close()
    finally:
        for sock in held:
            sock.close()


def test_the_connection_cap_is_left_to_the_proxy_behind_one(proxied: BackgroundServer) -> None:
    """Behind a proxy every connection comes from the proxy: capping it would cap everyone."""
    socks = [connect(proxied) for _ in range(8)]
    try:
        for number, sock in enumerate(socks):
            forwarded = f"X-Forwarded-For: 192.0.2.{number}\r\n".encode()
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n" + forwarded + b"\r\n")
        assert all(sock.recv(65536).startswith(b"HTTP/1.1 200 ") for sock in socks)
    finally:
        for sock in socks:
            sock.close()


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
            "TURNPOST_MAX_CONNECTIONS_PER_CLIENT": "3",
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
    store = open_store(proxied.db_path)
    try:
        created = {answer.json()["id"] for answer in answers[:2]}
        clients = {store.game(game_id).creator_client for game_id in created}
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
    create_siam(server, players=[{"name": "Ann"}, {"open": True}])  # a table: listed to all
    response = requests.get(server.api("/games"), params={"cursor": str(MAX_SEED)}, timeout=10)
    assert response.status_code == 200 and response.json()["games"]


# -- expected client errors write no traceback ------------------------------------------
def logged_for(server: BackgroundServer, url: str) -> tuple[requests.Response, list[str]]:
    """``GET url``, and the lines the server logged meanwhile (read once they stop coming)."""
    logged = len(server.log())
    response = requests.get(url, timeout=10)
    lines: list[str] = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        time.sleep(0.3)
        latest = server.log()[logged:].splitlines()
        if latest and latest == lines:
            break
        lines = latest
    return response, lines


def test_a_replay_out_of_range_is_refused_with_one_line_in_the_log(
    server: BackgroundServer,
) -> None:
    """``?at=N`` past the game ran in a thread, whose refusal gevent printed with its traceback."""
    game = create_siam(server)
    route = "turnpost.request method=GET route=/api/v1/games/<game_id>"
    for at in (1, 5, 1000, 0):
        response, lines = logged_for(server, server.api(f"/games/{game['id']}?at={at}"))
        status = 200 if at == 0 else 422
        assert response.status_code == status
        if status == 422:
            assert error_code(response) == "invalid_request"
            assert response.json()["error"]["details"] == {"at": [0]}
        assert len(lines) == 1 and lines[0].startswith(f"{route} status={status} "), (at, lines)


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
