"""Playing in a real browser (headless Chromium) against a real gunicorn server.

Every move here is made by clicking through the guided form, the way a player
who knows no notation would, except the one typed into the notation box.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import BrowserContext, Page, expect

from engines import ENGINES
from tests.server.test_api import WINNING_LINE, move_of
from tests.support import BackgroundServer

XSS = "<script>alert(1)</script>"


def create_by_api(server: BackgroundServer, engine: str, names: list[str]) -> dict[str, Any]:
    """Create a game over the API (for the tests that are not about the lobby)."""
    body = {"engine": engine, "players": [{"name": name} for name in names], "seed": 7}
    response = requests.post(server.api("/games"), json=body, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()


def seat_link(server: BackgroundServer, game: dict[str, Any], seat: int) -> str:
    """The private browser link of ``seat``."""
    return f"{server.url}/games/{game['id']}/seat/{game['players'][seat]['token']}"


def open_seat(context: BrowserContext, link: str) -> Page:
    """Follow a seat's private link in ``context``; the token must not stay in the address."""
    page = context.new_page()
    page.on("dialog", lambda dialog: pytest.fail(f"a script opened a dialog: {dialog.message}"))
    page.goto(link)
    token = link.rsplit("/", 1)[1]
    assert token not in page.url
    assert re.search(r"/games/\w+$", page.url)
    return page


def play_guided(page: Page, answers: dict[str, str], expected: str | None = None) -> str:
    """Click through the guided form, answering each question from ``answers``.

    A question whose field is not in ``answers`` gets its first choice. Fields
    on which every remaining legal move agrees are not asked. Returns the
    notation of the move played; ``expected`` checks it before clicking Play.
    """
    guided = page.locator("#guided")
    for _ in range(30):
        play = guided.locator("#guided-play button")
        if play.count():
            notation = play.locator("code").inner_text()
            if expected is not None:
                assert notation == expected
            seq = int(page.locator("#guided-play input[name=expected_seq]").get_attribute("value"))
            play.click()
            expect(page.locator("#moves li")).to_have_count(seq + 1)
            return notation
        choices = guided.locator(".choices")
        key = choices.get_attribute("data-key")
        if key in answers:
            choices.locator(f'a.choice[data-value="{answers[key]}"]').click()
        else:
            choices.locator("a.choice").first.click()
    raise AssertionError("the guided form never offered a move to play")


def siam_answers(notation: str) -> dict[str, str]:
    """The guided form's answers for a Siam move in notation (``move b1 b2 N``)."""
    action, *squares = notation.split()
    keys = {
        "enter": ["to", "facing"],
        "move": ["from", "to", "facing"],
        "rotate": ["at", "facing"],
        "exit": ["from"],
    }[action]
    return {"action": action, **dict(zip(keys, squares, strict=True))}


def board_screenshot(page: Page, folder: Path, name: str) -> None:
    """Save the whole page and the board alone, as a phone shows them."""
    page.screenshot(path=folder / f"{name}-page.png", full_page=True)
    page.locator("svg.board").screenshot(path=folder / f"{name}-board.png")


def test_lobby_game_played_to_a_rock_push_off(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext], screenshots: Path
) -> None:
    host = new_context().new_page()
    host.goto(live_server.url)
    host.screenshot(path=screenshots / "lobby.png", full_page=True)
    host.select_option("#engine", "siam")
    host.fill("#name0", "Ann")
    host.fill("#email0", "ann@example.org")
    host.fill("#name1", "Bob")
    host.click("#create-game button[type=submit]")
    expect(host.locator("h1")).to_contain_text("is ready")
    host.screenshot(path=screenshots / "created.png", full_page=True)
    links = [box.input_value() for box in host.locator("#seat-links input.link").all()]
    assert len(links) == 2 and all("/seat/" in link for link in links)
    game_id = links[0].split("/")[-3]

    seats = []
    for link in links:
        context = new_context()
        seats.append(open_seat(context, link))
        cookie = next(c for c in context.cookies() if c["name"].startswith("turnpost_seat_"))
        assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    expect(seats[0].locator("#status")).to_contain_text("your turn")
    expect(seats[1].locator("#guided")).to_have_count(0)
    for ply, notation in enumerate(WINNING_LINE):
        page = seats[ply % 2]
        page.reload()
        if ply == 4:
            board_screenshot(page, screenshots, "siam-midgame")
        play_guided(page, siam_answers(notation), expected=notation)
    for page in seats:
        page.reload()
        expect(page.locator("#status")).to_contain_text("Finished")
        expect(page.locator("#status")).to_contain_text("winner: Ann")
        expect(page.locator("#guided")).to_have_count(0)
    board_screenshot(seats[0], screenshots, "siam-finished")
    moves = requests.get(live_server.api(f"/games/{game_id}/moves"), timeout=10).json()
    assert [move["notation"] for move in moves] == WINNING_LINE

    watcher = host.context.new_page()
    watcher.goto(f"{live_server.url}/games/{game_id}")
    watcher.locator("#moves a", has_text="move b2 b3 N").click()
    expect(watcher.locator("#replay")).to_contain_text("after move 5 of 9")
    watcher.click("#next")
    expect(watcher.locator("#replay")).to_contain_text("after move 6 of 9")
    expect(watcher.locator("#moves li.current a")).to_have_text("rotate e1 N")
    watcher.click("#previous")
    expect(watcher.locator("#replay")).to_contain_text("after move 5 of 9")
    expect(watcher.locator('svg.board g[data-square="b4"]')).to_have_count(1)
    host.goto(live_server.url)
    expect(host.locator("#closed-games")).to_contain_text(game_id)


def test_illegal_move_shows_the_reason_and_changes_nothing(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    game = create_by_api(live_server, "siam", ["Ann", "Bob"])
    page = open_seat(new_context(), seat_link(live_server, game, 0))
    page.fill("#notation-form input[name=notation]", "enter c1 N")
    page.click("#notation-form button")
    expect(page.locator("#error")).to_contain_text("Cross rule")
    expect(page.locator("#moves li")).to_have_count(0)
    page.fill("#notation-form input[name=notation]", "fly a1 z9")
    page.click("#notation-form button")
    expect(page.locator("#error")).to_be_visible()
    assert requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json() == []
    page.goto(f"{live_server.url}/games/{game['id']}")
    play_guided(page, siam_answers("enter a1 N"), expected="enter a1 N")


def test_script_in_a_name_is_shown_as_text(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    page = new_context().new_page()
    page.on("dialog", lambda dialog: pytest.fail(f"a script opened a dialog: {dialog.message}"))
    page.goto(live_server.url)
    page.select_option("#engine", "siam")
    page.fill("#name0", XSS)
    page.fill("#name1", "Bob")
    page.click("#create-game button[type=submit]")
    expect(page.locator("#seat-links")).to_contain_text(XSS)
    page.click("#game-link")
    expect(page.locator("#players")).to_contain_text(XSS)
    expect(page.locator("#status")).to_contain_text(XSS)
    assert page.locator("main script").count() == 0


def test_lobby_form_errors_are_shown(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext]
) -> None:
    page = new_context().new_page()
    page.goto(live_server.url)
    page.select_option("#engine", "siam")
    page.fill("#name0", "Ann")
    page.fill("#name1", "Bob")
    page.fill("#options", '{"no_such_option": 1}')
    page.click("#create-game button[type=submit]")
    expect(page.locator("#error")).to_contain_text("no_such_option")
    expect(page.locator("#name0")).to_have_value("Ann")
    page.fill("#options", "")
    page.fill("#name1", "")
    page.click("#create-game button[type=submit]")
    expect(page.locator("#error")).to_contain_text("2 to 2 players")


def guided_move_in(
    server: BackgroundServer,
    context: BrowserContext,
    engine: str,
    names: list[str],
    answers: dict[str, str],
) -> tuple[Page, dict[str, Any], str]:
    """Create a game of ``engine``, open the seat to move and play one guided move."""
    if engine not in ENGINES:
        pytest.skip(f"engine {engine} is not registered yet")
    game = create_by_api(server, engine, names)
    page = open_seat(context, seat_link(server, game, game["to_move"][0]))
    expect(page.locator("#status")).to_contain_text("your turn")
    notation = play_guided(page, answers)
    moves = requests.get(server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [move["notation"] for move in moves] == [notation]
    return page, game, notation


def test_foreign_king_move_through_the_guided_form(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext], screenshots: Path
) -> None:
    page, _, notation = guided_move_in(
        live_server,
        new_context(),
        "foreign-king",
        ["Ann", "Bob", "Cor"],
        {"action": "build_factory", "kind": "textile", "province": "liege"},
    )
    assert notation == "build textile liege"
    expect(page.locator('svg.board g[data-province="liege"]')).to_contain_text("T")
    expect(page.locator('svg.board g[data-action="build_factory"] circle')).to_have_count(1)
    board_screenshot(page, screenshots, "foreign-king")


def test_king_of_siam_move_through_the_guided_form(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext], screenshots: Path
) -> None:
    page, game, notation = guided_move_in(
        live_server, new_context(), "king-of-siam", ["Ann", "Bob", "Cor"], {"action": "play"}
    )
    assert ";" not in notation, "the card alone: its take is the next decision"
    expect(page.locator("#status")).to_contain_text("your turn")
    take = play_guided(page, {})
    assert take.startswith("take ")
    moves = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [move["notation"] for move in moves] == [notation, take]
    assert [move["seat"] for move in moves] == [game["to_move"][0]] * 2
    board_screenshot(page, screenshots, "king-of-siam")


def test_bangkok_klongs_move_through_the_guided_form(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext], screenshots: Path
) -> None:
    page, _, notation = guided_move_in(
        live_server,
        new_context(),
        "bangkok-klongs",
        ["Ann", "Bob"],
        {"merchant": "new", "relocate.from": ""},
    )
    field = notation.split()[2]
    expect(page.locator(f'svg.board g[data-field="{field}"] g.boat')).to_have_count(1)
    board_screenshot(page, screenshots, "bangkok-klongs")


def advance_by_api(server: BackgroundServer, game: dict[str, Any], plies: int) -> None:
    """Play ``plies`` legal moves over the API, varying which legal move is taken."""
    for ply in range(plies):
        current = requests.get(server.api(f"/games/{game['id']}"), timeout=10).json()
        if not current["to_move"]:
            return
        token = game["players"][current["to_move"][0]]["token"]
        headers = {"Authorization": f"Bearer {token}"}
        url = server.api(f"/games/{game['id']}/legal-moves")
        legal = requests.get(url, headers=headers, timeout=30).json()["moves"]
        body = {"move": move_of(legal[(ply * 7) % len(legal)]), "expected_seq": current["seq"]}
        response = requests.post(
            server.api(f"/games/{game['id']}/moves"), json=body, headers=headers, timeout=10
        )
        assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    ("engine", "names", "plies"),
    [
        ("foreign-king", ["Ann", "Bob"], 24),
        ("king-of-siam", ["Ann", "Bob", "Cor", "Dee"], 14),
        ("bangkok-klongs", ["Ann", "Bob", "Cor"], 30),
    ],
)
def test_board_pictures_mid_game(
    live_server: BackgroundServer,
    new_context: Callable[[], BrowserContext],
    screenshots: Path,
    engine: str,
    names: list[str],
    plies: int,
) -> None:
    if engine not in ENGINES:
        pytest.skip(f"engine {engine} is not registered yet")
    game = create_by_api(live_server, engine, names)
    advance_by_api(live_server, game, plies)
    page = new_context().new_page()
    page.goto(f"{live_server.url}/games/{game['id']}")
    expect(page.locator("#moves li")).to_have_count(plies)
    expect(page.locator("svg.board")).to_be_visible()
    expect(page.locator("#guided")).to_have_count(0)
    board_screenshot(page, screenshots, f"{engine}-midgame")


def test_the_api_docs_render_with_other_origins_blocked(
    live_server: BackgroundServer, new_context: Callable[[], BrowserContext], screenshots: Path
) -> None:
    """Issue 11/16: ``/api/docs`` was a CDN script, a blank page without internet."""
    context = new_context()
    foreign: list[str] = []

    def only_ours(route: Any) -> None:
        if route.request.url.startswith(live_server.url):
            route.continue_()
        else:
            foreign.append(route.request.url)
            route.abort()

    context.route("**/*", only_ours)
    page = context.new_page()
    violations: list[str] = []
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.goto(f"{live_server.url}/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("Turnpost")
    expect(page.locator(".opblock-summary-path").first).to_be_visible()
    assert page.locator(".opblock-summary-path", has_text="legal-moves").count() == 1
    page.screenshot(path=str(screenshots / "api-docs.png"), full_page=False)
    assert foreign == [] and violations == []
