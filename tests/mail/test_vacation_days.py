"""Automatic vacation days per player and calendar year, shared by all their games (issue 28):
the worker's deadline pass at simulated moments across games and across the year's end in
the player's time zone, and two workers spending a player's last days at once; the days
left in a seat's own view and on the player's page of a real server."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
import requests

from server.games.clock import format_time, parse_time, utcnow
from server.games.deadlines import process_game
from server.games.seat_clocks import control_of
from server.games.service import GameService, MoveRequest
from server.games.vacation_days import SETTING, player_days_left, seat_days_left
from server.store import open_store
from server.store.records import Player
from tests.mail.conftest import Sink
from tests.mail.players import create_game, sign_in, take_seat
from tests.support import BackgroundServer

ON_BOTH_BACKENDS = True
#: A day a move, and at most 5 automatic vacation days per seat and year in the game.
CLOCK = {"kind": "per_move", "hours": 24, "vacation_days": 5}


def add_player(games: GameService, player_id: str, time_zone: str = "UTC") -> Player:
    """A signed-in player's account."""
    player = Player(
        player_id, f"{player_id}@example.org", player_id, player_id, time_zone, "en", "turn", ""
    )
    with games.store.write():
        games.store.add_player(player)
    return player


def game_waiting_for(games: GameService, player_id: str | None, since: datetime) -> str:
    """A game whose seat 1 (``player_id``'s, or no player's) is to move since ``since``: it
    runs out of time a day later."""
    seat = {"name": "Bob"} | ({"player_id": player_id} if player_id else {})
    game = games.create("siam", [{"name": "Ann"}, seat], {}, clock=CLOCK, deadline_policy="forfeit")
    token = game["players"][0]["token"]
    games.submit(
        MoveRequest(game["id"], token=token, notation="enter a1 N", now=format_time(since))
    )
    return game["id"]


def timeout(games: GameService, game_id: str) -> str:
    """What the worker does to ``game_id`` when its seat runs out of time: its action."""
    game = games.load(game_id)
    return [action.kind for action in process_game(games, game, game.row.deadline)][0]


def test_a_players_days_are_shared_by_all_their_games(
    games: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SETTING, "2")
    bob = add_player(games, "bob")
    start = datetime(2027, 3, 1, 9, tzinfo=UTC)
    ids = [game_waiting_for(games, "bob", start + timedelta(hours=hour)) for hour in range(3)]
    anon = game_waiting_for(games, None, start)
    assert [timeout(games, game_id) for game_id in ids[:2]] == ["vacation-day"] * 2
    assert player_days_left(games.store, bob, start) == 0
    assert timeout(games, ids[2]) == "forfeit"  # each game has days, the player has none
    assert games.load(ids[2]).row.result["forfeit"] == [1]
    held = games.load(ids[0])
    assert parse_time(held.row.deadline) == start + timedelta(days=2)
    control = control_of(held.row)
    assert control is not None
    assert seat_days_left(games.store, control, held.seats[1], start) == 0
    assert [timeout(games, anon) for _ in range(5)] == ["vacation-day"] * 5  # no player: its own
    assert timeout(games, anon) == "forfeit"
    next_year = datetime(2028, 1, 1, tzinfo=UTC)
    assert seat_days_left(games.store, control, held.seats[1], next_year) == 2


def test_the_players_year_turns_in_their_time_zone(
    games: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Auckland is 13 hours ahead of UTC in January: at 11:00 UTC on 31 December its year
    has turned, and the day spent then is the new year's."""
    monkeypatch.setenv(SETTING, "1")
    kiri = add_player(games, "kiri", "Pacific/Auckland")
    late_december = datetime(2027, 12, 30, 9, tzinfo=UTC)  # out at 09:00 UTC on the 31st
    new_year_there = datetime(2027, 12, 30, 12, tzinfo=UTC)  # out at 01:00 on 1 January there
    old, new, later = (
        game_waiting_for(games, "kiri", moment)
        for moment in (late_december, new_year_there, new_year_there + timedelta(hours=1))
    )
    assert timeout(games, old) == "vacation-day"  # 2027's day
    assert timeout(games, new) == "vacation-day"  # 2028's: still 2027 in UTC
    assert games.store.vacation_days_used("kiri", 2027) == 1
    assert games.store.vacation_days_used("kiri", 2028) == 1
    assert timeout(games, later) == "forfeit"
    assert player_days_left(games.store, kiri, datetime(2028, 12, 31, 10, 59, tzinfo=UTC)) == 0
    assert player_days_left(games.store, kiri, datetime(2028, 12, 31, 11, tzinfo=UTC)) == 1


def test_two_workers_never_spend_more_days_than_the_player_has(
    games: GameService, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight games of one player run out at the same moment; two workers, each on its own
    database connection, pass over all of them at once, in opposite orders (so that they
    spend in different games at the same time): 3 days are spent, in 3 games."""
    monkeypatch.setenv(SETTING, "3")
    add_player(games, "bob")
    start = datetime(2027, 5, 3, 9, tzinfo=UTC)
    ids = [game_waiting_for(games, "bob", start) for _ in range(8)]
    out = format_time(start + timedelta(days=1))
    barrier = threading.Barrier(2)
    done: list[list[tuple[str, str]]] = []

    def worker(order: list[str]) -> None:
        store = open_store(db_url)
        service = GameService(store)
        try:
            barrier.wait()
            actions = [
                a for game_id in order for a in process_game(service, service.load(game_id), out)
            ]
            done.append([(a.game_id, a.kind) for a in actions])
        finally:
            store.close()

    threads = [threading.Thread(target=worker, args=(order,)) for order in (ids, ids[::-1])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(done) == 2
    spent = [game_id for actions in done for game_id, kind in actions if kind == "vacation-day"]
    assert len(spent) == len(set(spent)) == 3
    assert games.store.vacation_days_used("bob", 2027) == 3
    running = {game_id for game_id in ids if games.load(game_id).status == "active"}
    assert running == set(spent)  # the others were forfeited


def test_the_seats_own_view_says_its_days_left(
    games: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SETTING, "4")
    add_player(games, "bob")
    game_id = game_waiting_for(games, "bob", parse_time(utcnow()))
    game = games.load(game_id)
    assert games.game_object(game, 1)["clock"]["vacation_days_left"] == 4
    assert games.game_object(game, 0)["clock"]["vacation_days_left"] == 5  # no player: the game's
    assert games.game_object(game, None)["clock"]["vacation_days_left"] is None


def test_a_real_server_shows_a_players_days_to_their_seat_and_on_their_page(
    mail_server: BackgroundServer, worker, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    """Ann's seat reads its days in the game object (clock.vacation_days_left: the game's 3,
    then her own last day once her other games spent 9 of her 10), the ETag following them;
    Bob's seat (no player) reads the game's; the public view none. Her page and her seat's
    game page say them too."""
    ann = sign_in(mail_server, smtp_sink[0], "ann@example.org")
    clock = {**CLOCK, "vacation_days": 3}
    game = create_game(mail_server, "siam", [{"name": "Bob"}, {"name": "Ann"}], clock=clock)
    take_seat(ann, mail_server, game, 1)
    url = mail_server.api(f"/games/{game['id']}")
    tokens = {0: game["players"][0]["token"], 1: ann.cookies[f"turnpost_seat_{game['id']}"]}

    def days_left(seat: int | None, etag: str = "") -> requests.Response:
        """The game object as ``seat`` (its token: Ann's browser's) reads it."""
        headers = {"If-None-Match": etag} if etag else {}
        if seat is not None:
            headers["Authorization"] = f"Bearer {tokens[seat]}"
        return requests.get(url, headers=headers, timeout=10)

    first = days_left(1)
    assert first.status_code == 200, first.text
    assert first.json()["clock"]["vacation_days_left"] == 3
    assert days_left(0).json()["clock"]["vacation_days_left"] == 3
    assert days_left(None).json()["clock"]["vacation_days_left"] is None
    assert days_left(1, first.headers["ETag"]).status_code == 304

    store = open_store(db_url)
    try:
        player_id = GameService(store).load(game["id"]).seats[1].player_id
        assert player_id is not None
        year = parse_time(utcnow()).year  # Ann's zone is UTC
        with store.write():
            for _ in range(9):  # her other games' timeouts
                assert store.spend_vacation_day(player_id, year, 10)
    finally:
        store.close()
    later = days_left(1, first.headers["ETag"])
    assert later.status_code == 200 and later.json()["clock"]["vacation_days_left"] == 1
    assert days_left(0).json()["clock"]["vacation_days_left"] == 3

    me = ann.get(f"{mail_server.url}/me", timeout=10).text
    assert "Automatic vacation days left this year: 1." in " ".join(me.split())
    page = ann.get(f"{mail_server.url}/games/{game['id']}", timeout=10).text
    assert "1 automatic vacation day is left this year" in " ".join(page.split())
    watched = requests.get(f"{mail_server.url}/games/{game['id']}", timeout=10).text
    assert 'id="vacation-days"' not in watched
