"""``GET /api/v1/me/games`` and the "my seat" button, against a real gunicorn server.

The players and their credentials are made in the server's database (signing in by
mail is tested in ``tests/mail``); everything else goes over HTTP as clients do: games
are created over the API, a signed-in browser ties a seat by following its link, the
opponents move with their seat tokens.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

import requests

from server.accounts.service import AccountService
from server.games.clock import utcnow
from server.store import open_store, records
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

TIMEOUT = 10


@dataclass
class Player:
    """A player of the test: their id, a browser session signed in, a personal API token."""

    id: str
    email: str
    browser: requests.Session
    token: str

    def api(self, server: BackgroundServer, path: str, **params: Any) -> requests.Response:
        """``GET`` an API path with the player's personal token."""
        headers = {"Authorization": f"Bearer {self.token}"}
        return requests.get(server.api(path), headers=headers, params=params, timeout=TIMEOUT)


def new_player(server: BackgroundServer, name: str) -> Player:
    """A player in the server's database, signed in in a browser, with a personal token."""
    email = f"{name.lower()}-{secrets.token_hex(3)}@example.org"
    store = open_store(server.db_path)
    accounts = AccountService(store, "not used here")
    player_id = secrets.token_hex(8)
    with store.write():
        store.add_player(
            records.Player(player_id, email, email, name, "Europe/Brussels", "en", "turn", utcnow())
        )
    browser = requests.Session()
    browser.cookies.set("turnpost_player", accounts.open_session(player_id))
    token = accounts.create_api_token(player_id, "tests")["token"]
    store.close()
    return Player(player_id, email, browser, token)


def create(server: BackgroundServer, names: list[str], **extra: Any) -> dict[str, Any]:
    """A Siam game created over the API; every seat has an address (never to be shown)."""
    players = [{"name": name, "email": f"{name.lower()}@example.org"} for name in names]
    answer = requests.post(
        server.api("/games"), json={"engine": "siam", "players": players, **extra}, timeout=TIMEOUT
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def take_seat(server: BackgroundServer, player: Player, game: dict[str, Any], seat: int) -> None:
    """The player opens the seat's link in their signed-in browser: the seat becomes theirs."""
    token = game["players"][seat]["token"]
    answer = player.browser.get(
        f"{server.url}/games/{game['id']}/seat/{token}",
        headers={"Sec-Fetch-Site": "none"},
        timeout=TIMEOUT,
    )
    assert answer.status_code == 200, answer.status_code


def move(server: BackgroundServer, game: dict[str, Any], token: str, notation: str) -> None:
    """A move with a seat token."""
    answer = requests.post(
        server.api(f"/games/{game['id']}/moves"),
        json={"notation": notation},
        headers={"Authorization": f"Bearer {token}"},
        timeout=TIMEOUT,
    )
    assert answer.status_code == 201, answer.text


def handed(game: dict[str, Any], seat: int) -> str:
    """The token handed out for ``seat`` at creation (good until its player opens the seat)."""
    return game["players"][seat]["token"]


def three_games(server: BackgroundServer, ann: Player) -> dict[str, dict[str, Any]]:
    """Ann's games: one running where Bob moves, one waiting for her (Bob moved, a deadline),
    one Bob resigned; created in that order."""
    running = create(server, ["Ann", "Bob"])
    take_seat(server, ann, running, 0)
    move(server, running, ann.browser.cookies[f"turnpost_seat_{running['id']}"], "enter a1 N")
    waiting = create(server, ["Bob", "Ann"], turn_hours=48)
    take_seat(server, ann, waiting, 1)
    move(server, waiting, handed(waiting, 0), "enter e1 N")
    over = create(server, ["Ann", "Bob"])
    take_seat(server, ann, over, 0)
    resigned = requests.post(
        server.api(f"/games/{over['id']}/resign"),
        json={},
        headers={"Authorization": f"Bearer {handed(over, 1)}"},
        timeout=TIMEOUT,
    )
    assert resigned.status_code == 200, resigned.text
    return {"running": running, "waiting": waiting, "over": over}


def csrf_of(player: Player, server: BackgroundServer) -> str:
    """The CSRF token of the player's browser, from their page."""
    page = player.browser.get(f"{server.url}/me", timeout=TIMEOUT).text
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def test_my_games_need_a_player_not_a_seat(live_server: BackgroundServer) -> None:
    game = create(live_server, ["Ann", "Bob"])
    url = live_server.api("/me/games")
    for headers in (
        {},
        {"Authorization": f"Bearer {handed(game, 0)}"},
        {"Authorization": f"Bearer {game['admin_token']}"},
        {"Authorization": "Bearer tpp_" + secrets.token_urlsafe(24)},
        {"Authorization": "Basic YW5uOmFubg=="},
    ):
        answer = requests.get(url, headers=headers, timeout=TIMEOUT)
        assert answer.status_code == 401, (headers, answer.status_code)
        assert answer.json()["error"]["code"] == "unauthorized"


def test_a_personal_token_lists_the_players_games_waiting_first_without_addresses(
    live_server: BackgroundServer,
) -> None:
    ann = new_player(live_server, "Ann")
    games = three_games(live_server, ann)
    answer = ann.api(live_server, "/me/games")
    assert answer.status_code == 200, answer.text
    listed = answer.json()["games"]
    order = [games[part]["id"] for part in ("waiting", "running", "over")]
    assert [game["id"] for game in listed] == order
    waiting, running, over = listed
    assert (waiting["waiting"], waiting["you"], waiting["to_move"]) == (True, 1, [1])
    assert waiting["deadline"] is not None
    [logged] = requests.get(
        live_server.api(f"/games/{waiting['id']}/moves"), timeout=TIMEOUT
    ).json()
    assert waiting["last_move"] == {
        "seq": 1,
        "seat": 0,
        "description": logged["description"],
        "at": logged["at"],
    }
    assert (running["waiting"], running["you"], running["to_move"]) == (False, 0, [1])
    assert (over["status"], over["waiting"], over["last_move"]["description"]) == (
        "finished",
        False,
        "Bob resigns.",
    )
    assert "@" not in answer.text, "an address in the answer"
    by_cookie = ann.browser.get(
        live_server.api("/me/games"), headers={"Origin": "https://evil.example"}, timeout=TIMEOUT
    )
    assert by_cookie.json() == answer.json()
    assert "Access-Control-Allow-Credentials" not in by_cookie.headers, "another site may read it"


def test_another_players_token_sees_only_their_own_games(live_server: BackgroundServer) -> None:
    ann, cleo = new_player(live_server, "Ann"), new_player(live_server, "Cleo")
    anns = create(live_server, ["Ann", "Bob"])
    take_seat(live_server, ann, anns, 0)
    cleos = create(live_server, ["Cleo", "Dan"])
    take_seat(live_server, cleo, cleos, 1)
    assert [game["id"] for game in cleo.api(live_server, "/me/games").json()["games"]] == [
        cleos["id"]
    ]
    assert [game["id"] for game in ann.api(live_server, "/me/games").json()["games"]] == [
        anns["id"]
    ]


def test_pages_follow_the_same_order_and_a_forged_cursor_is_refused(
    live_server: BackgroundServer,
) -> None:
    ann = new_player(live_server, "Ann")
    games = three_games(live_server, ann)
    seen, cursor = [], None
    while True:
        page = ann.api(live_server, "/me/games", limit=1, **({"cursor": cursor} if cursor else {}))
        assert page.status_code == 200, page.text
        seen += [game["id"] for game in page.json()["games"]]
        cursor = page.json()["next_cursor"]
        if cursor is None:
            break
    assert seen == [games[part]["id"] for part in ("waiting", "running", "over")]
    for forged in ("0.1.2", "x.1.2.abc", "1.1.1.a b", "9" * 81):
        refused = ann.api(live_server, "/me/games", cursor=forged)
        assert refused.status_code == 422, (forged, refused.status_code)
        assert refused.json()["error"]["code"] == "invalid_request"


def test_the_my_seat_button_opens_only_the_players_own_seat(
    live_server: BackgroundServer,
) -> None:
    ann, eve = new_player(live_server, "Ann"), new_player(live_server, "Eve")
    game = create(live_server, ["Bob", "Ann"])
    take_seat(live_server, ann, game, 1)
    url = f"{live_server.url}/games/{game['id']}/my-seat"
    stranger = eve.browser.post(
        url, data={"csrf_token": csrf_of(eve, live_server), "seat": "1"}, timeout=TIMEOUT
    )
    assert stranger.status_code == 403 and "turnpost_seat" not in stranger.headers.get(
        "Set-Cookie", ""
    )
    forged = ann.browser.post(url, data={"seat": "1"}, timeout=TIMEOUT)
    assert forged.status_code == 400, "a POST without its CSRF token was taken"
    csrf = csrf_of(ann, live_server)
    signed_out = requests.Session()
    signed_out.cookies.update(ann.browser.cookies)
    del signed_out.cookies["turnpost_player"]
    answer = signed_out.post(url, data={"csrf_token": csrf, "seat": "1"}, timeout=TIMEOUT)
    assert answer.status_code == 401
    fresh = Player(ann.id, ann.email, requests.Session(), ann.token)
    fresh.browser.cookies.set("turnpost_player", ann.browser.cookies["turnpost_player"])
    csrf = csrf_of(fresh, live_server)
    opened = fresh.browser.post(
        url, data={"csrf_token": csrf, "seat": "1"}, allow_redirects=False, timeout=TIMEOUT
    )
    assert opened.status_code == 303 and opened.headers["Location"].endswith(f"/games/{game['id']}")
    token = opened.cookies[f"turnpost_seat_{game['id']}"]
    legal = requests.get(
        live_server.api(f"/games/{game['id']}/legal-moves"),
        headers={"Authorization": f"Bearer {token}"},
        timeout=TIMEOUT,
    )
    assert legal.status_code == 200, "the minted token does not open Ann's seat"
    again = fresh.browser.post(
        url, data={"csrf_token": csrf, "seat": "1"}, allow_redirects=False, timeout=TIMEOUT
    )
    assert again.cookies[f"turnpost_seat_{game['id']}"] == token, "a held seat was minted again"


def test_a_reissued_seat_is_no_longer_the_players(live_server: BackgroundServer) -> None:
    ann = new_player(live_server, "Ann")
    game = create(live_server, ["Bob", "Ann"])
    take_seat(live_server, ann, game, 1)
    assert [g["id"] for g in ann.api(live_server, "/me/games").json()["games"]] == [game["id"]]
    reissued = requests.post(
        live_server.api(f"/games/{game['id']}/seats/1/token"),
        headers={"Authorization": f"Bearer {game['admin_token']}"},
        timeout=TIMEOUT,
    )
    assert reissued.status_code == 200
    assert ann.api(live_server, "/me/games").json()["games"] == []
    taken = ann.browser.post(
        f"{live_server.url}/games/{game['id']}/my-seat",
        data={"csrf_token": csrf_of(ann, live_server), "seat": "1"},
        timeout=TIMEOUT,
    )
    assert taken.status_code == 403


def test_the_players_event_stream_tells_of_a_move_in_their_games_only(
    live_server: BackgroundServer,
) -> None:
    for path in ("/me/games/events", "/me/games/live"):
        assert requests.get(f"{live_server.url}{path}", timeout=TIMEOUT).status_code == 401
    ann = new_player(live_server, "Ann")
    mine, other = create(live_server, ["Bob", "Ann"]), create(live_server, ["Bob", "Cleo"])
    take_seat(live_server, ann, mine, 1)
    with ann.browser.get(
        f"{live_server.url}/me/games/events", stream=True, timeout=TIMEOUT
    ) as stream:
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        lines = stream.iter_lines(decode_unicode=True)
        assert next(lines) == "retry: 2000"
        move(live_server, other, handed(other, 0), "enter a1 N")
        move(live_server, mine, handed(mine, 0), "enter e1 N")
        first = next(line for line in lines if line.startswith("data:"))
        assert first == f'data: {{"games": ["{mine["id"]}"]}}'


def first_change(player: Player, url: str) -> str:
    """The data of the first event of the player's stream at ``url``."""
    with player.browser.get(url, stream=True, timeout=TIMEOUT) as stream:
        assert stream.status_code == 200, stream.status_code
        return next(
            line for line in stream.iter_lines(decode_unicode=True) if line.startswith("data:")
        )


def test_a_move_between_the_page_and_its_stream_is_told_when_the_stream_opens(
    live_server: BackgroundServer,
) -> None:
    ann = new_player(live_server, "Ann")
    game = create(live_server, ["Bob", "Ann"])
    take_seat(live_server, ann, game, 1)
    page = ann.browser.get(f"{live_server.url}/me/games", timeout=TIMEOUT).text
    events = re.search(r'data-events="([^"]+)"', page).group(1).replace("&amp;", "&")
    assert "after=" in events
    move(live_server, game, handed(game, 0), "enter e1 N")
    assert first_change(ann, live_server.url + events) == f'data: {{"games": ["{game["id"]}"]}}'
    for hostile in ("-1", "abc", "9" * 40, "\u0661"):
        url = f"{live_server.url}/me/games/events?after={hostile}"
        assert first_change(ann, url) == 'data: {"games": [""]}', hostile


def say(server: BackgroundServer, game: dict[str, Any], token: str, text: str) -> None:
    """Post ``text`` to the game's table with a seat token."""
    answer = requests.post(
        server.api(f"/games/{game['id']}/messages"),
        json={"text": text},
        headers={"Authorization": f"Bearer {token}"},
        timeout=TIMEOUT,
    )
    assert answer.status_code == 201, answer.text


def test_my_games_shows_what_was_last_said_at_each_table_escaped_and_not_muted(
    live_server: BackgroundServer,
) -> None:
    ann = new_player(live_server, "Ann")
    talked, quiet = create(live_server, ["Ann", "Bob"]), create(live_server, ["Ann", "Cy"])
    for game in (talked, quiet):
        take_seat(live_server, ann, game, 0)
    say(live_server, talked, handed(talked, 1), "Good luck <b>Ann</b>!")
    page = ann.browser.get(f"{live_server.url}/me/games", timeout=TIMEOUT).text
    entry = re.search(rf'id="game-{talked["id"]}".*?</li>', page, re.S).group(0)
    assert "Bob said:" in entry and "Good luck &lt;b&gt;Ann&lt;/b&gt;!" in entry
    other = re.search(rf'id="game-{quiet["id"]}".*?</li>', page, re.S).group(0)
    assert "said:" not in other
    mute = ann.browser.get(f"{live_server.url}/games/{talked['id']}", timeout=TIMEOUT).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', mute).group(1)
    form = {"csrf_token": csrf, "seat": "0", "other": "1", "muted": "1"}
    muted = ann.browser.post(f"{live_server.url}/games/{talked['id']}/talk/mute", data=form)
    assert muted.status_code == 200, muted.text
    page = ann.browser.get(f"{live_server.url}/me/games", timeout=TIMEOUT).text
    assert "Good luck" not in page, "a muted player's words on my games"


def test_the_host_deletes_a_message_from_the_game_page_and_nobody_else_may(
    live_server: BackgroundServer,
) -> None:
    host, bob = new_player(live_server, "Host"), new_player(live_server, "Bob")
    created = requests.post(
        live_server.api("/games"),
        json={"engine": "siam", "players": [{"name": "Host"}, {"name": "Bob"}]},
        headers={"Authorization": f"Bearer {host.token}"},  # a game of the signed-in host
        timeout=TIMEOUT,
    )
    game = created.json()
    say(live_server, game, handed(game, 1), "buy pills at evil.example")
    page = host.browser.get(f"{live_server.url}/games/{game['id']}", timeout=TIMEOUT).text
    [action] = re.findall(
        r'<form method="post" action="([^"]+/delete)" class="delete-message">', page
    )
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    bobs = bob.browser.get(f"{live_server.url}/games/{game['id']}", timeout=TIMEOUT).text
    assert "delete-message" not in bobs, "a delete button for someone not the host"
    mine = bob.browser.get(f"{live_server.url}/me", timeout=TIMEOUT).text
    bob_csrf = re.search(r'name="csrf_token" value="([^"]+)"', mine).group(1)
    refused = bob.browser.post(live_server.url + action, data={"csrf_token": bob_csrf})
    assert refused.status_code == 403
    deleted = host.browser.post(live_server.url + action, data={"csrf_token": csrf})
    assert deleted.status_code == 200
    shown = requests.get(live_server.api(f"/games/{game['id']}/messages"), timeout=TIMEOUT).json()
    assert [(m["deleted"], m["text"]) for m in shown] == [(True, None)]
    assert "deleted by the host" in deleted.text and "evil.example" not in deleted.text
