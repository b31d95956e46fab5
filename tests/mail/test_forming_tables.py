"""A table that forms meets the rest of issue 21, against a real server: the table talk,
my games and Web Push.

The talk starts with the game (a message or a mute at a table still forming is
``409 not_started``: the seats they name are numbered only once the seat order is
drawn), a table that forms is listed in its players' games without asking its
engine anything, and once the drawn table starts, tokens, the partners' thread and
the queued pushes all name the seats after the draw.
"""

from __future__ import annotations

import pytest
import requests

from server.http.pages import seat_cookie
from server.store import open_store
from tests.mail.conftest import MAIL_SETTINGS
from tests.mail.test_table_attacks import Browser, player, public
from tests.support import BackgroundServer, table_rows

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

#: The settings of the module's ``live_server`` (tests/conftest.py).
LIVE_SERVER_ENVIRONMENT = MAIL_SETTINGS

NAMES = ("Host", "Bob", "Cy", "Dan")


@pytest.fixture(scope="module")
def server(live_server: BackgroundServer) -> BackgroundServer:
    """gunicorn with the mail settings (no SMTP server: nothing is sent)."""
    return live_server


def open_table(host: Browser) -> str:
    """A 4-player King of Siam table of open seats only, made in the lobby by ``host``."""
    seats = {f"open{seat}": "on" for seat in range(4)}
    answer = host.post("/games", engine="king-of-siam", **seats)
    assert answer.status_code == 303, answer.text
    return answer.headers["Location"].split("/")[2]


def token_of(browser: Browser, game_id: str) -> dict[str, str]:
    """The Authorization header of the seat ``browser`` plays in ``game_id``."""
    return {"Authorization": f"Bearer {browser.http.cookies[seat_cookie(game_id)]}"}


def messages(server: BackgroundServer, game_id: str, thread: str, **headers: str) -> list:
    """The texts of a thread, as ``headers``' seat reads it."""
    answer = requests.get(
        server.api(f"/games/{game_id}/messages"),
        params={"thread": thread},
        headers=headers,
        timeout=10,
    )
    assert answer.status_code == 200, answer.text
    return [message["text"] for message in answer.json()]


def test_a_table_that_forms_has_no_talk_until_it_starts(server: BackgroundServer) -> None:
    host, bob, cy, dan = (player(server, name) for name in NAMES)
    game_id = open_table(host)
    assert bob.post(f"/tables/{game_id}/join").status_code == 303
    bobs = token_of(bob, game_id)
    said = requests.post(
        server.api(f"/games/{game_id}/messages"), json={"text": "hi"}, headers=bobs, timeout=10
    )
    assert said.status_code == 409 and said.json()["error"]["code"] == "not_started"
    team = requests.post(
        server.api(f"/games/{game_id}/messages"),
        json={"text": "psst", "thread": "partners"},
        headers=bobs,
        timeout=10,
    )
    assert team.status_code == 409, "a partner thread before the teams are drawn"
    partners = requests.get(
        server.api(f"/games/{game_id}/messages"),
        params={"thread": "partners"},
        headers=bobs,
        timeout=10,
    )
    assert partners.status_code == 422, partners.text  # no partner yet, and no 500
    assert messages(server, game_id, "table") == []
    seat = requests.get(server.api(f"/games/{game_id}"), headers=bobs, timeout=10).json()["you"]
    on_page = bob.post(f"/games/{game_id}/talk", seat=str(seat), text="hello")
    assert on_page.status_code == 409 and "talk starts with the game" in on_page.text
    muted = bob.post(f"/games/{game_id}/talk/mute", seat=str(seat), other="0", muted="1")
    assert muted.status_code == 409
    assert bob.get(f"/games/{game_id}/talk").status_code == 409
    page = bob.get(f"/tables/{game_id}")
    assert page.status_code == 200 and 'id="talk"' not in page.text
    events = requests.get(
        server.api(f"/games/{game_id}/events"),
        params={"talk": "true"},
        headers=bobs,
        stream=True,
        timeout=10,
    )
    assert events.status_code == 200, "the talk stream of a forming table did not open"
    events.close()
    store = open_store(server.db_path)
    kept = [row for row in table_rows(store, "messages") if row["game_id"] == game_id]
    mutes = [row for row in table_rows(store, "talk_mutes") if row["game_id"] == game_id]
    store.close()
    assert (kept, mutes) == ([], [])

    for joining in (cy, dan, host):
        assert joining.post(f"/tables/{game_id}/join").status_code == 303
    assert public(server, game_id)["status"] == "active"
    browsers = {}
    for browser in (host, bob, cy, dan):
        headers = token_of(browser, game_id)
        you = requests.get(server.api(f"/games/{game_id}"), headers=headers, timeout=10)
        browsers[you.json()["you"]] = headers
    assert sorted(browsers) == [0, 1, 2, 3], "two tokens name one seat after the draw"
    bob_seat = next(seat for seat, headers in browsers.items() if headers == bobs)
    partner, rival = browsers[(bob_seat + 2) % 4], browsers[(bob_seat + 1) % 4]
    posted = requests.post(
        server.api(f"/games/{game_id}/messages"),
        json={"text": "go north", "thread": "partners"},
        headers=bobs,
        timeout=10,
    )
    assert posted.status_code == 201, posted.text
    assert messages(server, game_id, "partners", **partner) == ["go north"]
    assert messages(server, game_id, "partners", **rival) == []


def test_my_games_list_a_table_that_forms_and_open_it(server: BackgroundServer) -> None:
    host, bob = player(server, "Host"), player(server, "Bob")
    game_id = open_table(host)
    assert bob.post(f"/tables/{game_id}/join").status_code == 303
    page = bob.get("/me/games")
    assert page.status_code == 200, page.text[:300]
    listed = page.text.split(f'id="game-{game_id}"')[1].split("</li>")[0]
    assert "The game waits for its players." in listed and "3 open seats" in listed
    assert "No move yet" not in listed
    api = bob.get("/api/v1/me/games")
    assert api.status_code == 200, api.text
    [entry] = [game for game in api.json()["games"] if game["id"] == game_id]
    assert (entry["status"], entry["open_seats"], entry["waiting"]) == ("forming", 3, False)
    assert entry["forming_until"] is not None and entry["last_move"] is None

    again = Browser(server, bob.http.cookies["turnpost_player"])  # the same player elsewhere
    you = requests.get(server.api(f"/games/{game_id}"), headers=token_of(bob, game_id), timeout=10)
    opened = again.post(f"/games/{game_id}/my-seat", seat=str(you.json()["you"]))
    assert opened.status_code == 303, opened.text
    assert again.get(f"/games/{game_id}").url.endswith(f"/tables/{game_id}")
    assert public(server, game_id)["open_seats"] == 3, "opening a seat took another one"


def test_the_pushes_of_a_drawn_table_name_the_seats_after_the_draw(
    server: BackgroundServer,
) -> None:
    host, *others = (player(server, name) for name in NAMES)
    game_id = open_table(host)
    for browser in others:
        assert browser.post(f"/tables/{game_id}/join").status_code == 303
    store = open_store(server.db_path)
    seated = [row.player_id for row in store.seats(game_id) if row.player_id]
    for player_id in [*seated, store.game(game_id).creator_id]:
        subscription = {
            "player_id": player_id,
            "endpoint": f"https://push.example.org/{player_id}",
            "p256dh": "key",
            "auth": "auth",
            "created_at": "2026-01-01T00:00:00.000000Z",
        }
        store.add_push_subscription(subscription, keep=10)
    store.close()
    assert len(seated) == 3
    assert host.post(f"/tables/{game_id}/join").status_code == 303  # the last seat: it starts
    store = open_store(server.db_path)
    game = store.game(game_id)
    owners = {row["id"]: row["player_id"] for row in table_rows(store, "push_subscriptions")}
    pushes = [
        (push["seat"], owners[push["subscription_id"]])
        for push in table_rows(store, "pushes")
        if push["game_id"] == game_id
    ]
    seats = {row.seat: row.player_id for row in store.seats(game_id)}
    store.close()
    assert game.status == "active"
    assert pushes, "the start of the table pushed nobody"
    assert all(seats[seat] == owner for seat, owner in pushes), (pushes, seats)
    assert {seat for seat, _ in pushes} == set(game.to_move)
