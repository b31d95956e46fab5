"""Sustained mixed load against gunicorn, with and without a crowd, as figures (never pass/fail).

    .venv/bin/python bench/load.py [--seconds 20] [--movers 8] [--readers 4] [--games 40]
                                   [--slow-clients 200] [--listeners 1000] [--workers 2]
                                   [--crowded-only] [--db URL]

Starts the app under gunicorn (the serving model of ``turnpost serve``) on a
temporary database (``--db``; limits raised through the environment so that they stay
out of the way; the limiter still runs), then measures in one run:

1. the ratio base: requests per second of a bare Flask app (``bench/bare.py``)
   served the same way (gunicorn, gevent workers), and of Turnpost's trivial
   ``GET /healthz``, from the same client threads;
2. the mixed load for ``--seconds``: movers play random legal Siam games
   (moves chosen locally by the engine) spread over ``--games`` games at once;
   readers fetch the public and seat views, the move log and legal moves of
   random games. Figures: moves/s, reads/s, p50/p99 latency of each, and
   errors (every answer that is not the expected 2xx; it should be 0);
3. the same mixed load again while a crowd (``bench/crowd.py``, its own
   process) holds ``--slow-clients`` connections that send one header line
   every 3 s and ``--listeners`` event streams of the active games (skipped
   when both are 0; ``--crowded-only`` skips step 2 instead, for a long run
   such as ``--seconds 600`` that shows whether memory stays flat);
4. per-move cost as one game grows: median latency around move 10 and over the
   last 20 of ``--long-game`` moves (from ``bench/moves.py``; Siam draws at 500);
5. the server's memory: RSS of the gunicorn master and workers, sampled from
   ``/proc`` every half second across the whole run; over the last mixed-load
   phase, per tenth of it (a minute of a 600 s run): the min/median/max of the
   sum and each process's median, and the growth of the medians from the
   second tenth (the crowd has connected) to the last.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
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

from bench.bare import served  # noqa: E402
from bench.crowd import start_crowd  # noqa: E402
from bench.database import add_db_option, bench_database  # noqa: E402
from bench.moves import (  # noqa: E402
    SIAM,
    UNLIMITED,
    growth,
    new_game,
    percentile,
    run_threads,
    trivial_requests_per_second,
)
from engines.siam.board import PLY_LIMIT  # noqa: E402
from tests.support import BackgroundServer, start_background  # noqa: E402

#: Seconds the crowd gets to connect before the crowded phase is measured.
CROWD_RAMP_SECONDS = 5.0


#: The RSS in bytes of the gunicorn master and of each worker, by pid.
Rss = dict[int, int]


def server_rss_bytes(master: int) -> Rss:
    """Resident memory of the gunicorn master and each of its workers, from ``/proc``."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    rss = {}
    for pid in [master, *map(int, children)]:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        kilobytes = next(
            line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")
        )
        rss[pid] = int(kilobytes) * 1024
    return rss


class MemorySampler(threading.Thread):
    """Samples the server's RSS every half second until stopped."""

    def __init__(self, master: int) -> None:
        super().__init__(daemon=True)
        self.master = master
        self.samples: list[tuple[float, Rss]] = []
        self.done = threading.Event()

    def run(self) -> None:
        """Sample until :meth:`stop`."""
        while not self.done.is_set():
            self.samples.append((time.perf_counter(), server_rss_bytes(self.master)))
            self.done.wait(0.5)

    def stop(self) -> list[tuple[float, Rss]]:
        """Stop sampling; the samples: ``(perf_counter time, RSS by pid)``."""
        self.done.set()
        self.join()
        return self.samples


def tenths(samples: list[tuple[float, Rss]], start: float, seconds: float) -> list[list[Rss]]:
    """The samples taken in ``[start, start + seconds)``, in ten spans of equal length."""
    spans: list[list[Rss]] = [[] for _ in range(10)]
    for at, rss in samples:
        if start <= at < start + seconds:
            spans[int((at - start) * 10 // seconds)].append(rss)
    return spans


def median_mib(span: list[Rss], pid: int | None = None) -> float:
    """The median RSS in MiB over ``span``: of process ``pid``, or of the sum of all."""
    values = [sum(rss.values()) if pid is None else rss.get(pid, 0) for rss in span]
    return statistics.median(values) / 2**20


def print_memory_series(label: str, spans: list[list[Rss]], master: int, seconds: float) -> None:
    """The RSS per tenth of a phase and the growth from its second tenth to its last."""
    pids = sorted(
        {pid for span in spans for rss in span for pid in rss}, key=lambda pid: (pid != master, pid)
    )
    names = {pid: "master" if pid == master else f"worker {pid}" for pid in pids}
    print(
        f"server RSS {label}, per {seconds / 10:.0f} s (MiB; master + workers: "
        f"min / median / max; each process's median):"
    )
    for index, span in enumerate(spans, 1):
        total = [sum(rss.values()) / 2**20 for rss in span]
        each = ", ".join(f"{names[pid]} {median_mib(span, pid):.1f}" for pid in pids)
        print(f"  {index:2d}: {min(total):.1f} / {median_mib(span):.1f} / {max(total):.1f}; {each}")
    second, last = spans[1], spans[-1]
    grown = median_mib(last) - median_mib(second)
    each = ", ".join(
        f"{names[pid]} {median_mib(last, pid) - median_mib(second, pid):+.1f}" for pid in pids
    )
    print(
        f"  growth of the median from tenth 2 to tenth 10: {grown:+.1f} MiB "
        f"({grown / median_mib(second):+.1%}); {each}"
    )


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
    """The shared state of one mixed-load run: games, latencies, errors."""

    server: BackgroundServer
    deadline: float = 0.0
    games: list[Game] = field(default_factory=list)
    moves: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: New games are announced here to the crowd's listeners (if there is a crowd).
    announce: Any = None

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
        """A new game, shared with the readers and the crowd's listeners."""
        game = Game(new_game(session, self.server))
        with self.lock:
            self.games.append(game)
        if self.announce is not None:
            self.announce.put(game.id)
        return game

    def active_games(self) -> list[Game]:
        """The games still being played."""
        with self.lock:
            return [game for game in self.games if SIAM.to_move(game.state)]


def mover(load: Load, index: int, games: list[Game]) -> None:
    """Play ``games`` at once, one move at a time in turn; replace finished games."""
    rng, session = random.Random(index), requests.Session()
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


def mixed_load(
    server: BackgroundServer, args: argparse.Namespace, announce: Any = None, ramp: float = 0.0
) -> Load:
    """Create the games, wait ``ramp`` seconds, then run movers and readers for ``args.seconds``."""
    load = Load(server, announce=announce)
    session = requests.Session()
    per_mover = max(1, args.games // args.movers)
    games = [[load.fresh_game(session) for _ in range(per_mover)] for _ in range(args.movers)]
    time.sleep(ramp)
    roles = [(mover, i, games[i]) for i in range(args.movers)]
    roles += [(reader, i) for i in range(args.readers)]
    load.deadline = time.perf_counter() + args.seconds
    run_threads(lambda i: roles[i][0](load, *roles[i][1:]), len(roles))
    return load


def crowded_load(server: BackgroundServer, args: argparse.Namespace) -> tuple[Load, dict]:
    """The mixed load while the crowd holds its slow clients and event streams."""
    process, games, stop, results = start_crowd(server.url, args.slow_clients, args.listeners)
    try:
        load = mixed_load(server, args, announce=games, ramp=CROWD_RAMP_SECONDS)
    finally:
        stop.set()
        tally = results.get(timeout=30)
        process.join(timeout=10)
    return load, tally


def bare_flask_requests_per_second(seconds: float, clients: int, workers: int) -> float:
    """Requests per second of ``bench/bare.py`` under gunicorn's gevent workers, like Turnpost."""
    with served(workers) as url:
        return trivial_requests_per_second(url, seconds, clients)


def report(label: str, latencies: list[float], seconds: float) -> str:
    """``N/s, p50, p99`` of one kind of request."""
    if not latencies:
        return f"{label}: none"
    p50, p99 = (percentile(latencies, q) * 1000 for q in (0.5, 0.99))
    return f"{label}: {len(latencies) / seconds:,.0f}/s, p50 {p50:.1f} ms, p99 {p99:.1f} ms"


def raise_file_limit() -> None:
    """Let this process hold the crowd's sockets (soft limit up to the hard one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def print_phase(label: str, load: Load, seconds: float, base: float) -> None:
    """The figures of one mixed-load phase."""
    moves_per_second = len(load.moves) / seconds
    print(f"{label}:")
    print("  " + report("moves", load.moves, seconds))
    print("  " + report("reads", load.reads, seconds))
    print(f"  games played: {len(load.games)}, errors: {len(load.errors)}")
    for error in load.errors[:5]:
        print(f"    {error}")
    all_per_second = (len(load.moves) + len(load.reads)) / seconds
    print(
        f"  ratio to bare Flask: moves {moves_per_second / base:.2f}, "
        f"all requests {all_per_second / base:.2f}"
    )


def main() -> None:
    """Run every measurement and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--movers", type=int, default=8)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--slow-clients", type=int, default=0)
    parser.add_argument("--listeners", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--crowded-only", action="store_true", help="skip the phase without the crowd"
    )
    parser.add_argument("--long-game", type=int, default=PLY_LIMIT - 1, help="moves, < 500")
    add_db_option(parser)
    args = parser.parse_args()
    crowd = args.slow_clients or args.listeners
    if args.crowded_only and not crowd:
        parser.error("--crowded-only needs --slow-clients or --listeners")

    raise_file_limit()
    os.environ.update(UNLIMITED)
    load_before = os.getloadavg()[0]
    ceiling_seconds = min(args.seconds, 5.0)
    bare = bare_flask_requests_per_second(ceiling_seconds, args.movers, args.workers)
    with tempfile.TemporaryDirectory() as folder:
        server = start_background(bench_database(args.db, folder, "load.db"), workers=args.workers)
        sampler = MemorySampler(server.process.pid)
        sampler.start()
        try:
            ceiling = trivial_requests_per_second(
                f"{server.url}/healthz", ceiling_seconds, args.movers
            )
            quiet = None if args.crowded_only else mixed_load(server, args)
            crowded, tally = crowded_load(server, args) if crowd else (None, {})
            at_10, at_long = growth(server, args.long_game)
        finally:
            memory = sampler.stop()
            server.stop()

    print(
        f"setup: {args.workers} gevent workers; {args.movers} movers over {args.games} games, "
        f"{args.readers} readers, {args.seconds:.0f} s per phase; crowd: {args.slow_clients} "
        f"slow clients, {args.listeners} event listeners; load average {load_before:.1f} "
        f"before, {os.getloadavg()[0]:.1f} after ({os.cpu_count()} CPUs)"
    )
    print(
        f"bare Flask: {bare:,.0f} req/s; Turnpost /healthz: {ceiling:,.0f} req/s "
        f"({args.movers} clients)"
    )
    if quiet is not None:
        print_phase("without the crowd", quiet, args.seconds, bare)
    if crowded is not None:
        print_phase("with the crowd", crowded, args.seconds, bare)
        print(
            f"  crowd: {tally['streams']:,} streams opened ({tally['refused_streams']} refused, "
            f"{tally['ended_streams']} ended by their game), {tally['events']:,} move events "
            f"received; {tally['slow_connections']:,} slow connections, {tally['cut_off']:,} cut "
            f"off by the header deadline; {tally['errors']} connection errors; the crowd's "
            f"process used {tally['cpu_seconds']:.0f} s of CPU"
        )
    print(
        f"per-move latency: move 10 {at_10 * 1000:.1f} ms, moves {args.long_game - 19}-"
        f"{args.long_game} {at_long * 1000:.1f} ms, ratio {at_long / at_10:.2f}"
    )
    mib = [sum(rss.values()) / 2**20 for _, rss in memory]
    print(
        f"server RSS (master + workers): start {mib[0]:.0f} MiB, median "
        f"{statistics.median(mib):.0f} MiB, max {max(mib):.0f} MiB, end {mib[-1]:.0f} MiB "
        f"({len(mib)} samples)"
    )
    last, label = (crowded, "with the crowd") if crowded is not None else (quiet, "alone")
    spans = tenths(memory, last.deadline - args.seconds, args.seconds)
    print_memory_series(label, spans, server.process.pid, args.seconds)


if __name__ == "__main__":
    main()
