"""Bank and per-move clocks through the service and the worker's deadline pass, with the
time of each move and of each pass injected (issue 28); the API's clock fields and refusals."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from server.games.clock import format_time, parse_time
from server.games.deadlines import process_deadlines
from server.games.service import GameService, MoveRequest
from server.http.context import current_store
from server.mail.words import when
from tests.mail.conftest import Mailbox, opened_links, send

ON_BOTH_BACKENDS = True
PLAYERS = [{"name": "Ann"}, {"name": "Bob"}]
PLAYERS_BY_MAIL = [
    {"name": "Ann", "email": "ann@example.org"},
    {"name": "Bob", "email": "bob@example.org"},
]
BANK = {"kind": "bank", "bank_hours": 10, "increment_hours": 2, "max_bank_hours": 11}
ONE_MICROSECOND = timedelta(microseconds=1)


def play(games: GameService, game: dict, seat: int, notation: str, at: datetime) -> dict:
    """``seat`` plays ``notation`` at moment ``at``."""
    token = game["players"][seat]["token"]
    return games.submit(
        MoveRequest(game["id"], token=token, notation=notation, now=format_time(at))
    )


def tick(games: GameService, at: datetime) -> list[tuple[str, int]]:
    """The worker's deadline pass at ``at``: what it did."""
    return [(action.kind, action.seat) for action in process_deadlines(games, format_time(at))]


def seat_times(games: GameService, game_id: str) -> list[dict[str, Any]]:
    """Each seat's time in the game object."""
    return games.game_object(games.load(game_id), None)["clock"]["seats"]


def test_a_bank_times_out_exactly_when_it_runs_out(games: GameService) -> None:
    game = games.create("siam", PLAYERS, {}, clock=BANK, deadline_policy="forfeit")
    start = parse_time(seat_times(games, game["id"])[0]["runs_out_at"]) - timedelta(hours=10)
    play(games, game, 0, "enter a1 N", start + timedelta(hours=3))  # 10 - 3 + 2 = 9 left
    play(games, game, 1, "enter e5 S", start + timedelta(hours=4))  # 10 - 1 + 2, capped at 11
    times = seat_times(games, game["id"])
    assert [t["runs_out_at"] for t in times] == [format_time(start + timedelta(hours=13)), None]
    assert times[1]["remaining_seconds"] == 11 * 3600
    out = start + timedelta(hours=13)
    assert ("forfeit", 0) not in tick(games, out - ONE_MICROSECOND)
    assert games.load(game["id"]).status == "active"
    assert tick(games, out) == [("forfeit", 0)]
    ended = games.load(game["id"])
    assert ended.status == "finished" and ended.row.result["forfeit"] == [0]


def test_automatic_vacation_days_come_before_a_timeout(games: GameService) -> None:
    clock = {**BANK, "vacation_days": 2}
    game = games.create("siam", PLAYERS, {}, clock=clock, deadline_policy="forfeit")
    out = parse_time(games.load(game["id"]).row.deadline)
    assert tick(games, out) == [("vacation-day", 0)]
    assert parse_time(games.load(game["id"]).row.deadline) == out + timedelta(days=1)
    assert tick(games, out + timedelta(days=1)) == [("vacation-day", 0)]
    assert games.game_object(games.load(game["id"]), 0)["clock"]["vacation_days_left"] == 0
    assert ("forfeit", 0) not in tick(games, out + timedelta(days=2) - ONE_MICROSECOND)
    assert tick(games, out + timedelta(days=2)) == [("forfeit", 0)]


def test_a_weekend_pause_covering_the_whole_turn_moves_the_timeout_to_monday(
    games: GameService,
) -> None:
    """A day per move, no clock on Saturdays and Sundays in Brussels: a turn starting on
    Friday at 20:00 there runs out on Monday at 20:00."""
    clock = {
        "kind": "per_move",
        "hours": 24,
        "pause": {"weekdays": ["sat", "sun"], "time_zone": "Europe/Brussels"},
    }
    game = games.create("siam", PLAYERS, {}, clock=clock, deadline_policy="forfeit")
    brussels = ZoneInfo("Europe/Brussels")
    friday = datetime(2027, 1, 8, 20, tzinfo=brussels)
    play(games, game, 0, "enter a1 N", friday)
    monday = datetime(2027, 1, 11, 20, tzinfo=brussels)
    assert parse_time(games.load(game["id"]).row.deadline) == monday
    saturday = datetime(2027, 1, 9, 12, tzinfo=brussels)
    view = games.game_object(games.load(game["id"]), None)["clock"]
    assert view["pause"]["weekdays"] == ["sat", "sun"]
    assert tick(games, saturday) == []
    assert ("forfeit", 1) not in tick(games, monday - ONE_MICROSECOND)
    assert tick(games, monday) == [("forfeit", 1)]


def test_the_api_creates_a_bank_clock_and_shows_each_seats_time(client) -> None:
    answer = client.post(
        "/api/v1/games", json={"engine": "siam", "players": PLAYERS, "clock": BANK}
    )
    assert answer.status_code == 201, answer.json
    clock = answer.json["clock"]
    assert clock["kind"] == "bank" and clock["bank_hours"] == 10
    first, second = clock["seats"]
    assert 10 * 3600 - 5 <= first["remaining_seconds"] <= 10 * 3600 and first["running"]
    assert second == {
        "seat": 1,
        "remaining_seconds": 36000,
        "running": False,
        "runs_out_at": None,
    }
    assert clock["vacation_days_left"] is None  # a seat's own view only
    read = client.get(f"/api/v1/games/{answer.json['id']}")
    assert read.json["clock"]["seats"][0]["runs_out_at"] == read.json["deadline"]


@pytest.mark.parametrize(
    ("clock", "field"),
    [
        ({"kind": "bank", "hours": 72}, "hours"),
        ({"kind": "per_move"}, "hours"),
        ({"kind": "sandglass", "hours": 1}, "kind"),
        ({"kind": "bank", "bank_hours": 10, "max_bank_hours": 5}, "max_bank_hours"),
        ({"kind": "bank", "bank_hours": -3}, "bank_hours"),
        (
            {
                "kind": "per_move",
                "hours": 24,
                "pause": {"weekdays": ["sat", "sun", "mon", "tue", "wed", "thu"]},
            },
            "weekdays",
        ),
        ({"kind": "per_move", "hours": 24, "pause": {"weekdays": ["caturday"]}}, "pause"),
        (
            {
                "kind": "per_move",
                "hours": 24,
                "pause": {"nightly": {"from": "25:00", "to": "07:00"}},
            },
            "pause",
        ),
        (
            {
                "kind": "per_move",
                "hours": 24,
                "pause": {"nightly": {"from": "06:00", "to": "23:00"}},
            },
            "nightly",
        ),
        (
            {
                "kind": "per_move",
                "hours": 24,
                "pause": {"weekdays": ["sat"], "time_zone": "Mars/Olympus"},
            },
            "pause",
        ),
        ({"kind": "per_move", "hours": 24, "pause": {}}, "pause"),
        ({"kind": "per_move", "hours": 24, "vacation_days": 1000}, "vacation_days"),
        ({"kind": "per_move", "hours": 24, "vacation_days": "2"}, "vacation_days"),
        ("72 hours", None),
    ],
)
def test_bad_clocks_are_refused_with_a_422_naming_the_field(
    client, app, clock: Any, field: str | None
) -> None:
    answer = client.post(
        "/api/v1/games", json={"engine": "siam", "players": PLAYERS, "clock": clock}
    )
    assert answer.status_code == 422, answer.json
    details = answer.json["error"]["details"]["clock"]
    assert field is None or field in details
    with app.app_context():
        assert current_store().game_ids() == [], "a game was made"


def test_a_clock_and_turn_hours_together_are_refused(client) -> None:
    body = {"engine": "siam", "players": PLAYERS, "clock": BANK, "turn_hours": 24}
    answer = client.post("/api/v1/games", json=body)
    assert answer.status_code == 422
    assert "clock" in answer.json["error"]["details"]


def test_the_game_page_words_each_seats_time(client) -> None:
    answer = client.post(
        "/api/v1/games", json={"engine": "siam", "players": PLAYERS, "clock": BANK}
    )
    page = client.get(f"/games/{answer.json['id']}").get_data(as_text=True)
    [clocks] = re.findall(r'<ul class="clocks" id="clocks">(.*?)</ul>', page, re.S)
    lines = [re.sub(r"\s+", " ", line).strip() for line in re.findall(r"<li>(.*?)</li>", clocks)]
    assert re.fullmatch(r"Ann: (9 hours 59 minutes|10 hours) left", lines[0]), lines
    assert lines[1] == "Bob: 10 hours"
    assert not re.search(r"\d{4}-\d\d-\d\dT", clocks)


def test_the_lobby_form_creates_a_bank_with_quiet_weekends(client) -> None:
    client.application.config["WTF_CSRF_ENABLED"] = False
    form = {"engine": "siam", "name0": "Ann", "name1": "Bob", "turn_hours": "bank"}
    created = client.post("/games", data={**form, "pause_weekends": "on"})
    assert created.status_code in (302, 303), created.get_data(as_text=True)[:500]
    game_id = created.headers["Location"].split("/")[-2]  # /games/<id>/created
    clock = client.get(f"/api/v1/games/{game_id}").json["clock"]
    assert clock["kind"] == "bank" and clock["bank_hours"] == 240
    assert clock["pause"]["weekdays"] == ["sat", "sun"]


def test_a_turn_mail_words_the_seats_bank_in_its_language(
    games: GameService, mailbox: Mailbox
) -> None:
    """Bob reads German: his turn mail (text and HTML) says how much of his bank is left and
    when his move runs out, as his game page words a seat's time."""
    seats = [PLAYERS_BY_MAIL[0], {**PLAYERS_BY_MAIL[1], "language": "de"}]
    game = games.create("siam", seats, {}, clock=BANK, deadline_policy="forfeit")
    opened_links(games, game)
    start = parse_time(seat_times(games, game["id"])[0]["runs_out_at"]) - timedelta(hours=10)
    moved = start + timedelta(hours=3)
    play(games, game, 0, "enter a1 N", moved)
    send(games, format_time(moved))
    bob = mailbox.latest("bob@example.org", "Du bist am Zug")
    runs_out = format_time(moved + timedelta(hours=10))  # Bob's whole bank, 10 hours
    until = when(runs_out, format_time(moved), "de")
    for part in ("plain", "html"):
        text = " ".join(re.sub(r"</?b>", "", bob.get_body((part,)).get_content()).split())
        assert "Dein Zeitkonto: 10 Stunden übrig" in text, text
        assert f"läuft ab am {until}" in text and "Bitte ziehe bis" not in text


def test_a_per_move_clock_mail_says_no_bank(games: GameService, mailbox: Mailbox) -> None:
    game = games.create("siam", PLAYERS_BY_MAIL, {}, turn_hours=24)
    opened_links(games, game)
    text = mailbox.latest("ann@example.org").get_body(("plain",)).get_content()
    assert "Please move by" in text and "time bank" not in text
