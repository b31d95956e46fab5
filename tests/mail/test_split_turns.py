"""A turn split into decisions by the same seat, played by email (Foreign King citizens)."""

from __future__ import annotations

from server.games.service import GameService
from server.mail.inbound import receive
from tests.mail.conftest import Sink
from tests.mail.test_inbound import PLAYERS, Mailbox, log, reply_to
from tests.server.test_split_turns import POSITION

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def test_an_emailed_first_step_leaves_the_move_open_and_the_next_mail_asks_for_the_rest(
    games: GameService, smtp_sink: tuple[Sink, str]
) -> None:
    mailbox = Mailbox(games, *smtp_sink)
    game = games.create("foreign-king", PLAYERS, {}, seed=3, position=POSITION)
    settings = games.notifier.settings
    first = mailbox.latest("ann@example.org")
    assert receive(reply_to(first, "step namur liege"), games, settings).status == "applied"
    rest = mailbox.latest("ann@example.org")
    assert "(move 2)" in rest["Subject"]
    text = rest.get_body(("plain",)).get_content()
    assert "    end\r\n" in text and "step liege brabant" in text
    assert receive(reply_to(rest, "end"), games, settings).status == "applied"
    assert "(move 3)" in mailbox.latest("bob@example.org")["Subject"]
    assert log(games, game["id"]) == ["step namur liege", "end"]


def test_an_emailed_whole_move_of_citizens_is_one_reply(
    games: GameService, smtp_sink: tuple[Sink, str]
) -> None:
    mailbox = Mailbox(games, *smtp_sink)
    game = games.create("foreign-king", PLAYERS, {}, seed=3, position=POSITION)
    turn = mailbox.latest("ann@example.org")
    whole = "move namur: liege | hainaut west-vlaanderen"
    assert receive(reply_to(turn, whole), games, games.notifier.settings).status == "applied"
    assert log(games, game["id"]) == [whole]
    assert "(move 2)" in mailbox.latest("bob@example.org")["Subject"]
