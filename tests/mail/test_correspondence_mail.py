"""Correspondence play by mail, through a real SMTP server: conditional moves stay private,
takebacks are offered and answered."""

from __future__ import annotations

from typing import Any

from server.games.service import GameService, MoveRequest
from server.games.takebacks import offer_takeback
from tests.mail.conftest import (
    PLAYERS,
    Mailbox,
    Sink,
    mail_in,
    opened_links,
    reply_to,
    send,
)

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def text_of(mail: Any) -> str:
    """A mail's headers and every text part."""
    parts = [str(mail)]
    for part in mail.walk():
        if part.get_content_type() in ("text/plain", "text/html"):
            parts.append(part.get_content())
    return "\n".join(parts)


def test_no_mail_shows_a_stored_line(games: GameService, mailbox: Mailbox) -> None:
    game = games.create("siam", PLAYERS, {})
    opened_links(games, game)
    lines = [["enter a1 N", "enter e5 S", "move a1 a2 N", "enter d5 S"]]
    with games.store.write():
        games.store.set_conditional_lines(game["id"], 1, lines, "2026-11-26T00:00:00Z")
    games.submit(MoveRequest(game["id"], seat=0, notation="enter a1 N"))
    send(games)
    turn = mailbox.latest("ann@example.org")  # Ann's turn again: Bob answered at once
    assert "e5" in text_of(turn)
    assert games.store.conditional_lines(game["id"]) == {1: [["move a1 a2 N", "enter d5 S"]]}
    for mail in mailbox.sink.messages:
        assert "enter d5 S" not in text_of(mail) and "d5 S" not in text_of(mail)


def test_a_takeback_offer_is_mailed_and_answered_by_mail(
    games: GameService, mailbox: Mailbox, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    game = games.create("siam", PLAYERS, {})
    opened_links(games, game)
    games.submit(MoveRequest(game["id"], seat=0, notation="enter a1 N"))
    offer_takeback(games, game["id"], 0)
    told = mailbox.latest("bob@example.org", "")  # with his turn: one mail, both news
    assert "Ann offers to take back move 1" in text_of(told)
    outcome = mail_in(db_url, smtp_sink[1], reply_to(told, "takeback accept"))
    assert outcome["status"] != "error", outcome
    assert [entry.notation for entry in games.store.moves(game["id"])][-1] == "takeback 1"
    answer = mailbox.latest("bob@example.org", "Takeback in")
    assert "The move was taken back, as agreed." in text_of(answer)
    assert "a1" not in games.load(game["id"]).state["board"]  # the elephant is back
