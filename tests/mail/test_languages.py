"""A game whose seats read Dutch and German (issue 24): each seat's mails in its own language,
through a real SMTP server (aiosmtpd); the log and the API's codes the same for both."""

from __future__ import annotations

import requests
from babel.messages.pofile import read_po

from server.games.service import GameService, MoveRequest
from tests.mail.conftest import Mailbox, opened_links
from tests.server.test_i18n import TRANSLATIONS
from tests.support import BackgroundServer

SEATS = [
    {"name": "Ann", "email": "ann@example.org", "language": "nl"},
    {"name": "Bob", "email": "bob@example.org", "language": "de"},
]


def english_sentences() -> set[str]:
    """The English message ids of the mails' fixed words without placeholders."""
    with (TRANSLATIONS / "nl" / "LC_MESSAGES" / "messages.po").open("rb") as source:
        return {
            m.id
            for m in read_po(source)
            if m.id and not m.pluralizable and "%(" not in m.id and len(m.id) > 20
        }


def test_each_seat_reads_its_mails_in_its_own_language(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("siam", SEATS, {})
    opened_links(games, game)
    ann = mailbox.latest("ann@example.org", "Jouw beurt in Siam met Bob (zet 1)")
    assert ann.get_body(("plain",)).get_content().startswith("Hallo Ann,")
    assert '<html lang="nl">' in ann.get_body(("html",)).get_content()
    token = game["players"][0]["token"]
    games.submit(MoveRequest(game["id"], token=token, notation="enter a1 N"))
    bob = mailbox.latest("bob@example.org", "Du bist am Zug in Siam mit Ann (Zug 2)")
    text = bob.get_body(("plain",)).get_content()
    assert "Hallo Bob," in text and "Letzte Züge:" in text
    assert "Deine Seite (ein Klick, und du spielst im Browser):" in text
    english = english_sentences()
    for mail in (ann, bob):
        for part in ("plain", "html"):
            content = " ".join(mail.get_body((part,)).get_content().split())
            assert not [sentence for sentence in english if sentence in content]
    assert [entry.notation for entry in games.store.moves(game["id"])] == ["enter a1 N"]


def test_the_api_answers_the_same_codes_whatever_the_language(
    live_server: BackgroundServer,
) -> None:
    game = requests.post(
        live_server.api("/games"),
        json={"engine": "siam", "players": SEATS[:1] + [{"name": "Bob"}]},
        timeout=10,
    ).json()
    answers = []
    for language in ("nl", "de", "en"):
        answer = requests.post(
            live_server.api(f"/games/{game['id']}/moves"),
            json={"notation": "enter z9 N"},
            headers={
                "Authorization": f"Bearer {game['players'][0]['token']}",
                "Accept-Language": language,
            },
            timeout=10,
        )
        answers.append((answer.status_code, answer.json()["error"]["code"]))
    assert len(set(answers)) == 1 and answers[0][0] >= 400
