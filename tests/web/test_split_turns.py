"""A turn split into decisions by the same seat, clicked through the guided form."""

from __future__ import annotations

from collections.abc import Callable

import requests
from playwright.sync_api import BrowserContext, expect

from tests.server.test_split_turns import POSITION
from tests.support import BackgroundServer
from tests.web.test_play import open_seat, play_guided, seat_link


def test_foreign_king_citizens_moved_step_by_step_through_the_guided_form(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    body = {
        "engine": "foreign-king",
        "players": [{"name": "Ann"}, {"name": "Bob"}],
        "seed": 7,
        "position": POSITION,
    }
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    page = open_seat(new_context(), seat_link(live_server, game, 0))
    steps = [
        ({"action": "step", "from": "namur", "to": "liege"}, "step namur liege"),
        ({"action": "step", "from": "namur", "to": "hainaut"}, "step namur hainaut"),
        (
            {"action": "step", "from": "hainaut", "to": "west-vlaanderen"},
            "step hainaut west-vlaanderen",
        ),
        ({"action": "end_move"}, "end"),
    ]
    for answers, expected in steps:
        expect(page.locator("#status")).to_contain_text("your turn")
        play_guided(page, answers, expected)
    expect(page.locator("#guided")).to_have_count(0)
    state = requests.get(live_server.api(f"/games/{game['id']}"), timeout=10).json()["state"]
    citizens = {name: entry["citizens"] for name, entry in state["provinces"].items()}
    assert citizens["liege"] == citizens["west-vlaanderen"] == citizens["namur"] == {"0": 1}
    assert state["players"][0]["coins"] == 5 - 2
