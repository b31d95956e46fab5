"""The lobby's create form and the seat links, checked at the HTTP level against a real server."""

from __future__ import annotations

import re

import requests

from tests.support import BackgroundServer


def lobby_form(server: BackgroundServer) -> tuple[requests.Session, str]:
    """A session that loaded the lobby, and the CSRF token of its create form."""
    session = requests.Session()
    page = session.get(server.url, timeout=10).text
    return session, re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def recent_ids(server: BackgroundServer) -> set[str]:
    """The ids of the games the lobby lists."""
    return set(re.findall(r"/games/(\w+)\"", requests.get(server.url, timeout=10).text))


def test_create_form_without_csrf_token_is_refused(live_server: BackgroundServer) -> None:
    before = recent_ids(live_server)
    form = {"engine": "siam", "name0": "Ann", "name1": "Bob"}
    response = requests.post(f"{live_server.url}/games", data=form, timeout=10)
    assert response.status_code == 400 and "CSRF" in response.text
    assert recent_ids(live_server) == before


def test_created_page_shows_the_links_once_and_is_not_cached(live_server: BackgroundServer) -> None:
    session, csrf = lobby_form(live_server)
    form = {"csrf_token": csrf, "engine": "siam", "name0": "Ann", "name1": "Bob", "seed": "5"}
    response = session.post(f"{live_server.url}/games", data=form, timeout=10)
    assert response.status_code == 201
    assert response.headers["Cache-Control"] == "no-store"
    links = re.findall(r'value="(http[^"]+/seat/[^"]+)"', response.text)
    assert len(links) == 2
    game_id = links[0].split("/")[-3]
    game = requests.get(live_server.api(f"/games/{game_id}"), timeout=10).json()
    assert [p["name"] for p in game["players"]] == ["Ann", "Bob"]
    for page in (session.get(live_server.url, timeout=10), session.get(links[0], timeout=10)):
        assert all(link.rsplit("/", 1)[1] not in page.text for link in links)


def test_wrong_seat_link_sets_no_cookie(live_server: BackgroundServer) -> None:
    session, csrf = lobby_form(live_server)
    form = {"csrf_token": csrf, "engine": "siam", "name0": "Ann", "name1": "Bob"}
    created = session.post(f"{live_server.url}/games", data=form, timeout=10).text
    game_id = re.search(r"/games/(\w+)/seat/", created).group(1)
    response = requests.get(
        f"{live_server.url}/games/{game_id}/seat/not-a-token", allow_redirects=False, timeout=10
    )
    assert response.status_code == 401
    assert "Set-Cookie" not in response.headers
