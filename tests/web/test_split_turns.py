"""A turn split into decisions by the same seat, clicked on the board one decision at a time."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import requests
from playwright.sync_api import BrowserContext, expect

from engines import ENGINES
from tests.server.test_split_turns import POSITION, STEPS
from tests.support import BackgroundServer
from tests.web.table import Mirror, click_move, open_seat, seat_link


def test_foreign_king_citizens_moved_step_by_step_by_clicks(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    if "foreign-king" not in ENGINES:
        pytest.skip("engine foreign-king is not registered")
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
    for notation in STEPS:
        expect(page.locator("#status")).to_contain_text("Your turn")
        move = engine.parse(notation, mirror.state)
        click_move(page, engine, mirror.state, 0, move)
        mirror.play(move)
    expect(page.locator("#turn.yours")).to_have_count(0)
    state = requests.get(live_server.api(f"/games/{game['id']}"), timeout=10).json()["state"]
    citizens = {name: entry["citizens"] for name, entry in state["provinces"].items()}
    assert citizens["liege"] == citizens["west-vlaanderen"] == citizens["namur"] == {"0": 1}
    assert state["players"][0]["coins"] == 5 - 2
