"""Playing in a real browser (Debian's Chromium) against a real gunicorn server.

The lobby's new game and its links, a move clicked on the board reaching the
other player live, the preview before a move is sent, refusals in words, the
replay, and the whole table without JavaScript.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, expect

from engines import ENGINES
from tests.server.test_api import WINNING_LINE
from tests.support import BackgroundServer, game_ids
from tests.web.table import (
    IDENTIFIER,
    PHONE,
    Mirror,
    click_answer,
    click_move,
    create_game,
    hold_every_seat,
    open_seat,
    page_text,
    play_by_api,
    seat_link,
)

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

XSS = "<script>alert(1)</script>"
SIAM = ENGINES["siam"]


def logged(server: BackgroundServer, game: dict[str, Any]) -> list[str]:
    """The notations of the moves logged so far."""
    moves = requests.get(server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    return [move["notation"] for move in moves]


def test_a_new_game_shows_its_links_after_a_redirect_to_its_creator_only(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext], screenshots: Path
) -> None:
    context = new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    host = context.new_page()
    host.goto(live_server.url)
    host.screenshot(path=str(screenshots / "lobby.png"), full_page=True)
    host.select_option("#engine", "siam")
    expect(host.locator('fieldset.options[data-engine="siam"]')).to_be_visible()
    expect(host.locator('fieldset.options[data-engine="bangkok-klongs"]')).to_be_hidden()
    host.fill("#name0", "Ann")
    host.fill("#email0", "ann@example.org")
    host.fill("#name1", "Bob")
    host.click("#create-game button[type=submit]")
    expect(host.locator("h1")).to_contain_text("Your Siam game is ready")
    assert host.url.endswith("/created")
    host.screenshot(path=str(screenshots / "created.png"), full_page=True)
    links = [box.inner_text() for box in host.locator("#seat-links code.link").all()]
    assert len(links) == 2 and all("/seat/" in link for link in links)
    game_id = links[0].split("/")[-3]
    before = game_ids(live_server)
    host.reload()  # post/redirect/get: a reload shows the page again and creates nothing
    expect(host.locator("#seat-links code.link")).to_have_count(2)
    assert game_ids(live_server) == before
    host.locator("button.copy").first.click()
    expect(host.locator("button.copy").first).to_have_text("Copied")
    assert host.evaluate("navigator.clipboard.readText()") == links[0]

    stranger = new_context().new_page()
    stranger.goto(f"{live_server.url}/games/{game_id}/created")
    expect(stranger.locator(".error")).to_contain_text("only in the browser that created it")
    assert "/seat/" not in stranger.content()

    host.click("form.play-as button:text('Play as Bob')")
    expect(host.locator("#players li", has_text="Bob")).to_contain_text("(you)")
    cookie = next(c for c in context.cookies() if c["name"] == f"turnpost_seat_{game_id}")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    host.goto(f"{live_server.url}/games/{game_id}/created")
    host.click("#forget button")
    host.goto(f"{live_server.url}/games/{game_id}/created")
    expect(host.locator(".error")).to_be_visible()


def test_a_move_clicked_on_the_board_reaches_the_other_player_within_two_seconds(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext], screenshots: Path
) -> None:
    game = create_game(live_server, "siam", 2)
    ann = open_seat(new_context(), seat_link(live_server, game, 0))
    bob = open_seat(new_context(), seat_link(live_server, game, 1))
    expect(bob.locator("#status")).to_have_text("Ann moves now.")
    assert not bob.title().startswith("\u25b6")
    bob.evaluate("window.stayed = true")  # a reload would forget it
    time.sleep(0.5)  # the stream is open
    mirror = Mirror(SIAM, 2, seed=7)
    move = SIAM.parse("enter a1 N")
    clicked = click_move(ann, SIAM, mirror.state, 0, move)
    assert {where for _, where in clicked} == {"board"}
    sent = time.monotonic()
    expect(bob.locator("#moves li")).to_have_count(1, timeout=2000)
    assert time.monotonic() - sent < 2
    expect(bob.locator("#moves li").first).to_have_text(
        "Ann enters an elephant on a1, facing north."
    )
    expect(bob.locator("#status")).to_contain_text("Your turn: enter a rhino")
    expect(bob).to_have_title(re.compile("^\u25b6 Your turn"))
    assert bob.evaluate("window.stayed") is True
    expect(bob.locator("#question")).to_have_attribute("data-key", "to")
    expect(bob.locator("#board a.target").first).to_be_visible()
    bob.screenshot(path=str(screenshots / "siam-live-update.png"), full_page=True)


def test_a_preview_is_shown_before_the_move_is_sent(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    game = create_game(live_server, "siam", 2)
    page = open_seat(new_context(), seat_link(live_server, game, 0))
    square = page.locator('#board a.target[href*="m.to=b1"]')  # by keyboard: focus, Enter
    expect(square).to_have_attribute("aria-label", "b1")
    square.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#turn .picks")).to_contain_text("b1")
    click_answer(page, "facing", "N")
    expect(page.locator("#preview .sentence")).to_have_text(
        "Your move: Ann enters an elephant on b1, facing north."
    )
    expect(page.locator(".board-area.previewing .preview-note")).to_be_visible()
    assert logged(live_server, game) == [], "nothing is sent before the confirm button"
    page.click("#back")
    expect(page.locator("#question")).to_have_attribute("data-key", "facing")
    click_answer(page, "facing", "E")
    page.click("#confirm button[type=submit]")
    expect(page.locator("#moves li")).to_have_count(1)
    assert logged(live_server, game) == ["enter b1 E"]


def test_refused_moves_are_told_in_words_and_change_nothing(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    game = create_game(live_server, "siam", 2)
    page = hold_every_seat(live_server, new_context(), game)  # the handed tokens stay good
    page.click("#notation-box summary")
    page.fill("#notation-form input[name=notation]", "enter c1 N")
    page.click("#notation-form button")
    expect(page.locator("#error")).to_contain_text("ross")
    assert not IDENTIFIER.search(page.locator("#error").inner_text())
    page.fill("#notation-form input[name=notation]", "fly a1 z9")
    page.click("#notation-form button")
    expect(page.locator("#error")).to_be_visible()
    assert logged(live_server, game) == []

    offline = new_context()  # a page without the script does not follow the game
    stale = offline.new_page()
    stale.context.add_cookies(
        [
            {
                "name": f"turnpost_seat_{game['id']}",
                "value": game["players"][0]["token"],
                "url": f"{live_server.url}/games/{game['id']}",
            }
        ]
    )
    stale.route("**/assets/turnpost.js", lambda route: route.abort())
    stale.goto(f"{live_server.url}/games/{game['id']}?m.to=a1&m.facing=N")
    play_by_api(live_server, game, Mirror(SIAM, 2, seed=7), [SIAM.parse("enter e5 S")])
    stale.click("#confirm button[type=submit]")
    expect(stale.locator("#error")).to_have_text(
        "The game moved on while you were choosing: here it is now. Please choose again."
    )
    assert logged(live_server, game) == ["enter e5 S"]

    page.goto(live_server.url)  # Bob moves now: a move Ann sends anyway is refused with his name
    csrf = page.locator("input[name=csrf_token]").first.get_attribute("value")
    answer = page.request.post(
        f"{live_server.url}/games/{game['id']}/moves",
        form={"csrf_token": csrf, "notation": "enter a5 S", "seat": "0"},
        max_redirects=0,
    )
    assert answer.status == 409
    assert "It is not your turn: Bob moves now." in answer.text()
    assert logged(live_server, game) == ["enter e5 S"]


def test_the_table_works_without_javascript(
    live_server: BackgroundServer, browser: Browser, screenshots: Path
) -> None:
    game = create_game(live_server, "siam", 2)
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    try:
        page = open_seat(context, seat_link(live_server, game, 0))
        mirror = Mirror(SIAM, 2, seed=7)
        for notation in WINNING_LINE[:2]:
            if mirror.seat() == 1:
                play_by_api(live_server, game, mirror, [SIAM.parse(notation)])
                page.reload()
                continue
            clicked = click_move(page, SIAM, mirror.state, 0, SIAM.parse(notation))
            assert {where for _, where in clicked} == {"board"}
            mirror.play(SIAM.parse(notation))
        assert logged(live_server, game) == WINNING_LINE[:2]
        page.locator("#moves a", has_text="Ann enters").click()
        expect(page.locator("#status")).to_contain_text("Replay, move 1 of 2: Ann enters")
        page.screenshot(path=str(screenshots / "siam-without-javascript.png"), full_page=True)
    finally:
        context.close()


def test_the_replay_walks_the_moves(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    game = create_game(live_server, "siam", 2)
    play_by_api(live_server, game, Mirror(SIAM, 2, seed=7), [SIAM.parse(n) for n in WINNING_LINE])
    watcher = new_context().new_page()
    watcher.goto(f"{live_server.url}/games/{game['id']}")
    expect(watcher.locator("#status")).to_contain_text("Game over. Ann wins")
    watcher.locator("#moves a", has_text="Ann pushes from b2").click()
    expect(watcher.locator("#status")).to_contain_text("move 5 of 9: Ann pushes from b2")
    watcher.click("#next")
    expect(watcher.locator("#status")).to_contain_text("move 6 of 9: Bob turns the rhino on e1")
    expect(watcher.locator("#moves li.current")).to_contain_text("Bob turns the rhino on e1")
    watcher.click("#previous")
    expect(watcher.locator("#status")).to_contain_text("move 5 of 9")
    expect(watcher.locator('svg.board [data-square="b4"]').first).to_be_attached()
    watcher.click("#latest")
    expect(watcher.locator("#status")).to_contain_text("Game over.")
    assert not IDENTIFIER.search(page_text(watcher))


def test_the_replay_marks_the_move_it_shows_in_a_long_game(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    """The status names the replayed move and the move list scrolls to it (marked)."""
    engine = ENGINES["king-of-siam"]
    game = create_game(live_server, "king-of-siam", 3, seed=11)
    mirror = Mirror(engine, 3, seed=11)
    turns = mirror.random_turns(random.Random(11))
    play_by_api(live_server, game, mirror, [step for turn in turns[:20] for step in turn])
    log = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    page = new_context().new_page()
    page.goto(f"{live_server.url}/games/{game['id']}?at=3")
    expect(page.locator("#status")).to_contain_text(
        f"move 3 of {len(log)}: {log[2]['description']}"
    )
    current = page.locator("#moves li.current")
    expect(current).to_have_attribute("aria-current", "step")
    expect(current).to_contain_text(log[2]["description"])
    inside = current.evaluate(
        """li => { const box = li.parentElement.getBoundingClientRect();
                  const own = li.getBoundingClientRect();
                  return own.top >= box.top && own.bottom <= box.bottom; }"""
    )
    assert inside, "the replayed move is scrolled out of the move list"
    expect(page.locator("#turn .hot-seat")).to_have_count(0)


def test_script_in_a_name_is_shown_as_text(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    page = new_context().new_page()
    page.on("dialog", lambda dialog: pytest.fail(f"a script opened a dialog: {dialog.message}"))
    page.goto(live_server.url)
    page.select_option("#engine", "siam")
    page.fill("#name0", XSS)
    page.fill("#name1", "Bob")
    page.click("#create-game button[type=submit]")
    expect(page.locator("#seat-links")).to_contain_text(XSS)
    page.click("form.play-as button >> nth=1")  # as Bob: the status names the first player
    expect(page.locator("#players")).to_contain_text(XSS)
    expect(page.locator("#status")).to_contain_text(XSS)
    assert page.locator("main script").count() == 0


def test_lobby_form_errors_are_shown(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    page = new_context().new_page()
    page.goto(live_server.url)
    page.select_option("#engine", "siam")
    page.fill("#email0", "ann@example.org")
    page.fill("#name1", "Bob")
    page.click("#create-game button[type=submit]")
    expect(page.locator("#error")).to_contain_text("player 1 name")
    expect(page.locator("#name1")).to_have_value("Bob")
    page.fill("#email0", "")
    page.click("#create-game button[type=submit]")
    expect(page.locator("#error")).to_have_text("Siam takes 2 players.")


def test_a_refused_creation_keeps_everything_the_host_typed(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    page = new_context().new_page()
    page.goto(live_server.url)
    page.select_option("#engine", "bangkok-klongs")
    page.fill("#name0", "Ann")
    page.fill("#email0", "ann@example.org")
    page.fill("#name1", "Bob")
    page.fill("#email2", "cleo@example.org")  # no name for Cleo: refused
    page.check("#open3")
    page.check("input[name=seating][value=listed]")
    page.select_option("#turn_hours", "48")
    page.check("input[name='option.bangkok-klongs.tactical']")
    page.click("#create-game button[type=submit]")
    expect(page.locator("#error")).to_contain_text("player 3 name")
    expect(page.locator("#engine")).to_have_value("bangkok-klongs")
    expect(page.locator("#name0")).to_have_value("Ann")
    expect(page.locator("#email0")).to_have_value("ann@example.org")
    expect(page.locator("#name1")).to_have_value("Bob")
    expect(page.locator("#email2")).to_have_value("cleo@example.org")
    expect(page.locator("#open3")).to_be_checked()
    expect(page.locator("input[name=seating][value=listed]")).to_be_checked()
    expect(page.locator("#turn_hours")).to_have_value("48")
    expect(page.locator("input[name='option.bangkok-klongs.tactical']")).to_be_checked()
    expect(page.locator("fieldset.options[data-engine=bangkok-klongs]")).to_be_visible()


def test_the_api_docs_render_with_other_origins_blocked(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext], screenshots: Path
) -> None:
    """Issue 11/16: ``/api/docs`` was a CDN script, a blank page without internet."""
    context = new_context()
    foreign: list[str] = []

    def only_ours(route: Any) -> None:
        if route.request.url.startswith(live_server.url):
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    context.route("**/*", only_ours)
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.goto(f"{live_server.url}/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Turnpost")
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    assert page.locator(".opblock-summary-path", has_text="legal-moves").count() == 1
    page.screenshot(path=str(screenshots / "api-docs.png"), full_page=False)
    assert foreign == [] and violations == []


def test_a_deadline_is_told_in_words_in_the_viewers_time_zone(
    live_server: BackgroundServer, browser: Browser
) -> None:
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}], "turn_hours": 49}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    deadline = datetime.fromisoformat(game["deadline"].replace("Z", "+00:00"))
    for zone, offset, script in (("Asia/Bangkok", 7, True), ("UTC", 0, False)):
        context = browser.new_context(timezone_id=zone, java_script_enabled=script)
        try:
            page = context.new_page()
            page.goto(f"{live_server.url}/games/{game['id']}")
            local = deadline + timedelta(hours=offset)
            expected = f"in 2 days ({local:%a} {local.day} {local:%b}, {local:%H:%M}"
            expect(page.locator(".deadline time")).to_contain_text(expected)
        finally:
            context.close()
