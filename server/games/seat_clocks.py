"""The clocks of a game's seats as stored, and the game's deadline they give.

They are the game's time control, each seat's clock, and the game's deadline
(the soonest moment a seat to move runs out of time).

The arithmetic is :mod:`server.games.time_control`'s; this module reads and
writes it in the store's records. A seat's time zone is its player's (a seat
without a player: the pause's ``time_zone``, else UTC), kept in the seat's
clock when its turn starts, so that the game's view needs no further lookup.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from server.games.clock import format_time, parse_time
from server.games.time_control import (
    SeatClock,
    TimeControl,
    advance,
    clock_json,
    expiry,
    parse_clock,
    paused,
    remaining,
    seat_clock,
    seat_clock_json,
)
from server.store.base import Store
from server.store.records import GameRow, GameStamp, Seat


def control_of(row: GameRow | GameStamp) -> TimeControl | None:
    """The time control of a game (its row or its stamp): its ``clock``, else the per-move
    clock of its ``turn_hours``, else ``None`` (untimed)."""
    if row.clock:
        return parse_clock(row.clock)
    if row.turn_hours:
        return TimeControl("per_move", row.turn_hours)
    return None


def zone_of(data: dict[str, Any] | None) -> ZoneInfo:
    """The time zone kept in a seat's stored clock (UTC if none)."""
    try:
        return ZoneInfo((data or {}).get("zone") or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _seat_zone(store: Store, control: TimeControl, seat: Seat) -> str:
    """The zone a seat's quiet times follow: its player's, else the pause's."""
    if control.pause is None:
        return "UTC"
    player = store.player(seat.player_id) if seat.player_id else None
    return player.time_zone if player is not None else control.pause.time_zone


def turn_clocks(
    store: Store,
    row: GameRow,
    seats: Sequence[Seat],
    before: Sequence[int],
    after: Sequence[int],
    mover: int | None,
    now: str,
) -> str | None:
    """Move the seats' clocks on as the seats to move go from ``before`` to ``after`` at
    ``now`` (``mover`` made the change); write the seats' clocks (inside the caller's write)
    and return the game's new deadline (``None``: untimed, or nobody to move)."""
    control = control_of(row)
    if control is None:
        return None
    zones = {seat.seat: ZoneInfo(_seat_zone(store, control, seat)) for seat in seats}
    old = {seat.seat: seat_clock(seat.clock, control) for seat in seats}
    starts = {s.seat: parse_time(s.vacation_until) for s in seats if s.vacation_until}
    new = advance(control, old, before, after, mover, parse_time(now), zones, starts)
    for seat, clock in new.items():
        if clock != old[seat] or seats[seat].clock is None:
            data = {**seat_clock_json(clock), "zone": zones[seat].key}
            store.update_seat(row.id, seat, {"clock": data})
    return _soonest(control, {seat: (new[seat], zones[seat]) for seat in after})


def hold_seat(
    store: Store, row: GameRow, seats: Sequence[Seat], seat: int, clock: SeatClock
) -> str | None:
    """Keep ``clock`` as ``seat``'s clock (inside the caller's write, e.g. a vacation day
    spent) and return the game's new deadline."""
    control = control_of(row)
    assert control is not None
    zone = zone_of(seats[seat].clock)
    store.update_seat(row.id, seat, {"clock": {**seat_clock_json(clock), "zone": zone.key}})
    clocks = {s.seat: (seat_clock(s.clock, control), zone_of(s.clock)) for s in seats}
    clocks[seat] = (clock, zone)
    return _soonest(control, {s: clocks[s] for s in row.to_move})


def _soonest(control: TimeControl, clocks: dict[int, tuple[SeatClock, ZoneInfo]]) -> str | None:
    """The soonest moment one of ``clocks`` runs out, as stored."""
    ends = [expiry(control, clock, zone) for clock, zone in clocks.values()]
    running = [end for end in ends if end is not None]
    return format_time(min(running)) if running else None


def expired_seats(
    row: GameRow, seats: Sequence[Seat], now: datetime
) -> list[tuple[int, SeatClock]]:
    """The seats to move whose clock has run out at ``now``, with their clocks."""
    control = control_of(row)
    if control is None:
        return []
    out = []
    for seat in row.to_move:
        clock = seat_clock(seats[seat].clock, control)
        end = expiry(control, clock, zone_of(seats[seat].clock))
        if end is not None and end <= now:
            out.append((seat, clock))
    return out


def turn_start(row: GameRow, seats: Sequence[Seat]) -> datetime | None:
    """When the clock of the first seat to move started running (``None``: none runs)."""
    control = control_of(row)
    if control is None:
        return None
    starts = [seat_clock(seats[seat].clock, control).since for seat in row.to_move]
    return min((start for start in starts if start is not None), default=None)


def clock_view(
    row: GameRow, seats: Sequence[Seat], now: str, vacation_days_left: int | None = None
) -> dict[str, Any] | None:
    """The ``clock`` of the game object: the time control and each seat's time at ``now``
    (``remaining_seconds`` in whole seconds, ``runs_out_at`` while its clock runs), and the
    automatic vacation days the viewing seat has left (``None``: not a seat's own view)."""
    control = control_of(row)
    if control is None:
        return None
    moment = parse_time(now)
    entries = []
    for seat in seats:
        clock, zone = seat_clock(seat.clock, control), zone_of(seat.clock)
        moving = row.status == "active" and clock.since is not None
        if not moving and control.kind == "per_move":  # its next turn has the whole time
            clock = SeatClock(control.allowance)
        end = expiry(control, clock, zone) if moving else None
        entries.append(
            {
                "seat": seat.seat,
                "remaining_seconds": int(remaining(control, clock, zone, moment).total_seconds()),
                "running": moving and clock.since <= moment and not paused(control, zone, moment),
                "runs_out_at": None if end is None else format_time(end),
            }
        )
    return {**clock_json(control), "seats": entries, "vacation_days_left": vacation_days_left}
