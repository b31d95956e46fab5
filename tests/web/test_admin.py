"""The operator's pages in Chromium: an operator finds a game, aborts it and hides it, then
mails an address again, by the pages' own forms (their CSRF tokens and redirects)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, expect

from server.accounts.service import AccountService
from server.games.clock import utcnow
from server.http.actor import SESSION_COOKIE
from server.mail.addresses import recipient_key
from server.store import open_store
from tests.server.test_admin import add_player
from tests.server.test_api import create_siam
from tests.support import BackgroundServer, start_background


@pytest.fixture
def server(tmp_path: Path) -> Iterator[BackgroundServer]:
    """A server whose operator is ``boss@example.org``."""
    environment = {"TURNPOST_ADMIN_EMAILS": "boss@example.org"}
    running = start_background(str(tmp_path / "turnpost.db"), environment=environment)
    yield running
    running.stop()


def operator_session(server: BackgroundServer) -> str:
    """The session token of the operator, signed in; one address asked for no mail."""
    store = open_store(server.db_path)
    try:
        add_player(store, "boss", "boss@example.org")
        store.suppress_mail(recipient_key("eve@example.org"), utcnow())
        return AccountService(store, "unused").open_session("boss")
    finally:
        store.close()


def test_an_operator_aborts_hides_a_game_and_mails_an_address_again(
    server: BackgroundServer,
    new_context: Callable[[], BrowserContext],
    screenshots: Path,
) -> None:
    game = create_siam(server, players=[{"name": "Quentin"}, {"name": "Bob"}])
    context = new_context()
    context.add_cookies(
        [{"name": SESSION_COOKIE, "value": operator_session(server), "url": server.url}]
    )
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text))
    page.goto(f"{server.url}/admin")
    expect(page.get_by_role("heading", name="Operator: Games")).to_be_visible()

    page.get_by_label("Find games").fill("quent")
    page.get_by_role("button", name="Find").click()
    row = page.locator(f"#game-{game['id']}")
    expect(row).to_contain_text("being played")
    row.get_by_role("button", name="Abort").click()
    expect(page.get_by_role("status")).to_have_text(f"Game {game['id']} is aborted.")
    expect(row).to_contain_text("aborted")
    row.get_by_role("button", name="Hide from lists").click()
    expect(row).to_contain_text("hidden")
    expect(row.get_by_role("button", name="List again")).to_be_visible()
    page.screenshot(path=str(screenshots / "admin-games.png"), full_page=True)

    page.get_by_role("link", name="Mail").click()
    expect(page.locator("#suppressed")).to_contain_text("1 address followed")
    page.get_by_label("Address to mail again").fill("eve@example.org")
    page.get_by_role("button", name="Mail this address again").click()
    expect(page.get_by_role("status")).to_have_text("eve@example.org may be mailed again.")
    expect(page.locator("#suppressed")).to_contain_text("0 addresses followed")
    page.screenshot(path=str(screenshots / "admin-mail.png"), full_page=True)
    assert not [text for text in problems if "Content Security Policy" in text]
