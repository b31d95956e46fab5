"""Throughput and latency of move submission, printed as figures (never pass/fail).

    .venv/bin/python bench/moves.py [--seconds 10] [--clients 8] [--workers 2] [--db URL]

Starts the app under gunicorn on a temporary database (``--db``), then measures in one run:

1. the engine alone: Siam moves applied per second (random legal games);
2. the trivial-route ceiling: ``GET /healthz`` requests per second;
3. move submissions: random legal Siam games played by several client threads
   (each move = one ``POST .../moves``; the legal moves are computed locally
   by the engine so that only submissions are timed), moves/s and p50/p99;
4. per-move cost as a game grows: median latency around move 10 and over the last
   20 moves of a game of ``--long-game`` moves (Siam draws a game at 500 plies).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.database import add_db_option, bench_database  # noqa: E402
from engines import get_engine  # noqa: E402
from engines.siam.board import PLY_LIMIT  # noqa: E402
from tests.support import BackgroundServer, start_background  # noqa: E402

SIAM = get_engine("siam")
#: Limits far above a benchmark's rate (all its clients share 127.0.0.1), set in the
#: server's environment; the limiter still runs on every request.
UNLIMITED = {
    "TURNPOST_RATELIMIT_TOKEN": "10000000/minute",
    "TURNPOST_RATELIMIT_IP": "10000000/minute",
    "TURNPOST_RATELIMIT_CREATE": "10000000/hour",
    "TURNPOST_MAX_STREAMS_PER_CLIENT": "100000",
    "TURNPOST_MAX_CONNECTIONS_PER_CLIENT": "100000",
}


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of ``values`` by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def engine_moves_per_second(seconds: float) -> float:
    """Random legal Siam moves applied per second by the engine alone (legal_moves included)."""
    rng = random.Random(1)
    applied, deadline = 0, time.perf_counter() + seconds
    state = SIAM.setup(2, SIAM.options({}), 0)
    while time.perf_counter() < deadline:
        seat = SIAM.to_move(state)
        if not seat:
            state = SIAM.setup(2, SIAM.options({}), 0)
            continue
        state = SIAM.apply(state, seat[0], rng.choice(SIAM.legal_moves(state, seat[0])))
        applied += 1
    return applied / seconds


def trivial_requests_per_second(url: str, seconds: float, clients: int) -> float:
    """Requests per second on a trivial ``url`` (e.g. ``/healthz``) from ``clients`` threads."""
    counts = [0] * clients

    def hammer(index: int) -> None:
        session, deadline = requests.Session(), time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            session.get(url, timeout=10).raise_for_status()
            counts[index] += 1

    run_threads(hammer, clients)
    return sum(counts) / seconds


def run_threads(target, clients: int) -> None:
    """Run ``target(i)`` in ``clients`` threads and wait for all."""
    threads = [threading.Thread(target=target, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def new_game(session: requests.Session, server: BackgroundServer) -> dict:
    """Create a Siam game with the default options."""
    body = {"engine": "siam", "players": [{"name": "A"}, {"name": "B"}], "seed": 1}
    response = session.post(server.api("/games"), json=body, timeout=10)
    response.raise_for_status()
    return response.json()


def post_move(
    session: requests.Session, server: BackgroundServer, game_id: str, token: str, move: dict
) -> tuple[float, requests.Response]:
    """Submit one move; its latency in seconds and the answer."""
    started = time.perf_counter()
    response = session.post(
        server.api(f"/games/{game_id}/moves"),
        json={"move": move},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    return time.perf_counter() - started, response


def submissions(server: BackgroundServer, seconds: float, clients: int) -> tuple[list[float], int]:
    """Play random games from ``clients`` threads; return move latencies and error count."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()

    def play(index: int) -> None:
        rng, session = random.Random(index), requests.Session()
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            game = new_game(session, server)
            state = SIAM.setup(2, SIAM.options({}), 1)
            tokens = [p["token"] for p in game["players"]]
            while SIAM.to_move(state) and time.perf_counter() < deadline:
                seat = SIAM.to_move(state)[0]
                move = rng.choice(SIAM.legal_moves(state, seat))
                elapsed, response = post_move(session, server, game["id"], tokens[seat], move)
                with lock:
                    latencies.append(elapsed)
                    errors[0] += response.status_code != 201
                state = SIAM.apply(state, seat, move)

    run_threads(play, clients)
    return latencies, errors[0]


def growth(server: BackgroundServer, moves: int) -> tuple[float, float]:
    """Median submission latency around move 10 and over the last 20 of ``moves`` moves of
    one game.

    The game plays Siam's four-move cycle of entries and exits, which returns
    the board to the start: every move is irreversible, so no position comes
    up again, and the game lasts until ``moves`` (Siam draws a game at
    :data:`PLY_LIMIT` plies).
    """
    session = requests.Session()
    game = new_game(session, server)
    tokens = [p["token"] for p in game["players"]]
    cycle = ["enter a1 N", "enter e5 S", "exit a1", "exit e5"]
    latencies = []
    for ply in range(moves):
        move = SIAM.parse(cycle[ply % 4])
        elapsed, response = post_move(session, server, game["id"], tokens[ply % 2], move)
        latencies.append(elapsed)
        response.raise_for_status()
    return statistics.median(latencies[5:25]), statistics.median(latencies[-20:])


def main() -> None:
    """Run every measurement and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--long-game", type=int, default=PLY_LIMIT - 1, help="moves, < 500")
    add_db_option(parser)
    args = parser.parse_args()

    print(f"engine alone: {engine_moves_per_second(args.seconds):,.0f} Siam moves/s")
    os.environ.update(UNLIMITED)
    with tempfile.TemporaryDirectory() as folder:
        server = start_background(bench_database(args.db, folder, "bench.db"), workers=args.workers)
        try:
            ceiling = trivial_requests_per_second(
                f"{server.url}/healthz", args.seconds, args.clients
            )
            latencies, errors = submissions(server, args.seconds, args.clients)
            at_10, at_long = growth(server, args.long_game)
        finally:
            server.stop()
    rate = len(latencies) / args.seconds
    print(f"trivial route: {ceiling:,.0f} req/s ({args.clients} clients, {args.workers} workers)")
    print(
        f"moves: {rate:,.0f} moves/s, p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
        f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms, errors {errors}"
    )
    print(f"ratio moves/trivial: {rate / ceiling:.2f}")
    print(
        f"per-move latency: move 10 {at_10 * 1000:.1f} ms, moves {args.long_game - 19}-"
        f"{args.long_game} {at_long * 1000:.1f} ms, ratio {at_long / at_10:.2f}"
    )


if __name__ == "__main__":
    main()
