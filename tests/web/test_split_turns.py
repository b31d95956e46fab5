"""A turn of several decisions by the same seat, clicked on the board and confirmed once."""

from __future__ import annotations

from collections.abc import Callable

import requests
from playwright.sync_api import BrowserContext, expect

from engines import ENGINES
from tests.server.test_split_turns import POSITION, STEPS
from tests.support import BackgroundServer
from tests.web.table import Mirror, click_turn, open_seat, seat_link

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def test_foreign_king_citizens_moved_in_one_turn_confirmed_once(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    engine = ENGINES["foreign-king"]
    body = {
        "engine": "foreign-king",
        "players": [{"name": "Ann"}, {"name": "Bob"}],
        "seed": 7,
        "position": POSITION,
    }
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    mirror = Mirror.at(engine, 2, 7, POSITION)
    page = open_seat(new_context(), seat_link(live_server, game, 0))
    expect(page.locator("#status")).to_contain_text("Your turn")
    steps = [engine.parse(notation) for notation in STEPS]
    click_turn(page, engine, mirror.state, 0, steps)
    whole = mirror.play_turn(steps)
    expect(page.locator("#turn.yours")).to_have_count(0)
    expect(page.locator("#moves li")).to_have_count(1)
    log = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [entry["notation"] for entry in log] == [engine.format(whole)]
    state = requests.get(live_server.api(f"/games/{game['id']}"), timeout=10).json()["state"]
    citizens = {name: entry["citizens"] for name, entry in state["provinces"].items()}
    assert citizens["liege"] == citizens["west-vlaanderen"] == citizens["namur"] == {"0": 1}
    assert state["players"][0]["coins"] == 5 - 2
