"""No answer to seat A (API, events, web page, email) shows seat B's hand or the draw order."""

from __future__ import annotations

import json
import re

import pytest
import requests

from engines import ENGINES
from server.app import SECRET_KEY_SETTING
from server.mail.delivery import preview
from server.mail.settings import MailSettings
from server.store import open_store
from tests.server.test_api import move_of
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

PLAYERS = [{"name": f"P{i}", "email": f"p{i}@example.org"} for i in range(3)]


def hands_and_pile(db_path: str, game_id: str) -> tuple[list[list[str]], list[str]]:
    """Each seat's hand and the draw order, read from the server's snapshot."""
    store = open_store(db_path)
    try:
        state = store.game(game_id).state
    finally:
        store.close()
    return [player["hand"] for player in state["players"]], list(state["draw_pile"])


def leaked(text: str, tiles: list[str]) -> list[str]:
    """The tile ids of ``tiles`` that appear as whole words in ``text``."""
    return [tile for tile in tiles if re.search(rf"\b{tile}\b", text)]


@pytest.mark.skipif("bangkok-klongs" not in ENGINES, reason="engine not registered")
def test_no_answer_to_one_seat_shows_another_seats_hand(live_server: BackgroundServer) -> None:
    body = {"engine": "bangkok-klongs", "players": PLAYERS, "seed": 11}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    gid, tokens = game["id"], [p["token"] for p in game["players"]]
    auth = [{"Authorization": f"Bearer {token}"} for token in tokens]
    for _ in range(6):
        seat = requests.get(live_server.api(f"/games/{gid}"), timeout=10).json()["to_move"][0]
        legal = requests.get(
            live_server.api(f"/games/{gid}/legal-moves"), headers=auth[seat], timeout=10
        ).json()["moves"]
        answer = requests.post(
            live_server.api(f"/games/{gid}/moves"),
            json={"move": move_of(legal[0])},
            headers=auth[seat],
            timeout=10,
        )
        assert answer.status_code == 201, answer.text
    hands, pile = hands_and_pile(live_server.db_path, gid)
    assert all(hands) and pile
    log = requests.get(live_server.api(f"/games/{gid}/moves"), timeout=10).json()
    assert all(entry["move"]["drew"] >= 0 for entry in log), "the log says boats were drawn"
    assert sum(entry["move"]["drew"] for entry in log) == 72 - len(pile) - 3 * 4
    public = [
        requests.get(live_server.api(f"/games/{gid}"), timeout=10).text,
        requests.get(live_server.api(f"/games/{gid}/moves"), timeout=10).text,
        requests.get(f"{live_server.url}/games/{gid}", timeout=10).text,
        "\n".join(_events(live_server, gid)),
    ]
    for text in public:
        assert leaked(text, [tile for hand in hands for tile in hand]) == []
    for seat in range(3):
        others = [tile for other, hand in enumerate(hands) if other != seat for tile in hand]
        own = requests.get(live_server.api(f"/games/{gid}"), headers=auth[seat], timeout=10)
        own = own.json()["state"]
        seen = "\n".join(
            [
                requests.get(live_server.api(f"/games/{gid}"), headers=auth[seat], timeout=10).text,
                requests.get(
                    live_server.api(f"/games/{gid}/legal-moves"), headers=auth[seat], timeout=10
                ).text,
                requests.get(
                    live_server.api(f"/games/{gid}?at=3"), headers=auth[seat], timeout=10
                ).text,
                _mails_to(live_server.db_path, gid, seat),
                _seat_page(live_server, gid, tokens[seat]),
            ]
        )
        assert leaked(seen, others) == [], f"seat {seat} sees another hand"
        opened = requests.get(live_server.api(f"/games/{gid}"), headers=auth[seat], timeout=10)
        assert opened.status_code == 401, "the handed token outlived the player's own link"
        assert own["hand"] == hands[seat]
        assert own["draw_pile"] == len(pile), "the draw order is shown"
        assert "rng" not in own and "seed" not in json.dumps(own)


def _events(server: BackgroundServer, game_id: str) -> list[str]:
    """The event stream's lines up to the last logged move."""
    lines = []
    url = server.api(f"/games/{game_id}/events")
    with requests.get(url, stream=True, timeout=10) as response:
        for line in response.iter_lines(decode_unicode=True):
            lines.append(line)
            if line.startswith("id: 6"):
                break
    return lines


def _seat_page(server: BackgroundServer, game_id: str, token: str) -> str:
    """The game page as the seat sees it after following its private link."""
    session = requests.Session()
    link = f"{server.url}/games/{game_id}/seat/{token}"
    page = session.get(link, headers={"Sec-Fetch-Site": "none"}, timeout=10)
    assert page.status_code == 200 and "(you)" in page.text
    return page.text


def _mails_to(db_path: str, game_id: str, seat: int) -> str:
    """The mail the queued rows of ``seat`` make (mails are rendered when sent)."""
    store = open_store(db_path)
    try:
        settings = MailSettings(secret=store.setting(SECRET_KEY_SETTING))
        letter = preview(store, settings, game_id, seat)
        return "" if letter is None else letter.text + letter.html
    finally:
        store.close()
