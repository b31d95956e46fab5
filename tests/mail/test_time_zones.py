"""Deadlines in the reader's time zone (issue 21): a player's turn mail and reminder, and the
game page of a signed-in player, word the deadline in the zone of the player's profile; a seat
tied to no player reads it in UTC, saying so. The player's pages name the zone in the player's
language (issue 24), while the profile form still posts its identifier.

Real gunicorn, a real ``turnpost worker`` and a real SMTP server (aiosmtpd).
"""

from __future__ import annotations

import html
import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import requests

from server.games.clock import format_time, parse_time, utcnow
from server.store import open_store
from tests.mail.conftest import BASE_URL, Sink, first_mail
from tests.mail.players import OPENED, create_game, move, save_profile, sign_in, take_seat
from tests.mail.samples import html_of, text_of
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

ANN, BOB = "ann@example.org", "bob@example.org"
NEW_YORK = ZoneInfo("America/New_York")
UTC = ZoneInfo("UTC")
SEAT_LINK = re.compile(r"^\s*(https://\S+/games/\w+/seat/\S+)$", re.M)


def clock_words(moment: datetime) -> str:
    """A moment's day and hour as the mails word them in English: "Fri 27 Nov, 19:54"."""
    return f"{moment:%a} {moment.day} {moment:%b}, {moment:%H:%M}"


#: How the player's pages name New York's time zone, by language.
NEW_YORK_NAMES = {
    "nl": "New York (Verenigde Staten)",
    "de": "New York (Vereinigte Staaten)",
    "fr": "New York (États-Unis)",
}


def visible(page: str) -> str:
    """The text a page shows: no markup, scripts or attributes, entities read."""
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    return flat(html.unescape(re.sub(r"<[^>]+>", " ", text)))


def deadline_of(server: BackgroundServer, game: dict) -> datetime:
    """The game's deadline now, from the API."""
    answer = requests.get(server.api(f"/games/{game['id']}"), timeout=10).json()
    return parse_time(answer["deadline"])


def flat(text: str) -> str:
    """``text`` with every run of white space as one space (mails wrap their lines)."""
    return " ".join(text.split())


def test_deadlines_are_in_the_players_time_zone_in_mails_and_on_the_page(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    sink = smtp_sink[0]
    ann = sign_in(mail_server, sink, ANN)
    save_profile(ann, mail_server, name="Ann", time_zone="America/New_York")
    game = create_game(
        mail_server,
        "siam",
        [{"name": "Bob", "email": BOB}, {"name": "Ann", "email": ANN}],
        turn_hours=48,
    )
    take_seat(ann, mail_server, game, 1)  # ties the seat to Ann, who lives in New York

    bobs = flat(text_of(first_mail(sink, BOB, "Your turn in Siam")))
    utc = deadline_of(mail_server, game).astimezone(UTC)
    assert f"Please move by {clock_words(utc)} UTC." in bobs, bobs  # no player: UTC, named

    move(mail_server, game, 0, "enter a1 N")
    turn = first_mail(sink, ANN, "Your turn in Siam")
    local = deadline_of(mail_server, game).astimezone(NEW_YORK)
    words = f"{clock_words(local)} New York time"
    assert local.utcoffset() != timedelta(0)  # New York is never UTC: the hour differs
    assert f"Please move by {words}." in flat(text_of(turn)), text_of(turn)
    assert words in flat(html_of(turn))

    [link] = SEAT_LINK.findall(text_of(turn))  # Ann opens her mail's link: she reads her mail
    assert ann.get(mail_server.url + link.removeprefix(BASE_URL), headers=OPENED, timeout=10).ok

    store = open_store(db_url)  # the deadline comes near: the worker reminds Ann
    soon = parse_time(utcnow()) + timedelta(hours=2)
    with store.write():
        store.update_game(game["id"], {"deadline": format_time(soon), "reminders_sent": 0})
    store.close()
    reminder = first_mail(sink, ANN, "Reminder: your turn in Siam")
    reminded = f"{clock_words(soon.astimezone(NEW_YORK))} New York time"
    assert flat(str(reminder["Subject"])).endswith(f"by {reminded}"), reminder["Subject"]

    page = ann.get(f"{mail_server.url}/games/{game['id']}", timeout=10).text
    [deadline] = re.findall(r'<p class="deadline">(.*?)</p>', page, re.S)
    assert 'data-zone="America/New_York"' in deadline and reminded in flat(deadline), deadline
    stranger = requests.get(f"{mail_server.url}/games/{game['id']}", timeout=10).text
    [watched] = re.findall(r'<p class="deadline">(.*?)</p>', stranger, re.S)
    assert "data-zone" not in watched
    assert f"{clock_words(soon.astimezone(UTC))} UTC" in flat(watched), watched

    for language, name in NEW_YORK_NAMES.items():  # Ann reads another language: the zone's name
        me = save_profile(ann, mail_server, language=language)  # posts the selected identifier
        assert f'<option value="America/New_York" selected>{name}</option>' in me, language
        games = ann.get(f"{mail_server.url}/me/games", timeout=10).text
        assert name in visible(games), language
        for page in (me, games):
            assert "America/" not in visible(page) and "New_York" not in visible(page), language
