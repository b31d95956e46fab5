"""Chat pings (issue 28): a seat's turns posted to a real local receiver in each chat's format,
once per turn, with nothing hidden; the destination rules and every bad input refused."""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

import pytest

from server.accounts.service import AccountService
from server.games.clock import utcnow
from server.store import open_store, records
from server.webhooks.delivery import verify
from server.webhooks.pings import MAX_PINGS
from tests.api.conftest import bearer, new_game, play, seat_header
from tests.api.receivers import Receiver, deliver

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

#: The address the app's links start with (the settings' default).
BASE_URL = "http://127.0.0.1:8000"
#: A tile of Bangkok Klongs, as a card in a hand would show.
TILE = re.compile(r"\bt\d{1,2}\b")


def add_ping(client: Any, game: dict, seat: int, **body: Any) -> Any:
    """POST a chat ping for ``seat``."""
    return client.post(
        f"/api/v1/games/{game['id']}/pings", json=body, headers=seat_header(game, seat)
    )


def first_legal(client: Any, game: dict, seat: int) -> dict[str, Any]:
    """The first legal move of ``seat``."""
    legal = client.get(f"/api/v1/games/{game['id']}/legal-moves", headers=seat_header(game, seat))
    return legal.get_json()["moves"][0]


@pytest.mark.parametrize(
    ("kind", "mention"),
    [
        ("discord", "123456789012345678"),
        ("slack", "U024BE7LH"),
        ("matrix", "@bob:example.org"),
        ("generic", "bob"),
    ],
)
def test_a_ping_reaches_the_chat_in_its_format_with_nothing_hidden(
    allowed_app, receiver: Receiver, kind: str, mention: str
) -> None:
    client = allowed_app.test_client()
    game = new_game(client, "bangkok-klongs", seed=5)
    added = add_ping(client, game, 1, kind=kind, url=receiver.url, mention=mention)
    assert added.status_code == 201, added.get_json()
    move = first_legal(client, game, 0)
    answer = client.post(
        f"/api/v1/games/{game['id']}/moves", json={"move": move}, headers=seat_header(game, 0)
    )
    assert answer.status_code == 201, answer.get_json()
    assert deliver(allowed_app) == (1, 0)
    [request] = receiver.requests
    body = json.loads(request["body"])
    link = f"{BASE_URL}/games/{game['id']}"
    text = request["body"].decode()
    assert link in text and "move 2" in text
    assert not TILE.search(text), "a ping shows no tile, hand or draw"
    assert game["players"][1]["token"] not in text and "/seat/" not in text
    if kind == "discord":
        assert body["content"].startswith(f"<@{mention}>, it is your turn in Bangkok Klongs")
        assert body["allowed_mentions"] == {"users": [mention]}
    elif kind == "slack":
        assert body == {
            "text": f"<@{mention}>, it is your turn in Bangkok Klongs with Ann (move 2):"
            f" <{link}|open the game>"
        }
    elif kind == "matrix":
        assert body["text"].startswith(f"{mention}, it is your turn")
        assert f'<a href="https://matrix.to/#/{mention}">{mention}</a>' in body["html"]
    else:
        assert {
            key: body[key] for key in ("event", "game_id", "seat", "seq", "mention", "url")
        } == {
            "event": "turn",
            "game_id": game["id"],
            "seat": 1,
            "seq": 1,
            "mention": mention,
            "url": link,
        }
        headers = request["headers"]
        assert verify(
            added.get_json()["secret"],
            headers["Turnpost-Delivery"],
            request["body"],
            headers["Turnpost-Signature"],
        )


def test_one_ping_per_turn_and_none_for_the_mover(allowed_app, receiver: Receiver) -> None:
    client = allowed_app.test_client()
    game = new_game(client, seed=42)
    assert add_ping(client, game, 1, kind="generic", url=receiver.url).status_code == 201
    assert (
        add_ping(client, game, 0, kind="generic", url=receiver.url + "&seat=0").status_code == 201
    )
    for seat, notation in enumerate(["enter a1 N", "enter e5 S", "enter a2 N"]):
        play(client, game, seat % 2, notation)
    assert deliver(allowed_app) == (3, 0)
    pinged = [(event["seat"], event["seq"]) for event in receiver.events()]
    assert sorted(pinged) == [(0, 2), (1, 1), (1, 3)]
    assert deliver(allowed_app) == (0, 0)


def test_a_name_cannot_mass_mention_a_discord_channel(allowed_app, receiver: Receiver) -> None:
    client = allowed_app.test_client()
    response = client.post(
        "/api/v1/games",
        json={"engine": "siam", "players": [{"name": "Ann"}, {"name": "@everyone"}]},
    )
    game = response.get_json()
    add_ping(client, game, 1, kind="discord", url=receiver.url)
    play(client, game, 0, "enter a1 N")
    deliver(allowed_app)
    [body] = receiver.events()
    assert body["allowed_mentions"] == {"parse": []}


def test_a_removed_ping_stops_and_only_its_seat_sees_it(allowed_app, receiver: Receiver) -> None:
    client = allowed_app.test_client()
    game = new_game(client, seed=42)
    ping = add_ping(client, game, 1, kind="slack", url=receiver.url).get_json()
    pings = f"/api/v1/games/{game['id']}/pings"
    assert [p["id"] for p in client.get(pings, headers=seat_header(game, 1)).get_json()] == [
        ping["id"]
    ]
    assert client.get(pings, headers=seat_header(game, 0)).get_json() == []
    assert client.get(pings).status_code == 401
    other = client.delete(f"{pings}/{ping['id']}", headers=seat_header(game, 0))
    assert other.status_code == 404
    assert client.delete(f"{pings}/{ping['id']}", headers=seat_header(game, 1)).status_code == 204
    assert (
        client.get(
            f"/api/v1/games/{game['id']}/webhooks", headers=bearer(game["admin_token"])
        ).get_json()
        == []
    )
    play(client, game, 0, "enter a1 N")
    assert deliver(allowed_app) == (0, 0) and receiver.requests == []


def test_private_addresses_are_refused_as_for_webhooks(client) -> None:
    """The operator allows no loopback here: a ping to it is refused when added."""
    game = new_game(client, seed=42)
    for url in (
        "http://127.0.0.1:9/hook",
        "http://[::1]/x",
        "http://10.0.0.1/x",
        "ftp://example.org/x",
        "http://u:p@example.org/",
    ):
        refused = add_ping(client, game, 1, kind="generic", url=url)
        assert refused.status_code == 422, url
        assert "url" in refused.get_json()["error"]["details"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"kind": "irc", "url": "https://example.org/h"}, "kind"),
        ({"kind": "discord", "url": "https://example.org/h", "mention": "@everyone"}, "mention"),
        ({"kind": "slack", "url": "https://example.org/h", "mention": "<!channel>"}, "mention"),
        ({"kind": "matrix", "url": "https://example.org/h", "mention": "bob"}, "mention"),
        ({"kind": "generic", "url": "https://example.org/h", "mention": "a\nb"}, "mention"),
        ({"kind": "generic"}, "url"),
        ({"kind": "generic", "url": "https://example.org/h", "extra": 1}, "extra"),
        ({"kind": "generic", "url": 7}, "url"),
    ],
)
def test_bad_pings_are_refused_with_a_422(client, body: dict, field: str) -> None:
    game = new_game(client, seed=42)
    refused = add_ping(client, game, 0, **body)
    assert refused.status_code == 422, refused.get_json()
    assert field in refused.get_json()["error"]["details"]


def test_a_seat_has_at_most_a_few_pings_and_needs_its_token(
    allowed_app, receiver: Receiver
) -> None:
    client = allowed_app.test_client()
    game = new_game(client, seed=42)
    for _ in range(MAX_PINGS):
        assert add_ping(client, game, 0, kind="generic", url=receiver.url).status_code == 201
    assert add_ping(client, game, 0, kind="generic", url=receiver.url).status_code == 422
    anonymous = client.post(
        f"/api/v1/games/{game['id']}/pings", json={"kind": "generic", "url": receiver.url}
    )
    assert anonymous.status_code == 401
    assert client.post(
        "/api/v1/games/nope/pings", json={}, headers=seat_header(game, 0)
    ).status_code in (401, 404)


def signed_in_player(app: Any, client: Any, name: str) -> tuple[str, str]:
    """A player signed in in ``client`` (the session cookie), with a personal API token:
    ``(player id, token)``."""
    store = open_store(app.config["TURNPOST_DB"])
    accounts = AccountService(store, app.config["SECRET_KEY"])
    player_id = secrets.token_hex(8)
    email = f"{name.lower()}@example.org"
    with store.write():
        store.add_player(
            records.Player(player_id, email, email, name, "UTC", "en", "turn", utcnow())
        )
    client.set_cookie("turnpost_player", accounts.open_session(player_id))
    token = accounts.create_api_token(player_id, "tests")["token"]
    store.close()
    return player_id, token


def test_a_players_ping_follows_them_into_every_game(allowed_app, receiver: Receiver) -> None:
    client, bobs = allowed_app.test_client(), allowed_app.test_client()
    _, token = signed_in_player(allowed_app, bobs, "Bob")
    added = bobs.post(
        "/api/v1/me/pings",
        json={"kind": "matrix", "url": receiver.url, "mention": "@bob:example.org"},
        headers=bearer(token),
    )
    assert added.status_code == 201, added.get_json()
    assert [p["kind"] for p in bobs.get("/api/v1/me/pings").get_json()] == ["matrix"]
    by_cookie = bobs.post("/api/v1/me/pings", json={"kind": "generic", "url": receiver.url})
    assert by_cookie.status_code == 401, "a browser's cookie alone cannot add a ping"
    games = [new_game(client, seed=seed) for seed in (1, 2)]
    for game in games:  # Bob opens his seat's link, signed in: the seat is his
        opened = bobs.get(
            f"/games/{game['id']}/seat/{game['players'][1]['token']}",
            headers={"Sec-Fetch-Site": "none"},
        )
        assert opened.status_code == 303, opened.get_data(as_text=True)[:300]
        play(client, game, 0, "enter a1 N")
    assert deliver(allowed_app) == (2, 0)
    linked = {event["text"].rsplit("/games/", 1)[1] for event in receiver.events()}
    assert linked == {game["id"] for game in games}
    assert {event["text"].split(",")[0] for event in receiver.events()} == {"@bob:example.org"}
    removed = bobs.delete(f"/api/v1/me/pings/{added.get_json()['id']}", headers=bearer(token))
    assert removed.status_code == 204
    store = open_store(allowed_app.config["TURNPOST_DB"])
    assert [store.chat_pings(game["id"], 1) for game in games] == [[], []]
    store.close()
    later = new_game(client, seed=3)
    bobs.get(
        f"/games/{later['id']}/seat/{later['players'][1]['token']}",
        headers={"Sec-Fetch-Site": "none"},
    )
    play(client, later, 0, "enter a1 N")
    assert deliver(allowed_app) == (0, 0), "a removed ping of a player stops in every game"


def csrf_of(client: Any) -> str:
    """The CSRF token of the forms of the player's page."""
    page = client.get("/me").get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def test_the_players_page_adds_lists_and_removes_a_ping(app, client) -> None:
    """The form on /me goes through the API's destination rules: a private address is refused
    in words, a public one is listed, removal works; a form without the CSRF token fails."""
    player_id, _ = signed_in_player(app, client, "Bob")
    private = {"kind": "generic", "url": "http://10.0.0.1/hook", "mention": ""}
    assert client.post("/me/pings", data=private).status_code == 400, "no CSRF token"
    refused = client.post("/me/pings", data={**private, "csrf_token": csrf_of(client)})
    assert refused.status_code == 422
    page = refused.get_data(as_text=True)
    [problem] = re.findall(r'<p class="error" id="ping-problem">(.*?)</p>', page, re.S)
    assert problem.strip() == "This server does not post webhooks to 10.0.0.1."
    assert 'value="http://10.0.0.1/hook"' in page, "the form keeps what was typed"
    good = {"kind": "matrix", "url": "https://chat.example.org/hook", "mention": "@bob:example.org"}
    added = client.post("/me/pings", data={**good, "csrf_token": csrf_of(client)})
    assert added.status_code == 303
    page = client.get("/me").get_data(as_text=True)
    [listed] = re.findall(r'<ul id="ping-list">(.*?)</ul>', page, re.S)
    assert "Matrix: <code>https://chat.example.org/hook</code>" in listed
    assert "@bob:example.org" in listed
    store = open_store(app.config["TURNPOST_DB"])
    [ping] = store.player_pings(player_id)
    store.close()
    bad_mention = {**good, "mention": "bob", "csrf_token": csrf_of(client)}
    assert client.post("/me/pings", data=bad_mention).status_code == 422
    path = f"/me/pings/{ping.id}/remove"
    assert client.post(path, data={"csrf_token": csrf_of(client)}).status_code == 303
    assert 'id="ping-list"' not in client.get("/me").get_data(as_text=True)
    assert client.post(path, data={"csrf_token": csrf_of(client)}).status_code == 404


def test_a_ping_speaks_its_seats_language(allowed_app, receiver: Receiver) -> None:
    """A seat that reads German is pinged in German (English before)."""
    client = allowed_app.test_client()
    players = [{"name": "Ann"}, {"name": "Bob", "language": "de"}]
    game = client.post("/api/v1/games", json={"engine": "siam", "players": players}).get_json()
    added = add_ping(client, game, 1, kind="slack", url=receiver.url, mention=None)
    assert added.status_code == 201, added.get_json()
    moved = client.post(
        f"/api/v1/games/{game['id']}/moves",
        json={"notation": "enter a1 N"},
        headers=seat_header(game, 0),
    )
    assert moved.status_code == 201, moved.get_json()
    assert deliver(allowed_app) == (1, 0)
    [request] = receiver.requests
    link = f"{BASE_URL}/games/{game['id']}"
    assert json.loads(request["body"]) == {
        "text": f"Bob, du bist am Zug in Siam mit Ann (Zug 2): <{link}|Partie öffnen>"
    }
