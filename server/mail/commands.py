"""Mail commands: a reply whose first line is a word such as ``board`` instead of a move.

As play-by-mail servers have always offered, a seat may reply to any mail of
its game with one of :data:`server.mail.words.COMMANDS`:

``board``
    the board again; ``moves``: every legal move, each in words;
``resign``
    give up the game (everyone else wins);
``takeback``
    offer to take back the seat's last move; ``takeback accept`` / ``takeback decline``
    answer another seat's offer (:mod:`server.games.takebacks`);
``if enter a1 N then enter e5 S``
    a conditional move, added to the seat's lines (:mod:`server.games.conditional`);
``vacation 7``
    pause the seat's turn clock for 7 days (:func:`server.games.deadlines.set_vacation`);
``stop`` / ``start``
    no more mail about this game for this seat / mail again (it still plays on the web);
``help``
    the list.

Each is answered by mail (an ``answer`` row in the outbox, limited per seat
by the mail gate). A command that changes something (``resign``, ``stop``,
``start``) is its word alone, so that talk is never taken for it; other words
may follow ``board``, ``moves`` and ``help``, and ``vacation`` takes its
number of days. Words that are neither a command nor a move are table talk
(:mod:`server.mail.talk`), unless they look like a move: those are refused
with the reason and the list of commands.

    >>> parse_command("Vacation 7"), parse_command("enter a1 N")
    (Command(name='vacation', argument='7'), None)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any

from engines.phrases import N_, Words, phrase
from server.errors import TurnpostError
from server.games.clock import format_time, parse_time, utcnow
from server.games.conditional import checked_lines
from server.games.deadlines import VACATION_DAYS_PER_YEAR, set_vacation
from server.games.service import GameService
from server.games.takebacks import answer_takeback, offer_takeback
from server.mail.words import COMMAND_WORDS, COMMANDS

#: A conditional move (``if MOVE then ANSWER``): its own shape, so that talk starting with
#: "if" stays talk.
CONDITIONAL = re.compile(r"^if\s+(?P<move>.+?)\s+then\s+(?P<answer>.+?)[.!]?$", re.IGNORECASE)
#: The usages of the commands that are a word (and perhaps an argument).
WORDS = tuple(usage for usage, _ in COMMANDS if not CONDITIONAL.match(usage))
NAMES = tuple(usage.split()[0] for usage in WORDS)
#: The commands that take an argument (``vacation 7``).
WITH_ARGUMENT = tuple(usage.split()[0] for usage in WORDS if " " in usage)
#: The commands that only answer (privately): other words may follow them ("board please").
ANSWERING = ("board", "moves", "help")
#: The commands that change something (``resign``, ``stop``, ``start``): their word alone.
CHANGING = tuple(name for name in NAMES if name not in (*WITH_ARGUMENT, *ANSWERING))


@cache
def command_pattern(language: str) -> tuple[re.Pattern[str], dict[str, str]]:
    """How a line written in ``language`` is read as a command (its words and the English
    ones), and each word's command."""
    said = {name: name for name in NAMES}
    said |= {word: name for name, word in COMMAND_WORDS.get(language, {}).items()}

    def words(names: tuple[str, ...]) -> str:
        return "|".join(re.escape(word) for word, name in said.items() if name in names)

    pattern = re.compile(
        rf"^(?:(?P<answering>{words(ANSWERING)})\b.*"
        rf"|(?P<changing>{words(CHANGING)})[.!]?"
        rf"|(?P<with_argument>{words(WITH_ARGUMENT)})(?:\s+(?P<argument>.*))?)$",
        re.IGNORECASE,
    )
    return pattern, said


@dataclass(frozen=True)
class Command:
    """A mail command and what follows its word."""

    name: str
    argument: str = ""


def parse_command(line: str, language: str = "en") -> Command | None:
    """The command written on ``line`` in ``language`` (or in English), or ``None`` if it is
    not one (a move, or table talk).

    A command that changes something is its word alone: "Stop it, Bob!" and "Resign?
    Never!" are talk, not ``stop`` or ``resign``; other words may follow one that only
    answers ("board please").

    >>> parse_command("Board, please"), parse_command("Resign?"), parse_command("stop.")
    (Command(name='board', argument=''), None, Command(name='stop', argument=''))
    >>> parse_command("Vakantie 5", "nl"), parse_command("Aufgeben", "de")
    (Command(name='vacation', argument='5'), Command(name='resign', argument=''))
    >>> parse_command("If enter a1 N then enter e5 S"), parse_command("If only!")
    (Command(name='if', argument='enter a1 N then enter e5 S'), None)
    """
    conditional = CONDITIONAL.match(line.strip())
    if conditional is not None:
        return Command("if", f"{conditional['move']} then {conditional['answer']}")
    pattern, said = command_pattern(language)
    match = pattern.match(line.strip())
    if match is None:
        return None
    word = match["answering"] or match["changing"] or match["with_argument"]
    return Command(said[word.lower()], (match["argument"] or "").strip())


def run_command(
    games: GameService, game_id: str, seat: int, message_id: str | None, command: Command
) -> bool:
    """Carry out ``command`` for ``seat`` and queue its answer; whether the answer was queued."""
    now = utcnow()
    facts: dict[str, Any] = {"command": command.name}
    if command.name == "vacation":
        facts |= _vacation(games, game_id, seat, command.argument, now)
    elif command.name == "resign":
        facts["said"] = _resign(games, game_id, seat)
    elif command.name == "takeback":
        facts["said"] = _takeback(games, game_id, seat, command.argument)
    elif command.name == "if":
        facts["said"] = _conditional(games, game_id, seat, command.argument)
    with games.store.write():
        game = games.load(game_id)
        if command.name in ("stop", "start"):
            games.store.stop_mail(game_id, seat, now if command.name == "stop" else None)
            game = games.load(game_id)
        notifier = games.notifier
        return notifier is not None and notifier.answer(
            games.store, game, seat, message_id, **facts
        )


def _vacation(
    games: GameService, game_id: str, seat: int, argument: str, now: str
) -> dict[str, Any]:
    """Set a vacation of ``argument`` days; its end and the days left, or the error."""
    days = _days(argument)
    if days is None:
        return {
            "error": phrase(
                "write how many days, from 1 to %(days)s: vacation 7", days=VACATION_DAYS_PER_YEAR
            )
        }
    until = format_time(parse_time(now) + timedelta(days=days))
    try:
        answer = set_vacation(games, game_id, seat, until, now)
    except TurnpostError as error:
        return {"error": error.words}
    return {"until": until, "days_left": math.floor(answer["days_left"])}


def _days(argument: str) -> float | None:
    """``argument`` as a number of vacation days, or ``None``.

    >>> _days("7"), _days("2.5"), _days("0"), _days("nan"), _days("many")
    (7.0, 2.5, None, None, None)
    """
    try:
        days = float(argument)
    except ValueError:
        return None
    return days if 0 < days <= VACATION_DAYS_PER_YEAR else None


#: What ``takeback ...`` answers an offer with: the word after it.
TAKEBACK_ANSWERS = {"accept": True, "decline": False}
#: What a takeback command did, in words, by its outcome.
TAKEBACK_WORDS = {
    "offered": N_(
        "Your takeback offer was sent to the other players: the move is taken back once they"
        " all accept."
    ),
    "accepted": N_("You accepted the takeback; it waits for the other players' answers."),
    "declined": N_("You declined the takeback: the move stays."),
    "taken_back": N_("The move was taken back, as agreed."),
}


def _takeback(games: GameService, game_id: str, seat: int, argument: str) -> Words:
    """Offer a takeback (no ``argument``) or answer one (``accept``, ``decline``); what to
    tell the seat (a phrase, said in its language)."""
    word = argument.lower().strip(" .!")
    if word and word not in TAKEBACK_ANSWERS:
        return phrase('Nothing changed: write "takeback", "takeback accept" or "takeback decline".')
    try:
        if word:
            answer = answer_takeback(games, game_id, seat, TAKEBACK_ANSWERS[word])
        else:
            answer = offer_takeback(games, game_id, seat)
    except TurnpostError as error:
        return phrase("Nothing changed: %(why)s", why=error.words)
    return phrase(TAKEBACK_WORDS[answer["outcome"]])


def _conditional(games: GameService, game_id: str, seat: int, argument: str) -> Words:
    """Add the line ``MOVE then ANSWER`` to the seat's conditional moves; what to tell it (a
    phrase, said in its language)."""
    move, _, answer = argument.partition(" then ")
    with games.store.write():
        game = games.load(game_id)
        lines = games.store.conditional_lines(game_id).get(seat, [])
        try:
            kept = checked_lines(game, seat, [*lines, [move, answer]])
        except TurnpostError as error:
            return phrase("Nothing changed: %(why)s", why=error.words)
        games.store.set_conditional_lines(game_id, seat, kept, utcnow())
    return phrase(
        "Stored: if %(move)s is played, %(answer)s answers it at once. Only you see your"
        " conditional moves (%(count)s stored).",
        move=kept[-1][0],
        answer=kept[-1][1],
        count=len(kept),
    )


def _resign(games: GameService, game_id: str, seat: int) -> Words:
    """Resign ``seat``; what to tell it (a phrase, said in its language)."""
    try:
        games.resign(game_id, seat)
    except TurnpostError as error:
        return phrase("Nothing changed: %(why)s", why=error.words)
    return phrase("You resigned: the game is over.")
