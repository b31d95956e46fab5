"""Clock arithmetic (:mod:`server.games.time_control`): banks, quiet times, daylight saving.

Moments are drawn around the daylight-saving changes of zones that have them
(a 30-minute change at Lord Howe), pauses from every allowed shape; months of
play are simulated turn by turn.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.games.time_control import (
    MAX_NIGHT_HOURS,
    WEEKDAYS,
    ClockError,
    Pause,
    SeatClock,
    TimeControl,
    advance,
    expiry,
    parse_clock,
    parse_pause,
    quiet_times,
    remaining,
    run_out,
    running_time,
    spend_vacation_day,
)

ZONES = [
    ZoneInfo(name) for name in ("Europe/Brussels", "America/New_York", "Australia/Lord_Howe", "UTC")
]
#: Moments of daylight-saving changes in those zones (2026), as UTC.
CHANGES = [
    datetime(2026, 3, 29, 1, tzinfo=UTC),  # Brussels, spring
    datetime(2026, 10, 25, 1, tzinfo=UTC),  # Brussels, autumn
    datetime(2026, 3, 8, 7, tzinfo=UTC),  # New York, spring
    datetime(2026, 11, 1, 6, tzinfo=UTC),  # New York, autumn
    datetime(2026, 4, 4, 15, tzinfo=UTC),  # Lord Howe, back 30 minutes
    datetime(2026, 10, 3, 15, 30, tzinfo=UTC),  # Lord Howe, on 30 minutes
]

zones = st.sampled_from(ZONES)
moments = st.builds(
    lambda change, offset: change + timedelta(minutes=offset),
    st.sampled_from(CHANGES),
    st.integers(-3 * 24 * 60, 3 * 24 * 60),
)
clock_times = st.builds(time, st.integers(0, 23), st.sampled_from([0, 15, 30, 45]))


@st.composite
def pauses(draw: st.DrawFn) -> Pause:
    """Every allowed shape of quiet times: weekdays, a night, or both."""
    weekdays = draw(st.frozensets(st.integers(0, 6), max_size=5))
    night = None
    if draw(st.booleans()) or not weekdays:
        start = draw(clock_times)
        length = draw(st.integers(15, MAX_NIGHT_HOURS * 60))
        end = (datetime.combine(datetime(2026, 1, 1), start) + timedelta(minutes=length)).time()
        night = (start, end)
    return Pause(weekdays, night)


durations = st.builds(timedelta, minutes=st.integers(0, 30 * 24 * 60))


@settings(max_examples=300, deadline=None)
@given(pauses(), zones, moments, durations)
def test_a_clock_runs_out_after_exactly_its_time(
    pause: Pause, zone: ZoneInfo, start: datetime, left: timedelta
) -> None:
    end = run_out(pause, zone, start, left)
    assert end >= start
    assert running_time(pause, zone, start, end) == left
    if left:  # never in a quiet time when it runs out: the last moment ran
        assert all(not (qs < end <= qe) for qs, qe in _quiet_until(pause, zone, start, end))


@settings(max_examples=200, deadline=None)
@given(pauses(), zones, moments, durations, durations)
def test_running_time_adds_up(
    pause: Pause, zone: ZoneInfo, start: datetime, first: timedelta, second: timedelta
) -> None:
    middle, end = start + first, start + first + second
    whole = running_time(pause, zone, start, end)
    assert whole == running_time(pause, zone, start, middle) + running_time(
        pause, zone, middle, end
    )
    assert whole <= end - start


@settings(max_examples=200, deadline=None)
@given(pauses(), zones, moments)
def test_a_paused_clock_always_runs_again(pause: Pause, zone: ZoneInfo, start: datetime) -> None:
    """Every week has running time: a minute left never takes more than a week and a day."""
    week = running_time(pause, zone, start, start + timedelta(days=7))
    assert week >= timedelta(hours=24 - MAX_NIGHT_HOURS) * 2
    assert run_out(pause, zone, start, timedelta(minutes=1)) - start < timedelta(days=8)


def test_a_weekend_covering_a_whole_deadline_moves_it_to_monday() -> None:
    """24 hours from Friday 20:00 in Brussels with weekends quiet: Friday's 4 hours, then 20
    hours from Monday 00:00."""
    zone = ZoneInfo("Europe/Brussels")
    weekend = parse_pause({"weekdays": ["sat", "sun"]})
    friday = datetime(2026, 10, 23, 20, tzinfo=zone)
    end = run_out(weekend, zone, friday, timedelta(hours=24))
    assert end == datetime(2026, 10, 26, 20, tzinfo=zone)
    # the autumn change fell in the weekend: 49 hours of quiet, not 48
    assert end - friday == timedelta(hours=24 + 49)


def test_a_night_crossing_the_spring_change_is_an_hour_shorter() -> None:
    zone = ZoneInfo("Europe/Brussels")
    night = parse_pause({"nightly": {"from": "23:00", "to": "07:00"}})
    evening = datetime(2026, 3, 28, 23, tzinfo=zone)
    quiet = next(quiet_times(night, zone, evening))
    assert quiet[1] - quiet[0] == timedelta(hours=7)
    assert run_out(night, zone, evening, timedelta(hours=1)) == datetime(
        2026, 3, 29, 8, tzinfo=zone
    )


@st.composite
def controls(draw: st.DrawFn) -> TimeControl:
    bank = draw(st.integers(1, 480))
    return TimeControl(
        "bank",
        float(bank),
        float(draw(st.integers(0, 72))),
        float(bank + draw(st.integers(0, 480))),
        draw(st.none() | pauses()),
        draw(st.integers(0, 10)),
    )


@settings(max_examples=100, deadline=None)
@given(
    controls(),
    zones,
    moments,
    st.lists(st.integers(0, 200 * 60), min_size=20, max_size=120),
)
def test_months_of_simulated_play_keep_banks_within_their_bounds(
    control: TimeControl, zone: ZoneInfo, start: datetime, thinking: list[int]
) -> None:
    """Two seats take turns for months; each move comes after some minutes, or the clock
    times out (its seat spends a vacation day first if it has one). A bank never goes
    below zero nor above its cap, a running clock always has a deadline after its start,
    and the time a seat is charged is exactly the running time its turn took."""
    zones = {0: zone, 1: zone}
    clocks = advance(control, {}, [], [0], None, start, zones)
    now, seat = start, 0
    for minutes in thinking:
        clock = clocks[seat]
        deadline = expiry(control, clock, zone)
        assert deadline is not None and clock.since is not None and deadline >= clock.since
        moment = now + timedelta(minutes=minutes)
        if moment >= deadline:
            held = spend_vacation_day(control, clock, deadline.year)
            if held is None:
                assert remaining(control, clock, zone, deadline) == timedelta(0)
                break
            assert expiry(control, held, zone) > deadline  # the clock runs again later
            clocks = {**clocks, seat: held}
            continue
        left = remaining(control, clock, zone, moment)
        clocks = advance(control, clocks, [seat], [1 - seat], seat, moment, zones)
        cap = timedelta(hours=control.cap or 0)
        assert clocks[seat].bank == min(left + timedelta(hours=control.increment), cap)
        assert timedelta(0) <= clocks[seat].bank <= cap
        now, seat = moment, 1 - seat


def test_per_move_clocks_start_full_every_turn() -> None:
    control = parse_clock({"kind": "per_move", "hours": 72})
    start = datetime(2026, 1, 1, tzinfo=UTC)
    clocks = advance(control, {}, [], [0], None, start)
    clocks = advance(control, clocks, [0], [1], 0, start + timedelta(hours=70))
    clocks = advance(control, clocks, [1], [0], 1, start + timedelta(hours=71))
    assert clocks[0] == SeatClock(timedelta(hours=72), start + timedelta(hours=71))
    assert expiry(control, clocks[0], ZoneInfo("UTC")) == start + timedelta(hours=143)


def test_a_turn_of_several_decisions_is_charged_once() -> None:
    control = parse_clock({"kind": "bank", "bank_hours": 10, "increment_hours": 5})
    start = datetime(2026, 1, 1, tzinfo=UTC)
    clocks = advance(control, {}, [], [0], None, start)
    clocks = advance(control, clocks, [0], [0], 0, start + timedelta(hours=1))
    clocks = advance(control, clocks, [0], [1], 0, start + timedelta(hours=2))
    assert clocks[0].bank == timedelta(hours=13)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"kind": "bank", "bank_hours": 10, "max_bank_hours": 5}, "max_bank_hours"),
        ({"kind": "per_move", "hours": 1, "pause": {"weekdays": list(WEEKDAYS[:6])}}, "weekdays"),
        (
            {
                "kind": "per_move",
                "hours": 1,
                "pause": {"nightly": {"from": "07:00", "to": "07:00"}},
            },
            "nightly",
        ),
        (
            {
                "kind": "per_move",
                "hours": 1,
                "pause": {"nightly": {"from": "08:00", "to": "07:00"}},
            },
            "nightly",
        ),
        ({"kind": "per_move", "hours": 1, "pause": {"weekdays": []}}, "pause"),
    ],
)
def test_settings_that_leave_no_time_to_play_are_refused(data: dict, field: str) -> None:
    with pytest.raises(ClockError) as refused:
        parse_clock(data)
    assert refused.value.field == field


def _quiet_until(
    pause: Pause, zone: ZoneInfo, start: datetime, end: datetime
) -> list[tuple[datetime, datetime]]:
    out = []
    for interval in quiet_times(pause, zone, start):
        if interval[0] > end:
            return out
        out.append(interval)
    return out
