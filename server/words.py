"""What pages and mails say around the games' own words: moments, waits, time left, refusals.

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

import math
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from babel.dates import format_date, format_timedelta
from babel.support import Translations

from engines.phrases import N_, phrase
from server.errors import TurnpostError
from server.i18n import catalog, listing, zone_label
from server.phrases import render

#: How far away a moment may be and still be counted in each unit (seconds).
UNITS = (("minute", 60, 90 * 60), ("hour", 3600, 48 * 3600), ("day", 86400, None))


def distance_words(seconds: float, language: str = "en") -> str:
    """How far away a moment is: "in 3 hours", "5 minutes ago", "just now" (Babel's words
    in ``language``, counted in the units the page's script counts in).

    >>> distance_words(30), distance_words(-5400), distance_words(200000)
    ('just now', '2 hours ago', 'in 2 days')
    >>> distance_words(-5400, "nl"), distance_words(200000, "de")
    ('2 uur geleden', 'in 2 Tagen')
    """
    if abs(seconds) < 60:
        return catalog(language).gettext("just now")
    for unit, size, limit in UNITS:
        if limit is None or abs(seconds) < limit:
            amount = int(abs(seconds) / size + 0.5)  # halves up, as the script
            return _distance(int(math.copysign(amount, seconds)), unit, language)
    raise AssertionError("the last unit has no limit")


@lru_cache(maxsize=4096)
def _distance(amount: int, unit: str, language: str) -> str:
    """``amount`` units ahead (behind if negative) in Babel's words: "in 3 hours"."""
    size = next(size for name, size, _ in UNITS if name == unit)
    return format_timedelta(
        timedelta(seconds=amount * size),
        granularity=unit,
        threshold=math.inf,
        add_direction=True,
        locale=language,
    )


def _count(translations: Translations, unit: str, count: int) -> str:
    """``count`` days, hours or minutes (``unit``) in the catalog's language."""
    if unit == "day":
        words = translations.ngettext("%(num)d day", "%(num)d days", count)
    elif unit == "hour":
        words = translations.ngettext("%(num)d hour", "%(num)d hours", count)
    else:
        words = translations.ngettext("%(num)d minute", "%(num)d minutes", count)
    return words % {"num": count}


def time_left_words(seat_time: dict[str, object], language: str = "en") -> str:
    """A seat's time (an entry of the game object's ``clock.seats``) in words, in
    ``language``.

    >>> time_left_words({"remaining_seconds": 183600, "running": True, "runs_out_at": "x"})
    '2 days 3 hours left'
    >>> time_left_words({"remaining_seconds": 2700, "running": False, "runs_out_at": "x"})
    '45 minutes left (its clock is paused now)'
    >>> time_left_words({"remaining_seconds": 36059, "running": False, "runs_out_at": None})
    '10 hours'
    >>> time_left_words({"remaining_seconds": 35999, "running": True, "runs_out_at": "x"}, "de")
    '9 Stunden 59 Minuten übrig'
    """
    translations = catalog(language)
    seconds = int(seat_time["remaining_seconds"])  # type: ignore[call-overload]
    days, rest = divmod(seconds, 86400)
    hours, minutes = divmod(rest // 60, 60)
    units = [(days, "day"), (hours, "hour")] if days else [(hours, "hour"), (minutes, "minute")]
    amount = " ".join(
        _count(translations, unit, count) for count, unit in units if count
    ) or translations.gettext("no time")
    if seat_time["runs_out_at"] is None:
        return amount
    if seat_time["running"]:
        return translations.gettext("%(time)s left") % {"time": amount}
    return translations.gettext("%(time)s left (its clock is paused now)") % {"time": amount}


def moment_words(moment: datetime, now: datetime, zone: str = "UTC", language: str = "en") -> str:
    """A moment as a player reads it: how far away, and the day and time in ``zone``, in
    ``language``.

    >>> from datetime import UTC
    >>> moment_words(datetime(2026, 11, 28, 0, 54, tzinfo=UTC), datetime(2026, 11, 26,
    ...     tzinfo=UTC), "America/Argentina/Buenos_Aires")
    'in 2 days (Fri 27 Nov, 21:54 Buenos Aires time)'
    >>> moment_words(datetime(2026, 11, 28, 0, 54, tzinfo=UTC), datetime(2026, 11, 26,
    ...     tzinfo=UTC), "Europe/Brussels", "fr")
    'dans 2 jours (sam. 28 nov., 01:54 heure de Bruxelles)'
    """
    local = moment.astimezone(ZoneInfo(zone))
    hour = f"{local.hour:02d}:{local.minute:02d}"  # not strftime: a list words hundreds
    when = f"{_day_words(local.date(), language)}, {hour} {zone_label(zone, language)}"
    return f"{distance_words((moment - now).total_seconds(), language)} ({when})"


@lru_cache(maxsize=4096)
def _day_words(day: date, language: str) -> str:
    """A day as a moment names it: "Sat 28 Nov" (read once per day and language: a list's
    page words hundreds of moments)."""
    return format_date(day, "EEE d MMM", locale=language)


def waiting_words(to_move: Sequence[int], names: Sequence[str], language: str = "en") -> str:
    """Who the game waits for, in ``language``: "Bob moves now.", "Ann and Bob move now.".

    >>> waiting_words([1], ["Ann", "Bob"]), waiting_words([0, 1], ["Ann", "Bob"])
    ('Bob moves now.', 'Ann and Bob move now.')
    >>> waiting_words([0, 1], ["Ann", "Bob"], "de")
    'Ann und Bob sind jetzt am Zug.'
    """
    who = listing([names[seat] for seat in to_move], language)
    said = catalog(language).ngettext("%(names)s moves now.", "%(names)s move now.", len(to_move))
    return said % {"names": who}


def refusal_words(error: TurnpostError, language: str = "en") -> str:
    """Why a move sent from a page was refused, in words for a player, in ``language``.

    The engine's and the service's messages already are; a few refusals are
    put for a page rather than for an API client.

    >>> refusal_words(TurnpostError("stale_seq", "The game is at seq 5, not 4."), "nl")[:31]
    'Het spel is verdergegaan terwij'
    """
    said = PAGE_REFUSALS.get(error.code)
    return render(phrase(said) if said else error.words, (), language)


PAGE_REFUSALS = {
    "stale_seq": N_(
        "The game moved on while you were choosing: here it is now. Please choose again."
    ),
    "unauthorized": N_("This browser holds no seat in this game: open your private link to play."),
    "game_over": N_("The game is over: no more moves."),
}
