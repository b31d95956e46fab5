"""The HTML game page and its move form, against a real server process."""

from __future__ import annotations

import re

import requests

from tests.server.test_api import WINNING_LINE, auth, create_siam
from tests.support import BackgroundServer

#: What a browser sends with a link its user opened (typed, or from a mail program).
#: The pages run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True
OPENED = {"Sec-Fetch-Site": "none"}


def seat_session(server: BackgroundServer, game: dict, seat: int) -> requests.Session:
    """A browser-like session that followed the seat's private link."""
    session = requests.Session()
    token = game["players"][seat]["token"]
    link = f"{server.url}/games/{game['id']}/seat/{token}"
    response = session.get(link, headers=OPENED, timeout=10)
    assert response.status_code == 200
    assert token not in response.url
    return session


def play_by_form(server: BackgroundServer, session: requests.Session, game: dict, notation: str):
    """Load the game page, then post the move form with its CSRF token."""
    page = session.get(f"{server.url}/games/{game['id']}", timeout=10).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    seq = re.search(r'name="expected_seq" value="(\d+)"', page).group(1)
    return session.post(
        f"{server.url}/games/{game['id']}/moves",
        data={"csrf_token": csrf, "expected_seq": seq, "notation": notation},
        timeout=10,
    )


def test_seat_link_sets_httponly_cookie_and_drops_token(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    token = game["players"][0]["token"]
    link = f"{live_server.url}/games/{game['id']}/seat/{token}"
    response = requests.get(link, headers=OPENED, allow_redirects=False, timeout=10)
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/games/{game['id']}")
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert token not in cookie, "the browser keeps a token of its own, not the handed one"


def test_game_played_to_the_end_through_the_form(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    sessions = [seat_session(live_server, game, seat) for seat in (0, 1)]
    for ply, notation in enumerate(WINNING_LINE):
        response = play_by_form(live_server, sessions[ply % 2], game, notation)
        assert response.status_code == 200, response.text
    page = requests.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert "Game over." in page and "Ann wins" in page
    assert len(re.findall(r'<li value="\d+"', page)) == len(WINNING_LINE)


def test_rejected_move_shows_the_reason_and_changes_nothing(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    session = seat_session(live_server, game, 0)
    response = play_by_form(live_server, session, game, "enter c1 N")
    assert response.status_code == 422
    assert 'class="error"' in response.text and "ross" in response.text
    assert requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json() == []


def test_form_without_csrf_token_is_refused(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    session = seat_session(live_server, game, 0)
    response = session.post(
        f"{live_server.url}/games/{game['id']}/moves", data={"notation": "enter a1 N"}, timeout=10
    )
    assert response.status_code == 400
    assert requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json() == []


def test_player_names_are_escaped(live_server: BackgroundServer) -> None:
    body = {"engine": "siam", "players": [{"name": "<script>alert(1)</script>"}, {"name": "Bob"}]}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    page = requests.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_board_is_drawn_with_facing_arrows(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    session = seat_session(live_server, game, 0)
    play_by_form(live_server, session, game, "enter a1 E")
    page = requests.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert "<svg" in page and 'data-square="a1"' in page and "rotate(90)" in page
    assert 'data-square="c3"' in page


def test_klongs_split_turn_is_told_and_offered_in_the_form(live_server: BackgroundServer) -> None:
    body = {"engine": "bangkok-klongs", "players": [{"name": "Ann"}, {"name": "Bob"}], "seed": 3}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    url = live_server.api(f"/games/{game['id']}")
    # Ann and Bob place their first boats as whole turns, then Ann relocates after placing.
    for seat, later in ((0, False), (1, False), (0, True)):
        headers = auth(game["players"][seat]["token"])
        entries = requests.get(f"{url}/legal-moves", headers=headers, timeout=10).json()["moves"]
        wanted = [e for e in entries if e["action"] == "place" and ("relocate" in e) == later]
        answer = requests.post(
            f"{url}/moves", json={"notation": wanted[0]["notation"]}, headers=headers, timeout=10
        )
        assert answer.status_code == 201, answer.text
    assert requests.get(url, timeout=10).json()["to_move"] == [0]
    page = seat_session(live_server, game, 0).get(
        f"{live_server.url}/games/{game['id']}", timeout=10
    )
    words = " ".join(page.text.split())
    assert "Ann has placed a boat and now plays a move card or finishes the turn" in words
    choices = re.findall(r'data-value="([^"]*)">([^<]*)<', page.text)
    assert ("end", "end the turn") in choices, choices
    assert any(label.startswith("move the aubergine boat") for _, label in choices), choices


def test_a_browser_whose_seat_link_was_replaced_is_told_what_happened_and_what_to_do(
    live_server: BackgroundServer,
) -> None:
    game = create_siam(live_server)
    session = seat_session(live_server, game, 0)
    page = session.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert 'id="stale-seat"' not in page and "Your turn" in page
    reissued = requests.post(
        live_server.api(f"/games/{game['id']}/seats/0/token"),
        headers=auth(game["admin_token"]),
        timeout=10,
    )
    assert reissued.status_code == 200, reissued.text
    page = session.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    notice = re.search(r'<p class="notice" id="stale-seat">([^<]*)</p>', page)
    assert notice and "link was replaced" in notice[1] and "newest link" in notice[1]
    old_key = session.cookies[f"turnpost_seat_{game['id']}"]
    refused = requests.post(
        live_server.api(f"/games/{game['id']}/moves"),
        json={"notation": "enter a1 N"},
        headers=auth(old_key),
        timeout=10,
    )
    assert refused.status_code == 401 and "newest link" in refused.json()["error"]["message"]
