"""The pages around the games in Dutch, German and French (issue 24), in a real browser.

Chromium walks the lobby and its new-game form, the created pages (a forming table and a
game), the forming table's page with its host panel, the claim page, the game page, my
games, the player's page, an error page, the "never mail me again" pages and the sign-in
pages, signed in as a player reading each language. It collects every word a reader meets
(text, the tab's title, aria-labels, titles, placeholders, options) and looks for the English
of the catalog (``tests/catalog_english.py``): every message the language translates
differently, cut at its placeholders.
The English walk finds such words (the collector works), and a page with an English sentence
put into it is caught; Dutch, German and French pages show none. Screenshots of every page
land in ``test-output/screenshots/languages/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from server.accounts.service import AccountService
from server.http.actor import SESSION_COOKIE
from server.mail.addresses import unsubscribe_url
from server.mail.settings import MailSettings
from server.store import open_store
from tests.catalog_english import english_left
from tests.server.test_admin import add_player
from tests.support import BackgroundServer
from tests.web.table import DESKTOP, screenshot

#: The server signs its mail links with this secret, so that the test can sign one too.
SECRET = "words-faces-secret-of-the-language-test"
LIVE_SERVER_ENVIRONMENT = {"TURNPOST_SECRET_KEY": SECRET}

#: Every word a reader meets: text (not inside code: links, keys), the tab's title, and the
#: names and hints of elements.
COLLECT = """() => {
  const words = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (node.data.trim() && !element.closest('script, style, code')) words.push(node.data.trim());
  }
  const named = ['aria-label', 'title', 'placeholder', 'alt'];
  for (const element of document.querySelectorAll(named.map(name => `[${name}]`).join(', '))) {
    for (const name of named.filter(name => element.hasAttribute(name))) {
      words.push(element.getAttribute(name));
    }
  }
  return words.join("\\n");
}"""


def reader_context(
    browser: Browser, server: BackgroundServer, player_id: str, language: str
) -> BrowserContext:
    """A browser asking for ``language``, signed in as a new player who reads it."""
    store = open_store(server.db_path)
    try:
        add_player(store, player_id, f"{player_id}@example.org")
        store.update_player(player_id, {"language": language})
        session = AccountService(store, "unused").open_session(player_id)
    finally:
        store.close()
    context = browser.new_context(viewport=DESKTOP, locale=language)
    context.set_default_timeout(20_000)
    context.add_cookies([{"name": SESSION_COOKIE, "value": session, "url": server.url}])
    return context


def create_from_form(page: Page, server: BackgroundServer, engine: str, open_seat: bool) -> None:
    """A game (or, with an open seat, a table) made with the lobby's form: Ann and Bob."""
    page.goto(server.url)
    page.select_option("#engine", engine)
    page.fill("#name0", "Ann")
    page.fill("#name1", "Bob")
    if open_seat:
        page.check("#open2")
    with page.expect_navigation():
        page.click("#create-game button[type=submit]")


def walk(browser: Browser, server: BackgroundServer, language: str, folder: Path) -> dict[str, str]:
    """Every page of the walk in ``language``: its name and the words it shows (a line each)."""
    shown: dict[str, str] = {}
    context = reader_context(browser, server, f"reader-{language}", language)
    page = context.new_page()

    def keep(name: str) -> None:
        shown[name] = page.evaluate(COLLECT)
        screenshot(page, folder, f"{language}-{name}")

    try:
        page.goto(server.url)
        keep("lobby")
        create_from_form(page, server, "foreign-king", open_seat=True)
        keep("created-table")
        page.goto(page.url.removesuffix("/created"))
        keep("forming-table")
        create_from_form(page, server, "siam", open_seat=False)
        keep("created-game")
        bob = page.inner_text("#link1")
        with page.expect_navigation():
            page.locator("form.play-as button").first.click()
        keep("game")
        page.goto(bob)
        keep("claim")
        page.goto(f"{server.url}/me/games")
        keep("my-games")
        page.goto(f"{server.url}/me")
        keep("me")
        page.goto(f"{server.url}/games/0a0b0c0d0e0f")
        keep("error")
        settings = MailSettings(secret=SECRET, base_url=server.url)
        page.goto(unsubscribe_url(settings, f"reader-{language}@example.org"))
        keep("unsubscribe")
        with page.expect_navigation():
            page.click("main form button[type=submit]")
        keep("unsubscribed")
    finally:
        context.close()
    stranger = browser.new_context(viewport=DESKTOP, locale=language)
    try:
        page = stranger.new_page()
        page.goto(f"{server.url}/sign-in")
        keep("sign-in")
        page.fill("#email", f"someone-{language}@example.org")
        with page.expect_navigation():
            page.click("#sign-in button[type=submit]")
        keep("sign-in-sent")
    finally:
        stranger.close()
    return shown


def test_the_walk_in_english_meets_the_catalogs_words(
    live_server: BackgroundServer, browser: Browser, screenshots: Path
) -> None:
    """The collector sees the catalog's English on every page (so a Dutch, German or
    French page without it says something)."""
    shown = walk(browser, live_server, "en", screenshots / "languages")
    for name, words in shown.items():
        assert english_left(words, "de"), f"{name}: none of the catalog's English collected"


def test_an_english_sentence_left_on_a_german_page_is_caught(
    live_server: BackgroundServer, browser: Browser
) -> None:
    context = reader_context(browser, live_server, "planted", "de")
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/me")
        assert english_left(page.evaluate(COLLECT), "de") == set()
        page.evaluate("document.querySelector('h2').textContent = 'Keys for programs'")
        assert english_left(page.evaluate(COLLECT), "de") >= {"Keys for programs"}
    finally:
        context.close()


@pytest.mark.parametrize("language", ["nl", "de", "fr"])
def test_every_page_around_the_games_has_no_english_left(
    live_server: BackgroundServer, browser: Browser, screenshots: Path, language: str
) -> None:
    shown = walk(browser, live_server, language, screenshots / "languages")
    left = {name: english_left(words, language) for name, words in shown.items()}
    assert not any(left.values()), {name: words for name, words in left.items() if words}


def test_the_scripts_write_in_the_pages_language(
    live_server: BackgroundServer, browser: Browser, screenshots: Path
) -> None:
    """turnpost.js and push.js on German pages: the copy button's answer, the moments the
    script rewrites, and the notification panel's answer are German."""
    context = reader_context(browser, live_server, "skripte", "de")
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    try:
        page = context.new_page()
        create_from_form(page, live_server, "siam", open_seat=False)
        page.locator("button.copy").first.click()
        expect(page.locator("button.copy").first).to_have_text("Kopiert")
        with page.expect_navigation():
            page.locator("form.play-as button").first.click()
        page.goto(f"{live_server.url}/me/games")
        moment = page.locator("time[data-zone]").first
        expect(moment).to_have_text(re.compile(r"^(gerade eben|vor \d+ Minuten?) \(\w+\. \d+"))
        assert moment.get_attribute("data-zone-label") == "UTC"
        page.goto(f"{live_server.url}/me")
        if page.locator("#push-enable").is_visible():
            page.click("#push-enable")
        expect(page.locator("#push-status")).to_have_text(
            re.compile(r"^(Dieser Browser kann nicht benachrichtigt werden: |Erledigt: )")
        )
        screenshot(page, screenshots / "languages", "de-scripts")
    finally:
        context.close()
