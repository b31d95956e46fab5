"""A player's games page (issue 21), with a real server, worker, SMTP server and Chromium.

Ann signs in through a mailed link, picks her time zone and opens the seat links of
three games while signed in. Her games page lists the one waiting for her first, with
its deadline in her zone and Bob's last move in words; when Bob moves over the API in
another game, the page shows it without a reload; in a fresh browser, signed in again,
the game's button opens her seat without its link. No address of another player shows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

import requests
from playwright.sync_api import BrowserContext, Page, expect

from server.games.clock import parse_time
from tests.mail.conftest import Sink
from tests.mail.test_sign_in import ask_for_link, mailed_link
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

ANN = "ann@example.org"
BOB = "bob@example.org"
ZONE = "Asia/Tokyo"
TIMEOUT = 10


def sign_in(page: Page, server: BackgroundServer, sink: Sink) -> None:
    """Ask for a link in ``page`` and follow the mailed one there (it lands on my games)."""
    sink.messages.clear()
    ask_for_link(page, server, ANN)
    page.goto(mailed_link(server, sink, ANN))  # typed: the browser sends Sec-Fetch-Site: none
    assert page.url.endswith("/me/games"), page.url


def create(server: BackgroundServer, names: list[str], **extra: object) -> dict:
    """A Siam game created over the API, every player with an address."""
    players = [{"name": name, "email": f"{name.lower()}@example.org"} for name in names]
    answer = requests.post(
        server.api("/games"), json={"engine": "siam", "players": players, **extra}, timeout=TIMEOUT
    )
    assert answer.status_code == 201, answer.text
    return answer.json()


def api_post(server: BackgroundServer, path: str, token: str, body: dict) -> dict:
    """POST to the API with a seat token; the answer, which must be a success."""
    answer = requests.post(
        server.api(path), json=body, headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT
    )
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


def open_seat(page: Page, server: BackgroundServer, game: dict, seat: int) -> str:
    """Ann follows the seat's link while signed in (the seat becomes hers); her browser's token."""
    page.goto(f"{server.url}/games/{game['id']}/seat/{game['players'][seat]['token']}")
    cookies = {cookie["name"]: cookie["value"] for cookie in page.context.cookies()}
    return cookies[f"turnpost_seat_{game['id']}"]


def test_a_player_sees_her_games_waiting_first_live_and_takes_a_seat_back(
    mail_server: BackgroundServer,
    worker,
    smtp_sink: tuple[Sink, str],
    new_context: Callable[[], BrowserContext],
    screenshots: Path,
) -> None:
    sink = smtp_sink[0]
    laptop = new_context().new_page()
    sign_in(laptop, mail_server, sink)
    expect(laptop.locator("#no-games")).to_be_visible()
    laptop.click("#me-link")
    laptop.fill("#name", "Ann")
    laptop.select_option("#time_zone", ZONE)
    laptop.click("#profile button[type=submit]")

    running = create(mail_server, ["Ann", "Bob"])
    anns = open_seat(laptop, mail_server, running, 0)
    api_post(mail_server, f"/games/{running['id']}/moves", anns, {"notation": "enter a1 N"})
    waiting = create(mail_server, ["Bob", "Ann"], turn_hours=48)
    open_seat(laptop, mail_server, waiting, 1)
    bobs = waiting["players"][0]["token"]
    api_post(mail_server, f"/games/{waiting['id']}/moves", bobs, {"notation": "enter e1 N"})
    over = create(mail_server, ["Ann", "Bob"])
    open_seat(laptop, mail_server, over, 0)
    api_post(mail_server, f"/games/{over['id']}/resign", over["players"][1]["token"], {})

    laptop.click("#my-games-link")
    cards = laptop.locator("#my-games li.my-game")
    expect(cards).to_have_count(3)  # the click starts the page's load; wait for its list
    ids = [card.get_attribute("id") for card in cards.all()]
    assert ids == [f"game-{game['id']}" for game in (waiting, running, over)]
    first = laptop.locator(f"#waiting #game-{waiting['id']}")
    expect(first.locator(".turn")).to_have_text("Your turn: enter a rhino")
    game = requests.get(mail_server.api(f"/games/{waiting['id']}"), timeout=TIMEOUT).json()
    local = parse_time(game["deadline"]).astimezone(ZoneInfo(ZONE))
    expect(first.locator(".deadline")).to_contain_text(f"{local:%H:%M} Tokyo time")
    assert f"{local:%a} {local.day} {local:%b}" in first.locator(".deadline").inner_text()
    [logged] = requests.get(
        mail_server.api(f"/games/{waiting['id']}/moves"), timeout=TIMEOUT
    ).json()
    expect(first.locator(".last-move")).to_contain_text(logged["description"])
    assert "Bob enters an elephant" in logged["description"]
    expect(laptop.locator(f"#running #game-{running['id']} .turn")).to_have_text("Bob moves now.")
    expect(laptop.locator(f"#over #game-{over['id']} .turn")).to_contain_text("Bob resigned")
    expect(laptop.locator(f"#over #game-{over['id']} .badge")).to_have_text("You won")
    assert "example.org" not in laptop.content(), "an address on the games page"

    folder = screenshots / "pages"
    folder.mkdir(exist_ok=True)
    for width, height in ((1280, 900), (390, 844)):
        laptop.set_viewport_size({"width": width, "height": height})
        laptop.screenshot(path=str(folder / f"my-games-{width}x{height}.png"), full_page=True)

    laptop.evaluate("window.stayed = true")
    bobs = running["players"][1]["token"]
    api_post(mail_server, f"/games/{running['id']}/moves", bobs, {"notation": "enter e5 S"})
    expect(laptop.locator(f"#waiting #game-{running['id']}")).to_be_visible()
    expect(laptop.locator("#waiting li.my-game")).to_have_count(2)
    assert laptop.evaluate("window.stayed === true"), "the page was reloaded"
    assert laptop.title().startswith("(2) My games")

    phone = new_context().new_page()
    sign_in(phone, mail_server, sink)
    phone.locator(f"#game-{waiting['id']} form.open-seat button").click()
    phone.wait_for_url(f"**/games/{waiting['id']}")
    expect(phone.locator("#status")).to_contain_text("Your turn")
    laptop.goto(f"{mail_server.url}/games/{waiting['id']}")
    expect(laptop.locator("#status")).to_contain_text("Your turn")  # the laptop kept its token
