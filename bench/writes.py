"""Where a move's wall time goes under concurrency: the store's writes timed inside the
server (never pass/fail).

    .venv/bin/python bench/writes.py [--seconds 8] [--games 8] [--workers 2]
        [--synchronous FULL|NORMAL] [--poll SECONDS] [--unfair]

Starts the app under gunicorn (gevent workers, a new SQLite file) with
``SqliteStore.write`` wrapped, in the server's processes only, so that it
times each step of every write: the wait for the worker's own writer lock, the
wait for SQLite's lock (``BEGIN IMMEDIATE``, with the gevent polls it took while
the other worker wrote), the transaction's body (the service's work: engine,
snapshot, SQL) and the ``COMMIT`` (its wall time in the worker, and the time
the call itself took in the thread it was offloaded to: the fsync). wrk then
posts Siam moves as ``bench/throughput.py`` does, and the figures per write
are printed, with how busy SQLite's write lock was (the share of the run some
process held it), how long it lay free between one worker's commit and the
other worker's ``BEGIN`` after polling, and the CPU time of the server's
processes per move.

``--synchronous NORMAL`` (a measurement only: the product commits with
``FULL``) bounds what sharing an fsync can win; ``--poll`` sets the seconds
between the polls of a worker waiting for the other worker's write
(``LOCK_POLL_SECONDS``); ``--unfair`` makes gevent's own lock the worker's
writer lock again (as before :class:`server.cooperative.FairLock`).

Group commit (several moves of one worker in one transaction, a savepoint
each, one ``COMMIT``) was measured with this bench on commit ``237b7ef`` of
branch ``s9-moves`` and not kept (``docs/performance.md``, issue 27).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throughput import UNLIMITED, moves_script, run_wrk  # noqa: E402
from tests.support import ROOT, BackgroundServer, free_port  # noqa: E402

#: One write as the server timed it: start, lock wait, BEGIN wait, polls, body, commit wall,
#: commit in its thread, end, pid, the end of the commit in its thread (SQLite's lock free).
Event = tuple[float, float, float, int, float, float, float, float, int, float]
#: What a worker answers at this path: its events so far, as JSON.
TIMINGS_PATH = "/_bench/write-timings"


def instrument(synchronous: str, poll: float | None, unfair: bool) -> None:
    """In the server's process, before gunicorn forks: time every write of the SQLite store
    (with ``unfair``, on gevent's own lock, as before issue 27's ``FairLock``)."""
    import threading

    import server
    from server.store import sqlite

    events: list[Event] = []
    now: dict[str, float] = {}  # the running transaction's moments (one at a time per process)
    if poll is not None:
        sqlite.LOCK_POLL_SECONDS = poll
    if unfair:
        sqlite.FairLock = lambda: threading.Lock()  # gevent's, once the worker patched it
    opened, offload, write = (
        sqlite.SqliteStore.open.__func__,
        sqlite.offload,
        sqlite.SqliteStore.write,
    )

    def open_with(cls: type, path: str) -> Any:
        store = opened(cls, path)
        store._conn.execute(f"PRAGMA synchronous = {synchronous}")
        return store

    def polled_begin(store: Any) -> None:
        """The product's ``_begin`` under gevent, counting its polls."""
        now.clear()
        now["locked"] = time.monotonic()
        deadline, polls = time.monotonic() + sqlite.BUSY_TIMEOUT_MS / 1000, 0
        store._conn.execute("PRAGMA busy_timeout = 0")
        try:
            while True:
                try:
                    store._conn.execute("BEGIN IMMEDIATE")
                    break
                except sqlite.StoreUnavailable as error:
                    if not sqlite.busy(error) or time.monotonic() > deadline:
                        raise
                    polls += 1
                    time.sleep(sqlite.LOCK_POLL_SECONDS)
        finally:
            store._conn.execute(f"PRAGMA busy_timeout = {sqlite.BUSY_TIMEOUT_MS}")
        now.update(begun=time.monotonic(), polls=polls)

    def timed_offload(function: Any, *args: Any, **kwargs: Any) -> Any:
        if args != ("COMMIT",):
            return offload(function, *args, **kwargs)

        def commit() -> None:
            now["committing"] = time.monotonic()
            function(*args)
            now["committed"] = time.monotonic()

        now["body"] = time.monotonic()
        return offload(commit)

    def record(started: float) -> None:
        if "committed" not in now:
            return  # rolled back
        ended = time.monotonic()
        locked, begun, body = now["locked"], now["begun"], now["body"]
        events.append(
            (
                started,
                locked - started,
                begun - locked,
                int(now["polls"]),
                body - begun,
                ended - body,
                now["committed"] - now["committing"],
                ended,
                os.getpid(),
                now["committed"],
            )
        )

    @contextmanager
    def timed_write(store: Any) -> Iterator[Any]:
        started = time.monotonic()
        with write(store) as db:
            yield db
        record(started)

    create_app = server.create_app

    def create_timed_app(*args: Any, **kwargs: Any) -> Any:
        app = create_app(*args, **kwargs)
        app.add_url_rule(TIMINGS_PATH, "bench_write_timings", lambda: json.dumps(events))
        return app

    sqlite.SqliteStore.open = classmethod(open_with)
    sqlite.SqliteStore._begin = polled_begin
    sqlite.SqliteStore.write = timed_write
    sqlite.offload = timed_offload
    server.create_app = create_timed_app


@contextmanager
def timed_server(
    folder: str, workers: int, synchronous: str, poll: float | None, unfair: bool
) -> Iterator:
    """gunicorn serving the instrumented app on a new SQLite file in ``folder``."""
    port, db = free_port(), str(Path(folder) / "bench.db")
    code = (
        "from bench.writes import instrument; "
        f"instrument({synchronous!r}, {poll!r}, {unfair!r}); "
        f"from server.serving import run; run({db!r}, '127.0.0.1', {port}, {workers})"
    )
    log = Path(folder) / "server.log"
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **UNLIMITED, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=log.open("wb"),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
        yield BackgroundServer(url, db, process, log)
    finally:
        process.terminate()
        process.wait(timeout=10)


def cpu_seconds(root: int) -> float:
    """CPU seconds (user and system) used so far by process ``root`` and its children (the
    gunicorn master and its workers), read from ``/proc``."""
    ticks, total = os.sysconf("SC_CLK_TCK"), 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        pid = int(stat.parent.name)
        if pid == root or int(fields[1]) == root:  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def collect(server: BackgroundServer, workers: int, since: float) -> list[Event]:
    """Every worker's events that started after ``since`` (asked on new connections until
    each worker answered)."""
    seen: dict[int, list[Event]] = {}
    for _ in range(200):
        with urllib.request.urlopen(server.url + TIMINGS_PATH, timeout=10) as answer:
            events = [tuple(event) for event in json.load(answer)]
        if events:
            seen[events[0][8]] = events
        if len(seen) == workers:
            break
    return sorted(e for events in seen.values() for e in events if e[0] >= since)


def ms(values: list[float]) -> str:
    """Mean, p50 and p99 of ``values`` (seconds) in milliseconds."""
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return (
        f"{statistics.fmean(ordered) * 1000:.2f} / {ordered[len(ordered) // 2] * 1000:.2f}"
        f" / {p99 * 1000:.2f}"
    )


def report(events: list[Event]) -> None:
    """Print the figures per write, and how busy SQLite's write lock was."""
    span = max(e[7] for e in events) - min(e[0] for e in events)
    holds = [e[9] - (e[0] + e[1] + e[2]) for e in events]
    polled = [e for e in events if e[3]]
    print(f"writes: {len(events)} in {span:.1f} s ({len(events) / span:,.0f}/s)")
    print("per write, ms (mean / p50 / p99):")
    for label, values in (
        ("wait for the worker's writer lock", [e[1] for e in events]),
        ("BEGIN IMMEDIATE (polls included)", [e[2] for e in events]),
        ("body (service, engine, SQL)", [e[4] for e in events]),
        ("COMMIT, wall in the worker", [e[5] for e in events]),
        ("COMMIT, in its thread (fsync)", [e[6] for e in events]),
        ("COMMIT's end to the worker going on", [e[7] - e[9] for e in events]),
        ("worker's writer lock held (BEGIN to going on)", [e[7] - e[0] - e[1] for e in events]),
        ("SQLite lock held (BEGIN to COMMIT's end)", holds),
    ):
        print(f"  {label}: {ms(values)}")
    print(
        f"writes that polled: {len(polled)} ({len(polled) / len(events):.0%}), "
        f"polls per write {sum(e[3] for e in events) / len(events):.2f}"
    )
    print(f"SQLite write lock held {sum(holds) / span:.0%} of the run")
    print(f"lock free after the other worker's commit, before a poller's BEGIN: {handoffs(events)}")
    runs, current = [], 1
    for before, after in zip(events, events[1:], strict=False):
        if before[8] == after[8]:
            current += 1
        else:
            runs.append(current)
            current = 1
    runs.append(current)
    print(f"writes in a row by one worker: mean {statistics.fmean(runs):.1f}, max {max(runs)}")


def handoffs(events: list[Event]) -> str:
    """How long SQLite's lock lay free between a commit of one worker and the ``BEGIN`` of
    the other worker's next write that had polled for it (mean / p50 / p99, ms)."""
    gaps = []
    ends = sorted((e[9], e[8]) for e in events)
    for event in events:
        if not event[3]:
            continue
        begun = event[0] + event[1] + event[2]
        others = [end for end, pid in ends if pid != event[8] and end <= begun]
        if others:
            gaps.append(begun - others[-1])
    return ms(gaps) if gaps else "none"


def main() -> None:
    """Serve, post moves with wrk, print where the writes' time went."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--games", type=int, default=8, help="move-posting connections")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--synchronous", choices=("FULL", "NORMAL"), default="FULL")
    parser.add_argument("--poll", type=float, default=None, help="LOCK_POLL_SECONDS")
    parser.add_argument(
        "--unfair", action="store_true", help="gevent's own lock as the worker's writer lock"
    )
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with (
        tempfile.TemporaryDirectory() as folder,
        timed_server(folder, args.workers, args.synchronous, args.poll, args.unfair) as server,
    ):
        with moves_script(server, args.seconds, args.games) as script:
            since, cpu = time.monotonic(), cpu_seconds(server.process.pid)
            figures = run_wrk("moves", server.url, args.seconds, args.games, args.games, script)
            cpu = cpu_seconds(server.process.pid) - cpu
        print(
            f"wrk: {figures.per_second:,.0f} moves/s, p50 {figures.p50_ms:.1f} ms, "
            f"p99 {figures.p99_ms:.1f} ms, errors {figures.errors}, server CPU per move "
            f"{cpu / (figures.per_second * args.seconds) * 1000:.2f} ms "
            f"(synchronous={args.synchronous}, poll={args.poll}, unfair={args.unfair})"
        )
        events = collect(server, args.workers, since)
    # the games made before wrk are writes too: keep the moves' part (the last seconds)
    cut = max(e[7] for e in events) - args.seconds
    report([e for e in events if e[0] >= cut])
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
