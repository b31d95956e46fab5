"""Automatic vacation days, spent one at a time when a seat's time runs out.

Each is spent before the game's deadline policy applies: the seat's clock gets a day more.

A game's clock switches them on with ``vacation_days`` (more than 0): the most one seat
spends in that game per calendar year. A seat of a signed-in player also spends them from
its player's own days, :func:`yearly_allowance` per calendar year in the player's time zone
(``TURNPOST_AUTO_VACATION_DAYS``), shared by all the player's games: a day spent in one game
is gone for the others. The store counts a player's days in one statement
(:meth:`~server.store.base.PlayerStore.spend_vacation_day`), so two games timing out at once
on two workers never spend more than the player has. A seat without a player keeps today's
count in its clock: the game's ``vacation_days`` per UTC calendar year.

    >>> yearly_allowance({}), yearly_allowance({"TURNPOST_AUTO_VACATION_DAYS": "3"})
    (10, 3)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from server.games.time_control import SeatClock, TimeControl, seat_clock, spend_vacation_day
from server.store.base import Store
from server.store.records import Player, Seat

#: The setting of a player's automatic vacation days per calendar year, and its default.
SETTING = "TURNPOST_AUTO_VACATION_DAYS"
DEFAULT_DAYS = 10
#: The most days the setting may give (a year's days).
MAX_DAYS = 366


def yearly_allowance(environ: Mapping[str, str] | None = None) -> int:
    """A player's automatic vacation days per calendar year (``TURNPOST_AUTO_VACATION_DAYS``
    in ``environ``, default this process's environment); ``ValueError`` if it is not a whole
    number from 0 to 366."""
    environ = os.environ if environ is None else environ
    text = environ.get(SETTING, str(DEFAULT_DAYS))
    if not text.strip().isdigit() or int(text) > MAX_DAYS:
        raise ValueError(f"{SETTING} must be a whole number from 0 to {MAX_DAYS}, not {text!r}")
    return int(text)


def player_year(player: Player, moment: datetime) -> int:
    """The calendar year of ``moment`` in ``player``'s time zone (UTC if it is unknown).

    >>> from datetime import UTC
    >>> ann = Player("p", "a@x", "a@x", "Ann", "Pacific/Auckland", "en", "turn", "")
    >>> player_year(ann, datetime(2026, 12, 31, 12, tzinfo=UTC))
    2027
    """
    try:
        zone = ZoneInfo(player.time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    return moment.astimezone(zone).year


def player_days_left(store: Store, player: Player, moment: datetime) -> int:
    """The automatic vacation days ``player`` has left in the year of ``moment``, across
    all their games."""
    year = player_year(player, moment)
    return max(yearly_allowance() - store.vacation_days_used(player.id, year), 0)


def seat_days_left(store: Store, control: TimeControl, seat: Seat, moment: datetime) -> int:
    """The automatic vacation days ``seat`` may still spend in its game this year: the
    game's days left for it, and no more than its player's (0 where the game gives none)."""
    if control.vacation_days <= 0:
        return 0
    clock = seat_clock(seat.clock, control)
    player = store.player(seat.player_id) if seat.player_id else None
    if player is None:
        return clock.vacation_left(control, moment.year)
    in_game = clock.vacation_left(control, player_year(player, moment))
    return min(in_game, player_days_left(store, player, moment))


def spend_day(
    store: Store, control: TimeControl, seat: Seat, clock: SeatClock, moment: datetime
) -> SeatClock | None:
    """``clock`` (of ``seat``, out of time at ``moment``) with a vacation day more to run,
    counted against its player's days too (inside the caller's write); ``None`` when the
    game or the player has none left."""
    player = store.player(seat.player_id) if seat.player_id else None
    if player is None:
        return spend_vacation_day(control, clock, moment.year)
    year = player_year(player, moment)
    held = spend_vacation_day(control, clock, year)
    if held is None or not store.spend_vacation_day(player.id, year, yearly_allowance()):
        return None
    return held
