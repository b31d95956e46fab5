"""Tables, invitations and rematches (issue 21), with a real server, worker, SMTP server and
Chromium.

Two players who signed in by their mails' links fill a Siam table from the lobby and play it
to the end on the game page; the rematch invites the other player, who takes the seat from
the mail, and starts. An invitation mailed at creation claims its seat; the host's new
invitation or new link stops the old one; no page, API answer, event or mail shows a player
another player's address.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, Page, expect

from engines import get_engine
from tests.mail.conftest import BASE_URL, MAIL_SETTINGS, Sink, first_mail
from tests.mail.samples import html_of, save, text_of
from tests.mail.test_sign_in import ask_for_link, mailed_link
from tests.support import BackgroundServer, run_command, start_background
from tests.web.conftest import SCREENSHOTS
from tests.web.table import click_move, scrolls_sideways

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

ANN, BOB = "ann@example.org", "bob@example.org"
#: Nine plies of Siam: the elephants push the rock of b3 off the board while the rhino turns.
SIAM_LINE = [
    "enter b1 N",
    "enter e5 S",
    "move b1 b2 N",
    "rotate e5 W",
    "move b2 b3 N",
    "rotate e5 S",
    "move b3 b4 N",
    "rotate e5 W",
    "move b4 b5 N",
]
SIAM = get_engine("siam")


@pytest.fixture
def server(db_url: str, smtp_sink: tuple[Sink, str]) -> Iterator[BackgroundServer]:
    """gunicorn (two workers) that knows it can send mail; a worker sends it."""
    environment = {**MAIL_SETTINGS, "TURNPOST_SMTP_URL": smtp_sink[1]}
    running = start_background(db_url, workers=2, environment=environment)
    yield running
    running.stop()


@pytest.fixture
def shots() -> Path:
    """The folder of the reviewers' screenshots (as the browser tests keep them)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture
def mail_worker(db_url: str, smtp_sink: tuple[Sink, str], server: BackgroundServer) -> Iterator:
    """``turnpost worker`` sending to the SMTP sink every 0.2 s."""
    env = {"TURNPOST_DB": db_url, "TURNPOST_SMTP_URL": smtp_sink[1], **MAIL_SETTINGS}
    process = run_command(["worker", "--interval", "0.2"], env)
    yield process
    process.terminate()
    process.communicate(timeout=30)


def local(server: BackgroundServer, link: str) -> str:
    """A link of a mail, on the test server."""
    return server.url + link.removeprefix(BASE_URL)


def seat_link_of(mail) -> str:
    """The seat link in a mail's text part."""
    [link] = re.findall(r"^(https://\S+/games/\w+/seat/\S+)$", text_of(mail), re.M)
    return link


def sign_in(page: Page, server: BackgroundServer, sink: Sink, email: str) -> None:
    """Sign ``page``'s browser in by the link mailed to ``email``."""
    ask_for_link(page, server, email)
    page.goto(mailed_link(server, sink, email))
    expect(page.locator("#me-link")).to_have_count(1)


def game_json(server: BackgroundServer, game_id: str) -> dict:
    """The public game object."""
    return requests.get(server.api(f"/games/{game_id}"), timeout=10).json()


def play_line(server: BackgroundServer, game_id: str, pages: dict[str, Page]) -> None:
    """Play :data:`SIAM_LINE` on the game page of whichever player is to move."""
    state = SIAM.setup(2, game_json(server, game_id)["options"], 0)  # Siam has no chance
    for notation in SIAM_LINE:
        game = game_json(server, game_id)
        seat = game["to_move"][0]
        page = pages[game["players"][seat]["name"]]
        page.goto(f"{server.url}/games/{game_id}")
        move = SIAM.parse(notation, state)
        click_move(page, SIAM, state, seat, move)
        state = SIAM.apply(state, seat, move)


def test_two_players_fill_a_table_from_the_lobby_play_it_out_and_accept_the_rematch(
    server: BackgroundServer,
    mail_worker,
    smtp_sink: tuple[Sink, str],
    new_context: Callable[[], BrowserContext],
    browser: Browser,
    shots: Path,
) -> None:
    sink = smtp_sink[0]
    ann, bob = new_context().new_page(), new_context().new_page()
    sign_in(ann, server, sink, ANN)
    ann.goto(server.url)
    ann.select_option("#engine", "siam")
    ann.fill("#name0", "Ann")
    ann.check("#open1")
    ann.select_option("#turn_hours", "48")
    ann.click("#create-game button[type=submit]")
    expect(ann.locator("h1")).to_have_text("Your Siam table is set")
    ann.screenshot(path=str(shots / "table-created.png"), full_page=True)
    ann.click("#seat-links form.play-as button")
    expect(ann.locator("#seated")).to_be_visible()  # the table's page: Ann sits there
    game_id = ann.url.split("/")[-1]
    expect(ann.locator("#host")).to_contain_text("You host this table")
    ann.screenshot(path=str(shots / "table-forming-host.png"), full_page=True)

    sign_in(bob, server, sink, BOB)
    bob.goto(server.url)
    row = bob.locator("#open-tables tbody tr", has_text="Siam")
    expect(row).to_contain_text("Ann")
    expect(row).to_contain_text("2 days a move")
    bob.screenshot(path=str(shots / "lobby-join.png"), full_page=True)
    row.locator("button", has_text="Join").click()
    expect(bob.locator("#live")).to_have_count(1)  # the game's page: the table is full
    assert bob.url.endswith(f"/games/{game_id}")
    started = game_json(server, game_id)
    assert started["status"] == "active" and started["deadline"] is not None
    assert sorted(p["name"] for p in started["players"]) == ["Ann", "bob"]
    assert bob.locator("#host").count() == 0, "a player who is not the host sees the host panel"

    ann.goto(f"{server.url}/games/{game_id}")
    expect(ann.locator("#host")).to_contain_text("You host this game")
    ann.screenshot(path=str(shots / "game-host-panel.png"), full_page=True)
    assert not scrolls_sideways(ann), "the host panel's clock choice is wider than a phone"
    play_line(server, game_id, {"Ann": ann, "bob": bob})
    over = game_json(server, game_id)
    assert over["status"] == "finished" and len(over["result"]["winners"]) == 1
    for page in (ann, bob):
        page.goto(f"{server.url}/games/{game_id}")
        expect(page.locator("#status")).to_contain_text("Game over")
    bob.screenshot(path=str(shots / "table-over-rematch.png"), full_page=True)

    ann.click("#rematch-form button")
    expect(ann.locator("h1")).to_have_text("Your Siam table is set")
    expect(ann.locator("#mail-notes")).to_have_text(
        "bob is mailed an invitation with their own link now."
    )
    assert ann.locator("#seat-links code.link").count() == 0, "the host was handed a kept seat"
    assert BOB not in ann.content(), "the rematch shows its host another player's address"
    ann.screenshot(path=str(shots / "rematch-created.png"), full_page=True)
    invitation = first_mail(sink, BOB, "An invitation to a rematch")
    assert invitation["Subject"] == "An invitation to a rematch of Siam on Turnpost"
    assert "ann invites you to play a rematch of Siam with Ann on Turnpost" in " ".join(
        text_of(invitation).split()
    )
    assert ANN not in text_of(invitation) + html_of(invitation)
    save(invitation, "rematch-invitation", browser)
    rematch_id = seat_link_of(invitation).split("/")[-3]
    assert game_json(server, rematch_id)["status"] == "forming"
    bob.goto(local(server, seat_link_of(invitation)))  # from his mail program
    expect(bob.locator("#live")).to_have_count(1)
    rematch = game_json(server, rematch_id)
    assert rematch["status"] == "active"
    first = over["players"][0]["name"]
    assert [p["name"] for p in rematch["players"]][1] == first, "the seats did not move round"
    bob.screenshot(path=str(shots / "rematch-started.png"), full_page=True)
    for page in (ann, bob):  # each plays their own seat of the rematch in their browser
        page.goto(f"{server.url}/games/{rematch_id}")
        expect(page.locator("aside.side")).to_contain_text("(you)")


def create_from_lobby(session: requests.Session, server: BackgroundServer, **fields: str) -> str:
    """Create a game with the lobby form in ``session``; the created page's URL."""
    page = session.get(server.url, timeout=10).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    form = {"csrf_token": csrf, "engine": "siam", **fields}
    answer = session.post(f"{server.url}/games", data=form, timeout=10, allow_redirects=False)
    assert answer.status_code == 303, answer.text
    return server.url + answer.headers["Location"]


def signed_in_session(server: BackgroundServer, sink: Sink, email: str) -> requests.Session:
    """A browser (requests) signed in by the link mailed to ``email``."""
    browser = requests.Session()
    page = browser.get(f"{server.url}/sign-in", timeout=10).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    browser.post(f"{server.url}/sign-in", data={"csrf_token": csrf, "email": email}, timeout=10)
    browser.get(mailed_link(server, sink, email), headers={"Sec-Fetch-Site": "none"}, timeout=10)
    assert "turnpost_player" in browser.cookies
    return browser


def host_post(session: requests.Session, url: str, **data: str) -> requests.Response:
    """A host's form posted from the game's page (with its CSRF token)."""
    page = session.get(url.split("/host/")[0], timeout=10).text
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    return session.post(url, data={"csrf_token": csrf, **data}, timeout=10)


def follow(link: str, browser: requests.Session | None = None) -> requests.Response:
    """Open a mail's link as a browser does from a mail program (a fresh one by default)."""
    browser = browser or requests.Session()
    return browser.get(link, headers={"Sec-Fetch-Site": "none"}, timeout=10)


def mails_to(sink: Sink, address: str) -> list:
    """Every mail delivered to ``address`` so far."""
    return [mail for mail in sink.messages if mail["To"] == address]


def next_mail(sink: Sink, address: str, seen: int) -> EmailMessage:
    """The mail to ``address`` after the first ``seen``, waiting for the worker to send it."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        mails = mails_to(sink, address)
        if len(mails) > seen:
            return mails[seen]
        time.sleep(0.1)
    raise AssertionError(f"no new mail to {address}")


def test_an_invitation_claims_its_seat_and_a_new_one_stops_the_old_link(
    server: BackgroundServer, mail_worker, smtp_sink: tuple[Sink, str]
) -> None:
    sink = smtp_sink[0]
    ann = signed_in_session(server, sink, ANN)
    created = create_from_lobby(ann, server, name0="Ann", email0=ANN, name1="Bob", email1=BOB)
    notes = ann.get(created, timeout=10).text
    assert "Ann is mailed an invitation" in notes and "Bob is mailed an invitation" in notes
    assert ANN not in notes and BOB not in notes
    game_id = created.split("/")[-2]
    invitation = first_mail(sink, BOB, "An invitation")
    assert invitation["Subject"] == "An invitation to play Siam on Turnpost"
    words = " ".join(text_of(invitation).split())
    assert "ann invites you to play Siam with Ann on Turnpost" in words  # the host's own name
    assert "Ann moves now" in words and ANN not in words + html_of(invitation)
    save(invitation, "invitation")
    first_link = local(server, seat_link_of(invitation))
    bob = requests.Session()
    taken = follow(first_link, bob)
    assert taken.status_code == 200 and taken.url.endswith(f"/games/{game_id}")
    assert game_json(server, game_id)["players"][1]["private"] is True, "no seat was taken"

    game_page = f"{server.url}/games/{game_id}"
    seen = len(mails_to(sink, BOB))
    again = host_post(ann, f"{game_page}/host/seats/1/invite")
    assert again.status_code == 200 and "The invitation is on its way" in again.text
    second = next_mail(sink, BOB, seen)
    assert follow(first_link).status_code == 401, "the first invitation still opens the seat"
    assert follow(local(server, seat_link_of(second)), bob).status_code == 200

    unanswered = host_post(ann, f"{game_page}/host/seats/0/invite")
    assert unanswered.status_code == 422
    assert "was mailed about this game already and has not answered" in unanswered.text
    ann_turn = first_mail(sink, ANN, "Your turn")
    assert "ann invited you to play Siam with Bob on Turnpost" in " ".join(
        text_of(ann_turn).split()
    )
    replaced = host_post(ann, f"{game_page}/host/seats/0/replace")
    assert replaced.status_code == 200 and "A new link for Ann" in replaced.text
    assert follow(local(server, seat_link_of(ann_turn))).status_code == 401
    [new_link] = re.findall(r'id="new-link"[^>]*>([^<]+)<', replaced.text)
    assert follow(new_link, ann).status_code == 200

    seen = {
        "Bob's game page": bob.get(game_page, timeout=10).text,
        "Bob's lobby": bob.get(server.url, timeout=10).text,
        "the host's game page": ann.get(game_page, timeout=10).text,
        "the host's lobby": ann.get(server.url, timeout=10).text,
        "the public game": requests.get(server.api(f"/games/{game_id}"), timeout=10).text,
        "the public list": requests.get(server.api("/games"), timeout=10).text,
        "the events": first_events(server, game_id),
        "Bob's mails": "".join(text_of(m) + html_of(m) for m in mails_to(sink, BOB)),
    }
    for where, text in seen.items():
        assert ANN not in text, f"Ann's address in {where}"
        assert BOB not in text or where == "Bob's mails", f"Bob's address in {where}"
    assert "You host this game" in seen["the host's game page"]
    assert "You host" not in seen["Bob's game page"]


def first_events(server: BackgroundServer, game_id: str) -> str:
    """What a game's event stream says first (its replay of the log, or its greeting)."""
    url = server.api(f"/games/{game_id}/events")
    with requests.get(url, stream=True, timeout=10) as stream:
        return next(stream.iter_content(4096)).decode()
