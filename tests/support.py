"""Test and benchmark helpers: a real gunicorn server in a child process, free ports, commands.

The tests' ``live_server`` fixtures and the ``bench/`` scripts start Turnpost
with :func:`start_background` exactly as ``turnpost serve`` runs it
(:func:`server.serving.run`), on a free port of 127.0.0.1.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from server.store import open_store

#: The repository's root (the child server runs from there).
ROOT = Path(__file__).resolve().parent.parent
#: How long a server process may take to answer /healthz: gunicorn boots its workers slowly
#: on a loaded machine (two cores shared by three test processes and their browsers).
START_SECONDS = 60


@dataclass
class BackgroundServer:
    """A gunicorn process serving the app, started by :func:`start_background`."""

    url: str
    db_path: str
    process: subprocess.Popen
    log_path: Path

    def log(self) -> str:
        """What the server wrote to stderr so far (gunicorn's and the app's log)."""
        return self.log_path.read_text(errors="replace")

    def api(self, path: str) -> str:
        """The absolute URL of an API path."""
        return f"{self.url}/api/v1{path}"

    def stop(self) -> None:
        """Stop the server and wait for it."""
        self.process.terminate()
        self.process.wait(timeout=10)


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_background(
    db_path: str, workers: int = 2, environment: dict[str, str] | None = None
) -> BackgroundServer:
    """Start gunicorn in a child process on a free port and wait until it answers
    ``/healthz`` (which no rate limit counts).

    ``db_path`` is its ``TURNPOST_DB``: a SQLite file, or a ``postgresql://`` URL.
    ``environment`` adds variables to the server's environment (e.g. limits).
    Its stderr goes to ``<db_path>.<port>.log`` (for a URL, to ``turnpost.<port>.log``
    in the temporary directory): a file, so that a busy log can never block the
    server the way an unread pipe does.
    """
    port = free_port()
    log_path = (
        Path(tempfile.gettempdir()) / f"turnpost.{port}.log"
        if "://" in db_path
        else Path(f"{db_path}.{port}.log")
    )
    code = f"from server.serving import run; run({db_path!r}, '127.0.0.1', {port}, {workers})"
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **(environment or {}), "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=log_path.open("wb"),
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break  # it died: no use waiting
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1):  # never rate limited
                return BackgroundServer(url, db_path, process, log_path)
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"server did not start: {log_path.read_text(errors='replace')[-2000:]}")


def run_command(command: list[str], env: dict[str, str], **extra: Any) -> subprocess.Popen:
    """``turnpost COMMAND`` in a child process with only ``env`` (and ``PATH``)."""
    code = "from server.cli import main; main()"
    return subprocess.Popen(
        [sys.executable, "-c", code, *command],
        cwd=ROOT,
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **extra,
    )


def database_text(db_url: str) -> str:
    """Every row of the database ``db_url`` as text, to look for what it must not keep: SQLite's
    dump of the file, or each row of every PostgreSQL table as JSON."""
    if "://" not in db_url:
        with sqlite3.connect(db_url) as conn:
            return "\n".join(conn.iterdump())
    with psycopg.connect(db_url) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchall()
        return "\n".join(
            row[0]
            for (table,) in tables
            for row in conn.execute(f'SELECT row_to_json(t)::text FROM "{table}" t').fetchall()
        )


def table_rows(store: Any, table: str) -> list[dict[str, Any]]:
    """Every row of ``table`` in ``store`` (either backend) by column name, in the table's
    order (its key): what a test reads where the store has no operation for it."""
    found = store.tables()[table]
    return [dict(zip(found.columns, row, strict=True)) for row in store.table_rows(found)]


def game_ids(server: BackgroundServer) -> set[str]:
    """The ids of every game in ``server``'s database (running, over or forming): what a test
    compares before and after a request that must create none."""
    store = open_store(server.db_path)
    try:
        return set(store.game_ids())
    finally:
        store.close()


def run_sql(db_url: str, sql: str, params: Sequence[Any] = ()) -> None:
    """Run one statement (``?`` placeholders) on the database ``db_url``, either backend, and
    commit: what a test does where the store has no operation for it (e.g. to age a row)."""
    if "://" not in db_url:
        with closing(sqlite3.connect(db_url)) as conn, conn:
            conn.execute(sql, params)
        return
    with psycopg.connect(db_url) as conn:
        conn.execute(sql.replace("?", "%s"), params)


def forged(secret: str, count: int = 2) -> str:
    """``secret`` with its last ``count`` characters changed: a forgery that never equals it.

    >>> forged("abcAx"), forged("abcAx", count=1)
    ('abcBA', 'abcAA')
    """
    changed = ["B" if char == "A" else "A" for char in secret[-count:]]
    return secret[:-count] + "".join(changed)
