"""What the web pages say around the games' own words: moments, whose turn, refusals.

The engines speak for their games (:meth:`~engines.base.Engine.describe`,
``describe_result``, ``prompt``, the questions' labels); this module words
what the pages add: when something happens, who is to move, and why a move
from a page was refused. A moment is written in UTC by the server inside a
``<time datetime>`` element; the page's script rewrites it in the viewer's
time zone. A signed-in player's own pages word moments in the player's time
zone (``zone``), and the script keeps to it.

    >>> from datetime import datetime, UTC
    >>> now = datetime(2026, 11, 26, 0, 0, tzinfo=UTC)
    >>> moment_words(datetime(2026, 11, 28, 0, 54, tzinfo=UTC), now)
    'in 2 days (Sat 28 Nov, 00:54 UTC)'
    >>> moment_words(datetime(2026, 11, 25, 21, 30, tzinfo=UTC), now)
    '3 hours ago (Wed 25 Nov, 21:30 UTC)'
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from engines.words import join, plural
from server.errors import TurnpostError

#: How far away a moment may be and still be counted in each unit (seconds).
UNITS = (("minute", 60, 90 * 60), ("hour", 3600, 48 * 3600), ("day", 86400, None))


def distance_words(seconds: float) -> str:
    """How far away a moment is: "in 3 hours", "5 minutes ago", "just now".

    >>> distance_words(30), distance_words(-5400), distance_words(200000)
    ('just now', '2 hours ago', 'in 2 days')
    """
    if abs(seconds) < 60:
        return "just now"
    for unit, size, limit in UNITS:
        if limit is None or abs(seconds) < limit:
            amount = plural(int(abs(seconds) / size + 0.5), unit)  # halves up, as the script
            return f"in {amount}" if seconds > 0 else f"{amount} ago"
    raise AssertionError("the last unit has no limit")


def time_left_words(seat_time: dict[str, object]) -> str:
    """A seat's time (an entry of the game object's ``clock.seats``) in words.

    >>> time_left_words({"remaining_seconds": 183600, "running": True, "runs_out_at": "x"})
    '2 days 3 hours left'
    >>> time_left_words({"remaining_seconds": 2700, "running": False, "runs_out_at": "x"})
    '45 minutes left (its clock is paused now)'
    >>> time_left_words({"remaining_seconds": 36059, "running": False, "runs_out_at": None})
    '10 hours'
    >>> time_left_words({"remaining_seconds": 35999, "running": True, "runs_out_at": "x"})
    '9 hours 59 minutes left'
    """
    seconds = int(seat_time["remaining_seconds"])  # type: ignore[call-overload]
    days, rest = divmod(seconds, 86400)
    hours, minutes = divmod(rest // 60, 60)
    units = [(days, "day"), (hours, "hour")] if days else [(hours, "hour"), (minutes, "minute")]
    amount = " ".join(plural(count, unit) for count, unit in units if count) or "no time"
    if seat_time["runs_out_at"] is None:
        return amount
    return f"{amount} left" + ("" if seat_time["running"] else " (its clock is paused now)")


def moment_words(moment: datetime, now: datetime, zone: str = "UTC") -> str:
    """A moment as a player reads it: how far away, and the day and time in ``zone``.

    >>> from datetime import UTC
    >>> moment_words(datetime(2026, 11, 28, 0, 54, tzinfo=UTC), datetime(2026, 11, 26,
    ...     tzinfo=UTC), "America/Argentina/Buenos_Aires")
    'in 2 days (Fri 27 Nov, 21:54 Buenos Aires time)'
    """
    local = moment.astimezone(ZoneInfo(zone))
    when = f"{local:%a} {local.day} {local:%b}, {local:%H:%M} {zone_label(zone)}"
    return f"{distance_words((moment - now).total_seconds())} ({when})"


def zone_label(zone: str) -> str:
    """How a time zone is named after a time: "UTC", or its place's "Brussels time".

    >>> zone_label("UTC"), zone_label("Europe/Brussels"), zone_label("America/New_York")
    ('UTC', 'Brussels time', 'New York time')
    """
    if "/" not in zone:
        return zone
    return zone.rsplit("/", 1)[1].replace("_", " ") + " time"


def waiting_words(to_move: Sequence[int], names: Sequence[str]) -> str:
    """Who the game waits for: "Bob moves now.", "Ann and Bob move now.".

    >>> waiting_words([1], ["Ann", "Bob"]), waiting_words([0, 1], ["Ann", "Bob"])
    ('Bob moves now.', 'Ann and Bob move now.')
    """
    who = join(names[seat] for seat in to_move)
    return f"{who} {'moves' if len(to_move) == 1 else 'move'} now."


def refusal_words(error: TurnpostError) -> str:
    """Why a move sent from a page was refused, in words for a player.

    The engine's and the service's messages already are; a few refusals are
    put for a page rather than for an API client.

    >>> refusal_words(TurnpostError("stale_seq", "The game is at seq 5, not 4."))
    'The game moved on while you were choosing: here it is now. Please choose again.'
    """
    return PAGE_REFUSALS.get(error.code, error.message)


PAGE_REFUSALS = {
    "stale_seq": "The game moved on while you were choosing: here it is now. Please choose again.",
    "unauthorized": "This browser holds no seat in this game: open your private link to play.",
    "game_over": "The game is over: no more moves.",
}
