"""Clock arithmetic: how long a seat may think, when its time runs out, quiet times.

Pure: no Flask, no database; moments are aware datetimes, durations timedeltas.

A game's :class:`TimeControl` is ``per_move`` (every turn has ``hours`` of
running time, today's deadline) or ``bank`` (each seat starts with
``bank_hours``; the time a turn takes is spent from the bank, each finished
turn adds ``increment_hours``, up to ``max_bank_hours``). Either may have a
:class:`Pause`: quiet times in which no clock runs, whole weekdays and/or
nightly hours, in the seat's time zone. A pause never covers a whole week
(:func:`parse_pause` refuses it), so a paused clock always runs again.

A seat's :class:`SeatClock` is its bank and since when its clock runs (its
turn started then); :func:`advance` moves every seat's clock on when the seats
to move change, :func:`expiry` is when a running clock runs out.

    >>> from datetime import UTC
    >>> control = parse_clock({"kind": "bank", "bank_hours": 10, "increment_hours": 2,
    ...     "max_bank_hours": 11})
    >>> start = datetime(2026, 3, 2, 9, tzinfo=UTC)
    >>> clocks = advance(control, {}, [], [0], None, start)
    >>> clocks[0].bank, expiry(control, clocks[0], UTC).isoformat()
    (datetime.timedelta(seconds=36000), '2026-03-02T19:00:00+00:00')
    >>> clocks = advance(control, clocks, [0], [1], 0, start + timedelta(hours=1))
    >>> clocks[0].bank, clocks[0].since
    (datetime.timedelta(seconds=39600), None)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from engines.phrases import Phrase, english, phrase

#: Weekday names as the wire spells them, Monday first (``datetime.weekday()`` order).
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
#: The most weekdays a pause may cover, and the longest quiet night (hours).
MAX_PAUSED_WEEKDAYS = 5
MAX_NIGHT_HOURS = 14
#: The running time one vacation day spent before a timeout gives a seat's clock.
VACATION_DAY = timedelta(days=1)
ZERO = timedelta(0)


class ClockError(ValueError):
    """A clock setting that makes no sense; ``field`` names where, ``words`` say why (a phrase
    read in the reader's language; the exception's message is its English)."""

    def __init__(self, field: str, words: Phrase) -> None:
        super().__init__(english(words))
        self.field = field
        self.words = words


@dataclass(frozen=True)
class Pause:
    """Quiet times: whole ``weekdays`` (0 = Monday) and/or a ``night`` from one local time
    to another (overnight when it ends earlier than it starts), in the seat's time zone
    (``time_zone``: the zone of a seat whose player has none)."""

    weekdays: frozenset[int] = frozenset()
    night: tuple[time, time] | None = None
    time_zone: str = "UTC"


@dataclass(frozen=True)
class TimeControl:
    """A game's clock: ``kind`` ``per_move`` (``hours`` per turn) or ``bank`` (``hours`` at
    the start, ``increment`` per finished turn, at most ``cap``), quiet times, and the
    ``vacation_days`` per seat and year spent automatically before a timeout."""

    kind: str
    hours: float
    increment: float = 0.0
    cap: float | None = None
    pause: Pause | None = None
    vacation_days: int = 0

    @property
    def allowance(self) -> timedelta:
        """A seat's time at the start: a turn's (``per_move``) or its first bank."""
        return timedelta(hours=self.hours)


@dataclass(frozen=True)
class SeatClock:
    """A seat's clock: its ``bank`` (``per_move``: this turn's time) as it stood when its
    turn started (``since``; ``None`` while it does not move), and the vacation days
    spent automatically in ``vacation_year``."""

    bank: timedelta
    since: datetime | None = None
    vacation_year: int | None = None
    vacation_used: int = 0

    def vacation_left(self, control: TimeControl, year: int) -> int:
        """Automatic vacation days the seat has left in ``year``."""
        used = self.vacation_used if self.vacation_year == year else 0
        return max(control.vacation_days - used, 0)


# -- settings as the wire gives them --------------------------------------------------
def parse_clock(data: Mapping[str, Any]) -> TimeControl:
    """A :class:`TimeControl` from its wire form (already schema-checked); :class:`ClockError`
    for settings that contradict each other."""
    pause = parse_pause(data["pause"]) if data.get("pause") else None
    vacation_days = int(data.get("vacation_days") or 0)
    if data["kind"] == "per_move":
        return TimeControl(
            "per_move", float(data["hours"]), pause=pause, vacation_days=vacation_days
        )
    bank, cap = float(data["bank_hours"]), data.get("max_bank_hours")
    if cap is not None and float(cap) < bank:
        raise ClockError(
            "max_bank_hours", phrase("The largest bank cannot be smaller than the first.")
        )
    return TimeControl(
        "bank",
        bank,
        float(data.get("increment_hours") or 0),
        None if cap is None else float(cap),
        pause,
        vacation_days,
    )


def parse_pause(data: Mapping[str, Any]) -> Pause:
    """A :class:`Pause` from ``{"weekdays": [...], "nightly": {"from", "to"}, "time_zone"}``;
    :class:`ClockError` if it would leave too little time to play."""
    weekdays = frozenset(WEEKDAYS.index(day) for day in data.get("weekdays") or ())
    if len(weekdays) > MAX_PAUSED_WEEKDAYS:
        raise ClockError(
            "weekdays",
            phrase("A pause covers at most %(most)s weekdays.", most=MAX_PAUSED_WEEKDAYS),
        )
    night = None
    if data.get("nightly"):
        start, end = (time.fromisoformat(data["nightly"][key]) for key in ("from", "to"))
        length = _minutes(end) - _minutes(start)
        length += 24 * 60 if length <= 0 else 0
        if start == end or length > MAX_NIGHT_HOURS * 60:
            raise ClockError(
                "nightly",
                phrase("A quiet night lasts 1 minute to %(most)s hours.", most=MAX_NIGHT_HOURS),
            )
        night = (start, end)
    if not weekdays and night is None:
        raise ClockError("pause", phrase("A pause needs weekdays or nightly hours."))
    return Pause(weekdays, night, data.get("time_zone") or "UTC")


def clock_json(control: TimeControl) -> dict[str, Any]:
    """The wire form of ``control`` (what :func:`parse_clock` reads back)."""
    out: dict[str, Any] = (
        {"kind": "per_move", "hours": control.hours}
        if control.kind == "per_move"
        else {
            "kind": "bank",
            "bank_hours": control.hours,
            "increment_hours": control.increment,
            "max_bank_hours": control.cap,
        }
    )
    if control.pause is not None:
        pause = control.pause
        out["pause"] = {
            "weekdays": [WEEKDAYS[day] for day in sorted(pause.weekdays)],
            "nightly": None
            if pause.night is None
            else {"from": f"{pause.night[0]:%H:%M}", "to": f"{pause.night[1]:%H:%M}"},
            "time_zone": pause.time_zone,
        }
    out["vacation_days"] = control.vacation_days
    return out


def _minutes(moment: time) -> int:
    return moment.hour * 60 + moment.minute


# -- quiet times ------------------------------------------------------------------------
def quiet_times(
    pause: Pause, zone: ZoneInfo, after: datetime
) -> Iterator[tuple[datetime, datetime]]:
    """The quiet intervals ``[start, end)`` of ``pause`` in ``zone`` that end after ``after``,
    in time order, merged where they touch (endless: stop reading when done)."""
    day = after.astimezone(zone).date() - timedelta(days=1)
    pending: tuple[datetime, datetime] | None = None
    while True:
        for start, end in _quiet_on(pause, zone, day):
            if end <= after:
                continue
            if pending is not None and start <= pending[1]:
                pending = (pending[0], max(pending[1], end))
                continue
            if pending is not None:
                yield pending
            pending = (start, end)
        day += timedelta(days=1)


def _quiet_on(pause: Pause, zone: ZoneInfo, day: date) -> list[tuple[datetime, datetime]]:
    """The quiet intervals starting on local ``day``, as UTC-comparable moments, in order."""
    intervals = []
    if day.weekday() in pause.weekdays:
        intervals.append(
            (_local(day, time(0), zone), _local(day + timedelta(days=1), time(0), zone))
        )
    if pause.night is not None:
        start, end = pause.night
        end_day = day + timedelta(days=1) if end <= start else day
        intervals.append((_local(day, start, zone), _local(end_day, end, zone)))
    return sorted((start, end) for start, end in intervals if start < end)


def _local(day: date, moment: time, zone: ZoneInfo) -> datetime:
    """Local ``day`` at ``moment`` in ``zone`` as a UTC moment (a time skipped by a
    daylight-saving change moves on with the clocks; a repeated one is its first)."""
    return datetime.combine(day, moment, zone).astimezone(ZoneInfo("UTC"))


def running_time(pause: Pause | None, zone: ZoneInfo, start: datetime, end: datetime) -> timedelta:
    """How long a clock runs from ``start`` to ``end`` (nothing if ``end`` is earlier)."""
    if end <= start:
        return ZERO
    total = end - start
    if pause is None:
        return total
    for quiet_start, quiet_end in quiet_times(pause, zone, start):
        if quiet_start >= end:
            break
        total -= min(quiet_end, end) - max(quiet_start, start)
    return total


def run_out(pause: Pause | None, zone: ZoneInfo, start: datetime, left: timedelta) -> datetime:
    """The moment a clock started at ``start`` with ``left`` to run has run it all."""
    if pause is None:
        return start + max(left, ZERO)
    cursor = start
    for quiet_start, quiet_end in quiet_times(pause, zone, start):
        if quiet_start > cursor:
            if left <= quiet_start - cursor:
                break
            left -= quiet_start - cursor
        cursor = max(cursor, quiet_end)
    return cursor + max(left, ZERO)


# -- seats' clocks -----------------------------------------------------------------------
def advance(
    control: TimeControl,
    clocks: Mapping[int, SeatClock],
    before: Sequence[int],
    after: Sequence[int],
    mover: int | None,
    now: datetime,
    zones: Mapping[int, ZoneInfo] | None = None,
    starts: Mapping[int, datetime] | None = None,
) -> dict[int, SeatClock]:
    """Every seat's clock once the seats to move went from ``before`` to ``after`` at ``now``.

    A seat that stops moving is charged its turn's running time (the ``mover`` also gets
    the increment, up to the cap); a seat still moving keeps its clock running (a turn
    split into several decisions is one turn); a seat starting to move starts its clock
    at ``now`` or its ``starts`` moment (a vacation's end), a ``per_move`` one with a
    full turn. ``clocks`` may lack seats: they have the first allowance.
    """
    zones, starts = zones or {}, starts or {}
    seats = set(clocks) | set(before) | set(after)
    out = {}
    for seat in sorted(seats):
        clock = clocks.get(seat) or SeatClock(control.allowance)
        if seat in before and seat not in after and clock.since is not None:
            clock = _charged(control, clock, zones.get(seat, UTC_ZONE), now, seat == mover)
        if seat in after and (seat not in before or clock.since is None):
            bank = control.allowance if control.kind == "per_move" else clock.bank
            clock = replace(clock, bank=bank, since=max(now, starts.get(seat, now)))
        out[seat] = clock
    return out


UTC_ZONE = ZoneInfo("UTC")


def _charged(
    control: TimeControl, clock: SeatClock, zone: ZoneInfo, now: datetime, moved: bool
) -> SeatClock:
    """``clock`` after its turn ended at ``now``: the time spent, plus the increment."""
    assert clock.since is not None
    used = running_time(control.pause, zone, clock.since, now)
    bank = max(clock.bank - used, ZERO)
    if moved and control.kind == "bank":
        bank += timedelta(hours=control.increment)
        if control.cap is not None:
            bank = min(bank, timedelta(hours=control.cap))
    return replace(clock, bank=bank, since=None)


def expiry(control: TimeControl, clock: SeatClock, zone: ZoneInfo) -> datetime | None:
    """When ``clock`` runs out (``None`` while it does not run)."""
    if clock.since is None:
        return None
    return run_out(control.pause, zone, clock.since, clock.bank)


def remaining(control: TimeControl, clock: SeatClock, zone: ZoneInfo, now: datetime) -> timedelta:
    """The time ``clock`` has left at ``now``: its bank less what its running turn used."""
    if clock.since is None:
        return clock.bank
    return max(clock.bank - running_time(control.pause, zone, clock.since, now), ZERO)


def paused(control: TimeControl, zone: ZoneInfo, now: datetime) -> bool:
    """Whether ``now`` is in a quiet time of ``control`` in ``zone``."""
    if control.pause is None:
        return False
    start, _ = next(quiet_times(control.pause, zone, now))
    return start <= now


def spend_vacation_day(control: TimeControl, clock: SeatClock, year: int) -> SeatClock | None:
    """``clock`` with a day more to run, by an automatic vacation day of ``year`` (a day of
    running time: holding the clock through a quiet time would give nothing); ``None`` when
    the seat has none left (its time is out)."""
    if clock.since is None or clock.vacation_left(control, year) <= 0:
        return None
    used = clock.vacation_used if clock.vacation_year == year else 0
    return replace(
        clock, bank=clock.bank + VACATION_DAY, vacation_year=year, vacation_used=used + 1
    )


# -- stored form ----------------------------------------------------------------------
def seat_clock_json(clock: SeatClock) -> dict[str, Any]:
    """How a seat's clock is stored: the bank in seconds, moments as ISO strings."""
    return {
        "bank": clock.bank.total_seconds(),
        "since": None if clock.since is None else clock.since.isoformat(),
        "vacation_year": clock.vacation_year,
        "vacation_used": clock.vacation_used,
    }


def seat_clock(data: Mapping[str, Any] | None, control: TimeControl) -> SeatClock:
    """A seat's clock from its stored form (``None``: a seat with the first allowance)."""
    if not data:
        return SeatClock(control.allowance)
    since = data.get("since")
    return SeatClock(
        timedelta(seconds=data["bank"]),
        None if since is None else datetime.fromisoformat(since),
        data.get("vacation_year"),
        data.get("vacation_used") or 0,
    )
