"""Mail as a player chose it, and never for the decision a player is taking on the page (issue 21).

Real gunicorn, a real ``turnpost worker``, a real SMTP server (aiosmtpd) and,
for the split turn clicked on the page, Chromium. Players sign in by the link
mailed to them, choose their mail on their page and follow their seat links.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from zoneinfo import ZoneInfo

import requests
from click.testing import CliRunner
from playwright.sync_api import BrowserContext, expect

from engines import ENGINES
from server.app import SECRET_KEY_SETTING
from server.cli import main
from server.games.clock import format_time, parse_time, utcnow
from server.i18n import catalog
from server.mail.delivery import deliver_due
from server.mail.settings import MailSettings, environment_config, settings_from_config
from server.notify.presence import AT_THE_TABLE
from server.store import open_store
from server.store.records import Player
from tests.mail.conftest import BASE_URL, DOMAIN, MAIL_SETTINGS, Sink, first_mail, mail_in
from tests.mail.players import (
    OPENED,
    create_game,
    csrf_of,
    move,
    save_profile,
    sign_in,
    take_seat,
)
from tests.mail.samples import html_of, text_of
from tests.mail.test_languages import english_left, english_strings
from tests.support import BackgroundServer, run_sql, table_rows
from tests.web.table import Mirror, click_turn

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

ANN, BOB, CY = "ann@example.org", "bob@example.org", "cy@example.org"
SEAT_LINK = re.compile(r"^\s*(https://\S+/games/\w+/seat/\S+)$", re.M)


def wait_until(check: Callable[[], object], what: str, timeout: float = 30) -> object:
    """``check()`` once it is true (polling), or fail saying ``what`` never happened."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what} never happened")


def player_row(db_url: str, email: str) -> Player | None:
    """The ``players`` row of ``email``."""
    store = open_store(db_url)
    try:
        return store.player_by_email_key(email)
    finally:
        store.close()


def outbox(db_url: str, **where: object) -> list[dict]:
    """The outbox rows matching ``where``."""
    store = open_store(db_url)
    try:
        rows = table_rows(store, "outbox")
    finally:
        store.close()
    return [row for row in rows if all(row[column] == value for column, value in where.items())]


def mails_to(sink: Sink, address: str, subject_start: str = "") -> list[EmailMessage]:
    """The mails the SMTP server received for ``address`` (with that subject)."""
    return [
        mail
        for mail in sink.messages
        if mail["To"] == address and str(mail["Subject"]).startswith(subject_start)
    ]


def sending_settings(db_url: str, smtp_url: str) -> MailSettings:
    """The mail settings the worker of these tests sends with (the secret key it keeps in its
    database)."""
    store = open_store(db_url)
    secret = store.setting(SECRET_KEY_SETTING)
    store.close()
    environment = {**MAIL_SETTINGS, "TURNPOST_SMTP_URL": smtp_url}
    return settings_from_config({"SECRET_KEY": secret, **environment_config(environment)})


def later(moment: timedelta) -> str:
    """The stored moment ``moment`` from now."""
    return format_time(parse_time(utcnow()) + moment)


def test_a_digest_player_gets_no_turn_mail_but_each_morning_one_mail_of_every_waiting_game(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    sink = smtp_sink[0]
    ann = sign_in(mail_server, sink, ANN)
    save_profile(ann, mail_server, name="Ann", time_zone="Asia/Bangkok", mail_pref="digest")
    due = wait_until(lambda: player_row(db_url, ANN).digest_due_at, "scheduling Ann's first digest")
    bangkok = ZoneInfo("Asia/Bangkok")
    morning = parse_time(due).astimezone(bangkok)
    assert (morning.hour, morning.minute) == (8, 0), "not her morning"
    assert timedelta(0) < parse_time(due) - parse_time(utcnow()) <= timedelta(days=1)
    assert not mails_to(sink, ANN, "Your turn"), "a digest before any game waited"

    timed = create_game(
        mail_server,
        "siam",
        [{"name": "Bob", "email": BOB}, {"name": "Ann", "email": ANN}],
        turn_hours=48,
    )
    untimed = create_game(
        mail_server, "siam", [{"name": "Cy", "email": CY}, {"name": "Ann", "email": ANN}]
    )
    for game in (timed, untimed):
        take_seat(ann, mail_server, game, 1)
    # before Bob moves: a turn mail still queued when its turn is played is not sent
    assert first_mail(sink, BOB, "Your turn in Siam"), "a seat without a player lost its mail"
    move(mail_server, timed, 0, "enter a1 N")
    move(mail_server, untimed, 0, "enter e1 N")
    assert outbox(db_url, rcpt_key=ANN, kind="turn") == [], "Ann was queued a turn mail"

    # her morning comes
    run_sql(db_url, "UPDATE players SET digest_due_at = ? WHERE email_key = ?", [utcnow(), ANN])
    digest = first_mail(sink, ANN, "Your turn in 2 games")
    text = text_of(digest)
    assert "Hello Ann," in text and "these games wait for your move" in text
    assert "Siam with Bob, move 2: enter a rhino." in text.replace("\n  ", " ")
    assert "Siam with Cy, move 2:" in text.replace("\n  ", " ")
    deadline = parse_time(
        requests.get(mail_server.api(f"/games/{timed['id']}"), timeout=10).json()["deadline"]
    ).astimezone(bangkok)
    assert f"Please move by {deadline:%a} {deadline.day} {deadline:%b}, {deadline:%H:%M}" in text
    assert text.count("Please move by") == 1 and "Bangkok time" in text
    assert "bob@example.org" not in text and "cy@example.org" not in text
    links = SEAT_LINK.findall(text)
    assert len(links) == 2 and all(link in html_of(digest) for link in links)
    first = requests.get(
        mail_server.url + links[0].removeprefix(BASE_URL), headers=OPENED, timeout=10
    )
    assert first.url.endswith(f"/games/{timed['id']}") and "Your turn" in first.text
    later = wait_until(
        lambda: (
            player_row(db_url, ANN).digest_due_at > utcnow()
            and player_row(db_url, ANN).digest_due_at
        ),
        "scheduling the next digest",
    )
    assert parse_time(later).astimezone(bangkok).hour == 8
    time.sleep(1)  # a few more rounds of the worker
    assert len(mails_to(sink, ANN, "Your turn")) == 1, "more than one digest"


#: A digest of one game waiting for the player, in each language: its subject and words.
DIGESTS = {
    "nl": (
        "Jouw beurt in Siam met Bob (zet 2)",
        [
            "Hallo Ann,",
            "Je dagelijkse overzicht: dit spel wacht op je zet.",
            "Siam met Bob, zet 2:",
        ],
    ),
    "de": (
        "Du bist am Zug in Siam mit Bob (Zug 2)",
        [
            "Hallo Ann,",
            "Deine tägliche Übersicht: Dieses Spiel wartet auf deinen Zug.",
            "Siam mit Bob, Zug 2:",
        ],
    ),
    "fr": (
        "Votre tour dans Siam avec Bob (coup 2)",
        [
            "Bonjour Ann,",
            "Votre récapitulatif du jour : cette partie attend votre coup.",
            "Siam avec Bob, coup 2 :",
        ],
    ),
}


def test_a_digest_is_written_in_its_players_language(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    """A player who reads Dutch, German or French gets the digest in that language, its
    deadline in their words and time zone (English before)."""
    sink = smtp_sink[0]
    english = english_strings()
    for language, (subject, sentences) in DIGESTS.items():
        address = f"ann.{language}@example.org"
        ann = sign_in(mail_server, sink, address)
        save_profile(
            ann,
            mail_server,
            name="Ann",
            language=language,
            time_zone="Europe/Brussels",
            mail_pref="digest",
        )
        players = [{"name": "Bob", "email": BOB}, {"name": "Ann", "email": address}]
        game = create_game(mail_server, "siam", players, turn_hours=48)
        take_seat(ann, mail_server, game, 1)
        move(mail_server, game, 0, "enter a1 N")
        wait_until(lambda a=address: player_row(db_url, a).digest_due_at, "scheduling the digest")
        run_sql(
            db_url, "UPDATE players SET digest_due_at = ? WHERE email_key = ?", [utcnow(), address]
        )
        digest = first_mail(sink, address, subject)
        text = " ".join(text_of(digest).split())
        assert all(sentence in text for sentence in sentences), text
        assert catalog(language).gettext("Please move by %(deadline)s.").split("%")[0] in text
        assert f'<html lang="{language}">' in html_of(digest)
        assert not english_left(digest, english), english_left(digest, english)


def test_a_sign_in_mail_is_written_in_the_language_of_the_page_that_asked(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str]
) -> None:
    """The sign-in link asked for on a German page comes in German (English before)."""
    asking = requests.Session()
    asking.headers["Accept-Language"] = "de-AT, en;q=0.5"
    form = asking.get(f"{mail_server.url}/sign-in", timeout=10).text
    data = {"csrf_token": csrf_of(form), "email": CY}
    assert asking.post(f"{mail_server.url}/sign-in", data=data, timeout=10).status_code == 200
    mail = first_mail(smtp_sink[0], CY, "Dein Link zur Anmeldung bei Turnpost")
    text = " ".join(text_of(mail).split())
    assert text.startswith("Hallo, Um dich bei Turnpost anzumelden, öffne diesen Link")
    assert "Keine Mails mehr an mich (für alle Spiele):" in text
    assert '<html lang="de">' in html_of(mail)
    assert not english_left(mail, english_strings()), english_left(mail, english_strings())


def mail_key(db_url: str, game_id: str, seat: int) -> str:
    """The reply address of a seat, as ``turnpost mail-key`` prints it."""
    env = {"TURNPOST_DB": db_url, "TURNPOST_MAIL_DOMAIN": DOMAIN}
    result = CliRunner().invoke(main, ["mail-key", game_id, str(seat)], env=env)
    assert result.exit_code == 0, result.output
    return result.output.strip()


def mailed(sender: str, to: str, text: str) -> bytes:
    """A mail from ``sender`` to ``to`` saying ``text``."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, text
    message["Message-ID"] = make_msgid(domain="example.org")
    message.set_content(f"{text}\n")
    return bytes(message)


def test_a_player_who_wants_no_mail_gets_only_the_answers_to_their_own_mails(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    sink, smtp_url = smtp_sink
    ann = sign_in(mail_server, sink, ANN)
    save_profile(ann, mail_server, name="Ann", mail_pref="none")
    game = create_game(
        mail_server, "siam", [{"name": "Bob", "email": BOB}, {"name": "Ann", "email": ANN}]
    )
    take_seat(ann, mail_server, game, 1)
    move(mail_server, game, 0, "enter a1 N")
    [bobs_link] = SEAT_LINK.findall(text_of(first_mail(sink, BOB, "Your turn")))
    opened = requests.get(mail_server.url + bobs_link.removeprefix(BASE_URL), headers=OPENED)
    assert opened.status_code == 200, "Bob opens his page from his mail: his mail flows"
    address = mail_key(db_url, game["id"], 1)
    assert mail_in(db_url, smtp_url, mailed(ANN, address, "help"))["status"] == "command"
    assert first_mail(sink, ANN, "Mail commands for Siam with Bob")
    assert mail_in(db_url, smtp_url, mailed(ANN, address, "resign"))["status"] == "command"
    assert first_mail(sink, ANN, "You resigned in Siam with Bob")
    assert first_mail(sink, BOB, "Game over in Siam with Ann"), "Bob has no player: he is told"
    kinds = sorted(row["kind"] for row in outbox(db_url, rcpt_key=ANN, game_id=game["id"]))
    assert kinds == ["answer", "answer"], kinds
    assert not mails_to(sink, ANN, "Your turn") and not mails_to(sink, ANN, "Game over")


#: King of Siam, 3 players: the seed of the game whose first turn is split on the page.
SIAM_SEED = 5
KING_PLAYERS = [
    {"name": name, "email": f"{name.lower()}@example.org"} for name in ("Ann", "Bob", "Cy")
]


def split_turn(mirror: Mirror) -> tuple[dict, dict]:
    """A card of the seat to move that leaves its take pending, and the first take after it."""
    engine, seat = mirror.engine, mirror.seat()
    card = next(m for m in mirror.legal() if m.get("card") == "maharacha" and "take" not in m)
    take = engine.legal_moves(engine.apply(mirror.state, seat, card), seat)[0]
    return card, take


def test_a_web_player_confirms_a_split_king_of_siam_turn_once_and_the_next_seat_is_mailed(
    mail_server: BackgroundServer,
    worker,
    smtp_sink: tuple[Sink, str],
    db_url: str,
    new_context: Callable[[], BrowserContext],
) -> None:
    sink, _ = smtp_sink
    engine = ENGINES["king-of-siam"]
    game = create_game(mail_server, "king-of-siam", KING_PLAYERS, seed=SIAM_SEED)
    mirror = Mirror(engine, 3, SIAM_SEED)
    seat, following = mirror.seat(), (mirror.seat() + 1) % 3
    address, next_address = KING_PLAYERS[seat]["email"], KING_PLAYERS[following]["email"]
    [link] = SEAT_LINK.findall(text_of(first_mail(sink, address, "Your turn")))
    page = new_context().new_page()
    page.goto(mail_server.url + link.removeprefix(BASE_URL))  # from her mail: she acted
    expect(page.locator("#status")).to_contain_text("Your turn")
    card, take = split_turn(mirror)
    click_turn(page, engine, mirror.state, seat, [card, take])
    assert "(move 2)" in first_mail(sink, next_address, "Your turn")["Subject"]
    assert not outbox(db_url, rcpt_key=address, kind="turn", seq=1), "mailed for her own turn"
    moves = requests.get(mail_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [entry["notation"] for entry in moves] == [
        engine.format(engine.join_turn(mirror.state, seat, [card, take]))
    ]


def test_a_player_who_leaves_the_table_in_the_middle_of_a_split_turn_hears_of_it_later(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    sink, smtp_url = smtp_sink
    engine = ENGINES["king-of-siam"]
    game = create_game(mail_server, "king-of-siam", KING_PLAYERS, seed=SIAM_SEED)
    mirror = Mirror(engine, 3, SIAM_SEED)
    seat = mirror.seat()
    address = KING_PLAYERS[seat]["email"]
    [link] = SEAT_LINK.findall(text_of(first_mail(sink, address, "Your turn")))
    browser = requests.Session()
    browser.get(mail_server.url + link.removeprefix(BASE_URL), headers=OPENED, timeout=10)
    token = browser.cookies[f"turnpost_seat_{game['id']}"]
    card, _ = split_turn(mirror)
    played = requests.post(
        mail_server.api(f"/games/{game['id']}/moves"),
        json={"move": card},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert played.status_code == 201, played.text
    time.sleep(1)  # rounds of the worker
    assert not [m for m in mails_to(sink, address) if "(move 2)" in m["Subject"]]
    store = open_store(db_url)
    report = deliver_due(store, sending_settings(db_url, smtp_url), later(2 * AT_THE_TABLE))
    store.close()
    assert report.count("sent") == 1
    [told] = [m for m in mails_to(sink, address) if "(move 2)" in m["Subject"]]
    assert "take" in text_of(told)
