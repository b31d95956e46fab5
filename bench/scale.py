"""Move submissions with 1, 2 and 4 app server processes, on SQLite and on one PostgreSQL.

    .venv/bin/python bench/scale.py [--seconds 10] [--games 8] [--postgres URL]

In one run, on one machine: the ratio base (a bare Flask app under
gunicorn's gevent workers, ``bench/bare.py``), then for each backend and
each count of gunicorn worker processes a new server on a new database and
wrk posting Siam's four-move cycle, one game per connection (see
``bench/throughput.py``). PostgreSQL is the server ``--postgres`` names
(a superuser's URL: a database is created there per run), else a cluster
made from Debian's ``postgresql`` package in a temporary folder, with the
tests' settings (``tests/servers.py``: ``fsync`` off; Turnpost's commits keep
``synchronous_commit`` on). Prints a Markdown table: moves/s, p50/p99, the
ratio to bare Flask and the errors (non-2xx or socket errors: must be 0).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throughput import UNLIMITED, Figures, bare_flask, moves, table  # noqa: E402
from tests.servers import PostgresServer, running_postgres  # noqa: E402
from tests.support import start_background  # noqa: E402

#: The counts of app server processes (gunicorn workers) measured.
PROCESSES = (1, 2, 4)


@contextlib.contextmanager
def postgres(url: str | None) -> Iterator[PostgresServer | str]:
    """The PostgreSQL server ``url`` names, else one of the tests' clusters."""
    if url:
        yield url
    else:
        with running_postgres() as server:
            yield server


def new_database(backend: str, postgres_server: PostgresServer | str, folder: str) -> str:
    """A new, empty database of ``backend``."""
    if backend == "sqlite":
        return str(Path(folder) / f"bench-{uuid.uuid4().hex[:8]}.db")
    if isinstance(postgres_server, PostgresServer):
        return postgres_server.create_database(f"bench_{uuid.uuid4().hex[:12]}")
    import psycopg

    name = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return postgres_server.rsplit("/", 1)[0] + f"/{name}"


def measure(db_url: str, processes: int, seconds: int, games: int, label: str) -> Figures:
    """wrk posting moves to a new server of ``processes`` workers on ``db_url``."""
    server = start_background(db_url, workers=processes)
    try:
        return replace(moves(server, seconds, games), label=label)
    finally:
        server.stop()


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--games", type=int, default=8, help="move-posting connections")
    parser.add_argument("--postgres", help="a PostgreSQL superuser's URL (default: a new cluster)")
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    base = bare_flask(args.seconds, args.games, 2)
    os.environ.update(UNLIMITED)
    figures = [base]
    with postgres(args.postgres) as server, tempfile.TemporaryDirectory() as folder:
        for backend in ("sqlite", "postgresql"):
            for processes in PROCESSES:
                label = f"moves, {backend}, {processes} app process{'es' * (processes > 1)}"
                db_url = new_database(backend, server, folder)
                figures.append(measure(db_url, processes, args.seconds, args.games, label))
    print(table(figures, base))
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
