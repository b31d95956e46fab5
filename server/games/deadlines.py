"""Turn deadlines, reminders and vacations, driven by the worker's clock.

A game created with ``turn_hours`` or a ``clock`` (:mod:`server.games.time_control`)
gives each seat to move a deadline: when its clock runs out (the game's
``deadline`` is the soonest). The worker calls :func:`process_deadlines` with
the current time (tests pass their own):

- at half of the time a turn had when it started, and again 12 hours before
  the deadline, the seats to move get a reminder (each at most once per turn);
- when a seat's clock runs out and the clock gives automatic vacation days, the
  seat spends one of this year's (its player's, shared by all their games: see
  :mod:`server.games.vacation_days`): its clock gets a day more (``vacation-day``);
- when a seat's time is out, the game's ``deadline_policy`` applies once:
  ``remind`` sends one last reminder; ``skip`` plays ``{"action": "pass"}``
  for the seat when that is a legal move (else it reminds); ``forfeit`` ends
  the game, the late seat (and its partners) losing.

A move that lands while the clock works on a game wins: the clock's skip or
forfeit then does nothing (the game moved on), and the worker goes on. A game
the clock fails on is logged and skipped, so it cannot stop the other games'
clocks or the mail behind them.

A seat on vacation has its clocks paused: setting a vacation moves the
deadline of a running turn later by the length of the vacation, and a turn
that starts during a vacation starts its clock when the vacation ends. Each
seat may take :data:`VACATION_DAYS_PER_YEAR` days per calendar year.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import timedelta

from engines.phrases import phrase
from server.errors import TurnpostError
from server.games.clock import parse_time, utcnow
from server.games.game import Game
from server.games.seat_clocks import control_of, expired_seats, hold_seat, turn_start
from server.games.service import GameService, MoveRequest
from server.games.time_control import SeatClock, seat_clock
from server.games.vacation_days import spend_day

VACATION_DAYS_PER_YEAR = 30
HALF_TIME, TWELVE_HOURS, EXPIRED = 1, 2, 4
PASS = {"action": "pass"}
#: What a try to spend an automatic vacation day came to.
SPENT, NONE_LEFT, MOVED_ON = "spent", "none left", "moved on"

log = logging.getLogger(__name__)


@dataclass
class Action:
    """One thing the clock did to a game."""

    game_id: str
    kind: str  # reminder | expired-reminder | vacation-day | skip | forfeit
    seat: int


def process_deadlines(games: GameService, now: str | None = None) -> list[Action]:
    """Send due reminders and apply expired deadlines; returns what was done."""
    now = now or utcnow()
    actions: list[Action] = []
    for game_id in games.store.timed_games():
        try:
            actions += process_game(games, games.load(game_id), now)
        except Exception:  # one broken game must not stop every other game's clock
            log.exception("deadline of game %s failed", game_id)
    return actions


def process_game(games: GameService, game: Game, now: str) -> list[Action]:
    """Apply the clock at ``now`` to ``game`` as loaded (it may have moved on since)."""
    if game.status != "active" or not game.row.deadline:
        return []
    deadline = parse_time(game.row.deadline)
    moment = parse_time(now)
    to_move = game.to_move
    if moment >= deadline:
        return _expire(games, game, now)
    turn = deadline - (turn_start(game.row, game.seats) or deadline)
    due = 0
    if moment >= deadline - turn / 2:
        due |= HALF_TIME
    if moment >= deadline - timedelta(hours=12):
        due |= TWELVE_HOURS
    if not due & ~game.row.reminders_sent:
        return []
    return _remind(games, game, to_move, game.row.reminders_sent | due, expired=False)


def _remind(
    games: GameService, game: Game, seats: list[int], bits: int, expired: bool
) -> list[Action]:
    """Mail a reminder to ``seats`` and remember which reminders this turn had."""
    with games.store.write():
        if not games.store.set_reminders(game.id, game.seq, bits):
            return []
        for seat in seats:
            if games.notifier is not None:
                games.notifier.reminder(games.store, game, seat, expired)
    kind = "expired-reminder" if expired else "reminder"
    return [Action(game.id, kind, seat) for seat in seats]


def _expire(games: GameService, game: Game, now: str) -> list[Action]:
    """Spend a vacation day of the seat out of time, else apply the game's deadline
    policy once."""
    expired = expired_seats(game.row, game.seats, parse_time(now))
    seats = [seat for seat, _ in expired] or game.to_move
    for seat, clock in expired:
        outcome = _vacation_day(games, game, seat, clock, now)
        if outcome == SPENT:
            return [Action(game.id, "vacation-day", seat)]
        if outcome == MOVED_ON:  # another worker was first: the game is not as loaded
            return []
    policy = game.row.deadline_policy
    if policy == "forfeit" and seats:
        done = games.forfeit(game.id, seats[0], expected_seq=game.seq)
        return [Action(game.id, "forfeit", seats[0])] if done else []
    if policy == "skip":
        skippable = [s for s in seats if PASS in game.engine.legal_moves(game.state, s)]
        if skippable:
            return _skip(games, game, skippable[0], now)
    if game.row.reminders_sent & EXPIRED:
        return []
    bits = game.row.reminders_sent | EXPIRED | HALF_TIME | TWELVE_HOURS
    return _remind(games, game, seats, bits, expired=True)


def _vacation_day(games: GameService, game: Game, seat: int, clock: SeatClock, now: str) -> str:
    """Give ``seat``'s clock one of this year's automatic vacation days
    (:mod:`server.games.vacation_days`): :data:`SPENT`; :data:`NONE_LEFT` when the game or
    its player has none; :data:`MOVED_ON` when the game or the seat's clock changed since
    ``game`` was loaded (another worker spent a day or applied the policy)."""
    control = control_of(game.row)
    if control is None or control.vacation_days <= 0:
        return NONE_LEFT
    with games.store.write():
        current = games.load(game.id)
        if current.seq != game.seq or current.status != "active":
            return MOVED_ON
        if current.seats[seat].clock != game.seats[seat].clock:
            return MOVED_ON
        held = spend_day(games.store, control, current.seats[seat], clock, parse_time(now))
        if held is None:
            return NONE_LEFT
        deadline = hold_seat(games.store, current.row, current.seats, seat, held)
        games.store.update_game(game.id, {"deadline": deadline, "reminders_sent": 0})
    return SPENT


def _skip(games: GameService, game: Game, seat: int, now: str) -> list[Action]:
    """Pass for ``seat``, unless the game moved on since ``game`` was loaded."""
    try:
        games.submit(
            MoveRequest(
                game.id, seat=seat, move=dict(PASS), expected_seq=game.seq, now=now, by_clock=True
            )
        )
    except TurnpostError as error:
        if error.code not in {"stale_seq", "game_over"}:
            raise
        return []
    return [Action(game.id, "skip", seat)]


def set_vacation(
    games: GameService, game_id: str, seat: int, until: str, now: str | None = None
) -> dict[str, object]:
    """Pause ``seat``'s clocks until ``until``; ``422`` beyond the yearly allowance."""
    now = now or utcnow()
    start, end = parse_time(now), parse_time(until)
    if end <= start:
        raise TurnpostError(
            "invalid_request",
            phrase("A vacation must end in the future."),
            {"until": ["Must be later than now."]},
        )
    days = (end - start).total_seconds() / 86400
    with games.store.write():
        game = games.load(game_id)
        row = game.seats[seat]
        used = row.vacation_days_used if row.vacation_year == start.year else 0
        if used + days > VACATION_DAYS_PER_YEAR:
            left = max(VACATION_DAYS_PER_YEAR - used, 0)
            raise TurnpostError(
                "invalid_request",
                phrase("Only %(left)s vacation days are left this year.", left=f"{left:.1f}"),
                {"until": [f"At most {VACATION_DAYS_PER_YEAR} days per year."]},
            )
        games.store.set_vacation(game_id, seat, until, start.year, used + days)
        control = control_of(game.row)
        clock = None if control is None else seat_clock(game.seats[seat].clock, control)
        if game.status == "active" and clock is not None and clock.since is not None:
            held = replace(clock, since=clock.since + (end - start))
            deadline = hold_seat(games.store, game.row, game.seats, seat, held)
            games.store.update_game(game_id, {"deadline": deadline})
    return {
        "seat": seat,
        "until": until,
        "days_used": used + days,
        "days_left": VACATION_DAYS_PER_YEAR - used - days,
    }
