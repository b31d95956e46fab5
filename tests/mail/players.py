"""Players in the tests, as a person with a browser would be one: signed in by the link a real
SMTP server received, their page's forms posted with its CSRF token, seat links followed."""

from __future__ import annotations

import re
import time

import requests

from tests.mail.conftest import BASE_URL, Sink
from tests.mail.samples import text_of
from tests.support import BackgroundServer

#: A navigation the user started (a link opened from the mail program, typed, a bookmark).
OPENED = {"Sec-Fetch-Site": "none"}


def csrf_of(page: str) -> str:
    """The CSRF token of a page's forms."""
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def sign_in_link(server: BackgroundServer, sink: Sink, email: str) -> str:
    """A sign-in link for ``email``, asked for with the form and read from the mail (the
    worker must be running), on the test server."""
    asking = requests.Session()
    form = asking.get(f"{server.url}/sign-in", timeout=10).text
    data = {"csrf_token": csrf_of(form), "email": email}
    earlier = len(sink.messages)
    assert asking.post(f"{server.url}/sign-in", data=data, timeout=10).status_code == 200
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        mails = [
            mail
            for mail in sink.messages[earlier:]
            if mail["To"] == email and str(mail["Subject"]).startswith("Your link to sign in")
        ]
        if mails:
            [link] = re.findall(r"^(https://\S+/sign-in/\S+)$", text_of(mails[0]), re.M)
            return server.url + link.removeprefix(BASE_URL)
        time.sleep(0.1)
    raise AssertionError(f"no sign-in mail to {email}")


def sign_in(server: BackgroundServer, sink: Sink, email: str) -> requests.Session:
    """A browser signed in as ``email`` by the link mailed to it."""
    browser = requests.Session()
    signed = browser.get(sign_in_link(server, sink, email), headers=OPENED, timeout=10)
    assert signed.url.endswith("/me/games"), signed.url  # signing in lands on my games
    return browser


def save_profile(browser: requests.Session, server: BackgroundServer, **changes: str) -> str:
    """Change the profile form's fields on the player's page and save it; the page after."""
    page = browser.get(f"{server.url}/me", timeout=10).text
    fields = {
        "name": re.search(r'id="name" name="name" value="([^"]*)"', page).group(1),
        "time_zone": re.search(r'<option value="([^"]+)" selected>', page).group(1),
        "language": "en",
        "mail_pref": re.search(r'name="mail_pref" value="(\w+)" checked', page).group(1),
        **changes,
    }
    saved = browser.post(
        f"{server.url}/me", data={"csrf_token": csrf_of(page), **fields}, timeout=10
    )
    assert saved.status_code == 200 and 'id="saved"' in saved.text, saved.text[-2000:]
    return saved.text


def take_seat(browser: requests.Session, server: BackgroundServer, game: dict, seat: int) -> None:
    """Follow the link of ``seat`` (its token from the creation answer) in ``browser``."""
    token = game["players"][seat]["token"]
    url = f"{server.url}/games/{game['id']}/seat/{token}"
    opened = browser.get(url, headers=OPENED, timeout=10)
    assert opened.url.endswith(f"/games/{game['id']}"), opened.url


def create_game(
    server: BackgroundServer, engine: str, players: list[dict], **extra: object
) -> dict:
    """A game created over the API (the answer, with every seat's token)."""
    body = {"engine": engine, "players": players, **extra}
    answer = requests.post(server.api("/games"), json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()


def move(server: BackgroundServer, game: dict, seat: int, notation: str) -> None:
    """Play ``notation`` for ``seat`` with the token the creation answer handed out."""
    answer = requests.post(
        server.api(f"/games/{game['id']}/moves"),
        json={"notation": notation},
        headers={"Authorization": f"Bearer {game['players'][seat]['token']}"},
        timeout=10,
    )
    assert answer.status_code == 201, answer.text
