"""Sustained mixed load against gunicorn, printed as figures (never pass/fail).

    .venv/bin/python bench/load.py [--seconds 20] [--movers 8] [--readers 4] [--listeners 8]
                                   [--games 40] [--workers 2] [--threads 16]

Starts the app under gunicorn on a temporary database (rate limits raised
through the environment so that they stay out of the way; the limiter still
runs), then measures in one run:

1. the trivial-route ceiling: ``GET /healthz`` requests per second;
2. the mixed load for ``--seconds``: movers play random legal Siam games
   (moves chosen locally by the engine) spread over ``--games`` games at once;
   readers fetch the public and seat views, the move log and legal moves of
   random games; listeners follow the event streams of active games. Figures:
   moves/s, reads/s, p50/p99 latency of each, events received, and errors
   (every answer that is not the expected 2xx; it should be 0);
3. per-move cost as one game grows: median latency around move 10 and move
   ``--long-game`` (from ``bench/moves.py``);
4. the server's memory: RSS of the gunicorn master and workers, sampled from
   ``/proc`` every half second across the whole run.

Each listener holds one server thread (``gthread`` workers), so keep
``--listeners`` well under ``--workers`` x ``--threads``.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.moves import (  # noqa: E402
    SIAM,
    UNLIMITED,
    growth,
    new_game,
    percentile,
    run_threads,
    trivial_requests_per_second,
)
from server.gunicorn import BackgroundServer, start_background  # noqa: E402

#: Seconds without a line after which a listener leaves an event stream.
QUIET_SECONDS = 2.0


def server_rss_bytes(master: int) -> int:
    """Resident memory of the gunicorn master and its workers, from ``/proc``."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    total = 0
    for pid in [master, *map(int, children)]:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        kilobytes = next(
            line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")
        )
        total += int(kilobytes) * 1024
    return total


class MemorySampler(threading.Thread):
    """Samples the server's RSS every half second until stopped."""

    def __init__(self, master: int) -> None:
        super().__init__(daemon=True)
        self.master = master
        self.samples: list[int] = []
        self.done = threading.Event()

    def run(self) -> None:
        """Sample until :meth:`stop`."""
        while not self.done.is_set():
            self.samples.append(server_rss_bytes(self.master))
            self.done.wait(0.5)

    def stop(self) -> list[int]:
        """Stop sampling; the samples in bytes."""
        self.done.set()
        self.join()
        return self.samples


@dataclass
class Game:
    """A game a mover plays, with the engine state mirrored locally."""

    data: dict[str, Any]
    seq: int = 0
    state: dict[str, Any] = field(default_factory=lambda: SIAM.setup(2, SIAM.options({}), 1))

    @property
    def id(self) -> str:
        """The game id."""
        return self.data["id"]

    def token(self, seat: int) -> str:
        """A seat's token."""
        return self.data["players"][seat]["token"]


@dataclass
class Load:
    """The shared state of one mixed-load run: games, latencies, errors, events."""

    server: BackgroundServer
    deadline: float
    games: list[Game] = field(default_factory=list)
    moves: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    events: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def running(self) -> bool:
        """Whether the run's time is not up yet."""
        return time.perf_counter() < self.deadline

    def timed(
        self,
        into: list[float],
        ok: int,
        session: requests.Session,
        method: str,
        url: str,
        **kw: Any,
    ) -> bool:
        """Send a request, record its latency in ``into``; an error unless the status is ``ok``."""
        started = time.perf_counter()
        try:
            response = session.request(method, url, timeout=10, **kw)
        except requests.RequestException as error:
            with self.lock:
                self.errors.append(repr(error))
            return False
        elapsed = time.perf_counter() - started
        with self.lock:
            into.append(elapsed)
            if response.status_code != ok:
                self.errors.append(f"{response.status_code} {response.text[:200]}")
        return response.status_code == ok

    def fresh_game(self, session: requests.Session) -> Game:
        """A new game, shared with the readers and listeners."""
        game = Game(new_game(session, self.server))
        with self.lock:
            self.games.append(game)
        return game

    def active_games(self) -> list[Game]:
        """The games still being played."""
        with self.lock:
            return [game for game in self.games if SIAM.to_move(game.state)]


def mover(load: Load, index: int, per_mover: int) -> None:
    """Play ``per_mover`` games at once, one move at a time in turn; replace finished games."""
    rng, session = random.Random(index), requests.Session()
    games = [load.fresh_game(session) for _ in range(per_mover)]
    while load.running():
        for slot, game in enumerate(games):
            if not SIAM.to_move(game.state):
                games[slot] = game = load.fresh_game(session)
            seat = SIAM.to_move(game.state)[0]
            move = rng.choice(SIAM.legal_moves(game.state, seat))
            url = load.server.api(f"/games/{game.id}/moves")
            body = {"move": move, "expected_seq": game.seq}
            headers = {"Authorization": f"Bearer {game.token(seat)}"}
            if load.timed(load.moves, 201, session, "POST", url, json=body, headers=headers):
                game.state = SIAM.apply(game.state, seat, move)
                game.seq += 1


def reader(load: Load, index: int) -> None:
    """Read random games as a spectator or a seat: the game, its log, legal moves."""
    rng, session = random.Random(10_000 + index), requests.Session()
    while load.running():
        games = load.active_games()
        if not games:
            time.sleep(0.01)
            continue
        game = rng.choice(games)
        token = {"Authorization": f"Bearer {game.token(rng.randrange(2))}"}
        path, headers = rng.choice([("", {}), ("", token), ("/moves", {}), ("/legal-moves", token)])
        url = load.server.api(f"/games/{game.id}{path}")
        load.timed(load.reads, 200, session, "GET", url, headers=headers)


def listener(load: Load, index: int) -> None:
    """Follow the event stream of an active game, counting ``move`` events.

    A stream quiet for ``QUIET_SECONDS`` (its game ended, or the run did) is left for
    another game; that is not an error.
    """
    rng = random.Random(20_000 + index)
    while load.running():
        games = load.active_games()
        if not games:
            time.sleep(0.01)
            continue
        url = load.server.api(f"/games/{rng.choice(games).id}/events")
        try:
            with requests.get(url, stream=True, timeout=(10, QUIET_SECONDS)) as stream:
                stream.raise_for_status()
                for line in stream.iter_lines():
                    if line.startswith(b"event: move"):
                        with load.lock:
                            load.events += 1
                    if not load.running():
                        break
        except requests.ConnectionError as error:
            if "timed out" not in str(error):
                with load.lock:
                    load.errors.append(f"events: {error!r}")
        except requests.RequestException as error:
            with load.lock:
                load.errors.append(f"events: {error!r}")


def mixed_load(server: BackgroundServer, args: argparse.Namespace) -> Load:
    """Run movers, readers and listeners together for ``args.seconds``."""
    load = Load(server, time.perf_counter() + args.seconds)
    per_mover = max(1, args.games // args.movers)
    roles = [(mover, i, per_mover) for i in range(args.movers)]
    roles += [(reader, i) for i in range(args.readers)]
    roles += [(listener, i) for i in range(args.listeners)]
    run_threads(lambda i: roles[i][0](load, *roles[i][1:]), len(roles))
    return load


def report(label: str, latencies: list[float], seconds: float) -> str:
    """``N/s, p50, p99`` of one kind of request."""
    if not latencies:
        return f"{label}: none"
    p50, p99 = (percentile(latencies, q) * 1000 for q in (0.5, 0.99))
    return f"{label}: {len(latencies) / seconds:,.0f}/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms"


def main() -> None:
    """Run every measurement and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--movers", type=int, default=8)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--listeners", type=int, default=8)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--long-game", type=int, default=1000)
    args = parser.parse_args()

    os.environ.update(UNLIMITED)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        server = start_background(
            str(Path(folder) / "load.db"), workers=args.workers, threads=args.threads
        )
        sampler = MemorySampler(server.process.pid)
        sampler.start()
        try:
            ceiling = trivial_requests_per_second(server, min(args.seconds, 5.0), args.movers)
            load = mixed_load(server, args)
            at_10, at_long = growth(server, args.long_game)
        finally:
            memory = sampler.stop()
            server.stop()

    requests_per_second = (len(load.moves) + len(load.reads)) / args.seconds
    moves_per_second = len(load.moves) / args.seconds
    print(
        f"setup: {args.workers} workers x {args.threads} threads; {args.movers} movers over "
        f"{args.games} games, {args.readers} readers, {args.listeners} event listeners, "
        f"{args.seconds:.0f} s; load average {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after ({os.cpu_count()} CPUs)"
    )
    print(f"trivial route: {ceiling:,.0f} req/s ({args.movers} clients)")
    print(report("moves", load.moves, args.seconds))
    print(report("reads", load.reads, args.seconds))
    print(f"games played: {len(load.games)}, move events received: {load.events:,}")
    print(f"errors: {len(load.errors)}")
    for error in load.errors[:5]:
        print(f"  {error}")
    print(
        f"ratio to trivial: moves {moves_per_second / ceiling:.2f}, "
        f"all requests {requests_per_second / ceiling:.2f}"
    )
    print(
        f"per-move latency: move 10 {at_10 * 1000:.1f} ms, move {args.long_game} "
        f"{at_long * 1000:.1f} ms, ratio {at_long / at_10:.2f}"
    )
    mib = [sample / 2**20 for sample in memory]
    print(
        f"server RSS (master + workers): start {mib[0]:.0f} MiB, median "
        f"{statistics.median(mib):.0f} MiB, max {max(mib):.0f} MiB, end {mib[-1]:.0f} MiB "
        f"({len(mib)} samples)"
    )


if __name__ == "__main__":
    main()
