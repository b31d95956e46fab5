"""The SQLite store: games, seats, the append-only move log, idempotency keys, mail.

One SQLite file in WAL mode (``TURNPOST_DB``, default ``./turnpost.db``),
opened with sqlite-utils. The move log cannot be rewritten: triggers in the
database abort any UPDATE or DELETE on ``moves``, and any INSERT of a
``(game_id, seq)`` already logged, so ``INSERT OR REPLACE`` and ``REPLACE``
(whose implicit delete fires no DELETE trigger) cannot rewrite it either.
The triggers live in the schema, so they hold for every connection, the
``sqlite3`` shell's too. The schema is built and upgraded by the ordered
migrations of :mod:`server.store.migrations`. The database holds hands, draw orders, seeds and
emails: it is created readable by its owner only (0600), and so are the
WAL and shared-memory files SQLite makes beside it (SQLite gives them the
database file's mode). Deleted content is overwritten (``secure_delete``): a
message the host deleted leaves no text in the file.

    >>> store = Store.open(":memory:")
    >>> store.init()
    SchemaChange(before=0, after=17, created=True)
    >>> print(" ".join(sorted(store.db.table_names())))  # doctest: +NORMALIZE_WHITESPACE
    _sqlite_migrations api_tokens created_pages games idempotency inbound mail_suppressions
    messages moves outbox players push_subscriptions pushes seat_tokens seats sessions
    sign_in_links talk_mutes webhook_deliveries webhooks
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import sqlite_utils

from server.store.migrations import SchemaChange, migrate

BUSY_TIMEOUT_MS = 10_000
_WRITER_LOCKS: dict[str, threading.Lock] = {}

#: Owner read and write only: the database holds hands, seeds and emails.
DB_FILE_MODE = 0o600
#: SQLite's largest integer: a larger id names no row (and would not bind).
MAX_INTEGER = 2**63 - 1


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
    """A connection to the Turnpost database: every query Turnpost runs, each by its name.

    This is the only class that runs SQL, and its operations are the seam a
    second backend (PostgreSQL) will plug into: the rest of the server calls
    these and nothing else (as boardgame.io's storage interface names its
    operations). Those marked *in a write* expect the caller's :meth:`write`
    block, so that a move, its snapshot and its mails land together.

    - connection: :meth:`open`, :meth:`close`, :meth:`init` (create or
      migrate the schema), :meth:`write` (a transaction; writers queue);
    - games and seats: :meth:`create_game`*, :meth:`game`, :meth:`game_exists`,
      :meth:`update_game`*, :meth:`set_reminders`*, :meth:`timed_games`,
      :meth:`games_page`, :meth:`seats`, :meth:`seat`,
      :meth:`make_seat_private`*, :meth:`seat_reissued`*, :meth:`mark_acted`*,
      :meth:`set_vacation`*, :meth:`stop_mail`*;
    - tables (games forming before they start): :meth:`open_tables`, :meth:`lobby_games`,
      :meth:`expired_tables`, :meth:`rematch_of`, :meth:`update_seat`*,
      :meth:`renumber_seats`*, :meth:`mailed_seats`;
    - seat tokens: :meth:`seat_by_token`, :meth:`seat_of_token`, :meth:`seat_token`,
      :meth:`add_seat_token`*, :meth:`revoke_seat_tokens`*, :meth:`drop_seat_tokens`*,
      :meth:`seat_tokens_since`; a creator's page: :meth:`add_created_page`,
      :meth:`created_page`, :meth:`forget_created_page`;
    - players: :meth:`add_player`*, :meth:`player`, :meth:`player_by_email_key`,
      :meth:`update_player`, :meth:`add_sign_in_link`*, :meth:`sign_in_links_since`,
      :meth:`use_sign_in_link`*, :meth:`add_session`, :meth:`session_player`,
      :meth:`end_sessions`, :meth:`add_api_token`, :meth:`api_tokens`,
      :meth:`revoke_api_token`, :meth:`api_token_player`, :meth:`tie_seat`*;
      a player's games: :meth:`player_games`, :meth:`game_states`, :meth:`players_of_games`,
      :meth:`player_moved_since`;
    - the move log (append-only): :meth:`append_move`*, :meth:`moves`, :meth:`logged_moves`, and
      for event feeds :meth:`last_move_cursor`, :meth:`moves_since`,
      :meth:`ended_games`, :meth:`data_version`;
    - idempotency keys: :meth:`idempotent_response`, :meth:`record_response`*;
    - table talk: :meth:`add_message`*, :meth:`messages_posted_since`, :meth:`thread_messages`,
      :meth:`message`, :meth:`forget_message_text`*, :meth:`unmailed_messages`,
      :meth:`talk_mailed`, :meth:`set_muted`, :meth:`muted_seats`, and for event feeds
      :meth:`last_message_cursor`, :meth:`messages_since`;
    - mail: :meth:`mail_generation`, :meth:`revoke_mail_key`,
      :meth:`queue_mail`*, :meth:`outbox_by_message_id`,
      :meth:`claim_inbound`*, :meth:`outbox_count`, :meth:`unsent_mail`,
      :meth:`claim_due_mail`,
      :meth:`give_message_id`, :meth:`mail_sent`, :meth:`mail_superseded`,
      :meth:`mail_failed`, :meth:`forget_mail_bodies`,
      :meth:`mail_suppressed`, :meth:`suppress_mail`;
    - notifications: :meth:`digests_due`, :meth:`set_digest_due`*, :meth:`waiting_seats`,
      :meth:`add_push_subscription`, :meth:`push_subscriptions`,
      :meth:`remove_push_subscription`, :meth:`queue_pushes`*, :meth:`claim_due_pushes`,
      :meth:`push_retry`;
    - webhooks: :meth:`add_webhook`, :meth:`webhooks`, :meth:`remove_webhook`,
      :meth:`queue_webhooks`*, :meth:`claim_due_webhooks`, :meth:`webhook_delivered`,
      :meth:`webhook_failed`, :meth:`webhook_deliveries`.

    (* in a write.) Rows come back as dicts keyed by column name; moments are
    ISO 8601 strings (:mod:`server.games.clock`), JSON columns canonical text
    (:func:`dumps`).
    """

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
        conn.execute("PRAGMA secure_delete = ON")  # what is deleted is overwritten, not left
        return cls(sqlite_utils.Database(conn), path)

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def init(self) -> SchemaChange:
        """Create the schema, or migrate it to the latest version (:mod:`server.store.migrations`).

        Also switches the database to WAL. Returns what changed.
        """
        if self.db.conn.execute("PRAGMA journal_mode").fetchone()[0] != "memory":
            self._use_wal()
        with self.write():
            return migrate(self.db)

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
                self.db.conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

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

    # -- games and seats -------------------------------------------------------
    def create_game(self, game: dict[str, Any], seats: list[dict[str, Any]]) -> None:
        """Insert a ``games`` row and its ``seats`` rows (call inside :meth:`write`)."""
        self._insert("games", game)
        for seat in seats:
            self._insert("seats", seat)

    def game(self, game_id: str) -> dict[str, Any] | None:
        """The ``games`` row of ``game_id``, or ``None``."""
        return self._one("SELECT * FROM games WHERE id = ?", [game_id])

    def game_exists(self, game_id: str) -> bool:
        """Whether there is a game ``game_id``."""
        return self._one("SELECT 1 AS yes FROM games WHERE id = ?", [game_id]) is not None

    def update_game(self, game_id: str, values: dict[str, Any]) -> None:
        """Set ``values`` on the ``games`` row of ``game_id`` (call inside :meth:`write`)."""
        assignments = ", ".join(f"{column} = ?" for column in values)
        self.db.execute(f"UPDATE games SET {assignments} WHERE id = ?", [*values.values(), game_id])

    def set_reminders(self, game_id: str, seq: int, bits: int) -> bool:
        """Record the reminders sent for the turn after move ``seq`` (call inside :meth:`write`).

        Whether anything changed: nothing does if the game moved on since
        ``seq`` or already had these reminders.
        """
        return bool(
            self.db.execute(
                "UPDATE games SET reminders_sent = ? WHERE id = ? AND seq = ?"
                " AND reminders_sent != ?",
                [bits, game_id, seq, bits],
            ).rowcount
        )

    def timed_games(self) -> list[dict[str, Any]]:
        """Ids of the running games that have a turn deadline."""
        return self._all(
            "SELECT id FROM games WHERE status = 'active' AND deadline IS NOT NULL"
            " ORDER BY deadline"
        )

    def games_page(
        self,
        engine: str | None,
        status: str | None,
        seat: tuple[str, int, bool] | None,
        before: int | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        """Up to ``limit`` games, newest first, each with its ``cursor`` and ``players`` (seats).

        Filters: ``engine``, ``status``; ``seat`` = ``(game_id, seat, waiting)``
        keeps that game only if it waits (``waiting`` true) or does not wait
        for that seat (else games their host hid are left out); ``before``: only
        games older than that cursor.
        """
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
        games = self._all(
            "SELECT rowid AS cursor, id, engine, status, seq, to_move, result, deadline, seeded,"
            " position IS NOT NULL AS from_position, created_at, updated_at, forming_until"
            " FROM games"
            f" WHERE {where} ORDER BY rowid DESC LIMIT ?",
            [*params, limit],
        )
        return self._with_players(games)

    def _with_players(self, games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``games`` rows, each with ``players``: what a list shows of its seats (``seat``,
        ``name``, ``private_at``, ``reissued_at``, ``player_id``, ``joined_at``) in seat order."""
        players: dict[str, list[dict[str, Any]]] = {game["id"]: [] for game in games}
        seats = self._all(
            "SELECT game_id, seat, name, private_at, reissued_at, player_id, joined_at FROM seats"
            " WHERE game_id IN (SELECT value FROM json_each(?)) ORDER BY game_id, seat",
            [json.dumps(list(players))],
        )
        for seat in seats:
            players[seat["game_id"]].append(seat)
        return [{**game, "players": players[game["id"]]} for game in games]

    # -- tables: games that form before they start -----------------------------------
    def open_tables(self, now: str, limit: int) -> list[dict[str, Any]]:
        """Forming tables with an open seat, neither hidden nor expired at ``now``, newest
        first, with ``players``."""
        tables = self._all(
            "SELECT id, engine, options, seeded, position IS NOT NULL AS from_position,"
            " turn_hours, deadline_policy, seating, created_at, forming_until FROM games"
            " WHERE status = 'forming' AND hidden_at IS NULL AND forming_until > ?"
            " AND EXISTS (SELECT 1 FROM seats WHERE game_id = games.id AND name = '')"
            " ORDER BY created_at DESC LIMIT ?",
            [now, limit],
        )
        return self._with_players(tables)

    def lobby_games(self, player_id: str, limit: int) -> list[dict[str, Any]]:
        """The games ``player_id`` sits at or created, last changed first, with ``players``."""
        games = self._all(
            "SELECT id, engine, status, seq, to_move, updated_at, creator_id FROM games"
            " WHERE id IN (SELECT game_id FROM seats WHERE player_id = ?"
            " UNION SELECT id FROM games WHERE creator_id = ?)"
            " ORDER BY updated_at DESC LIMIT ?",
            [player_id, player_id, limit],
        )
        return self._with_players(games)

    def expired_tables(self, now: str) -> list[str]:
        """Ids of the forming tables whose time to fill ran out by ``now``."""
        rows = self._all(
            "SELECT id FROM games WHERE status = 'forming' AND forming_until <= ?", [now]
        )
        return [row["id"] for row in rows]

    def rematch_of(self, game_id: str) -> str | None:
        """The id of the rematch of ``game_id``, or ``None``."""
        row = self._one("SELECT id FROM games WHERE rematch_of = ?", [game_id])
        return None if row is None else row["id"]

    def update_seat(self, game_id: str, seat: int, values: dict[str, Any]) -> bool:
        """Set ``values`` on one seat (call inside :meth:`write`); whether it exists."""
        assignments = ", ".join(f"{column} = ?" for column in values)
        cursor = self.db.execute(
            f"UPDATE seats SET {assignments} WHERE game_id = ? AND seat = ?",
            [*values.values(), game_id, seat],
        )
        return cursor.rowcount == 1

    #: The tables whose rows belong to one seat of a game (``game_id``, ``seat``).
    SEAT_TABLES = ("seats", "seat_tokens", "outbox", "inbound", "idempotency")

    def renumber_seats(self, game_id: str, order: list[int]) -> None:
        """Move seat ``n`` of ``game_id`` to seat ``order[n]`` in every table of seats (in a write).

        Every seat's reply key and mail links are renewed too (a new key
        generation, above every earlier one): a mail sent before named the old
        seat numbers.
        """
        shift = len(order) + 1000
        for table in self.SEAT_TABLES:
            self.db.execute(
                f"UPDATE {table} SET seat = seat + ? WHERE game_id = ?", [shift, game_id]
            )
            self.db.execute(
                f"UPDATE {table} SET seat = json_extract(?, '$[' || (seat - ?) || ']')"
                " WHERE game_id = ? AND seat >= ?",
                [json.dumps(order), shift, game_id, shift],
            )
        self.db.execute(
            "UPDATE seats SET mail_generation = 1 + (SELECT max(mail_generation) FROM seats"
            " WHERE game_id = ?) WHERE game_id = ?",
            [game_id, game_id],
        )

    def mailed_seats(self, game_id: str) -> set[int]:
        """The seats of ``game_id`` that have mail in the outbox (queued or sent)."""
        rows = self._all("SELECT DISTINCT seat FROM outbox WHERE game_id = ?", [game_id])
        return {row["seat"] for row in rows}

    def seats(self, game_id: str) -> list[dict[str, Any]]:
        """The seats of a game in seat order."""
        return self._all("SELECT * FROM seats WHERE game_id = ? ORDER BY seat", [game_id])

    def seat_by_token(self, game_id: str, token: str) -> int | None:
        """The seat a live token lets in in this game, or ``None``."""
        row = self._one(
            "SELECT seat FROM seat_tokens WHERE game_id = ? AND token_hash = ?"
            " AND revoked_at IS NULL",
            [game_id, hash_secret(token)],
        )
        return None if row is None else row["seat"]

    def seat_of_token(self, token: str) -> dict[str, Any] | None:
        """``{"game_id", "seat"}`` of a live seat token in any game, or ``None``."""
        return self._one(
            "SELECT game_id, seat FROM seat_tokens WHERE token_hash = ? AND revoked_at IS NULL",
            [hash_secret(token)],
        )

    def seat_token(self, game_id: str, token: str) -> dict[str, Any] | None:
        """The ``seat_tokens`` row of ``token`` in this game, live or revoked, or ``None``."""
        return self._one(
            "SELECT * FROM seat_tokens WHERE game_id = ? AND token_hash = ?",
            [game_id, hash_secret(token)],
        )

    def add_seat_token(self, game_id: str, seat: int, token: str, kind: str, at: str) -> None:
        """Let ``token`` (stored hashed) in as ``seat``: ``kind`` says who saw it (in a write)."""
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
        """Stop the live tokens of ``kinds`` of a seat at ``at``, saying ``why`` (in a write)."""
        marks = ", ".join("?" for _ in kinds)
        self.db.execute(
            "UPDATE seat_tokens SET revoked_at = ?, revoked_why = ? WHERE game_id = ?"
            f" AND seat = ? AND revoked_at IS NULL AND kind IN ({marks})",
            [at, why, game_id, seat, *kinds],
        )

    def drop_seat_tokens(self, game_id: str, seat: int, kind: str, keep: int) -> None:
        """Forget all but the newest ``keep`` live tokens of ``kind`` of a seat (in a write)."""
        self.db.execute(
            "DELETE FROM seat_tokens WHERE token_hash IN (SELECT token_hash FROM seat_tokens"
            " WHERE game_id = ? AND seat = ? AND kind = ? AND revoked_at IS NULL"
            " ORDER BY created_at DESC, rowid DESC LIMIT -1 OFFSET ?)",
            [game_id, seat, kind, keep],
        )

    def seat_tokens_since(self, game_id: str, kind: str, since: str) -> int:
        """How many tokens of ``kind`` the game's seats were given since ``since``."""
        row = self._one(
            "SELECT count(*) AS n FROM seat_tokens WHERE game_id = ? AND kind = ?"
            " AND created_at > ?",
            [game_id, kind, since],
        )
        return row["n"] if row else 0

    def make_seat_private(self, game_id: str, seat: int, at: str) -> None:
        """Record that the seat's player replaced its handed token at ``at`` (in a write)."""
        self.db.execute(
            "UPDATE seats SET private_at = ? WHERE game_id = ? AND seat = ?", [at, game_id, seat]
        )

    def seat_reissued(self, game_id: str, seat: int, at: str) -> None:
        """Record a reissue at ``at``: the seat is not private, its passes void, and it is no
        player's seat any more, nor taken at a forming table (whoever follows the new link
        takes it); in a write."""
        self.db.execute(
            "UPDATE seats SET reissued_at = ?, passes_revoked_at = ?, private_at = NULL,"
            " player_id = NULL, joined_at = NULL WHERE game_id = ? AND seat = ?",
            [at, at, game_id, seat],
        )

    def seat(self, game_id: str, seat: int) -> dict[str, Any] | None:
        """The ``seats`` row of one seat, or ``None``."""
        return self._one("SELECT * FROM seats WHERE game_id = ? AND seat = ?", [game_id, seat])

    # -- players ----------------------------------------------------------------------
    def add_player(self, player: dict[str, Any]) -> None:
        """Insert a ``players`` row (call inside :meth:`write`)."""
        self._insert("players", player)

    def player(self, player_id: str) -> dict[str, Any] | None:
        """The ``players`` row of ``player_id``, or ``None``."""
        return self._one("SELECT * FROM players WHERE id = ?", [player_id])

    def player_by_email_key(self, email_key: str) -> dict[str, Any] | None:
        """The player whose address reaches the mailbox ``email_key``, or ``None``."""
        return self._one("SELECT * FROM players WHERE email_key = ?", [email_key])

    def update_player(self, player_id: str, values: dict[str, Any]) -> None:
        """Set a player's ``name``, ``time_zone``, ``language`` or ``mail_pref``."""
        with self.write():
            self.db["players"].update(player_id, values)

    def add_sign_in_link(self, link: dict[str, Any]) -> None:
        """Insert a ``sign_in_links`` row (call inside :meth:`write`)."""
        self._insert("sign_in_links", link)

    def sign_in_links_since(self, since: str, **where: str) -> int:
        """How many sign-in links were asked for since ``since`` by ``email_key`` or ``client``."""
        [(column, value)] = where.items()
        if column not in ("email_key", "client"):
            raise ValueError(column)
        row = self._one(
            f"SELECT count(*) AS n FROM sign_in_links WHERE {column} = ? AND created_at > ?",
            [value, since],
        )
        return row["n"] if row else 0

    def use_sign_in_link(self, link_id: str, now: str) -> dict[str, Any] | None:
        """Mark a sign-in link used at ``now``: its row if it was unused and unexpired, else
        ``None`` (in a write: of two uses at once, one wins)."""
        row = self._one(
            "SELECT * FROM sign_in_links WHERE id = ? AND used_at IS NULL AND expires_at > ?",
            [link_id, now],
        )
        if row is not None:
            self.db.execute("UPDATE sign_in_links SET used_at = ? WHERE id = ?", [now, link_id])
        return row

    def add_session(self, token_hash: str, player_id: str, now: str) -> None:
        """Open a session (its token's hash) for ``player_id``."""
        with self.write():
            self._insert(
                "sessions", {"token_hash": token_hash, "player_id": player_id, "created_at": now}
            )

    def session_player(self, token_hash: str) -> dict[str, Any] | None:
        """The player of a live session, or ``None``."""
        return self._one(
            "SELECT players.* FROM sessions JOIN players ON players.id = sessions.player_id"
            " WHERE sessions.token_hash = ? AND sessions.revoked_at IS NULL",
            [token_hash],
        )

    def end_sessions(
        self, now: str, token_hash: str | None = None, player_id: str | None = None
    ) -> None:
        """End one session (``token_hash``) or every session of ``player_id``."""
        column, value = ("token_hash", token_hash) if token_hash else ("player_id", player_id)
        with self.write():
            self.db.execute(
                f"UPDATE sessions SET revoked_at = ? WHERE {column} = ? AND revoked_at IS NULL",
                [now, value],
            )

    def add_api_token(self, token_hash: str, player_id: str, name: str, now: str) -> int:
        """Give ``player_id`` a personal API token (its hash) named ``name``; its id."""
        with self.write():
            return (
                self.db["api_tokens"]
                .insert(
                    {
                        "token_hash": token_hash,
                        "player_id": player_id,
                        "name": name,
                        "created_at": now,
                    }
                )
                .last_pk
            )

    def api_tokens(self, player_id: str) -> list[dict[str, Any]]:
        """A player's live API tokens (``id``, ``name``, ``created_at``), oldest first."""
        return self._all(
            "SELECT id, name, created_at FROM api_tokens WHERE player_id = ?"
            " AND revoked_at IS NULL ORDER BY id",
            [player_id],
        )

    def revoke_api_token(self, player_id: str, token_id: int, now: str) -> bool:
        """Revoke one of ``player_id``'s API tokens; whether it was live."""
        with self.write():
            cursor = self.db.execute(
                "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND player_id = ?"
                " AND revoked_at IS NULL",
                [now, token_id, player_id],
            )
        return cursor.rowcount > 0

    def api_token_player(self, token_hash: str) -> dict[str, Any] | None:
        """The player of a live API token, or ``None``."""
        return self._one(
            "SELECT players.* FROM api_tokens JOIN players ON players.id = api_tokens.player_id"
            " WHERE api_tokens.token_hash = ? AND api_tokens.revoked_at IS NULL",
            [token_hash],
        )

    def tie_seat(self, game_id: str, seat: int, player_id: str) -> None:
        """Make ``seat`` of ``game_id`` a seat of ``player_id`` (call inside :meth:`write`)."""
        self.db.execute(
            "UPDATE seats SET player_id = ? WHERE game_id = ? AND seat = ?",
            [player_id, game_id, seat],
        )

    def player_games(self, player_id: str) -> list[dict[str, Any]]:
        """Every game with a seat of ``player_id``: one row per such seat, without state.

        Each row is a listed ``games`` row (as :meth:`games_page`'s) with
        ``you`` (the seat), ``waiting`` (the game is running and waits for
        it), its last log entry (``last_seq``, ``last_seat``,
        ``last_description``, ``last_at``: null before the first) and
        ``players``. Found through the seats' ``player_id`` index, each game
        and its last entry by key: the cost grows with the player's games,
        never with the database.
        """
        games = self._all(
            "SELECT g.id, g.engine, g.status, g.seq, g.to_move, g.result, g.deadline, g.seeded,"
            " g.position IS NOT NULL AS from_position, g.created_at, g.updated_at,"
            " g.forming_until, s.seat AS you, g.status = 'active' AND EXISTS"
            " (SELECT 1 FROM json_each(g.to_move) WHERE value = s.seat) AS waiting,"
            " m.seq AS last_seq, m.seat AS last_seat,"
            " coalesce(m.description, m.notation) AS last_description, m.at AS last_at"
            " FROM seats AS s JOIN games AS g ON g.id = s.game_id"
            " LEFT JOIN moves AS m ON m.game_id = g.id AND m.seq = g.seq"
            " WHERE s.player_id = ?",
            [player_id],
        )
        return self._with_players(games)

    def game_states(self, game_ids: list[str]) -> dict[str, str]:
        """The stored ``state`` (JSON text) of each of ``game_ids``, by game id."""
        rows = self._all(
            "SELECT id, state FROM games WHERE id IN (SELECT value FROM json_each(?))",
            [json.dumps(game_ids)],
        )
        return {row["id"]: row["state"] for row in rows}

    def player_moved_since(self, player_id: str, cursor: int) -> list[str]:
        """The games of ``player_id`` with a move logged after ``cursor`` (a
        :meth:`last_move_cursor`). Reads every move logged since, so keep ``cursor`` recent."""
        rows = self._all(
            "SELECT DISTINCT game_id FROM seats WHERE player_id = ?"
            " AND game_id IN (SELECT game_id FROM moves WHERE rowid > ?) ORDER BY game_id",
            [player_id, cursor],
        )
        return [row["game_id"] for row in rows]

    def players_of_games(self, game_ids: list[str]) -> list[dict[str, Any]]:
        """``{"game_id", "player_id"}`` of every seat of ``game_ids`` tied to a player."""
        return self._all(
            "SELECT DISTINCT game_id, player_id FROM seats WHERE player_id IS NOT NULL"
            " AND game_id IN (SELECT value FROM json_each(?))",
            [json.dumps(game_ids)],
        )

    # -- a creator's "new game" page ------------------------------------------------
    def add_created_page(self, key_hash: str, game_id: str, until: str, now: str) -> None:
        """Remember a creator's page key (its hash) until ``until``; forget expired ones."""
        with self.write():
            self.db.execute("DELETE FROM created_pages WHERE until <= ?", [now])
            self._insert(
                "created_pages", {"key_hash": key_hash, "game_id": game_id, "until": until}
            )

    def created_page(self, key_hash: str, game_id: str, now: str) -> bool:
        """Whether ``key_hash`` is a creator's page key of ``game_id`` still valid at ``now``."""
        row = self._one(
            "SELECT 1 AS yes FROM created_pages WHERE key_hash = ? AND game_id = ? AND until > ?",
            [key_hash, game_id, now],
        )
        return row is not None

    def forget_created_page(self, key_hash: str) -> None:
        """Forget a creator's page key."""
        with self.write():
            self.db.execute("DELETE FROM created_pages WHERE key_hash = ?", [key_hash])

    def mark_acted(self, game_id: str, seat: int, at: str) -> None:
        """Record that ``seat`` acted at ``at`` (call inside :meth:`write`)."""
        self.db.execute(
            "UPDATE seats SET acted_at = ? WHERE game_id = ? AND seat = ?", [at, game_id, seat]
        )

    def set_vacation(
        self, game_id: str, seat: int, until: str, year: int, days_used: float
    ) -> None:
        """Record a seat's vacation and its days used in ``year`` (call inside :meth:`write`)."""
        self.db.execute(
            "UPDATE seats SET vacation_until = ?, vacation_year = ?, vacation_days_used = ?"
            " WHERE game_id = ? AND seat = ?",
            [until, year, days_used, game_id, seat],
        )

    def stop_mail(self, game_id: str, seat: int, at: str | None) -> None:
        """Stop a seat's mail from ``at`` on (``None``: mail it again); inside :meth:`write`."""
        self.db.execute(
            "UPDATE seats SET mail_stopped_at = ? WHERE game_id = ? AND seat = ?",
            [at, game_id, seat],
        )

    # -- the move log -------------------------------------------------------------
    def append_move(self, move: dict[str, Any]) -> None:
        """Append a ``moves`` row to the log (call inside :meth:`write`); never rewritten."""
        self._insert("moves", move)

    #: A logged move with ``result``: the game's result on the entry that ended it, else null.
    _LOGGED = (
        "SELECT moves.*, CASE WHEN moves.status != 'active' THEN games.result END AS result"
        " FROM moves JOIN games ON games.id = moves.game_id"
    )

    def moves(self, game_id: str, after: int = 0, upto: int | None = None) -> list[dict[str, Any]]:
        """Logged moves with ``after < seq <= upto`` in order."""
        sql = "SELECT * FROM moves WHERE game_id = ? AND seq > ?"
        params: list[Any] = [game_id, after]
        if upto is not None:
            sql += " AND seq <= ?"
            params.append(upto)
        return self._all(sql + " ORDER BY seq", params)

    def logged_moves(
        self, game_id: str, after: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Logged moves after ``after`` in order (the first ``limit`` of them, if given), each
        with its ``result`` (for the public log)."""
        return self._all(
            f"{self._LOGGED} WHERE moves.game_id = ? AND moves.seq > ? ORDER BY moves.seq LIMIT ?",
            [game_id, after, -1 if limit is None else limit],
        )

    def last_move_cursor(self) -> int:
        """A cursor after every move logged so far (for :meth:`moves_since`)."""
        return self._one("SELECT coalesce(max(rowid), 0) AS cursor FROM moves")["cursor"]

    def moves_since(self, cursor: int) -> list[dict[str, Any]]:
        """Every game's moves logged after ``cursor``, in log order, with ``cursor``, ``result``."""
        return self._all(
            self._LOGGED.replace("SELECT ", "SELECT moves.rowid AS cursor, ", 1)
            + " WHERE moves.rowid > ? ORDER BY moves.rowid",
            [cursor],
        )

    def ended_games(self, game_ids: list[str]) -> list[dict[str, Any]]:
        """``id``, ``seq``, ``status`` and ``result`` of those of ``game_ids`` that are over."""
        return self._all(
            "SELECT id, seq, status, result FROM games WHERE status NOT IN ('forming', 'active')"
            " AND id IN (SELECT value FROM json_each(?))",
            [json.dumps(game_ids)],
        )

    def data_version(self) -> int:
        """A number that changes whenever another connection commits (SQLite's ``data_version``)."""
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    # -- idempotency keys ---------------------------------------------------------
    def idempotent_response(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None:
        """The recorded request and response for an ``Idempotency-Key``, or ``None``."""
        return self._one(
            "SELECT request, response FROM idempotency WHERE game_id = ? AND seat = ? AND key = ?",
            [game_id, seat, key],
        )

    def record_response(
        self, game_id: str, seat: int, key: str, request: str, response: str
    ) -> None:
        """Remember the answer to an ``Idempotency-Key`` (call inside :meth:`write`)."""
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
    def add_message(self, message: dict[str, Any]) -> dict[str, Any]:
        """Append a ``messages`` row as the next ``number`` of its thread; the row as stored
        (call inside :meth:`write`)."""
        last = self._one(
            "SELECT coalesce(max(number), 0) AS n FROM messages WHERE game_id = ? AND thread = ?",
            [message["game_id"], message["thread"]],
        )
        self._insert("messages", {**message, "number": last["n"] + 1})
        return self._one("SELECT * FROM messages WHERE id = last_insert_rowid()")

    def messages_posted_since(self, game_id: str, seat: int, since: str) -> int:
        """How many messages ``seat`` of ``game_id`` posted after ``since`` (deleted ones too)."""
        row = self._one(
            "SELECT count(*) AS n FROM messages WHERE game_id = ? AND seat = ? AND at > ?",
            [game_id, seat, since],
        )
        return row["n"]

    def thread_messages(
        self,
        game_id: str,
        thread: str,
        after: int = 0,
        limit: int = -1,
        hidden: Sequence[int] = (),
        newest: bool = False,
    ) -> list[dict[str, Any]]:
        """The messages of a thread numbered after ``after``, in order, without those of the
        ``hidden`` seats: the first ``limit`` of them (``newest``: the last ``limit``)."""
        rows = self._all(
            "SELECT * FROM messages WHERE game_id = ? AND thread = ? AND number > ?"
            " AND seat NOT IN (SELECT value FROM json_each(?))"
            f" ORDER BY number {'DESC' if newest else 'ASC'} LIMIT ?",
            [game_id, thread, after, json.dumps(list(hidden)), limit],
        )
        return rows[::-1] if newest else rows

    def last_said(self, seats: Sequence[tuple[str, int]]) -> dict[str, dict[str, Any]]:
        """The newest message of each game's table that the seat given for it reads (not
        deleted, not by a seat it muted, not its own), by game id: ``(game_id, seat)`` pairs in."""
        rows = self._all(
            "SELECT m.* FROM json_each(?) pair CROSS JOIN messages m"
            " WHERE m.id = (SELECT max(id) FROM messages n"
            " WHERE n.game_id = json_extract(pair.value, '$[0]')"
            " AND n.thread = 'table' AND n.deleted_at IS NULL"
            " AND n.seat != json_extract(pair.value, '$[1]') AND n.seat NOT IN"
            " (SELECT muted_seat FROM talk_mutes t WHERE t.game_id = n.game_id"
            " AND t.seat = json_extract(pair.value, '$[1]')))",
            [json.dumps([list(pair) for pair in seats])],
        )
        return {row["game_id"]: row for row in rows}

    def message(self, game_id: str, thread: str, number: int) -> dict[str, Any] | None:
        """Message ``number`` of a thread, or ``None``."""
        if not 0 <= number <= MAX_INTEGER:
            return None
        return self._one(
            "SELECT * FROM messages WHERE game_id = ? AND thread = ? AND number = ?",
            [game_id, thread, number],
        )

    def forget_message_text(self, message_id: int, at: str, by: str) -> bool:
        """Delete a message's text, recording when and by whom; whether it still had one
        (call inside :meth:`write`)."""
        return bool(
            self.db.execute(
                "UPDATE messages SET text = NULL, deleted_at = ?, deleted_by = ?"
                " WHERE id = ? AND deleted_at IS NULL",
                [at, by, message_id],
            ).rowcount
        )

    def unmailed_messages(
        self, game_id: str, seat: int, threads: Sequence[str], hidden: Sequence[int]
    ) -> list[dict[str, Any]]:
        """The messages of ``threads`` posted since ``seat`` was last mailed them, in order:
        neither its own, nor deleted, nor of the ``hidden`` seats."""
        return self._all(
            "SELECT messages.* FROM messages JOIN seats ON seats.game_id = messages.game_id"
            " AND seats.seat = ? WHERE messages.game_id = ? AND messages.id > seats.talk_mailed"
            " AND messages.thread IN (SELECT value FROM json_each(?)) AND messages.seat != ?"
            " AND messages.deleted_at IS NULL"
            " AND messages.seat NOT IN (SELECT value FROM json_each(?)) ORDER BY messages.id",
            [seat, game_id, json.dumps(threads), seat, json.dumps(hidden)],
        )

    def talk_mailed(self, game_id: str, seat: int, upto: int) -> None:
        """Record that ``seat`` was mailed the messages up to id ``upto``."""
        with self.write():
            self.db.execute(
                "UPDATE seats SET talk_mailed = max(talk_mailed, ?) WHERE game_id = ? AND seat = ?",
                [upto, game_id, seat],
            )

    def set_muted(self, game_id: str, seat: int, muted_seat: int, muted: bool, at: str) -> None:
        """Mute (``muted``) or unmute the messages of ``muted_seat`` for ``seat``."""
        with self.write():
            if muted:
                self.db.execute(
                    "INSERT OR IGNORE INTO talk_mutes (game_id, seat, muted_seat, created_at)"
                    " VALUES (?, ?, ?, ?)",
                    [game_id, seat, muted_seat, at],
                )
            else:
                self.db.execute(
                    "DELETE FROM talk_mutes WHERE game_id = ? AND seat = ? AND muted_seat = ?",
                    [game_id, seat, muted_seat],
                )

    def muted_seats(self, game_id: str, seat: int) -> list[int]:
        """The seats whose messages ``seat`` muted, in seat order."""
        rows = self._all(
            "SELECT muted_seat FROM talk_mutes WHERE game_id = ? AND seat = ? ORDER BY muted_seat",
            [game_id, seat],
        )
        return [row["muted_seat"] for row in rows]

    def last_message_cursor(self) -> int:
        """A cursor after every message posted so far (for :meth:`messages_since`)."""
        return self._one("SELECT coalesce(max(id), 0) AS cursor FROM messages")["cursor"]

    def messages_since(self, cursor: int) -> list[dict[str, Any]]:
        """Every game's messages posted after ``cursor``, in order, each with its writer's
        ``name``; its ``id`` is the next cursor."""
        return self._all(
            "SELECT messages.*, seats.name FROM messages JOIN seats"
            " ON seats.game_id = messages.game_id AND seats.seat = messages.seat"
            " WHERE messages.id > ? ORDER BY messages.id",
            [cursor],
        )

    # -- mail -----------------------------------------------------------------------
    def mail_generation(self, game_id: str, seat: int) -> int | None:
        """The key generation of a seat's reply address, or ``None`` for no such seat."""
        row = self._one(
            "SELECT mail_generation FROM seats WHERE game_id = ? AND seat = ?", [game_id, seat]
        )
        return None if row is None else row["mail_generation"]

    def revoke_mail_key(self, game_id: str, seat: int) -> int | None:
        """Move a seat's reply key to its next generation; the new one, or ``None`` (no seat)."""
        with self.write():
            generation = self.mail_generation(game_id, seat)
            if generation is None:
                return None
            self.db.execute(
                "UPDATE seats SET mail_generation = ? WHERE game_id = ? AND seat = ?",
                [generation + 1, game_id, seat],
            )
        return generation + 1

    def queue_mail(self, mail: dict[str, Any]) -> None:
        """Put an ``outbox`` row in the outbox (call inside :meth:`write`)."""
        self._insert("outbox", mail)

    def outbox_by_message_id(self, message_id: str) -> dict[str, Any] | None:
        """The outbox row sent with ``message_id``, or ``None``."""
        return self._one("SELECT * FROM outbox WHERE message_id = ?", [message_id])

    def claim_inbound(self, message_id: str, game_id: str, seat: int, now: str) -> bool:
        """Record a mail by reply to ``seat`` as handled; ``False`` if it already was.

        >>> store = Store.open(":memory:")
        >>> _ = store.init()
        >>> [store.claim_inbound("<m@x>", "g1", 0, "2026-01-01T00:00:00Z") for _ in range(2)]
        [True, False]
        """
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO inbound (message_id, game_id, seat, handled_at)"
            " VALUES (?, ?, ?, ?)",
            [message_id, game_id, seat, now],
        )
        return cursor.rowcount == 1

    def outbox_count(
        self, since: str | None = None, at_most: int | None = None, **where: Any
    ) -> int:
        """How many outbox rows match ``where`` (column = value), created after ``since``.

        With ``at_most``, counting stops there (a limit check reads no more rows).

        >>> store = Store.open(":memory:")
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
        return self._one(f"SELECT count(*) AS n FROM ({rows})", params)["n"]

    def unsent_mail(self, game_id: str, seat: int) -> list[dict[str, Any]]:
        """The outbox rows to ``seat`` of ``game_id`` neither sent nor superseded, oldest first."""
        return self._all(
            "SELECT * FROM outbox WHERE game_id = ? AND seat = ? AND sent_at IS NULL"
            " AND superseded IS NULL ORDER BY id",
            [game_id, seat],
        )

    def claim_due_mail(self, now: str, lease_end: str, limit: int) -> list[dict[str, Any]]:
        """Take up to ``limit`` unsent rows due at ``now`` until ``lease_end``, counting an attempt.

        The rows as they were before the claim; another worker skips them until the lease ends.
        """
        with self.write():
            rows = self._all(
                "SELECT * FROM outbox WHERE sent_at IS NULL AND next_attempt_at <= ?"
                " ORDER BY id LIMIT ?",
                [now, limit],
            )
            for row in rows:
                self.db.execute(
                    "UPDATE outbox SET next_attempt_at = ?, attempts = attempts + 1 WHERE id = ?",
                    [lease_end, row["id"]],
                )
        return rows

    def mail_sent(
        self, mail_id: int, at: str, subject: str, members: list[int] | None = None
    ) -> None:
        """Mark the outbox row ``mail_id`` sent at ``at`` with ``subject``.

        ``members``: the other rows whose news went out in the same mail (a digest).
        """
        with self.write():
            self.db.execute(
                "UPDATE outbox SET sent_at = ?, subject = ?, last_error = NULL WHERE id = ?",
                [at, subject, mail_id],
            )
            for member in members or []:
                self.db.execute(
                    "UPDATE outbox SET sent_at = ?, digest_id = ?, last_error = NULL WHERE id = ?",
                    [at, mail_id, member],
                )

    def mail_superseded(self, mail_id: int, reason: str) -> None:
        """Never send the outbox row ``mail_id``, for ``reason`` (e.g. the turn was played)."""
        with self.write():
            self.db.execute(
                "UPDATE outbox SET superseded = ?, next_attempt_at = NULL WHERE id = ?",
                [reason, mail_id],
            )

    def give_message_id(self, mail_id: int, message_id: str) -> str:
        """The Message-ID of the outbox row ``mail_id``: its own, or ``message_id`` given now."""
        with self.write():
            self.db.execute(
                "UPDATE outbox SET message_id = ? WHERE id = ? AND message_id IS NULL",
                [message_id, mail_id],
            )
            return self._one("SELECT message_id FROM outbox WHERE id = ?", [mail_id])["message_id"]

    def mail_failed(self, mail_id: int, error: str, next_attempt: str | None) -> None:
        """Record why sending ``mail_id`` failed and when to try again (``None``: never)."""
        with self.write():
            self.db.execute(
                "UPDATE outbox SET last_error = ?, next_attempt_at = ? WHERE id = ?",
                [error, next_attempt, mail_id],
            )

    def forget_mail_bodies(self, before: str) -> int:
        """Forget the facts of done mails created before ``before``; how many.

        A done mail was sent, superseded or failed for good; its headers stay.
        """
        with self.write():
            return self.db.execute(
                "UPDATE outbox SET facts = NULL WHERE facts IS NOT NULL AND created_at < ?"
                " AND (sent_at IS NOT NULL OR next_attempt_at IS NULL)",
                [before],
            ).rowcount

    def mail_suppressed(self, rcpt_key: str) -> bool:
        """Whether the recipient ``rcpt_key`` asked never to be mailed again."""
        sql = "SELECT 1 AS yes FROM mail_suppressions WHERE rcpt_hash = ?"
        return self._one(sql, [hash_secret(rcpt_key)]) is not None

    def suppress_mail(self, rcpt_key: str, now: str) -> None:
        """Never mail ``rcpt_key`` again (only its hash is kept)."""
        with self.write():
            self.db.execute(
                "INSERT OR IGNORE INTO mail_suppressions (rcpt_hash, created_at) VALUES (?, ?)",
                [hash_secret(rcpt_key), now],
            )

    # -- notifications: daily digests and Web Push --------------------------------------
    def digests_due(self, now: str, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` players who chose the daily digest and whose next one is due at ``now``
        (never scheduled yet, or ``digest_due_at`` passed), the longest due first."""
        return self._all(
            "SELECT * FROM players WHERE mail_pref = 'digest'"
            " AND (digest_due_at IS NULL OR digest_due_at <= ?) ORDER BY digest_due_at LIMIT ?",
            [now, limit],
        )

    def set_digest_due(self, player_id: str, due: str) -> None:
        """Schedule ``player_id``'s next digest at ``due`` (call inside :meth:`write`)."""
        self.db.execute("UPDATE players SET digest_due_at = ? WHERE id = ?", [due, player_id])

    def waiting_seats(self, player_id: str, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` seats of ``player_id`` that a running game waits for, with mail on.

        ``seats`` rows, the soonest deadline first, then the game waiting longest.
        """
        return self._all(
            "SELECT seats.* FROM seats JOIN games ON games.id = seats.game_id"
            " WHERE seats.player_id = ? AND games.status = 'active'"
            " AND seats.mail_stopped_at IS NULL"
            " AND EXISTS (SELECT 1 FROM json_each(games.to_move) WHERE value = seats.seat)"
            " ORDER BY games.deadline IS NULL, games.deadline, games.updated_at LIMIT ?",
            [player_id, limit],
        )

    def add_push_subscription(self, subscription: dict[str, Any], keep: int) -> int:
        """Record a browser's push subscription; its id.

        The same endpoint again replaces the old subscription (the browser's
        newest player and keys); a player keeps their ``keep`` newest ones.
        """
        with self.write():
            for old in self._all(
                "SELECT id FROM push_subscriptions WHERE endpoint = ?", [subscription["endpoint"]]
            ):
                self._forget_subscription(old["id"])
            columns = ", ".join(subscription)
            marks = ", ".join("?" for _ in subscription)
            new_id = self.db.execute(
                f"INSERT INTO push_subscriptions ({columns}) VALUES ({marks})",
                list(subscription.values()),
            ).lastrowid
            for extra in self._all(
                "SELECT id FROM push_subscriptions WHERE player_id = ? ORDER BY id DESC"
                " LIMIT -1 OFFSET ?",
                [subscription["player_id"], keep],
            ):
                self._forget_subscription(extra["id"])
        return new_id

    def push_subscriptions(self, player_id: str) -> list[dict[str, Any]]:
        """A player's push subscriptions (``id``, ``endpoint``, ``created_at``), oldest first."""
        return self._all(
            "SELECT id, endpoint, created_at FROM push_subscriptions WHERE player_id = ?"
            " ORDER BY id",
            [player_id],
        )

    def remove_push_subscription(self, subscription_id: int, player_id: str | None = None) -> bool:
        """Forget a push subscription and its pushes (only ``player_id``'s, if given); whether
        there was one."""
        if not 0 <= subscription_id <= MAX_INTEGER:
            return False
        with self.write():
            found = self._one(
                "SELECT id FROM push_subscriptions"
                " WHERE id = ? AND player_id = coalesce(?, player_id)",
                [subscription_id, player_id],
            )
            if found is not None:
                self._forget_subscription(subscription_id)
        return found is not None

    def _forget_subscription(self, subscription_id: int) -> None:
        """Delete a push subscription and its pushes (inside :meth:`write`)."""
        self.db.execute("DELETE FROM pushes WHERE subscription_id = ?", [subscription_id])
        self.db.execute("DELETE FROM push_subscriptions WHERE id = ?", [subscription_id])

    def queue_pushes(self, player_id: str, push: dict[str, Any]) -> int:
        """Queue ``push`` (a ``pushes`` row without its subscription) to each subscription of
        ``player_id``, replacing the pending push of the same game and seat; how many
        (call inside :meth:`write`)."""
        subscriptions = self._all(
            "SELECT id FROM push_subscriptions WHERE player_id = ?", [player_id]
        )
        for subscription in subscriptions:
            self.db.execute(
                "DELETE FROM pushes WHERE subscription_id = ? AND game_id = ? AND seat = ?",
                [subscription["id"], push["game_id"], push["seat"]],
            )
            self._insert("pushes", {**push, "subscription_id": subscription["id"]})
        return len(subscriptions)

    def claim_due_pushes(self, now: str, lease_end: str, limit: int) -> list[dict[str, Any]]:
        """Take up to ``limit`` pushes due at ``now`` until ``lease_end``, counting an attempt.

        Each as it was before the claim, with its subscription's ``endpoint``,
        ``p256dh`` and ``auth``; another worker skips them until the lease ends.
        """
        with self.write():
            rows = self._all(
                "SELECT pushes.*, s.endpoint, s.p256dh, s.auth FROM pushes"
                " JOIN push_subscriptions s ON s.id = pushes.subscription_id"
                " WHERE pushes.next_attempt_at <= ? ORDER BY pushes.id LIMIT ?",
                [now, limit],
            )
            for row in rows:
                self.db.execute(
                    "UPDATE pushes SET next_attempt_at = ?, attempts = attempts + 1 WHERE id = ?",
                    [lease_end, row["id"]],
                )
        return rows

    def push_retry(self, push_id: int, next_attempt: str | None) -> None:
        """Try the push ``push_id`` again at ``next_attempt``; ``None``: it is done (forgotten)."""
        with self.write():
            if next_attempt is None:
                self.db.execute("DELETE FROM pushes WHERE id = ?", [push_id])
            else:
                self.db.execute(
                    "UPDATE pushes SET next_attempt_at = ? WHERE id = ?", [next_attempt, push_id]
                )

    # -- webhooks -------------------------------------------------------------------
    def add_webhook(self, game_id: str, url: str, now: str) -> int:
        """Record a webhook of ``game_id``; its id."""
        with self.write():
            return self.db.execute(
                "INSERT INTO webhooks (game_id, url, created_at) VALUES (?, ?, ?)",
                [game_id, url, now],
            ).lastrowid

    def webhooks(self, game_id: str) -> list[dict[str, Any]]:
        """The webhooks of ``game_id`` not removed, oldest first."""
        return self._all(
            "SELECT id, url, created_at FROM webhooks WHERE game_id = ? AND removed_at IS NULL"
            " ORDER BY id",
            [game_id],
        )

    def remove_webhook(self, game_id: str, webhook_id: int, now: str) -> bool:
        """Stop a webhook of ``game_id`` (its pending deliveries are dropped); whether it was."""
        if not 0 <= webhook_id <= MAX_INTEGER:
            return False
        with self.write():
            return bool(
                self.db.execute(
                    "UPDATE webhooks SET removed_at = ? WHERE id = ? AND game_id = ?"
                    " AND removed_at IS NULL",
                    [now, webhook_id, game_id],
                ).rowcount
            )

    def queue_webhooks(
        self, game_id: str, event: str, seq: int, body: str, now: str, max_pending: int
    ) -> None:
        """Queue ``body`` for every webhook of ``game_id`` (call inside :meth:`write`).

        A webhook that already has ``max_pending`` deliveries pending (neither
        delivered nor failed for good) loses its pending ``move`` deliveries,
        and the new one records the seqs they spanned (with the gaps they
        recorded) in ``missed_from_seq`` and ``missed_to_seq``.
        """
        hooks = self._all(
            "SELECT id FROM webhooks WHERE game_id = ? AND removed_at IS NULL", [game_id]
        )
        for hook in hooks:
            missed_from, missed_to = self._drop_backlog(hook["id"], max_pending)
            self._insert(
                "webhook_deliveries",
                {
                    "webhook_id": hook["id"],
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
        count = self._one(
            f"SELECT count(*) AS n FROM webhook_deliveries WHERE {pending}", [webhook_id]
        )
        if count is None or count["n"] < max_pending:
            return None, None
        dropped = self._all(
            f"DELETE FROM webhook_deliveries WHERE {pending} AND event = 'move'"
            " RETURNING seq, missed_from_seq, missed_to_seq",
            [webhook_id],
        )
        seqs = [row[name] for row in dropped for name in row if row[name] is not None]
        return (min(seqs), max(seqs)) if seqs else (None, None)

    def claim_due_webhooks(
        self, now: str, lease_end: str, limit: int, per_webhook: int
    ) -> list[dict[str, Any]]:
        """Take up to ``limit`` due deliveries until ``lease_end``, counting an attempt.

        Fairly: at most ``per_webhook`` of one webhook (the oldest), none of
        a resting webhook, and games take turns (every game's oldest due
        delivery first, then every game's second..., the older first among
        equals). Each row as it was before the claim, with its webhook's
        ``url``, ``game_id`` and ``removed_at``.
        """
        with self.write():
            rows = self._all(
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
            for row in rows:
                self.db.execute(
                    "UPDATE webhook_deliveries SET next_attempt_at = ?, attempts = attempts + 1"
                    " WHERE id = ?",
                    [lease_end, row["id"]],
                )
        return rows

    def webhook_delivered(self, delivery_id: int, at: str, status: int) -> None:
        """Mark a delivery done at ``at`` (answered ``status``); its webhook rests no more."""
        with self.write():
            self.db.execute(
                "UPDATE webhook_deliveries SET delivered_at = ?, last_status = ?,"
                " last_error = NULL WHERE id = ?",
                [at, status, delivery_id],
            )
            self._rest_webhook(delivery_id, None)

    def webhook_failed(
        self, delivery_id: int, error: str, next_attempt: str | None, status: int | None
    ) -> None:
        """Record why a delivery failed and when to try again (``None``: never).

        A delivery tried again makes its webhook rest until then: the
        webhook's other deliveries wait behind it.
        """
        with self.write():
            self.db.execute(
                "UPDATE webhook_deliveries SET last_error = ?, next_attempt_at = ?,"
                " last_status = ? WHERE id = ?",
                [error, next_attempt, status, delivery_id],
            )
            if next_attempt is not None:
                self._rest_webhook(delivery_id, next_attempt)

    def _rest_webhook(self, delivery_id: int, until: str | None) -> None:
        """Set ``resting_until`` of the webhook of a delivery."""
        self.db.execute(
            "UPDATE webhooks SET resting_until = ?"
            " WHERE id = (SELECT webhook_id FROM webhook_deliveries WHERE id = ?)",
            [until, delivery_id],
        )

    def webhook_deliveries(self, game_id: str) -> list[dict[str, Any]]:
        """Every delivery to the webhooks of ``game_id``, in order (for operators and tests)."""
        return self._all(
            "SELECT webhook_deliveries.* FROM webhook_deliveries JOIN webhooks"
            " ON webhooks.id = webhook_id WHERE webhooks.game_id = ?"
            " ORDER BY webhook_deliveries.id",
            [game_id],
        )

    # -- plain SQL (no table introspection per call: these run on the hot path) -----
    def _insert(self, table: str, row: dict[str, Any]) -> None:
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        self.db.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(row.values()))

    def _one(self, sql: str, params: list[Any] | None = None) -> dict[str, Any] | None:
        return next(iter(self.db.query(sql, params or [])), None)

    def _all(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        return list(self.db.query(sql, params or []))
