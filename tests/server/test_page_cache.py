"""The game page's and the lobby's kept parts (server/http/page_parts.py), against a real
server (2 gunicorn workers, each with its own cache): a seat's board, its hand in it, never
reaches a watcher or another seat; a move, a talk message and a clock's change show on the
next load; each session gets its own CSRF token and each answer its own script nonce."""

from __future__ import annotations

import re
from collections import Counter

import pytest
import requests

from engines import ENGINES
from server.http.pages import LOBBY_BANK
from server.store import open_store
from tests.server.test_api import move_of
from tests.support import BackgroundServer

#: Loads of each page in a round: enough for both workers to answer it from their caches.
LOADS = 4
HAND = re.compile(r"<!--hand-->(.*?)<!--/hand-->", re.S)
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
#: What each card or tile of a hand starts with on the board.
IN_HAND = {"king-of-siam": 'class="kos-card', "bangkok-klongs": "<li"}


def new_game(server: BackgroundServer, engine: str, seats: int, **body: object) -> dict:
    """A game created over the API with ``seats`` named players."""
    players = [{"name": f"P{seat}"} for seat in range(seats)]
    answer = requests.post(
        server.api("/games"), json={"engine": engine, "players": players, **body}, timeout=10
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def play(server: BackgroundServer, game: dict, moves: int) -> None:
    """``moves`` moves of the seats to move, each its first legal move."""
    path = f"/games/{game['id']}"
    for _ in range(moves):
        seat = requests.get(server.api(path), timeout=10).json()["to_move"][0]
        headers = {"Authorization": f"Bearer {game['players'][seat]['token']}"}
        legal = requests.get(server.api(f"{path}/legal-moves"), headers=headers, timeout=10)
        body = {"move": move_of(legal.json()["moves"][0])}
        answer = requests.post(server.api(f"{path}/moves"), json=body, headers=headers, timeout=10)
        assert answer.status_code == 201, answer.text


def seat_session(server: BackgroundServer, game: dict, seat: int) -> requests.Session:
    """A browser holding ``seat`` (it opened the seat's private link)."""
    session = requests.Session()
    link = f"{server.url}/games/{game['id']}/seat/{game['players'][seat]['token']}"
    assert session.get(link, headers={"Sec-Fetch-Site": "none"}, timeout=10).status_code == 200
    return session


def hands(server: BackgroundServer, game_id: str) -> list[list[str]]:
    """Each seat's hand, read from the server's snapshot."""
    store = open_store(server.db_path)
    try:
        return [player["hand"] for player in store.game(game_id).state["players"]]
    finally:
        store.close()


@pytest.mark.parametrize(
    ("engine", "seats", "moves"), [("king-of-siam", 3, 7), ("bangkok-klongs", 3, 5)]
)
def test_a_seats_kept_board_never_reaches_a_watcher_or_another_seat(
    live_server: BackgroundServer, engine: str, seats: int, moves: int
) -> None:
    if engine not in ENGINES:
        pytest.skip("engine not registered")
    game = new_game(live_server, engine, seats, seed=5)
    play(live_server, game, moves)
    url = f"{live_server.url}/games/{game['id']}"
    tables = (url, f"{url}/live")  # the page and the table its script swaps in
    browsers = [seat_session(live_server, game, seat) for seat in range(seats)]
    watcher = requests.Session()
    seen: dict[int, set[str]] = {seat: set() for seat in range(seats)}
    # seats and the watcher in turn, then the other way round: each page follows pages of
    # the others that each worker may have kept
    for order in (range(seats), reversed(range(seats))):
        for seat in order:
            for _ in range(LOADS):
                for address in tables:
                    seen[seat].update(HAND.findall(browsers[seat].get(address, timeout=10).text))
                for watched in (watcher.get(address, timeout=10).text for address in tables):
                    assert "<!--hand-->" not in watched, "a watcher was shown a hand"
    held = hands(live_server, game["id"])
    for seat in range(seats):
        assert len(seen[seat]) == 1, f"seat {seat} was shown more than one hand"
        (section,) = seen[seat]
        assert section.count(IN_HAND[engine]) == len(held[seat]) > 0
    for seat in range(seats):
        for other in range(seats):
            if Counter(held[seat]) != Counter(held[other]):
                assert seen[seat] != seen[other], f"seat {seat} was shown seat {other}'s hand"


def test_a_move_a_message_and_a_clock_show_on_the_next_load(
    live_server: BackgroundServer,
) -> None:
    game = new_game(live_server, "siam", 2, clock=LOBBY_BANK)
    url = f"{live_server.url}/games/{game['id']}"
    watcher = requests.Session()
    before = [watcher.get(url, timeout=10).text for _ in range(LOADS)][-1]
    assert 'data-seq="0"' in before and re.search(r"P0: (9 days 23 hours|10 days) left", before)
    play(live_server, game, 1)
    after = watcher.get(url, timeout=10).text
    assert 'data-seq="1"' in after and 'id="moves"' in after
    assert after.count("<li value=") == 1, "the move list was served stale"
    assert "P0: 11 days" in after, "the clock was served stale"
    headers = {"Authorization": f"Bearer {game['players'][1]['token']}"}
    said = requests.post(
        live_server.api(f"/games/{game['id']}/messages"),
        json={"text": "a kept page must show this", "thread": "table"},
        headers=headers,
        timeout=10,
    )
    assert said.status_code == 201, said.text
    assert "a kept page must show this" in watcher.get(url, timeout=10).text
    play(live_server, game, 1)
    pages = [watcher.get(url, timeout=10).text for _ in range(LOADS)]
    assert all('data-seq="2"' in page and page.count("<li value=") == 2 for page in pages)


def test_each_session_has_its_own_csrf_token_and_each_answer_its_own_nonce(
    live_server: BackgroundServer,
) -> None:
    visitors = [requests.Session() for _ in range(3)]
    tokens: list[set[str]] = [set() for _ in visitors]
    nonces = set()
    for visitor, theirs in zip(visitors, tokens, strict=True):
        for _ in range(LOADS):
            answer = visitor.get(f"{live_server.url}/", timeout=10)
            nonce = re.search(r'nonce="([^"]+)"', answer.text).group(1)
            assert f"'nonce-{nonce}'" in answer.headers["Content-Security-Policy"]
            nonces.add(nonce)
            theirs.update(CSRF.findall(answer.text))
    assert len(nonces) == len(visitors) * LOADS, "a kept page's nonce was served again"
    assert sum(map(len, tokens)) == len(set().union(*tokens)), "a token reached two sessions"
    form = {"engine": "siam", "name0": "Ann", "name1": "Bob", "seating": "listed"}
    own = CSRF.search(visitors[0].get(f"{live_server.url}/", timeout=10).text).group(1)
    other = CSRF.search(visitors[1].get(f"{live_server.url}/", timeout=10).text).group(1)
    refused = visitors[0].post(
        f"{live_server.url}/games", data={**form, "csrf_token": other}, allow_redirects=False
    )
    assert refused.status_code == 400
    created = visitors[0].post(
        f"{live_server.url}/games", data={**form, "csrf_token": own}, allow_redirects=False
    )
    assert created.status_code == 303


def test_a_new_open_table_shows_in_a_visitors_kept_lobby_at_once(
    live_server: BackgroundServer,
) -> None:
    visitor = requests.Session()
    for _ in range(LOADS):
        assert visitor.get(f"{live_server.url}/", timeout=10).status_code == 200
    players = [{"name": "Ann"}, {"open": True}]
    answer = requests.post(
        live_server.api("/games"), json={"engine": "siam", "players": players}, timeout=10
    )
    assert answer.status_code == 201, answer.text
    table = f'href="/tables/{answer.json()["id"]}"'
    assert all(table in visitor.get(f"{live_server.url}/", timeout=10).text for _ in range(LOADS))


def test_a_takeback_and_a_deleted_message_show_on_a_watchers_next_load(
    live_server: BackgroundServer,
) -> None:
    """A watcher's kept page is found before the game is loaded (by the game's page version):
    each change of what it shows makes another key."""
    game = new_game(live_server, "siam", 2)
    url, api = f"{live_server.url}/games/{game['id']}", f"/games/{game['id']}"
    seats = [{"Authorization": f"Bearer {player['token']}"} for player in game["players"]]
    said = requests.post(
        live_server.api(f"{api}/messages"),
        json={"text": "soon deleted", "thread": "table"},
        headers=seats[1],
        timeout=10,
    )
    assert said.status_code == 201, said.text
    play(live_server, game, 1)
    watcher = requests.Session()

    def loads() -> list[str]:
        """The watcher's page and the table its script swaps in, each loaded often enough
        for both workers to keep it."""
        tables = (url, f"{url}/live")
        return [watcher.get(address, timeout=10).text for address in tables for _ in range(LOADS)]

    assert all("soon deleted" in page and "offers to take back" not in page for page in loads())
    offered = requests.post(
        live_server.api(f"{api}/takeback"), json={}, headers=seats[0], timeout=10
    )
    assert offered.status_code == 200, offered.text
    assert all("P0 offers to take back move 1" in page for page in loads())
    accepted = requests.post(
        live_server.api(f"{api}/takeback"), json={"accept": True}, headers=seats[1], timeout=10
    )
    assert accepted.json()["outcome"] == "taken_back", accepted.text
    pages = loads()
    assert all('data-seq="2"' in page and "offers to take back" not in page for page in pages)
    dead = requests.Session()  # a browser whose seat key no longer opens a seat
    dead.cookies.set(f"turnpost_seat_{game['id']}", "not-a-seat-key", path=f"/games/{game['id']}")
    assert all('id="stale-seat"' in dead.get(url, timeout=10).text for _ in range(LOADS))
    admin = {"Authorization": f"Bearer {game['admin_token']}"}
    number = said.json()["number"]
    deleted = requests.delete(
        live_server.api(f"{api}/messages/{number}"), headers=admin, timeout=10
    )
    assert deleted.status_code == 204, deleted.text
    assert all("soon deleted" not in page for page in loads())
