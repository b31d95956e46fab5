"""The pages at the HTTP level against a real server: new games, seats, rules, the CSP, the script.

The lobby's create form redirects to the new game's links, which only the
creating browser may see; a browser holds several seats; every game has a
rules page; the pages run only our own script, by its nonce.
"""

from __future__ import annotations

import re

import pytest
import requests

from engines import ENGINES
from server.http.pages import HELD_SEPARATOR
from tests.support import BackgroundServer, game_ids

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def lobby_form(server: BackgroundServer) -> tuple[requests.Session, str]:
    """A session that loaded the lobby, and the CSRF token of its create form."""
    session = requests.Session()
    page = session.get(server.url, timeout=10).text
    return session, re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def create_from_lobby(server: BackgroundServer, **fields: str) -> tuple[requests.Session, str]:
    """A game made with the lobby form; the creating session and the created page's URL."""
    session, csrf = lobby_form(server)
    form = {"csrf_token": csrf, "engine": "siam", "name0": "Ann", "name1": "Bob", **fields}
    response = session.post(f"{server.url}/games", data=form, timeout=10, allow_redirects=False)
    assert response.status_code == 303, response.text
    return session, server.url + response.headers["Location"]


def test_create_form_without_csrf_token_is_refused(live_server: BackgroundServer) -> None:
    before = game_ids(live_server)
    form = {"engine": "siam", "name0": "Ann", "name1": "Bob"}
    response = requests.post(f"{live_server.url}/games", data=form, timeout=10)
    assert response.status_code == 400 and "CSRF" in response.text
    assert game_ids(live_server) == before


def test_a_new_game_redirects_to_links_only_its_creator_sees(live_server: BackgroundServer) -> None:
    session, created = create_from_lobby(live_server)
    assert re.search(r"/games/\w+/created$", created)
    page = session.get(created, timeout=10)
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    links = re.findall(r">(http[^<]+/seat/[^<]+)</code>", page.text)
    assert len(links) == 2 and page.text.count("Play as ") == 2
    again = session.get(created, timeout=10)  # a reload: the same links, no new game
    assert re.findall(r">(http[^<]+/seat/[^<]+)</code>", again.text) == links
    stranger = requests.get(created, timeout=10)
    assert stranger.status_code == 403
    assert all(link.rsplit("/", 1)[1] not in stranger.text for link in links)
    game_id = links[0].split("/")[-3]
    for other in (live_server.url, f"{live_server.url}/games/{game_id}"):
        text = session.get(other, timeout=10).text
        assert all(link.rsplit("/", 1)[1] not in text for link in links)


def test_the_lobby_options_reach_the_game(live_server: BackgroundServer) -> None:
    session, created = create_from_lobby(live_server)  # the cross rule box left empty: off
    game_id = created.split("/")[-2]
    game = requests.get(live_server.api(f"/games/{game_id}"), timeout=10).json()
    assert game["options"]["cross_rule"] is False
    session, created = create_from_lobby(live_server, **{"option.siam.cross_rule": "on"})
    game = requests.get(live_server.api(f"/games/{created.split('/')[-2]}"), timeout=10).json()
    assert game["options"]["cross_rule"] is True


def test_everyone_on_one_device_holds_every_seat(live_server: BackgroundServer) -> None:
    session, created = create_from_lobby(live_server)
    page = session.get(created, timeout=10).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    game_id = created.split("/")[-2]
    response = session.post(f"{created}/hot-seat", data={"csrf_token": csrf}, timeout=10)
    assert response.status_code == 200 and response.url.endswith(f"/games/{game_id}")
    assert "Your turn, Ann:" in response.text and "play as Bob" in response.text
    assert len(session.cookies.get(f"turnpost_seats_{game_id}").split(HELD_SEPARATOR)) == 2


def test_wrong_seat_link_sets_no_cookie(live_server: BackgroundServer) -> None:
    session, created = create_from_lobby(live_server)
    game_id = created.split("/")[-2]
    response = requests.get(
        f"{live_server.url}/games/{game_id}/seat/not-a-token", allow_redirects=False, timeout=10
    )
    assert response.status_code == 401
    assert "Set-Cookie" not in response.headers


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_every_game_has_a_rules_page_linked_from_its_table(
    live_server: BackgroundServer, engine_id: str
) -> None:
    engine = ENGINES[engine_id]
    rules = requests.get(f"{live_server.url}/rules/{engine_id}", timeout=10)
    assert rules.status_code == 200 and f"How to play {engine.name}" in rules.text
    players = [{"name": name} for name in ("Ann", "Bob", "Cleo", "Dan")[: engine.min_players]]
    body = {"engine": engine_id, "players": players}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    table = requests.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert f'href="/rules/{engine_id}"' in table
    assert f'href="/rules/{engine_id}"' in requests.get(live_server.url, timeout=10).text


def test_no_rules_page_for_a_game_that_is_not_here(live_server: BackgroundServer) -> None:
    for path in ("/rules/chess", "/rules/..%2Fbase"):
        assert requests.get(f"{live_server.url}{path}", timeout=10).status_code == 404


def test_pages_run_only_our_script_by_its_nonce(live_server: BackgroundServer) -> None:
    page = requests.get(live_server.url, timeout=10)
    policy = page.headers["Content-Security-Policy"]
    nonce = re.search(r"script-src 'nonce-([^']+)'", policy).group(1)
    scripts = re.findall(r"<script([^>]*)>", page.text)
    assert scripts == [f' src="/assets/turnpost.js" nonce="{nonce}" defer']
    assert "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    again = requests.get(live_server.url, timeout=10).headers["Content-Security-Policy"]
    assert nonce not in again, "a fresh nonce for every answer"
    for asset in ("turnpost.js", "turnpost.css"):
        answer = requests.get(f"{live_server.url}/assets/{asset}", timeout=10)
        assert answer.status_code == 200 and len(answer.content) > 1000


def test_the_live_table_is_the_table_alone(live_server: BackgroundServer) -> None:
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    live = requests.get(f"{live_server.url}/games/{game['id']}/live", timeout=10)
    assert live.status_code == 200 and live.headers["Cache-Control"] == "no-store"
    assert live.text.lstrip().startswith('<div id="live"') and "<html" not in live.text
    assert f'data-events="/games/{game["id"]}/events"' in live.text
