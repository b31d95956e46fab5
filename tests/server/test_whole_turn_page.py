"""The game page walks a whole turn, decision by decision, and sends it once (a real server).

Following the page's own links (the guided form's choices, as a browser
without its script would), every turn of a random game ends in one preview
and one confirm, which appends exactly one entry to the move log; earlier
decisions of the turn can be changed from the page.
"""

from __future__ import annotations

import html
import random
import re

import pytest
import requests

from tests.server.test_web import seat_session
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

CHOICE = re.compile(r'<a class="choice" href="([^"]+)" data-value="[^"]*">')
CONFIRM = re.compile(r'<form method="post" action="([^"]+)" id="confirm">')
FIELD = r'name="{}" value="([^"]*)"'
#: Each engine with its players: turns of several decisions in each.
GAMES = [("king-of-siam", 2, 5), ("foreign-king", 2, 5), ("bangkok-klongs", 2, 5)]
#: Three whole games of clicks from one address pass the 1,200 requests a minute the
#: per-address limit allows (it stopped the third game with "Too many requests").
LIVE_SERVER_ENVIRONMENT = {"TURNPOST_RATELIMIT_IP": "1000000/minute"}


def field(page: str, name: str) -> str:
    """The value of the first hidden field ``name`` of the confirm form."""
    confirm = page[page.index('id="confirm"') :]
    return html.unescape(re.search(FIELD.format(name), confirm).group(1))


def log(server: BackgroundServer, game: dict) -> list[dict]:
    """The game's move log."""
    return requests.get(server.api(f"/games/{game['id']}/moves"), timeout=10).json()


def play_a_turn(
    server: BackgroundServer, session: requests.Session, game: dict, rnd: random.Random
) -> tuple[int, str]:
    """Click random choices of the seat's page until the preview, then confirm once.

    Returns how many decisions the turn had (the "change" links) and what was sent.
    """
    url = f"{server.url}/games/{game['id']}"
    for _ in range(200):
        page = session.get(url, timeout=10).text
        if 'id="confirm"' in page:
            steps = page.count('class="step change"')
            notation = field(page, "notation")
            answer = session.post(
                server.url + html.unescape(CONFIRM.search(page).group(1)),
                data={name: field(page, name) for name in ("csrf_token", "expected_seq", "seat")}
                | {"notation": notation},
                timeout=10,
            )
            assert answer.status_code == 200, answer.text
            return steps, notation
        choices = CHOICE.findall(page)
        assert choices, page
        url = server.url + html.unescape(rnd.choice(choices)).split("#")[0]
    raise AssertionError("the turn never came to its preview")


@pytest.mark.parametrize(("engine_id", "players", "seed"), GAMES)
def test_every_turn_is_one_confirm_and_one_log_entry(
    live_server: BackgroundServer, engine_id: str, players: int, seed: int
) -> None:
    names = [{"name": name} for name in ("Ann", "Bob", "Cleo", "Dan")[:players]]
    body = {"engine": engine_id, "players": names, "seed": seed}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    sessions = [seat_session(live_server, game, seat) for seat in range(players)]
    rnd = random.Random(seed)
    several = 0
    for _ in range(40):
        status = requests.get(live_server.api(f"/games/{game['id']}"), timeout=10).json()
        if status["status"] != "active":
            break
        before = len(log(live_server, game))
        steps, notation = play_a_turn(live_server, sessions[status["to_move"][0]], game, rnd)
        entries = log(live_server, game)
        assert len(entries) == before + 1, "one confirm, one log entry"
        assert entries[-1]["notation"] == notation
        several += steps > 0
    assert several, "no turn of several decisions was played"


def test_an_earlier_decision_of_the_turn_is_changed_from_the_page(
    live_server: BackgroundServer,
) -> None:
    body = {"engine": "king-of-siam", "players": [{"name": "Ann"}, {"name": "Bob"}], "seed": 5}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    seat = requests.get(live_server.api(f"/games/{game['id']}"), timeout=10).json()["to_move"][0]
    headers = {"Authorization": f"Bearer {game['players'][seat]['token']}"}
    listed = requests.get(
        live_server.api(f"/games/{game['id']}/legal-moves"), headers=headers, timeout=10
    ).json()["moves"]
    card = next(entry for entry in listed if entry.get("card") == "rama")
    session = seat_session(live_server, game, seat)
    url = f"{live_server.url}/games/{game['id']}"
    page = session.get(url, params={"step": card["notation"]}, timeout=10).text
    assert 'id="turn-steps"' in page and "moved-on" not in page
    assert re.search(r'id="question" data-key="take', page), "the take is asked next"
    change = re.search(r'<a class="step change" href="([^"]+)"', page).group(1)
    again = session.get(live_server.url + html.unescape(change), timeout=10).text
    assert 'id="turn-steps"' not in again and "moved-on" not in again
    stale = session.get(url, params={"step": "take rama korat"}, timeout=10).text
    assert 'id="moved-on"' in stale
    assert log(live_server, game) == []
