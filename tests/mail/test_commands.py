"""Mail commands by reply (issue 15): each works and is answered by mail; a mistyped move is
answered with the list of commands (other words are table talk: tests/talk)."""

from __future__ import annotations

import pytest

from server.games.clock import parse_time
from server.games.service import GameService
from server.mail.inbound import receive
from server.mail.settings import rate
from server.mail.words import COMMANDS
from tests.mail.conftest import PLAYERS, Mailbox, reply_to
from tests.mail.samples import text_of

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


@pytest.fixture
def turn(games: GameService, mailbox: Mailbox):
    """Ann's first turn mail in a timed Siam game."""
    games.create("siam", PLAYERS, {}, turn_hours=48)
    return mailbox.latest("ann@example.org")


def ask(games: GameService, mailbox: Mailbox, turn, command: str, subject: str) -> str:
    """Reply ``command`` to ``turn``; the words of the answer whose subject starts so."""
    outcome = receive(reply_to(turn, command), games, games.notifier.settings)
    assert outcome.status == "command" and outcome.answered, outcome
    answer = mailbox.latest("ann@example.org", subject)
    assert answer["In-Reply-To"], "not threaded under the player's mail"
    return " ".join(text_of(answer).split())


def game_of(games: GameService):
    [game_id] = games.store.game_ids()
    return games.load(game_id)


def test_board_sends_the_board_again(games: GameService, mailbox: Mailbox, turn) -> None:
    text = ask(games, mailbox, turn, "board", "The board of Siam with Bob (move 1)")
    assert "Here is the board as it stands now." in text and "| ROCK | ROCK | ROCK |" in text


def test_moves_lists_every_legal_move_in_words(games: GameService, mailbox: Mailbox, turn) -> None:
    text = ask(games, mailbox, turn, "Moves", "Your legal moves in Siam with Bob")
    assert text.count("Ann enters an elephant on") == 56


def test_help_and_a_mistyped_move_list_the_commands(
    games: GameService, mailbox: Mailbox, turn
) -> None:
    text = ask(games, mailbox, turn, "help", "Mail commands")
    assert all(command in text for command, _ in COMMANDS)
    outcome = receive(reply_to(turn, "hop a1"), games, games.notifier.settings)
    assert outcome.status == "rejected"
    refusal = " ".join(text_of(mailbox.latest("ann@example.org", "Move not played")).split())
    assert 'Your move "hop a1" was not played' in refusal
    assert all(meaning in refusal for _, meaning in COMMANDS)
    assert 'write "say:" before your words' in refusal


def test_vacation_pauses_the_clock_and_says_until_when(
    games: GameService, mailbox: Mailbox, turn
) -> None:
    before = parse_time(game_of(games).row.deadline)
    text = ask(games, mailbox, turn, "vacation 7", "Vacation in Siam with Bob until")
    assert (parse_time(game_of(games).row.deadline) - before).days == 7
    assert "23 vacation days left this year" in text
    text = ask(games, mailbox, turn, "vacation 40", "No vacation")
    assert "from 1 to 30" in text
    text = ask(games, mailbox, turn, "vacation 30", "No vacation")
    assert "vacation days are left" in text


def test_resign_ends_the_game_and_everyone_is_told(
    games: GameService, mailbox: Mailbox, turn
) -> None:
    outcome = receive(reply_to(turn, "resign"), games, games.notifier.settings)
    assert outcome.status == "command"
    game = game_of(games)
    assert game.status == "finished"
    assert games.game_object(game, None)["result"]["winners"] == [1]
    ann = " ".join(text_of(mailbox.latest("ann@example.org", "Game over")).split())
    assert "You resigned: the game is over." in ann and "Bob wins: Ann resigned." in ann
    bob = mailbox.latest("bob@example.org", "Game over")  # his first mail: no names in it
    assert bob["Subject"] == "Game over in Siam" and "Bob wins" in text_of(bob)
    text = ask(games, mailbox, turn, "resign", "You resigned")
    assert "Nothing changed: The game is finished" in text


def test_answers_to_one_seat_are_limited(games: GameService, mailbox: Mailbox, turn) -> None:
    allowed, _ = rate(games.notifier.settings.answers_seat)
    outcomes = [receive(reply_to(turn, "help"), games, games.notifier.settings) for _ in range(12)]
    assert [o.answered for o in outcomes] == [True] * allowed + [False] * (12 - allowed)


def test_a_command_delivered_twice_runs_once_even_when_its_answer_was_withheld(
    games: GameService, mailbox: Mailbox, turn
) -> None:
    settings = games.notifier.settings
    count, _ = rate(settings.answers_seat)
    for _ in range(count):  # the seat's answers for the hour, used up
        assert receive(reply_to(turn, "board"), games, settings).answered
    before = parse_time(game_of(games).row.deadline)
    vacation = reply_to(turn, "vacation 7")
    first = receive(vacation, games, settings)
    assert first.status == "command" and not first.answered, "the answer is over the limit"
    assert receive(vacation, games, settings).status == "duplicate"
    assert (parse_time(game_of(games).row.deadline) - before).days == 7
    assert game_of(games).seats[0].vacation_days_used == 7
