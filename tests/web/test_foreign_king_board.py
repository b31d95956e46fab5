"""The Foreign King's board templates: a standalone SVG, links only where targets are given,
highlights, the 72-column text board, and screenshots of a start, a mid-game and a finished
game at 1280x900 and 390x844 (``test-output/screenshots/foreign-king/``)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from engines.foreign_king.board import PROVINCES, table_actions
from server.boards import Board, last_touched, render_board
from tests.engines.test_foreign_king_support import (
    ENGINE,
    MIDGAME,
    State,
    finished_game,
    game_object,
    play,
    position,
    with_citizens,
)

SVG = "{http://www.w3.org/2000/svg}"
PAGE = """<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body {{ font-family: system-ui, sans-serif; margin: 0 auto; max-width: 60rem;
padding: 1rem; line-height: 1.4; }} .board {{ display: block; width: 100%; max-width: 40rem;
height: auto; }}</style></head><body>{body}</body></html>"""


def midgame() -> State:
    """Round 4 of a 4-player game, Dan to play."""
    return ENGINE.from_position(4, {}, 7, MIDGAME)


def games() -> dict[str, tuple[State, Board]]:
    """A start, a mid-game and a finished game of each player count, with their last moves."""
    found: dict[str, tuple[State, Board]] = {"start-3": (ENGINE.setup(3, {}, 3), Board())}
    found["mid-4"] = (midgame(), Board(last=frozenset({"king", "namur"})))
    for players in (2, 3, 4):
        state, last = finished_game(players, players + 3)
        found[f"end-{players}"] = (state, Board(last=last_touched(last)))
    return found


def links(svg: str) -> dict[str, str]:
    """The links of a picture: each ``href`` with its ``aria-label``."""
    root = ET.fromstring(svg)
    return {a.get("href"): a.get("aria-label") for a in root.iter(f"{SVG}a")}


@pytest.mark.parametrize("name", sorted(games()))
def test_svg_is_a_standalone_document(name: str) -> None:
    state, board = games()[name]
    svg = render_board("svg", game_object(state), board)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and root.get("width") and root.get("height")
    assert not list(root.iter(f"{SVG}script")) and not list(root.iter(f"{SVG}image"))
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", svg)
    assert links(svg) == {}


def test_svg_links_only_the_targets_given_and_only_when_interactive() -> None:
    targets = {"liege": "/g?p=liege", "namur": "/g?p=namur", "parliament": "/g?p=parliament"}
    svg = render_board("svg", game_object(midgame(), 3), Board(interactive=True, targets=targets))
    assert links(svg) == {
        "/g?p=liege": "Liège",
        "/g?p=namur": "Namur",
        "/g?p=parliament": "Parliament, seat a citizen",
    }
    quiet = render_board("svg", game_object(midgame(), 3), Board(targets=targets))
    assert links(quiet) == {}


def board_keys(state: State, seat: int) -> set[str]:
    """Every answer of ``seat``'s questions that names a province, an action or a place."""
    return {
        value
        for question in ENGINE.questions(state, seat)
        for move in ENGINE.legal_moves(state, seat)
        if (value := question.answer(move)) is not None
        and (
            value in PROVINCES
            or value in table_actions(len(state["players"]))
            or value.startswith("factory-")
            or value in ("first", "second", "third", "fourth")
        )
    }


def first_answers(state: State, seat: int) -> set[str]:
    """The answers of the first question the guided form asks ``seat``."""
    moves = ENGINE.legal_moves(state, seat)
    for question in ENGINE.questions(state, seat):
        answers = {question.answer(move) for move in moves}
        if len(answers) > 1:
            return {answer for answer in answers if answer is not None}
    return set()


def decisions() -> dict[str, tuple[State, int]]:
    """States in which every kind of element is chosen on the board."""
    factories = [{"kind": "metal"}, {"kind": "textile", "active": False}, {"kind": "textile"}]
    no_majority = {"liege": {"citizens": {"0": 2, "1": 2}, "factories": factories}}
    deactivate = play(
        position(3, provinces=no_majority, king={"at": "namur"}, to_move=2), 2, "king liege"
    )
    turn_order = play(position(3, to_move=2), 2, "turn-order")
    moving = play(
        position(3, provinces=with_citizens(namur={"1": 3}), to_move=1), 1, "step namur liege"
    )
    return {
        "turn": (midgame(), 3),
        "deactivate": (deactivate, 2),
        "turn order": (turn_order, 2),
        "moving": (moving, 1),
    }


@pytest.mark.parametrize("name", sorted(decisions()))
def test_every_answer_naming_a_board_element_can_be_clicked(name: str) -> None:
    state, seat = decisions()[name]
    keys = board_keys(state, seat)
    assert keys
    targets = {key: f"/pick/{key}" for key in keys}
    board = Board(interactive=True, targets=targets)
    drawn = links(render_board("svg", game_object(state, seat), board))
    assert set(drawn) == set(targets.values())
    assert all(label and "_" not in label for label in drawn.values())


def test_last_move_and_the_kings_province_are_marked() -> None:
    board = Board(last=frozenset({"king", "namur"}))
    root = ET.fromstring(render_board("svg", game_object(midgame()), board))
    namur = root.find(f".//{SVG}g[@data-region='namur']")
    liege = root.find(f".//{SVG}g[@data-region='liege']")
    assert namur is not None and liege is not None
    assert len(namur.findall(f"{SVG}polygon")) == 2 and len(liege.findall(f"{SVG}polygon")) == 1
    king_space = root.find(f".//{SVG}g[@data-action='king']/{SVG}rect")
    coins_space = root.find(f".//{SVG}g[@data-action='take_coins']/{SVG}rect")
    assert king_space.get("fill") != coins_space.get("fill")


@pytest.mark.parametrize("name", sorted(games()))
def test_text_board_fits_72_columns_in_words(name: str) -> None:
    """In every language (German's "Nationalversammlung" heads the final scoring's longest
    line); the words checked are the English board's."""
    state, board = games()[name]
    for language in ("nl", "de", "fr"):
        lines = render_board("txt", game_object(state), board, language).splitlines()
        assert max(len(line) for line in lines) <= 72, (language, max(lines, key=len))
    text = render_board("txt", game_object(state), board)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 72
    assert "LIÈGE" in text and "WEST-" in text and "The King's track" in text
    assert not re.search(r"[a-z]+_[a-z]+|\bseat\b|[{}]", text)


def test_text_board_shows_citizens_factories_and_the_king() -> None:
    text = render_board("txt", game_object(midgame()), Board())
    assert "|A3 C2                  |" in text  # Namur: Ann 3, Cleo 2
    assert "|KING                   |" in text  # the King stands in Namur
    assert "mMT" in text  # Liège: an inactive metal, an active metal and textile factory
    assert "> D Dan" in text  # Dan is to play


def render_page(browser: Browser, html: str, size: dict[str, int], path: Path) -> dict[str, Any]:
    """Show ``html`` in a page of ``size``, save a screenshot, and measure the page."""
    page = browser.new_page(viewport=size)
    page.set_content(PAGE.format(body=html))
    page.screenshot(path=str(path), full_page=True)
    measured = page.evaluate(
        "({width: document.documentElement.scrollWidth,"
        " board: document.querySelector('svg.board').getBoundingClientRect().width})"
    )
    page.close()
    return measured


SIZES = {"1280x900": {"width": 1280, "height": 900}, "390x844": {"width": 390, "height": 844}}


@pytest.mark.parametrize("name", ["start-3", "mid-4", "end-2", "end-4", "choosing"])
def test_screenshots_fill_the_width_without_sideways_scrolling(
    browser: Browser, screenshots: Path, name: str
) -> None:
    if name == "choosing":
        state, seat = decisions()["moving"]
        targets = {key: f"#{key}" for key in first_answers(state, seat) & board_keys(state, seat)}
        board = Board(interactive=True, targets=targets, last=frozenset({"namur", "liege"}))
        game = game_object(state, seat)
    else:
        state, board = games()[name]
        game = game_object(state)
    folder = screenshots / "foreign-king"
    folder.mkdir(parents=True, exist_ok=True)
    html = render_board("html", game, board)
    for size_name, size in SIZES.items():
        measured = render_page(browser, html, size, folder / f"{name}-{size_name}.png")
        assert measured["width"] <= size["width"]
        assert measured["board"] >= min(size["width"] - 40, 600)
