"""Automatic vacation days per player, as properties (issue 28): whatever the player's time
zone, allowance and the moments their games run out of time around a year's end, each
timeout spends one of the player's days of the calendar year where they live while that
year has one left, and else the game's deadline policy applies."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.games.clock import format_time
from server.games.deadlines import process_game
from server.games.service import GameService, MoveRequest
from server.games.vacation_days import SETTING
from server.store.records import Player
from server.store.sqlite import SqliteStore

ZONES = ["UTC", "Pacific/Auckland", "Pacific/Kiritimati", "America/Los_Angeles", "Asia/Tokyo"]
#: A year's end far enough ahead that every simulated moment is after the games' creation.
NEW_YEAR = datetime(2032, 1, 1, tzinfo=UTC)
CLOCK = {"kind": "per_move", "hours": 24, "vacation_days": 5}


@pytest.fixture(scope="module")
def games() -> Iterator[GameService]:
    """A game service on an in-memory database, shared by the examples."""
    store = SqliteStore.open(":memory:")
    store.init()
    yield GameService(store)
    store.close()


def timeout_outcome(games: GameService, player_id: str, out: datetime) -> str:
    """A new game of ``player_id`` whose seat runs out of time at ``out``: what the worker
    then does (``vacation-day`` or ``forfeit``)."""
    game = games.create(
        "siam",
        [{"name": "Ann"}, {"name": "Bob", "player_id": player_id}],
        {},
        clock=CLOCK,
        deadline_policy="forfeit",
    )
    start = format_time(out - timedelta(hours=24))
    token = game["players"][0]["token"]
    games.submit(MoveRequest(game["id"], token=token, notation="enter a1 N", now=start))
    loaded = games.load(game["id"])
    return [action.kind for action in process_game(games, loaded, format_time(out))][0]


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    zone=st.sampled_from(ZONES),
    allowance=st.integers(min_value=0, max_value=3),
    minutes=st.lists(
        st.integers(min_value=-3 * 24 * 60, max_value=3 * 24 * 60), min_size=1, max_size=7
    ),
)
def test_each_timeout_spends_a_day_of_the_players_local_year_while_it_has_one(
    games: GameService,
    monkeypatch: pytest.MonkeyPatch,
    zone: str,
    allowance: int,
    minutes: list[int],
) -> None:
    monkeypatch.setenv(SETTING, str(allowance))
    player_id = f"p{games.store.count_rows('players')}"
    with games.store.write():
        games.store.add_player(
            Player(player_id, f"{player_id}@x", player_id, "Bob", zone, "en", "turn", "")
        )
    spent: Counter[int] = Counter()
    for moment in sorted(NEW_YEAR + timedelta(minutes=m) for m in minutes):
        year = moment.astimezone(ZoneInfo(zone)).year
        expected = "vacation-day" if spent[year] < allowance else "forfeit"
        assert timeout_outcome(games, player_id, moment) == expected, (moment, year, spent)
        spent[year] += expected == "vacation-day"
    for year in (2031, 2032):
        assert games.store.vacation_days_used(player_id, year) == spent[year]
