"""The PostgreSQL backend of the store: psycopg 3 over a psycopg-pool connection pool.

``TURNPOST_DB=postgresql://user:password@host:port/dbname`` (or ``postgres://``,
any libpq URL) picks it. :class:`PostgresStore` runs the shared SQL of
:class:`server.store.sql.SqlStore`; each process keeps one connection pool per
URL (at most :data:`POOL_SIZE` connections), and a store borrows a
connection for one statement, or for the whole of a :meth:`~PostgresStore.write`.

The guarantees SQLite gets from holding the whole database in a write hold
here too, each its own way:

* A write is one transaction (``synchronous_commit`` on): a move, its
  snapshot, its mails, webhooks and idempotency record land together.
* Reading a game in a write locks its row (``SELECT ... FOR UPDATE``): writers
  of one game take turns, so of two submissions for one seq exactly one wins,
  while writers of other games go on. Messages are numbered under a lock held
  until commit, so their ids grow in commit order.
* Workers claim mails, pushes and webhook deliveries with ``FOR UPDATE SKIP
  LOCKED``: two workers never take the same row.
* The move log refuses UPDATE, DELETE, TRUNCATE and a second ``(game_id, seq)``
  by triggers and its key (:mod:`server.store.postgres_migrations`).
* The event feed's cursor over the log is the transaction that logged a
  move (``moves.xact``), and the feed reads only the moves of transactions
  older than every one still running: one that commits later cannot slip in
  behind the cursor. :meth:`~PostgresStore.wait_for_change` wakes on the
  ``NOTIFY`` that logging a move or posting a message sends.

A connection that fails, a pool with no connection free within
:data:`WAIT_SECONDS` (:data:`DOWN_WAIT_SECONDS` while the pool's last attempt
to connect failed: a server that is down answers at once, not after every
request has waited), a lock not granted within it, or a deadlock raise
:class:`~server.store.base.StoreUnavailable`; a row refused for its unique key
(or by the move log) raises :class:`~server.store.base.Conflict`.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any

import psycopg
from psycopg.types.string import TextLoader
from psycopg_pool import ConnectionPool, PoolTimeout

from server.store import pg_backup
from server.store.base import Conflict, StoreUnavailable
from server.store.postgres_migrations import (
    CHANNEL,
    MIGRATIONS_TABLE,
    OWN_COLUMNS,
    applied,
    migrate,
)
from server.store.records import SchemaChange, Table
from server.store.sql import R, SqlStore, _quoted

#: The most connections one process opens to one database.
POOL_SIZE = 10
#: Seconds a statement waits for a connection or a lock before the database counts as
#: unavailable (as SQLite's busy timeout).
WAIT_SECONDS = 10
#: Seconds a statement waits for a connection while the database could not be reached.
DOWN_WAIT_SECONDS = 1
#: The lock that numbers messages in commit order (``pg_advisory_xact_lock``).
MESSAGE_LOCK = 0x7475726E74616C6B  # "turntalk"
#: Seconds between looks at the log while a committed move waits behind a running transaction.
SETTLE_SECONDS = 0.05

_POOLS: dict[tuple[int, str], ConnectionPool] = {}
_POOLS_LOCK = threading.Lock()
#: The URLs whose last connection attempt in this process failed.
_UNREACHABLE: set[str] = set()


def close_pool(url: str) -> None:
    """Close this process's pool to ``url``, if it has one (a process done with a database,
    such as a test whose database is thrown away; the next use makes a new pool)."""
    with _POOLS_LOCK:
        pool = _POOLS.pop((os.getpid(), url), None)
    if pool is not None:
        pool.close()


def close_pools() -> None:
    """Close every pool of this process (a server worker that is exiting: a pool left for
    the interpreter's finalization fails to stop its threads under gevent)."""
    with _POOLS_LOCK:
        pools = [_POOLS.pop(key) for key in list(_POOLS) if key[0] == os.getpid()]
    for pool in pools:
        pool.close()


class _Connection(psycopg.Connection):
    """A pool's connection: whether connecting to its URL last failed is noted
    (:data:`_UNREACHABLE`)."""

    @classmethod
    def connect(cls, conninfo: str = "", **kwargs: Any) -> _Connection:  # type: ignore[override]
        """Connect (``psycopg.Connection.connect``), noting whether it worked."""
        try:
            conn = super().connect(conninfo, **kwargs)
        except psycopg.OperationalError:
            _UNREACHABLE.add(conninfo)
            raise
        _UNREACHABLE.discard(conninfo)
        return conn


def _configure(conn: psycopg.Connection) -> None:
    """Set up a new connection: JSON read as text (decoded by the shared code), commits
    flushed to disk, lock waits bounded."""
    for name in ("json", "jsonb"):
        conn.adapters.register_loader(name, TextLoader)
    conn.execute("SET synchronous_commit = on")
    conn.execute(f"SET lock_timeout = '{WAIT_SECONDS}s'")


def pool_of(url: str) -> ConnectionPool:
    """This process's connection pool to ``url`` (made on first use; a forked child makes
    its own)."""
    key = (os.getpid(), url)
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = ConnectionPool(
                url,
                connection_class=_Connection,
                min_size=1,
                max_size=POOL_SIZE,
                kwargs={"autocommit": True, "connect_timeout": WAIT_SECONDS},
                configure=_configure,
                timeout=WAIT_SECONDS,
                name="turnpost",
                open=True,
            )
            _POOLS[key] = pool
    return pool


@cache
def _statement(sql: str) -> str:
    """The shared SQL's ``?`` placeholders as psycopg's ``%s`` (a literal ``%`` doubled).

    >>> _statement("SELECT 1 WHERE a LIKE '%x' AND b = ?")
    "SELECT 1 WHERE a LIKE '%%x' AND b = %s"
    """
    return sql.replace("%", "%%").replace("?", "%s")


@contextmanager
def _reported() -> Iterator[None]:
    """Raise psycopg's errors as the store's: :class:`Conflict` for a row refused for its key
    or by the move log, :class:`StoreUnavailable` for a database out of reach or busy."""
    try:
        yield
    except (psycopg.errors.UniqueViolation, psycopg.errors.RestrictViolation) as error:
        raise Conflict(str(error).strip()) from error
    except (psycopg.OperationalError, PoolTimeout) as error:
        raise StoreUnavailable(f"the database is unavailable: {error}".strip()) from error


class PostgresStore(SqlStore):
    """A handle on a Turnpost PostgreSQL database: every operation of
    :class:`server.store.base.Store`, documented there. Cheap to make: the
    connections are the process's pool's."""

    backend = "postgresql"
    _JSON_TEXTS = "SELECT jsonb_array_elements_text(?::jsonb)"
    _JSON_INTS = "SELECT jsonb_array_elements_text(?::jsonb)::bigint"
    _HOLDS = "{array} @> jsonb_build_array({value})"
    _NO_LIMIT = None
    _CLAIM = " FOR UPDATE OF {table} SKIP LOCKED"
    _MOVE_CURSOR = "moves.xact"
    #: Transactions older than every running one: none that commits later is older.
    _OLDEST_RUNNING = "pg_snapshot_xmin(pg_current_snapshot())::text::bigint"
    _SETTLED = f" AND moves.xact < {_OLDEST_RUNNING}"

    def __init__(self, url: str) -> None:
        self.url = url
        self._pool = pool_of(url)
        #: The connection of the write under way, if any.
        self._writing: psycopg.Connection | None = None
        #: The connection that listens for changes (made by the first wait for one).
        self._listener: psycopg.Connection | None = None
        #: Changes heard of so far: the mark :meth:`wait_for_change` gives.
        self._changes = 0
        #: Whether the feed's last read left committed moves behind a running transaction.
        self._unsettled = False
        #: Whether the transaction under way is a :meth:`snapshot` (it locks no rows).
        self._read_only = False

    # -- the connection ---------------------------------------------------------------
    def close(self) -> None:
        """Close the listening connection (the pool's stay open for the process)."""
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def init(self) -> SchemaChange:
        with self.write() as conn:
            return SchemaChange(*migrate(conn))

    def schema_version(self) -> int:
        with self._connection() as conn:
            return len(applied(conn))

    @contextmanager
    def write(self) -> Iterator[psycopg.Connection]:
        """One transaction on one connection of the pool; yields that connection."""
        with self._borrowed() as conn, conn.transaction():
            self._writing = conn
            try:
                yield conn
            finally:
                self._writing = None

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        """The write's connection, or one of the pool's for one statement."""
        if self._writing is not None:
            yield self._writing
        else:
            with self._borrowed() as conn:
                yield conn

    def backup(self, path: str) -> None:
        """``pg_dump``'s snapshot of the whole database (:mod:`server.store.pg_backup`)."""
        pg_backup.backup(self.url, path)

    def restore(self, path: str) -> None:
        """The dump ``path`` replaces everything, in one transaction
        (:mod:`server.store.pg_backup`); then migrated to the latest schema."""
        pg_backup.restore(self.url, path)
        self.init()

    @contextmanager
    def _borrowed(self) -> Iterator[psycopg.Connection]:
        """A connection of the pool, waiting :data:`WAIT_SECONDS` for one (less while the
        database is down). One that fails makes the pool check its idle connections: a
        database that restarted broke them all, and each would fail a request."""
        wait = DOWN_WAIT_SECONDS if self.url in _UNREACHABLE else WAIT_SECONDS
        with _reported():
            try:
                with self._pool.connection(wait) as conn:
                    yield conn
            except psycopg.OperationalError:
                self._pool.check()
                raise

    def wait_for_change(self, seen: int | None, timeout: float) -> int:
        """Waits for a ``NOTIFY`` on :data:`~server.store.postgres_migrations.CHANNEL` (sent
        by every commit that logs a move, posts a message or changes a game's status) on a
        connection of its own.

        While a committed move waits behind a running transaction (see
        :meth:`moves_since`), it looks again every :data:`SETTLE_SECONDS`.
        """
        with _reported():
            listener = self._listening()
            if seen is None:
                return self._changes
            if self._changes == seen:
                wait = min(timeout, SETTLE_SECONDS) if self._unsettled else timeout
                heard = sum(1 for _ in listener.notifies(timeout=wait, stop_after=1))
                self._changes += heard or int(self._unsettled)  # unsettled: look again
            self._changes += sum(1 for _ in listener.notifies(timeout=0))
        return self._changes

    def _listening(self) -> psycopg.Connection:
        """The connection that listens for changes: opened (or opened again after a failure,
        counting a change, since some may have passed unheard) when needed."""
        if self._listener is not None and self._listener.broken:
            self.close()
        if self._listener is None:
            self._listener = psycopg.connect(
                self.url, autocommit=True, connect_timeout=WAIT_SECONDS
            )
            self._listener.execute(f"LISTEN {CHANNEL}")
            self._changes += 1
        return self._listener

    # -- what PostgreSQL says its own way -----------------------------------------------
    def _lock(self, table: str = "") -> str:
        if self._writing is None or self._read_only:
            return ""
        return f" FOR UPDATE OF {table}" if table else " FOR UPDATE"

    def _serialize_messages(self) -> None:
        self._execute("SELECT pg_advisory_xact_lock(?)", [MESSAGE_LOCK])

    def _claimed(self, rows: list[R], table: str, due: str, *params: Any) -> list[R]:
        if not rows:
            return rows
        ids = {getattr(row, "id") for row in rows}  # noqa: B009 (any record with an id)
        locked = set(
            self._values(
                f"SELECT id FROM {table} WHERE id IN ({self._JSON_INTS}) AND {due}"
                " FOR UPDATE SKIP LOCKED",
                [json.dumps(sorted(ids)), *params],
            )
        )
        return [row for row in rows if getattr(row, "id") in locked]  # noqa: B009

    def last_move_cursor(self) -> int:
        return self._value(f"SELECT {self._OLDEST_RUNNING} - 1")

    def moves_since(self, cursor: int) -> list[tuple[int, Any]]:
        """Also notes whether committed moves wait behind a running transaction (read at the
        next look, :data:`SETTLE_SECONDS` later)."""
        moves = super().moves_since(cursor)
        self._unsettled = bool(
            self._value(
                f"SELECT EXISTS (SELECT 1 FROM moves WHERE xact >= {self._OLDEST_RUNNING}"
                " AND xact > ?)",
                [moves[-1][0] if moves else cursor],
            )
        )
        return moves

    # -- every table, for copying -------------------------------------------------------
    def tables(self) -> dict[str, Table]:
        """Ordered by rowid where the table has one, else by its primary key."""
        columns: dict[str, list[tuple[str, str]]] = {}
        for table, column, kind in self._tuples(
            "SELECT table_name, column_name, data_type FROM information_schema.columns"
            " JOIN information_schema.tables USING (table_schema, table_name)"
            " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
            " AND table_name <> ? ORDER BY table_name, ordinal_position",
            [MIGRATIONS_TABLE],
        ):
            columns.setdefault(table, []).append((column, kind))
        keys = self._grouped(
            "SELECT c.table_name, u.column_name FROM information_schema.table_constraints c"
            " JOIN information_schema.key_column_usage u USING (constraint_schema, constraint_name)"
            " WHERE c.constraint_type = 'PRIMARY KEY' AND c.table_schema = current_schema()"
            " ORDER BY c.table_name, u.ordinal_position"
        )
        references = self._grouped(
            "SELECT c.table_name, u.table_name FROM information_schema.table_constraints c"
            " JOIN information_schema.constraint_column_usage u"
            " USING (constraint_schema, constraint_name)"
            " WHERE c.constraint_type = 'FOREIGN KEY' AND c.table_schema = current_schema()"
        )
        return {
            name: Table(
                name,
                tuple(c for c, _ in shape if c not in OWN_COLUMNS.get(name, ())),
                ("rowid",) if "rowid" in OWN_COLUMNS.get(name, ()) else tuple(keys.get(name, ())),
                frozenset(references.get(name, ())),
                frozenset(c for c, kind in shape if kind == "jsonb"),
            )
            for name, shape in columns.items()
        }

    def _grouped(self, sql: str) -> dict[str, list[Any]]:
        """The second column of the rows ``sql`` reads, by their first (a table's name)."""
        found: dict[str, list[Any]] = {}
        for table, value in self._tuples(sql):
            found.setdefault(table, []).append(value)
        return found

    @contextmanager
    def snapshot(self) -> Iterator[psycopg.Connection]:
        """A read-only transaction at ``REPEATABLE READ``: one snapshot for all its reads."""
        with self.write() as conn:
            self._execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            self._read_only = True
            try:
                yield conn
            finally:
                self._read_only = False

    def insert_rows(self, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
        marks = ", ".join("%s" for _ in columns)
        sql = f"INSERT INTO {_quoted(table)} ({', '.join(map(_quoted, columns))}) VALUES ({marks})"
        with self._connection() as conn, _reported(), conn.cursor() as cursor:
            cursor.executemany(sql, rows)

    def after_copy(self) -> None:
        """Each identity column's next value follows its largest."""
        for table, column in self._tuples(
            "SELECT table_name, column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND identity_generation = 'BY DEFAULT'"
        ):
            self._execute(
                f"SELECT setval(pg_get_serial_sequence(?, ?),"
                f" coalesce((SELECT max({_quoted(column)}) FROM {_quoted(table)}), 0) + 1, false)",
                [_quoted(table), column],
            )

    # -- statements -------------------------------------------------------------------
    def _run(self, sql: str, params: Sequence[Any]) -> tuple[int, list[str], list[tuple]]:
        """Run ``sql``: how many rows it changed, its columns and the rows it read."""
        with self._connection() as conn, _reported(), conn.cursor() as cursor:
            cursor.execute(_statement(sql), params)
            if cursor.description is None:
                return cursor.rowcount, [], []
            return cursor.rowcount, [c.name for c in cursor.description], cursor.fetchall()

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self._run(sql, params)[0]

    def _tuples(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._run(sql, params)[2]

    def _named(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        _, names, rows = self._run(sql, params)
        return [dict(zip(names, row, strict=True)) for row in rows]
