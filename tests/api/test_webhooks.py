"""Webhooks: signed deliveries to a real local receiver, retries, refused destinations."""

from __future__ import annotations

import socket
from datetime import timedelta
from ipaddress import ip_address
from typing import Any
from unittest import mock

import pytest
import requests
from click.testing import CliRunner

from server import create_app
from server.cli import main
from server.games.clock import format_time, parse_time, utcnow
from server.store import open_store
from server.webhooks.delivery import MAX_ATTEMPTS, verify
from server.webhooks.destinations import Destinations, Refused
from tests.api.conftest import bearer, new_game, play, register, seat_header
from tests.api.receivers import LOOPBACK, deliver
from tests.support import ROOT, BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def test_each_move_and_the_end_reach_the_receiver_signed(allowed_app, receiver) -> None:
    client = allowed_app.test_client()
    game = new_game(client, seed=3)
    created = register(client, game, receiver.url)
    assert created.status_code == 201, created.get_json()
    secret = created.get_json()["secret"]
    play(client, game, 0, "enter a1 N")
    client.post(f"/api/v1/games/{game['id']}/resign", headers=seat_header(game, 1))
    assert deliver(allowed_app) == (3, 0)
    assert [event["event"] for event in receiver.events()] == ["move", "move", "end"]
    log = client.get(f"/api/v1/games/{game['id']}/moves").get_json()
    first, resigned, end = receiver.events()
    assert {key: first[key] for key in log[0]} == log[0] and first["game_id"] == game["id"]
    assert resigned["move"] == {"action": "resign"} and resigned["result"]["winners"] == [0]
    assert end == {
        "event": "end",
        "game_id": game["id"],
        "seq": 2,
        "status": "finished",
        "result": resigned["result"],
    }
    for request in receiver.requests:
        headers = request["headers"]
        assert request["path"] == "/hook?game=1"
        assert headers["Content-Type"] == "application/json"
        assert headers["Host"] == receiver.url.split("/")[2]
        delivery, signature = headers["Turnpost-Delivery"], headers["Turnpost-Signature"]
        assert verify(secret, delivery, request["body"], signature)
        assert not verify("whsec_other", delivery, request["body"], signature)
        assert not verify(secret, str(int(delivery) + 1), request["body"], signature)
    assert deliver(allowed_app) == (0, 0), "each event is delivered once"


def test_the_receivers_check_in_the_api_guide_verifies_a_real_delivery(
    allowed_app, receiver
) -> None:
    """docs/api.md's ``verified`` example, run on what the receiver got: it accepts the
    delivery, and refuses it under another delivery id or with another body."""
    guide = (ROOT / "docs" / "api.md").read_text()
    [example] = [block for block in guide.split("```python\n")[1:] if "def verified(" in block]
    namespace: dict[str, Any] = {}
    exec(example.split("```")[0], namespace)  # the guide's own example
    verified = namespace["verified"]
    client = allowed_app.test_client()
    game = new_game(client)
    secret = register(client, game, receiver.url).get_json()["secret"]
    play(client, game, 0, "enter a1 N")
    assert deliver(allowed_app) == (1, 0)
    [request] = receiver.requests
    delivery, signature = (
        request["headers"]["Turnpost-Delivery"],
        request["headers"]["Turnpost-Signature"],
    )
    assert verified(secret, delivery, request["body"], signature)
    assert not verified(secret, delivery + "0", request["body"], signature)
    assert not verified(secret, delivery, request["body"][:-1] + b" }", signature)


def test_a_500_is_retried_after_a_backoff(allowed_app, receiver, db_path) -> None:
    client = allowed_app.test_client()
    game = new_game(client)
    register(client, game, receiver.url)
    receiver.statuses = [500, 503]
    play(client, game, 0, "enter a1 N")
    now = utcnow()
    assert deliver(allowed_app, now) == (0, 1)
    assert deliver(allowed_app, now) == (0, 0), "not before the backoff"
    later = format_time(parse_time(now) + timedelta(seconds=31))
    assert deliver(allowed_app, later) == (0, 1)
    much_later = format_time(parse_time(now) + timedelta(minutes=5))
    assert deliver(allowed_app, much_later) == (1, 0)
    bodies = {request["body"] for request in receiver.requests}
    ids = {request["headers"]["Turnpost-Delivery"] for request in receiver.requests}
    assert len(receiver.requests) == 3 and len(bodies) == 1 and len(ids) == 1
    row = open_store(db_path).webhook_deliveries(game["id"])[0]
    assert row.delivered_at and row.attempts == 3 and row.last_status == 200


def test_a_refusing_receiver_is_not_retried(allowed_app, receiver) -> None:
    client = allowed_app.test_client()
    game = new_game(client)
    register(client, game, receiver.url)
    receiver.statuses = [410]
    play(client, game, 0, "enter a1 N")
    now = utcnow()
    assert deliver(allowed_app, now) == (0, 1)
    assert deliver(allowed_app, format_time(parse_time(now) + timedelta(days=1))) == (0, 0)
    assert len(receiver.requests) == 1


def test_retries_stop_after_the_last_attempt(allowed_app, receiver) -> None:
    client = allowed_app.test_client()
    game = new_game(client)
    register(client, game, receiver.url)
    receiver.statuses = [500] * MAX_ATTEMPTS * 2
    play(client, game, 0, "enter a1 N")
    moment = parse_time(utcnow())
    for _ in range(MAX_ATTEMPTS + 3):
        deliver(allowed_app, format_time(moment))
        moment += timedelta(hours=2)
    assert len(receiver.requests) == MAX_ATTEMPTS


def test_nothing_is_sent_to_a_refused_address(db_path, receiver) -> None:
    """The operator allowed no private address: the loopback receiver never gets a request,
    whether named by address or by a host name that resolves to it."""
    strict = create_app({"TURNPOST_DB": db_path, "TESTING": True})
    client = strict.test_client()
    game = new_game(client)
    refused = register(client, game, receiver.url)
    assert refused.status_code == 422 and "127.0.0.1" in refused.get_json()["error"]["message"]
    named = receiver.url.replace("127.0.0.1", "localhost")
    assert register(client, game, named).status_code == 201
    play(client, game, 0, "enter a1 N")
    assert deliver(strict) == (0, 1)
    assert receiver.requests == []
    row = open_store(db_path).webhook_deliveries(game["id"])[0]
    assert row.last_error.startswith("refused") and row.next_attempt_at is None


def test_a_rebinding_name_is_checked_at_delivery_and_the_checked_address_used(
    allowed_app, receiver, db_path
) -> None:
    """The name resolved to a public address at registration and to loopback at delivery:
    refused. And when it resolves to an allowed address, that address is the one connected."""
    client = allowed_app.test_client()
    game = new_game(client)
    port = receiver.server.server_port
    register(client, game, f"http://hooks.example.org:{port}/in")
    play(client, game, 0, "enter a1 N")
    answers = [[(2, 1, 6, "", ("10.0.0.7", port))]]
    strict = Destinations.from_settings("", LOOPBACK)
    with mock.patch("socket.getaddrinfo", side_effect=lambda *a, **k: answers[0]):
        with pytest.raises(Refused, match="10.0.0.7"):
            strict.resolve(f"http://hooks.example.org:{port}/in")
        answers[0] = [(2, 1, 6, "", ("127.0.0.1", port))]
        assert strict.resolve(f"http://hooks.example.org:{port}/in").address == "127.0.0.1"
        assert deliver(allowed_app) == (1, 0)
    assert receiver.requests[0]["headers"]["Host"] == f"hooks.example.org:{port}"
    mixed = [(2, 1, 6, "", ("93.184.216.34", 80)), (2, 1, 6, "", ("192.168.1.1", 80))]
    with mock.patch("socket.getaddrinfo", return_value=mixed), pytest.raises(Refused):
        Destinations().resolve("http://two-faced.example.org/")


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.org/hook",
        "file:///etc/passwd",
        "http://user:pw@example.org/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://10.0.0.1/hook",
        "http:///hook",
        "http://example.org:99999/hook",
        "https://example.org/" + "x" * 2100,
        "https://example.org/in\r\nX-Injected: 1",
        "https://exa\u2028mple.org/",
        "javascript:alert(1)",
    ],
)
def test_unsafe_urls_are_refused_at_registration(client, url) -> None:
    game = new_game(client)
    answer = register(client, game, url)
    assert answer.status_code == 422, url
    assert answer.get_json()["error"]["code"] == "invalid_request"


def test_the_operator_may_list_the_only_hosts(db_path) -> None:
    app = create_app(
        {"TURNPOST_DB": db_path, "TESTING": True, "TURNPOST_WEBHOOK_HOSTS": "*.example.org"}
    )
    client = app.test_client()
    game = new_game(client)
    assert register(client, game, "https://hooks.example.org/in").status_code == 201
    assert register(client, game, "https://example.net/in").status_code == 422


def test_only_the_admin_token_manages_webhooks(client) -> None:
    game = new_game(client)
    path = f"/api/v1/games/{game['id']}/webhooks"
    body = {"url": "https://example.org/in"}
    for headers in ({}, seat_header(game, 0), bearer("guess")):
        assert client.post(path, json=body, headers=headers).status_code == 401
        assert client.get(path, headers=headers).status_code == 401
    admin = bearer(game["admin_token"])
    made = [client.post(path, json=body, headers=admin).get_json() for _ in range(5)]
    assert client.post(path, json=body, headers=admin).status_code == 422, "five at most"
    listed = client.get(path, headers=admin).get_json()
    assert [hook["id"] for hook in listed] == [hook["id"] for hook in made]
    assert all("secret" not in hook for hook in listed)
    assert len({hook["secret"] for hook in made}) == 5
    assert client.delete(f"{path}/{made[0]['id']}", headers=seat_header(game, 0)).status_code == 401
    assert client.delete(f"{path}/{made[0]['id']}", headers=admin).status_code == 204
    assert client.delete(f"{path}/{made[0]['id']}", headers=admin).status_code == 404
    assert len(client.get(path, headers=admin).get_json()) == 4


def live_webhooks(live_server: BackgroundServer) -> tuple[str, dict[str, str]]:
    """A new game on the real server: the URL of its webhooks, and its admin's header."""
    players = [{"name": "Ann"}, {"name": "Bob"}]
    game = requests.post(
        live_server.api("/games"), json={"engine": "siam", "players": players}, timeout=10
    )
    assert game.status_code == 201, game.text
    path = live_server.api(f"/games/{game.json()['id']}/webhooks")
    return path, bearer(game.json()["admin_token"])


def test_a_webhook_id_past_sqlites_integers_is_not_found_on_a_real_server(live_server) -> None:
    """Issue 20: ``DELETE .../webhooks/99999999999999999999999`` answered 500 (OverflowError)."""
    path, admin = live_webhooks(live_server)
    for wild in ("99999999999999999999999", str(2**63), str(2**63 - 1), "0", "-1", "1.5", "x"):
        answer = requests.delete(f"{path}/{wild}", headers=admin, timeout=10)
        assert answer.status_code == 404, wild
        assert answer.json()["error"]["code"] == "not_found"
    assert requests.get(path, headers=admin, timeout=10).json() == []


def test_a_removed_webhook_gets_nothing_more(allowed_app, receiver) -> None:
    client = allowed_app.test_client()
    game = new_game(client)
    hook = register(client, game, receiver.url).get_json()
    play(client, game, 0, "enter a1 N")
    client.delete(
        f"/api/v1/games/{game['id']}/webhooks/{hook['id']}", headers=bearer(game["admin_token"])
    )
    play(client, game, 1, "enter e5 S")
    assert deliver(allowed_app) == (0, 1)
    assert receiver.requests == []


def test_the_send_webhooks_command_delivers(allowed_app, receiver, db_path) -> None:
    client = allowed_app.test_client()
    game = new_game(client)
    register(client, game, receiver.url)
    play(client, game, 0, "enter a1 N")
    env = {"TURNPOST_DB": db_path, "TURNPOST_WEBHOOK_NETWORKS": LOOPBACK}
    result = CliRunner().invoke(main, ["send-webhooks"], env=env)
    assert result.exit_code == 0, result.output
    assert "webhooks delivered 1, failed 0" in result.output
    assert [event["notation"] for event in receiver.events()] == ["enter a1 N"]


#: IPv6 addresses that carry a refused IPv4 address, or deprecated forms (issue 20).
EMBEDDED_IPV4 = [
    "64:ff9b::127.0.0.1",  # NAT64, well-known prefix
    "64:ff9b:1::10.0.0.1",  # NAT64, local-use prefix
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo: client 192.0.2.45
    "::127.0.0.1",  # IPv4-compatible (deprecated)
    "::ffff:0:127.0.0.1",  # SIIT IPv4-translated (deprecated)
    "fec0::1",  # site-local (deprecated)
]


def test_ipv6_carrying_a_refused_ipv4_is_refused_at_registration_by_a_real_server(
    live_server,
) -> None:
    """The attack of issue 20: each form was accepted, and attempted."""
    path, admin = live_webhooks(live_server)
    for address in EMBEDDED_IPV4:
        url = f"http://[{address}]:8080/hook"
        answer = requests.post(path, json={"url": url}, headers=admin, timeout=10)
        assert answer.status_code == 422, address
        assert answer.json()["error"]["code"] == "invalid_request", address
        assert "does not post webhooks to" in answer.json()["error"]["message"], address
    assert requests.get(path, headers=admin, timeout=10).json() == [], "none registered"


@pytest.mark.parametrize("address", EMBEDDED_IPV4)
def test_a_name_resolving_to_ipv6_carrying_a_refused_ipv4_gets_nothing(db_path, address) -> None:
    """The resolver is hooked: a name resolving to these addresses cannot be made up with real
    parts here (no DNS server of the tests')."""
    strict = create_app({"TURNPOST_DB": db_path, "TESTING": True})
    client = strict.test_client()
    game = new_game(client)
    assert register(client, game, "http://hooks.example.org/in").status_code == 201
    play(client, game, 0, "enter a1 N")
    answer = [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, 80, 0, 0))]
    with (
        mock.patch("socket.getaddrinfo", return_value=answer),
        mock.patch("socket.socket.connect", side_effect=OSError("the test connects nowhere")),
    ):
        assert deliver(strict) == (0, 1)
    row = open_store(db_path).webhook_deliveries(game["id"])[0]
    assert row.last_error.startswith("refused") and row.next_attempt_at is None


@pytest.mark.parametrize(
    ("address", "allowed"),
    [("64:ff9b::93.184.216.34", True), ("2002:5db8:d822::1", True), ("::ffff:8.8.8.8", True)],
)
def test_ipv6_carrying_a_public_ipv4_is_allowed(address, allowed) -> None:
    assert Destinations().address_allowed(ip_address(address)) is allowed
