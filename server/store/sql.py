"""The SQL both backends share: every operation of the store as SQL over a small dialect.

:class:`SqlStore` implements the operations of :class:`server.store.base.Store`
(documented there) once, in SQL that SQLite and PostgreSQL both run; a backend
(:class:`~server.store.sqlite.SqliteStore`, :class:`~server.store.postgres.PostgresStore`)
subclasses it with its connection (transactions, waiting for changes, running
a statement) and the few phrases its SQL says its own way: the dialect
attributes below (a JSON array given as a parameter, whether a JSON array
holds a value, no limit, claiming rows, the move log's cursor). Statements use
``?`` placeholders. The JSON columns are written as canonical JSON text
(:func:`~server.store.base.canonical_json`) and read as text, encoded and
decoded here only; flags are read as booleans.
"""

from __future__ import annotations

import hashlib
import json
import re
from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, fields, replace
from functools import cache
from typing import Any, TypeVar

from server.store.base import Store, canonical_json, hash_secret
from server.store.records import (
    AdminGame,
    Analysis,
    ApiToken,
    BotTurn,
    ChatPing,
    ClaimedDelivery,
    ClaimedPush,
    Difference,
    EndedGame,
    FailingDelivery,
    GameRow,
    GameSeats,
    GameStamp,
    GameUpdate,
    IdempotentAnswer,
    Json,
    ListedGame,
    ListedSeat,
    LobbyGame,
    LoggedMove,
    MailBacklog,
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
    PlayerPing,
    PlayerUpdate,
    PushSubscription,
    Seat,
    SeatRef,
    SeatToken,
    SeatUpdate,
    SignInLink,
    Table,
    TakebackOffer,
    Webhook,
    WebhookDelivery,
)

#: The largest integer both databases keep (64 bits): a larger id names no row (nor binds).
MAX_INTEGER = 2**63 - 1
#: The columns kept as JSON, and those of them where ``None`` is kept as NULL.
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
        "bot",
        "description",
        "last_description",
        "differences",
        "accepted_seats",
        "lines",
        "clock",
    }
)
NULLABLE_JSON = frozenset({"position", "result", "facts", "bot", "differences", "clock"})
#: The columns (and computed columns) kept as 0 or 1.
BOOLEAN_COLUMNS = frozenset(
    {"seeded", "from_position", "waiting", "invitation", "hints", "takebacks", "conditional"}
)

R = TypeVar("R")
#: How a game's read names its seats' columns (games and seats both have a ``clock``).
SEAT_PREFIX = "seat__"


def _encode(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with its JSON columns as canonical JSON text (a nullable one's ``None``: NULL)
    and its flags as 0 or 1."""
    return {
        name: (
            None
            if value is None and name in NULLABLE_JSON
            else canonical_json(value)
            if name in JSON_COLUMNS
            else int(value)
            if name in BOOLEAN_COLUMNS and value is not None
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


def _record(kind: type[R], values: Sequence[Any]) -> R:
    """A record of ``kind`` from its columns' values in order, decoded (see :func:`_decode`)."""
    return kind(**_decode(dict(zip(_columns(kind), values, strict=True))))


@cache
def _columns(kind: type) -> tuple[str, ...]:
    """The field names of a record type (its columns)."""
    return tuple(field.name for field in fields(kind))


@cache
def _select(kind: type) -> str:
    """``SELECT`` and the columns of a record type (a table may have more: a backend's own)."""
    return "SELECT " + ", ".join(_columns(kind))


@cache
def _qualified(kind: type, table: str, prefix: str = "") -> str:
    """The columns of a record type, each named with its ``table`` (and read as
    ``prefix`` + its name, where two tables of a join share a column name).

    >>> _qualified(EndedGame, "games")
    'games.id, games.seq, games.status, games.result'
    >>> _qualified(EndedGame, "games", "g_").split(", ")[0]
    'games.id AS g_id'
    """
    alias = (lambda name: f" AS {prefix}{name}") if prefix else (lambda name: "")
    return ", ".join(f"{table}.{name}{alias(name)}" for name in _columns(kind))


def _quoted(name: str) -> str:
    """An identifier quoted for both databases.

    >>> _quoted("key"), _quoted('odd"name')
    ('"key"', '"odd""name"')
    """
    return '"' + name.replace('"', '""') + '"'


def _canonical_at(row: tuple[Any, ...], positions: list[int]) -> tuple[Any, ...]:
    """``row`` with the JSON text at ``positions`` as canonical JSON."""
    values = list(row)
    for at in positions:
        if values[at] is not None:
            values[at] = canonical_json(json.loads(values[at]))
    return tuple(values)


def _row_of(record: Any, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """A record's fields as a row to insert, without ``leave_out``."""
    return {name: getattr(record, name) for name in _columns(type(record)) if name not in leave_out}


class SqlStore(Store):
    """Every operation of :class:`server.store.base.Store` in shared SQL; a backend gives the
    connection (the abstract methods) and its dialect (the attributes)."""

    #: A subquery listing the text values of a JSON array given as a parameter.
    _JSON_TEXTS: str
    #: A subquery listing the integer values of a JSON array given as a parameter.
    _JSON_INTS: str
    #: A condition: the JSON array ``{array}`` holds the integer ``{value}``.
    _HOLDS: str
    #: The ``LIMIT`` parameter that sets no limit.
    _NO_LIMIT: int | None
    #: What ends a claiming ``SELECT`` of ``{table}``: lock its rows, skip those locked.
    _CLAIM: str
    #: The log's cursor of a move: it grows in the order the moves become visible.
    _MOVE_CURSOR: str
    #: A condition (`` AND ...``) that keeps the moves a later commit cannot precede.
    _SETTLED: str

    @abstractmethod
    def _tuples(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows ``sql`` reads, as tuples (all of them, read at once)."""

    @abstractmethod
    def _named(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """The rows ``sql`` reads, as dicts by column name (not decoded)."""

    @abstractmethod
    def _execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run a statement; how many rows it changed.

        A backend raises :class:`~server.store.base.Conflict` when the
        statement breaks a unique key or the move log's append-only rule, and
        :class:`~server.store.base.StoreUnavailable` when the database is out
        of reach or locked for too long.
        """

    def _lock(self, table: str = "") -> str:
        """What ends a ``SELECT`` of a row that a write reads to change (of ``table`` only, in
        a join): nothing where a write holds the whole database."""
        return ""

    def _lock_game(self, game_id: str) -> None:
        """In a write, lock the game's row before a read that decides the write, so that the
        read starts after the game's other writers commit (nothing to do where a write holds
        the whole database)."""
        if self._lock():
            self._value(f"SELECT 1 FROM games WHERE id = ?{self._lock()}", [game_id])

    def _serialize_messages(self) -> None:
        """Make the writers of messages take turns until they commit, so that message ids
        grow in commit order (a write holds the whole database: nothing to do)."""

    def _claimed(self, rows: list[R], table: str, due: str, *params: Any) -> list[R]:
        """Those of ``rows`` (of ``table``, just read in a write) that this write claims:
        all of them where a write holds the whole database."""
        return rows

    def _limit(self, limit: int) -> int | None:
        """The ``LIMIT`` parameter of ``limit`` (negative: none)."""
        return self._NO_LIMIT if limit < 0 else limit

    # -- every table, for copying -------------------------------------------------------
    def count_rows(self, table: str) -> int:
        return self._value(f"SELECT count(*) FROM {_quoted(table)}")

    def table_rows(self, table: Table) -> list[tuple[Any, ...]]:
        columns = ", ".join(map(_quoted, table.columns))
        order = f" ORDER BY {', '.join(map(_quoted, table.order))}" if table.order else ""
        rows = self._tuples(f"SELECT {columns} FROM {_quoted(table.name)}{order}")
        json_at = [i for i, name in enumerate(table.columns) if name in table.json_columns]
        if not json_at:
            return rows
        return [_canonical_at(row, json_at) for row in rows]

    def empty_table(self, table: str) -> None:
        self._execute(f"DELETE FROM {_quoted(table)}")

    def after_copy(self) -> None:
        """Nothing to do where an inserted id moves the next one on (SQLite)."""

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
                "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [name, value],
            )
            return self._value("SELECT value FROM settings WHERE name = ?", [name])

    def forget_setting(self, name: str) -> None:
        with self.write():
            self._execute("DELETE FROM settings WHERE name = ?", [name])

    # -- games and seats -------------------------------------------------------
    def create_game(self, game: GameRow, seats: Sequence[NewSeat]) -> None:
        self._insert("games", _row_of(game))
        for number, seat in enumerate(seats):
            self._insert("seats", {"game_id": game.id, "seat": number, **_row_of(seat)})

    def game(self, game_id: str) -> GameRow | None:
        return self._one(
            GameRow, f"{_select(GameRow)} FROM games WHERE id = ?{self._lock()}", [game_id]
        )

    #: The seat of a live seat token of the game (its hash the parameter), in a read of ``games``.
    _TOKEN_SEAT = (
        "(SELECT seat_tokens.seat FROM seat_tokens WHERE seat_tokens.game_id = games.id"
        " AND seat_tokens.token_hash = ? AND seat_tokens.revoked_at IS NULL)"
    )

    def game_with_seats(self, game_id: str, token: str | None = None) -> GameSeats | None:
        token_seat = self._TOKEN_SEAT
        lines_stored = (
            "EXISTS (SELECT 1 FROM conditional_lines WHERE conditional_lines.game_id = games.id)"
        )
        hooks_stored = (
            "EXISTS (SELECT 1 FROM webhooks WHERE webhooks.game_id = games.id"
            " AND webhooks.removed_at IS NULL)"
        )
        # A statement that waits for the game's lock reads the seats as they were when it began
        # (PostgreSQL reads only the locked row again), so two joins for the last seat would
        # both find it free: the read below starts after the lock.
        self._lock_game(game_id)
        rows = self._named(
            f"SELECT {_qualified(GameRow, 'games')}, {_qualified(Seat, 'seats', SEAT_PREFIX)},"
            f" {token_seat} AS token_seat, {lines_stored} AS lines_stored,"
            f" {hooks_stored} AS hooks_stored FROM games"
            " JOIN seats ON seats.game_id = games.id"
            f" WHERE games.id = ? ORDER BY seats.seat{self._lock('games')}",
            [None if token is None else hash_secret(token), game_id],
        )
        if not rows:
            return None
        first = rows[0]
        game = GameRow(**_decode({name: first[name] for name in _columns(GameRow)}))
        seats = [
            Seat(**_decode({name: row[SEAT_PREFIX + name] for name in _columns(Seat)}))
            for row in rows
        ]
        stored = bool(first["lines_stored"]), bool(first["hooks_stored"])
        return GameSeats(game, seats, first["token_seat"], *stored)

    def page_version(self, game_id: str, thread: str, shown: int) -> str | None:
        game = ", ".join(f"games.{name}" for name in _columns(GameRow) if name != "state")
        rows = self._tuples(
            f"SELECT CAST(games.state AS TEXT), {game}, {_qualified(Seat, 'seats')},"
            " takeback_offers.*, analyses.made_at, rematch.id, talk.* FROM games"
            " JOIN seats ON seats.game_id = games.id"
            " LEFT JOIN takeback_offers ON takeback_offers.game_id = games.id"
            " LEFT JOIN analyses ON analyses.game_id = games.id"
            " LEFT JOIN games AS rematch ON rematch.rematch_of = games.id"
            " CROSS JOIN (SELECT max(id) AS newest, count(deleted_at) AS deleted,"
            " max(deleted_at) AS last_deleted FROM (SELECT id, deleted_at FROM messages"
            " WHERE game_id = ? AND thread = ? ORDER BY number DESC LIMIT ?) AS shown) AS talk"
            " WHERE games.id = ? ORDER BY seats.seat",
            [game_id, thread, shown, game_id],
        )
        if not rows:
            return None
        state = rows[0][0] or ""
        digest = hashlib.blake2b(f"{len(state)}:{state}".encode(), digest_size=20)
        digest.update(repr([row[1:] for row in rows]).encode())
        return digest.hexdigest()

    def game_stamp(
        self, game_id: str, token: str | None = None
    ) -> tuple[GameStamp, int | None] | None:
        head = ("id", "seq", "status", "updated_at", "deadline", "turn_hours", "clock")
        rows = self._tuples(
            f"SELECT {', '.join(f'games.{name}' for name in head)}, {self._TOKEN_SEAT},"
            f" {_qualified(Seat, 'seats')} FROM games JOIN seats ON seats.game_id = games.id"
            " WHERE games.id = ? ORDER BY seats.seat",
            [None if token is None else hash_secret(token), game_id],
        )
        if not rows:
            return None
        after = len(head) + 1  # the seats' columns follow the token's seat
        seats = [_record(Seat, row[after:]) for row in rows]
        game = _decode(dict(zip(head, rows[0][: len(head)], strict=True)))
        return GameStamp(**game, seats=seats), rows[0][len(head)]

    def game_seq(self, game_id: str) -> int | None:
        return self._value("SELECT seq FROM games WHERE id = ?", [game_id])

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
            )
        )

    def game_ids(self) -> list[str]:
        return self._values("SELECT id FROM games ORDER BY id")

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
        seat: tuple[str, int, bool | None] | None,
        before: int | None,
        limit: int,
    ) -> list[ListedGame]:
        conditions, params = [], []
        for column, value in (("engine", engine), ("status", status)):
            if column == "status" and value == "forming":  # the partial index games_forming
                conditions.append("status = 'forming'")
            elif value is not None:
                conditions.append(f"{column} = ?")
                params.append(value)
        if seat is not None:
            conditions.append("id = ?")
            params.append(seat[0])
            if seat[2] is not None:
                conditions.append(f"({self._HOLDS.format(array='to_move', value='?')}) = ?")
                params.extend([seat[1], seat[2]])
        else:
            conditions.append("hidden_at IS NULL")
        if before is not None:
            conditions.append("rowid < ?")
            params.append(before)
        where = " AND ".join(conditions) or "1 = 1"
        return self._with_players(
            ListedGame,  # +rowid: sorted, not walked in order (the filters' index picks the rows)
            f"SELECT rowid AS cursor, {self._LISTED.format(g='')} FROM games"
            f" WHERE {where} ORDER BY +rowid DESC LIMIT ?",
            [*params, limit],
        )

    def _with_players(self, kind: type[R], sql: str, params: list[Any]) -> list[R]:
        """The games ``sql`` reads, as ``kind`` records with their ``players`` (what a list
        shows of their seats, in seat order)."""
        games = self._rows(sql, params)
        players: dict[str, list[ListedSeat]] = {game["id"]: [] for game in games}
        for game_id, *seat, bot in self._tuples(  # tuples: a player's list reads hundreds
            f"SELECT game_id, {', '.join(_columns(ListedSeat))} FROM seats"
            f" WHERE game_id IN ({self._JSON_TEXTS}) ORDER BY game_id, seat",
            [json.dumps(list(players))],
        ):
            players[game_id].append(ListedSeat(*seat, bot=None if bot is None else json.loads(bot)))
        return [kind(**game, players=tuple(players[game["id"]])) for game in games]

    def bot_turns(self, limit: int) -> list[BotTurn]:
        waits = self._HOLDS.format(array="games.to_move", value="seats.seat")
        rows = self._tuples(
            "SELECT games.id, seats.seat, games.seq FROM seats JOIN games ON games.id ="
            f" seats.game_id WHERE seats.bot IS NOT NULL AND games.status = 'active' AND {waits}"
            " LIMIT ?",
            [limit],
        )
        return [BotTurn(*row) for row in rows]

    def claim_bot_turn(self, game_id: str, holder: str, now: str, until: str) -> bool:
        return bool(
            self._execute(
                "INSERT INTO bot_claims (game_id, holder, until) VALUES (?, ?, ?)"
                " ON CONFLICT (game_id) DO UPDATE SET holder = excluded.holder,"
                " until = excluded.until WHERE bot_claims.until <= ?",
                [game_id, holder, until, now],
            )
        )

    def release_bot_turn(self, game_id: str, holder: str) -> None:
        self._execute("DELETE FROM bot_claims WHERE game_id = ? AND holder = ?", [game_id, holder])

    def games_to_analyse(self, limit: int) -> list[str]:
        return self._values(
            "SELECT id FROM games WHERE status = 'finished' AND NOT EXISTS (SELECT 1 FROM"
            " analyses WHERE analyses.game_id = games.id) AND EXISTS (SELECT 1 FROM seats"
            " WHERE seats.game_id = games.id AND seats.bot IS NULL) ORDER BY updated_at LIMIT ?",
            [limit],
        )

    def analysis(self, game_id: str) -> Analysis | None:
        rows = self._rows("SELECT * FROM analyses WHERE game_id = ?", [game_id])
        if not rows:
            return None
        found = rows[0]["differences"]
        differences = None if found is None else [Difference(**item) for item in found]
        return Analysis(game_id, rows[0]["made_at"], differences)

    def save_analysis(self, analysis: Analysis) -> None:
        found = analysis.differences
        differences = None if found is None else [asdict(item) for item in found]
        self._execute(
            "INSERT INTO analyses (game_id, made_at, differences) VALUES (?, ?, ?)"
            " ON CONFLICT (game_id) DO NOTHING",
            [
                analysis.game_id,
                analysis.made_at,
                _encode({"differences": differences})["differences"],
            ],
        )

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
            " turn_hours, deadline_policy, seating, created_at, forming_until, clock FROM games"
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
            for old, new in enumerate(order):
                self._execute(
                    f"UPDATE {table} SET seat = ? WHERE game_id = ? AND seat = ?",
                    [new, game_id, old + shift],
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
        rows = self._tuples(
            "SELECT game_id, seat FROM seat_tokens WHERE token_hash = ? AND revoked_at IS NULL",
            [hash_secret(token)],
        )
        return SeatRef(*rows[0]) if rows else None

    def seat_token(self, game_id: str, token: str) -> SeatToken | None:
        return self._one(
            SeatToken,
            f"{_select(SeatToken)} FROM seat_tokens WHERE game_id = ? AND token_hash = ?",
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
            " ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?)",
            [game_id, seat, kind, self._NO_LIMIT, keep],
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
        used = self._one(
            SignInLink,
            "UPDATE sign_in_links SET used_at = ? WHERE id = ? AND used_at IS NULL"
            " AND expires_at > ? RETURNING *",
            [now, link_id, now],
        )
        return None if used is None else replace(used, used_at=None)

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
            return self._insert_id(
                "api_tokens",
                {"token_hash": token_hash, "player_id": player_id, "name": name, "created_at": now},
            )

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
            revoked = self._execute(
                "UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND player_id = ?"
                " AND revoked_at IS NULL",
                [now, token_id, player_id],
            )
        return revoked > 0

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
            f" g.status = 'active' AND {self._HOLDS.format(array='g.to_move', value='s.seat')}"
            " AS waiting,"
            " m.seq AS last_seq, m.seat AS last_seat,"
            " m.description AS last_description, m.at AS last_at"
            " FROM seats AS s JOIN games AS g ON g.id = s.game_id"
            " LEFT JOIN moves AS m ON m.game_id = g.id AND m.seq = g.seq"
            " WHERE s.player_id = ?",
            [player_id],
        )

    def game_states(self, game_ids: list[str]) -> dict[str, Json]:
        rows = self._rows(
            f"SELECT id, state FROM games WHERE id IN ({self._JSON_TEXTS})",
            [json.dumps(game_ids)],
        )
        return {row["id"]: row["state"] for row in rows}

    def player_moved_since(self, player_id: str, cursor: int) -> list[str]:
        return self._values(
            "SELECT DISTINCT game_id FROM seats WHERE player_id = ?"
            f" AND game_id IN (SELECT game_id FROM moves WHERE {self._MOVE_CURSOR} > ?)"
            " ORDER BY game_id",
            [player_id, cursor],
        )

    def players_of_games(self, game_ids: list[str]) -> list[tuple[str, str]]:
        return self._tuples(
            "SELECT DISTINCT game_id, player_id FROM seats WHERE player_id IS NOT NULL"
            f" AND game_id IN ({self._JSON_TEXTS})",
            [json.dumps(game_ids)],
        )

    def spend_vacation_day(self, player_id: str, year: int, allowance: int) -> bool:
        if allowance < 1:
            return False
        return (
            self._execute(
                "INSERT INTO player_vacation_days (player_id, year, used) VALUES (?, ?, 1)"
                " ON CONFLICT (player_id, year) DO UPDATE"
                " SET used = player_vacation_days.used + 1 WHERE player_vacation_days.used < ?",
                [player_id, year, allowance],
            )
            == 1
        )

    def vacation_days_used(self, player_id: str, year: int) -> int:
        used = self._value(
            "SELECT used FROM player_vacation_days WHERE player_id = ? AND year = ?",
            [player_id, year],
        )
        return used or 0

    # -- the move log -------------------------------------------------------------
    def append_move(self, move: LoggedMove) -> None:
        self._insert("moves", _row_of(move, leave_out=("result",)))

    #: A logged move with ``result``: the game's result on the entry that ended it, else null.
    _LOGGED = (
        "SELECT moves.game_id, moves.seq, moves.seat, moves.kind, moves.move,"
        " moves.public_move, moves.notation, moves.description, moves.to_move, moves.status,"
        " moves.at, CASE WHEN moves.status != 'active' THEN games.result END AS result,"
        " moves.conditional"
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
            [game_id, after, self._NO_LIMIT if limit is None else limit],
        )

    def moves_since(self, cursor: int) -> list[tuple[int, LoggedMove]]:
        rows = self._rows(
            self._LOGGED.replace("SELECT ", f"SELECT {self._MOVE_CURSOR} AS cursor, ", 1)
            + f" WHERE {self._MOVE_CURSOR} > ?{self._SETTLED} ORDER BY {self._MOVE_CURSOR},"
            " moves.rowid",
            [cursor],
        )
        return [(row.pop("cursor"), LoggedMove(**row)) for row in rows]

    def ended_games(self, game_ids: list[str]) -> list[EndedGame]:
        return self._all(
            EndedGame,
            "SELECT id, seq, status, result FROM games WHERE status NOT IN ('forming', 'active')"
            f" AND id IN ({self._JSON_TEXTS})",
            [json.dumps(game_ids)],
        )

    # -- takeback offers -----------------------------------------------------------
    def takeback_offer(self, game_id: str) -> TakebackOffer | None:
        return self._one(
            TakebackOffer,
            f"{_select(TakebackOffer)} FROM takeback_offers WHERE game_id = ?",
            [game_id],
        )

    def set_takeback_offer(self, offer: TakebackOffer) -> None:
        self.drop_takeback_offer(offer.game_id)
        self._insert("takeback_offers", _row_of(offer))

    def drop_takeback_offer(self, game_id: str) -> None:
        self._execute("DELETE FROM takeback_offers WHERE game_id = ?", [game_id])

    # -- conditional moves ----------------------------------------------------------
    def conditional_lines(self, game_id: str) -> dict[int, list[list[str]]]:
        rows = self._rows(
            "SELECT seat, lines FROM conditional_lines WHERE game_id = ? ORDER BY seat", [game_id]
        )
        return {row["seat"]: row["lines"] for row in rows}

    def set_conditional_lines(
        self, game_id: str, seat: int, lines: list[list[str]], at: str
    ) -> None:
        self._execute(
            "DELETE FROM conditional_lines WHERE game_id = ? AND seat = ?", [game_id, seat]
        )
        if lines:
            row = {"game_id": game_id, "seat": seat, "lines": lines, "updated_at": at}
            self._insert("conditional_lines", row)

    def drop_conditional_lines(self, game_id: str) -> None:
        self._execute("DELETE FROM conditional_lines WHERE game_id = ?", [game_id])

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
        self._serialize_messages()
        number = self._value(
            "SELECT coalesce(max(number), 0) FROM messages WHERE game_id = ? AND thread = ?",
            [message["game_id"], message["thread"]],
        )
        message_id = self._insert_id("messages", {**message, "number": number + 1})
        return self._one(Message, "SELECT * FROM messages WHERE id = ?", [message_id])

    def messages_posted_since(self, game_id: str, seat: int, since: str) -> int:
        # Two posts from one seat must not both count the messages before either is added.
        self._lock_game(game_id)
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
            f" AND seat NOT IN ({self._JSON_INTS})"
            f" ORDER BY number {'DESC' if newest else 'ASC'} LIMIT ?",
            [game_id, thread, after, json.dumps(list(hidden)), self._limit(limit)],
        )
        return messages[::-1] if newest else messages

    def last_said(self, seats: Sequence[tuple[str, int]]) -> dict[str, Message]:
        if not seats:
            return {}
        messages = self._all(
            Message,
            f"WITH pair (game_id, seat) AS (VALUES {', '.join('(?, ?)' for _ in seats)})"
            " SELECT m.* FROM pair CROSS JOIN messages m"
            " WHERE m.id = (SELECT max(id) FROM messages n WHERE n.game_id = pair.game_id"
            " AND n.thread = 'table' AND n.deleted_at IS NULL AND n.seat != pair.seat"
            " AND n.seat NOT IN (SELECT muted_seat FROM talk_mutes t"
            " WHERE t.game_id = n.game_id AND t.seat = pair.seat))",
            [value for pair in seats for value in pair],
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
            )
        )

    def unmailed_messages(
        self, game_id: str, seat: int, threads: Sequence[str], hidden: Sequence[int]
    ) -> list[Message]:
        return self._all(
            Message,
            "SELECT messages.* FROM messages JOIN seats ON seats.game_id = messages.game_id"
            " AND seats.seat = ? WHERE messages.game_id = ? AND messages.id > seats.talk_mailed"
            f" AND messages.thread IN ({self._JSON_TEXTS}) AND messages.seat != ?"
            " AND messages.deleted_at IS NULL"
            f" AND messages.seat NOT IN ({self._JSON_INTS}) ORDER BY messages.id",
            [seat, game_id, json.dumps(list(threads)), seat, json.dumps(list(hidden))],
        )

    def talk_mailed(self, game_id: str, seat: int, upto: int) -> None:
        with self.write():
            self._execute(
                "UPDATE seats SET talk_mailed = ? WHERE game_id = ? AND seat = ?"
                " AND talk_mailed < ?",
                [upto, game_id, seat, upto],
            )

    def set_muted(self, game_id: str, seat: int, muted_seat: int, muted: bool, at: str) -> None:
        with self.write():
            if muted:
                self._execute(
                    "INSERT INTO talk_mutes (game_id, seat, muted_seat, created_at)"
                    " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
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
            return self._value(
                "UPDATE seats SET mail_generation = mail_generation + 1"
                " WHERE game_id = ? AND seat = ? RETURNING mail_generation",
                [game_id, seat],
            )

    def queue_mail(self, mail: NewMail) -> None:
        self._insert("outbox", dict(mail))

    def outbox_by_message_id(self, message_id: str) -> OutboxMail | None:
        return self._one(OutboxMail, "SELECT * FROM outbox WHERE message_id = ?", [message_id])

    def claim_inbound(self, message_id: str, game_id: str, seat: int, now: str) -> bool:
        """
        >>> from server.store import open_store
        >>> store = open_store("sqlite:///:memory:")
        >>> _ = store.init()
        >>> [store.claim_inbound("<m@x>", "g1", 0, "2026-01-01T00:00:00Z") for _ in range(2)]
        [True, False]
        """
        claimed = self._execute(
            "INSERT INTO inbound (message_id, game_id, seat, handled_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [message_id, game_id, seat, now],
        )
        return claimed == 1

    def outbox_count(
        self, since: str | None = None, at_most: int | None = None, **where: Any
    ) -> int:
        """
        >>> from server.store import open_store
        >>> store = open_store("sqlite:///:memory:")
        >>> _ = store.init()
        >>> store.outbox_count("2024-01-01T00:00:00Z", at_most=5, rcpt_key="ann@example.org")
        0
        """
        conditions = [f"{column} = ?" for column in where]
        params = list(where.values())
        if since is not None:
            conditions.append("created_at > ?")
            params.append(since)
        rows = "SELECT 1 FROM outbox WHERE " + " AND ".join(conditions or ["1 = 1"])
        if at_most is not None:
            rows += " LIMIT ?"
            params.append(at_most)
        return self._value(f"SELECT count(*) FROM ({rows}) AS matched", params)

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
                f" ORDER BY id LIMIT ?{self._CLAIM.format(table='outbox')}",
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
            )

    def mail_suppressed(self, rcpt_key: str) -> bool:
        found = self._value(
            "SELECT 1 FROM mail_suppressions WHERE rcpt_hash = ?", [hash_secret(rcpt_key)]
        )
        return found is not None

    def suppress_mail(self, rcpt_key: str, now: str) -> None:
        with self.write():
            self._execute(
                "INSERT INTO mail_suppressions (rcpt_hash, created_at) VALUES (?, ?)"
                " ON CONFLICT DO NOTHING",
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
            f" AND {self._HOLDS.format(array='games.to_move', value='seats.seat')}"
            " ORDER BY games.deadline IS NULL, games.deadline, games.updated_at LIMIT ?",
            [player_id, limit],
        )

    def add_push_subscription(self, subscription: NewSubscription, keep: int) -> int:
        with self.write():
            for old in self._values(
                "SELECT id FROM push_subscriptions WHERE endpoint = ?", [subscription["endpoint"]]
            ):
                self._forget_subscription(old)
            new_id = self._insert_id("push_subscriptions", dict(subscription))
            for extra in self._values(
                "SELECT id FROM push_subscriptions WHERE player_id = ? ORDER BY id DESC"
                " LIMIT ? OFFSET ?",
                [subscription["player_id"], self._NO_LIMIT, keep],
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
                " WHERE pushes.next_attempt_at <= ?"
                f" ORDER BY pushes.id LIMIT ?{self._CLAIM.format(table='pushes')}",
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
            return self._insert_id("webhooks", {"game_id": game_id, "url": url, "created_at": now})

    def webhooks(self, game_id: str) -> list[Webhook]:
        return self._all(
            Webhook,
            "SELECT id, url, created_at FROM webhooks WHERE game_id = ? AND removed_at IS NULL"
            " AND seat IS NULL ORDER BY id",
            [game_id],
        )

    def remove_webhook(self, game_id: str, webhook_id: int, now: str) -> bool:
        if not 0 <= webhook_id <= MAX_INTEGER:
            return False
        with self.write():
            return bool(
                self._execute(
                    "UPDATE webhooks SET removed_at = ? WHERE id = ? AND game_id = ?"
                    " AND removed_at IS NULL AND seat IS NULL",
                    [now, webhook_id, game_id],
                )
            )

    def add_chat_ping(
        self, game_id: str, seat: int, kind: str, url: str, mention: str | None, now: str
    ) -> int:
        row = {"game_id": game_id, "seat": seat, "kind": kind, "url": url, "mention": mention}
        return self._insert_id("webhooks", {**row, "created_at": now})

    def chat_pings(self, game_id: str, seat: int) -> list[ChatPing]:
        return self._all(
            ChatPing,
            f"{_select(ChatPing)} FROM webhooks WHERE game_id = ? AND seat = ?"
            " AND removed_at IS NULL ORDER BY id",
            [game_id, seat],
        )

    def remove_chat_ping(self, game_id: str, seat: int, ping_id: int, now: str) -> bool:
        if not 0 <= ping_id <= MAX_INTEGER:
            return False
        with self.write():
            return bool(
                self._execute(
                    "UPDATE webhooks SET removed_at = ? WHERE id = ? AND game_id = ?"
                    " AND seat = ? AND removed_at IS NULL",
                    [now, ping_id, game_id, seat],
                )
            )

    def add_player_ping(
        self, player_id: str, kind: str, url: str, mention: str | None, now: str
    ) -> int:
        row = {"player_id": player_id, "kind": kind, "url": url, "mention": mention}
        return self._insert_id("player_pings", {**row, "created_at": now})

    def player_pings(self, player_id: str) -> list[PlayerPing]:
        return self._all(
            PlayerPing,
            f"{_select(PlayerPing)} FROM player_pings WHERE player_id = ?"
            " AND removed_at IS NULL ORDER BY id",
            [player_id],
        )

    def remove_player_ping(self, player_id: str, ping_id: int, now: str) -> bool:
        if not 0 <= ping_id <= MAX_INTEGER:
            return False
        with self.write():
            removed = self._execute(
                "UPDATE player_pings SET removed_at = ? WHERE id = ? AND player_id = ?"
                " AND removed_at IS NULL",
                [now, ping_id, player_id],
            )
            if removed:
                self._execute(
                    "UPDATE webhooks SET removed_at = ? WHERE player_ping_id = ?"
                    " AND removed_at IS NULL",
                    [now, ping_id],
                )
        return bool(removed)

    def seat_ping_of(self, game_id: str, seat: int, ping: PlayerPing, now: str) -> int | None:
        found = self._tuples(
            "SELECT id, removed_at FROM webhooks WHERE game_id = ? AND seat = ?"
            " AND player_ping_id = ?",
            [game_id, seat, ping.id],
        )
        if found:
            return None if found[0][1] is not None else found[0][0]
        row = {"game_id": game_id, "seat": seat, "kind": ping.kind, "url": ping.url}
        extra = {"mention": ping.mention, "player_ping_id": ping.id, "created_at": now}
        return self._insert_id("webhooks", {**row, **extra})

    def queue_chat_ping(self, ping_id: int, seq: int, body: Json, now: str) -> None:
        self._queue_delivery(ping_id, "turn", seq, body, now, (None, None))

    def queue_webhooks(
        self, game_id: str, event: str, seq: int, body: Json, now: str, max_pending: int
    ) -> None:
        hooks = self._values(
            "SELECT id FROM webhooks WHERE game_id = ? AND removed_at IS NULL AND seat IS NULL",
            [game_id],
        )
        for hook in hooks:
            missed = self._drop_backlog(hook, max_pending)
            self._queue_delivery(hook, event, seq, body, now, missed)

    def _queue_delivery(
        self,
        webhook_id: int,
        event: str,
        seq: int,
        body: Json,
        now: str,
        missed: tuple[int | None, int | None],
    ) -> None:
        """Queue one delivery of ``body`` to a webhook, due ``now``."""
        self._insert(
            "webhook_deliveries",
            {
                "webhook_id": webhook_id,
                "event": event,
                "seq": seq,
                "body": body,
                "created_at": now,
                "next_attempt_at": now,
                "missed_from_seq": missed[0],
                "missed_to_seq": missed[1],
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
        dropped = self._tuples(
            f"DELETE FROM webhook_deliveries WHERE {pending} AND event = 'move'"
            " RETURNING seq, missed_from_seq, missed_to_seq",
            [webhook_id],
        )
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
            due = "delivered_at IS NULL AND next_attempt_at <= ?"
            deliveries = self._claimed(deliveries, "webhook_deliveries", due, now)
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

    # -- figures for the operator --------------------------------------------------------
    def addressed_seats(self) -> int:
        return self._value(
            "SELECT count(*) FROM seats JOIN games ON games.id = seats.game_id"
            " WHERE seats.email IS NOT NULL AND games.status IN ('forming', 'active')"
        )

    def mail_backlog(self) -> MailBacklog:
        """
        >>> from server.store import open_store
        >>> store = open_store("sqlite:///:memory:")
        >>> _ = store.init()
        >>> store.mail_backlog()
        MailBacklog(unsent=0, oldest_at=None)
        """
        [row] = self._tuples(
            "SELECT count(*), min(created_at) FROM outbox"
            " WHERE sent_at IS NULL AND superseded IS NULL"
        )
        return MailBacklog(row[0], row[1])

    def failing_webhook_deliveries(self) -> int:
        return self._value(
            "SELECT count(*) FROM webhook_deliveries"
            " WHERE delivered_at IS NULL AND last_error IS NOT NULL"
        )

    # -- the operator's page ----------------------------------------------------------
    def find_games(self, text: str, limit: int) -> list[AdminGame]:
        pattern = "%" + re.sub(r"([\\%_])", r"\\\1", text.lower()) + "%"
        return self._with_players(
            AdminGame,
            f"SELECT {self._LISTED.format(g='')}, hidden_at FROM games"
            " WHERE ? = '' OR substr(id, 1, length(?)) = ? OR engine = ? OR id IN"
            " (SELECT game_id FROM seats WHERE lower(name) LIKE ? ESCAPE '\\')"
            " ORDER BY rowid DESC LIMIT ?",
            [text, text, text, text, pattern, limit],
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
                )
            )

    def suppression_count(self) -> int:
        return self._value("SELECT count(*) FROM mail_suppressions")

    def lift_suppression(self, rcpt_key: str) -> bool:
        with self.write():
            return bool(
                self._execute(
                    "DELETE FROM mail_suppressions WHERE rcpt_hash = ?", [hash_secret(rcpt_key)]
                )
            )

    def failing_webhooks(self, limit: int) -> list[FailingDelivery]:
        return self._all(
            FailingDelivery,
            "SELECT webhook_deliveries.*, webhooks.url, webhooks.game_id FROM webhook_deliveries"
            " JOIN webhooks ON webhooks.id = webhook_id WHERE delivered_at IS NULL"
            " AND last_error IS NOT NULL ORDER BY webhook_deliveries.id DESC LIMIT ?",
            [limit],
        )

    # -- statements (no introspection per call: these run on the hot path) ----------------
    def _insert(self, table: str, row: dict[str, Any]) -> None:
        """Insert ``row`` (its JSON columns encoded here)."""
        encoded = _encode(row)
        marks = ", ".join("?" for _ in encoded)
        self._execute(
            f"INSERT INTO {table} ({', '.join(encoded)}) VALUES ({marks})", list(encoded.values())
        )

    def _insert_id(self, table: str, row: dict[str, Any]) -> int:
        """Insert ``row`` into a table with an ``id`` key; its id."""
        encoded = _encode(row)
        marks = ", ".join("?" for _ in encoded)
        sql = f"INSERT INTO {table} ({', '.join(encoded)}) VALUES ({marks}) RETURNING id"
        return self._value(sql, list(encoded.values()))

    def _update(self, table: str, values: Any, where: str, params: list[Any]) -> int:
        """Set ``values`` (JSON columns encoded here) on the rows ``where`` picks; how many."""
        encoded = _encode(dict(values))
        assignments = ", ".join(f"{column} = ?" for column in encoded)
        sql = f"UPDATE {table} SET {assignments} WHERE {where}"
        return self._execute(sql, [*encoded.values(), *params])

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        """The rows ``sql`` reads, as dicts by column name, decoded."""
        return [_decode(row) for row in self._named(sql, params)]

    def _all(self, kind: type[R], sql: str, params: Sequence[Any] = ()) -> list[R]:
        return [kind(**row) for row in self._rows(sql, params)]

    def _one(self, kind: type[R], sql: str, params: Sequence[Any] = ()) -> R | None:
        rows = self._rows(sql, params)
        return kind(**rows[0]) if rows else None

    def _value(self, sql: str, params: Sequence[Any] = ()) -> Any:
        """The first column of the first row ``sql`` reads, or ``None``."""
        rows = self._tuples(sql, params)
        return rows[0][0] if rows else None

    def _values(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The first column of every row ``sql`` reads."""
        return [row[0] for row in self._tuples(sql, params)]
