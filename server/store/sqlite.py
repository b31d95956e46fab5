"""The SQLite backend of the store: one file in WAL mode, opened with sqlite-utils.

``TURNPOST_DB`` names the file (a path, or ``sqlite:///PATH``; default
``./turnpost.db``). :class:`SqliteStore` runs the shared SQL of
:class:`server.store.sql.SqlStore` on it. The move log cannot be rewritten:
triggers in the database abort any UPDATE or DELETE on ``moves``, and any
INSERT of a ``(game_id, seq)`` already logged, so ``INSERT OR REPLACE`` and
``REPLACE`` (whose implicit delete fires no DELETE trigger) cannot rewrite it
either. The triggers live in the schema, so they hold for every connection,
the ``sqlite3`` shell's too. The schema is built and upgraded by the ordered
migrations of :mod:`server.store.migrations`. The database holds hands, draw
orders, seeds and emails: it is created readable by its owner only (0600),
and so are the WAL and shared-memory files SQLite makes beside it (SQLite
gives them the database file's mode). Deleted content is overwritten
(``secure_delete``): a message the host deleted leaves no text in the file.

    >>> store = SqliteStore.open(":memory:")
    >>> store.init()
    SchemaChange(before=0, after=29, created=True)
    >>> print(" ".join(sorted(store.db.table_names())))  # doctest: +NORMALIZE_WHITESPACE
    _sqlite_migrations analyses api_tokens bot_claims conditional_lines created_pages games
    idempotency inbound mail_suppressions messages moves outbox player_pings
    player_vacation_days players push_subscriptions pushes seat_tokens seats sessions settings
    sign_in_links takeback_offers talk_mutes webhook_deliveries webhooks
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import Any

import sqlite_utils

from server.cooperative import FairLock, cooperative, offload
from server.store.base import Conflict, StoreError, StoreUnavailable
from server.store.migrations import migrate, migrations, version
from server.store.records import SchemaChange, Table
from server.store.sql import SqlStore, _quoted

BUSY_TIMEOUT_MS = 10_000
#: Seconds between two tries of a gevent worker's write at a database another process writes.
LOCK_POLL_SECONDS = 0.001
#: Seconds between looks at ``PRAGMA data_version`` while waiting for a change.
POLL_SECONDS = 0.25
_WRITER_LOCKS: dict[str, FairLock] = {}

#: Owner read and write only: the database holds hands, seeds and emails.
DB_FILE_MODE = 0o600
#: SQLite's primary result codes of a database locked or out of reach (not of a wrong query).
UNAVAILABLE_CODES = frozenset(
    {
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PROTOCOL,
    }
)
#: What SQLite says of a row refused for its unique key, or by the move log's triggers.
CONFLICTS = ("UNIQUE constraint failed", "append-only")


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


def busy(error: StoreUnavailable) -> bool:
    """Whether ``error`` is SQLite's "database is locked" by another connection's write."""
    cause = error.__cause__
    return getattr(cause, "sqlite_errorcode", 0) & 0xFF == sqlite3.SQLITE_BUSY


def unavailable(error: sqlite3.Error) -> bool:
    """Whether ``error`` says the database is locked or out of reach (try again later)."""
    return getattr(error, "sqlite_errorcode", 0) & 0xFF in UNAVAILABLE_CODES


class _Connection(sqlite3.Connection):
    """A connection whose statements raise :class:`StoreUnavailable` for a database that is
    locked or out of reach, so that no ``sqlite3`` error leaves the store for those."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        """Run one statement (``sqlite3.Connection.execute``)."""
        try:
            return super().execute(sql, parameters)
        except sqlite3.OperationalError as error:
            if unavailable(error):
                raise StoreUnavailable(f"the database is unavailable: {error}") from error
            raise


class SqliteStore(SqlStore):
    """A connection to the Turnpost SQLite database: every operation of
    :class:`server.store.base.Store`, documented there.

    A write (:meth:`write`) is ``BEGIN IMMEDIATE``: writers queue on the
    database lock instead of failing halfway; threads of one process queue
    on a lock of their own first. ``db`` is the sqlite-utils database, for
    tests and migrations.
    """

    backend = "sqlite"
    _JSON_TEXTS = _JSON_INTS = "SELECT value FROM json_each(?)"
    _HOLDS = "EXISTS (SELECT 1 FROM json_each({array}) WHERE value = {value})"
    _NO_LIMIT = -1
    _CLAIM = ""  # a write holds the whole database
    _MOVE_CURSOR = "moves.rowid"  # writes take turns: rowids grow in commit order
    _SETTLED = ""

    def __init__(self, db: sqlite_utils.Database, path: str = ":memory:") -> None:
        self.db = db
        self._conn = db.conn
        # per process: a lock inherited through fork would be the parent's kind of lock
        key = f"{os.getpid()}:{os.path.abspath(path)}"
        self._writer_lock = _WRITER_LOCKS.setdefault(key, FairLock())

    @classmethod
    def open(cls, path: str) -> SqliteStore:
        """Open ``path`` (created 0600 if missing) with autocommit and a busy timeout."""
        try:
            if path != ":memory:":
                private_file(path)
            conn = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, factory=_Connection
            )
        except (OSError, sqlite3.OperationalError) as error:
            raise StoreUnavailable(f"the database {path} cannot be opened: {error}") from error
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA secure_delete = ON")  # what is deleted is overwritten, not left
        return cls(sqlite_utils.Database(conn), path)

    # -- the connection ---------------------------------------------------------------
    def close(self) -> None:
        self.db.close()

    def init(self) -> SchemaChange:
        """Also switches the database to WAL."""
        if self._conn.execute("PRAGMA journal_mode").fetchone()[0] != "memory":
            self._use_wal()
        with self.write():
            return migrate(self.db)

    def schema_version(self) -> int:
        return version(self.db)

    def _use_wal(self) -> None:
        """Switch to WAL, retrying while other processes hold the database.

        The switch needs the whole file: when another process starting at the
        same moment holds its lock, SQLite answers "database is locked" at
        once instead of calling the busy handler (it would deadlock), so the
        retries here stand in for ``busy_timeout``.
        """
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            try:
                self._conn.execute("PRAGMA journal_mode = WAL")
                return
            except StoreUnavailable:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    @contextmanager
    def write(self) -> Iterator[sqlite_utils.Database]:
        """Threads of one process queue on a lock first, in order (a
        :class:`~server.cooperative.FairLock`: the first to wait is the first served),
        rather than polling SQLite's busy handler; other processes still meet SQLite's
        own lock (see :meth:`_begin`). The ``COMMIT`` (its fsync, and a checkpoint now
        and then) runs in a real thread under gevent (:func:`~server.cooperative.offload`),
        so that the worker serves its other requests meanwhile."""
        with self._writer_lock:
            self._begin()
            try:
                yield self.db
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            offload(self._conn.execute, "COMMIT")  # its fsync, off a gevent worker's loop

    def _begin(self) -> None:
        """``BEGIN IMMEDIATE``, waiting up to :data:`BUSY_TIMEOUT_MS` for another process's
        write.

        SQLite's busy handler waits in C, holding a gevent worker's whole loop:
        under gevent the wait is instead a gevent sleep of :data:`LOCK_POLL_SECONDS`
        between tries (with SQLite's busy handler off meanwhile), so the worker
        serves its other requests.
        """
        if not cooperative():
            self._conn.execute("BEGIN IMMEDIATE")
            return
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        self._conn.execute("PRAGMA busy_timeout = 0")
        try:
            while True:
                try:
                    self._conn.execute("BEGIN IMMEDIATE")
                    return
                except StoreUnavailable as error:
                    if not busy(error) or time.monotonic() > deadline:
                        raise
                    time.sleep(LOCK_POLL_SECONDS)  # gevent's sleep: the loop goes on
        finally:
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")

    def wait_for_change(self, seen: int | None, timeout: float) -> int:
        """Polls ``PRAGMA data_version`` (changed by every commit of another connection) every
        :data:`POLL_SECONDS`."""
        deadline = time.monotonic() + timeout
        while True:
            current = self._conn.execute("PRAGMA data_version").fetchone()[0]
            left = deadline - time.monotonic()
            if seen is None or current != seen or left <= 0:
                return current
            time.sleep(min(POLL_SECONDS, left))

    def last_move_cursor(self) -> int:
        return self._value("SELECT coalesce(max(rowid), 0) FROM moves")

    # -- backups ----------------------------------------------------------------------
    def backup(self, path: str) -> None:
        """SQLite's online backup API in one step: one read transaction, so the copy is the
        database at one moment, and in WAL mode writers go on meanwhile. The copy is then
        made one self-contained file (out of WAL), checked, and named ``path`` only when
        whole (a crash leaves ``path.partial`` at most)."""
        partial = f"{path}.partial"
        with suppress(FileNotFoundError):
            os.remove(partial)
        try:
            private_file(partial)
            copy = sqlite3.connect(partial, isolation_level=None)
            try:
                self._conn.backup(copy)
                copy.execute("PRAGMA journal_mode = DELETE")
                problems = copy.execute("PRAGMA quick_check").fetchall()
            finally:
                copy.close()
            if problems != [("ok",)]:
                raise StoreError(f"the copy does not check: {problems[:3]}")
            os.replace(partial, path)
        except (OSError, sqlite3.Error, StoreError) as error:
            with suppress(FileNotFoundError):
                os.remove(partial)
            raise StoreError(f"the backup to {path} failed: {error}") from error

    def restore(self, path: str) -> None:
        """The backup API the other way, in one write: the copy's pages replace this
        database's, and other connections see all of it or none. The copy is then brought
        to WAL and to the latest schema (:meth:`init`)."""
        try:
            source = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
        except sqlite3.Error as error:
            raise StoreError(f"{path} cannot be read: {error}") from error
        try:
            if not version(sqlite_utils.Database(source)):
                raise StoreError(f"{path} is not a Turnpost backup: it has no Turnpost schema")
            with self._writer_lock:
                source.backup(self._conn)
        except sqlite3.DatabaseError as error:  # e.g. "file is not a database"
            raise StoreError(f"{path} is not a Turnpost backup: {error}") from error
        finally:
            source.close()
        self.init()

    # -- every table, for copying -------------------------------------------------------
    def tables(self) -> dict[str, Table]:
        """Ordered by rowid; no column is SQLite's own (the rowid is not a column)."""
        names = self._values(
            "SELECT name FROM sqlite_master WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name != ? ORDER BY name",
            [migrations.migrations_table],
        )
        return {name: self._table(name) for name in names}

    def _table(self, name: str) -> Table:
        """The table ``name`` as :meth:`tables` describes it."""
        columns = tuple(row[1] for row in self._tuples(f"PRAGMA table_info({_quoted(name)})"))
        references = {row[2] for row in self._tuples(f"PRAGMA foreign_key_list({_quoted(name)})")}
        return Table(name, columns, ("rowid",), frozenset(references), frozenset())

    def snapshot(self) -> AbstractContextManager[object]:
        """A write: other writers wait until it ends."""
        return self.write()

    def insert_rows(self, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
        marks = ", ".join("?" for _ in columns)
        names = ", ".join(map(_quoted, columns))
        self._conn.executemany(f"INSERT INTO {_quoted(table)} ({names}) VALUES ({marks})", rows)

    # -- statements -------------------------------------------------------------------
    def _cursor(self, sql: str, params: Sequence[Any]) -> sqlite3.Cursor:
        """Run ``sql``; :class:`Conflict` for a row its unique key or the move log refuses."""
        try:
            return self._conn.execute(sql, params)
        except sqlite3.IntegrityError as error:
            if any(phrase in str(error) for phrase in CONFLICTS):
                raise Conflict(str(error)) from error
            raise

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self._cursor(sql, params).rowcount

    def _tuples(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._cursor(sql, params).fetchall()

    def _named(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cursor = self._cursor(sql, params)
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
