"""A player's account (issue 21): personal API tokens made and revoked on the player's page,
the silent limit of sign-in links per address, the session cookie behind a TLS proxy, signing
in again and signing out, and an invitation asked for through the API.

Real gunicorn (trusting one proxy hop, as a deployment behind a TLS proxy does), a real
``turnpost worker`` and a real SMTP server (aiosmtpd); the players' browsers are
``requests`` sessions posting the pages' forms with their CSRF tokens.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
import requests

from server.accounts.service import LINKS_PER_ADDRESS
from server.http.actor import SESSION_COOKIE
from server.mail.settings import rate
from server.store import open_store
from tests.mail.conftest import MAIL_SETTINGS, Sink, first_mail
from tests.mail.players import OPENED, create_game, csrf_of, move, sign_in, sign_in_link
from tests.mail.samples import html_of, text_of
from tests.support import BackgroundServer, start_background

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

ANN, BOB = "ann@example.org", "bob@example.org"
#: What a TLS proxy in front of the server adds to every request it passes on.
BEHIND_TLS = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}


@pytest.fixture
def mail_server(db_url: str) -> Iterator[BackgroundServer]:
    """gunicorn with the mail settings, trusting one proxy hop (its mails are queued; the
    ``worker`` fixture sends them)."""
    server = start_background(
        db_url, workers=1, environment={**MAIL_SETTINGS, "TURNPOST_PROXY_HOPS": "1"}
    )
    yield server
    server.stop()


def session_cookie(answer: requests.Response) -> str:
    """The ``Set-Cookie`` header of an answer that sets the session cookie (an answer may set
    other cookies too)."""
    [header] = [
        header
        for header in answer.raw.headers.getlist("Set-Cookie")
        if header.startswith(f"{SESSION_COOKIE}=")
    ]
    return header


def me_status(server: BackgroundServer, session_token: str) -> int:
    """What ``/me`` answers a browser holding only the session cookie ``session_token``:
    ``200`` signed in, ``303`` (to the sign-in page) not."""
    answer = requests.get(
        f"{server.url}/me",
        headers={"Cookie": f"{SESSION_COOKIE}={session_token}"},
        allow_redirects=False,
        timeout=10,
    )
    return answer.status_code


def my_games_status(server: BackgroundServer, token: str) -> int:
    """The status of ``GET /api/v1/me/games`` with the personal API token ``token``."""
    answer = requests.get(
        server.api("/me/games"), headers={"Authorization": f"Bearer {token}"}, timeout=10
    )
    return answer.status_code


def post_from_me(
    browser: requests.Session, server: BackgroundServer, path: str
) -> requests.Response:
    """POST a form of the player's page (``/me``) to ``path`` with that page's CSRF token, as
    its button does (the answer itself, no redirect followed)."""
    page = browser.get(f"{server.url}/me", timeout=10).text
    return browser.post(
        f"{server.url}{path}",
        data={"csrf_token": csrf_of(page)},
        allow_redirects=False,
        timeout=10,
    )


def sign_in_mails(db_url: str, email: str) -> int:
    """How many sign-in mails to ``email`` were queued (sent or not)."""
    store = open_store(db_url)
    try:
        return store.outbox_count(rcpt_key=email, kind="sign_in")
    finally:
        store.close()


def test_a_personal_token_is_made_and_revoked_on_the_players_page(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str]
) -> None:
    sink = smtp_sink[0]
    ann = sign_in(mail_server, sink, ANN)
    forged = ann.post(f"{mail_server.url}/me/tokens", data={"name": "laptop"}, timeout=10)
    assert forged.status_code == 400 and "CSRF" in forged.text
    page = ann.get(f"{mail_server.url}/me", timeout=10).text
    assert 'id="tokens"' not in page, "a token was made without the page's CSRF token"

    made = ann.post(
        f"{mail_server.url}/me/tokens",
        data={"csrf_token": csrf_of(page), "name": "laptop"},
        timeout=10,
    )
    assert made.status_code == 200, made.text[-2000:]
    [token] = re.findall(r'<code id="token">([^<]+)</code>', made.text)
    [revoke] = re.findall(r'action="(/me/tokens/\d+/revoke)"', made.text)
    assert my_games_status(mail_server, token) == 200
    assert token not in ann.get(f"{mail_server.url}/me", timeout=10).text, "shown twice"

    bob = sign_in(mail_server, sink, BOB)  # another player cannot revoke Ann's token
    theirs = post_from_me(bob, mail_server, revoke)
    assert theirs.status_code == 404
    unchecked = ann.post(f"{mail_server.url}{revoke}", data={}, timeout=10)
    assert unchecked.status_code == 400
    assert my_games_status(mail_server, token) == 200

    revoked = post_from_me(ann, mail_server, revoke)
    assert revoked.status_code == 303
    assert my_games_status(mail_server, token) == 401
    assert 'id="tokens"' not in ann.get(f"{mail_server.url}/me", timeout=10).text


def test_links_per_address_are_limited_silently_even_for_a_player_signed_in(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    sink = smtp_sink[0]
    ann = sign_in(mail_server, sink, ANN)  # a real player now, asking for her first link
    allowed = rate(LINKS_PER_ADDRESS)[0]

    def ask(browser: requests.Session, email: str) -> str:
        """The words of the answer to a request for a link to ``email`` (the address
        replaced, so that answers for two addresses compare)."""
        form = browser.get(f"{mail_server.url}/sign-in", timeout=10).text
        data = {"csrf_token": csrf_of(form), "email": email}
        answer = browser.post(f"{mail_server.url}/sign-in", data=data, timeout=10)
        assert answer.status_code == 200, answer.text[-2000:]
        return re.search(r"<main.*</main>", answer.text, re.S).group(0).replace(email, "X")

    stranger = requests.Session()
    first = ask(stranger, "nobody@example.org")
    answers = [ask(requests.Session(), ANN) for _ in range(allowed - 1)]
    assert set(answers) == {first}, "the answer tells a player's address from a stranger's"
    assert sign_in_mails(db_url, ANN) == allowed
    over = [ask(requests.Session(), ANN), ask(ann, ANN)]  # signed in: no limit lifted
    assert set(over) == {first}, "the answer says that the limit was reached"
    time.sleep(1)  # a few rounds of the worker
    assert sign_in_mails(db_url, ANN) == allowed, "a link past the limit was queued"
    mailed = [m for m in sink.messages if m["To"] == ANN and "sign in" in str(m["Subject"])]
    assert len(mailed) <= allowed


def test_the_session_cookie_is_secure_behind_a_tls_proxy_and_a_new_sign_in_ends_the_old(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str]
) -> None:
    sink = smtp_sink[0]
    link = sign_in_link(mail_server, sink, ANN)
    first = requests.get(link, headers={**OPENED, **BEHIND_TLS}, allow_redirects=False, timeout=10)
    assert first.status_code == 303
    cookie = session_cookie(first)
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie, cookie
    old = first.cookies[SESSION_COOKIE]
    assert me_status(mail_server, old) == 200

    again = requests.get(
        sign_in_link(mail_server, sink, ANN),
        headers={**OPENED, **BEHIND_TLS, "Cookie": f"{SESSION_COOKIE}={old}"},
        allow_redirects=False,
        timeout=10,
    )
    new = again.cookies[SESSION_COOKIE]
    assert new != old and "Secure" in session_cookie(again)
    assert me_status(mail_server, old) == 303, "signing in again left the old session open"
    assert me_status(mail_server, new) == 200

    plain = requests.get(
        sign_in_link(mail_server, sink, ANN), headers=OPENED, allow_redirects=False, timeout=10
    )
    assert plain.status_code == 303 and "Secure" not in session_cookie(plain)


def test_signing_out_ends_this_browsers_session_only(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str]
) -> None:
    sink = smtp_sink[0]
    laptop, phone = sign_in(mail_server, sink, ANN), sign_in(mail_server, sink, ANN)
    session_token = laptop.cookies[SESSION_COOKIE]
    forged = laptop.post(f"{mail_server.url}/sign-out", data={}, timeout=10)
    assert forged.status_code == 400 and me_status(mail_server, session_token) == 200

    out = post_from_me(laptop, mail_server, "/sign-out")
    assert out.status_code == 303 and out.headers["Location"].endswith("/")
    cleared = session_cookie(out)
    assert cleared.startswith(f"{SESSION_COOKIE}=;") and "Max-Age=0" in cleared, cleared
    assert me_status(mail_server, session_token) == 303, "the session lives on the server"
    assert laptop.get(f"{mail_server.url}/me", timeout=10).url.endswith("/sign-in")
    assert phone.get(f"{mail_server.url}/me", timeout=10).url.endswith("/me")


def test_an_invitation_asked_for_through_the_api_is_mailed_once(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str]
) -> None:
    sink = smtp_sink[0]
    game = create_game(
        mail_server,
        "siam",
        [{"name": "Ann"}, {"name": "Bob", "email": BOB, "invite": True}],
    )
    invitation = first_mail(sink, BOB, "An invitation")
    assert invitation["Subject"] == "An invitation to play Siam on Turnpost"
    words = " ".join(text_of(invitation).split())
    assert "You are invited to play Siam with Ann on Turnpost." in words
    assert "Ann moves now." in words
    assert f"/games/{game['id']}/seat/" in words and f"/games/{game['id']}/seat/" in html_of(
        invitation
    )
    move(mail_server, game, 0, "enter a1 N")  # Bob's turn: he has not answered yet
    time.sleep(1.5)  # several rounds of the worker
    to_bob = [mail for mail in sink.messages if mail["To"] == BOB]
    assert len(to_bob) == 1, [str(mail["Subject"]) for mail in to_bob]
