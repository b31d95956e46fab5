"""Every game played with the keyboard alone in a real browser: Tab, the arrows, Enter.

One browser holding every seat plays a whole game of each engine (the
same games as :mod:`tests.web.test_games` plays by clicks) without a
click: the focus goes to each answer by Tab and, on the board, by the arrow
keys toward it (:func:`tests.web.table.focus_by_keys`), Enter picks it,
Enter on the confirm button sends the turn, Enter on "Play as" hands the
device on. The arrow keys themselves move between the board's choices by
where they are drawn.
"""

from __future__ import annotations

import random

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from engines import ENGINES
from tests.server.test_api import WINNING_LINE
from tests.support import BackgroundServer
from tests.web.table import (
    SIAM,
    UNTHROTTLED,
    Mirror,
    click_move,
    click_turn,
    create_game,
    desktop_context,
    hold_every_seat,
    open_seat,
    play_by_api,
    seat_link,
    show_seat_to_move,
)

#: Many pages from one address in a minute: the module's server (tests/conftest.py's
#: ``live_server``) runs without the limits a real reader never reaches.
LIVE_SERVER_ENVIRONMENT = UNTHROTTLED
#: The games played by clicks in tests/web/test_games.py (on SQLite) are played here by keys on
#: PostgreSQL: a whole game of every engine goes through the pages on each backend.
BACKEND = "postgresql"


def no_clicks(page: Page) -> None:
    """Make any mouse click on ``page`` fail the test (the keyboard alone plays)."""
    page.evaluate("""() => addEventListener('mousedown', () => { window.clicked = true; }, true)""")


def focused(page: Page) -> str:
    """The accessible name of the focused element (its aria-label, else its words)."""
    return page.evaluate(
        "(() => { const here = document.activeElement;"
        " return here.getAttribute('aria-label') || here.textContent.trim(); })()"
    )


def test_siam_is_played_to_the_push_off_with_the_keyboard_alone(
    live_server: BackgroundServer, browser: Browser
) -> None:
    game = create_game(live_server, "siam", 2)
    mirror = Mirror(SIAM, 2, seed=7)
    with desktop_context(browser) as context:
        page = hold_every_seat(live_server, context, game)
        for notation in WINNING_LINE:
            seat = mirror.seat()
            expect(page.locator("#status")).to_contain_text(f"Your turn, {['Ann', 'Bob'][seat]}:")
            no_clicks(page)
            move = SIAM.parse(notation, mirror.state)
            click_move(page, SIAM, mirror.state, seat, move, keys=True)
            mirror.play(move)
        expect(page.locator("#status")).to_contain_text("Game over. Ann wins")
        assert not page.evaluate("window.clicked === true")
    log = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [entry["notation"] for entry in log] == list(WINNING_LINE)


#: Each engine, its players and the seed of its game and of its random turns.
GAMES = [("king-of-siam", 3, 11), ("foreign-king", 2, 35), ("bangkok-klongs", 2, 5)]


@pytest.mark.parametrize(("engine_id", "players", "seed"), GAMES)
def test_a_whole_game_is_played_with_the_keyboard_alone(
    live_server: BackgroundServer, browser: Browser, engine_id: str, players: int, seed: int
) -> None:
    engine = ENGINES[engine_id]
    game = create_game(live_server, engine_id, players, seed=seed)
    mirror = Mirror(engine, players, seed=seed)
    confirmed = []
    with desktop_context(browser) as context:
        page = hold_every_seat(live_server, context, game)
        for steps in mirror.random_turns(random.Random(seed)):
            seat = mirror.seat()
            no_clicks(page)
            show_seat_to_move(page, seat, keys=True)
            click_turn(page, engine, mirror.state, seat, steps, keys=True)
            assert not page.evaluate("window.clicked === true")
            confirmed.append(engine.format(mirror.play_turn(steps)))
        expect(page.locator("#status")).to_contain_text("Game over.")
    log = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [entry["notation"] for entry in log] == confirmed


def test_the_arrow_keys_move_between_the_boards_choices_by_where_they_are_drawn(
    live_server: BackgroundServer, browser: Browser
) -> None:
    game = create_game(live_server, "siam", 2)
    with desktop_context(browser) as context:
        page = hold_every_seat(live_server, context, game)
        page.locator('#board a[aria-label="a1"]').focus()
        walk = []
        for key in ("ArrowRight", "ArrowRight", "ArrowUp", "ArrowLeft", "ArrowDown", "ArrowDown"):
            page.keyboard.press(key)
            walk.append(focused(page))
        # b1, d1 (c1 is crossed out), d5 (in line before e2 beside it), b5, b1, and nothing
        # below the bottom row: the focus stays
        assert walk == ["b1", "d1", "d5", "b5", "b1", "b1"], walk
        page.locator('#board a[aria-label="e1"]').focus()
        page.keyboard.press("ArrowRight")
        assert focused(page) == "e1", "nothing further right: the focus stays"
        page.keyboard.press("Enter")
        expect(page.locator("#question")).to_have_attribute("data-key", "facing")
        facing = page.locator("#board a.target").first
        facing.focus()
        page.keyboard.press("ArrowDown")
        assert focused(page).startswith("face "), focused(page)


def test_the_focus_keeps_its_place_when_another_players_move_comes(
    live_server: BackgroundServer, browser: Browser
) -> None:
    game = create_game(live_server, "siam", 2)
    with desktop_context(browser) as context:
        bob = open_seat(context, seat_link(live_server, game, 1))
        rules = bob.locator("#live .table-head a")
        rules.focus()
        bob.wait_for_timeout(500)  # the stream is open
        play_by_api(live_server, game, Mirror(SIAM, 2, seed=7), [SIAM.parse("enter a1 N")])
        expect(bob.locator("#moves li")).to_have_count(1)
        assert bob.evaluate("document.activeElement.matches('#live .table-head a')"), (
            "the focus is on the rules link of the new table"
        )
        bob.keyboard.press("Tab")
        assert bob.evaluate("document.getElementById('live').contains(document.activeElement)")
