"""King of Siam's board pictures and text board, rendered with ``server.boards.render_board``:
links only where targets are given, a standalone SVG, a 72-column text board, and
screenshots at 1280x900 and 390x844 of a start, a mid-game and a finished position (saved
under ``test-output/screenshots/king-of-siam/`` for people to look at)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from flask import render_template

from engines.king_of_siam import KingOfSiamEngine
from engines.king_of_siam.board import MAPS
from server.boards import Board, last_touched, render_board
from tests.engines.test_king_of_siam_words import NAMES, random_states

ENGINE = KingOfSiamEngine()
SVG = "{http://www.w3.org/2000/svg}"
#: Identifiers no player should read: snake_case names, province keys, seat numbers.
IDENTIFIER = re.compile(
    "|".join(
        [
            r"\b[a-z]+_[a-z]+\b",
            r"\bseat\b",
            *(p for p in MAPS["siam-1874"]["provinces"] if "-" in p),
        ]
    )
)
#: A page like the game page around the board (the same body rules as ``base.html``).
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>King of Siam</title>
<style>body {{ font-family: system-ui, sans-serif; margin: 0 auto; max-width: 60rem;
padding: 1rem; color: #222; line-height: 1.4; }}</style></head>
<body><h1>King of Siam</h1><p>{prompt}</p>{board}</body></html>"""


def game_of(state: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The game object the API would answer for ``seat`` (the parts boards read)."""
    players = len(state["players"])
    return {
        "engine": ENGINE.id,
        "players": [{"seat": s, "name": NAMES[s]} for s in range(players)],
        "you": seat,
        "state": ENGINE.view(state, seat),
        "result": ENGINE.result(state),
        "to_move": ENGINE.to_move(state),
    }


@pytest.fixture(scope="module")
def games() -> list[list[dict[str, Any]]]:
    """Every state of three random games, with 2, 3 and 4 players."""
    return [random_states(players, seed) for players, seed in ((2, 11), (3, 12), (4, 13))]


# -- the board templates --------------------------------------------------------------------
def picture(game: dict[str, Any], board: Board | None = None) -> ElementTree.Element:
    """The standalone SVG, parsed as XML (it must be a well-formed document of its own)."""
    return ElementTree.fromstring(render_board("svg", game, board))


def test_svg_is_a_standalone_document_without_styles_scripts_or_outside_files(
    games: list[list[dict]],
) -> None:
    for states in games:
        for state in (states[0], states[len(states) // 2], states[-1]):
            root = picture(game_of(state, 0))
            assert root.tag == f"{SVG}svg" and root.get("viewBox")
            tags = {element.tag for element in root.iter()}
            assert not tags & {f"{SVG}script", f"{SVG}style", f"{SVG}image", f"{SVG}foreignObject"}
            for element in root.iter():
                assert "style" not in element.attrib
                href = element.get("href") or element.get("{http://www.w3.org/1999/xlink}href")
                assert href is None or href.startswith("#"), href
                fill = element.get("fill", "")
                assert not fill.startswith("url(") or fill.startswith("url(#"), fill


def links(markup: str) -> dict[str, str]:
    """``data-key`` -> ``href`` of every link in ``markup`` (HTML or SVG)."""
    found = re.findall(r'<a href="([^"]*)"[^>]*data-key="([^"]*)"', markup)
    assert len(found) == markup.count("<a "), "every link names its key"
    return {key: href for href, key in found}


def test_targets_are_links_only_where_given() -> None:
    state = ENGINE.setup(3, {}, 5)
    seat = ENGINE.to_move(state)[0]
    game = game_of(state, seat)
    cards = {"khon_thai": "/pick?card=khon_thai", "pass": "/pick?card=pass"}
    html = render_board("html", game, Board(interactive=True, targets=cards))
    assert links(html) == {"khon_thai": "/pick?card=khon_thai"}
    provinces = {"korat": "/k", "kedah": "/d"}
    html = render_board(
        "html", game, Board(interactive=True, targets=provinces, chosen=["maharacha"])
    )
    assert set(links(html).items()) == {("korat", "/k"), ("kedah", "/d")}
    assert html.count('href="/k"') == 2, "the province and its struggle tile"
    assert links(render_board("html", game, Board(interactive=False, targets=provinces))) == {}
    assert "<a " not in render_board("svg", game, Board())


def test_the_followers_of_the_chosen_province_are_links_for_a_faction_answer() -> None:
    state = ENGINE.setup(3, {}, 5)
    seat = ENGINE.to_move(state)[0]
    province = next(p for p, e in state["provinces"].items() if e["followers"]["lao"])
    game = game_of(state, seat)
    board = Board(
        interactive=True, targets={"lao": "/lao", "rama": "/rama"}, chosen=["take", province]
    )
    shown = links(render_board("html", game, board))
    held = state["provinces"][province]["followers"]
    assert shown == {f: f"/{f}" for f in ("lao", "rama") if held[f]}


def test_the_last_move_and_the_chosen_provinces_are_marked() -> None:
    state = ENGINE.setup(3, {}, 5)
    game = game_of(state, 0)
    plain = render_board("svg", game, Board())
    marked = render_board(
        "svg", game, Board(last=last_touched({"province": "korat"}), chosen=["kedah"])
    )
    assert marked.count('stroke-dasharray="8 5"') == plain.count('stroke-dasharray="8 5"') + 1
    assert 'fill-opacity="0.3"' in marked and 'fill-opacity="0.3"' not in plain


def text_boards(games: list[list[dict]]) -> list[str]:
    return [
        render_board("txt", game_of(state, seat))
        for states in games
        for state in (states[0], states[len(states) // 2], states[-1])
        for seat in (None, 0)
    ]


def test_text_board_fits_72_columns_and_speaks_words(games: list[list[dict]]) -> None:
    for text in text_boards(games):
        assert max(len(line) for line in text.splitlines()) <= 72
        assert not IDENTIFIER.search(text), IDENTIFIER.search(text)
        assert "{" not in text and "NAKHON SI THAMMARAT" in text


def test_text_board_shows_only_the_readers_own_cards() -> None:
    state = ENGINE.setup(3, {}, 5)
    assert "Your cards: Maharacha, Khon Thai, Khon Thai, 1 vs 1" in render_board(
        "txt", game_of(state, 1)
    )
    assert "Your cards" not in render_board("txt", game_of(state, None))


def test_the_end_shows_who_rules_siam_and_the_winners(games: list[list[dict]]) -> None:
    for states in games:
        end = states[-1]
        result = ENGINE.result(end)
        svg = render_board("svg", game_of(end, None))
        ruler = "Siam is a British colony" if result["ruling"] == "british" else " rule Siam"
        assert ruler in svg and svg.count(">wins</text>") == len(result["winners"])
        assert ruler in render_board("txt", game_of(end, None))


# -- what a player sees ---------------------------------------------------------------------
def first_choice(state: dict[str, Any], seat: int, picks: int = 0) -> Board:
    """The board as the guided form asks its next question, after ``picks`` answers (each
    time the answer most moves share): targets for every answer, the answers so far."""
    moves = ENGINE.legal_moves(state, seat)
    chosen: list[str] = []
    for question in ENGINE.questions(state, seat):
        answers = [question.answer(move) for move in moves]
        if len(set(answers)) < 2:
            continue
        if len(chosen) == picks:
            targets = {answer: f"/choose?{question.key}={answer}" for answer in set(answers)}
            return Board(interactive=True, targets=targets, chosen=chosen)
        chosen.append(max(sorted(set(answers)), key=answers.count))
        moves = [move for move in moves if question.answer(move) == chosen[-1]]
    return Board(interactive=True, chosen=chosen)


def positions(games: list[list[dict[str, Any]]]) -> dict[str, tuple[dict[str, Any], int, Board]]:
    """State, viewing seat and board of a start (3 players, choosing a card), a mid-game
    (4 players, a take: the province chosen, its followers to pick) and an end (3 players)."""
    start, end = games[1][0], games[1][-1]
    index = next(
        i
        for i, s in enumerate(games[2])
        if i > 30 and s["pending"] and s["pending"]["kind"] == "take"
    )
    middle = games[2][index]
    seat = ENGINE.to_move(middle)[0]
    asked = first_choice(middle, seat, picks=1)
    last = last_touched(last_public_move(games[2], index))
    return {
        "start": (start, ENGINE.to_move(start)[0], first_choice(start, ENGINE.to_move(start)[0])),
        "mid": (middle, seat, Board(True, asked.targets, asked.chosen, last)),
        "end": (end, 0, Board(last=last_touched(last_public_move(games[1], len(games[1]) - 1)))),
    }


def last_public_move(states: list[dict[str, Any]], index: int) -> dict[str, Any]:
    """The public move that led to ``states[index]``, found among the listed moves."""
    before, after = states[index - 1], states[index]
    seat = ENGINE.to_move(before)[0]
    move = next(
        m for m in ENGINE.legal_moves(before, seat) if ENGINE.apply(before, seat, m) == after
    )
    return ENGINE.public_move(before, after, seat, move)


@pytest.mark.parametrize("width, height", [(1280, 900), (390, 844)])
def test_screenshots_of_a_start_a_mid_game_and_an_end(
    browser: Any, screenshots: Path, games: list[list[dict[str, Any]]], width: int, height: int
) -> None:
    folder = screenshots / ENGINE.id
    folder.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        for name, (state, seat, board) in positions(games).items():
            game = game_of(state, seat)
            prompt = f"Your turn: {ENGINE.prompt(state, seat)}" if game["to_move"] else ""
            page.set_content(PAGE.format(prompt=prompt, board=render_board("html", game, board)))
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            assert page.locator(".kos-map svg").bounding_box()["width"] >= min(width - 40, 480)
            page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
            if width == 1280:
                page.set_content(render_board("svg", game, board))
                page.screenshot(path=str(folder / f"{name}-picture.png"), full_page=True)
    finally:
        page.close()


# -- the rules page -------------------------------------------------------------------------
def rules_page(app: Any) -> str:
    """``templates/rules/king-of-siam.html`` rendered as the pages render templates."""
    with app.test_request_context("/rules/king-of-siam"):
        return render_template(f"rules/{ENGINE.id}.html")


def test_rules_page_reads_on_a_phone(app: Any, browser: Any, screenshots: Path) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.set_content(rules_page(app))
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        words = page.evaluate(
            "() => { const main = document.querySelector('main').cloneNode(true);"
            " main.querySelectorAll('code, style').forEach((code) => code.remove());"
            " return main.textContent; }"
        )
        assert "Khon Thai" in words and not IDENTIFIER.search(words), IDENTIFIER.search(words)
        page.screenshot(path=str(screenshots / ENGINE.id / "rules-390.png"), full_page=True)
    finally:
        page.close()


def test_a_card_played_in_steps_is_on_the_table_until_it_is_done() -> None:
    state = ENGINE.setup(3, {}, 4)
    seat = ENGINE.to_move(state)[0]
    state = ENGINE.apply(state, seat, ENGINE.parse("two_vs_one rama lao korat", state))
    game = game_of(state, seat)
    svg = render_board("svg", game)
    assert ">playing</text>" in svg and svg.count('r="9" fill="#1864ab"') == 2
    assert 'class="kos-card chosen"' in render_board("html", game)
    assert "Alfred is playing 2 vs 1" in render_board("txt", game).replace(NAMES[seat], "Alfred")
