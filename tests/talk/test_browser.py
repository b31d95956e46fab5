"""Table talk in real browsers (Debian's Chromium, two contexts) against a real server (issue 21).

A message sent in one browser shows in the other at once, as text (a ``<script>``
message runs nothing); what a player is writing survives the table being swapped
after a move; the talk goes on live after the game's end; a mute hides; a message the
host deleted is gone; the partners' panel shows on their pages only. Screenshots of the
panel on a desktop and a phone land in ``test-output/screenshots/``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import requests
from playwright.sync_api import BrowserContext, Page, Route, expect

from server.http.pages import seat_cookie
from tests.server.test_api import WINNING_LINE
from tests.support import BackgroundServer
from tests.talk.conftest import XSS, auth, create, said, say
from tests.web.table import DESKTOP, open_seat, page_text, scrolls_sideways, seat_link

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def held_token(context: BrowserContext, game: dict) -> str:
    """The seat token a browser holds for ``game`` (its HttpOnly cookie)."""
    name = seat_cookie(game["id"])
    return next(cookie["value"] for cookie in context.cookies() if cookie["name"] == name)


def send(page: Page, text: str, thread: str = "table") -> None:
    """Write ``text`` in the panel and send it (the panel then lists it)."""
    page.fill(f"#text-{thread}", text)
    page.click(f"#say-{thread} button[type=submit]")
    expect(page.locator(f"#talk-{thread} li.message.mine").last).to_contain_text(text.strip())


def move(server: BackgroundServer, game: dict, token: str, notation: str) -> None:
    """Play ``notation`` with ``token`` over the API."""
    answer = requests.post(
        server.api(f"/games/{game['id']}/moves"),
        json={"notation": notation},
        headers=auth(token),
        timeout=10,
    )
    assert answer.status_code == 201, answer.text


def test_a_message_sent_in_one_browser_shows_in_the_other_live_as_text(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext], screenshots: Path
) -> None:
    game = create(live_server)
    ann_context, bob_context = new_context(), new_context()
    ann = open_seat(ann_context, seat_link(live_server, game, 0))
    bob = open_seat(bob_context, seat_link(live_server, game, 1))
    bob.set_viewport_size(DESKTOP)
    bob.evaluate("window.stayed = true")  # a reload would forget it
    time.sleep(0.5)  # the streams are open
    send(ann, f"Good luck, Bob! {XSS}")
    shown = bob.locator("#talk-table li.message", has_text="Good luck, Bob!")
    expect(shown).to_contain_text(XSS, timeout=5000)  # the words, as words
    expect(shown.locator(".who")).to_have_text("Ann")
    expect(shown.locator("time")).to_have_count(1)
    assert bob.evaluate("window.stayed") is True, "the page was reloaded"
    assert bob.locator("#talk script").count() == 0

    # Bob writes while Ann moves: the table is swapped in, his words stay where they were
    bob.fill("#text-table", "Nice try, but")
    bob.focus("#text-table")
    seq = bob.locator("#live").get_attribute("data-seq")
    move(live_server, game, held_token(ann_context, game), WINNING_LINE[0])
    expect(bob.locator("#live")).not_to_have_attribute("data-seq", seq)
    expect(bob.locator("#text-table")).to_have_value("Nice try, but")
    assert bob.evaluate("document.activeElement.id") == "text-table"
    bob.locator("#text-table").press("End")
    bob.locator("#text-table").type(" not this time\nSee you")
    bob.click("#say-table button[type=submit]")
    expect(ann.locator("#talk-table")).to_contain_text("Nice try, but not this time")
    expect(ann.locator("#talk-table li.message").last.locator(".text")).to_have_text(
        "Nice try, but not this time\nSee you"
    )
    expect(bob.locator("#text-table")).to_have_value("")
    bob.screenshot(path=str(screenshots / "talk-desktop.png"), full_page=True)
    ann.locator("#talk").scroll_into_view_if_needed()
    ann.screenshot(path=str(screenshots / "talk-phone.png"), full_page=True)
    assert not scrolls_sideways(ann), "the talk panel is wider than a phone"

    # a refusal says why and keeps the words
    ann.evaluate("document.getElementById('text-table').removeAttribute('maxlength')")
    ann.fill("#text-table", "evil \u202eexe.txt")
    ann.click("#say-table button[type=submit]")
    expect(ann.locator("#talk-error")).to_contain_text("bidirectional")
    expect(ann.locator("#text-table")).to_have_value("evil \u202eexe.txt")


def test_a_message_that_comes_while_the_table_is_fetched_stays_shown(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    """A move makes Bob's page fetch its table; Ann's message comes while that fetch, made
    before it, is under way. The table swapped in then brings a talk panel without the
    message: the page fetches the talk again instead of losing the message from view."""
    game = create(live_server)
    ann_context, bob_context = new_context(), new_context()
    open_seat(ann_context, seat_link(live_server, game, 0))
    bob = open_seat(bob_context, seat_link(live_server, game, 1))
    anns = held_token(ann_context, game)
    time.sleep(0.5)  # the streams are open

    def table_fetched_before_the_message(route: Route) -> None:
        table = route.fetch()  # rendered now, before the message
        assert say(live_server, game, anns, "Your move, Bob").status_code == 201
        time.sleep(1.5)  # the message comes by the stream and is shown meanwhile
        route.fulfill(response=table)

    bob.route(f"**/games/{game['id']}/live*", table_fetched_before_the_message)
    seq = bob.locator("#live").get_attribute("data-seq")
    move(live_server, game, anns, WINNING_LINE[0])
    expect(bob.locator("#live")).not_to_have_attribute("data-seq", seq)
    bob.unroute(f"**/games/{game['id']}/live*")
    expect(bob.locator("#talk-table")).to_contain_text("Your move, Bob", timeout=5000)


def test_the_talk_goes_on_live_after_the_end_and_a_mute_hides(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    game = create(live_server)
    ann_context, bob_context = new_context(), new_context()
    ann = open_seat(ann_context, seat_link(live_server, game, 0))
    bob = open_seat(bob_context, seat_link(live_server, game, 1))
    tokens = [held_token(ann_context, game), held_token(bob_context, game)]
    for ply, notation in enumerate(WINNING_LINE):
        move(live_server, game, tokens[ply % 2], notation)
    expect(bob.locator("#status")).to_contain_text("Game over", timeout=10_000)
    time.sleep(0.5)
    send(ann, "gg, well played")
    expect(bob.locator("#talk-table")).to_contain_text("gg, well played", timeout=5000)

    bob.click("#mutes summary")
    bob.click("#mutes button:text('Mute Ann')")
    expect(bob.locator("#mutes")).to_contain_text("You muted Ann")
    expect(bob.locator("#talk-table")).not_to_contain_text("gg, well played")
    send(ann, "Are you there?")
    time.sleep(1.5)  # time enough for the stream to bring it, were it not muted
    expect(bob.locator("#talk-table")).not_to_contain_text("Are you there?")

    say(live_server, game, tokens[1], "Ring me on 0470 12 34 56")
    expect(ann.locator("#talk-table")).to_contain_text("0470 12 34 56", timeout=5000)
    number = said(live_server, game).json()[-1]["number"]
    deleted = requests.delete(
        live_server.api(f"/games/{game['id']}/messages/{number}"),
        headers=auth(game["admin_token"]),
        timeout=10,
    )
    assert deleted.status_code == 204
    ann.reload()
    expect(ann.locator("#talk-table")).to_contain_text("deleted by the host")
    assert "0470 12 34 56" not in page_text(ann)


def test_the_partners_panel_shows_on_their_pages_only(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext], screenshots: Path
) -> None:
    game = create(live_server, "king-of-siam", 4)
    pages = [open_seat(new_context(), seat_link(live_server, game, seat)) for seat in range(4)]
    pages[2].set_viewport_size(DESKTOP)
    time.sleep(0.5)
    send(pages[0], "PLAN ZEBRA: I go north", "partners")
    expect(pages[2].locator("#talk-partners")).to_contain_text("PLAN ZEBRA: I go north")
    send(pages[3], "Hello everyone")
    for page in pages:
        expect(page.locator("#talk-table")).to_contain_text("Hello everyone", timeout=5000)
    for seat in (1, 3):
        expect(pages[seat].locator("#partners-title")).to_contain_text(
            "only you and " + ("Dan" if seat == 1 else "Bob")
        )
        assert "PLAN ZEBRA" not in page_text(pages[seat])
    pages[2].locator("#talk").scroll_into_view_if_needed()
    pages[2].screenshot(path=str(screenshots / "talk-partners-desktop.png"), full_page=True)
