"""Deadlines, reminders, expiry policies and vacations with an injected clock."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from server.errors import TurnpostError
from server.games.clock import format_time, parse_time
from server.games.deadlines import (
    PASS,
    VACATION_DAYS_PER_YEAR,
    process_deadlines,
    process_game,
    set_vacation,
)
from server.games.service import GameService, MoveRequest
from tests.mail.conftest import opened_links

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]
#: Two opening moves, played by players who opened their mail's link, so all their mails flow.
OPENING = ["enter a1 N", "enter e5 S"]


def timed_game(
    games: GameService, policy: str, hours: float = 48, opened: bool = False
) -> tuple[dict, datetime]:
    """A Siam game with a turn clock (after :data:`OPENING` if ``opened``); it and its deadline."""
    game = games.create("siam", PLAYERS, {}, turn_hours=hours, deadline_policy=policy)
    if opened:
        opened_links(games, game)
    for ply, notation in enumerate(OPENING if opened else []):
        games.submit(
            MoveRequest(game["id"], token=game["players"][ply % 2]["token"], notation=notation)
        )
    return game, parse_time(games.load(game["id"]).row.deadline)


def tick(games: GameService, moment: datetime) -> list[tuple[str, int]]:
    """Run the clock at ``moment``; what it did as ``(kind, seat)`` pairs."""
    return [(a.kind, a.seat) for a in process_deadlines(games, format_time(moment))]


def reminders(games: GameService) -> int:
    """Reminder mails in the outbox."""
    return games.store.outbox_count(kind="reminder")


def test_deadline_is_turn_hours_after_the_turn_starts(games: GameService) -> None:
    game, deadline = timed_game(games, "remind", hours=30)
    created = parse_time(games.load(game["id"]).row.created_at)
    assert abs(deadline - created - timedelta(hours=30)) < timedelta(seconds=1)
    api_view = games.game_object(games.load(game["id"]), None)
    assert api_view["deadline"] == format_time(deadline)


def test_reminders_at_half_time_and_twelve_hours_before_each_once(games: GameService) -> None:
    game, deadline = timed_game(games, "remind", hours=48, opened=True)
    assert tick(games, deadline - timedelta(hours=30)) == []
    assert tick(games, deadline - timedelta(hours=23)) == [("reminder", 0)]
    assert tick(games, deadline - timedelta(hours=22)) == []
    assert tick(games, deadline - timedelta(hours=11)) == [("reminder", 0)]
    assert tick(games, deadline - timedelta(hours=1)) == []
    assert reminders(games) == 2


def test_remind_policy_sends_one_expiry_reminder(games: GameService) -> None:
    game, deadline = timed_game(games, "remind", opened=True)
    assert tick(games, deadline + timedelta(minutes=1)) == [("expired-reminder", 0)]
    assert tick(games, deadline + timedelta(hours=5)) == []
    assert games.load(game["id"]).status == "active"
    assert reminders(games) == 1


def test_forfeit_policy_ends_the_game_once(games: GameService) -> None:
    game, deadline = timed_game(games, "forfeit", opened=True)
    assert tick(games, deadline + timedelta(minutes=1)) == [("forfeit", 0)]
    assert tick(games, deadline + timedelta(hours=1)) == []
    ended = games.game_object(games.load(game["id"]), None)
    assert ended["status"] == "finished" and ended["to_move"] == []
    assert ended["result"]["winners"] == [1] and ended["result"]["forfeit"] == [0]
    assert "Ann ran out of time" in ended["result"]["reason"]
    over = games.store.outbox_count(kind="game_over")
    assert over == 2
    with pytest.raises(TurnpostError, match="finished"):
        games.submit(
            MoveRequest(game["id"], token=game["players"][0]["token"], notation="enter a1 N")
        )


def test_skip_policy_without_a_pass_move_reminds_instead(games: GameService) -> None:
    game, deadline = timed_game(games, "skip")
    assert tick(games, deadline + timedelta(minutes=1)) == [("expired-reminder", 0)]
    assert games.load(game["id"]).seq == 0


def test_a_move_resets_the_clock_and_reminders(games: GameService) -> None:
    game, deadline = timed_game(games, "remind", hours=48)
    tick(games, deadline - timedelta(hours=11))
    games.submit(MoveRequest(game["id"], token=game["players"][0]["token"], notation="enter a1 N"))
    row = games.load(game["id"]).row
    assert parse_time(row.deadline) > deadline and row.reminders_sent == 0


def test_vacation_moves_the_running_deadline(games: GameService) -> None:
    game, deadline = timed_game(games, "forfeit")
    now = deadline - timedelta(hours=40)
    answer = set_vacation(
        games, game["id"], 0, format_time(now + timedelta(days=5)), format_time(now)
    )
    assert answer["days_left"] == pytest.approx(VACATION_DAYS_PER_YEAR - 5)
    assert tick(games, deadline + timedelta(hours=1)) == []
    assert parse_time(games.load(game["id"]).row.deadline) == deadline + timedelta(days=5)


def test_turn_starting_during_vacation_waits_for_its_end(games: GameService) -> None:
    game, _ = timed_game(games, "remind", hours=24)
    until = parse_time(games.load(game["id"]).row.created_at) + timedelta(days=3)
    set_vacation(games, game["id"], 1, format_time(until))
    games.submit(MoveRequest(game["id"], token=game["players"][0]["token"], notation="enter a1 N"))
    deadline = parse_time(games.load(game["id"]).row.deadline)
    assert deadline == until + timedelta(hours=24)


def test_vacation_allowance_per_year(games: GameService) -> None:
    game, deadline = timed_game(games, "remind")
    now = deadline - timedelta(hours=40)
    set_vacation(games, game["id"], 0, format_time(now + timedelta(days=20)), format_time(now))
    with pytest.raises(TurnpostError, match="vacation days are left"):
        set_vacation(games, game["id"], 0, format_time(now + timedelta(days=11)), format_time(now))
    with pytest.raises(TurnpostError, match="future"):
        set_vacation(games, game["id"], 0, format_time(now - timedelta(days=1)), format_time(now))


def test_vacation_through_the_api(client) -> None:
    body = {"engine": "siam", "players": PLAYERS, "turn_hours": 24}
    game = client.post("/api/v1/games", json=body).get_json()
    url = f"/api/v1/games/{game['id']}/vacation"
    auth = {"Authorization": f"Bearer {game['players'][0]['token']}"}
    until = format_time(parse_time(game["created_at"]) + timedelta(days=2))
    answer = client.post(url, json={"until": until}, headers=auth)
    assert answer.status_code == 200 and answer.get_json()["seat"] == 0
    too_long = format_time(parse_time(game["created_at"]) + timedelta(days=400))
    refused = client.post(url, json={"until": too_long}, headers=auth)
    assert refused.status_code == 422
    assert refused.get_json()["error"]["code"] == "invalid_request"
    assert client.post(url, json={"until": until}).status_code == 401


def test_skip_policy_passes_for_the_late_seat_where_the_game_has_a_pass(
    games: GameService,
) -> None:
    game = games.create(
        "king-of-siam",
        PLAYERS + [{"name": "Cy"}],
        {},
        seed=3,
        turn_hours=24,
        deadline_policy="skip",
    )
    loaded = games.load(game["id"])
    late = games.game_object(loaded, None)["to_move"][0]
    deadline = parse_time(loaded.row.deadline)
    assert tick(games, deadline + timedelta(minutes=1)) == [("skip", late)]
    after = games.load(game["id"])
    assert after.seq == 1
    assert [m.notation for m in games.store.moves(game["id"])] == ["pass"]
    assert tick(games, deadline + timedelta(minutes=2)) == [], "the new turn has a new deadline"


def test_forfeit_in_a_partner_game_loses_for_the_whole_team(games: GameService) -> None:
    players = [{"name": name} for name in ("Ann", "Bob", "Cy", "Di")]
    game = games.create(
        "king-of-siam", players, {}, seed=4, turn_hours=24, deadline_policy="forfeit"
    )
    loaded = games.load(game["id"])
    late = loaded.to_move[0]
    assert tick(games, parse_time(loaded.row.deadline) + timedelta(minutes=1)) == [
        ("forfeit", late)
    ]
    result = games.game_object(games.load(game["id"]), None)["result"]
    assert result["forfeit"] == sorted([late, (late + 2) % 4])
    assert result["winners"] == sorted([(late + 1) % 4, (late + 3) % 4])


def test_a_skip_deadline_racing_a_move_leaves_the_move_and_the_worker_alone(
    games: GameService,
) -> None:
    players = PLAYERS + [{"name": "Cy"}]
    game = games.create("king-of-siam", players, {}, seed=3, turn_hours=24, deadline_policy="skip")
    seen = games.load(game["id"])  # the clock reads the game and its expired deadline...
    late = seen.to_move[0]
    move = next(m for m in seen.engine.legal_moves(seen.state, late) if m != PASS)
    played = MoveRequest(game["id"], token=game["players"][late]["token"], move=move)
    games.submit(played)  # ...the player moves...
    expired = format_time(parse_time(seen.row.deadline) + timedelta(minutes=1))
    assert process_game(games, seen, expired) == []  # ...and then the clock would skip
    assert [m.notation for m in games.store.moves(game["id"])] == [seen.engine.format(move)]


def test_a_broken_game_does_not_stop_the_other_games_clocks(games: GameService) -> None:
    broken, _ = timed_game(games, "skip", hours=24)
    with games.store.write():
        games.store.update_game(broken["id"], {"state": {}})
    players = PLAYERS + [{"name": "Cy"}]
    game = games.create("king-of-siam", players, {}, seed=3, turn_hours=24, deadline_policy="skip")
    loaded = games.load(game["id"])
    expired = parse_time(loaded.row.deadline) + timedelta(minutes=1)
    assert tick(games, expired) == [("skip", loaded.to_move[0])]
