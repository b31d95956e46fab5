"""A whole Siam game and a King of Siam turn played by clicks in each language (issue 24).

Each seat reads its own language (set for its seat at creation) in its own browser; after
every move, the words each page shows (``innerText``: what the script writes included) and
the board's accessible names hold no English sentence of the catalog, and the status line
says the turn in the page's language. English is the control: there the same check finds
the catalog's words. Every page is saved under ``test-output/screenshots/languages/`` for a
reader of that language to look at.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from engines import ENGINES
from tests.server.test_api import WINNING_LINE
from tests.server.test_i18n import english_words
from tests.support import BackgroundServer
from tests.web.table import (
    DESKTOP,
    SIAM,
    UNTHROTTLED,
    Mirror,
    click_move,
    click_turn,
    open_seat,
    screenshot,
    seat_link,
)

LIVE_SERVER_ENVIRONMENT = UNTHROTTLED
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots" / "languages"
NAMES = ["Ann", "Bob", "Cleo"]
#: The start of the status line of the seat to move, per language.
YOUR_TURN = {
    "en": "Your turn:",
    "nl": "Jouw beurt:",
    "de": "Du bist am Zug:",
    "fr": "À vous de jouer",
}
#: The status line at the end of the Siam game (Ann pushes the rock off).
ANN_WINS = {"en": "Ann wins", "nl": "Ann wint", "de": "Ann gewinnt", "fr": "Ann gagne"}
#: The board's choices as a screen reader names them.
NAMES_ON_BOARD = """() => [...document.querySelectorAll('[aria-label]')]
  .map(element => element.getAttribute('aria-label'))"""


def english_of(language: str) -> set[str]:
    """The catalog's English sentences a page in ``language`` must not show (English: all of
    them, the control)."""
    return (
        english_words("nl") | english_words("de") if language == "en" else english_words(language)
    )


def english_shown(page: Page, english: set[str]) -> list[str]:
    """The catalog's English sentences ``page`` shows: a whole line of its text or of an
    accessible name, or a sentence of a few words inside one."""
    lines = [
        " ".join(line.split()) for line in page.evaluate("document.body.innerText").split("\n")
    ]
    lines += [" ".join(name.split()) for name in page.evaluate(NAMES_ON_BOARD)]
    long = [text for text in english if len(text) > 14 and " " in text]
    return sorted(
        {line for line in lines if line in english}
        | {text for text in long for line in lines if text in line}
    )


def create(server: BackgroundServer, engine_id: str, players: int, language: str) -> dict:
    """A game of ``engine_id`` whose seats all read ``language``."""
    seats = [{"name": name, "language": language} for name in NAMES[:players]]
    body = {"engine": engine_id, "players": seats, "seed": 7}
    answer = requests.post(server.api("/games"), json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()


@pytest.mark.parametrize("language", ["en", "nl", "de", "fr"])
def test_a_whole_siam_game_by_clicks_leaves_no_english_in_each_language(
    live_server: BackgroundServer, browser: Browser, language: str
) -> None:
    english = english_of(language)
    game = create(live_server, "siam", 2, language)
    mirror = Mirror(SIAM, 2, seed=7)
    contexts = [browser.new_context(viewport=DESKTOP, locale=language) for _ in range(2)]
    try:
        pages = [
            open_seat(context, seat_link(live_server, game, seat))
            for seat, context in enumerate(contexts)
        ]
        found: list[str] = []
        for number, notation in enumerate(WINNING_LINE, start=1):
            seat = mirror.seat()
            page = pages[seat]
            page.reload()
            expect(page.locator("html")).to_have_attribute("lang", language)
            expect(page.locator("#status")).to_contain_text(YOUR_TURN[language])
            found += english_shown(page, english)
            if number in (1, 6):
                screenshot(page, SCREENSHOTS / language, f"siam-move-{number}")
            move = SIAM.parse(notation, mirror.state)
            click_move(page, SIAM, mirror.state, seat, move)
            found += english_shown(page, english)
            mirror.play(move)
        for page in pages:
            page.reload()
            expect(page.locator("#status")).to_contain_text(ANN_WINS[language])
            found += english_shown(page, english)
        screenshot(pages[0], SCREENSHOTS / language, "siam-over")
    finally:
        for context in contexts:
            context.close()
    if language == "en":
        assert found, "the check found no English on English pages: it cannot fail"
    else:
        assert not found, sorted(set(found))
    log = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [entry["notation"] for entry in log] == list(WINNING_LINE)


@pytest.mark.parametrize("language", ["nl", "de", "fr"])
def test_a_king_of_siam_turn_by_clicks_leaves_no_english_in_each_language(
    live_server: BackgroundServer, browser: Browser, language: str
) -> None:
    engine = ENGINES["king-of-siam"]
    english = english_of(language)
    game = create(live_server, "king-of-siam", 3, language)
    mirror = Mirror(engine, 3, seed=7)
    seat = mirror.seat()
    [steps, *_] = mirror.random_turns(random.Random(3))
    context = browser.new_context(viewport=DESKTOP, locale=language)
    try:
        page = open_seat(context, seat_link(live_server, game, seat))
        expect(page.locator("#status")).to_contain_text(YOUR_TURN[language])
        found = english_shown(page, english)
        screenshot(page, SCREENSHOTS / language, "king-of-siam-turn")
        click_turn(page, engine, mirror.state, seat, steps)
        found += english_shown(page, english)
        screenshot(page, SCREENSHOTS / language, "king-of-siam-played")
        words = page.evaluate("document.body.innerText")
    finally:
        context.close()
    assert not found, sorted(set(found))
    said = re.sub(r"\s+", " ", words)
    assert NAMES[seat] in said
    log = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [entry["notation"] for entry in log] == [
        engine.format(engine.join_turn(mirror.state, seat, steps))
    ]
