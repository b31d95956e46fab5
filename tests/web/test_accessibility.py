"""WCAG 2.2 AA in a real browser: axe-core finds nothing on any page, in both colour themes;
every word drawn on a board picture stands out from what is drawn under it (which axe
cannot tell); another player's move is said in the live region; less motion is honoured.

axe-core (the npm package, :func:`tests.conftest.axe_source`) runs in Debian's
Chromium on the lobby with its new-game form, the created page, every rules page, a
player's games, and every game's page at its start, middle and end, for the seat to move
(also after one pick on the board) and for a watcher; each page once in the light theme and
once in the dark one (``prefers-color-scheme``). Every rule of axe counts: its WCAG rules,
its best practices (``heading-order``, ``landmark-unique``...) and its experimental rules
(``label-content-name-mismatch``...).
"""

from __future__ import annotations

import base64

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, Page, expect

from engines import ENGINES
from server.accounts.service import AccountService
from server.http.actor import SESSION_COOKIE
from server.store import open_store
from tests.server.test_admin import add_player
from tests.support import BackgroundServer
from tests.web.table import (
    DESKTOP,
    IDENTIFIER,
    SIAM,
    UNTHROTTLED,
    Mirror,
    create_game,
    desktop_context,
    mark_table,
    open_seat,
    play_by_api,
    seat_link,
    stages,
    wait_for_new_table,
)

#: Many pages from one address in a minute: the module's server (tests/conftest.py's
#: ``live_server``) runs without the limits a real reader never reaches.
LIVE_SERVER_ENVIRONMENT = UNTHROTTLED


#: axe-core's run on the whole page once its transitions are over (a theme's colours fade in):
#: each violation, with a few of the elements it found.
AXE_RUN = """async () => {
  await Promise.all(document.getAnimations().map(running => running.finished));
  const experimental = Object.fromEntries(
    axe.getRules(['experimental']).map(rule => [rule.ruleId, {enabled: true}]));
  const found = await axe.run(document, {resultTypes: ['violations'], rules: experimental});
  return found.violations.map(v => `${v.id} (${v.impact}): ${v.help}; ` + v.nodes.slice(0, 3)
    .map(n => n.target.join(' ') + ' ' + (n.failureSummary || '').replace(/\\s+/g, ' ')
    .slice(0, 240)).join(' | '));
}"""


def violations(page: Page, axe_source: str, where: str) -> list[str]:
    """What axe-core finds on ``page`` in the light theme and then in the dark one."""
    found = []
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        if not page.evaluate("typeof axe !== 'undefined'"):
            page.evaluate(axe_source)
        found += [f"{where} ({scheme}): {words}" for words in page.evaluate(AXE_RUN)]
    page.emulate_media(color_scheme="light")
    return found


#: The accessible name of each choice on the board (what a screen reader says for it).
BOARD_NAMES = """() => [...document.querySelectorAll('#board a[href]')].map(link =>
  link.getAttribute('aria-label') || link.textContent.replace(/\\s+/g, ' ').trim())"""


def unnamed_choices(page: Page, where: str) -> list[str]:
    """The board's choices on ``page`` without a name in words (none, or an identifier)."""
    names = page.evaluate(BOARD_NAMES)
    return [f"{where}: {name!r}" for name in names if not name or IDENTIFIER.search(name)]


#: Each word drawn on the board's pictures: its words, fill and halo (colour and width in CSS
#: px), drawn size in CSS px, boldness and box on the page.
SVG_TEXTS = """() => [...document.querySelectorAll('#board svg text')]
  .filter(text => text.checkVisibility() && text.textContent.trim()).map(text => {
    const style = getComputedStyle(text);
    const box = text.getBoundingClientRect();
    const matrix = text.getScreenCTM();
    const scale = Math.hypot(matrix.a, matrix.b);
    return {words: text.textContent.trim().slice(0, 30), fill: style.fill, halo: style.stroke,
            haloWidth: parseFloat(style.strokeWidth) * scale,
            size: parseFloat(style.fontSize) * scale, bold: parseInt(style.fontWeight) >= 700,
            box: [box.x + scrollX, box.y + scrollY, box.width, box.height]};
  })"""

#: The colour drawn most in each box of a screenshot (a PNG, base64): what lies under a word.
UNDER = """async ([png, boxes]) => {
  const picture = new Image();
  picture.src = 'data:image/png;base64,' + png;
  await picture.decode();
  const canvas = new OffscreenCanvas(picture.width, picture.height);
  const drawing = canvas.getContext('2d');
  drawing.drawImage(picture, 0, 0);
  return boxes.map(([x, y, width, height]) => {
    const pixels = drawing.getImageData(Math.round(x), Math.round(y),
      Math.max(1, Math.round(width)), Math.max(1, Math.round(height))).data;
    const counts = new Map();
    for (let i = 0; i < pixels.length; i += 4) {
      const key = `${pixels[i]},${pixels[i + 1]},${pixels[i + 2]}`;
      counts.set(key, (counts.get(key) || 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1])[0][0].split(',').map(Number);
  });
}"""


def luminance(rgb: tuple[int, ...]) -> float:
    """WCAG's relative luminance of an sRGB colour.

    >>> round(luminance((255, 255, 255)), 3), luminance((0, 0, 0))
    (1.0, 0.0)
    """
    channels = [value / 255 for value in rgb]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: tuple[int, ...], other: tuple[int, ...]) -> float:
    """WCAG's contrast ratio of two colours (1 to 21).

    >>> contrast((255, 255, 255), (0, 0, 0)), round(contrast((118, 118, 118), (255, 255, 255)), 2)
    (21.0, 4.54)
    """
    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def css_rgb(colour: str) -> tuple[int, ...] | None:
    """A computed ``rgb(r, g, b)`` colour as numbers; ``None`` for ``none`` or a pattern."""
    if not colour.startswith("rgb"):
        return None
    return tuple(int(float(part)) for part in colour.partition("(")[2].rstrip(")").split(",")[:3])


def faint_board_words(page: Page, where: str) -> list[str]:
    """The words drawn on the board's pictures under WCAG's contrast (4.5, 3 for large text:
    24 px, or 18.66 px bold) against the colour drawn most under them, or against their
    halo when they have one (2 px or wider). The page's board words are hidden for it."""
    texts = page.evaluate(SVG_TEXTS)
    page.add_style_tag(content="#board svg text { visibility: hidden !important; }")
    png = base64.b64encode(page.screenshot(full_page=True)).decode()
    under = page.evaluate(UNDER, [png, [text["box"] for text in texts]])
    faint = []
    for text, ground in zip(texts, under, strict=True):
        fill, halo = css_rgb(text["fill"]), css_rgb(text["halo"])
        back = halo if halo and text["haloWidth"] >= 2 else tuple(ground)
        large = text["size"] >= 24 or (text["bold"] and text["size"] >= 18.66)
        ratio = contrast(fill, back) if fill else 21
        if ratio < (3 if large else 4.5):
            faint.append(f"{where}: {text['words']!r} {text['fill']} on rgb{back}: {ratio:.2f}")
    return faint


def signed_in_context(browser: Browser, server: BackgroundServer, player_id: str) -> BrowserContext:
    """A browser context signed in as a new player ``player_id``."""
    store = open_store(server.db_path)
    try:
        add_player(store, player_id, f"{player_id}@example.org")
        session = AccountService(store, "unused").open_session(player_id)
    finally:
        store.close()
    context = browser.new_context(viewport=DESKTOP)
    context.add_cookies([{"name": SESSION_COOKIE, "value": session, "url": server.url}])
    return context


def test_the_lobby_new_game_created_rules_and_my_games_pages_have_no_violation(
    live_server: BackgroundServer, browser: Browser, axe_source: str
) -> None:
    context = signed_in_context(browser, live_server, "ann")
    found = []
    try:
        page = context.new_page()
        page.goto(live_server.url)
        found += violations(page, axe_source, "lobby")
        page.fill("#name0", "Ann")
        page.fill("#name1", "Bob")
        with page.expect_navigation():
            page.click("#create-game button[type=submit]")
        found += violations(page, axe_source, "created")
        with page.expect_navigation():
            page.locator("form.play-as button").first.click()
        page.goto(f"{live_server.url}/me/games")
        found += violations(page, axe_source, "my games")
        page.goto(live_server.url)
        found += violations(page, axe_source, "lobby signed in")
        for engine in ENGINES:
            page.goto(f"{live_server.url}/rules/{engine}")
            found += violations(page, axe_source, f"rules of {engine}")
    finally:
        context.close()
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("engine_id", "players"),
    [("siam", 2), ("king-of-siam", 3), ("foreign-king", 2), ("bangkok-klongs", 2)],
)
def test_every_game_page_has_no_violation_for_the_seat_to_move_and_a_watcher(
    live_server: BackgroundServer, browser: Browser, axe_source: str, engine_id: str, players: int
) -> None:
    found = []
    for stage, game in stages(live_server, engine_id, players).items():
        shown = requests.get(live_server.api(f"/games/{game['id']}"), timeout=10).json()
        seat = shown["to_move"][0] if shown["to_move"] else 0
        with desktop_context(browser) as context:
            page = open_seat(context, seat_link(live_server, game, seat))
            found += violations(page, axe_source, f"{stage}, seat {seat}")
            found += unnamed_choices(page, f"{stage}, seat {seat}")
            pick = page.locator('#board a[href*="m."]')
            if pick.count():
                mark_table(page)
                pick.first.press("Enter")
                wait_for_new_table(page)
                found += violations(page, axe_source, f"{stage}, seat {seat} after a pick")
                found += unnamed_choices(page, f"{stage}, seat {seat} after a pick")
            watcher = context.browser.new_context(viewport=DESKTOP)
            try:
                watching = watcher.new_page()
                watching.goto(f"{live_server.url}/games/{game['id']}")
                found += violations(watching, axe_source, f"{stage}, a watcher")
                found += faint_board_words(watching, f"{stage}, a watcher")
            finally:
                watcher.close()
    assert not found, "\n".join(found)


def test_an_unknown_page_has_no_violation(
    live_server: BackgroundServer, browser: Browser, axe_source: str
) -> None:
    with desktop_context(browser) as context:
        page = context.new_page()
        page.goto(f"{live_server.url}/nope")
        found = violations(page, axe_source, "error page")
    assert not found, "\n".join(found)


def test_axe_finds_what_it_is_there_to_find(
    live_server: BackgroundServer, browser: Browser, axe_source: str
) -> None:
    """The check can fail: an image without words and a grey on grey line are found."""
    game = create_game(live_server, "siam", 2)
    with desktop_context(browser) as context:
        page = context.new_page()
        page.goto(f"{live_server.url}/games/{game['id']}")
        page.evaluate(
            """() => {
              const main = document.querySelector('main');
              main.insertAdjacentHTML('beforeend',
                '<img src="/static/favicon.svg"><p style="color:#999;background:#aaa">grey</p>');
            }"""
        )
        found = violations(page, axe_source, "spoiled")
    assert any("image-alt" in line for line in found), found
    assert any("color-contrast" in line for line in found), found


def test_the_live_region_says_the_other_players_move_in_words(
    live_server: BackgroundServer, browser: Browser
) -> None:
    game = create_game(live_server, "siam", 2)
    with desktop_context(browser) as context:
        bob = open_seat(context, seat_link(live_server, game, 1))
        region = bob.locator("#announce")
        expect(region).to_have_attribute("aria-live", "polite")
        expect(region).to_have_text("")
        bob.wait_for_timeout(500)  # the stream is open
        play_by_api(live_server, game, Mirror(SIAM, 2, seed=7), [SIAM.parse("enter a1 N")])
        expect(region).to_have_text(
            "Ann enters an elephant on a1, facing north. Your turn: enter a rhino."
        )
        assert not region.is_visible() or region.bounding_box()["width"] <= 1


def test_less_motion_when_the_reader_asks_for_it(
    live_server: BackgroundServer, browser: Browser
) -> None:
    moving = """() => [...document.querySelectorAll('*')].filter(element => {
      const style = getComputedStyle(element);
      return style.animationName !== 'none'
        || style.transitionDuration.split(',').some(time => parseFloat(time) > 0);
    }).length"""
    game = create_game(live_server, "siam", 2)
    with desktop_context(browser) as context:
        page = open_seat(context, seat_link(live_server, game, 0))
        assert page.evaluate(moving) > 0, "the buttons fade their colours"
        page.emulate_media(reduced_motion="reduce")
        assert page.evaluate(moving) == 0


def test_the_siam_boards_choices_are_named_in_the_readers_language(
    live_server: BackgroundServer, browser: Browser
) -> None:
    game = create_game(live_server, "siam", 2)
    play_by_api(
        live_server,
        game,
        Mirror(SIAM, 2, seed=7),
        [SIAM.parse(n) for n in ("enter a1 N", "enter e5 S")],
    )
    context = browser.new_context(viewport=DESKTOP, locale="nl-NL")
    try:
        ann = open_seat(context, seat_link(live_server, game, 0))
        expect(ann.locator("html")).to_have_attribute("lang", "nl")
        names = ann.evaluate(BOARD_NAMES)
        assert "olifant op a1, kijkt naar het noorden" in names, names
        assert "een olifant uit de voorraad op het bord zetten" in names, names
        mark_table(ann)
        ann.locator('#board a[aria-label="olifant op a1, kijkt naar het noorden"]').press("Enter")
        wait_for_new_table(ann)
        assert ann.evaluate(BOARD_NAMES) == ["a2", "b1"]
        mark_table(ann)
        ann.locator('#board a[aria-label="a2"]').press("Enter")
        wait_for_new_table(ann)
        assert set(ann.evaluate(BOARD_NAMES)) == {
            f"naar het {way} kijken" for way in ("noorden", "oosten", "zuiden", "westen")
        }
    finally:
        context.close()
