"""Web Push to the browsers a player allowed (issue 21), against a real server and worker.

Browsers' push services are outside this machine: a local HTTPS push service
(:mod:`tests.mail.push_service`) stands in for them, and the subscription's
private key decrypts what it received. Headless Chromium has no push service
either: the page's script is checked to register the service worker and say
plainly that this browser cannot be notified, and, with ``pushManager`` giving
a subscription made here, to post it through the real route.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import requests
from playwright.sync_api import BrowserContext, Page, expect

from schemas.push import unpadded
from server.store import open_store
from tests.mail.conftest import DOMAIN, MAIL_SETTINGS, Sink
from tests.mail.players import (
    create_game,
    csrf_of,
    move,
    save_profile,
    sign_in,
    sign_in_link,
    take_seat,
)
from tests.mail.push_service import (
    LOOPBACK,
    PushBrowser,
    PushService,
    text,
    vapid_claims,
)
from tests.support import BackgroundServer, run_command, start_background, table_rows

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

ANN, BOB = "ann@example.org", "bob@example.org"
SIAM = [{"name": "Bob", "email": BOB}, {"name": "Ann", "email": ANN}]
#: The server and worker of these tests let pushes reach the local push service.
PUSH_SETTINGS = {**MAIL_SETTINGS, "TURNPOST_PUSH_NETWORKS": LOOPBACK}


@pytest.fixture
def push_service(tmp_path: Path) -> Iterator[PushService]:
    service = PushService(tmp_path)
    yield service
    service.stop()


@pytest.fixture
def push_server(db_url: str) -> Iterator[BackgroundServer]:
    """gunicorn that accepts push endpoints on the loopback (the local push service)."""
    server = start_background(db_url, workers=1, environment=PUSH_SETTINGS)
    yield server
    server.stop()


def start_worker(
    db_url: str, smtp_url: str, service: PushService, **settings: str
) -> subprocess.Popen:
    """``turnpost worker`` trusting the push service's certificate, with ``settings``."""
    env = {
        "TURNPOST_DB": db_url,
        "TURNPOST_SMTP_URL": smtp_url,
        "SSL_CERT_FILE": str(service.cert_path),
        **settings,
    }
    return run_command(["worker", "--interval", "0.2"], env)


def stop_worker(process: subprocess.Popen) -> None:
    """Stop a worker the way its operator does, and wait for it."""
    process.terminate()
    process.communicate(timeout=30)


@pytest.fixture
def push_worker(
    db_url: str, smtp_sink: tuple[Sink, str], push_service: PushService, push_server
) -> Iterator[subprocess.Popen]:
    process = start_worker(db_url, smtp_sink[1], push_service, **PUSH_SETTINGS)
    yield process
    stop_worker(process)


def player_page(browser: requests.Session, server: BackgroundServer) -> tuple[str, str, str]:
    """The player's page: its HTML, its CSRF token and the server's public push key."""
    page = browser.get(f"{server.url}/me", timeout=10).text
    return page, csrf_of(page), re.search(r'data-key="([^"]+)"', page).group(1)


def subscribe(
    browser: requests.Session, server: BackgroundServer, subscription: object, csrf: str
) -> requests.Response:
    """Post ``subscription`` as the page's script does."""
    return browser.post(
        f"{server.url}/me/push",
        data=json.dumps(subscription),
        headers={"Content-Type": "application/json", "X-CSRFToken": csrf},
        timeout=10,
    )


def subscriptions(db_url: str) -> list[dict]:
    """Every push subscription stored, with its player's address."""
    store = open_store(db_url)
    try:
        emails = {player["id"]: player["email"] for player in table_rows(store, "players")}
        return [
            {**subscription, "email": emails[subscription["player_id"]]}
            for subscription in table_rows(store, "push_subscriptions")
        ]
    finally:
        store.close()


def test_a_push_tells_the_players_browser_whose_turn_it_is_encrypted_and_signed(
    push_server: BackgroundServer,
    push_worker,
    push_service: PushService,
    smtp_sink: tuple[Sink, str],
    db_url: str,
) -> None:
    ann = sign_in(push_server, smtp_sink[0], ANN)
    _, csrf, server_key = player_page(ann, push_server)
    laptop = PushBrowser(f"{push_service.origin}/push/ann-laptop")
    answer = subscribe(ann, push_server, laptop.subscription(), csrf)
    assert answer.status_code == 201, answer.text
    page, _, _ = player_page(ann, push_server)
    assert "A browser notified through 127.0.0.1" in page
    assert laptop.endpoint not in page and "ann-laptop" not in page, "the endpoint is secret"

    game = create_game(push_server, "siam", SIAM)
    take_seat(ann, push_server, game, 1)
    before = time.time()
    move(push_server, game, 0, "enter a1 N")
    [push] = push_service.wait_for(1)
    assert push["path"] == "/push/ann-laptop"
    assert laptop.read(push) == {
        "title": "Your turn in Siam with Bob",
        "body": "Move 2: enter a rhino.",
        "url": f"/games/{game['id']}",
        "tag": f"turnpost-{game['id']}",
    }
    claims = vapid_claims(push, server_key)
    assert claims["aud"] == push_service.origin
    assert claims["sub"] == f"mailto:turnpost@{DOMAIN}"
    assert before < claims["exp"] <= time.time() + 24 * 3600
    assert push["headers"]["TTL"] == str(24 * 3600)

    bob = sign_in(push_server, smtp_sink[0], BOB)
    [stored] = subscriptions(db_url)
    _, bobs_csrf, _ = player_page(bob, push_server)
    taken = bob.post(
        f"{push_server.url}/me/push/{stored['id']}/remove",
        data={"csrf_token": bobs_csrf},
        timeout=10,
    )
    assert taken.status_code == 404 and len(subscriptions(db_url)) == 1, "Bob removed Ann's"

    push_service.statuses.append(410)  # the browser unsubscribed: its push service says so
    second = create_game(push_server, "siam", SIAM)
    take_seat(ann, push_server, second, 1)
    move(push_server, second, 0, "enter a1 N")
    push_service.wait_for(2)
    deadline = time.monotonic() + 30
    while subscriptions(db_url) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert subscriptions(db_url) == [], "a gone subscription was kept"
    assert "A browser notified" not in player_page(ann, push_server)[0]


def test_a_subscription_the_worker_may_not_reach_gets_no_push(
    push_server: BackgroundServer,
    push_service: PushService,
    smtp_sink: tuple[Sink, str],
    db_url: str,
) -> None:
    """The endpoint is checked again when a push is sent: a worker whose operator does not allow
    the loopback never posts there, whatever the page accepted."""
    worker = start_worker(db_url, smtp_sink[1], push_service, **MAIL_SETTINGS)
    try:
        ann = sign_in(push_server, smtp_sink[0], ANN)
        _, csrf, _ = player_page(ann, push_server)
        laptop = PushBrowser(f"{push_service.origin}/push/ann-laptop")
        assert subscribe(ann, push_server, laptop.subscription(), csrf).status_code == 201
        game = create_game(push_server, "siam", SIAM)
        take_seat(ann, push_server, game, 1)
        move(push_server, game, 0, "enter a1 N")
        store = open_store(db_url)
        deadline = time.monotonic() + 30
        while store.count_rows("pushes"):
            assert time.monotonic() < deadline, "the push was never given up"
            time.sleep(0.1)
        store.close()
        assert push_service.requests == []
    finally:
        stop_worker(worker)


def hostile_subscriptions(good: dict) -> dict[str, object]:
    """Subscriptions the route must refuse, each with what is wrong with it."""
    keys = good["keys"]
    return {
        "not https": {**good, "endpoint": "http://push.example.org/x"},
        "loopback": {**good, "endpoint": "https://127.0.0.1/x"},
        "private": {**good, "endpoint": "https://10.1.2.3/x"},
        "link-local metadata": {**good, "endpoint": "https://169.254.169.254/latest"},
        "IPv6 loopback": {**good, "endpoint": "https://[::1]/x"},
        "IPv4-mapped private": {**good, "endpoint": "https://[::ffff:192.168.1.1]/x"},
        "a name for the loopback": {**good, "endpoint": "https://localhost/x"},
        "credentials": {**good, "endpoint": "https://user:pw@127.0.0.1/x"},
        "too long": {**good, "endpoint": "https://push.example.org/" + "x" * 2100},
        "line break": {**good, "endpoint": "https://push.example.org/x\r\nHost: evil"},
        "not a URL": {**good, "endpoint": "https://[nope/x"},
        "a key off the curve": {**good, "keys": {**keys, "p256dh": text(b"\x04" + b"\x01" * 64)}},
        "a short secret": {**good, "keys": {**keys, "auth": text(b"short")}},
        "not base64": {**good, "keys": {**keys, "auth": "!!!!"}},
        "no keys": {"endpoint": good["endpoint"]},
        "an unknown field": {**good, "admin": True},
        "a list": [good],
        "a string": "https://push.example.org/x",
    }


def test_hostile_subscriptions_are_refused_in_words_and_nothing_is_stored(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    """This server's operator allows no private network: loopback and private endpoints, and
    names that resolve to them, are refused."""
    stranger = requests.Session()
    anonymous_csrf = csrf_of(stranger.get(f"{mail_server.url}/sign-in", timeout=10).text)
    good = PushBrowser("https://127.0.0.1/x").subscription()
    refused = subscribe(stranger, mail_server, good, anonymous_csrf)
    assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
    ann = sign_in(mail_server, smtp_sink[0], ANN)
    _, csrf, _ = player_page(ann, mail_server)
    forged = subscribe(ann, mail_server, good, "forged")
    assert forged.status_code == 400 and "CSRF" in forged.json()["error"]["message"]
    no_token = ann.post(f"{mail_server.url}/me/push", json=good, timeout=10)
    assert no_token.status_code == 400
    for what, body in hostile_subscriptions(good).items():
        answer = subscribe(ann, mail_server, body, csrf)
        assert answer.status_code == 422, (what, answer.status_code, answer.text[:300])
        error = answer.json()["error"]
        assert error["code"] == "invalid_request" and error["message"], what
    as_form = ann.post(f"{mail_server.url}/me/push", data={"csrf_token": csrf}, timeout=10)
    assert as_form.status_code == 422
    assert subscriptions(db_url) == []
    assert "Traceback" not in mail_server.log()


#: Stands in for ``pushManager.subscribe`` (headless Chromium has no push service): it gives
#: the subscription made by the test, as a browser's would.
FAKE_PUSH_MANAGER = """
PushManager.prototype.subscribe = function (options) {
  var given = SUBSCRIPTION;
  window.subscribedWith = Array.from(new Uint8Array(options.applicationServerKey));
  return Promise.resolve({endpoint: given.endpoint, expirationTime: null,
                          toJSON: function () { return given; }});
};
"""


def signed_in_page(
    context: BrowserContext, server: BackgroundServer, sink: Sink, email: str
) -> Page:
    """A page of ``context`` signed in by the mailed link, on the player's page."""
    context.grant_permissions(["notifications"], origin=server.url)
    page = context.new_page()
    page.goto(sign_in_link(server, sink, email))  # from the mail program
    assert page.url.endswith("/me/games"), page.url  # signing in lands on my games
    page.goto(f"{server.url}/me")
    return page


def active_worker(page: Page) -> str | None:
    """The script URL of the service worker that serves the page (``None``: none within 10 s)."""
    return page.evaluate(
        """Promise.race([
             navigator.serviceWorker.ready.then(r => r.active.scriptURL),
             new Promise(resolve => setTimeout(() => resolve(null), 10000))])"""
    )


def test_notify_this_browser_registers_the_worker_then_posts_or_says_why_it_cannot(
    push_server: BackgroundServer,
    push_worker,
    push_service: PushService,
    smtp_sink: tuple[Sink, str],
    db_url: str,
    new_context: Callable[[], BrowserContext],
) -> None:
    sink = smtp_sink[0]
    page = signed_in_page(new_context(), push_server, sink, ANN)
    page.click("#push-enable")
    status = page.locator("#push-status")
    expect(status).to_contain_text(re.compile("^(Done|This browser cannot be notified): "))
    assert active_worker(page) == f"{push_server.url}/push-worker.js"
    stored = subscriptions(db_url)
    if status.inner_text().startswith("Done"):  # a Chromium with a push service
        assert len(stored) == 1 and stored[0]["endpoint"].startswith("https://")
    else:
        assert stored == [], status.inner_text()

    laptop = PushBrowser(f"{push_service.origin}/push/ann-chromium")
    context = new_context()
    context.add_init_script(
        FAKE_PUSH_MANAGER.replace("SUBSCRIPTION", json.dumps(laptop.subscription()))
    )
    page = signed_in_page(context, push_server, sink, ANN)
    server_key = page.locator("#push").get_attribute("data-key")
    page.click("#push-enable")
    expect(page.locator("#push-status")).to_have_text(
        "Done: this browser will tell you when it is your turn."
    )
    assert bytes(page.evaluate("window.subscribedWith")) == unpadded(server_key)
    [mine] = [row for row in subscriptions(db_url) if row["endpoint"] == laptop.endpoint]
    assert (mine["email"], mine["p256dh"], mine["auth"]) == (
        ANN,
        laptop.subscription()["keys"]["p256dh"],
        laptop.subscription()["keys"]["auth"],
    )
    game = create_game(push_server, "siam", SIAM)
    page.goto(f"{push_server.url}/games/{game['id']}/seat/{game['players'][1]['token']}")
    move(push_server, game, 0, "enter a1 N")
    pushed = [p for p in push_service.wait_for(1) if p["path"] == "/push/ann-chromium"]
    assert laptop.read(pushed[0])["title"] == "Your turn in Siam with Bob"
    page.goto(f"{push_server.url}/me")
    listed = page.locator("#push-browsers li")
    count = listed.count()
    listed.last.locator("button").click()
    expect(page.locator("#push-browsers li")).to_have_count(count - 1)
    assert laptop.endpoint not in [row["endpoint"] for row in subscriptions(db_url)]


def test_the_service_worker_is_a_script_that_may_fetch_nothing(
    push_server: BackgroundServer,
) -> None:
    answer = requests.get(f"{push_server.url}/push-worker.js", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].startswith("text/javascript")
    assert answer.headers["Content-Security-Policy"] == "default-src 'none'"
    assert answer.headers["Cache-Control"] == "no-cache"
    assert 'addEventListener("push"' in answer.text


def test_a_push_speaks_its_players_language(
    push_server: BackgroundServer,
    push_worker,
    push_service: PushService,
    smtp_sink: tuple[Sink, str],
) -> None:
    """A player who reads French is told of their turn in French (English before)."""
    ann = sign_in(push_server, smtp_sink[0], ANN)
    save_profile(ann, push_server, name="Ann", language="fr")
    _, csrf, _ = player_page(ann, push_server)
    phone = PushBrowser(f"{push_service.origin}/push/ann-phone")
    assert subscribe(ann, push_server, phone.subscription(), csrf).status_code == 201
    game = create_game(push_server, "siam", SIAM)
    take_seat(ann, push_server, game, 1)
    move(push_server, game, 0, "enter a1 N")
    [push] = push_service.wait_for(1)
    told = phone.read(push)
    assert told["title"] == "Votre tour dans Siam avec Bob"
    assert told["body"].startswith("Coup 2\u00a0: ") and "rhinocéros" in told["body"]
    assert "enter" not in told["body"]
