"""Conditional moves stay private in mail: a real SMTP server receives every mail of the game."""

from __future__ import annotations

from typing import Any

from server.games.service import GameService, MoveRequest
from tests.mail.conftest import PLAYERS, Mailbox, opened_links, send


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
