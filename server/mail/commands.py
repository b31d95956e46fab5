"""Mail commands: a reply whose first line is a word such as ``board`` instead of a move.

As play-by-mail servers have always offered, a seat may reply to any mail of
its game with one of :data:`server.mail.words.COMMANDS`:

``board``
    the board again; ``moves``: every legal move, each in words;
``resign``
    give up the game (everyone else wins);
``vacation 7``
    pause the seat's turn clock for 7 days (:func:`server.games.deadlines.set_vacation`);
``stop`` / ``start``
    no more mail about this game for this seat / mail again (it still plays on the web);
``help``
    the list.

Each is answered by mail (an ``answer`` row in the outbox, limited per seat
by the mail gate). A command is its word alone (``vacation`` takes its
number of days). Words that are neither a command nor a move are table talk
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
from typing import Any

from server.errors import TurnpostError
from server.games.clock import format_time, parse_time, utcnow
from server.games.deadlines import VACATION_DAYS_PER_YEAR, set_vacation
from server.games.service import GameService
from server.mail.words import COMMANDS

NAMES = tuple(usage.split()[0] for usage, _ in COMMANDS)
#: The commands that take an argument (``vacation 7``); the others are a word alone.
WITH_ARGUMENT = tuple(usage.split()[0] for usage, _ in COMMANDS if " " in usage)
COMMAND = re.compile(
    rf"^(?:(?P<name>{'|'.join(NAMES)})[.!?]?"
    rf"|(?P<name_with>{'|'.join(WITH_ARGUMENT)})(?:\s+(?P<argument>.*))?)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Command:
    """A mail command and what follows its word."""

    name: str
    argument: str = ""


def parse_command(line: str) -> Command | None:
    """The command written on ``line``, or ``None`` if it is not one (a move, or table talk).

    A command is its word alone, but for those taking an argument: "Stop it, Bob!" is
    talk, not ``stop``.

    >>> parse_command("Help?"), parse_command("stop it, Bob!")
    (Command(name='help', argument=''), None)
    """
    match = COMMAND.match(line.strip())
    if match is None:
        return None
    name = match["name"] or match["name_with"]
    return Command(name.lower(), (match["argument"] or "").strip())


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
        return {"error": f"write how many days, from 1 to {VACATION_DAYS_PER_YEAR}: vacation 7"}
    until = format_time(parse_time(now) + timedelta(days=days))
    try:
        answer = set_vacation(games, game_id, seat, until, now)
    except TurnpostError as error:
        return {"error": error.message}
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


def _resign(games: GameService, game_id: str, seat: int) -> str:
    """Resign ``seat``; what to tell it."""
    try:
        games.resign(game_id, seat)
    except TurnpostError as error:
        return f"Nothing changed: {error.message}"
    return "You resigned: the game is over."
