"""Many clients racing on one game and on many games, through a real gunicorn server.

Two gunicorn workers with 16 threads each, so writers meet both the
in-process writer lock and SQLite's lock between processes. Whatever the
interleaving: exactly one 201 per seq, every loser gets a clean ``409``, no
request fails with a 5xx or ``database is locked``, and no client hangs.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests

from tests.conftest import new_database
from tests.reliability.conftest import start_unlimited
from tests.server.test_api import auth, create_siam, move_of
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

RACERS = 12
ROUNDS = 15
GAMES = 8
MANY_GAMES_SECONDS = 6.0
MANY_GAMES_MAX_SECONDS = 60.0


@dataclass
class Race:
    """Every answer the clients got, and the seqs won per game."""

    server: BackgroundServer
    answers: list[tuple[int, str]] = field(default_factory=list)
    wins: Counter[tuple[str, int]] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def call(self, session: requests.Session, method: str, path: str, **kwargs: Any) -> Any:
        """Send a request, remember its answer; the JSON body (``None`` unless 2xx)."""
        response = session.request(method, self.server.api(path), timeout=30, **kwargs)
        with self.lock:
            self.answers.append((response.status_code, response.text))
        return response.json() if response.ok else None

    def prepare(
        self, session: requests.Session, game: dict[str, Any], rng: random.Random
    ) -> tuple[dict[str, str], dict[str, Any]] | None:
        """Read the game and pick a legal move of the seat to move: ``(headers, body)``."""
        view = self.call(session, "GET", f"/games/{game['id']}")
        if not view or not view["to_move"]:
            return None
        headers = auth(game["players"][view["to_move"][0]]["token"])
        options = self.call(session, "GET", f"/games/{game['id']}/legal-moves", headers=headers)
        if not options or not options["moves"]:
            return None
        move = move_of(rng.choice(options["moves"]))
        return headers, {"move": move, "expected_seq": options["seq"]}

    def submit(
        self, session: requests.Session, game: dict[str, Any], prepared: tuple[dict, dict] | None
    ) -> None:
        """Submit a prepared move; count the seq it won, if it won."""
        if prepared is None:
            return
        headers, body = prepared
        path = f"/games/{game['id']}/moves"
        answer = self.call(session, "POST", path, json=body, headers=headers)
        if answer is not None:
            with self.lock:
                self.wins[(game["id"], answer["seq"])] += 1

    def log(self, game: dict[str, Any]) -> list[int]:
        """The seqs of a game's move log."""
        response = requests.get(self.server.api(f"/games/{game['id']}/moves"), timeout=10)
        return [entry["seq"] for entry in response.json()]


def run_threads(target: Callable[[int], None], count: int) -> list[threading.Thread]:
    """Run ``target(i)`` in ``count`` threads; return those still running after 60 s."""
    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return [thread for thread in threads if thread.is_alive()]


def race_one_game(race: Race) -> tuple[dict[str, Any], list[threading.Thread]]:
    """``RACERS`` clients read the same seq, then all submit a move at once; ``ROUNDS`` times."""
    game = create_siam(race.server)
    barrier = threading.Barrier(RACERS)

    def racer(index: int) -> None:
        rng, session = random.Random(index), requests.Session()
        for _ in range(ROUNDS):
            barrier.wait(timeout=30)
            prepared = race.prepare(session, game, rng)
            barrier.wait(timeout=30)
            race.submit(session, game, prepared)

    return game, run_threads(racer, RACERS)


def race_many_games(race: Race) -> tuple[list[dict[str, Any]], list[threading.Thread]]:
    """``2 * RACERS`` clients play random games among ``GAMES`` for a few seconds, and on
    until ``GAMES * 5`` moves landed (a loaded machine; at most ``MANY_GAMES_MAX_SECONDS``)."""
    games = [create_siam(race.server) for _ in range(GAMES)]
    started = time.monotonic()

    def done() -> bool:
        elapsed = time.monotonic() - started
        with race.lock:
            landed = sum(race.wins.values())
        return elapsed >= MANY_GAMES_MAX_SECONDS or (
            elapsed >= MANY_GAMES_SECONDS and landed >= GAMES * 5
        )

    def player(index: int) -> None:
        rng, session = random.Random(1000 + index), requests.Session()
        while not done():
            game = rng.choice(games)
            race.submit(session, game, race.prepare(session, game, rng))

    return games, run_threads(player, 2 * RACERS)


@pytest.fixture(scope="module")
def raced(
    request: pytest.FixtureRequest, backend: str, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """Both races on one server on the module's ``backend``, then the server stopped and its
    stderr collected."""
    server = start_unlimited(new_database(request, backend, tmp_path_factory.mktemp("race")))
    try:
        one = Race(server)
        game, one_hung = race_one_game(one)
        one_log = one.log(game)
        many = Race(server)
        games, many_hung = race_many_games(many)
        many_logs = {g["id"]: many.log(g) for g in games}
    finally:
        server.stop()
    return {
        "one": (one, one_hung, one_log),
        "many": (many, many_hung, many_logs),
        "stderr": server.log(),
    }


def assert_clean(answers: list[tuple[int, str]], allowed: set[tuple[int, str]]) -> None:
    """Every answer is a 2xx or an allowed ``(status, code)``; none mentions a locked database."""
    for status, text in answers:
        assert "locked" not in text.lower(), text
        assert status < 500, text
        if status >= 300:
            assert (status, json.loads(text)["error"]["code"]) in allowed, text


def test_racing_on_one_game_exactly_one_wins_each_seq(raced: dict[str, Any]) -> None:
    race, hung, log = raced["one"]
    assert hung == [], "a client hangs (deadlock?)"
    assert_clean(race.answers, {(409, "stale_seq")})
    assert sorted(seq for _, seq in race.wins) == list(range(1, ROUNDS + 1))
    assert set(race.wins.values()) == {1}, "a seq was won twice"
    assert log == list(range(1, ROUNDS + 1))


def test_racing_on_many_games_each_seq_is_won_once(raced: dict[str, Any]) -> None:
    race, hung, logs = raced["many"]
    assert hung == [], "a client hangs (deadlock?)"
    assert_clean(race.answers, {(409, "stale_seq"), (409, "not_your_turn"), (409, "game_over")})
    assert set(race.wins.values()) == {1}, "a seq was won twice"
    assert sum(race.wins.values()) >= GAMES * 5, "too few moves landed"
    for game_id, log in logs.items():
        won = sorted(seq for won_game, seq in race.wins if won_game == game_id)
        assert log == won == list(range(1, len(log) + 1))


def test_no_lock_error_reached_the_server_log(raced: dict[str, Any]) -> None:
    assert "database is locked" not in raced["stderr"]
    assert "Traceback" not in raced["stderr"]
