"""The SQLite backend of the store: one file in WAL mode, opened with sqlite-utils.

``TURNPOST_DB`` names the file (a path, or ``sqlite:///PATH``; default
``./turnpost.db``). :class:`SqliteStore` implements every operation of
:class:`server.store.base.Store` (documented there) and is the only class
that runs SQL on it. The move log cannot be rewritten: triggers in the
database abort any UPDATE or DELETE on ``moves``, and any INSERT of a
``(game_id, seq)`` already logged, so ``INSERT OR REPLACE`` and ``REPLACE``
(whose implicit delete fires no DELETE trigger) cannot rewrite it either.
The triggers live in the schema, so they hold for every connection, the
``sqlite3`` shell's too. The schema is built and upgraded by the ordered
migrations of :mod:`server.store.migrations`. The JSON columns are kept as
canonical JSON text (:func:`~server.store.base.canonical_json`), encoded
and decoded here only. The database holds hands, draw orders, seeds and
emails: it is created readable by its owner only (0600), and so are the
WAL and shared-memory files SQLite makes beside it (SQLite gives them the
database file's mode). Deleted content is overwritten (``secure_delete``): a
message the host deleted leaves no text in the file.

    >>> store = SqliteStore.open(":memory:")
    >>> store.init()
    SchemaChange(before=0, after=19, created=True)
    >>> print(" ".join(sorted(store.db.table_names())))  # doctest: +NORMALIZE_WHITESPACE
    _sqlite_migrations api_tokens created_pages games idempotency inbound mail_suppressions
    messages moves outbox players push_subscriptions pushes seat_tokens seats sessions
    settings sign_in_links talk_mutes webhook_deliveries webhooks
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import fields
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import sqlite_utils

from server.store.base import (
    Conflict,
    Store,
    StoreError,
    StoreUnavailable,
    canonical_json,
    hash_secret,
)
from server.store.migrations import migrate, version
from server.store.records import (
    AdminGame,
    ApiToken,
    ClaimedDelivery,
    ClaimedPush,
    EndedGame,
    FailingDelivery,
    GameRow,
    GameUpdate,
    IdempotentAnswer,
    Json,
    ListedGame,
    ListedSeat,
    LobbyGame,
    LoggedMove,
    Message,
    NewMail,
    NewMessage,
    NewPush,
    NewSeat,
    NewSubscription,
    OpenTable,
    OutboxMail,
    Player,
    PlayerGame,
    PlayerUpdate,
    PushSubscription,
    SchemaChange,
    Seat,
    SeatRef,
    SeatToken,
    SeatUpdate,
    SignInLink,
    Webhook,
    WebhookDelivery,
)

BUSY_TIMEOUT_MS = 10_000
#: Seconds between looks at ``PRAGMA data_version`` while waiting for a change.
POLL_SECONDS = 0.25
_WRITER_LOCKS: dict[str, threading.Lock] = {}

#: Owner read and write only: the database holds hands, seeds and emails.
DB_FILE_MODE = 0o600
#: SQLite's largest integer: a larger id names no row (and would not bind).
MAX_INTEGER = 2**63 - 1
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
#: The columns kept as JSON text, and those of them where ``None`` is kept as NULL.
JSON_COLUMNS = frozenset(
    {
        "options",
        "position",
        "state",
        "to_move",
        "result",
        "move",
        "public_move",
        "facts",
        "body",
        "payload",
        "request",
        "response",
    }
)
NULLABLE_JSON = frozenset({"position", "result", "facts"})
#: The columns (and computed columns) kept as 0 or 1.
BOOLEAN_COLUMNS = frozenset({"seeded", "from_position", "waiting", "invitation"})

R = TypeVar("R")


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


def _encode(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with its JSON columns as canonical JSON text (a nullable one's ``None``: NULL)."""
    return {
        name: (
            None
            if value is None and name in NULLABLE_JSON
            else canonical_json(value)
            if name in JSON_COLUMNS
            else value
        )
        for name, value in row.items()
    }


def _decode(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` (changed in place) with its JSON columns decoded and its flags as booleans."""
    for name, value in row.items():
        if value is None:
            continue
        if name in JSON_COLUMNS:
            row[name] = json.loads(value)
        elif name in BOOLEAN_COLUMNS:
            row[name] = bool(value)
    return row


@cache
def _columns(kind: type) -> tuple[str, ...]:
    """The field names of a record type (its columns)."""
    return tuple(field.name for field in fields(kind))


def _row_of(record: Any, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """A record's fields as a row to insert, without ``leave_out``."""
    return {name: getattr(record, name) for name in _columns(type(record)) if name not in leave_out}


class SqliteStore(Store):
    """A connection to the Turnpost SQLite database: every operation of
    :class:`server.store.base.Store`, documented there.

    A write (:meth:`write`) is ``BEGIN IMMEDIATE``: writers queue on the
    database lock instead of failing halfway; threads of one process queue
    on a lock of their own first. ``db`` is the sqlite-utils database, for
    tests and migrations.
    """

    backend = "sqlite"

    def __init__(self, db: sqlite_utils.Database, path: str = ":memory:") -> None:
        self.db = db
        self._conn = db.conn
        # per process: a lock inherited through fork would be the parent's kind of lock
        key = f"{os.getpid()}:{os.path.abspath(path)}"
        self._writer_lock = _WRITER_LOCKS.setdefault(key, threading.Lock())

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
        """Threads of one process queue on a lock first, in order, rather than polling
        SQLite's busy handler; other processes still meet SQLite's own lock."""
        with self._writer_lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

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

    # -- settings ---------------------------------------------------------------------
    def setting(self, name: str) -> str | None:
        return self._value("SELECT value FROM settings WHERE name = ?", [name])

    def set_setting(self, name: str, value: str) -> None:
        with self.write():
            self._execute(
                "INSERT INTO settings (name, value) VALUES (?, ?)"
                " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                [name, value],
            )

    def keep_setting(self, name: str, value: str) -> str:
        with self.write():
            self._execute(
                "INSERT OR IGNORE INTO settings (name, value) VALUES (?, ?)", [name, value]
            )
            return self._value("SELECT value FROM settings WHERE name = ?", [name])

    def forget_setting(self, name: str) -> None:
        with self.write():
            self._execute("DELETE FROM settings WHERE name = ?", [name])

    # -- games and seats -------------------------------------------------------
    def create_game(self, game: GameRow, seats: Sequence[NewSeat]) -> None:
        try:
            self._insert("games", _row_of(game))
        except sqlite3.IntegrityError as error:
            if "UNIQUE" not in str(error):
                raise
            raise Conflict(f"game {game.id}: {error}") from error
        for number, seat in enumerate(seats):
            self._insert("seats", {"game_id": game.id, "seat": number, **_row_of(seat)})

    def game(self, game_id: str) -> GameRow | None:
        return self._one(GameRow, "SELECT * FROM games WHERE id = ?", [game_id])

    def game_exists(self, game_id: str) -> bool:
        return self._value("SELECT 1 FROM games WHERE id = ?", [game_id]) is not None

    def update_game(self, game_id: str, values: GameUpdate) -> None:
        self._update("games", values, "id = ?", [game_id])

    def set_reminders(self, game_id: str, seq: int, bits: int) -> bool:
        return bool(
            self._execute(
                "UPDATE games SET reminders_sent = ? WHERE id = ? AND seq = ?"
                " AND reminders_sent != ?",
                [bits, game_id, seq, bits],
            ).rowcount
        )

    def timed_games(self) -> list[str]:
        return self._values(
            "SELECT id FROM games WHERE status = 'active' AND deadline IS NOT NULL"
            " ORDER BY deadline"
        )

    #: The columns of a game in a list (:class:`~server.store.records.GameListing`).
    _LISTED = (
        "{g}id, {g}engine, {g}status, {g}seq, {g}to_move, {g}result, {g}deadline, {g}seeded,"
        " {g}position IS NOT NULL AS from_position, {g}created_at, {g}updated_at,"
        " {g}forming_until"
    )

    def games_page(
        self,
        engine: str | None,
        status: str | None,
        seat: tuple[str, int, bool] | None,
        before: int | None,
        limit: int,
    ) -> list[ListedGame]:
        conditions, params = [], []
        for column, value in (("engine", engine), ("status", status)):
            if value is not None:
                conditions.append(f"{column} = ?")
                params.append(value)
        if seat is not None:
            waits = "EXISTS (SELECT 1 FROM json_each(to_move) WHERE value = ?)"
            conditions.append(f"id = ? AND {waits} = ?")
            params.extend([seat[0], seat[1], int(seat[2])])
        else:
            conditions.append("hidden_at IS NULL")
        if before is not None:
            conditions.append("rowid < ?")
            params.append(before)
        where = " AND ".join(conditions) or "1"
        return self._with_players(
            ListedGame,
            f"SELECT rowid AS cursor, {self._LISTED.format(g='')} FROM games"
            f" WHERE {where} ORDER BY rowid DESC LIMIT ?",
            [*params, limit],
        )

    def _with_players(self, kind: type[R], sql: str, params: list[Any]) -> list[R]:
        """The games ``sql`` reads, as ``kind`` records with their ``players`` (what a list
        shows of their seats, in seat order)."""
        games = self._rows(sql, params)
        players: dict[str, list[ListedSeat]] = {game["id"]: [] for game in games}
        for seat in self._rows(
            "SELECT game_id, seat, name, private_at, reissued_at, player_id, joined_at FROM seats"
            " WHERE game_id IN (SELECT value FROM json_each(?)) ORDER BY game_id, seat",
            [json.dumps(list(players))],
        ):
            players[seat.pop("game_id")].append(ListedSeat(**seat))
        return [kind(**game, players=tuple(players[game["id"]])) for game in games]

    def seats(self, game_id: str) -> list[Seat]:
        return self._all(Seat, "SELECT * FROM seats WHERE game_id = ? ORDER BY seat", [game_id])

    def seat(self, game_id: str, seat: int) -> Seat | None:
        return self._one(
            Seat, "SELECT * FROM seats WHERE game_id = ? AND seat = ?", [game_id, seat]
        )

    def make_seat_private(self, game_id: str, seat: int, at: str) -> None:
        self._update_seat(game_id, seat, {"private_at": at})

    def seat_reissued(self, game_id: str, seat: int, at: str) -> None:
        self._update_seat(
            game_id,
            seat,
            {
                "reissued_at": at,
                "passes_revoked_at": at,
                "private_at": None,
                "player_id": None,
                "joined_at": None,
            },
        )

    def mark_acted(self, game_id: str, seat: int, at: str) -> None:
        self._update_seat(game_id, seat, {"acted_at": at})

    def set_vacation(
        self, game_id: str, seat: int, until: str, year: int, days_used: float
    ) -> None:
        self._update_seat(
            game_id,
            seat,
            {"vacation_until": until, "vacation_year": year, "vacation_days_used": days_used},
        )

    def stop_mail(self, game_id: str, seat: int, at: str | None) -> None:
        self._update_seat(game_id, seat, {"mail_stopped_at": at})

    def _update_seat(self, game_id: str, seat: int, values: dict[str, Any]) -> bool:
        """Set ``values`` on one seat; whether it exists."""
        return self._update("seats", values, "game_id = ? AND seat = ?", [game_id, seat]) == 1

    # -- tables: games that form before they start -----------------------------------
    def open_tables(self, now: str, limit: int) -> list[OpenTable]:
        return self._with_players(
            OpenTable,
            "SELECT id, engine, options, seeded, position IS NOT NULL AS from_position,"
            " turn_hours, deadline_policy, seating, created_at, forming_until FROM games"
            " WHERE status = 'forming' AND hidden_at IS NULL AND forming_until > ?"
            " AND EXISTS (SELECT 1 FROM seats WHERE game_id = games.id AND name = '')"
            " ORDER BY created_at DESC LIMIT ?",
            [now, limit],
        )

    def lobby_games(self, player_id: str, limit: int) -> list[LobbyGame]:
        return self._with_players(
            LobbyGame,
            "SELECT id, engine, status, seq, to_move, updated_at, creator_id FROM games"
            " WHERE id IN (SELECT game_id FROM seats WHERE player_id = ?"
            " UNION SELECT id FROM games WHERE creator_id = ?)"
            " ORDER BY updated_at DESC LIMIT ?",
            [player_id, player_id, limit],
        )

    def expired_tables(self, now: str) -> list[str]:
        return self._values(
            "SELECT id FROM games WHERE status = 'forming' AND forming_until <= ?", [now]
        )

    def rematch_of(self, game_id: str) -> str | None:
        return self._value("SELECT id FROM games WHERE rematch_of = ?", [game_id])

    def update_seat(self, game_id: str, seat: int, values: SeatUpdate) -> bool:
        return self._update_seat(game_id, seat, dict(values))

    #: The tables whose rows belong to one seat of a game (``game_id``, ``seat``).
    SEAT_TABLES = ("seats", "seat_tokens", "outbox", "inbound", "idempotency")

    def renumber_seats(self, game_id: str, order: list[int]) -> None:
        shift = len(order) + 1000
        for table in self.SEAT_TABLES:
            self._execute(f"UPDATE {table} SET seat = seat + ? WHERE game_id = ?", [shift, game_id])
            self._execute(
                f"UPDATE {table} SET seat = json_extract(?, '$[' || (seat - ?) || ']')"
                " WHERE game_id = ? AND seat >= ?",
                [json.dumps(order), shift, game_id, shift],
            )
        self._execute(
            "UPDATE seats SET mail_generation = 1 + (SELECT max(mail_generation) FROM seats"
            " WHERE game_id = ?) WHERE game_id = ?",
            [game_id, game_id],
        )

    def mailed_seats(self, game_id: str) -> set[int]:
        return set(self._values("SELECT DISTINCT seat FROM outbox WHERE game_id = ?", [game_id]))

    # -- seat tokens ---------------------------------------------------------------------
    def seat_by_token(self, game_id: str, token: str) -> int | None:
        return self._value(
            "SELECT seat FROM seat_tokens WHERE game_id = ? AND token_hash = ?"
            " AND revoked_at IS NULL",
            [game_id, hash_secret(token)],
        )

    def seat_of_token(self, token: str) -> SeatRef | None:
        row = self._conn.execute(
            "SELECT game_id, seat FROM seat_tokens WHERE token_hash = ? AND revoked_at IS NULL",
            [hash_secret(token)],
        ).fetchone()
        return None if row is None else SeatRef(*row)

    def seat_token(self, game_id: str, token: str) -> SeatToken | None:
        return self._one(
            SeatToken,
            "SELECT * FROM seat_tokens WHERE game_id = ? AND token_hash = ?",
            [game_id, hash_secret(token)],
        )

    def add_seat_token(self, game_id: str, seat: int, token: str, kind: str, at: str) -> None:
        self._insert(
            "seat_tokens",
            {
                "token_hash": hash_secret(token),
                "game_id": game_id,
                "seat": seat,
                "kind": kind,
                "created_at": at,
            },
        )

    def revoke_seat_tokens(
        self, game_id: str, seat: int, kinds: tuple[str, ...], at: str, why: str
    ) -> None:
        marks = ", ".join("?" for _ in kinds)
        self._execute(
            "UPDATE seat_tokens SET revoked_at = ?, revoked_why = ? WHERE game_id = ?"
            f" AND seat = ? AND revoked_at IS NULL AND kind IN ({marks})",
            [at, why, game_id, seat, *kinds],
        )

    def drop_seat_tokens(self, game_id: str, seat: int, kind: str, keep: int) -> None:
        self._execute(
            "DELETE FROM seat_tokens WHERE token_hash IN (SELECT token_hash FROM seat_tokens"
            " WHERE game_id = ? AND seat = ? AND kind = ? AND revoked_at IS NULL"
            " ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?)",
            [game_id, seat, kind, keep],
        )

    def seat_tokens_since(self, game_id: str, kind: str, since: str) -> int:
        return self._value(
            "SELECT count(*) FROM seat_tokens WHERE game_id = ? AND kind = ? AND created_at > ?",
            [game_id, kind, since],
        )

    def add_created_page(self, key_hash: str, game_id: str, until: str, now: str) -> None:
        with self.write():
            self._execute("DELETE FROM created_pages WHERE until <= ?", [now])
            self._insert(
                "created_pages", {"key_hash": key_hash, "game_id": game_id, "until": until}
            )

    def created_page(self, key_hash: str, game_id: str, now: str) -> bool:
        found = self._value(
            "SELECT 1 FROM created_pages WHERE key_hash = ? AND game_id = ? AND until > ?",
            [key_hash, game_id, now],
        )
        return found is not None

    def forget_created_page(self, key_hash: str) -> None:
        with self.write():
            self._execute("DELETE FROM created_pages WHERE key_hash = ?", [key_hash])

    # -- players ----------------------------------------------------------------------
    def add_player(self, player: Player) -> None:
        self._insert("players", _row_of(player))

    def player(self, player_id: str) -> Player | None:
        return self._one(Player, "SELECT * FROM players WHERE id = ?", [player_id])

    def player_by_email_key(self, email_key: str) -> Player | None:
        return self._one(Player, "SELECT * FROM players WHERE email_key = ?", [email_key])

    def update_player(self, player_id: str, values: PlayerUpdate) -> None:
        with self.write():
            self._update("players", values, "id = ?", [player_id])

    def add_sign_in_link(self, link: SignInLink) -> None:
        self._insert("sign_in_links", _row_of(link))

    def sign_in_links_since(self, since: str, **where: str) -> int:
        [(column, value)] = where.items()
        if column not in ("email_key", "client"):
            raise ValueError(column)
        return self._value(
            f"SELECT count(*) FROM sign_in_links WHERE {column} = ? AND created_at > ?",
            [value, since],
        )

    def use_sign_in_link(self, link_id: str, now: str) -> SignInLink | None:
        link = self._one(
            SignInLink,
            "SELECT * FROM sign_in_links WHERE id = ? AND used_at IS NULL AND expires_at > ?",
            [link_id, now],
        )
        if link is not None:
            self._execute("UPDATE sign_in_links SET used_at = ? WHERE id = ?", [now, link_id])
        return link

    def add_session(self, token_hash: str, player_id: str, now: str) -> None:
        with self.write():
            self._insert(
                "sessions", {"token_hash": token_hash, "player_id": player_id, "created_at": now}
            )

    def session_player(self, token_hash: str) -> Player | None:
        return self._one(
            Player,
            "SELECT players.* FROM sessions JOIN players ON players.id = sessions.player_id"
            " WHERE sessions.token_hash = ? AND sessions.revoked_at IS NULL",
            [token_hash],
        )

    def end_sessions(
        self, now: str, token_hash: str | None = None, player_id: str | None = None
    ) -> None:
        column, value = ("token_hash", token_hash) if token_hash else ("player_id", player_id)
        with self.write():
            self._execute(
                f"UPDATE sessions SET revoked_at = ? WHERE {column} = ? AND revoked_at IS NULL",
                [now, value],
            )

    def add_api_token(self, token_hash: str, player_id: str, name: str, now: str) -> int:
        with self.write():
            return self._execute(
                "INSERT INTO api_tokens (token_hash, player_id, name, created_at)"
                " VALUES (?, ?, ?, ?)",
                [token_hash, player_id, name, now],
            ).lastrowid

    def api_tokens(self, player_id: str) -> list[ApiToken]:
        return self._all(
            ApiToken,
            "SELECT id, name, created_at FROM api_tokens WHERE player_id = ?"
            " AND revoked_at IS NULL ORDER BY id",
            [player_id],
        )

    def revoke_api_token(self, player_id: str, token_id: int, now: str) -> bool:
        if not 0 <= token_id <= MAX_INTEGER:
            return False
        with self.write():
            cursor = self._execute(
                "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND player_id = ?"
                " AND revoked_at IS NULL",
                [now, token_id, player_id],
            )
        return cursor.rowcount > 0

    def api_token_player(self, token_hash: str) -> Player | None:
        return self._one(
            Player,
            "SELECT players.* FROM api_tokens JOIN players ON players.id = api_tokens.player_id"
            " WHERE api_tokens.token_hash = ? AND api_tokens.revoked_at IS NULL",
            [token_hash],
        )

    def tie_seat(self, game_id: str, seat: int, player_id: str) -> None:
        self._update_seat(game_id, seat, {"player_id": player_id})

    def player_games(self, player_id: str) -> list[PlayerGame]:
        return self._with_players(
            PlayerGame,
            f"SELECT {self._LISTED.format(g='g.')}, s.seat AS you,"
            " g.status = 'active' AND EXISTS"
            " (SELECT 1 FROM json_each(g.to_move) WHERE value = s.seat) AS waiting,"
            " m.seq AS last_seq, m.seat AS last_seat,"
            " coalesce(m.description, m.notation) AS last_description, m.at AS last_at"
            " FROM seats AS s JOIN games AS g ON g.id = s.game_id"
            " LEFT JOIN moves AS m ON m.game_id = g.id AND m.seq = g.seq"
            " WHERE s.player_id = ?",
            [player_id],
        )

    def game_states(self, game_ids: list[str]) -> dict[str, Json]:
        rows = self._rows(
            "SELECT id, state FROM games WHERE id IN (SELECT value FROM json_each(?))",
            [json.dumps(game_ids)],
        )
        return {row["id"]: row["state"] for row in rows}

    def player_moved_since(self, player_id: str, cursor: int) -> list[str]:
        return self._values(
            "SELECT DISTINCT game_id FROM seats WHERE player_id = ?"
            " AND game_id IN (SELECT game_id FROM moves WHERE rowid > ?) ORDER BY game_id",
            [player_id, cursor],
        )

    def players_of_games(self, game_ids: list[str]) -> list[tuple[str, str]]:
        return self._conn.execute(
            "SELECT DISTINCT game_id, player_id FROM seats WHERE player_id IS NOT NULL"
            " AND game_id IN (SELECT value FROM json_each(?))",
            [json.dumps(game_ids)],
        ).fetchall()

    # -- the move log -------------------------------------------------------------
    def append_move(self, move: LoggedMove) -> None:
        self._insert("moves", _row_of(move, leave_out=("result",)))

    #: A logged move with ``result``: the game's result on the entry that ended it, else null.
    _LOGGED = (
        "SELECT moves.game_id, moves.seq, moves.seat, moves.kind, moves.move,"
        " moves.public_move, moves.notation, moves.description, moves.to_move, moves.status,"
        " moves.at, CASE WHEN moves.status != 'active' THEN games.result END AS result"
        " FROM moves JOIN games ON games.id = moves.game_id"
    )

    def moves(self, game_id: str, after: int = 0, upto: int | None = None) -> list[LoggedMove]:
        return self._all(
            LoggedMove,
            f"{self._LOGGED} WHERE moves.game_id = ? AND moves.seq > ? AND moves.seq <= ?"
            " ORDER BY moves.seq",
            [game_id, after, MAX_INTEGER if upto is None else upto],
        )

    def logged_moves(
        self, game_id: str, after: int = 0, limit: int | None = None
    ) -> list[LoggedMove]:
        return self._all(
            LoggedMove,
            f"{self._LOGGED} WHERE moves.game_id = ? AND moves.seq > ? ORDER BY moves.seq LIMIT ?",
            [game_id, after, -1 if limit is None else limit],
        )

    def last_move_cursor(self) -> int:
        return self._value("SELECT coalesce(max(rowid), 0) FROM moves")

    def moves_since(self, cursor: int) -> list[tuple[int, LoggedMove]]:
        rows = self._rows(
            self._LOGGED.replace("SELECT ", "SELECT moves.rowid AS cursor, ", 1)
            + " WHERE moves.rowid > ? ORDER BY moves.rowid",
            [cursor],
        )
        return [(row.pop("cursor"), LoggedMove(**row)) for row in rows]

    def ended_games(self, game_ids: list[str]) -> list[EndedGame]:
        return self._all(
            EndedGame,
            "SELECT id, seq, status, result FROM games WHERE status NOT IN ('forming', 'active')"
            " AND id IN (SELECT value FROM json_each(?))",
            [json.dumps(game_ids)],
        )

    # -- idempotency keys ---------------------------------------------------------
    def idempotent_response(self, game_id: str, seat: int, key: str) -> IdempotentAnswer | None:
        return self._one(
            IdempotentAnswer,
            "SELECT request, response FROM idempotency WHERE game_id = ? AND seat = ? AND key = ?",
            [game_id, seat, key],
        )

    def record_response(
        self, game_id: str, seat: int, key: str, request: Json, response: Json
    ) -> None:
        self._insert(
            "idempotency",
            {
                "game_id": game_id,
                "seat": seat,
                "key": key,
                "request": request,
                "response": response,
            },
        )

    # -- table talk -----------------------------------------------------------------
    def add_message(self, message: NewMessage) -> Message:
        number = self._value(
            "SELECT coalesce(max(number), 0) FROM messages WHERE game_id = ? AND thread = ?",
            [message["game_id"], message["thread"]],
        )
        self._insert("messages", {**message, "number": number + 1})
        return self._one(Message, "SELECT * FROM messages WHERE id = last_insert_rowid()")

    def messages_posted_since(self, game_id: str, seat: int, since: str) -> int:
        return self._value(
            "SELECT count(*) FROM messages WHERE game_id = ? AND seat = ? AND at > ?",
            [game_id, seat, since],
        )

    def thread_messages(
        self,
        game_id: str,
        thread: str,
        after: int = 0,
        limit: int = -1,
        hidden: Sequence[int] = (),
        newest: bool = False,
    ) -> list[Message]:
        messages = self._all(
            Message,
            "SELECT * FROM messages WHERE game_id = ? AND thread = ? AND number > ?"
            " AND seat NOT IN (SELECT value FROM json_each(?))"
            f" ORDER BY number {'DESC' if newest else 'ASC'} LIMIT ?",
            [game_id, thread, after, json.dumps(list(hidden)), limit],
        )
        return messages[::-1] if newest else messages

    def last_said(self, seats: Sequence[tuple[str, int]]) -> dict[str, Message]:
        messages = self._all(
            Message,
            "SELECT m.* FROM json_each(?) pair CROSS JOIN messages m"
            " WHERE m.id = (SELECT max(id) FROM messages n"
            " WHERE n.game_id = json_extract(pair.value, '$[0]')"
            " AND n.thread = 'table' AND n.deleted_at IS NULL"
            " AND n.seat != json_extract(pair.value, '$[1]') AND n.seat NOT IN"
            " (SELECT muted_seat FROM talk_mutes t WHERE t.game_id = n.game_id"
            " AND t.seat = json_extract(pair.value, '$[1]')))",
            [json.dumps([list(pair) for pair in seats])],
        )
        return {message.game_id: message for message in messages}

    def message(self, game_id: str, thread: str, number: int) -> Message | None:
        if not 0 <= number <= MAX_INTEGER:
            return None
        return self._one(
            Message,
            "SELECT * FROM messages WHERE game_id = ? AND thread = ? AND number = ?",
            [game_id, thread, number],
        )

    def forget_message_text(self, message_id: int, at: str, by: str) -> bool:
        return bool(
            self._execute(
                "UPDATE messages SET text = NULL, deleted_at = ?, deleted_by = ?"
                " WHERE id = ? AND deleted_at IS NULL",
                [at, by, message_id],
            ).rowcount
        )

    def unmailed_messages(
        self, game_id: str, seat: int, threads: Sequence[str], hidden: Sequence[int]
    ) -> list[Message]:
        return self._all(
            Message,
            "SELECT messages.* FROM messages JOIN seats ON seats.game_id = messages.game_id"
            " AND seats.seat = ? WHERE messages.game_id = ? AND messages.id > seats.talk_mailed"
            " AND messages.thread IN (SELECT value FROM json_each(?)) AND messages.seat != ?"
            " AND messages.deleted_at IS NULL"
            " AND messages.seat NOT IN (SELECT value FROM json_each(?)) ORDER BY messages.id",
            [seat, game_id, json.dumps(list(threads)), seat, json.dumps(list(hidden))],
        )

    def talk_mailed(self, game_id: str, seat: int, upto: int) -> None:
        with self.write():
            self._execute(
                "UPDATE seats SET talk_mailed = max(talk_mailed, ?) WHERE game_id = ? AND seat = ?",
                [upto, game_id, seat],
            )

    def set_muted(self, game_id: str, seat: int, muted_seat: int, muted: bool, at: str) -> None:
        with self.write():
            if muted:
                self._execute(
                    "INSERT OR IGNORE INTO talk_mutes (game_id, seat, muted_seat, created_at)"
                    " VALUES (?, ?, ?, ?)",
                    [game_id, seat, muted_seat, at],
                )
            else:
                self._execute(
                    "DELETE FROM talk_mutes WHERE game_id = ? AND seat = ? AND muted_seat = ?",
                    [game_id, seat, muted_seat],
                )

    def muted_seats(self, game_id: str, seat: int) -> list[int]:
        return self._values(
            "SELECT muted_seat FROM talk_mutes WHERE game_id = ? AND seat = ? ORDER BY muted_seat",
            [game_id, seat],
        )

    def last_message_cursor(self) -> int:
        return self._value("SELECT coalesce(max(id), 0) FROM messages")

    def messages_since(self, cursor: int) -> list[tuple[Message, str]]:
        rows = self._rows(
            "SELECT messages.*, seats.name AS writer FROM messages JOIN seats"
            " ON seats.game_id = messages.game_id AND seats.seat = messages.seat"
            " WHERE messages.id > ? ORDER BY messages.id",
            [cursor],
        )
        messages = []
        for row in rows:
            writer = row.pop("writer")
            messages.append((Message(**row), writer))
        return messages

    # -- mail -----------------------------------------------------------------------
    def mail_generation(self, game_id: str, seat: int) -> int | None:
        return self._value(
            "SELECT mail_generation FROM seats WHERE game_id = ? AND seat = ?", [game_id, seat]
        )

    def revoke_mail_key(self, game_id: str, seat: int) -> int | None:
        with self.write():
            generation = self.mail_generation(game_id, seat)
            if generation is None:
                return None
            self._update_seat(game_id, seat, {"mail_generation": generation + 1})
        return generation + 1

    def queue_mail(self, mail: NewMail) -> None:
        self._insert("outbox", dict(mail))

    def outbox_by_message_id(self, message_id: str) -> OutboxMail | None:
        return self._one(OutboxMail, "SELECT * FROM outbox WHERE message_id = ?", [message_id])

    def claim_inbound(self, message_id: str, game_id: str, seat: int, now: str) -> bool:
        """
        >>> store = SqliteStore.open(":memory:")
        >>> _ = store.init()
        >>> [store.claim_inbound("<m@x>", "g1", 0, "2026-01-01T00:00:00Z") for _ in range(2)]
        [True, False]
        """
        cursor = self._execute(
            "INSERT OR IGNORE INTO inbound (message_id, game_id, seat, handled_at)"
            " VALUES (?, ?, ?, ?)",
            [message_id, game_id, seat, now],
        )
        return cursor.rowcount == 1

    def outbox_count(
        self, since: str | None = None, at_most: int | None = None, **where: Any
    ) -> int:
        """
        >>> store = SqliteStore.open(":memory:")
        >>> _ = store.init()
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
        return self._value(f"SELECT count(*) FROM ({rows})", params)

    def unsent_mail(self, game_id: str, seat: int) -> list[OutboxMail]:
        return self._all(
            OutboxMail,
            "SELECT * FROM outbox WHERE game_id = ? AND seat = ? AND sent_at IS NULL"
            " AND superseded IS NULL ORDER BY id",
            [game_id, seat],
        )

    def claim_due_mail(self, now: str, lease_end: str, limit: int) -> list[OutboxMail]:
        with self.write():
            mails = self._all(
                OutboxMail,
                "SELECT * FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= ?"
                " ORDER BY id LIMIT ?",
                [now, limit],
            )
            for mail in mails:
                self._execute(
                    "UPDATE outbox SET next_attempt_at = ?, attempts = attempts + 1 WHERE id = ?",
                    [lease_end, mail.id],
                )
        return mails

    def mail_sent(
        self, mail_id: int, at: str, subject: str, members: list[int] | None = None
    ) -> None:
        with self.write():
            self._execute(
                "UPDATE outbox SET sent_at = ?, subject = ?, last_error = NULL WHERE id = ?",
                [at, subject, mail_id],
            )
            for member in members or []:
                self._execute(
                    "UPDATE outbox SET sent_at = ?, digest_id = ?, last_error = NULL WHERE id = ?",
                    [at, mail_id, member],
                )

    def mail_superseded(self, mail_id: int, reason: str) -> None:
        with self.write():
            self._execute(
                "UPDATE outbox SET superseded = ?, next_attempt_at = NULL WHERE id = ?",
                [reason, mail_id],
            )

    def give_message_id(self, mail_id: int, message_id: str) -> str:
        with self.write():
            self._execute(
                "UPDATE outbox SET message_id = ? WHERE id = ? AND message_id IS NULL",
                [message_id, mail_id],
            )
            return self._value("SELECT message_id FROM outbox WHERE id = ?", [mail_id])

    def mail_failed(self, mail_id: int, error: str, next_attempt: str | None) -> None:
        with self.write():
            self._execute(
                "UPDATE outbox SET last_error = ?, next_attempt_at = ? WHERE id = ?",
                [error, next_attempt, mail_id],
            )

    def forget_mail_bodies(self, before: str) -> int:
        with self.write():
            return self._execute(
                "UPDATE outbox SET facts = NULL WHERE facts IS NOT NULL AND created_at < ?"
                " AND (sent_at IS NOT NULL OR next_attempt_at IS NULL)",
                [before],
            ).rowcount

    def mail_suppressed(self, rcpt_key: str) -> bool:
        found = self._value(
            "SELECT 1 FROM mail_suppressions WHERE rcpt_hash = ?", [hash_secret(rcpt_key)]
        )
        return found is not None

    def suppress_mail(self, rcpt_key: str, now: str) -> None:
        with self.write():
            self._execute(
                "INSERT OR IGNORE INTO mail_suppressions (rcpt_hash, created_at) VALUES (?, ?)",
                [hash_secret(rcpt_key), now],
            )

    # -- notifications: daily digests and Web Push --------------------------------------
    def digests_due(self, now: str, limit: int) -> list[Player]:
        return self._all(
            Player,
            "SELECT * FROM players WHERE mail_pref = 'digest'"
            " AND (digest_due_at IS NULL OR digest_due_at <= ?) ORDER BY digest_due_at LIMIT ?",
            [now, limit],
        )

    def set_digest_due(self, player_id: str, due: str) -> None:
        self._execute("UPDATE players SET digest_due_at = ? WHERE id = ?", [due, player_id])

    def waiting_seats(self, player_id: str, limit: int) -> list[Seat]:
        return self._all(
            Seat,
            "SELECT seats.* FROM seats JOIN games ON games.id = seats.game_id"
            " WHERE seats.player_id = ? AND games.status = 'active'"
            " AND seats.mail_stopped_at IS NULL"
            " AND EXISTS (SELECT 1 FROM json_each(games.to_move) WHERE value = seats.seat)"
            " ORDER BY games.deadline IS NULL, games.deadline, games.updated_at LIMIT ?",
            [player_id, limit],
        )

    def add_push_subscription(self, subscription: NewSubscription, keep: int) -> int:
        with self.write():
            for old in self._values(
                "SELECT id FROM push_subscriptions WHERE endpoint = ?", [subscription["endpoint"]]
            ):
                self._forget_subscription(old)
            new_id = self._insert("push_subscriptions", dict(subscription))
            for extra in self._values(
                "SELECT id FROM push_subscriptions WHERE player_id = ? ORDER BY id DESC"
                " LIMIT -1 OFFSET ?",
                [subscription["player_id"], keep],
            ):
                self._forget_subscription(extra)
        return new_id

    def push_subscriptions(self, player_id: str) -> list[PushSubscription]:
        return self._all(
            PushSubscription,
            "SELECT id, endpoint, created_at FROM push_subscriptions WHERE player_id = ?"
            " ORDER BY id",
            [player_id],
        )

    def remove_push_subscription(self, subscription_id: int, player_id: str | None = None) -> bool:
        if not 0 <= subscription_id <= MAX_INTEGER:
            return False
        with self.write():
            found = self._value(
                "SELECT id FROM push_subscriptions"
                " WHERE id = ? AND player_id = coalesce(?, player_id)",
                [subscription_id, player_id],
            )
            if found is not None:
                self._forget_subscription(subscription_id)
        return found is not None

    def _forget_subscription(self, subscription_id: int) -> None:
        """Delete a push subscription and its pushes (inside :meth:`write`)."""
        self._execute("DELETE FROM pushes WHERE subscription_id = ?", [subscription_id])
        self._execute("DELETE FROM push_subscriptions WHERE id = ?", [subscription_id])

    def queue_pushes(self, player_id: str, push: NewPush) -> int:
        subscriptions = self._values(
            "SELECT id FROM push_subscriptions WHERE player_id = ?", [player_id]
        )
        for subscription in subscriptions:
            self._execute(
                "DELETE FROM pushes WHERE subscription_id = ? AND game_id = ? AND seat = ?",
                [subscription, push["game_id"], push["seat"]],
            )
            self._insert("pushes", {**push, "subscription_id": subscription})
        return len(subscriptions)

    def claim_due_pushes(self, now: str, lease_end: str, limit: int) -> list[ClaimedPush]:
        with self.write():
            pushes = self._all(
                ClaimedPush,
                "SELECT pushes.*, s.endpoint, s.p256dh, s.auth FROM pushes"
                " JOIN push_subscriptions s ON s.id = pushes.subscription_id"
                " WHERE pushes.next_attempt_at <= ? ORDER BY pushes.id LIMIT ?",
                [now, limit],
            )
            for push in pushes:
                self._execute(
                    "UPDATE pushes SET next_attempt_at = ?, attempts = attempts + 1 WHERE id = ?",
                    [lease_end, push.id],
                )
        return pushes

    def push_retry(self, push_id: int, next_attempt: str | None) -> None:
        with self.write():
            if next_attempt is None:
                self._execute("DELETE FROM pushes WHERE id = ?", [push_id])
            else:
                self._execute(
                    "UPDATE pushes SET next_attempt_at = ? WHERE id = ?", [next_attempt, push_id]
                )

    # -- webhooks -------------------------------------------------------------------
    def add_webhook(self, game_id: str, url: str, now: str) -> int:
        with self.write():
            return self._insert("webhooks", {"game_id": game_id, "url": url, "created_at": now})

    def webhooks(self, game_id: str) -> list[Webhook]:
        return self._all(
            Webhook,
            "SELECT id, url, created_at FROM webhooks WHERE game_id = ? AND removed_at IS NULL"
            " ORDER BY id",
            [game_id],
        )

    def remove_webhook(self, game_id: str, webhook_id: int, now: str) -> bool:
        if not 0 <= webhook_id <= MAX_INTEGER:
            return False
        with self.write():
            return bool(
                self._execute(
                    "UPDATE webhooks SET removed_at = ? WHERE id = ? AND game_id = ?"
                    " AND removed_at IS NULL",
                    [now, webhook_id, game_id],
                ).rowcount
            )

    def queue_webhooks(
        self, game_id: str, event: str, seq: int, body: Json, now: str, max_pending: int
    ) -> None:
        hooks = self._values(
            "SELECT id FROM webhooks WHERE game_id = ? AND removed_at IS NULL", [game_id]
        )
        for hook in hooks:
            missed_from, missed_to = self._drop_backlog(hook, max_pending)
            self._insert(
                "webhook_deliveries",
                {
                    "webhook_id": hook,
                    "event": event,
                    "seq": seq,
                    "body": body,
                    "created_at": now,
                    "next_attempt_at": now,
                    "missed_from_seq": missed_from,
                    "missed_to_seq": missed_to,
                },
            )

    def _drop_backlog(self, webhook_id: int, max_pending: int) -> tuple[int | None, int | None]:
        """Delete a webhook's pending ``move`` deliveries if it has ``max_pending`` pending.

        Returns the lowest and highest seq they spanned, ``(None, None)`` if none went.
        """
        pending = "webhook_id = ? AND delivered_at IS NULL AND next_attempt_at IS NOT NULL"
        count = self._value(
            f"SELECT count(*) FROM webhook_deliveries WHERE {pending}", [webhook_id]
        )
        if count < max_pending:
            return None, None
        dropped = self._conn.execute(
            f"DELETE FROM webhook_deliveries WHERE {pending} AND event = 'move'"
            " RETURNING seq, missed_from_seq, missed_to_seq",
            [webhook_id],
        ).fetchall()
        seqs = [seq for row in dropped for seq in row if seq is not None]
        return (min(seqs), max(seqs)) if seqs else (None, None)

    def claim_due_webhooks(
        self, now: str, lease_end: str, limit: int, per_webhook: int
    ) -> list[ClaimedDelivery]:
        with self.write():
            deliveries = self._all(
                ClaimedDelivery,
                "SELECT d.*, w.url, w.game_id, w.removed_at FROM ("
                " SELECT webhook_deliveries.id,"
                "  row_number() OVER (PARTITION BY game_id ORDER BY webhook_deliveries.id)"
                "   AS game_turn,"
                "  row_number() OVER (PARTITION BY webhook_id ORDER BY webhook_deliveries.id)"
                "   AS hook_turn"
                "  FROM webhook_deliveries JOIN webhooks ON webhooks.id = webhook_id"
                "  WHERE delivered_at IS NULL AND next_attempt_at <= ?"
                "  AND (resting_until IS NULL OR resting_until <= ?)) AS due"
                " JOIN webhook_deliveries AS d ON d.id = due.id"
                " JOIN webhooks AS w ON w.id = d.webhook_id"
                " WHERE due.hook_turn <= ? ORDER BY due.game_turn, due.id LIMIT ?",
                [now, now, per_webhook, limit],
            )
            for delivery in deliveries:
                self._execute(
                    "UPDATE webhook_deliveries SET next_attempt_at = ?, attempts = attempts + 1"
                    " WHERE id = ?",
                    [lease_end, delivery.id],
                )
        return deliveries

    def webhook_delivered(self, delivery_id: int, at: str, status: int) -> None:
        with self.write():
            self._execute(
                "UPDATE webhook_deliveries SET delivered_at = ?, last_status = ?,"
                " last_error = NULL WHERE id = ?",
                [at, status, delivery_id],
            )
            self._rest_webhook(delivery_id, None)

    def webhook_failed(
        self, delivery_id: int, error: str, next_attempt: str | None, status: int | None
    ) -> None:
        with self.write():
            self._execute(
                "UPDATE webhook_deliveries SET last_error = ?, next_attempt_at = ?,"
                " last_status = ? WHERE id = ?",
                [error, next_attempt, status, delivery_id],
            )
            if next_attempt is not None:
                self._rest_webhook(delivery_id, next_attempt)

    def _rest_webhook(self, delivery_id: int, until: str | None) -> None:
        """Set ``resting_until`` of the webhook of a delivery."""
        self._execute(
            "UPDATE webhooks SET resting_until = ?"
            " WHERE id = (SELECT webhook_id FROM webhook_deliveries WHERE id = ?)",
            [until, delivery_id],
        )

    def webhook_deliveries(self, game_id: str) -> list[WebhookDelivery]:
        return self._all(
            WebhookDelivery,
            "SELECT webhook_deliveries.* FROM webhook_deliveries JOIN webhooks"
            " ON webhooks.id = webhook_id WHERE webhooks.game_id = ?"
            " ORDER BY webhook_deliveries.id",
            [game_id],
        )

    # -- the operator's page ----------------------------------------------------------
    def find_games(self, text: str, limit: int) -> list[AdminGame]:
        return self._with_players(
            AdminGame,
            f"SELECT {self._LISTED.format(g='')}, hidden_at FROM games"
            " WHERE ? = '' OR substr(id, 1, length(?)) = ? OR engine = ? OR id IN"
            " (SELECT game_id FROM seats WHERE instr(lower(name), lower(?)) > 0)"
            " ORDER BY rowid DESC LIMIT ?",
            [text, text, text, text, text, limit],
        )

    def mail_problems(self, limit: int) -> list[OutboxMail]:
        return self._all(
            OutboxMail,
            "SELECT * FROM outbox WHERE sent_at IS NULL AND superseded IS NULL"
            " AND last_error IS NOT NULL ORDER BY id DESC LIMIT ?",
            [limit],
        )

    def withheld_mail(self, limit: int) -> list[OutboxMail]:
        return self._all(
            OutboxMail,
            "SELECT * FROM outbox WHERE superseded IS NOT NULL ORDER BY id DESC LIMIT ?",
            [limit],
        )

    def retry_mail(self, mail_id: int, now: str) -> bool:
        with self.write():
            return bool(
                self._execute(
                    "UPDATE outbox SET next_attempt_at = ?, attempts = 0"
                    " WHERE id = ? AND sent_at IS NULL AND superseded IS NULL",
                    [now, min(mail_id, MAX_INTEGER)],
                ).rowcount
            )

    def suppression_count(self) -> int:
        return self._value("SELECT count(*) FROM mail_suppressions")

    def lift_suppression(self, rcpt_key: str) -> bool:
        with self.write():
            return bool(
                self._execute(
                    "DELETE FROM mail_suppressions WHERE rcpt_hash = ?", [hash_secret(rcpt_key)]
                ).rowcount
            )

    def failing_webhooks(self, limit: int) -> list[FailingDelivery]:
        return self._all(
            FailingDelivery,
            "SELECT webhook_deliveries.*, webhooks.url, webhooks.game_id FROM webhook_deliveries"
            " JOIN webhooks ON webhooks.id = webhook_id WHERE delivered_at IS NULL"
            " AND last_error IS NOT NULL ORDER BY webhook_deliveries.id DESC LIMIT ?",
            [limit],
        )

    # -- plain SQL on the connection (no introspection per call: these run on the hot path) --
    def _execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self._conn.execute(sql, params)

    def _insert(self, table: str, row: dict[str, Any]) -> int:
        """Insert ``row`` (its JSON columns encoded here); its rowid."""
        encoded = _encode(row)
        columns = ", ".join(encoded)
        marks = ", ".join("?" for _ in encoded)
        sql = f"INSERT INTO {table} ({columns}) VALUES ({marks})"
        return self._conn.execute(sql, list(encoded.values())).lastrowid

    def _update(self, table: str, values: Any, where: str, params: list[Any]) -> int:
        """Set ``values`` (JSON columns encoded here) on the rows ``where`` picks; how many."""
        encoded = _encode(dict(values))
        assignments = ", ".join(f"{column} = ?" for column in encoded)
        sql = f"UPDATE {table} SET {assignments} WHERE {where}"
        return self._conn.execute(sql, [*encoded.values(), *params]).rowcount

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """The rows ``sql`` reads, as dicts by column name, decoded."""
        cursor = self._conn.execute(sql, params)
        names = [column[0] for column in cursor.description]
        return [_decode(dict(zip(names, row, strict=True))) for row in cursor.fetchall()]

    def _all(self, kind: type[R], sql: str, params: Sequence[Any] = ()) -> list[R]:
        return [kind(**row) for row in self._rows(sql, params)]

    def _one(self, kind: type[R], sql: str, params: Sequence[Any] = ()) -> R | None:
        rows = self._rows(sql, params)
        return kind(**rows[0]) if rows else None

    def _value(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row ``sql`` reads, or ``None``."""
        row = self._conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def _values(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The first column of every row ``sql`` reads."""
        return [row[0] for row in self._conn.execute(sql, params).fetchall()]
