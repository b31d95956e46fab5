"""A game whose seats read Dutch and German (issue 24): each seat's mails in its own language,
through a real SMTP server (aiosmtpd); the log and the API's codes the same for both."""

from __future__ import annotations

import re
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
import requests
from babel.messages.pofile import read_po

from server.games.service import GameService, MoveRequest
from server.mail.inbound import receive
from server.mail.words import COMMAND_WORDS
from tests.mail.conftest import Mailbox, opened_links, reply_to, send
from tests.server.test_api import WINNING_LINE
from tests.server.test_i18n import TRANSLATIONS
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

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


# -- games played by mail in other languages ------------------------------------------------
def english_strings() -> set[str]:
    """Every English message of the catalogs as its fixed words (placeholders cut out), where
    a piece is long enough to tell a language by: no such piece may be left in a mail."""
    with (TRANSLATIONS / "nl" / "LC_MESSAGES" / "messages.po").open("rb") as source:
        ids = [
            text for m in read_po(source) if m.id for text in (m.id if m.pluralizable else [m.id])
        ]
    pieces = {piece.strip(" .,:;()") for text in ids for piece in re.split(r"%\(\w+\)[sdr]", text)}
    return {piece for piece in pieces if len(piece) > 14 and " " in piece}


def english_left(mail: EmailMessage, english: set[str]) -> list[str]:
    """The English pieces left in ``mail`` (subject, text and HTML parts)."""
    parts = [mail["Subject"]] + [mail.get_body((kind,)).get_content() for kind in ("plain", "html")]
    content = " ".join(" ".join(part.split()) for part in parts)
    return sorted(piece for piece in english if piece in content)


def mails_to(mailbox: Mailbox, address: str) -> list[EmailMessage]:
    """Every mail delivered to ``address`` so far."""
    send(mailbox.games)
    return [mail for mail in mailbox.sink.messages if mail["To"] == address]


def answer(games: GameService, mailbox: Mailbox, address: str, subject: str, text: str) -> str:
    """Reply ``text`` to the newest mail to ``address`` whose subject starts with ``subject``;
    the outcome's status."""
    latest = mailbox.latest(address, subject)
    return receive(reply_to(latest, text), games, games.notifier.settings).status


FRENCH_AND_DUTCH = [
    {"name": "Ann", "email": "ann@example.org", "language": "fr"},
    {"name": "Bob", "email": "bob@example.org", "language": "nl"},
]
#: Late in a Siam game: Ann's elephant on d2 faces the rock on e2, at the board's east edge.
LATE = {
    "board": {
        "d2": {"kind": "elephant", "facing": "E"},
        "e2": {"kind": "rock"},
        "c5": {"kind": "rock"},
        "d5": {"kind": "rock"},
    },
    "to_move": 0,
}


def test_a_siam_game_by_mail_in_french_and_dutch_leaves_no_english(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("siam", FRENCH_AND_DUTCH, {"cross_rule": False}, position=LATE)
    opened_links(games, game)
    ann, bob = "ann@example.org", "bob@example.org"
    assert answer(games, mailbox, ann, "Votre tour", "entre a1 nord") == "applied"
    turn = mailbox.latest(bob, "Jouw beurt in Siam met Ann (zet 2)")
    text = " ".join(turn.get_body(("plain",)).get_content().split())
    assert "Ann zet een olifant op a1, kijkend naar het noorden." in text
    assert answer(games, mailbox, bob, "Jouw beurt", "bord") == "command"
    board = mailbox.latest(bob, "Het bord van Siam met Ann")
    assert "Zo staat het bord er nu voor." in board.get_body(("plain",)).get_content()
    assert answer(games, mailbox, bob, "Jouw beurt", "draai a1 Z") == "rejected"
    refused = mailbox.latest(bob, "Zet niet gespeeld in Siam met Ann")
    refusal = " ".join(refused.get_body(("plain",)).get_content().split())
    assert "Op a1 staat geen neushoorn van jou." in refusal
    assert answer(games, mailbox, bob, "Jouw beurt", "zet e5 z") == "applied"
    assert answer(games, mailbox, ann, "Votre tour", "déplace d2 e2 E") == "applied"
    over = {
        address: mailbox.latest(address, subject)
        for address, subject in (
            (ann, "Fin de la partie Siam avec Bob\u00a0: vous gagnez"),
            (bob, "Einde van Siam met Ann: Ann wint"),
        )
    }
    said = {
        address: " ".join(mail.get_body(("plain",)).get_content().split())
        for address, mail in over.items()
    }
    assert (
        "Ann gagne : le rocher en e2 a été poussé hors du plateau vers l'est, et l'animal le"
        " plus proche derrière lui, orienté dans le sens de la poussée, est l'éléphant de Ann"
        " en e2."
    ) in said[ann]
    assert "Ann wint: de rots op e2 is naar het oosten van het bord geduwd" in said[bob]
    assert [entry.notation for entry in games.store.moves(game["id"])] == [
        "enter a1 N",
        "enter e5 S",
        "move d2 e2 E",
    ]
    english = english_strings()
    for address in (ann, bob):
        for mail in mails_to(mailbox, address):
            assert not english_left(mail, english), (mail["Subject"], english_left(mail, english))


GERMAN = [
    {"name": name, "email": f"{name.lower()}@example.org", "language": language}
    for name, language in (("Ann", "de"), ("Bob", "de"), ("Cy", "nl"))
]
#: Each notation word as the German player writes it.
IN_GERMAN = {"take": "nimm", "malay": "malaien", "pass": "passe"}


def test_a_king_of_siam_turn_by_mail_in_german_leaves_no_english(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("king-of-siam", GERMAN, {}, seed=5)
    opened_links(games, game)
    loaded = games.load(game["id"])
    seat = loaded.to_move[0]
    engine = loaded.engine
    card = next(m for m in engine.legal_moves(loaded.state, seat) if m.get("card") == "malay")
    take = engine.legal_moves(engine.apply(loaded.state, seat, card), seat)[0]
    canonical = f"{engine.format(card)}; {engine.format(take)}"
    german = " ".join(IN_GERMAN.get(word, word) for word in canonical.split(" "))
    address = GERMAN[seat]["email"]
    reply = german.replace("; nimm", "; Nimm")
    if GERMAN[seat]["language"] == "de":
        assert "malaien" in reply and "Nimm" in reply
    assert (
        answer(games, mailbox, address, "Du bist am Zug" if seat < 2 else "Jouw beurt", reply)
        == "applied"
    )
    assert [entry.notation for entry in games.store.moves(game["id"])] == [canonical]
    english = english_strings()
    for player in GERMAN:
        for mail in mails_to(mailbox, player["email"]):
            assert not english_left(mail, english), (mail["Subject"], english_left(mail, english))
    following = games.load(game["id"]).to_move[0]
    told = mailbox.latest(
        GERMAN[following]["email"], "Du bist am Zug" if following < 2 else "Jouw beurt"
    )
    text = " ".join(told.get_body(("plain",)).get_content().split())
    mover = GERMAN[seat]["name"]
    if following < 2:
        assert f"{mover} spielt Malaien: " in text and "und nimmt danach" in text
    else:
        assert f"{mover} speelt Maleisiërs: " in text and "en neemt daarna" in text


#: The first words of a turn mail's subject, per language.
YOUR_TURN_SUBJECT = {"nl": "Jouw beurt", "de": "Du bist am Zug", "fr": "Votre tour"}


@pytest.mark.parametrize("language", ["nl", "de", "fr"])
def test_a_whole_siam_game_by_mail_leaves_no_english_in_each_language(
    games: GameService, mailbox: Mailbox, language: str
) -> None:
    """Both seats read ``language``: every move of a whole game by reply, a refused move and
    the mail commands; no mail to either seat holds an English sentence of the catalog."""
    seats = [{**seat, "language": language} for seat in SEATS]
    game = games.create("siam", seats, {})
    opened_links(games, game)
    addresses = [seat["email"] for seat in seats]
    subject = YOUR_TURN_SUBJECT[language]
    first = " ".join(
        mailbox.latest(addresses[0], subject).get_body(("plain",)).get_content().split()
    )
    assert f'"{COMMAND_WORDS[language]["moves"]}"' in first, "the moves command in another language"
    assert answer(games, mailbox, addresses[0], subject, "move a1 a2 N") == "rejected"
    for command in ("board", "help"):
        assert answer(games, mailbox, addresses[0], subject, command) == "command"
    for number, notation in enumerate(WINNING_LINE):
        assert answer(games, mailbox, addresses[number % 2], subject, notation) == "applied"
    assert games.load(game["id"]).status == "finished"
    assert [entry.notation for entry in games.store.moves(game["id"])] == list(WINNING_LINE)
    english = english_strings()
    for address in addresses:
        mails = mails_to(mailbox, address)
        assert len(mails) >= len(WINNING_LINE) // 2
        for mail in mails:
            assert not english_left(mail, english), (mail["Subject"], english_left(mail, english))


@pytest.mark.parametrize("language", ["nl", "fr"])
def test_a_king_of_siam_turn_by_mail_leaves_no_english_in_each_language(
    games: GameService, mailbox: Mailbox, language: str
) -> None:
    seats = [{**seat, "language": language} for seat in GERMAN]
    game = games.create("king-of-siam", seats, {}, seed=5)
    opened_links(games, game)
    loaded = games.load(game["id"])
    seat, engine = loaded.to_move[0], loaded.engine
    card = next(m for m in engine.legal_moves(loaded.state, seat) if m.get("card") == "malay")
    take = engine.legal_moves(engine.apply(loaded.state, seat, card), seat)[0]
    canonical = f"{engine.format(card)}; {engine.format(take)}"
    address = seats[seat]["email"]
    assert answer(games, mailbox, address, YOUR_TURN_SUBJECT[language], canonical) == "applied"
    assert [entry.notation for entry in games.store.moves(game["id"])] == [canonical]
    english = english_strings()
    for player in seats:
        for mail in mails_to(mailbox, player["email"]):
            assert not english_left(mail, english), (mail["Subject"], english_left(mail, english))


# -- answers to broken or refused mail -------------------------------------------------------
#: What a seat reading each language is told about a mail Turnpost did not read, about words
#: too long for the table, and about a takeback word it does not know.
REFUSALS = {
    "nl": {
        "turn": "Jouw beurt",
        "unread": "Zet niet gespeeld in Siam met Bob",
        "attachment": "Turnpost kon geen zet lezen in je mail: bijlagen (application/pdf) worden"
        " niet aangenomen. Er is niets veranderd.",
        "empty": "geen zet gevonden: schrijf hem op de eerste regel van je antwoord.",
        "large": "je mail is groter dan 256 KiB, dus Turnpost heeft hem niet gelezen",
        "not_said": "Niet geplaatst aan de tafel van Siam met Bob",
        "too_long": "Je woorden zijn niet aan tafel geplaatst: Hoogstens 500 tekens.",
        "takeback": 'Er is niets veranderd: schrijf "takeback", "takeback accept" of'
        ' "takeback decline".',
    },
    "de": {
        "turn": "Du bist am Zug",
        "unread": "Zug nicht gespielt in Siam mit Bob",
        "attachment": "Turnpost konnte in deiner Mail keinen Zug lesen: Anhänge (application/pdf)"
        " werden nicht angenommen. Es hat sich nichts geändert.",
        "empty": "kein Zug gefunden: Schreib ihn in die erste Zeile deiner Antwort.",
        "large": "deine Mail ist größer als 256 KiB, deshalb hat Turnpost sie nicht gelesen",
        "not_said": "Nicht an den Tisch von Siam mit Bob geschrieben",
        "too_long": "Deine Worte wurden nicht an den Tisch geschickt: Höchstens 500 Zeichen.",
        "takeback": 'Es hat sich nichts geändert: Schreib "takeback", "takeback accept" oder'
        ' "takeback decline".',
    },
    "fr": {
        "turn": "Votre tour",
        "unread": "Coup non joué dans Siam avec Bob",
        "attachment": "Turnpost n'a pas pu lire de coup dans votre courriel : les pièces"
        " jointes (application/pdf) ne sont pas acceptées. Rien n'a changé.",
        "empty": "aucun coup trouvé : écrivez-le sur la première ligne de votre réponse.",
        "large": "votre courriel dépasse 256 Kio, Turnpost ne l'a donc pas lu",
        "not_said": "Non publié à la table de Siam avec Bob",
        "too_long": "Vos mots n'ont pas été envoyés à la table : Au plus 500 caractères.",
        "takeback": 'Rien n\'a changé : écrivez "takeback", "takeback accept" ou'
        ' "takeback decline".',
    },
}


def with_attachment(raw: bytes) -> bytes:
    """The reply ``raw`` with a PDF attached."""
    message = message_from_bytes(raw, policy=policy.default)
    message.add_attachment(b"%PDF-1.4", maintype="application", subtype="pdf", filename="a.pdf")
    return bytes(message)


@pytest.mark.parametrize("language", sorted(REFUSALS))
def test_broken_and_refused_mail_is_answered_in_the_seats_language(
    games: GameService, mailbox: Mailbox, language: str
) -> None:
    """Each answer to a mail Turnpost could not read or refused (English sentences before) is
    in the seat's language, with no English left; nothing is played."""
    told = REFUSALS[language]
    seats = [{"name": "Ann", "email": "ann@example.org", "language": language}, {"name": "Bob"}]
    game = games.create("siam", seats, {})
    opened_links(games, game)
    ann = "ann@example.org"
    turn = mailbox.latest(ann, told["turn"])
    settings = games.notifier.settings

    def answered(raw: bytes, subject: str) -> str:
        receive(raw, games, settings)
        return " ".join(mailbox.latest(ann, subject).get_body(("plain",)).get_content().split())

    assert told["attachment"] in answered(with_attachment(reply_to(turn, "a1")), told["unread"])
    assert told["empty"] in answered(reply_to(turn, ""), told["unread"])
    huge = reply_to(turn, "enter a1 N\n\n" + "gg " * 100_000)
    assert told["large"] in answered(huge, told["unread"])
    assert told["too_long"] in answered(reply_to(turn, "say: " + "g" * 600), told["not_said"])
    assert told["takeback"] in answered(reply_to(turn, "takeback maybe"), "")
    assert games.store.moves(game["id"]) == []
    english = english_strings()
    for mail in mails_to(mailbox, ann):
        assert not english_left(mail, english), (mail["Subject"], english_left(mail, english))


#: An invitation's subject and opening in each language.
INVITATIONS = {
    "nl": ("Een uitnodiging om Siam te spelen op Turnpost", "Hallo Bob, Je bent uitgenodigd om"),
    "de": ("Eine Einladung, Siam auf Turnpost zu spielen", "Hallo Bob, Du bist eingeladen, auf"),
    "fr": ("Une invitation à jouer à Siam sur Turnpost", "Bonjour Bob, Vous êtes invité à jouer"),
}


@pytest.mark.parametrize("language", sorted(INVITATIONS))
def test_an_invitation_is_written_in_the_seats_language(
    games: GameService, mailbox: Mailbox, language: str
) -> None:
    """The invitation of a seat that is not to move (English before) speaks its language."""
    subject, opening = INVITATIONS[language]
    bob = {"name": "Bob", "email": "bob@example.org", "language": language, "invite": True}
    seats = [{"name": "Ann"}, bob]
    games.create("siam", seats, {})
    invitation = mailbox.latest("bob@example.org", subject)
    text = " ".join(invitation.get_body(("plain",)).get_content().split())
    assert text.startswith(opening), text
    assert f'<html lang="{language}">' in invitation.get_body(("html",)).get_content()
    english = english_strings()
    assert not english_left(invitation, english), english_left(invitation, english)
