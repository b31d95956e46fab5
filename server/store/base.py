"""The store's interface: its operations by area as typed protocols, and the errors it raises.

Every query Turnpost runs is an operation named here, with what it takes
and gives as typed records (:mod:`server.store.records`): the rest of the
server calls these and nothing else, so each backend (:mod:`server.store.sqlite`,
:mod:`server.store.postgres`) implements :class:`Store` and passes the same store tests.
:func:`server.store.open_store` picks the backend from ``TURNPOST_DB``.

Operations marked *in a write* expect the caller's :meth:`Connection.write`
block, so that a move, its snapshot, its mails and webhooks land together;
the others run on their own (a write of their own where they change
something). A backend raises :class:`StoreUnavailable` when the database is
locked for too long or cannot be reached (callers retry, or ask their
client to), and :class:`Conflict` when a row another writer made first
takes a unique key.

The areas: :class:`Connection` (transactions, schema, waiting for changes),
:class:`BackupStore`, :class:`SettingsStore`, :class:`GameStore` (games and seats),
:class:`TableStore`, :class:`SeatTokenStore`, :class:`MoveLog`,
:class:`IdempotencyStore`, :class:`PlayerStore`, :class:`TalkStore`,
:class:`MailStore`, :class:`NotificationStore`, :class:`WebhookStore` and
:class:`OperatorStore` (what the operator's page reads and mends).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from server.store.records import (
    AdminGame,
    Analysis,
    ApiToken,
    BotTurn,
    ChatPing,
    ClaimedDelivery,
    ClaimedPush,
    EndedGame,
    FailingDelivery,
    GameRow,
    GameSeats,
    GameStamp,
    GameUpdate,
    IdempotentAnswer,
    Json,
    ListedGame,
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
    SchemaChange,
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


class StoreError(Exception):
    """A failure of the store that callers handle (the backend's own errors never leave it)."""


class StoreUnavailable(StoreError):
    """The database is locked for longer than the store waits, or cannot be reached: try later.

    ``turnpost mail-in`` exits 75 on it (the MTA retries), the SMTP/LMTP
    listener answers ``451``, the event feed tries again at its next look.
    """


class UnknownDatabase(StoreError, ValueError):
    """``TURNPOST_DB`` names no database a backend serves (its message says what to give)."""


class Conflict(StoreError):
    """A row another writer made first holds the unique key this write needed."""


def hash_secret(secret: str) -> str:
    """The stored form of a token: its SHA-256 hex digest.

    >>> len(hash_secret("abc"))
    64
    """
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    """A fresh URL-safe token (192 bits)."""
    return secrets.token_urlsafe(24)


def canonical_json(value: Json) -> str:
    """Canonical JSON: sorted keys, no spaces; equal values give equal text.

    >>> canonical_json({"b": [1, 2], "a": None})
    '{"a":null,"b":[1,2]}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Connection(Protocol):
    """One connection to the database: transactions, the schema, changes by others."""

    #: The backend's name (``sqlite``), for operators.
    backend: str

    def close(self) -> None:
        """Close the connection."""
        ...

    def init(self) -> SchemaChange:
        """Create the schema, or upgrade it to the latest version; what changed."""
        ...

    def schema_version(self) -> int:
        """How many migrations the database has had (0: none yet)."""
        ...

    def write(self) -> AbstractContextManager[object]:
        """A write transaction: everything inside lands together or not at all.

        Writers queue for it rather than fail halfway, so a read-check-write
        inside the block is race free; an error inside rolls it all back.
        """
        ...

    def wait_for_change(self, seen: int | None, timeout: float) -> int:
        """Wait until another connection committed a change after mark ``seen``, at most
        ``timeout`` seconds; the current mark (``seen`` itself if nothing changed).

        ``None`` (no mark yet) returns the current mark at once. Event feeds
        call this in a loop instead of polling the tables.
        """
        ...


class BackupStore(Protocol):
    """Whole copies of the database, for ``turnpost backup`` and ``turnpost restore``."""

    def backup(self, path: str) -> None:
        """Write a consistent copy of the whole database (its settings, the secret key kept
        there, included) to the file ``path``, readable by its owner only, while other
        connections go on writing. A copy that does not check is removed and refused
        (:class:`StoreError`). SQLite: a database file made with SQLite's online backup API."""
        ...

    def restore(self, path: str) -> None:
        """Replace everything in the database with the copy at ``path`` made by
        :meth:`backup`; :class:`StoreError` (nothing changed) if it is not such a copy."""
        ...


class TableCopying(Protocol):
    """Every table as it is, for copying a whole database (``turnpost copy-db``,
    :mod:`server.store.copy`): not for the app."""

    def tables(self) -> dict[str, Table]:
        """Every table of Turnpost's schema by name (not the migrations' own record), with
        the columns both backends keep: a backend's own (PostgreSQL's ``rowid`` and
        ``xact``, which it makes itself) are left out."""
        ...

    def snapshot(self) -> AbstractContextManager[object]:
        """A transaction whose reads all see the database at one moment."""
        ...

    def count_rows(self, table: str) -> int:
        """How many rows ``table`` holds."""
        ...

    def table_rows(self, table: Table) -> list[tuple[Any, ...]]:
        """Every row of ``table`` (its ``columns``, in its ``order``), JSON as canonical
        text."""
        ...

    def insert_rows(self, table: str, columns: Sequence[str], rows: list[tuple[Any, ...]]) -> None:
        """Insert ``rows`` (values of ``columns``) into ``table``, in a write."""
        ...

    def empty_table(self, table: str) -> None:
        """Delete every row of ``table``, in a write."""
        ...

    def after_copy(self) -> None:
        """After rows were inserted with their ids: the next id of each table follows them."""
        ...


class SettingsStore(Protocol):
    """The server's own settings kept in the database: named text values."""

    def setting(self, name: str) -> str | None:
        """The value of setting ``name``, or ``None``."""
        ...

    def set_setting(self, name: str, value: str) -> None:
        """Set ``name`` to ``value``."""
        ...

    def keep_setting(self, name: str, value: str) -> str:
        """Set ``name`` to ``value`` unless it has a value; the value it has now.

        Of processes starting at once, the first one's value wins for all.
        """
        ...

    def forget_setting(self, name: str) -> None:
        """Remove setting ``name`` (nothing if it has none)."""
        ...


class GameStore(Protocol):
    """Games and their seats."""

    def create_game(self, game: GameRow, seats: Sequence[NewSeat]) -> None:
        """Insert a game and its seats, numbered from 0 (in a write).

        :class:`Conflict` if the game is the rematch of a game that has one.
        """
        ...

    def game(self, game_id: str) -> GameRow | None:
        """The game ``game_id``, or ``None``."""
        ...

    def game_with_seats(self, game_id: str, token: str | None = None) -> GameSeats | None:
        """The game ``game_id`` with its seats in seat order, in one read, and the seat of
        ``token`` if it is a live seat token of the game; ``None`` if there is no such game.

        In a write, the game's row is locked as :meth:`game` locks it.
        """
        ...

    def page_version(self, game_id: str, thread: str, shown: int) -> str | None:
        """A digest of every row a watcher's game page is drawn from, in one read: the game,
        its seats, its takeback offer, analysis and rematch, and where the newest ``shown``
        messages of its talk's ``thread`` stand (the newest, the deletions); it changes
        whenever any of them does. ``None`` if there is no such game."""
        ...

    def game_stamp(
        self, game_id: str, token: str | None = None
    ) -> tuple[GameStamp, int | None] | None:
        """The stamp of the game ``game_id`` (its version and seats, not its state) and the
        seat of ``token`` if it is a live seat token of the game, in one read; ``None`` if
        there is no such game. Never locks: for the reads that keep their answers."""
        ...

    def game_seq(self, game_id: str) -> int | None:
        """The number of moves in the log of the game ``game_id``; ``None`` if there is no
        such game. Never locks: for the reads that keep their answers."""
        ...

    def game_exists(self, game_id: str) -> bool:
        """Whether there is a game ``game_id``."""
        ...

    def update_game(self, game_id: str, values: GameUpdate) -> None:
        """Set ``values`` on the game ``game_id`` (in a write)."""
        ...

    def set_reminders(self, game_id: str, seq: int, bits: int) -> bool:
        """Record the reminders sent for the turn after move ``seq`` (in a write).

        Whether anything changed: nothing does if the game moved on since
        ``seq`` or already had these reminders.
        """
        ...

    def game_ids(self) -> list[str]:
        """The id of every game and table, in order."""
        ...

    def timed_games(self) -> list[str]:
        """Ids of the running games that have a turn deadline, the soonest first."""
        ...

    def games_page(
        self,
        engine: str | None,
        status: str | None,
        seat: tuple[str, int, bool | None] | None,
        before: int | None,
        limit: int,
    ) -> list[ListedGame]:
        """Up to ``limit`` games, newest first.

        Filters: ``engine``, ``status``; ``seat`` = ``(game_id, seat, waiting)``
        keeps that game only (hidden or not), and if ``waiting`` is not ``None``
        only if it waits (``waiting`` true) or does not wait for that seat
        (without ``seat``, games their host hid are left out); ``before``: only
        games older than that cursor.
        """
        ...

    def bot_turns(self, limit: int) -> list[BotTurn]:
        """Up to ``limit`` bot seats that running games wait for (read through the bot seats'
        own index, ``seats_bots``, not the games)."""
        ...

    def claim_bot_turn(self, game_id: str, holder: str, now: str, until: str) -> bool:
        """Claim the bot turn of ``game_id`` for ``holder`` until ``until`` (in a write):
        whether it is theirs now (no other holder's claim runs at ``now``)."""
        ...

    def release_bot_turn(self, game_id: str, holder: str) -> None:
        """End ``holder``'s claim of the bot turn of ``game_id`` (in a write)."""
        ...

    def games_to_analyse(self, limit: int) -> list[str]:
        """Up to ``limit`` finished games with a person at a seat and no analysis yet, the
        longest finished first (:mod:`server.games.analysis`)."""
        ...

    def analysis(self, game_id: str) -> Analysis | None:
        """What the computer made of the finished game ``game_id``, or ``None`` (not yet)."""
        ...

    def save_analysis(self, analysis: Analysis) -> None:
        """Keep ``analysis``; a game analysed already keeps its first one."""
        ...

    def seats(self, game_id: str) -> list[Seat]:
        """The seats of a game in seat order."""
        ...

    def seat(self, game_id: str, seat: int) -> Seat | None:
        """One seat, or ``None``."""
        ...

    def make_seat_private(self, game_id: str, seat: int, at: str) -> None:
        """Record that the seat's player replaced its handed token at ``at`` (in a write)."""
        ...

    def seat_reissued(self, game_id: str, seat: int, at: str) -> None:
        """Record a reissue at ``at``: the seat is not private, its passes void, and it is no
        player's seat any more, nor taken at a forming table (in a write)."""
        ...

    def mark_acted(self, game_id: str, seat: int, at: str) -> None:
        """Record that ``seat`` acted at ``at`` (in a write)."""
        ...

    def set_vacation(
        self, game_id: str, seat: int, until: str, year: int, days_used: float
    ) -> None:
        """Record a seat's vacation and its days used in ``year`` (in a write)."""
        ...

    def stop_mail(self, game_id: str, seat: int, at: str | None) -> None:
        """Stop a seat's mail from ``at`` on (``None``: mail it again); in a write."""
        ...


class TableStore(Protocol):
    """Tables: games that form before they start."""

    def open_tables(self, now: str, limit: int) -> list[OpenTable]:
        """Forming tables with an open seat, neither hidden nor expired at ``now``, newest
        first."""
        ...

    def lobby_games(self, player_id: str, limit: int) -> list[LobbyGame]:
        """The games ``player_id`` sits at or created, last changed first."""
        ...

    def expired_tables(self, now: str) -> list[str]:
        """Ids of the forming tables whose time to fill ran out by ``now``."""
        ...

    def rematch_of(self, game_id: str) -> str | None:
        """The id of the rematch of ``game_id``, or ``None``."""
        ...

    def update_seat(self, game_id: str, seat: int, values: SeatUpdate) -> bool:
        """Set ``values`` on one seat (in a write); whether it exists."""
        ...

    def renumber_seats(self, game_id: str, order: list[int]) -> None:
        """Move seat ``n`` of ``game_id`` to seat ``order[n]`` everywhere a seat is named (its
        tokens, mails, idempotency keys...); every seat's reply key and mail links are
        renewed (in a write)."""
        ...

    def mailed_seats(self, game_id: str) -> set[int]:
        """The seats of ``game_id`` that have mail in the outbox (queued or sent)."""
        ...


class SeatTokenStore(Protocol):
    """Seat tokens (kept hashed) and the keys of a creator's page."""

    def seat_by_token(self, game_id: str, token: str) -> int | None:
        """The seat a live token lets in in this game, or ``None``."""
        ...

    def seat_of_token(self, token: str) -> SeatRef | None:
        """The seat of a live seat token in any game, or ``None``."""
        ...

    def seat_token(self, game_id: str, token: str) -> SeatToken | None:
        """The token ``token`` of this game, live or revoked, or ``None``."""
        ...

    def add_seat_token(self, game_id: str, seat: int, token: str, kind: str, at: str) -> None:
        """Let ``token`` (stored hashed) in as ``seat``: ``kind`` says who saw it (in a write)."""
        ...

    def revoke_seat_tokens(
        self, game_id: str, seat: int, kinds: tuple[str, ...], at: str, why: str
    ) -> None:
        """Stop the live tokens of ``kinds`` of a seat at ``at``, saying ``why`` (in a write)."""
        ...

    def drop_seat_tokens(self, game_id: str, seat: int, kind: str, keep: int) -> None:
        """Forget all but the newest ``keep`` live tokens of ``kind`` of a seat (in a write)."""
        ...

    def seat_tokens_since(self, game_id: str, kind: str, since: str) -> int:
        """How many tokens of ``kind`` the game's seats were given since ``since``."""
        ...

    def add_created_page(self, key_hash: str, game_id: str, until: str, now: str) -> None:
        """Remember a creator's page key (its hash) until ``until``; forget expired ones."""
        ...

    def created_page(self, key_hash: str, game_id: str, now: str) -> bool:
        """Whether ``key_hash`` is a creator's page key of ``game_id`` still valid at ``now``."""
        ...

    def forget_created_page(self, key_hash: str) -> None:
        """Forget a creator's page key."""
        ...


class MoveLog(Protocol):
    """The append-only move log, and what event feeds read of it."""

    def append_move(self, move: LoggedMove) -> None:
        """Append an entry to the log (in a write; its ``result`` is the game's); an entry is
        never rewritten, and a second entry for a ``(game_id, seq)`` is refused."""
        ...

    def moves(self, game_id: str, after: int = 0, upto: int | None = None) -> list[LoggedMove]:
        """The entries with ``after < seq <= upto``, in order."""
        ...

    def logged_moves(
        self, game_id: str, after: int = 0, limit: int | None = None
    ) -> list[LoggedMove]:
        """The entries after ``after`` in order (the first ``limit`` of them, if given)."""
        ...

    def last_move_cursor(self) -> int:
        """A cursor after every entry logged so far (for :meth:`moves_since`)."""
        ...

    def moves_since(self, cursor: int) -> list[tuple[int, LoggedMove]]:
        """Every game's entries logged after ``cursor`` in log order, each with its cursor."""
        ...

    def ended_games(self, game_ids: list[str]) -> list[EndedGame]:
        """Those of ``game_ids`` that are over."""
        ...


class TakebackStore(Protocol):
    """The open takeback offer of each game (:mod:`server.games.takebacks`)."""

    def takeback_offer(self, game_id: str) -> TakebackOffer | None:
        """The game's open takeback offer, or ``None``."""
        ...

    def set_takeback_offer(self, offer: TakebackOffer) -> None:
        """Make ``offer`` the game's open offer (replacing any earlier one)."""
        ...

    def drop_takeback_offer(self, game_id: str) -> None:
        """Forget the game's open takeback offer, if it has one."""
        ...


class ConditionalStore(Protocol):
    """Each seat's conditional moves (:mod:`server.games.conditional`): private to the seat."""

    def conditional_lines(self, game_id: str) -> dict[int, list[list[str]]]:
        """The stored lines of every seat of the game that has some, by seat."""
        ...

    def set_conditional_lines(
        self, game_id: str, seat: int, lines: list[list[str]], at: str
    ) -> None:
        """Replace the lines of ``seat`` (none: forget them)."""
        ...

    def drop_conditional_lines(self, game_id: str) -> None:
        """Forget every seat's lines in the game."""
        ...


class IdempotencyStore(Protocol):
    """The answers given to ``Idempotency-Key`` requests."""

    def idempotent_response(self, game_id: str, seat: int, key: str) -> IdempotentAnswer | None:
        """The request and answer recorded for an ``Idempotency-Key``, or ``None``."""
        ...

    def record_response(
        self, game_id: str, seat: int, key: str, request: Json, response: Json
    ) -> None:
        """Remember the answer to an ``Idempotency-Key`` (in a write)."""
        ...


class PlayerStore(Protocol):
    """Players: accounts, sign-in links, sessions, API tokens, their seats and games."""

    def add_player(self, player: Player) -> None:
        """Insert a player (in a write)."""
        ...

    def player(self, player_id: str) -> Player | None:
        """The player ``player_id``, or ``None``."""
        ...

    def player_by_email_key(self, email_key: str) -> Player | None:
        """The player whose address reaches the mailbox ``email_key``, or ``None``."""
        ...

    def update_player(self, player_id: str, values: PlayerUpdate) -> None:
        """Set a player's ``name``, ``time_zone``, ``language`` or ``mail_pref``."""
        ...

    def add_sign_in_link(self, link: SignInLink) -> None:
        """Record a sign-in link asked for (in a write)."""
        ...

    def sign_in_links_since(self, since: str, **where: str) -> int:
        """How many sign-in links were asked for since ``since`` by ``email_key`` or ``client``."""
        ...

    def use_sign_in_link(self, link_id: str, now: str) -> SignInLink | None:
        """Mark a sign-in link used at ``now``: the link if it was unused and unexpired, else
        ``None`` (in a write: of two uses at once, one wins)."""
        ...

    def add_session(self, token_hash: str, player_id: str, now: str) -> None:
        """Open a session (its token's hash) for ``player_id``."""
        ...

    def session_player(self, token_hash: str) -> Player | None:
        """The player of a live session, or ``None``."""
        ...

    def end_sessions(
        self, now: str, token_hash: str | None = None, player_id: str | None = None
    ) -> None:
        """End one session (``token_hash``) or every session of ``player_id``."""
        ...

    def add_api_token(self, token_hash: str, player_id: str, name: str, now: str) -> int:
        """Give ``player_id`` a personal API token (its hash) named ``name``; its id."""
        ...

    def api_tokens(self, player_id: str) -> list[ApiToken]:
        """A player's live API tokens, oldest first."""
        ...

    def revoke_api_token(self, player_id: str, token_id: int, now: str) -> bool:
        """Revoke one of ``player_id``'s API tokens; whether it was live."""
        ...

    def api_token_player(self, token_hash: str) -> Player | None:
        """The player of a live API token, or ``None``."""
        ...

    def tie_seat(self, game_id: str, seat: int, player_id: str) -> None:
        """Make ``seat`` of ``game_id`` a seat of ``player_id`` (in a write)."""
        ...

    def player_games(self, player_id: str) -> list[PlayerGame]:
        """Every game with a seat of ``player_id``: one per such seat.

        Found through the seats' player index, each game and its last entry
        by key: the cost grows with the player's games, never with the database.
        """
        ...

    def game_states(self, game_ids: list[str]) -> dict[str, Json]:
        """The stored ``state`` of each of ``game_ids``, by game id."""
        ...

    def player_moved_since(self, player_id: str, cursor: int) -> list[str]:
        """The games of ``player_id`` with a move logged after ``cursor`` (a
        :meth:`MoveLog.last_move_cursor`). Reads every move logged since: keep it recent."""
        ...

    def players_of_games(self, game_ids: list[str]) -> list[tuple[str, str]]:
        """``(game_id, player_id)`` of every seat of ``game_ids`` tied to a player, once each."""
        ...

    def spend_vacation_day(self, player_id: str, year: int, allowance: int) -> bool:
        """Count one automatic vacation day of ``player_id`` in ``year`` (the player's
        calendar year) unless ``allowance`` days are counted already; whether it was counted.
        One statement: of two workers spending the player's last day at once, one counts it."""
        ...

    def vacation_days_used(self, player_id: str, year: int) -> int:
        """The automatic vacation days ``player_id`` spent in ``year``, across all games."""
        ...


class TalkStore(Protocol):
    """Table talk: the messages of each game's threads, mutes, what was mailed."""

    def add_message(self, message: NewMessage) -> Message:
        """Append a message as the next ``number`` of its thread; the message (in a write)."""
        ...

    def messages_posted_since(self, game_id: str, seat: int, since: str) -> int:
        """How many messages ``seat`` of ``game_id`` posted after ``since`` (deleted ones too);
        in a write, counted after the game's other writes commit, so a limit holds."""
        ...

    def thread_messages(
        self,
        game_id: str,
        thread: str,
        after: int = 0,
        limit: int = -1,
        hidden: Sequence[int] = (),
        newest: bool = False,
    ) -> list[Message]:
        """The messages of a thread numbered after ``after``, in order, without those of the
        ``hidden`` seats: the first ``limit`` of them (``newest``: the last ``limit``; -1: all)."""
        ...

    def last_said(self, seats: Sequence[tuple[str, int]]) -> dict[str, Message]:
        """The newest message of each game's table that the seat given for it reads (not
        deleted, not by a seat it muted, not its own), by game id: ``(game_id, seat)`` in."""
        ...

    def message(self, game_id: str, thread: str, number: int) -> Message | None:
        """Message ``number`` of a thread, or ``None``."""
        ...

    def forget_message_text(self, message_id: int, at: str, by: str) -> bool:
        """Delete a message's text, recording when and by whom; whether it still had one
        (in a write)."""
        ...

    def unmailed_messages(
        self, game_id: str, seat: int, threads: Sequence[str], hidden: Sequence[int]
    ) -> list[Message]:
        """The messages of ``threads`` posted since ``seat`` was last mailed them, in order:
        neither its own, nor deleted, nor of the ``hidden`` seats."""
        ...

    def talk_mailed(self, game_id: str, seat: int, upto: int) -> None:
        """Record that ``seat`` was mailed the messages up to id ``upto``."""
        ...

    def set_muted(self, game_id: str, seat: int, muted_seat: int, muted: bool, at: str) -> None:
        """Mute (``muted``) or unmute the messages of ``muted_seat`` for ``seat``."""
        ...

    def muted_seats(self, game_id: str, seat: int) -> list[int]:
        """The seats whose messages ``seat`` muted, in seat order."""
        ...

    def last_message_cursor(self) -> int:
        """A cursor after every message posted so far (for :meth:`messages_since`)."""
        ...

    def messages_since(self, cursor: int) -> list[tuple[Message, str]]:
        """Every game's messages posted after ``cursor`` in order, each with its writer's name;
        a message's ``id`` is the next cursor."""
        ...


class MailStore(Protocol):
    """Mail: reply keys, the outbox, the replies handled, the addresses never to mail."""

    def mail_generation(self, game_id: str, seat: int) -> int | None:
        """The key generation of a seat's reply address, or ``None`` for no such seat."""
        ...

    def revoke_mail_key(self, game_id: str, seat: int) -> int | None:
        """Move a seat's reply key to its next generation; the new one, or ``None`` (no seat)."""
        ...

    def queue_mail(self, mail: NewMail) -> None:
        """Put a mail in the outbox (in a write)."""
        ...

    def outbox_by_message_id(self, message_id: str) -> OutboxMail | None:
        """The mail sent with ``message_id``, or ``None``."""
        ...

    def claim_inbound(self, message_id: str, game_id: str, seat: int, now: str) -> bool:
        """Record a mail by reply to ``seat`` as handled; ``False`` if it already was."""
        ...

    def outbox_count(
        self, since: str | None = None, at_most: int | None = None, **where: Any
    ) -> int:
        """How many mails match ``where`` (column = value), created after ``since``.

        With ``at_most``, counting stops there (a limit check reads no more rows).
        """
        ...

    def unsent_mail(self, game_id: str, seat: int) -> list[OutboxMail]:
        """The mails to ``seat`` of ``game_id`` neither sent nor superseded, oldest first."""
        ...

    def claim_due_mail(self, now: str, lease_end: str, limit: int) -> list[OutboxMail]:
        """Take up to ``limit`` unsent mails due at ``now`` until ``lease_end``, counting an
        attempt: each as it was before the claim; another worker skips them until then."""
        ...

    def mail_sent(
        self, mail_id: int, at: str, subject: str, members: list[int] | None = None
    ) -> None:
        """Mark the mail ``mail_id`` sent at ``at`` with ``subject``; ``members``: the other
        mails whose news went out in it (a digest)."""
        ...

    def mail_superseded(self, mail_id: int, reason: str) -> None:
        """Never send the mail ``mail_id``, for ``reason`` (e.g. the turn was played)."""
        ...

    def give_message_id(self, mail_id: int, message_id: str) -> str:
        """The Message-ID of the mail ``mail_id``: its own, or ``message_id`` given now."""
        ...

    def mail_failed(self, mail_id: int, error: str, next_attempt: str | None) -> None:
        """Record why sending ``mail_id`` failed and when to try again (``None``: never)."""
        ...

    def forget_mail_bodies(self, before: str) -> int:
        """Forget the facts of done mails (sent, superseded or failed for good) created before
        ``before``; how many. Their headers stay."""
        ...

    def mail_suppressed(self, rcpt_key: str) -> bool:
        """Whether the recipient ``rcpt_key`` asked never to be mailed again."""
        ...

    def suppress_mail(self, rcpt_key: str, now: str) -> None:
        """Never mail ``rcpt_key`` again (only its hash is kept)."""
        ...


class NotificationStore(Protocol):
    """Notifications: daily digests and Web Push."""

    def digests_due(self, now: str, limit: int) -> list[Player]:
        """Up to ``limit`` players who chose the daily digest and whose next one is due at
        ``now`` (never scheduled yet, or due), the longest due first."""
        ...

    def set_digest_due(self, player_id: str, due: str) -> None:
        """Schedule ``player_id``'s next digest at ``due`` (in a write)."""
        ...

    def waiting_seats(self, player_id: str, limit: int) -> list[Seat]:
        """Up to ``limit`` seats of ``player_id`` that a running game waits for, with mail on:
        the soonest deadline first, then the game waiting longest."""
        ...

    def add_push_subscription(self, subscription: NewSubscription, keep: int) -> int:
        """Record a browser's push subscription; its id. The same endpoint again replaces the
        old one; a player keeps their ``keep`` newest ones."""
        ...

    def push_subscriptions(self, player_id: str) -> list[PushSubscription]:
        """A player's push subscriptions, oldest first."""
        ...

    def remove_push_subscription(self, subscription_id: int, player_id: str | None = None) -> bool:
        """Forget a push subscription and its pushes (only ``player_id``'s, if given); whether
        there was one."""
        ...

    def queue_pushes(self, player_id: str, push: NewPush) -> int:
        """Queue ``push`` to each subscription of ``player_id``, replacing the pending push of
        the same game and seat; how many (in a write)."""
        ...

    def claim_due_pushes(self, now: str, lease_end: str, limit: int) -> list[ClaimedPush]:
        """Take up to ``limit`` pushes due at ``now`` until ``lease_end``, counting an attempt:
        each as it was before the claim; another worker skips them until then."""
        ...

    def push_retry(self, push_id: int, next_attempt: str | None) -> None:
        """Try the push ``push_id`` again at ``next_attempt``; ``None``: it is done (forgotten)."""
        ...


class WebhookStore(Protocol):
    """Webhooks and their deliveries."""

    def add_webhook(self, game_id: str, url: str, now: str) -> int:
        """Record a webhook of ``game_id``; its id."""
        ...

    def webhooks(self, game_id: str) -> list[Webhook]:
        """The webhooks of ``game_id`` not removed, oldest first."""
        ...

    def remove_webhook(self, game_id: str, webhook_id: int, now: str) -> bool:
        """Stop a webhook of ``game_id`` (its pending deliveries are dropped); whether it was."""
        ...

    def add_chat_ping(
        self, game_id: str, seat: int, kind: str, url: str, mention: str | None, now: str
    ) -> int:
        """Record a chat ping of ``seat`` of ``game_id`` (in a write); its id."""
        ...

    def chat_pings(self, game_id: str, seat: int) -> list[ChatPing]:
        """The chat pings of ``seat`` of ``game_id`` not removed, oldest first."""
        ...

    def remove_chat_ping(self, game_id: str, seat: int, ping_id: int, now: str) -> bool:
        """Stop a chat ping of ``seat`` (its pending deliveries are dropped); whether it was."""
        ...

    def add_player_ping(
        self, player_id: str, kind: str, url: str, mention: str | None, now: str
    ) -> int:
        """Record a chat ping of a player (in a write); its id."""
        ...

    def player_pings(self, player_id: str) -> list[PlayerPing]:
        """The chat pings of a player not removed, oldest first."""
        ...

    def remove_player_ping(self, player_id: str, ping_id: int, now: str) -> bool:
        """Stop a player's chat ping and the seats' pings made from it; whether it was."""
        ...

    def seat_ping_of(self, game_id: str, seat: int, ping: PlayerPing, now: str) -> int | None:
        """The seat's ping made from a player's ``ping`` in ``game_id``, made now if the seat
        has none; ``None`` if the seat removed it (in a write)."""
        ...

    def queue_chat_ping(self, ping_id: int, seq: int, body: Json, now: str) -> None:
        """Queue ``body`` (a ``turn`` event) for the chat ping ``ping_id`` (in a write)."""
        ...

    def queue_webhooks(
        self, game_id: str, event: str, seq: int, body: Json, now: str, max_pending: int
    ) -> None:
        """Queue ``body`` for every webhook of ``game_id`` (in a write).

        A webhook that already has ``max_pending`` deliveries pending loses
        its pending ``move`` deliveries, and the new one records the seqs
        they spanned in ``missed_from_seq`` and ``missed_to_seq``.
        """
        ...

    def claim_due_webhooks(
        self, now: str, lease_end: str, limit: int, per_webhook: int
    ) -> list[ClaimedDelivery]:
        """Take up to ``limit`` due deliveries until ``lease_end``, counting an attempt.

        Fairly: at most ``per_webhook`` of one webhook (the oldest), none of
        a resting webhook, and games take turns (every game's oldest due
        delivery first, then every game's second...). Each as it was before
        the claim.
        """
        ...

    def webhook_delivered(self, delivery_id: int, at: str, status: int) -> None:
        """Mark a delivery done at ``at`` (answered ``status``); its webhook rests no more."""
        ...

    def webhook_failed(
        self, delivery_id: int, error: str, next_attempt: str | None, status: int | None
    ) -> None:
        """Record why a delivery failed and when to try again (``None``: never); a delivery
        tried again makes its webhook rest until then."""
        ...

    def webhook_deliveries(self, game_id: str) -> list[WebhookDelivery]:
        """Every delivery to the webhooks of ``game_id``, in order (for operators and tests)."""
        ...


class OperatorStore(Protocol):
    """What the operator reads and mends across all games: figures for ``turnpost check``
    and ``/metrics`` (read when asked for, never on a request's path) and what the
    operator's page (``/admin``) finds and mends."""

    def addressed_seats(self) -> int:
        """How many seats of forming or running games have an email address."""
        ...

    def mail_backlog(self) -> MailBacklog:
        """The mails neither sent nor superseded yet, and when the oldest was queued."""
        ...

    def failing_webhook_deliveries(self) -> int:
        """How many webhook deliveries failed and were not delivered since (retrying or given
        up)."""
        ...

    def find_games(self, text: str, limit: int) -> list[AdminGame]:
        """Up to ``limit`` games, hidden ones too, newest first: those whose id starts with
        ``text``, whose engine is ``text`` or with a seat whose name holds ``text`` (any case);
        with ``text`` empty, the newest."""
        ...

    def mail_problems(self, limit: int) -> list[OutboxMail]:
        """Up to ``limit`` unsent mails whose last attempt failed (tried again later, or failed
        for good: no next attempt), newest first."""
        ...

    def withheld_mail(self, limit: int) -> list[OutboxMail]:
        """Up to ``limit`` mails that will never be sent (``superseded`` says why), newest
        first."""
        ...

    def retry_mail(self, mail_id: int, now: str) -> bool:
        """Make an unsent, not superseded mail due at ``now`` with its attempts counted from 0
        again; whether there was such a mail."""
        ...

    def suppression_count(self) -> int:
        """How many recipients asked never to be mailed again."""
        ...

    def lift_suppression(self, rcpt_key: str) -> bool:
        """Let ``rcpt_key`` be mailed again; whether it had asked not to be."""
        ...

    def failing_webhooks(self, limit: int) -> list[FailingDelivery]:
        """Up to ``limit`` undelivered webhook deliveries whose last attempt failed, newest
        first."""
        ...


class Store(
    Connection,
    BackupStore,
    TableCopying,
    SettingsStore,
    GameStore,
    TableStore,
    SeatTokenStore,
    MoveLog,
    TakebackStore,
    ConditionalStore,
    IdempotencyStore,
    PlayerStore,
    TalkStore,
    MailStore,
    NotificationStore,
    WebhookStore,
    OperatorStore,
    Protocol,
):
    """A connection to the Turnpost database with every operation of every area."""
