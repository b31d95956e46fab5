"""The operator's pages (``/admin``) over HTTP against a real gunicorn server: only a
signed-in player named in ``TURNPOST_ADMIN_EMAILS`` gets them (anyone else ``404``), every
change needs the form's CSRF token (``400`` without it), and each action does what it says:
abort and hide games, retry a failed mail, lift "never mail me again", see webhook failures
and refused requests."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from aiosmtpd.controller import Controller

from server.accounts.service import AccountService
from server.games.clock import utcnow
from server.http.actor import SESSION_COOKIE
from server.mail.addresses import recipient_key
from server.store import open_store
from server.store.base import Store
from server.store.records import Player
from tests.mail.conftest import Sink
from tests.server.test_api import auth, create_siam
from tests.support import BackgroundServer, free_port, run_command, start_background

#: The operator, as ``TURNPOST_ADMIN_EMAILS`` names them (case and +tag aside).
OPERATOR = "Boss+ops@Example.org"
#: Requests a seat token may make per minute on this server (so refusals are easy to cause).
TOKEN_LIMIT = 5


class Refuser:
    """An SMTP server that refuses every mail for good."""

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        return "550 5.7.1 Mailbox unavailable"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """One gunicorn worker (the refusal counts live in its memory), an operator, webhooks
    allowed to loopback and a low limit per seat token."""
    environment = {
        "TURNPOST_ADMIN_EMAILS": f"nobody@example.net, {OPERATOR}",
        "TURNPOST_RATELIMIT_TOKEN": f"{TOKEN_LIMIT}/minute",
        "TURNPOST_WEBHOOK_NETWORKS": "127.0.0.0/8",
    }
    path = tmp_path_factory.mktemp("admin") / "turnpost.db"
    running = start_background(str(path), workers=1, environment=environment)
    yield running
    running.stop()


def add_player(store: Store, player_id: str, email: str) -> Player:
    """A player with ``email``."""
    player = Player(
        id=player_id,
        email=email,
        email_key=recipient_key(email),
        name=player_id.title(),
        time_zone="UTC",
        language="en",
        mail_pref="turn",
        created_at=utcnow(),
    )
    with store.write():
        store.add_player(player)
    return player


def browser(server: BackgroundServer, player_id: str, email: str) -> requests.Session:
    """A browser signed in as a new player with ``email`` (its session opened as signing in
    by link does)."""
    store = open_store(server.db_path)
    try:
        add_player(store, player_id, email)
        session = AccountService(store, "unused").open_session(player_id)
    finally:
        store.close()
    signed_in = requests.Session()
    signed_in.cookies.set(SESSION_COOKIE, session)
    return signed_in


@pytest.fixture(scope="module")
def operator(server: BackgroundServer) -> requests.Session:
    """The operator's browser."""
    return browser(server, "boss", "boss@example.org")


@pytest.fixture(scope="module")
def player(server: BackgroundServer) -> requests.Session:
    """A browser of a player who is no operator."""
    return browser(server, "ann", "ann@example.org")


def csrf_of(page: str) -> str:
    """The CSRF token of a page's forms."""
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def post(session: requests.Session, server: BackgroundServer, path: str, **form: str):
    """Post a form of the operator's pages with the CSRF token of the page it is on."""
    page = session.get(f"{server.url}/admin", timeout=10).text
    data = {"csrf_token": csrf_of(page), **form}
    return session.post(f"{server.url}{path}", data=data, timeout=10)


def status_of(server: BackgroundServer, game: dict) -> str:
    """A game's status, from the API."""
    return requests.get(server.api(f"/games/{game['id']}"), timeout=10).json()["status"]


def listed(server: BackgroundServer, game: dict) -> bool:
    """Whether the public list of games (the tables that form) shows ``game``."""
    answer = requests.get(server.api("/games"), params={"limit": 200}, timeout=10).json()
    return game["id"] in {entry["id"] for entry in answer["games"]}


def turnpost(server: BackgroundServer, command: list[str], **env: str) -> str:
    """Run ``turnpost COMMAND`` on the server's database; its stdout and stderr."""
    process = run_command(command, {"TURNPOST_DB": server.db_path, **env})
    out, err = process.communicate(timeout=60)
    return out + err


def test_only_a_signed_in_operator_gets_the_pages(
    server: BackgroundServer, operator: requests.Session, player: requests.Session
) -> None:
    for path in ("/admin", "/admin/mail", "/admin/webhooks", "/admin/refusals"):
        assert requests.get(server.url + path, timeout=10).status_code == 404
        assert player.get(server.url + path, timeout=10).status_code == 404
        page = operator.get(server.url + path, timeout=10)
        assert page.status_code == 200 and "Operator: " in page.text
        assert page.headers["Cache-Control"] == "no-store"
    store = open_store(server.db_path)
    try:
        token = AccountService(store, "unused").create_api_token("boss", "ops")["token"]
    finally:
        store.close()
    by_token = requests.get(f"{server.url}/admin", headers=auth(token), timeout=10)
    assert by_token.status_code == 404  # a browser session only, never a program's key


def test_changes_need_the_csrf_token_and_an_operator(
    server: BackgroundServer, operator: requests.Session, player: requests.Session
) -> None:
    game = create_siam(server)
    abort = f"{server.url}/admin/games/{game['id']}/abort"
    assert operator.post(abort, timeout=10).status_code == 400  # no CSRF token
    own_page = player.get(f"{server.url}/me", timeout=10).text
    refused = player.post(abort, data={"csrf_token": csrf_of(own_page)}, timeout=10)
    assert refused.status_code == 404
    assert requests.post(abort, timeout=10).status_code == 400
    assert status_of(server, game) == "active"


def test_the_operator_finds_aborts_hides_and_lists_again_a_game(
    server: BackgroundServer, operator: requests.Session
) -> None:
    game = create_siam(server, players=[{"name": "Zoltan <b>"}, {"name": "Bob"}])
    found = operator.get(f"{server.url}/admin", params={"q": "zolt"}, timeout=10).text
    assert f'id="game-{game["id"]}"' in found and "Zoltan &lt;b&gt;" in found
    assert "being played" in found and "Siam" in found
    assert "Zoltan <b>" not in found  # escaped

    answer = post(operator, server, f"/admin/games/{game['id']}/abort", q="zolt")
    assert answer.url.endswith("/admin?q=zolt") and f"Game {game['id']} is aborted." in answer.text
    assert status_of(server, game) == "aborted"

    table = create_siam(server, players=[{"name": "Ann"}, {"open": True}])  # listed to all
    assert listed(server, table)
    post(operator, server, f"/admin/games/{table['id']}/hide")
    assert not listed(server, table)
    page = operator.get(f"{server.url}/admin", params={"q": table["id"][:6]}, timeout=10).text
    assert "hidden" in page and "List again" in page
    post(operator, server, f"/admin/games/{table['id']}/show")
    assert listed(server, table)
    assert post(operator, server, "/admin/games/nosuchgame/hide").status_code == 404


def test_a_failed_mail_is_shown_with_its_reason_and_tried_again(
    server: BackgroundServer, operator: requests.Session
) -> None:
    refuser = Controller(Refuser(), hostname="127.0.0.1", port=free_port())
    refuser.start()
    try:
        port = refuser.port
        turnpost(
            server,
            ["new-game", "siam", "--player", "Cy", "--email", "cy@example.org"]
            + ["--player", "Di", "--invite"],
        )
        said = turnpost(server, ["send-mail"], TURNPOST_SMTP_URL=f"smtp://127.0.0.1:{port}")
    finally:
        refuser.stop()
    assert "failed (for good)" in said
    page = operator.get(f"{server.url}/admin/mail", timeout=10).text
    [mail_id] = re.findall(r'<tr id="mail-(\d+)">', page)
    assert "cy@example.org" in page and "Mailbox unavailable" in page
    assert "never: it failed for good" in page

    answer = post(operator, server, f"/admin/mail/{mail_id}/retry")
    assert f"Mail {mail_id} goes out again" in answer.text
    sink = Sink()
    sending = Controller(sink, hostname="127.0.0.1", port=free_port())
    sending.start()
    try:
        said = turnpost(server, ["send-mail"], TURNPOST_SMTP_URL=f"smtp://127.0.0.1:{sending.port}")
    finally:
        sending.stop()
    assert [mail["To"] for mail in sink.messages] == ["cy@example.org"], said
    assert 'id="no-failed-mail"' in operator.get(f"{server.url}/admin/mail", timeout=10).text


def test_never_mail_me_again_is_lifted_for_one_address(
    server: BackgroundServer, operator: requests.Session
) -> None:
    store = open_store(server.db_path)
    try:
        store.suppress_mail(recipient_key("eve@example.org"), utcnow())
        page = operator.get(f"{server.url}/admin/mail", timeout=10).text
        assert re.search(r"\d+ address(es)? followed", page)
        answer = post(operator, server, "/admin/mail/lift", email="Eve+games@Example.org")
        assert "Eve+games@Example.org may be mailed again." in answer.text
        assert not store.mail_suppressed(recipient_key("eve@example.org"))
        again = post(operator, server, "/admin/mail/lift", email="eve@example.org")
        assert "had not asked never to be mailed again" in again.text
    finally:
        store.close()


def test_webhook_failures_and_refused_requests_are_shown(
    server: BackgroundServer, operator: requests.Session
) -> None:
    game = create_siam(server)
    closed = f"http://127.0.0.1:{free_port()}/hook"
    hooks = server.api(f"/games/{game['id']}/webhooks")
    added = requests.post(
        hooks, json={"url": closed}, headers=auth(game["admin_token"]), timeout=10
    )
    assert added.status_code == 201, added.text
    token = game["players"][0]["token"]
    move = {"notation": "enter b1 N"}
    answer = requests.post(
        server.api(f"/games/{game['id']}/moves"), json=move, headers=auth(token), timeout=10
    )
    assert answer.status_code == 201, answer.text
    turnpost(server, ["send-webhooks"], TURNPOST_WEBHOOK_NETWORKS="127.0.0.0/8")
    page = operator.get(f"{server.url}/admin/webhooks", timeout=10).text
    assert closed in page and game["id"] in page and "move" in page

    answers = [
        requests.get(server.api(f"/games/{game['id']}"), headers=auth(token), timeout=10)
        for _ in range(TOKEN_LIMIT + 3)
    ]
    assert 429 in {answer.status_code for answer in answers}
    page = operator.get(f"{server.url}/admin/refusals", timeout=10).text
    assert re.search(r"<td>127\.0\.0\.1</td><td>\d+ times?</td>", page), page
    assert f"/api/v1/games/{game['id']}" in page
