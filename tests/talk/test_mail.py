"""Table talk by mail, delivered to a real SMTP server (aiosmtpd) (issue 21).

A reply that is neither a move nor a command ("gg") is posted to the table and
the answer says so; "say: ..." is explicit; a mistyped move ("enter a1") is
still refused as a move. The next mail of each other player tells what was said
since their last one, escaped in HTML, once; the partners' thread of 4-player
King of Siam reaches the partner's mail only; a seat that has not acted gets no
one's words; a seat's mutes hold for its mail too.
"""

from __future__ import annotations

from email.message import EmailMessage
from typing import Any

from server.games.service import GameService, MoveRequest
from server.games.talk import PER_MINUTE, TalkService
from server.mail.addresses import reply_address
from server.mail.inbound import receive
from tests.mail.conftest import PLAYERS, Mailbox, opened_links, reply_to
from tests.mail.samples import html_of, text_of

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

ANN, BOB = "ann@example.org", "bob@example.org"


def reply(games: GameService, mail: EmailMessage, text: str) -> Any:
    """What became of ``text`` replied to ``mail``."""
    return receive(reply_to(mail, text), games, games.notifier.settings)


def talk(games: GameService, game: dict, thread: str = "table", seat: int = 0) -> list[str]:
    """The texts of a thread, as ``seat`` reads it."""
    return [m["text"] for m in TalkService(games.store).read(games.load(game["id"]), seat, thread)]


def words(mail: EmailMessage) -> str:
    """The text part, its lines joined."""
    return " ".join(text_of(mail).split())


def siam(games: GameService) -> dict:
    """A Siam game of Ann and Bob, both of whom opened their mail's link."""
    game = games.create("siam", PLAYERS, {})
    opened_links(games, game)
    return game


def test_a_gg_reply_is_posted_and_told_in_the_next_turn_mail_escaped_once(
    games: GameService, mailbox: Mailbox
) -> None:
    game = siam(games)
    turn = mailbox.latest(ANN)
    outcome = reply(games, turn, "Good luck, Bob! <b>no tags</b>\nHave fun")
    assert (outcome.status, outcome.answered) == ("said", True)
    assert talk(games, game) == ["Good luck, Bob! <b>no tags</b>\nHave fun"], "the quote was kept"
    answer = mailbox.latest(ANN, "Posted to the table of Siam with Bob")
    assert "Your words were posted to the table" in words(answer)
    assert answer["In-Reply-To"], "not threaded under the player's mail"
    assert reply(games, turn, "enter a1 N").status == "applied"
    bob = mailbox.latest(BOB)
    text, html = text_of(bob), html_of(bob)
    assert "Ann said: Good luck, Bob! <b>no tags</b>\n    Have fun" in text
    assert "Good luck, Bob! &lt;b&gt;no tags&lt;/b&gt;<br>Have fun" in html
    assert "<b>no tags</b>" not in html
    assert reply(games, bob, "enter e5 S").status == "applied"
    assert "Good luck" not in text_of(mailbox.latest(ANN)), "Ann is told her own words"
    assert reply(games, bob, "board").status == "command"
    assert "Good luck" not in text_of(mailbox.latest(BOB, "The board")), "told twice"


def test_gg_enter_a1_and_say_hi(games: GameService, mailbox: Mailbox) -> None:
    game = siam(games)
    turn = mailbox.latest(ANN)
    mistyped = reply(games, turn, "enter a1")
    assert mistyped.status == "rejected" and "takes 2 words after it" in mistyped.reason
    refusal = words(mailbox.latest(ANN, "Move not played"))
    assert 'Your move "enter a1" was not played' in refusal and '"say:"' in refusal
    assert reply(games, turn, "gg").status == "said"
    assert reply(games, turn, "say: hi").status == "said"
    assert reply(games, turn, "Say: enter a1 N is my plan").status == "said"
    assert reply(games, turn, "Stop it, Bob!").status == "said", "talk taken for 'stop'"
    assert reply(games, turn, "Resign? Never!").status == "said", "talk taken for 'resign'"
    assert reply(games, turn, "hop a1").status == "rejected", "a mistyped move was posted"
    assert reply(games, turn, "board please").status == "command"
    assert talk(games, game) == [
        "gg",
        "hi",
        "enter a1 N is my plan",
        "Stop it, Bob!",
        "Resign? Never!",
    ]
    assert games.store.seat(game["id"], 0).mail_stopped_at is None
    assert games.store.moves(game["id"]) == [] and games.load(game["id"]).status == "active"


def test_a_mail_delivered_twice_is_posted_once_and_a_bad_one_is_answered(
    games: GameService, mailbox: Mailbox
) -> None:
    game = siam(games)
    turn = mailbox.latest(ANN)
    raw = reply_to(turn, "Nice to meet you")
    assert receive(raw, games, games.notifier.settings).status == "said"
    assert receive(raw, games, games.notifier.settings).status == "duplicate"
    assert mailbox.latest(ANN, "Posted to the table")
    refused = reply(games, turn, "say: " + "x" * 501)
    assert refused.status == "rejected" and refused.reason == "At most 500 characters."
    answer = words(mailbox.latest(ANN, "Not posted to the table"))
    assert "Your words were not posted to the table: At most 500 characters." in answer
    for number in range(PER_MINUTE - 1):  # the first message counts too
        assert reply(games, turn, f"say: number {number}").status == "said"
    limited = reply(games, turn, "say: one too many")
    assert limited.status == "rejected" and "10 messages a minute" in limited.reason
    assert len(talk(games, game)) == PER_MINUTE


def ask_board(games: GameService, turn: EmailMessage, game: dict, seat: int) -> Any:
    """``seat`` replies "board" (from its own reply address) to a mail of ``game``."""
    address = reply_address(games.notifier.settings, game["id"], seat, 0)
    return receive(reply_to(turn, "board", To=address), games, games.notifier.settings)


def test_the_partners_thread_reaches_the_partners_mail_only(
    games: GameService, mailbox: Mailbox
) -> None:
    names = ("Ann", "Bob", "Cleo", "Dan")
    players = [{"name": name, "email": f"{name.lower()}@example.org"} for name in names]
    game = games.create("king-of-siam", players, {})
    opened_links(games, game)
    first = games.load(game["id"]).to_move[0]
    turn = mailbox.latest(players[first]["email"])
    plan = "Keep your Rama for Bangkok"
    outcome = reply(games, turn, f"team: {plan}")
    assert (outcome.status, outcome.reason) == ("said", "partners")
    posted = words(mailbox.latest(players[first]["email"], "Posted to your team in"))
    assert "posted to your team" in posted
    assert reply(games, turn, "say: Hello all").status == "said"
    partner = (first + 2) % 4
    for seat in {0, 1, 2, 3} - {first}:
        assert ask_board(games, turn, game, seat).status == "command"
        mail = mailbox.latest(players[seat]["email"], "The board")
        seen = text_of(mail) + html_of(mail)
        assert f"{names[first]} said: Hello all" in text_of(mail), seat
        if seat == partner:
            assert f"{names[first]} said to your team: {plan}" in text_of(mail)
        else:
            assert plan not in seen, f"{names[seat]} of the other team read the partners"


def test_no_one_is_mailed_words_before_they_acted(games: GameService, mailbox: Mailbox) -> None:
    """The creator holds every seat's token: the words they post as one seat must not reach a
    stranger whose address they gave for the other, in the one mail that stranger gets."""
    game = games.create("siam", [{"name": "Ann"}, {"name": "Bob", "email": BOB}], {})
    spam = "BUY CHEAP PILLS at pills.example"
    TalkService(games.store).post(games.load(game["id"]), 0, spam)
    token = game["players"][0]["token"]
    games.submit(MoveRequest(game["id"], token=token, notation="enter a1 N"))
    invitation = mailbox.latest(BOB)
    assert [m["To"] for m in mailbox.sink.messages] == [BOB], "one mail, to Bob only"
    assert "PILLS" not in text_of(invitation) + html_of(invitation)
    assert games.store.seat(game["id"], 1).talk_mailed == 0, "counted as told"
    assert ask_board(games, invitation, game, 1).status == "command"
    assert f"Ann said: {spam}" in text_of(mailbox.latest(BOB, "The board")), "once Bob acted"


def test_a_seat_that_muted_another_is_not_mailed_their_words(
    games: GameService, mailbox: Mailbox
) -> None:
    game = siam(games)
    loaded = games.load(game["id"])
    TalkService(games.store).set_muted(loaded, 1, 0, True)
    turn = mailbox.latest(ANN)
    assert reply(games, turn, "You are going down, Bob").status == "said"
    assert reply(games, turn, "enter a1 N").status == "applied"
    assert "going down" not in text_of(mailbox.latest(BOB))
