"""The Bangkok Klongs board templates: the SVG picture, the page fragment and the text board.

Rendered with :func:`server.boards.render_board` from real games, checked for what is
clickable, for standalone SVG, for the 72-column text board and for what the page says; the
screenshots of a start, a mid-game and a finished position go to
``test-output/screenshots/bangkok-klongs/``.
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from flask import render_template
from playwright.sync_api import Browser

from engines.bangkok_klongs import BangkokKlongsEngine
from engines.bangkok_klongs.words import landing_name
from engines.phrases import english
from server.boards import Board, last_touched, render_board

ENGINE = BangkokKlongsEngine()
NAMES = ["Ann", "Bob", "Cleo", "Dirk"]
SVG = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parents[2]
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
#: Answers that are elements of the picture (clickable there); any other answer is a button.
BOARD_KEY = re.compile(r"^(t\d+|r\d+c\d+|L\d+-\d+)$")


# -- positions from real games ---------------------------------------------------------


def played(
    players: int, seed: int, stop: Callable[[dict, int], bool], tactical: bool = False
) -> tuple[dict, Any]:
    """A game of ``players`` played at random from ``seed`` until ``stop(state, moves)`` or
    its end, preferring new merchants so that the market fills; the state and the last
    public move."""
    state = ENGINE.setup(players, {"tactical": tactical, "board": "standard"}, seed)
    rnd, last, count = random.Random(seed), None, 0
    while ENGINE.result(state) is None and not stop(state, count):
        (seat,) = ENGINE.to_move(state)
        listed = ENGINE.legal_moves(state, seat)
        merchants = [m for m in listed if m.get("merchant") == "new"]
        move = rnd.choice(merchants if merchants and rnd.random() < 0.7 else listed)
        before, state = state, ENGINE.apply(state, seat, move)
        last, count = ENGINE.public_move(before, state, seat, move), count + 1
    return state, last


def at_start(state: dict, moves: int) -> bool:
    """The first position."""
    return True


def to_the_end(state: dict, moves: int) -> bool:
    """Never stop before the end."""
    return False


def turn_after(moves: int) -> Callable[[dict, int], bool]:
    """The first turn start after ``moves`` moves (no market day, nothing pending)."""
    return lambda state, count: count >= moves and not state["market"] and not state["pending"]


def market_day(state: dict, moves: int) -> bool:
    """A market day awaits a decision."""
    return state["market"] is not None


def game_object(state: dict, seat: int | None) -> dict[str, Any]:
    """The game object as the API answers it, for ``seat``'s view."""
    players = len(state["players"])
    result = ENGINE.result(state)
    return {
        "id": "k1",
        "engine": ENGINE.id,
        "status": "finished" if result else "active",
        "seq": 7,
        "to_move": ENGINE.to_move(state),
        "players": [{"seat": s, "name": NAMES[s]} for s in range(players)],
        "you": seat,
        "result": result,
        "deadline": None,
        "options": dict(state["options"]),
        "state": ENGINE.view(state, seat),
    }


def guided(state: dict, seat: int, picks: list[str]) -> Board:
    """The board as the guided form would draw it after the answers ``picks``: the answers of
    the next question on which the remaining moves differ are the targets."""
    moves = ENGINE.legal_moves(state, seat)
    questions = ENGINE.questions(state, seat)
    chosen = list(picks)
    for question in questions:
        answers = {question.answer(move) for move in moves}
        if len(answers) < 2:
            continue
        if picks:
            value = picks.pop(0)
            moves = [m for m in moves if question.answer(m) == value]
            continue
        targets = {a: f"/games/k1?pick.{question.key}={a}" for a in sorted(answers)}
        return Board(interactive=True, targets=targets, chosen=chosen)
    return Board(interactive=True, chosen=chosen)


# -- what the templates produce -------------------------------------------------------------


class Links(HTMLParser):
    """The ``href`` of every link and the visible text of an HTML or SVG document."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.text: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """Collect links; skip the text of styles and titles (tooltips)."""
        if tag == "a":
            self.hrefs.append(dict(attrs)["href"] or "")
        if tag in ("style", "title"):
            self.hidden += 1

    def handle_endtag(self, tag: str) -> None:
        """Leave a style or title."""
        if tag in ("style", "title"):
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        """Visible text."""
        if not self.hidden:
            self.text.append(data)


def links(markup: str) -> Links:
    """The links and text of ``markup``."""
    parser = Links()
    parser.feed(markup)
    return parser


def test_svg_is_a_standalone_xml_document() -> None:
    state, last = played(3, 5, turn_after(60))
    svg = render_board("svg", game_object(state, 0), Board(last=last_touched(last)))
    root = ElementTree.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("viewBox")
    assert not re.search(r"<(script|image|foreignObject)\b|xlink:href|url\(http", svg)
    assert len(root.findall(f".//{SVG}g[@data-field]")) == 80
    assert len(root.findall(f".//{SVG}g[@data-landing]")) == 43
    boats = [g for g in root.findall(f".//{SVG}g[@data-field]") if g.find(f".//{SVG}g") is not None]
    assert len(boats) == len(state["board"])


def test_targets_are_links_and_nothing_else_is() -> None:
    state, _ = played(3, 5, turn_after(60))
    seat = ENGINE.to_move(state)[0]
    tile = ENGINE.view(state, seat)["hand"][0]
    for picks in ([], [tile]):
        board = guided(state, seat, list(picks))
        assert board.targets
        for kind in ("svg", "html"):
            found = links(render_board(kind, game_object(state, seat), board)).hrefs
            wanted = [
                url
                for key, url in board.targets.items()
                if BOARD_KEY.match(key) and (kind == "html" or not key.startswith("t"))
            ]
            assert sorted(found) == sorted(wanted), kind


def test_market_day_landing_places_are_the_targets() -> None:
    state, _ = played(4, 8, market_day)
    seat = ENGINE.to_move(state)[0]
    board = guided(state, seat, [])
    assert {key[0] for key in board.targets} <= {"L", "d"} and "decline" in board.targets
    root = ElementTree.fromstring(render_board("svg", game_object(state, seat), board))
    landings = [key for key in board.targets if key.startswith("L")]
    assert landings
    for key in landings:
        landing = root.find(f".//{SVG}g[@data-landing='{key}']")
        link = landing.find(f"{SVG}a")
        assert link.get("href") == board.targets[key]
        assert link.get("aria-label") == english(landing_name(key))
    html = render_board("html", game_object(state, seat), board)
    assert "market day:" in html


def test_nothing_is_clickable_when_not_interactive() -> None:
    state, _ = played(2, 3, at_start)
    board = guided(state, 0, [])
    quiet = Board(interactive=False, targets=board.targets)
    for kind in ("svg", "html"):
        assert links(render_board(kind, game_object(state, 0), quiet)).hrefs == []


def test_text_board_fits_72_columns_and_shows_the_market() -> None:
    games = ((2, 3, at_start), (3, 5, turn_after(60)), (4, 8, market_day), (2, 9, to_the_end))
    for players, seed, stop in games:
        state, last = played(players, seed, stop, tactical=players == 4)
        text = render_board("txt", game_object(state, 0), Board(last=last_touched(last)))
        lines = text.splitlines()
        assert max(len(line) for line in lines) <= 72, max(lines, key=len)
        board_lines = [line for line in lines if re.match(r" \d \|", line)]
        assert len(board_lines) == 8
        shown = sum(
            len(re.findall(r"[A-Z][a-z]{2}\d[A-Zn.]|THIEF|GUARD|COOK", line))
            for line in board_lines
        )
        assert shown == len(state["board"])
        words = text.split("Your hand")[0]
        assert not re.search(r"\bt\d+\b|[{}]|\bseat\b|\br\d|\bc\d|\bL\d", words)
        assert "Luk Phat track:" in text and f"Draw pile: {len(state['draw_pile'])} boat" in text


def test_text_board_hand_only_for_its_seat() -> None:
    state, _ = played(2, 3, turn_after(10))
    public = render_board("txt", game_object(state, None))
    own = render_board("txt", game_object(state, 1))
    assert "Your hand" not in public and "Your hand" in own
    for tile in ENGINE.view(state, 1)["hand"]:
        assert re.search(rf"^- {tile} +(the|an?) ", own, re.M)


def test_page_words_have_no_identifiers_and_names_are_escaped() -> None:
    state, last = played(3, 5, turn_after(60))
    game = game_object(state, 0)
    game["players"][1]["name"] = "<b>Bob</b>"
    html = render_board("html", game, Board(last=last_touched(last)))
    assert "<b>Bob</b>" not in html and "&lt;b&gt;Bob&lt;/b&gt;" in html
    text = " ".join(links(html).text)
    assert not re.search(r"\bt\d+\b|\b[a-z]+_[a-z]+\b|\bseat\b|None|\{", text), text


# -- screenshots ------------------------------------------------------------------------------


def page(fragment: str) -> str:
    """A page around a board fragment, styled like the site's pages."""
    base = (ROOT / "templates" / "base.html").read_text()
    style = re.search(r"<style>.*?</style>", base, re.S)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"{style.group(0) if style else ''}</head><body><main>{fragment}</main></body></html>"
    )


def positions() -> dict[str, tuple[dict, int | None, Board]]:
    """Start (a boat to choose), mid-game (the boat chosen: fields to choose), a market day
    (landing places to choose) and the end."""
    start, _ = played(3, 5, at_start)
    mid, mid_last = played(3, 5, turn_after(60))
    mid_seat = ENGINE.to_move(mid)[0]
    mid_board = guided(mid, mid_seat, [ENGINE.view(mid, mid_seat)["hand"][-1]])
    market, market_last = played(4, 8, market_day)
    market_seat = ENGINE.to_move(market)[0]
    end, end_last = played(2, 9, to_the_end)
    return {
        "start": (start, 0, guided(start, 0, [])),
        "mid": (mid, mid_seat, replace(mid_board, last=last_touched(mid_last))),
        "market": (
            market,
            market_seat,
            replace(guided(market, market_seat, []), last=last_touched(market_last)),
        ),
        "finished": (end, 0, Board(last=last_touched(end_last))),
    }


@pytest.mark.parametrize("size", list(SIZES))
def test_screenshots_of_start_mid_game_market_day_and_end(
    browser: Browser, screenshots: Path, size: str
) -> None:
    folder = screenshots / ENGINE.id
    folder.mkdir(parents=True, exist_ok=True)
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        view = context.new_page()
        for name, (state, seat, board) in positions().items():
            view.set_content(page(render_board("html", game_object(state, seat), board)))
            assert view.evaluate("document.documentElement.scrollWidth") <= width, name
            drawn = view.locator("svg.klongs-board").bounding_box()
            assert drawn and drawn["width"] >= min(width, 736) - 40, name
            view.screenshot(path=str(folder / f"{name}-{width}x{height}.png"), full_page=True)
            clickable = view.locator("a.target, a.klongs-tile")
            assert clickable.count() == sum(1 for key in board.targets if BOARD_KEY.match(key))
    finally:
        context.close()


def test_the_mail_picture_rasterises_like_the_page(browser: Browser, screenshots: Path) -> None:
    state, last = played(3, 5, turn_after(60))
    svg = render_board("svg", game_object(state, 1), Board(last=last_touched(last)))
    root = ElementTree.fromstring(svg)
    width, height = int(root.get("width")), int(root.get("height"))
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        view = context.new_page()
        view.set_content(f"<body style='margin:0'>{svg}</body>")
        folder = screenshots / ENGINE.id
        folder.mkdir(parents=True, exist_ok=True)
        view.screenshot(path=str(folder / "mail-picture.png"))
        assert view.locator("text=Your hand").count() == 1
    finally:
        context.close()


def test_rules_page_reads_on_a_phone(browser: Browser, screenshots: Path, app: Any) -> None:
    with app.test_request_context():
        rules = render_template("rules/bangkok-klongs.html")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        view = context.new_page()
        view.set_content(rules)
        assert view.evaluate("document.documentElement.scrollWidth") <= 390
        view.screenshot(path=str(screenshots / ENGINE.id / "rules-390x844.png"), full_page=True)
    finally:
        context.close()
