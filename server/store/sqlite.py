"""The SQLite store: games, seats, the append-only move log, idempotency keys, mail.

One SQLite file in WAL mode (``TURNPOST_DB``, default ``./turnpost.db``),
opened with sqlite-utils. The move log cannot be rewritten: triggers in the
database abort any UPDATE or DELETE on ``moves``, and any INSERT of a
``(game_id, seq)`` already logged, so ``INSERT OR REPLACE`` and ``REPLACE``
(whose implicit delete fires no DELETE trigger) cannot rewrite it either.
The triggers live in the schema, so they hold for every connection, the
``sqlite3`` shell's too. The database holds hands, draw orders, seeds and
emails: it is created readable by its owner only (0600), and so are the
WAL and shared-memory files SQLite makes beside it (SQLite gives them the
database file's mode).

    >>> store = Store.open(":memory:")
    >>> store.init()
    >>> sorted(store.db.table_names())
    ['games', 'idempotency', 'mail_suppressions', 'moves', 'outbox', 'seats']
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import sqlite_utils

BUSY_TIMEOUT_MS = 10_000
_WRITER_LOCKS: dict[str, threading.Lock] = {}

#: Columns added after the first release, with their default: added to old databases on start.
ADDED_COLUMNS: dict[str, dict[str, tuple[type, Any]]] = {
    "games": {"creator_client": (str, None)},
    "seats": {"acted_at": (str, None)},
    "outbox": {"rcpt_key": (str, None), "client": (str, None), "invitation": (int, 0)},
}

#: Owner read and write only: the database holds hands, seeds and emails.
DB_FILE_MODE = 0o600
_REFUSE = "BEGIN SELECT RAISE(ABORT, 'the move log is append-only'); END"
TRIGGERS = [
    *(
        f"CREATE TRIGGER IF NOT EXISTS moves_no_{event.lower()} BEFORE {event} ON moves {_REFUSE}"
        for event in ("UPDATE", "DELETE")
    ),
    # REPLACE deletes the old row without firing DELETE triggers: refuse the insert first.
    "CREATE TRIGGER IF NOT EXISTS moves_no_replace BEFORE INSERT ON moves WHEN EXISTS"
    " (SELECT 1 FROM moves WHERE game_id = NEW.game_id AND seq = NEW.seq) " + _REFUSE,
]


def hash_secret(secret: str) -> str:
    """The stored form of a token: its SHA-256 hex digest.

    >>> len(hash_secret("abc"))
    64
    """
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    """A fresh URL-safe token (192 bits)."""
    return secrets.token_urlsafe(24)


def private_file(path: str) -> None:
    """Create ``path`` empty with mode 0600 if it does not exist, else take away others' access.

    SQLite creates the ``-wal`` and ``-shm`` files with the database file's
    mode, so they are private too; existing ones are tightened here as well.
    """
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, DB_FILE_MODE))
    for name in (path, f"{path}-wal", f"{path}-shm"):
        try:
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, DB_FILE_MODE)
        except (FileNotFoundError, PermissionError):  # gone, or another user's file
            continue


def dumps(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces; equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Store:
    """A connection to the Turnpost database with the few queries the service needs."""

    def __init__(self, db: sqlite_utils.Database, path: str = ":memory:") -> None:
        self.db = db
        # per process: a lock inherited through fork would be the parent's kind of lock
        key = f"{os.getpid()}:{os.path.abspath(path)}"
        self._writer_lock = _WRITER_LOCKS.setdefault(key, threading.Lock())

    @classmethod
    def open(cls, path: str) -> Store:
        """Open ``path`` (created 0600 if missing) with autocommit and a busy timeout."""
        if path != ":memory:":
            private_file(path)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        return cls(sqlite_utils.Database(conn), path)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def init(self) -> None:
        """Create the tables, indexes and append-only triggers if missing; switch to WAL."""
        if self.db.conn.execute("PRAGMA journal_mode").fetchone()[0] != "memory":
            self.db.conn.execute("PRAGMA journal_mode = WAL")
        with self.write():
            self._create_tables()

    def _create_tables(self) -> None:
        db = self.db
        db["games"].create(
            {
                "id": str,
                "engine": str,
                "options": str,
                "seed": int,
                "seeded": int,
                "position": str,
                "status": str,
                "seq": int,
                "state": str,
                "to_move": str,
                "result": str,
                "deadline": str,
                "turn_hours": float,
                "deadline_policy": str,
                "reminders_sent": int,
                "admin_token_hash": str,
                "created_at": str,
                "updated_at": str,
            },
            pk="id",
            not_null={"engine", "options", "seed", "seeded", "status", "seq", "state", "to_move"},
            defaults={"reminders_sent": 0, "seeded": 0},
            if_not_exists=True,
        )
        if "seeded" not in db["games"].columns_dict:  # a database made before the column
            db["games"].add_column("seeded", int, not_null_default=0)
        db["seats"].create(
            {
                "game_id": str,
                "seat": int,
                "name": str,
                "email": str,
                "token_hash": str,
                "mail_generation": int,
                "vacation_until": str,
                "vacation_year": int,
                "vacation_days_used": float,
            },
            pk=("game_id", "seat"),
            foreign_keys=[("game_id", "games", "id")],
            not_null={"name", "token_hash", "mail_generation", "vacation_days_used"},
            defaults={"mail_generation": 0, "vacation_days_used": 0},
            if_not_exists=True,
        )
        db["seats"].create_index(["token_hash"], unique=True, if_not_exists=True)
        db["moves"].create(
            {
                "game_id": str,
                "seq": int,
                "seat": int,
                "move": str,
                "public_move": str,
                "notation": str,
                "to_move": str,
                "status": str,
                "at": str,
            },
            pk=("game_id", "seq"),
            foreign_keys=[("game_id", "games", "id")],
            not_null={"seat", "move", "public_move", "notation", "at"},
            if_not_exists=True,
        )
        db["outbox"].create(
            {
                "id": int,
                "game_id": str,
                "seat": int,
                "kind": str,
                "to_addr": str,
                "subject": str,
                "text": str,
                "html": str,
                "message_id": str,
                "in_reply_to": str,
                "seq": int,
                "created_at": str,
                "attempts": int,
                "next_attempt_at": str,
                "sent_at": str,
                "last_error": str,
            },
            pk="id",
            not_null={"kind", "to_addr", "subject", "text", "html", "message_id", "created_at"},
            defaults={"attempts": 0},
            if_not_exists=True,
        )
        db["outbox"].create_index(["message_id"], unique=True, if_not_exists=True)
        db["outbox"].create_index(["sent_at", "next_attempt_at"], if_not_exists=True)
        db["outbox"].create_index(["in_reply_to"], if_not_exists=True)
        db["mail_suppressions"].create(
            {"rcpt_hash": str, "created_at": str},
            pk="rcpt_hash",
            not_null={"created_at"},
            if_not_exists=True,
        )
        db["idempotency"].create(
            {"game_id": str, "seat": int, "key": str, "request": str, "response": str},
            pk=("game_id", "seat", "key"),
            not_null={"request", "response"},
            if_not_exists=True,
        )
        for trigger in TRIGGERS:
            db.execute(trigger)
        self._add_columns()
        for columns in (["rcpt_key", "created_at"], ["client", "created_at"], ["game_id", "seat"]):
            db["outbox"].create_index(columns, if_not_exists=True)
        db.execute(
            "CREATE INDEX IF NOT EXISTS outbox_bodies ON outbox (created_at) WHERE text != ''"
        )

    def _add_columns(self) -> None:
        """Add the :data:`ADDED_COLUMNS` a database made by an older Turnpost lacks."""
        for table, columns in ADDED_COLUMNS.items():
            present = self.db[table].columns_dict
            for name, (kind, default) in columns.items():
                if name not in present:
                    self.db[table].add_column(name, kind, not_null_default=default)

    @contextmanager
    def write(self) -> Iterator[sqlite_utils.Database]:
        """A write transaction locked up front (``BEGIN IMMEDIATE``); rolled back on error.

        Writers queue on the database lock instead of failing halfway, so a
        read-check-append inside the block is race free. Threads of one
        process queue on a lock first, in order, rather than polling SQLite's
        busy handler; other processes still meet SQLite's own lock.
        """
        with self._writer_lock:
            self.db.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.conn.execute("ROLLBACK")
                raise
            self.db.conn.execute("COMMIT")

    # -- writes on the hot path (plain SQL: no table introspection per call) --
    def insert(self, table: str, row: dict[str, Any]) -> None:
        """Insert ``row`` into ``table`` (call inside :meth:`write`)."""
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        self.db.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(row.values()))

    def update_game(self, game_id: str, values: dict[str, Any]) -> None:
        """Set ``values`` on the ``games`` row of ``game_id`` (call inside :meth:`write`)."""
        assignments = ", ".join(f"{column} = ?" for column in values)
        self.db.execute(f"UPDATE games SET {assignments} WHERE id = ?", [*values.values(), game_id])

    # -- reads ------------------------------------------------------------
    def game(self, game_id: str, columns: str = "*") -> dict[str, Any] | None:
        """The ``games`` row of ``game_id`` (only ``columns`` if given), or ``None``."""
        return self._one(f"SELECT {columns} FROM games WHERE id = ?", [game_id])

    def seats(self, game_id: str) -> list[dict[str, Any]]:
        """The seats of a game in seat order."""
        return self._all("SELECT * FROM seats WHERE game_id = ? ORDER BY seat", [game_id])

    def seat_by_token(self, game_id: str, token: str) -> int | None:
        """The seat a token belongs to in this game, or ``None``."""
        row = self._one(
            "SELECT seat FROM seats WHERE game_id = ? AND token_hash = ?",
            [game_id, hash_secret(token)],
        )
        return None if row is None else row["seat"]

    def moves(self, game_id: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
        """Logged moves with ``after < seq <= upto`` in order."""
        sql = "SELECT * FROM moves WHERE game_id = ? AND seq > ?"
        params: list[Any] = [game_id, after]
        if upto is not None:
            sql += " AND seq <= ?"
            params.append(upto)
        return self._all(sql + " ORDER BY seq", params)

    def idempotent_response(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None:
        """The recorded request and response for an ``Idempotency-Key``, or ``None``."""
        return self._one(
            "SELECT request, response FROM idempotency WHERE game_id = ? AND seat = ? AND key = ?",
            [game_id, seat, key],
        )

    def mail_generation(self, game_id: str, seat: int) -> int | None:
        """The key generation of a seat's reply address, or ``None`` for no such seat."""
        row = self._one(
            "SELECT mail_generation FROM seats WHERE game_id = ? AND seat = ?", [game_id, seat]
        )
        return None if row is None else row["mail_generation"]

    def outbox_by_message_id(self, message_id: str) -> dict[str, Any] | None:
        """The outbox row sent with ``message_id``, or ``None``."""
        return self._one("SELECT * FROM outbox WHERE message_id = ?", [message_id])

    def outbox_replies_to(self, message_id: str, game_id: str, seat: int) -> int:
        """How many outbox rows to ``seat`` of ``game_id`` answer ``message_id``."""
        row = self._one(
            "SELECT count(*) AS n FROM outbox WHERE in_reply_to = ? AND game_id = ? AND seat = ?",
            [message_id, game_id, seat],
        )
        return row["n"]

    def outbox_count(
        self, since: str | None = None, at_most: int | None = None, **where: Any
    ) -> int:
        """How many outbox rows match ``where`` (column = value), created after ``since``.

        With ``at_most``, counting stops there (a limit check reads no more rows).

        >>> store = Store.open(":memory:")
        >>> store.init()
        >>> store.outbox_count("2024-01-01T00:00:00Z", at_most=5, rcpt_key="ann@example.org")
        0
        """
        conditions = [f"{column} = ?" for column in where]
        params = list(where.values())
        if since is not None:
            conditions.append("created_at > ?")
            params.append(since)
        rows = "SELECT 1 FROM outbox WHERE " + " AND ".join(conditions or ["1"])
        if at_most is not None:
            rows += " LIMIT ?"
            params.append(at_most)
        return self._one(f"SELECT count(*) AS n FROM ({rows})", params)["n"]

    def mail_suppressed(self, rcpt_key: str) -> bool:
        """Whether the recipient ``rcpt_key`` asked never to be mailed again."""
        sql = "SELECT 1 AS yes FROM mail_suppressions WHERE rcpt_hash = ?"
        return self._one(sql, [hash_secret(rcpt_key)]) is not None

    def suppress_mail(self, rcpt_key: str, now: str) -> None:
        """Never mail ``rcpt_key`` again (only its hash is kept)."""
        with self.write() as db:
            db.execute(
                "INSERT OR IGNORE INTO mail_suppressions (rcpt_hash, created_at) VALUES (?, ?)",
                [hash_secret(rcpt_key), now],
            )

    def timed_games(self) -> list[dict[str, Any]]:
        """Ids of the running games that have a turn deadline."""
        return self._all(
            "SELECT id FROM games WHERE status = 'active' AND deadline IS NOT NULL"
            " ORDER BY deadline"
        )

    def recent_games(self, limit: int = 50) -> list[dict[str, Any]]:
        """The most recently updated games."""
        return self._all(
            "SELECT id, engine, status, seq, seeded, position IS NOT NULL AS from_position,"
            " updated_at FROM games"
            " ORDER BY updated_at DESC LIMIT ?",
            [limit],
        )

    def _one(self, sql: str, params: list[Any] | None = None) -> dict[str, Any] | None:
        return next(iter(self.db.query(sql, params or [])), None)

    def _all(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        return list(self.db.query(sql, params or []))
