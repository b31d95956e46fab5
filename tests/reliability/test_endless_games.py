"""Issue 20, endless games, replayed against a real gunicorn server.

The attack: Siam had no end but a rock pushed off, so two seats rotating a
piece played 20,000 moves; ``GET .../events?last_event_id=0`` then streamed
all 20,001 events (5 MB, 0.44 s of a worker's loop) and was never charged (a
streamed answer skipped the cost limit): 4 addresses looping on it raised
``/healthz`` p50 from 3 ms to 496 ms. The game page rendered the whole log.

Now Siam is drawn by the third repetition of a position or at 500 plies, a
stream replays at most a page of events and is charged for it, ``/moves``
answers a page with a ``Link`` to the next, and the game page lists the last
50 moves with a link to earlier ones. The long game (499 moves, still
running) is played with the service on the server's database file before the
server starts: the API would take as long and charge the test's address.
"""

from __future__ import annotations

import random
import re
import statistics
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from engines import get_engine
from server.games.service import GameService, MoveRequest
from server.http.events import REPLAY_PAGE
from server.http.pages import MOVES_SHOWN
from server.store import open_store
from tests.api.test_events import parse_stream
from tests.support import BackgroundServer, start_background

SIAM = get_engine("siam")
PLAYERS = [{"name": "Ann"}, {"name": "Bob"}]
#: The long game's moves: one ply before Siam's limit, so that it still runs.
LONG = 499
#: Per-address limits low enough to reach in a test (an hour's window: a minute's could
#: turn over during a test); the test names each client's address in ``X-Forwarded-For``
#: (one proxy hop is believed), so that its clients count apart.
LIMITS = {
    "TURNPOST_PROXY_HOPS": "1",
    "TURNPOST_RATELIMIT_IP": "60/hour",
    "TURNPOST_COST_BYTES": "8192",
}
ROTATIONS = ("rotate a1 E", "rotate e5 W", "rotate a1 N", "rotate e5 S")


def long_game(db_path: str, plies: int) -> dict[str, Any]:
    """A Siam game of ``plies`` random moves that neither push a rock off nor repeat a
    position three times, played with the service on ``db_path``; its creation answer."""
    store = open_store(db_path)
    store.init()
    games = GameService(store)
    game = games.create("siam", PLAYERS, {}, seed=1)
    rng = random.Random(1)
    for _ in range(plies):
        state = games.load(game["id"]).state
        seat = SIAM.to_move(state)[0]
        legal = SIAM.legal_moves(state, seat)
        move = next(
            move
            for move in rng.sample(legal, len(legal))
            if SIAM.result(SIAM.apply(state, seat, move)) is None
        )
        token = game["players"][seat]["token"]
        games.submit(MoveRequest(game["id"], token=token, move=move))
    store.close()
    return game


@pytest.fixture(scope="module")
def db_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The module's database file."""
    return str(tmp_path_factory.mktemp("endless") / "turnpost.db")


@pytest.fixture(scope="module")
def game(db_file: str) -> dict[str, Any]:
    """The long game (:data:`LONG` moves), played before the server starts."""
    return long_game(db_file, LONG)


@pytest.fixture(scope="module")
def server(db_file: str, game: dict[str, Any]) -> Iterator[BackgroundServer]:
    """One worker (its limits count exactly) on the database holding the long game."""
    server = start_background(db_file, workers=1, environment=LIMITS)
    yield server
    server.stop()


def address(number: int) -> dict[str, str]:
    """The headers of a client at its own address (as the proxy says)."""
    return {"X-Forwarded-For": f"192.0.2.{number}"}


def post_move(server: BackgroundServer, game: dict, seat: int, notation: str, at: int) -> Any:
    """Send ``notation`` for ``seat`` from address 1; the answer."""
    return requests.post(
        server.api(f"/games/{game['id']}/moves"),
        json={"notation": notation},
        headers={"Authorization": f"Bearer {game['players'][seat]['token']}", **address(at)},
        timeout=10,
    )


def create(server: BackgroundServer, at: int, **body: Any) -> dict[str, Any]:
    """A new Siam game created from address ``at``."""
    answer = requests.post(
        server.api("/games"),
        json={"engine": "siam", "players": PLAYERS, **body},
        headers=address(at),
        timeout=10,
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


# -- the rules end the loop -----------------------------------------------------------------
def test_two_seats_rotating_a_piece_are_drawn_by_the_third_repetition(server) -> None:
    game = create(server, 1)
    opening = ["enter a1 N", "enter e5 S"]
    statuses = [
        post_move(server, game, seat, text, 1).status_code for seat, text in enumerate(opening)
    ]
    ply = len(opening)
    while (
        answer := post_move(server, game, ply % 2, ROTATIONS[(ply - 2) % 4], 1)
    ).status_code == 201:
        statuses.append(201)
        ply += 1
        assert ply < 50, "the loop never ended"
    assert statuses == [201] * 10, "two entries, then the same position a second and third time"
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "game_over"
    state = requests.get(server.api(f"/games/{game['id']}"), timeout=10).json()
    assert state["status"] == "finished" and state["to_move"] == []
    assert state["result"]["winners"] == [] and state["result"]["draw"] == "repetition"
    log = requests.get(server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert log[-1]["description"].endswith(
        "The game is drawn: the same position came up for the third time, with the same"
        " player to move."
    )
    page = requests.get(f"{server.url}/games/{game['id']}", timeout=10).text
    assert "Ann and Bob draw: the same position came up for the third time" in page


def test_a_game_that_never_repeats_is_drawn_at_the_ply_limit(server) -> None:
    board = {"b3": {"kind": "rock"}, "c3": {"kind": "rock"}, "d3": {"kind": "rock"}}
    game = create(server, 2, position={"board": board, "ply": 497, "to_move": 1})
    for ply, text in enumerate(["enter a1 N", "enter e1 N", "enter b1 N"]):
        assert post_move(server, game, (ply + 1) % 2, text, 2).status_code == 201
    result = requests.get(server.api(f"/games/{game['id']}"), timeout=10).json()["result"]
    assert result["draw"] == "ply_limit" and result["winners"] == []
    assert result["reason"] == "A draw: 500 moves were played and no rock left the board."


# -- event replay ---------------------------------------------------------------------------
def events(server: BackgroundServer, game: dict, last: int, at: int) -> requests.Response:
    """A finished events answer from ``last`` on, from address ``at``."""
    return requests.get(
        server.api(f"/games/{game['id']}/events"),
        headers={"Last-Event-ID": str(last), **address(at)},
        timeout=10,
    )


def test_a_replay_from_the_start_is_a_page_and_reconnecting_continues(server, game) -> None:
    seen = []
    for last in (0, REPLAY_PAGE):
        answer = events(server, game, last, 10)
        assert answer.status_code == 200
        assert answer.headers["Content-Type"].startswith("text/event-stream")
        replayed = parse_stream(answer.text)
        assert [int(e["id"]) for e in replayed] == list(range(last + 1, last + REPLAY_PAGE + 1))
        assert answer.text.endswith(": more events follow: reconnect with the last event id\n\n")
        seen += replayed
    with requests.get(
        server.api(f"/games/{game['id']}/events"),
        headers={"Last-Event-ID": str(len(seen)), **address(11)},
        stream=True,
        timeout=10,
    ) as live:  # the last page stays open for the moves to come
        text = ""
        for chunk in live.iter_content(chunk_size=None, decode_unicode=True):
            text += chunk
            if f"id: {LONG}\n" in text:
                break
    seen += parse_stream(text)
    assert [int(e["id"]) for e in seen] == list(range(1, LONG + 1))
    log = requests.get(server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [e["data"]["description"] for e in seen] == [entry["description"] for entry in log]


def requests_until_refused(server: BackgroundServer, path: str, at: int, tries: int = 80) -> int:
    """How many GETs of ``path`` from address ``at`` pass before the first ``429``."""
    for count in range(tries):
        answer = requests.get(f"{server.url}{path}", headers=address(at), timeout=10)
        if answer.status_code == 429:
            assert answer.json()["error"]["code"] == "rate_limited"
            return count
        assert answer.status_code == 200
    return tries


def test_replays_are_charged_so_a_client_looping_on_them_is_refused(server, game) -> None:
    """60 requests an hour per address: a replay of 200 events (about 60 KB, 8 KiB a
    request here) costs several, so a loop on it is refused after a few."""
    cheap = requests_until_refused(server, "/api/v1/engines/siam", 20)
    assert cheap == 60, "a small answer costs one request"
    replay = f"/api/v1/games/{game['id']}/events?last_event_id=0"
    assert requests_until_refused(server, replay, 21) <= 10
    with requests.get(  # a live stream replaying 99 events is charged too
        server.api(f"/games/{game['id']}/events?last_event_id={2 * REPLAY_PAGE}"),
        headers=address(22),
        stream=True,
        timeout=10,
    ) as live:
        for chunk in live.iter_content(chunk_size=None, decode_unicode=True):
            if f"id: {LONG}\n" in chunk:
                break
    assert requests_until_refused(server, "/api/v1/engines/siam", 22) <= 60 - 3


def test_healthz_stays_fast_while_four_addresses_loop_on_replays(server, game) -> None:
    stop = threading.Event()
    replay = server.api(f"/games/{game['id']}/events?last_event_id=0")

    def loop(at: int) -> None:
        with requests.Session() as session:
            while not stop.is_set():
                session.get(replay, headers=address(at), timeout=10)

    hogs = [threading.Thread(target=loop, args=(30 + n,)) for n in range(4)]
    for hog in hogs:
        hog.start()
    try:
        latencies = []
        for _ in range(40):
            started = time.perf_counter()
            assert requests.get(f"{server.url}/healthz", timeout=10).status_code == 200
            latencies.append(time.perf_counter() - started)
    finally:
        stop.set()
        for hog in hogs:
            hog.join()
    assert statistics.median(latencies) < 0.05, latencies


# -- the move log in pages ------------------------------------------------------------------
def test_moves_answer_a_page_and_link_the_next(server, game) -> None:
    url = server.api(f"/games/{game['id']}/moves?limit=200")
    entries, pages = [], 0
    while url:
        answer = requests.get(url, headers=address(41 + pages), timeout=10)
        assert answer.status_code == 200
        page = answer.json()
        assert isinstance(page, list) and len(page) <= 200
        entries += page
        pages += 1
        url = answer.links.get("next", {}).get("url")
        url = url and f"{server.url}{url}"
    assert pages == 3 and [entry["seq"] for entry in entries] == list(range(1, LONG + 1))
    assert set(entries[0]) >= {"seq", "seat", "move", "notation", "at"}
    whole = requests.get(server.api(f"/games/{game['id']}/moves"), headers=address(40), timeout=10)
    assert whole.json() == entries and "Link" not in whole.headers
    too_many = requests.get(
        server.api(f"/games/{game['id']}/moves?limit=501"), headers=address(40), timeout=10
    )
    assert too_many.status_code == 422 and too_many.json()["error"]["code"] == "invalid_request"


# -- the game page --------------------------------------------------------------------------
def listed(page: str) -> list[int]:
    """The move numbers the page's move list shows, newest first."""
    moves = page.split('id="moves"', 1)[1].split("</ol>", 1)[0]
    return [int(number) for number in re.findall(r'<li value="(\d+)"', moves)]


def test_the_game_page_lists_the_last_moves_and_links_to_earlier_ones(server, game) -> None:
    page = requests.get(f"{server.url}/games/{game['id']}", headers=address(50), timeout=10)
    assert listed(page.text) == list(range(LONG, LONG - MOVES_SHOWN, -1))
    earlier = re.search(r'href="([^"]+)" id="earlier-moves"', page.text)
    assert earlier and 'id="later-moves"' not in page.text
    url = earlier.group(1).replace("&amp;", "&")
    older = requests.get(f"{server.url}{url}", headers=address(50), timeout=10).text
    assert listed(older) == list(range(LONG - MOVES_SHOWN, LONG - 2 * MOVES_SHOWN, -1))
    assert 'id="later-moves"' in older and 'id="earlier-moves"' in older
    first = requests.get(f"{server.url}/games/{game['id']}?upto=3", headers=address(50), timeout=10)
    assert listed(first.text) == [3, 2, 1] and 'id="earlier-moves"' not in first.text
    replay = requests.get(f"{server.url}/games/{game['id']}?at=7", headers=address(50), timeout=10)
    assert 7 in listed(replay.text) and len(listed(replay.text)) == MOVES_SHOWN
    assert len(page.content) < 100_000, "the page does not grow with the game"
