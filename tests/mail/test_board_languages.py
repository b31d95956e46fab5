"""The plain-text boards of The Foreign King and Bangkok Klongs in their readers' languages
(issue 24), as turn mails carry them through a real SMTP server (aiosmtpd).

Three seats reading one language play a few random moves; the newest turn mail of each seat
holds the board, whose words are the catalog's in that language: the board's heading says it,
and no English piece of the catalog (``tests/catalog_english.py``) is left in it. English is
the control: there the same check finds the catalog's words.
"""

from __future__ import annotations

import random

import pytest

from server.games.service import GameService, MoveRequest
from server.i18n import catalog
from tests.catalog_english import english_left
from tests.mail.conftest import Mailbox, opened_links, send

#: Each board's first line and the line after its last, as the mail shows them, by language.
BOARDS = {
    "foreign-king": {
        "first": {
            "en": "THE FOREIGN KING  -  Round",
            "nl": "THE FOREIGN KING  -  Ronde",
            "de": "THE FOREIGN KING  -  Runde",
            "fr": "THE FOREIGN KING  -  Manche",
        },
    },
    "bangkok-klongs": {
        "first": {lang: "   A      B  " for lang in ("en", "nl", "de", "fr")},
    },
}

#: What a turn mail says after the board (one of them).
AFTER_THE_BOARD = (
    "To move, reply to this mail with your whole turn on the first line.",
    "To move, reply to this mail with your move on the first line.",
)


def play_random_moves(games: GameService, game: dict, moves: int, seed: int) -> None:
    """``moves`` random legal moves of whoever is to move (each seat by its token), each
    move's mails sent at once (so that none is superseded by the next)."""
    rng = random.Random(seed)
    for _ in range(moves):
        loaded = games.load(game["id"])
        if loaded.status != "active":
            return
        seat = loaded.to_move[0]
        move = rng.choice(loaded.engine.legal_moves(loaded.state, seat))
        token = game["players"][seat]["token"]
        notation = loaded.engine.format(move)
        games.submit(MoveRequest(game["id"], token=token, notation=notation))
        send(games)


def board_text(mailbox: Mailbox, address: str, engine_id: str, language: str) -> str:
    """The board of the newest mail to ``address`` (a turn's): its plain text from the board's
    first line to what the mail says after it (how to move, whose canonical notation stays
    English)."""
    mail = mailbox.latest(address, "")
    text = mail.get_body(("plain",)).get_content()
    first = BOARDS[engine_id]["first"][language]
    assert first in text, text
    board = text[text.index(first) :]
    ends = [board.find(catalog(language).gettext(after)[:20]) for after in AFTER_THE_BOARD]
    return board[: max(ends)]


@pytest.mark.parametrize("engine_id", sorted(BOARDS))
def test_a_text_board_in_a_turn_mail_is_in_its_readers_language(
    games: GameService, mailbox: Mailbox, engine_id: str
) -> None:
    for language in ("en", "nl", "de", "fr"):
        seats = [
            {"name": name, "email": f"{name.lower()}-{language}@example.org", "language": language}
            for name in ("Ann", "Bob", "Cy")
        ]
        game = games.create(engine_id, seats, {}, seed=3)
        opened_links(games, game)
        play_random_moves(games, game, 7, seed=11)
        waiting = games.load(game["id"]).to_move[0]
        board = board_text(mailbox, seats[waiting]["email"], engine_id, language)
        left = english_left(board, "de" if language == "en" else language)
        if language == "en":
            assert left, "the English board shows none of the catalog's words"
        else:
            assert not left, (language, sorted(left), board)
