"""Helpers of the browser tests: games set up over the API, seats held, moves clicked.

A :class:`Mirror` plays the same game in this process with the engine (same
seed, same moves), so a test knows the full state and can click through the
engine's questions exactly the answers of the move it wants, on the board
picture or on the buttons, as a player would.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, ElementHandle, Page, expect

from engines import ENGINES, Engine
from server.http.guide import WHICH_MOVE
from server.http.pages import HELD_SEPARATOR, seat_cookie, seats_cookie
from tests.server.test_api import WINNING_LINE
from tests.support import BackgroundServer

NAMES = ["Ann", "Bob", "Cleo", "Dan"]
SIAM = ENGINES["siam"]
#: The rate limits of one address and one token, off: whole games and page tours from one
#: address go over the limits a real table never reaches.
UNTHROTTLED = {"TURNPOST_RATELIMIT_IP": "99999/minute", "TURNPOST_RATELIMIT_TOKEN": "99999/minute"}
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
#: What an engine identifier looks like in page text (snake_case names, tile ids, seat numbers,
#: the old guided form's headings, Klongs' old 0-based rows and columns: r0..r7, c0, c6..c9,
#: never Siam's squares c1..c5).
IDENTIFIER = re.compile(
    r"\b[a-z]+_[a-z_]+\b|\bt\d+\b|Choose the|\bseat \d|\bseats? ?\(|\bNone\b"
    r"|\br\dc\d\b|\bL\d-\d\b|\br\d\b|\bc[06-9]\b"
)


@dataclass
class Mirror:
    """The same game as the server's, played in this process: the full state at each move."""

    engine: Engine
    players: int
    seed: int
    state: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.state = self.engine.setup(self.players, self.engine.options({}), self.seed)

    @classmethod
    def at(cls, engine: Engine, players: int, seed: int, position: dict) -> Mirror:
        """The game started from ``position`` (as the API's ``position`` field gives it)."""
        mirror = cls(engine, players, seed)
        mirror.state = engine.from_position(players, engine.options({}), seed, position)
        return mirror

    def seat(self) -> int:
        """The seat to move."""
        return self.engine.to_move(self.state)[0]

    def legal(self) -> list[dict[str, Any]]:
        """The legal moves of the seat to move, as listed."""
        return self.engine.legal_moves(self.state, self.seat())

    def play(self, move: dict[str, Any]) -> None:
        """Play ``move`` for the seat to move."""
        self.state = self.engine.apply(self.state, self.seat(), move)

    def random_turns(self, rng: random.Random) -> list[list[dict[str, Any]]]:
        """Random legal turns from here to the end of the game (the mirror stays where it is):
        each turn the decisions of one seat while its turn goes on, as the page collects them."""
        state, turns = self.state, []
        while self.engine.result(state) is None:
            seat, turn = self.engine.to_move(state)[0], []
            while not turn or self.engine.turn_goes_on(state, seat, turn[-1]):
                turn.append(rng.choice(self.engine.legal_moves(state, seat)))
                state = self.engine.apply(state, seat, turn[-1])
            turns.append(turn)
        return turns

    def play_turn(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        """Play the decisions ``steps`` of one turn; the one move they join into."""
        seat = self.seat()
        whole = self.engine.join_turn(self.state, seat, steps)
        for step in steps:
            self.play(step)
        return whole


@contextmanager
def desktop_context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh browser context (no cookies, no held seats) at :data:`DESKTOP`, closed after."""
    context = browser.new_context(viewport=DESKTOP)
    try:
        yield context
    finally:
        context.close()


def create_game(server: BackgroundServer, engine: str, players: int, seed: int = 7) -> dict:
    """A game created over the API (seat tokens included)."""
    body = {"engine": engine, "players": [{"name": n} for n in NAMES[:players]], "seed": seed}
    response = requests.post(server.api("/games"), json=body, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()


def play_by_api(server: BackgroundServer, game: dict, mirror: Mirror, moves: list[dict]) -> None:
    """Play ``moves`` over the API for whoever is to move, and in the mirror."""
    for move in moves:
        token = game["players"][mirror.seat()]["token"]
        response = requests.post(
            server.api(f"/games/{game['id']}/moves"),
            json={"move": move},
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        assert response.status_code == 201, response.text
        mirror.play(move)


def seat_link(server: BackgroundServer, game: dict, seat: int) -> str:
    """The private browser link of ``seat``."""
    return f"{server.url}/games/{game['id']}/seat/{game['players'][seat]['token']}"


def open_seat(context: BrowserContext, link: str) -> Page:
    """A new page of ``context`` that followed a seat's private link."""
    page = context.new_page()
    page.on("dialog", lambda dialog: pytest.fail(f"a script opened a dialog: {dialog.message}"))
    follow_seat_link(page, link)
    return page


def follow_seat_link(page: Page, link: str) -> None:
    """Follow a seat's link (confirming it when asked); the token must not stay in the address.

    Every navigation is waited for: Chromium may never close a page whose
    navigation is being committed (microsoft/playwright#42068), so the tests
    keep one page per browser and close it only when it is at rest.
    """
    page.goto(link)
    if page.locator("#claim").count():
        with page.expect_navigation():
            page.click("#claim button")
    assert link.rsplit("/", 1)[1] not in page.url
    assert re.search(r"/games/\w+(\?.*)?$", page.url), page.url


def hold_every_seat(server: BackgroundServer, context: BrowserContext, game: dict) -> Page:
    """One browser page holding every seat of ``game`` (players sharing a device).

    As "everyone plays on this device" does, the browser keeps the tokens handed out at
    creation, so that they stay good: another browser can hold every seat too, and the
    tests can go on moving with them (opening a seat link would replace them).
    """
    tokens = [player["token"] for player in game["players"]]
    cookie = {"domain": "127.0.0.1", "path": f"/games/{game['id']}", "httpOnly": True}
    context.add_cookies(
        [
            {**cookie, "name": seat_cookie(game["id"]), "value": tokens[0]},
            {**cookie, "name": seats_cookie(game["id"]), "value": HELD_SEPARATOR.join(tokens)},
        ]
    )
    page = context.new_page()
    page.on("dialog", lambda dialog: pytest.fail(f"a script opened a dialog: {dialog.message}"))
    page.goto(f"{server.url}/games/{game['id']}")
    return page


def mark_table(page: Page) -> None:
    """Mark the shown table, so that :func:`wait_for_new_table` sees it replaced."""
    page.evaluate("document.getElementById('live').dataset.old = '1'")


def wait_for_new_table(page: Page) -> None:
    """Wait until the marked table is replaced (by the script, or by a new page)."""
    expect(page.locator("#live")).to_have_count(1)
    expect(page.locator("#live[data-old]")).to_have_count(0)


def answer_link(page: Page, key: str, value: str) -> ElementHandle:
    """The visible board target or button answering question ``key`` with ``value``."""
    found = page.evaluate_handle(
        """([key, value]) => {
          const links = [...document.querySelectorAll('#board a[href]'),
                         ...document.querySelectorAll('#turn .choices a.choice')];
          return links.find(a => {
            const entries = [...new URL(a.getAttribute('href'), location.href).searchParams];
            const last = entries[entries.length - 1];
            return last && last[0] === 'm.' + key && last[1] === value && a.checkVisibility();
          }) || null;
        }""",
        [key, value],
    ).as_element()
    assert found is not None, f"no visible choice {key}={value!r} on {page.url}"
    return found


def click_answer(page: Page, key: str, value: str, keys: bool = False) -> str:
    """Click the board target or the button answering question ``key`` with ``value``
    (with ``keys``: take the focus there with the keyboard and press Enter).

    Returns ``"board"`` or ``"button"``: where the answer was found.
    """
    found = answer_link(page, key, value)
    where = "board" if found.evaluate("a => !!a.closest('#board')") else "button"
    mark_table(page)
    activate(page, found, keys)
    wait_for_new_table(page)
    return where


def activate(page: Page, element: ElementHandle, keys: bool) -> None:
    """Click ``element``, or with ``keys`` reach it with the keyboard and press Enter."""
    if keys:
        focus_by_keys(page, element)
        page.keyboard.press("Enter")
    else:
        element.click()


#: The most keys that may take the focus to one element (Tab through a whole page and more).
MOST_KEYS = 600

#: The key a keyboard user presses next on the way to ``target``: an arrow toward it while the
#: focus is on another choice of the board and has not been there on this way yet, else Tab.
_NEXT_KEY = """(target) => {
  const here = document.activeElement;
  if (here === target) return 'done';
  const board = document.getElementById('board');
  const visited = window.keysVisited || (window.keysVisited = new WeakSet());
  const onBoard = here && here.matches('a[href]') && board && board.contains(here);
  if (!onBoard || !board.contains(target) || visited.has(here)) return 'Tab';
  visited.add(here);
  const centre = e => {
    const box = e.getBoundingClientRect();
    return [box.x + box.width / 2, box.y + box.height / 2];
  };
  const [dx, dy] = [0, 1].map(i => centre(target)[i] - centre(here)[i]);
  if (Math.abs(dx) >= Math.abs(dy)) return dx > 0 ? 'ArrowRight' : 'ArrowLeft';
  return dy > 0 ? 'ArrowDown' : 'ArrowUp';
}"""


def focus_by_keys(page: Page, target: ElementHandle) -> None:
    """Take the focus to ``target`` with the keyboard alone: Tab, and on the board the arrows
    toward it (Tab again where they lead nowhere new)."""
    page.evaluate("window.keysVisited = new WeakSet()")
    for _ in range(MOST_KEYS):
        key = target.evaluate(_NEXT_KEY)
        if key == "done":
            return
        page.keyboard.press(key)
    raise AssertionError(f"{MOST_KEYS} keys never reached {target.evaluate('e => e.outerHTML')}")


def click_move(
    page: Page, engine: Engine, state: dict, seat: int, move: dict, keys: bool = False
) -> list[tuple[str, str]]:
    """Click the one-decision turn ``move`` of ``seat`` (see :func:`click_turn`)."""
    return click_turn(page, engine, state, seat, [move], keys)


def click_turn(
    page: Page, engine: Engine, state: dict, seat: int, steps: list[dict], keys: bool = False
) -> list[tuple[str, str]]:
    """Click the decisions ``steps`` of one turn of ``seat`` through the questions (the page
    takes each and asks for the next), check the preview of the whole turn, confirm it once;
    with ``keys``, by the keyboard alone (Tab, the arrows on the board, Enter).

    Returns each answer clicked and where it was (``board`` or ``button``).
    """
    notation = engine.format(engine.join_turn(state, seat, steps))
    clicked = []
    for index, step in enumerate(steps):
        last = index + 1 == len(steps)
        clicked += _click_decision(page, engine, state, seat, step, last, keys)
        state = engine.apply(state, seat, step)
    expect(page.locator("#preview .sentence")).to_be_visible()
    assert page.locator("#confirm input[name=notation]").input_value() == notation
    expect(page.locator(".board-area.previewing")).to_have_count(1)
    seq = int(page.locator("#live").get_attribute("data-seq"))
    activate(page, page.locator("#confirm button[type=submit]").element_handle(), keys)
    expect(page.locator("#live")).to_have_attribute("data-seq", str(seq + 1))
    return clicked


def _click_decision(
    page: Page, engine: Engine, state: dict, seat: int, move: dict, last: bool, keys: bool
) -> list[tuple[str, str]]:
    """Click the answers of the decision ``move`` until the page takes it: the turn's
    preview when it is the ``last``, else one more decision listed as taken."""
    questions = {question.key: question for question in engine.questions(state, seat)}
    taken = page.locator("#turn-steps li").count()
    clicked = []
    for _ in range(25):
        if (
            page.locator("#confirm").count()
            if last
            else page.locator("#turn-steps li").count() > taken
        ):
            return clicked
        key = page.locator("#question").get_attribute("data-key")
        if key == WHICH_MOVE:
            value = engine.format(move)
        else:
            answer = questions[key].answer(move)
            value = "" if answer is None else str(answer)
        clicked.append((value, click_answer(page, key, value, keys)))
    raise AssertionError(f"the guided form never took {engine.format(move)!r}")


def show_seat_to_move(page: Page, seat: int, keys: bool = False) -> None:
    """In a hot-seat browser, make the page show ``seat`` (a click on "play as" if needed;
    with ``keys``, by the keyboard)."""
    if page.locator("#status").inner_text().startswith(f"Your turn, {NAMES[seat]}:"):
        return
    switch = page.locator("#turn .hot-seat a.choice", has_text=f"Play as {NAMES[seat]}")
    assert switch.count() == 1, page_text(page)
    mark_table(page)
    activate(page, switch.element_handle(), keys)
    wait_for_new_table(page)
    expect(page.locator("#status")).to_contain_text(f"Your turn, {NAMES[seat]}:")


def page_text(page: Page) -> str:
    """The words the page shows."""
    return page.evaluate("document.body.innerText")


def scrolls_sideways(page: Page) -> bool:
    """True when the page is wider than the window."""
    return page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")


def screenshot(page: Page, folder: Path, name: str) -> None:
    """Save the whole page under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


#: The smallest text a phone may show on a board, and the smallest tap target (CSS px).
SMALLEST_TEXT = 11
SMALLEST_TARGET = 40

_TOO_SMALL = """([text, target]) => {
  const board = document.getElementById('board');
  const shown = element => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && element.checkVisibility({visibilityProperty: true})
      && !(element.closest('details:not([open])') && !element.closest('summary'));
  };
  const texts = new Map();
  const walker = document.createTreeWalker(board, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.data.trim() || !element || texts.has(element) || !shown(element)) continue;
    let size = parseFloat(getComputedStyle(element).fontSize);
    if (element instanceof SVGElement) {
      const matrix = element.getScreenCTM();
      size *= Math.hypot(matrix.a, matrix.b);
    }
    texts.set(element, [node.data.trim().slice(0, 30), Math.round(size * 10) / 10]);
  }
  const small = [...texts.values()].filter(([, size]) => size < text);
  const tiny = [...board.querySelectorAll('a[href]')].filter(shown).map(link => {
    const box = link.getBoundingClientRect();
    const label = link.getAttribute('aria-label') || link.textContent.trim()
      || link.getAttribute('href');
    return [label.slice(0, 40), Math.round(box.width), Math.round(box.height)];
  }).filter(([, width, height]) => width < target || height < target);
  return {small, tiny};
}"""


def board_screens(page: Page) -> float:
    """How many widths of its box the widest sideways-scrolling board is (1: no scrolling)."""
    return page.locator("#board .zoom").evaluate_all(
        "boxes => Math.max(1, ...boxes.map(box => box.scrollWidth / box.clientWidth))"
    )


def player_lists_shown(page: Page) -> int:
    """How many lists of the players the page shows (the side panel's, the board's own)."""
    return page.locator("#players, .board-players").evaluate_all(
        "lists => lists.filter(list => list.checkVisibility()).length"
    )


def too_small_on_the_board(page: Page) -> list[str]:
    """What the board shows too small for a phone: texts under :data:`SMALLEST_TEXT` CSS px
    (an SVG text at the size it is drawn) and tap targets under :data:`SMALLEST_TARGET`."""
    found = page.evaluate(_TOO_SMALL, [SMALLEST_TEXT, SMALLEST_TARGET])
    return [f"text {words!r} at {size} px" for words, size in found["small"]] + [
        f"target {label!r} of {width}x{height} px" for label, width, height in found["tiny"]
    ]


def stages(server: BackgroundServer, engine_id: str, players: int) -> dict[str, dict]:
    """Three games of ``engine_id``: new, half played and finished (random legal moves)."""
    engine = ENGINES[engine_id]
    games = {}
    for stage, share in (("start", 0.0), ("middle", 0.5), ("finished", 1.0)):
        game = create_game(server, engine_id, players, seed=3)
        mirror = Mirror(engine, players, seed=3)
        line = [step for turn in mirror.random_turns(random.Random(3)) for step in turn]
        if engine_id == "siam":  # random Siam games last long: the rulebook's line instead
            line = [engine.parse(n) for n in WINNING_LINE]
        play_by_api(server, game, mirror, line[: int(len(line) * share)])
        games[stage] = game
    return games
