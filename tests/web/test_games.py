"""Every game at the table in a real browser: played from start to end by clicks, on a phone too.

For each engine one browser holding every seat (players sharing a device)
plays a whole game of random legal moves (the same game in a
:class:`~tests.web.table.Mirror`) by clicking on the board picture and the
buttons only, one turn at a time: every decision of the seat's turn, then
the preview of the whole turn and its one confirm, until the game is over;
the log keeps one move per turn. Screenshots of the start, the
middle and the end of each game at 1280x900 and at 390x844 go to
``test-output/screenshots/table/<engine>/``; no page scrolls sideways on a
phone, lists the players twice there, or shows an engine identifier.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser, expect

from engines import ENGINES
from tests.server.test_api import WINNING_LINE
from tests.support import BackgroundServer, start_background
from tests.web.table import (
    DESKTOP,
    IDENTIFIER,
    PHONE,
    Mirror,
    board_screens,
    click_move,
    click_turn,
    create_game,
    hold_every_seat,
    mark_table,
    page_text,
    player_lists_shown,
    screenshot,
    scrolls_sideways,
    show_seat_to_move,
    stages,
    too_small_on_the_board,
    wait_for_new_table,
)

#: The clicks of three whole games in a minute, from one address, go over the limits
#: a real table never reaches (a 429 page would stop the game half way).
UNTHROTTLED = {"TURNPOST_RATELIMIT_IP": "99999/minute", "TURNPOST_RATELIMIT_TOKEN": "99999/minute"}


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """This module's real server, without the rate limits of one address and one token."""
    server = start_background(str(tmp_path_factory.mktemp("live") / "turnpost.db"), 2, UNTHROTTLED)
    yield server
    server.stop()


#: Each engine, its players, the seed of its game and of its random turns, and the actions
#: (or King of Siam cards) that must be clicked in one turn of several decisions.
GAMES = [
    ("king-of-siam", 3, 11, "one_vs_one"),
    ("foreign-king", 2, 35, "virtual"),
    ("bangkok-klongs", 2, 5, "relocate"),
]


@pytest.mark.parametrize(("engine_id", "players", "seed", "split"), GAMES)
def test_a_whole_game_is_played_by_clicks_with_one_confirm_per_turn(
    live_server: BackgroundServer,
    browser: Browser,
    engine_id: str,
    players: int,
    seed: int,
    split: str,
) -> None:
    engine = ENGINES[engine_id]
    game = create_game(live_server, engine_id, players, seed=seed)
    mirror = Mirror(engine, players, seed=seed)
    turns = mirror.random_turns(random.Random(seed))
    several = [t for t in turns if len(t) > 1 and split in {s.get("card", s["action"]) for s in t}]
    assert several, f"no turn of several decisions with {split} in this game"
    context = browser.new_context(viewport=PHONE)
    try:
        page = hold_every_seat(live_server, context, game)
        places, confirmed = [], []
        for steps in turns:
            seat = mirror.seat()
            show_seat_to_move(page, seat)
            places += click_turn(page, engine, mirror.state, seat, steps)
            confirmed.append(engine.format(mirror.play_turn(steps)))
        expect(page.locator("#status")).to_contain_text("Game over.")
        expect(page.locator("#turn.yours")).to_have_count(0)
        assert engine.result(mirror.state) is not None
        assert "board" in {where for _, where in places}, "nothing picked on the board"
    finally:
        context.close()
    log = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [entry["notation"] for entry in log] == confirmed, "one logged move per turn"


def test_siam_is_played_from_the_start_to_the_push_off_by_clicks(
    live_server: BackgroundServer, browser: Browser
) -> None:
    engine = ENGINES["siam"]
    game = create_game(live_server, "siam", 2)
    mirror = Mirror(engine, 2, seed=7)
    context = browser.new_context(viewport=PHONE)
    try:
        page = hold_every_seat(live_server, context, game)
        places = []
        for notation in WINNING_LINE:
            seat = mirror.seat()
            expect(page.locator("#status")).to_contain_text(f"Your turn, {['Ann', 'Bob'][seat]}:")
            move = engine.parse(notation, mirror.state)
            places += click_move(page, engine, mirror.state, seat, move)
            mirror.play(move)
        buttons = {value for value, where in places if where == "button"}
        assert buttons == {"here"}, "squares, the reserve and facings are on the board"
        expect(page.locator("#status")).to_contain_text("Game over. Ann wins")
        expect(page.locator("#moves li")).to_have_count(len(WINNING_LINE))
        expect(page.locator("#moves li").first).to_contain_text("Ann pushes from b4")
    finally:
        context.close()


#: How many widths of the phone's screen a board may take in its sideways-scrolling box
#: (the Foreign King's board is still drawn at its own size, two widths).
BOARD_SCREENS = {"siam": 1, "king-of-siam": 1.5, "foreign-king": 2, "bangkok-klongs": 1.5}


@pytest.mark.parametrize(
    ("engine_id", "players"),
    [("siam", 2), ("king-of-siam", 4), ("foreign-king", 3), ("bangkok-klongs", 3)],
)
def test_every_page_of_a_game_fits_a_phone_reads_and_taps_and_speaks_words(
    live_server: BackgroundServer,
    browser: Browser,
    screenshots: Path,
    engine_id: str,
    players: int,
) -> None:
    """Start, middle and end, as the player to move (players sharing a device), and after
    one pick on the board: on a phone no board text under 11 CSS px, no tap target under 40."""
    folder = screenshots / "table" / engine_id
    problems = []
    for stage, game in stages(live_server, engine_id, players).items():
        for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            context = browser.new_context(viewport=viewport)
            page = hold_every_seat(live_server, context, game)
            page.goto(f"{live_server.url}/games/{game['id']}")
            hot_seat = page.locator("#turn .hot-seat a.choice")
            if hot_seat.count():
                mark_table(page)
                hot_seat.first.click()
                wait_for_new_table(page)
            screenshot(page, folder, f"{stage}-{size}")
            small = too_small_on_the_board(page) if size == "phone" else []
            for pick in range(2):  # e.g. Siam's facings come after a piece and a square
                if not page.locator('#board a[href*="m."]').count():
                    break
                mark_table(page)
                page.locator('#board a[href*="m."]').first.click()
                wait_for_new_table(page)
                expect(page.locator("#turn .picks, #preview").first).to_be_visible()
                screenshot(page, folder, f"{stage}-{size}-choosing-{pick + 1}")
                small += too_small_on_the_board(page) if size == "phone" else []
            if small:
                problems.append(f"{stage} at {size} is too small: {sorted(set(small))}")
            if scrolls_sideways(page):
                problems.append(f"{stage} at {size} scrolls sideways")
            if size == "phone" and board_screens(page) > BOARD_SCREENS[engine_id]:
                problems.append(f"{stage} at {size}: the board is {board_screens(page):.2f} wide")
            if size == "phone" and player_lists_shown(page) != 1:
                problems.append(f"{stage} at {size} lists the players more than once")
            words = IDENTIFIER.findall(page_text(page))
            if words:
                problems.append(f"{stage} at {size} shows identifiers: {sorted(set(words))}")
            context.close()
    assert not problems


def test_the_lobby_new_game_rules_and_error_pages_fit_a_phone(
    live_server: BackgroundServer, browser: Browser, screenshots: Path
) -> None:
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(live_server.url)
        page.fill("#name0", "Ann with a rather long name that goes on")
        page.fill("#name1", "Bob")
        page.click("#create-game button[type=submit]")
        pages = {"created": page.url, "lobby": live_server.url, "error": f"{live_server.url}/nope"}
        pages |= {f"rules-{engine}": f"{live_server.url}/rules/{engine}" for engine in ENGINES}
        wide = []
        for name, url in pages.items():
            page.goto(url)
            screenshot(page, screenshots / "pages", f"{name}-phone")
            if scrolls_sideways(page):
                wide.append(name)
        assert not wide, f"these pages scroll sideways at 390 px: {wide}"
    finally:
        context.close()
