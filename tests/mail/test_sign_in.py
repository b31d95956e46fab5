"""Signing in by mailed link (issue 21), with a real server, worker, SMTP server and Chromium.

A player asks for a link, reads it in the mail, follows it in a fresh browser and
is signed in; a link works once and for 15 minutes; "sign out everywhere" ends the
sessions of the player's other browsers; the answer to a request never tells whether
an address belongs to a player; asking is limited per client.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import requests
from playwright.sync_api import BrowserContext, expect

from server.games.clock import format_time, parse_time, utcnow
from server.store import open_store
from tests.mail.conftest import BASE_URL, Sink, first_mail
from tests.mail.samples import text_of
from tests.support import BackgroundServer, run_sql

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

ANN = "ann@example.org"


def ask_for_link(page, server: BackgroundServer, email: str) -> str:
    """Fill the sign-in form in ``page``; the words of the answer."""
    page.goto(f"{server.url}/sign-in")
    page.fill("#email", email)
    page.click("#sign-in button[type=submit]")
    return page.locator("main").inner_text()


def mailed_link(server: BackgroundServer, sink: Sink, email: str) -> str:
    """The sign-in link of the newest sign-in mail to ``email``, on the test server."""
    mail = first_mail(sink, email, "Your link to sign in")
    [link] = re.findall(r"^(https://\S+/sign-in/\S+)$", text_of(mail), re.M)
    return server.url + link.removeprefix(BASE_URL)


def test_a_player_signs_in_by_the_mailed_link_once_and_signs_out_everywhere(
    mail_server: BackgroundServer,
    worker,
    smtp_sink: tuple[Sink, str],
    new_context: Callable[[], BrowserContext],
) -> None:
    sink = smtp_sink[0]
    asking = new_context().new_page()
    answer = ask_for_link(asking, mail_server, ANN)
    assert "If ann@example.org can receive mail from Turnpost" in answer
    link = mailed_link(mail_server, sink, ANN)
    laptop = new_context().new_page()
    laptop.goto(link)  # from the mail program: the browser sends Sec-Fetch-Site: none
    assert laptop.url.endswith("/me/games"), laptop.url  # signing in lands on my games
    expect(laptop.locator("#me-link")).to_have_text("ann")
    laptop.click("#me-link")
    laptop.fill("#name", "Ann")
    laptop.select_option("#time_zone", "Europe/Brussels")
    laptop.click("#profile button[type=submit]")
    expect(laptop.locator("#saved")).to_be_visible()
    expect(laptop.locator("#me-link")).to_have_text("Ann")
    again = new_context().new_page()
    again.goto(link)
    assert "not valid any more" in again.locator("main").inner_text(), "a link worked twice"
    assert again.locator("#sign-in-link").count() == 1
    ask_for_link(asking, mail_server, ANN)
    sink.messages.clear()
    ask_for_link(asking, mail_server, ANN)
    phone = new_context().new_page()
    phone.goto(mailed_link(mail_server, sink, ANN))
    expect(phone.locator("#me-link")).to_have_text("Ann")  # the second browser is signed in
    laptop.click("#sign-out-everywhere button")
    phone.goto(f"{mail_server.url}/me")
    assert phone.url.endswith("/sign-in"), "sign out everywhere left the phone signed in"
    laptop.goto(f"{mail_server.url}/me")
    assert laptop.url.endswith("/sign-in")


def test_an_expired_link_is_refused(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str]
) -> None:
    browser = requests.Session()
    page = browser.get(f"{mail_server.url}/sign-in", timeout=10).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    browser.post(f"{mail_server.url}/sign-in", data={"csrf_token": csrf, "email": ANN}, timeout=10)
    link = mailed_link(mail_server, smtp_sink[0], ANN)
    past = format_time(parse_time(utcnow()).replace(year=2020))
    run_sql(mail_server.db_path, "UPDATE sign_in_links SET expires_at = ?", [past])
    refused = requests.get(link, headers={"Sec-Fetch-Site": "none"}, timeout=10)
    assert refused.status_code == 401 and "turnpost_player" not in refused.headers.get(
        "Set-Cookie", ""
    )


def test_the_answer_is_the_same_for_anyone_and_asking_is_limited_per_client(
    mail_server: BackgroundServer,
) -> None:
    browser = requests.Session()
    page = browser.get(f"{mail_server.url}/sign-in", timeout=10).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)

    def ask(email: str) -> requests.Response:
        data = {"csrf_token": csrf, "email": email}
        return browser.post(f"{mail_server.url}/sign-in", data=data, timeout=10)

    known, stranger = ask(ANN), ask("nobody@example.org")
    assert known.status_code == stranger.status_code == 200

    def main(answer: requests.Response, email: str) -> str:
        return re.search(r"<main.*</main>", answer.text, re.S).group(0).replace(email, "X")

    assert main(known, ANN) == main(stranger, "nobody@example.org")
    hostile = ask('"ann"@example.org\r\nBcc: eve@example.org')
    assert hostile.status_code == 422 and "Not a plain address" in hostile.text
    statuses = [ask(f"p{number}@example.org").status_code for number in range(20)]
    assert statuses[-1] == 429 and 200 in statuses, statuses
    store = open_store(mail_server.db_path)
    to_ann = store.outbox_count(rcpt_key=ANN)
    store.close()
    assert to_ann == 1
