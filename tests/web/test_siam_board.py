"""The Siam board templates (``templates/boards/siam.*``) rendered with ``render_board``.

The picture must stand alone as XML (it is rasterised for mail), link exactly the targets it
is given, mark the last move, the pushed line and the winning push, and the text board must
fit 72 columns. Screenshots of a start, a mid-game and a finished position, at 1280x900 and
at 390x844, go to ``test-output/screenshots/siam/`` for reviewers to look at.
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from flask import render_template_string
from playwright.sync_api import Browser

from engines.siam import SiamEngine
from server import create_app
from server.boards import Board, last_touched, render_board

SIAM = SiamEngine()
SVG = "{http://www.w3.org/2000/svg}"
SIZES = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def game_object(state: dict, **extra: Any) -> dict[str, Any]:
    """``state`` as the API's game object shows it to a watcher."""
    result = SIAM.result(state)
    return {
        "id": "g1",
        "engine": "siam",
        "status": "finished" if result else "active",
        "seq": state["ply"],
        "to_move": SIAM.to_move(state),
        "players": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Bob"}],
        "you": None,
        "result": result,
        "deadline": None,
        "state": SIAM.view(state, None),
        **extra,
    }


def play(state: dict, *notations: str) -> tuple[dict, dict | None]:
    """``state`` after ``notations`` (seats alternating), and the last move played."""
    move = None
    for text in notations:
        move = SIAM.parse(text)
        state = SIAM.apply(state, SIAM.to_move(state)[0], move)
    return state, move


def start() -> tuple[dict, Board]:
    """A new game."""
    return game_object(SIAM.setup(2, SIAM.options({}), 1)), Board()


def mid_game() -> tuple[dict, Board]:
    """After the elephant on b2 pushed a rock and a rhino north."""
    state, move = play(
        SIAM.setup(2, SIAM.options({}), 1),
        *("enter a1 N", "enter e5 S", "move a1 a2 N", "enter b5 E", "move a2 a3 N", "move b5 b4 E"),
        *("enter b1 N", "rotate e5 W", "move b1 b2 N", "move e5 d5 W", "move b2 b3 N"),
    )
    return game_object(state), Board(last=last_touched(move))


def finished() -> tuple[dict, Board]:
    """The rulebook's example G: Ann pushes, Bob's rhino nearer the rock wins."""
    board = {
        "b2": {"kind": "elephant", "facing": "E"},
        "c2": {"kind": "rhino", "facing": "E"},
        "d2": {"kind": "elephant", "facing": "S"},
        "e2": {"kind": "rock"},
        "c5": {"kind": "rock"},
        "d5": {"kind": "rock"},
        "a4": {"kind": "rhino", "facing": "N"},
    }
    state = SIAM.from_position(2, SIAM.options({}), 1, {"board": board, "to_move": 0})
    state, move = play(state, "move b2 c2 E")
    return game_object(state), Board(last=last_touched(move))


def parse(svg: str) -> ET.Element:
    """The SVG document as XML (it must parse alone, without the page around it)."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("viewBox")
    return root


def links(root: ET.Element) -> dict[str, str]:
    """Each link's URL and its label."""
    return {a.get("href"): a.get("aria-label") for a in root.iter(f"{SVG}a")}


def marked(root: ET.Element, mark: str) -> set[str]:
    """The squares carrying the class ``mark``."""
    return {e.get("data-square") for e in root.iter() if e.get("class") == mark}


def random_games(count: int) -> list[dict]:
    """States along ``count`` random games, ended or not."""
    states = []
    for seed in range(count):
        rng = random.Random(seed)
        state = SIAM.setup(2, SIAM.options({}), seed)
        while SIAM.result(state) is None and state["ply"] < 120:
            seat = SIAM.to_move(state)[0]
            state = SIAM.apply(state, seat, rng.choice(SIAM.legal_moves(state, seat)))
            if state["ply"] % 9 == 0:
                states.append(state)
        states.append(state)
    return states


# -- the picture ----------------------------------------------------------------------
def test_svg_stands_alone_as_xml_in_every_position_of_random_games() -> None:
    for state in random_games(6):
        root = parse(render_board("svg", game_object(state)))
        drawn = {
            e.get("data-square"): e.get("data-piece")
            for e in root.iter()
            if e.get("class") == "piece"
        }
        expected = {
            square: " ".join([piece["kind"], piece.get("facing", "")]).strip()
            for square, piece in state["board"].items()
        }
        assert drawn == expected
        assert not list(root.iter(f"{SVG}script")) and not list(root.iter(f"{SVG}image"))
        assert not links(root)


def test_hostile_player_names_stay_text_in_the_picture_and_the_text_board() -> None:
    game, board = finished()
    hostile = "</svg><script>&amp;'\""
    game["players"][1]["name"] = hostile
    root = parse(render_board("svg", game, board))
    assert not list(root.iter(f"{SVG}script"))
    assert hostile in "".join(root.itertext())
    assert hostile in render_board("txt", game, board)


def test_targets_are_links_only_where_given() -> None:
    game, _ = mid_game()
    targets = {"reserve": "/g1?piece=reserve", "a3": "/g1?piece=a3", "b3": "/g1?piece=b3"}
    root = parse(render_board("svg", game, Board(interactive=True, targets=targets)))
    assert set(links(root)) == set(targets.values())
    assert all(label and "_" not in label for label in links(root).values())
    assert not links(parse(render_board("svg", game, Board(interactive=False, targets=targets))))


def test_facings_are_arrows_around_the_chosen_destination() -> None:
    game, _ = mid_game()
    targets = {"N": "/g1?facing=N", "E": "/g1?facing=E", "W": "/g1?facing=W"}
    board = Board(interactive=True, targets=targets, chosen=["a3", "a4"])
    root = parse(render_board("svg", game, board))
    assert links(root) == {
        "/g1?facing=N": "face north",
        "/g1?facing=E": "face east",
        "/g1?facing=W": "face west",
    }
    assert marked(root, "chosen") == {"a3"}


def test_last_move_and_pushed_line_are_marked() -> None:
    game, board = mid_game()
    root = parse(render_board("svg", game, board))
    assert marked(root, "last") == {"b2", "b3"}
    assert marked(root, "pushed") == {"b4", "b5"}
    assert not marked(root, "winner")


def test_the_winning_push_is_marked_on_the_finished_board() -> None:
    game, board = finished()
    root = parse(render_board("svg", game, board))
    assert marked(root, "winner") == {game["result"]["winning_animal"]} == {"d2"}
    assert len([e for e in root.iter() if e.get("class") == "winning-rock"]) == 1


# -- the text board -------------------------------------------------------------------
def test_text_board_fits_72_columns_and_shows_every_piece() -> None:
    for state in random_games(4) + [finished()[0]["state"]]:
        game = game_object(state) if "outcome" in state else finished()[0]
        text = render_board("txt", game, Board(last=frozenset({"a1", "move"})))
        assert max(len(line) for line in text.splitlines()) <= 72
        assert text.count("ROCK") == sum(
            p["kind"] == "rock" for p in game["state"]["board"].values()
        )
        assert "{" not in text and "None" not in text


def test_text_board_fits_72_columns_with_the_longest_names() -> None:
    game, board = mid_game()
    for player in game["players"]:
        player["name"] = "W" * 64
    assert max(len(line) for line in render_board("txt", game, board).splitlines()) <= 72


def test_text_board_marks_the_winner_and_the_rock_that_left() -> None:
    text = render_board("txt", *finished())
    assert "*RHI>*" in text
    assert "Pushed off the board to the east: the rock from e2." in text


# -- screenshots ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def page_html(tmp_path_factory: pytest.TempPathFactory):
    """A function turning a board fragment into a whole page in the site's layout."""
    app = create_app({"TURNPOST_DB": str(tmp_path_factory.mktemp("db") / "t.db"), "TESTING": True})

    def wrap(fragment: str) -> str:
        with app.test_request_context():
            return render_template_string(
                '{% extends "base.html" %}{% block main %}<h1>Siam</h1>'
                "{{ fragment | safe }}{% endblock %}",
                fragment=fragment,
            )

    return wrap


@pytest.mark.parametrize("position", [start, mid_game, finished], ids=lambda f: f.__name__)
@pytest.mark.parametrize("size", SIZES)
def test_screenshots_fill_the_width_without_sideways_scrolling(
    browser: Browser, screenshots: Path, page_html, position, size: str
) -> None:
    game, board = position()
    context = browser.new_context(viewport=SIZES[size])
    try:
        page = context.new_page()
        page.set_content(page_html(render_board("html", game, board)))
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= SIZES[size]["width"]
        picture = page.locator("svg.board").bounding_box()
        assert picture["width"] >= min(SIZES[size]["width"] - 40, 500)
        folder = screenshots / "siam"
        folder.mkdir(exist_ok=True)
        page.screenshot(path=str(folder / f"{position.__name__}-{size}.png"), full_page=True)
    finally:
        context.close()


def test_the_choices_are_named_in_the_language_asked() -> None:
    game, _ = mid_game()
    board = Board(interactive=True, targets={d: f"#facing-{d}" for d in "NSW"}, chosen=["d5", "d4"])
    english = links(parse(render_board("svg", game, board)))
    german = links(parse(render_board("svg", game, board, "de")))
    assert english == {
        "#facing-N": "face north",
        "#facing-S": "face south",
        "#facing-W": "face west",
    }
    assert german == {
        "#facing-N": "nach Norden blicken",
        "#facing-S": "nach Süden blicken",
        "#facing-W": "nach Westen blicken",
    }


def test_screenshot_of_choosing_a_facing(browser: Browser, screenshots: Path, page_html) -> None:
    game, _ = mid_game()
    targets = {d: f"#facing-{d}" for d in "NSW"}
    board = Board(interactive=True, targets=targets, chosen=["d5", "d4"])
    context = browser.new_context(viewport=SIZES["phone"])
    try:
        page = context.new_page()
        page.set_content(page_html(render_board("html", game, board)))
        labels = []
        for _ in range(9):  # the skip link, the site's links, the language switch, the board's
            page.keyboard.press("Tab")
            labels.append(page.evaluate("document.activeElement.getAttribute('aria-label')"))
        assert [label for label in labels if label][:3] == ["face north", "face south", "face west"]
        (screenshots / "siam").mkdir(exist_ok=True)
        page.screenshot(path=str(screenshots / "siam" / "facing-phone.png"), full_page=True)
    finally:
        context.close()


# -- clicks -----------------------------------------------------------------------------
EDGE = [f + r for f in "abcde" for r in "12345" if f in "ae" or r in "15"]


def clicked(page, x: float, y: float) -> str:
    """What a real mouse click at ``(x, y)`` follows: the link's ``#fragment``, or ``""``."""
    page.evaluate("history.replaceState(null, '', '#')")
    page.mouse.click(x, y)
    return page.evaluate("location.hash")


def centre(box: dict[str, float]) -> tuple[float, float]:
    """The centre of a bounding box."""
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


@pytest.mark.parametrize("size", SIZES)
def test_a_click_at_the_centre_of_every_facing_arrow_on_every_edge_square_picks_it(
    browser: Browser, page_html, size: str
) -> None:
    game, _ = start()
    context = browser.new_context(viewport=SIZES[size])
    try:
        page = context.new_page()
        for square in EDGE:
            targets = {d: f"#facing-{d}" for d in "NESW"} | {"reserve": "#reserve"}
            board = Board(interactive=True, targets=targets, chosen=["reserve", square])
            page.set_content(page_html(render_board("html", game, board)))
            for direction, word in zip("NESW", ("north", "east", "south", "west"), strict=True):
                drawn = 'circle:not([fill="transparent"])'  # not its wider tap area
                arrow = page.locator(f'a[aria-label="face {word}"] {drawn}')
                arrow.scroll_into_view_if_needed()
                x, y = centre(arrow.bounding_box())
                assert clicked(page, x, y) == f"#facing-{direction}", (square, direction)
    finally:
        context.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_click_at_the_centre_of_every_piece_picks_it(
    browser: Browser, page_html, size: str
) -> None:
    game, board = mid_game()
    pieces = game["state"]["board"]
    targets = {square: f"#piece-{square}" for square in pieces}
    context = browser.new_context(viewport=SIZES[size])
    try:
        page = context.new_page()
        page.set_content(
            page_html(
                render_board(
                    "html", game, Board(interactive=True, targets=targets, last=board.last)
                )
            )
        )
        for square in pieces:
            piece = page.locator(f'g.piece[data-square="{square}"]')
            piece.scroll_into_view_if_needed()
            x, y = centre(piece.bounding_box())
            assert clicked(page, x, y) == f"#piece-{square}", square
    finally:
        context.close()


def test_the_crosses_show_only_while_the_cross_rule_holds() -> None:
    state = SIAM.setup(2, SIAM.options({}), 1)
    notations = ("enter a1 N", "enter e5 S", "move a1 a2 N", "enter b5 E", "move a2 a3 N")
    for ply, notation in enumerate(notations):
        root = parse(render_board("svg", game_object(state)))
        legend = render_board("html", game_object(state))
        holds = ply < 4
        assert marked(root, "cross") == ({"c1", "c5"} if holds else set()), ply
        assert ("Cross rule" in legend) is holds and (f"{4 - ply} more" in legend) is holds
        state, _ = play(state, notation)
    off = SIAM.setup(2, SIAM.options({"cross_rule": False}), 1)
    assert not marked(parse(render_board("svg", game_object(off))), "cross")
    assert "Cross rule" not in render_board("html", game_object(off))
