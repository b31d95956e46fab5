"""Server time of a player's lists as the database grows: my games, the lobby, the API.

    .venv/bin/python bench/players.py [--sizes 1000 100000] [--requests 200]

Builds a SQLite file (a temporary folder) with 10,000 players and games of
every engine, copied by direct inserts through the Store from a few games
really played by the service (an active and a resigned one per engine, each
a few random moves long), every seat tied to a player and moments spread
over a year; one game in :data:`TABLE_EVERY` is instead a table waiting for
players (one seat taken, the others open, set up in the last 14 days). One
player, "Me", sits at 200 of the games: about a third waiting for them, a
third waiting for others, a third over. The file is grown to
each of ``--sizes`` games in turn, and at each size ``--requests`` requests
of each route are timed through Flask's test client (the whole app: routing,
the session or token, templates, JSON) with ``time.perf_counter``, the objects
alive before kept out of the garbage collector's passes as a served worker keeps
its app's (:func:`server.serving.settle`):

- ``/me/games``, the player's games page (signed in by its session cookie);
- ``/``, the lobby: for a stranger (the tables to join), and for "Me" signed in (their
  games and the tables to join);
- ``GET /api/v1/me/games`` with the player's personal API token (the first page).

Prints p50 and p95 in milliseconds per size and route (and those of the CPU
time of a request, which other work on a shared machine does not inflate as
much as the wall clock); the goal (issue 21) is
a p95 under 50 ms at 100,000 games, flat as the database grows. Prints
figures; never fails on time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import ENGINES  # noqa: E402
from server import create_app  # noqa: E402
from server.accounts.service import AccountService  # noqa: E402
from server.games.clock import format_time, parse_time, utcnow  # noqa: E402
from server.games.service import FORMING_DAYS, GameService, MoveRequest  # noqa: E402
from server.serving import settle  # noqa: E402
from server.store import open_store  # noqa: E402
from server.store.base import Store  # noqa: E402
from server.store.records import GameRow, LoggedMove, NewSeat, Player, Seat  # noqa: E402

PLAYERS = 10_000
MY_GAMES = 200
GOAL_MS = 50.0
#: Seats and plies of the games copied, per engine.
SEATS = {"siam": 2, "king-of-siam": 3, "foreign-king": 3, "bangkok-klongs": 4}
PLIES = 6
YEAR = timedelta(days=365)
#: One game in this many is a table waiting for players.
TABLE_EVERY = 50


@dataclass(frozen=True)
class Model:
    """A game to copy: its rows as the store holds them."""

    game: GameRow
    seats: list[Seat]
    moves: list[LoggedMove]


def played_games(seed: int) -> tuple[list[Model], list[Model]]:
    """Games really played by the service (in memory): per engine an active one and a
    resigned one, each as its rows to copy; and per engine a table that forms (one named
    seat, the others open), as its rows too."""
    store = open_store(":memory:")
    store.init()
    games = GameService(store)
    rng = random.Random(seed)
    played, tables = [], []
    for engine_id, seats in SEATS.items():
        engine = ENGINES[engine_id]
        places = [{"name": "P0"}, *({"open": True} for _ in range(1, seats))]
        table_id = games.create(engine_id, places, {}, seed=seed, turn_hours=72)["id"]
        tables.append(Model(store.game(table_id), store.seats(table_id), []))
        for resigned in (False, True):
            names = [{"name": f"P{seat}"} for seat in range(seats)]
            game_id = games.create(engine_id, names, {}, seed=seed, turn_hours=72)["id"]
            for _ in range(PLIES):
                game = games.load(game_id)
                seat = game.to_move[0]
                move = rng.choice(engine.legal_moves(game.state, seat))
                games.submit(MoveRequest(game_id, seat=seat, move=move))
            if resigned:
                games.resign(game_id, 0)
            played.append(Model(store.game(game_id), store.seats(game_id), store.moves(game_id)))
    store.close()
    return played, tables


def add_players(store: Store) -> list[Player]:
    """Insert :data:`PLAYERS` players; the first is "Me"."""
    now = utcnow()
    players = []
    with store.write():
        for number in range(PLAYERS):
            email = f"player{number}@example.org"
            player = Player(
                id=f"p{number:07d}",
                email=email,
                email_key=email,
                name="Me" if number == 0 else f"Player {number}",
                time_zone="Europe/Brussels",
                language="en",
                mail_pref="turn",
                created_at=now,
            )
            store.add_player(player)
            players.append(player)
    return players


def add_games(
    store: Store,
    models: tuple[list[Model], list[Model]],
    players: list[Player],
    numbers: range,
    rng: random.Random,
) -> None:
    """Insert copies of the played games and tables (``models``) numbered ``numbers``; the
    first :data:`MY_GAMES` are games with a seat of "Me" (waiting for them in every third)."""
    played, tables = models
    now = parse_time(utcnow())
    with store.write():
        for number in numbers:
            table = number >= MY_GAMES and number % TABLE_EVERY == 0
            model = tables[number % len(tables)] if table else played[number % len(played)]
            game_id = f"{number:012x}"
            age = timedelta(days=FORMING_DAYS - 1) if table else YEAR
            updated = now - age * rng.random()
            game = model.game
            row = replace(
                game,
                id=game_id,
                created_at=format_time(updated - timedelta(days=0 if table else 3)),
                updated_at=format_time(updated),
                forming_until=format_time(updated + timedelta(days=FORMING_DAYS))
                if table
                else game.forming_until,
                deadline=format_time(updated + timedelta(hours=72)) if game.deadline else None,
            )
            seated = rng.sample(players[1:], len(model.seats))
            if number < MY_GAMES:
                mine = game.to_move[0] if game.to_move and number % 3 == 0 else len(seated) - 1
                seated[mine] = players[0]
            store.create_game(
                row, [copied(seat, who) for seat, who in zip(model.seats, seated, strict=True)]
            )
            for move in model.moves:
                store.append_move(replace(move, game_id=game_id))


def copied(seat: Seat, who: Player) -> NewSeat:
    """A model's seat for a copy: taken by ``who``, or open as it was at a table."""
    if not seat.name:
        return NewSeat(name="")
    return NewSeat(name=who.name, player_id=who.id, joined_at=seat.joined_at, bot=seat.bot)


Figures = tuple[float, float, float, float]


def timed(client: Any, path: str, requests: int, **headers: str) -> Figures:
    """p50 and p95 of ``GET path`` in milliseconds, and the p50 and p95 of its CPU time (what
    the request cost this process, whatever else the machine runs), after a few warm-ups."""
    for _ in range(5):
        assert client.get(path, headers=headers).status_code == 200, path
    times, cpu = [], []
    for _ in range(requests):
        started, started_cpu = time.perf_counter(), time.thread_time()
        answer = client.get(path, headers=headers)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.thread_time() - started_cpu) * 1000)
        assert answer.status_code == 200, (path, answer.status_code)
    cuts, cpu_cuts = statistics.quantiles(times, n=20), statistics.quantiles(cpu, n=20)
    return statistics.median(times), cuts[18], statistics.median(cpu), cpu_cuts[18]


def measure(app: Any, session: str, token: str, requests: int) -> dict[str, Figures]:
    """p50 and p95 (and those of the CPU time) of the routes."""
    client = app.test_client()
    client.set_cookie("turnpost_player", session)
    stranger = app.test_client()
    return {
        "my games page": timed(client, "/me/games", requests),
        "lobby, a stranger": timed(stranger, "/", requests),
        "lobby, signed in": timed(client, "/", requests),
        "GET /api/v1/me/games": timed(
            stranger, "/api/v1/me/games", requests, Authorization=f"Bearer {token}"
        ),
    }


def main() -> None:
    """Grow the database to each size and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 100_000])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    models = played_games(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "players.db")
        app = create_app({"TURNPOST_DB": path, "RATELIMIT_ENABLED": False, "TESTING": True})
        store = open_store(path)
        players = add_players(store)
        accounts = AccountService(store, "bench")
        session = accounts.open_session(players[0].id)
        token = accounts.create_api_token(players[0].id, "bench")["token"]
        print(
            f"{'games':>8} {'route':22} {'p50 ms':>8} {'p95 ms':>8} {'CPU p50 ms':>11}"
            f" {'CPU p95 ms':>11}"
        )
        built = 0
        for size in sorted(args.sizes):
            started = time.perf_counter()
            add_games(store, models, players, range(built, size), rng)
            built = size
            print(
                f"# {size:,} games, {PLAYERS:,} players: built in"
                f" {time.perf_counter() - started:.1f} s"
            )
            settle()  # as a served worker does once its app is built
            for route, figures in measure(app, session, token, args.requests).items():
                p50, p95, cpu, cpu_p95 = figures
                verdict = "" if p95 < GOAL_MS else f"  OVER the {GOAL_MS:.0f} ms goal"
                print(
                    f"{size:8,} {route:22} {p50:8.1f} {p95:8.1f} {cpu:11.1f} {cpu_p95:11.1f}"
                    f"{verdict}"
                )
        store.close()


if __name__ == "__main__":
    main()
