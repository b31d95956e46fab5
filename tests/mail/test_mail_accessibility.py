"""The HTML part of every kind of mail meets WCAG 2.2 AA in each language (issue 24).

axe-core (the npm package, :func:`tests.conftest.axe_source`) runs in Debian's Chromium on
each mail's HTML part as a mail client shows it (its board picture inlined), in the light
and the dark colour scheme. A mail is not a web page: it has no landmarks, so axe's
best-practice rules about a page's regions and headings do not apply; every rule tagged
for WCAG 2.0, 2.1 and 2.2 at levels A and AA does. The mails go through a real SMTP server
(aiosmtpd) and replies through ``receive``.
"""

from __future__ import annotations

from email.message import EmailMessage

import pytest
from playwright.sync_api import Browser

from engines import ENGINES
from schemas.api import LANGUAGES
from server.games.service import GameService
from server.mail.inbound import receive
from tests.mail.conftest import Mailbox, opened_links, reply_to, send
from tests.mail.samples import inlined
from tests.support import table_rows

#: Each game in one language and each language for one game: what axe checks (contrast, names,
#: the lang attribute) depends on the mail's kind and language, not on their pairing.
ENGINE_LANGUAGES = [
    ("siam", "en"),
    ("king-of-siam", "fr"),
    ("foreign-king", "de"),
    ("bangkok-klongs", "nl"),
]
NAMES = ("Ann", "Bob", "Cy")
#: axe-core's run on a mail: the WCAG rules only, each violation with a few elements it found.
AXE_WCAG_RUN = """async () => {
  const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
  const found = await axe.run(document, {resultTypes: ['violations'],
                                         runOnly: {type: 'tag', values: tags}});
  return found.violations.map(v => `${v.id} (${v.impact}): ${v.help}; ` + v.nodes.slice(0, 3)
    .map(n => n.target.join(' ') + ' ' + (n.failureSummary || '').replace(/\\s+/g, ' ')
    .slice(0, 240)).join(' | '));
}"""


def players(engine_id: str, language: str) -> list[dict[str, str]]:
    """The players of a game of ``engine_id``, each reading ``language``."""
    count = max(ENGINES[engine_id].min_players, 2)
    return [
        {"name": name, "email": f"{name.lower()}@example.org", "language": language}
        for name in NAMES[:count]
    ]


def mails_of_a_game(games: GameService, mailbox: Mailbox, engine_id: str, language: str) -> list:
    """Turn mails, a refusal, a table-talk answer, a move accepted, a command's answer and
    the game-over mails of a short game of ``engine_id`` in ``language``."""
    game = games.create(engine_id, players(engine_id, language), {}, seed=5, turn_hours=48)
    opened_links(games, game)
    loaded = games.load(game["id"])
    mover = loaded.to_move[0]
    address = players(engine_id, language)[mover]["email"]
    send(games)
    turn = [mail for mail in mailbox.sink.messages if mail["To"] == address][-1]
    settings = games.notifier.settings
    legal = loaded.engine.legal_moves(loaded.state, mover)[0]
    for text in ("hop a1", "Good luck!", "help", loaded.engine.format(legal), "resign"):
        receive(reply_to(turn, text), games, settings)
    send(games)
    return list(mailbox.sink.messages)


def wcag_violations(browser: Browser, axe_source: str, mail: EmailMessage) -> list[str]:
    """What axe-core's WCAG rules find in ``mail``'s HTML part, in both colour schemes."""
    page = browser.new_page(viewport={"width": 700, "height": 900})
    try:
        page.set_content(inlined(mail))
        page.wait_for_load_state("load")
        page.evaluate(axe_source)
        found = []
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            found += [f"{mail['Subject']} ({scheme}): {v}" for v in page.evaluate(AXE_WCAG_RUN)]
        return found
    finally:
        page.close()


@pytest.mark.parametrize(("engine_id", "language"), ENGINE_LANGUAGES)
def test_every_kind_of_mail_meets_wcag_in_each_language(
    games: GameService,
    mailbox: Mailbox,
    browser: Browser,
    axe_source: str,
    engine_id: str,
    language: str,
) -> None:
    mails = mails_of_a_game(games, mailbox, engine_id, language)
    kinds = {row["kind"] for row in table_rows(games.store, "outbox") if row["sent_at"]}
    assert kinds >= {"turn", "rejected", "answer", "accepted", "game_over"}, sorted(kinds)
    for mail in mails:
        assert f'<html lang="{language}"' in mail.get_body(("html",)).get_content()
    found = [words for mail in mails for words in wcag_violations(browser, axe_source, mail)]
    assert not found, "\n".join(found)


def test_axe_finds_a_picture_without_words_in_a_mail(
    games: GameService, mailbox: Mailbox, browser: Browser, axe_source: str
) -> None:
    """The check can fail: the turn mail's board picture with its words taken away."""
    [mail, *_] = mails_of_a_game(games, mailbox, "siam", "de")
    html = mail.get_body(("html",))
    content = html.get_content()
    start = content.index(' alt="') + len(' alt="')
    html.set_content(
        content[: start - len(' alt="')] + content[content.index('"', start) + 1 :], subtype="html"
    )
    assert any("image-alt" in words for words in wcag_violations(browser, axe_source, mail))


def test_the_pairs_cover_every_game_and_every_language() -> None:
    """A new game or language gets its own mail check."""
    assert {engine_id for engine_id, _ in ENGINE_LANGUAGES} == set(ENGINES)
    assert {language for _, language in ENGINE_LANGUAGES} == set(LANGUAGES)
