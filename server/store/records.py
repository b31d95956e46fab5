"""What the store hands out and takes in: typed records with decoded values, never JSON text.

Each record is a frozen dataclass named after what it is (a game row, a
seat, a logged move...), one field per column of the query that reads it;
the JSON columns (a game's ``state``, ``options``, ``position``, ``to_move``
and ``result``, a move's ``move`` and ``public_move``, a mail's ``facts``, a
webhook delivery's ``body``, a push's ``payload``) are Python values here: a
backend encodes and decodes them (:mod:`server.store.sqlite` as canonical
JSON text). Moments are ISO 8601 strings (:mod:`server.games.clock`).

What a caller writes is a record too when it writes a whole row (a game, a
logged move, a player, a sign-in link), else a ``TypedDict`` of the columns it
sets (:class:`GameUpdate`, :class:`NewMail`...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, TypedDict

from engines.phrases import Phrase

#: A JSON value as the store keeps it: decoded.
Json = Any


@dataclass(frozen=True, slots=True)
class GameRow:
    """A game as stored: its setup, its latest snapshot (``state``, ``to_move``, ``result``)
    and how it forms, is timed and was created."""

    id: str
    engine: str
    options: dict[str, Json]
    seed: int
    #: Whether the creator chose the seed (so may know what the game hides).
    seeded: bool
    #: The starting position the creator gave, or ``None`` (the engine's own setup).
    position: dict[str, Json] | None
    #: ``forming``, ``active``, ``finished`` or ``aborted``.
    status: str
    seq: int
    #: The engine's state after move ``seq``; ``None`` at a table not dealt yet.
    state: Json
    to_move: list[int]
    result: dict[str, Json] | None
    deadline: str | None
    turn_hours: float | None
    deadline_policy: str | None
    #: Bits of the reminders sent for the current turn.
    reminders_sent: int
    admin_token_hash: str
    created_at: str
    updated_at: str
    creator_client: str | None
    creator_id: str | None
    seating: str | None
    forming_until: str | None
    hidden_at: str | None
    rematch_of: str | None
    #: Whether its seats may ask for a suggested move (``GET .../hint``).
    hints: bool = True
    #: Whether a seat may offer to take back its last move (:mod:`server.games.takebacks`).
    takebacks: bool = True
    #: Its time control (:mod:`server.games.time_control`'s wire form); ``None``: the
    #: per-move clock of ``turn_hours``, or none.
    clock: dict[str, Json] | None = None


class GameUpdate(TypedDict, total=False):
    """Columns of a game to set (:meth:`~server.store.base.GameStore.update_game`)."""

    seq: int
    state: Json
    to_move: list[int]
    result: dict[str, Json] | None
    status: str
    updated_at: str
    deadline: str | None
    reminders_sent: int
    turn_hours: float | None
    deadline_policy: str | None
    forming_until: str | None
    hidden_at: str | None
    clock: dict[str, Json] | None


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat of a game: its player's name and address, mail key, vacation and marks."""

    game_id: str
    seat: int
    #: Empty for an open seat of a forming table.
    name: str
    email: str | None
    #: The generation of the seat's reply key (a new one revokes the earlier).
    mail_generation: int
    vacation_until: str | None
    vacation_year: int | None
    vacation_days_used: float
    acted_at: str | None
    mail_stopped_at: str | None
    private_at: str | None
    reissued_at: str | None
    passes_revoked_at: str | None
    player_id: str | None
    #: The id of the last message of the table talk mailed to the seat.
    talk_mailed: int
    joined_at: str | None
    #: The language the seat reads (``None``: its player's, the browser's or the server's).
    language: str | None = None
    #: The spec of the bot that plays the seat (``{"bot": "mcts", "level": 3}``); ``None``:
    #: a person.
    bot: dict[str, Json] | None = None
    #: The seat's clock (its bank, since when it runs: :func:`~server.games.time_control.
    #: seat_clock_json`); ``None`` before its first turn of a timed game.
    clock: dict[str, Json] | None = None


@dataclass(frozen=True, slots=True)
class GameSeats:
    """A game and its seats read in one statement
    (:meth:`~server.store.base.GameStore.game_with_seats`), with the seat of the token
    asked about (``None``: no token asked about, or not a live token of this game)."""

    row: GameRow
    seats: list[Seat]
    token_seat: int | None = None
    #: Whether a seat of the game stored conditional moves (``conditional_lines``).
    lines_stored: bool = False
    #: Whether the game has a live webhook or chat ping (``webhooks``).
    hooks_stored: bool = False


@dataclass(frozen=True, slots=True)
class GameStamp:
    """What every answer about a game changes with, read without its state
    (:meth:`~server.store.base.GameStore.game_stamp`): its version (seq, status, last
    change, deadline), its time control and its seats in seat order."""

    id: str
    seq: int
    status: str
    updated_at: str
    deadline: str | None
    turn_hours: float | None
    clock: dict[str, Json] | None
    seats: list[Seat]


@dataclass(frozen=True, slots=True)
class NewSeat:
    """A seat of a game being created (:meth:`~server.store.base.GameStore.create_game`);
    a bot's seat is taken (``joined_at``) as it is made."""

    name: str
    email: str | None = None
    player_id: str | None = None
    #: The language the seat reads, if the creator gave one.
    language: str | None = None
    bot: dict[str, Json] | None = None
    joined_at: str | None = None


class SeatUpdate(TypedDict, total=False):
    """Columns of a seat to set (:meth:`~server.store.base.TableStore.update_seat`)."""

    name: str
    email: str | None
    player_id: str | None
    joined_at: str | None
    passes_revoked_at: str | None
    acted_at: str | None
    private_at: str | None
    mail_stopped_at: str | None
    mail_generation: int
    language: str | None
    bot: dict[str, Json] | None
    clock: dict[str, Json] | None


class BotTurn(NamedTuple):
    """A bot seat a running game waits for, after move ``seq``
    (:meth:`~server.store.base.GameStore.bot_turns`)."""

    game_id: str
    seat: int
    seq: int


@dataclass(frozen=True)
class Difference:
    """A move ``seq`` of ``seat`` where a level-3 bot would have played ``suggested`` (its
    whole turn as one move) instead of ``played`` (the moves as the engine takes them)."""

    seq: int
    seat: int
    played: dict[str, Json]
    suggested: dict[str, Json]


@dataclass(frozen=True)
class Analysis:
    """What the computer made of a finished game
    (:mod:`server.games.analysis`): made at ``made_at``."""

    game_id: str
    made_at: str
    #: Each move where a level-3 bot would have played differently, in move order.
    #: ``None``: never analysed (the game ended before Turnpost analysed games, or
    #: cannot be replayed), and never will be.
    differences: list[Difference] | None


class SeatRef(NamedTuple):
    """A seat of a game, by game id and seat number."""

    game_id: str
    seat: int


@dataclass(frozen=True, slots=True)
class SeatToken:
    """A seat token (its hash): which seat it lets in, who saw it, whether it was revoked."""

    token_hash: str
    game_id: str
    seat: int
    #: ``created``, ``reissued`` or ``browser``.
    kind: str
    created_at: str
    revoked_at: str | None
    #: ``opened``, ``reissued`` or ``removed``.
    revoked_why: str | None


@dataclass(frozen=True, slots=True)
class ListedSeat:
    """What a list of games shows of a seat."""

    seat: int
    name: str
    private_at: str | None
    reissued_at: str | None
    player_id: str | None
    joined_at: str | None
    bot: dict[str, Json] | None = None


@dataclass(frozen=True, slots=True)
class GameListing:
    """A game in a list: its row without state or secrets, and its seats (``players``)."""

    id: str
    engine: str
    status: str
    seq: int
    to_move: list[int]
    result: dict[str, Json] | None
    deadline: str | None
    seeded: bool
    from_position: bool
    created_at: str
    updated_at: str
    forming_until: str | None
    players: tuple[ListedSeat, ...]


@dataclass(frozen=True, slots=True)
class ListedGame(GameListing):
    """A game of the public list, with the ``cursor`` a page after it starts from."""

    cursor: int


@dataclass(frozen=True, slots=True)
class AdminGame(GameListing):
    """A game as the operator's page lists it: hidden ones too, with when it was hidden."""

    hidden_at: str | None


@dataclass(frozen=True, slots=True)
class PlayerGame(GameListing):
    """A game with a seat of one player: the seat (``you``), whether the game waits for it,
    and the game's last log entry (``None`` before the first)."""

    you: int
    waiting: bool
    last_seq: int | None
    last_seat: int | None
    last_description: Phrase | None
    last_at: str | None


@dataclass(frozen=True, slots=True)
class LobbyGame:
    """A game of the lobby's list of one player's games and tables."""

    id: str
    engine: str
    status: str
    seq: int
    to_move: list[int]
    updated_at: str
    creator_id: str | None
    players: tuple[ListedSeat, ...]


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A forming table with an open seat, as the lobby lists it."""

    id: str
    engine: str
    options: dict[str, Json]
    seeded: bool
    from_position: bool
    turn_hours: float | None
    deadline_policy: str | None
    seating: str | None
    created_at: str
    forming_until: str | None
    players: tuple[ListedSeat, ...]
    clock: dict[str, Json] | None


@dataclass(frozen=True, slots=True)
class EndedGame:
    """A game that is over: its last seq, status and result."""

    id: str
    seq: int
    status: str
    result: dict[str, Json] | None


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """An entry of the append-only move log, with the game's ``result`` on the entry that
    ended it (else ``None``; not stored with the entry)."""

    game_id: str
    seq: int
    seat: int
    #: ``move`` (an engine move), ``resign``, ``forfeit`` or ``takeback`` (``move`` is
    #: ``{"action": "takeback", "seq": N}``: the game returns to the state before move N).
    kind: str
    #: The move as played, hidden parts included.
    move: dict[str, Json]
    #: The move as everyone may see it.
    public_move: dict[str, Json]
    notation: str
    #: The move in a sentence, as a phrase read in each reader's language
    #: (:mod:`engines.phrases`).
    description: Phrase
    to_move: list[int]
    status: str
    at: str
    result: dict[str, Json] | None = None
    #: Whether the seat's conditional moves played it (:mod:`server.games.conditional`).
    conditional: bool = False


@dataclass(frozen=True, slots=True)
class TakebackOffer:
    """A seat's open offer to take back its move ``seq`` (the game's last entry), and the
    seats that accepted it so far."""

    game_id: str
    seq: int
    seat: int
    accepted_seats: list[int]
    offered_at: str


@dataclass(frozen=True, slots=True)
class IdempotentAnswer:
    """The request an ``Idempotency-Key`` was first used with, and the answer given."""

    request: dict[str, Json]
    response: dict[str, Json]


@dataclass(frozen=True, slots=True)
class Player:
    """A player's account."""

    id: str
    email: str
    #: The mailbox the address reaches (:func:`~server.mail.addresses.recipient_key`).
    email_key: str
    name: str
    time_zone: str
    language: str
    #: ``turn``, ``digest`` or ``none``.
    mail_pref: str
    created_at: str
    digest_due_at: str | None = None


class PlayerUpdate(TypedDict, total=False):
    """Columns of a player's profile to set."""

    name: str
    time_zone: str
    language: str
    mail_pref: str


@dataclass(frozen=True, slots=True)
class SignInLink:
    """A sign-in link asked for (its id is the secret mailed)."""

    id: str
    email: str
    email_key: str
    client: str | None
    created_at: str
    expires_at: str
    used_at: str | None = None


@dataclass(frozen=True, slots=True)
class ApiToken:
    """A player's personal API token as listed (its secret is never kept)."""

    id: int
    name: str
    created_at: str


@dataclass(frozen=True, slots=True)
class Message:
    """A message of a game's table talk (``text`` is ``None`` once deleted)."""

    id: int
    game_id: str
    thread: str
    #: Its place in its thread, from 1.
    number: int
    seat: int
    text: str | None
    via: str
    at: str
    deleted_at: str | None
    deleted_by: str | None


class NewMessage(TypedDict):
    """A message to post (:meth:`~server.store.base.TalkStore.add_message`)."""

    game_id: str
    thread: str
    seat: int
    text: str
    via: str
    at: str


@dataclass(frozen=True, slots=True)
class MailBacklog:
    """The mails waiting in the outbox (neither sent nor superseded), and the oldest one's age."""

    unsent: int
    #: When the oldest of them was queued, or ``None`` when none waits.
    oldest_at: str | None


@dataclass(frozen=True, slots=True)
class OutboxMail:
    """A mail in the outbox: to whom, what happened (``facts``), and how sending went."""

    id: int
    game_id: str | None
    seat: int | None
    kind: str
    to_addr: str
    subject: str | None
    message_id: str | None
    in_reply_to: str | None
    seq: int | None
    created_at: str
    attempts: int
    next_attempt_at: str | None
    sent_at: str | None
    last_error: str | None
    rcpt_key: str | None
    client: str | None
    #: Whether it counts as an invitation (:mod:`server.mail.gate`).
    invitation: bool
    #: What the mail tells, rendered when it is sent; ``None`` once forgotten (or none).
    facts: dict[str, Json] | None
    superseded: str | None
    digest_id: int | None


class NewMail(TypedDict, total=False):
    """A mail to queue (:meth:`~server.store.base.MailStore.queue_mail`)."""

    game_id: str
    seat: int
    kind: str
    to_addr: str
    facts: dict[str, Json] | None
    in_reply_to: str | None
    seq: int
    created_at: str
    next_attempt_at: str
    rcpt_key: str
    client: str | None
    invitation: bool


@dataclass(frozen=True, slots=True)
class Webhook:
    """A game's webhook as listed."""

    id: int
    url: str
    created_at: str


@dataclass(frozen=True, slots=True)
class ChatPing:
    """A seat's chat ping as listed: where its turns are announced, in which chat's message
    format (``kind``), mentioning whom."""

    id: int
    seat: int
    kind: str
    url: str
    mention: str | None
    created_at: str


@dataclass(frozen=True, slots=True)
class PlayerPing:
    """A player's chat ping, for the turns of every game of theirs."""

    id: int
    kind: str
    url: str
    mention: str | None
    created_at: str


@dataclass(frozen=True, slots=True)
class WebhookDelivery:
    """One event to post to one webhook, and how posting it went."""

    id: int
    webhook_id: int
    event: str
    seq: int
    body: dict[str, Json]
    created_at: str
    next_attempt_at: str | None
    attempts: int
    delivered_at: str | None
    last_status: int | None
    last_error: str | None
    #: The seqs of the ``move`` deliveries dropped before this one (a capped backlog).
    missed_from_seq: int | None
    missed_to_seq: int | None


@dataclass(frozen=True, slots=True)
class FailingDelivery(WebhookDelivery):
    """A webhook delivery whose last attempt failed, with its webhook's ``url`` and game."""

    url: str
    game_id: str


@dataclass(frozen=True, slots=True)
class ClaimedDelivery(WebhookDelivery):
    """A webhook delivery taken to post, with its webhook's ``url``, game and removal."""

    url: str
    game_id: str
    removed_at: str | None


@dataclass(frozen=True, slots=True)
class PushSubscription:
    """A browser a player lets Turnpost notify, as listed."""

    id: int
    endpoint: str
    created_at: str


class NewSubscription(TypedDict):
    """A browser's push subscription to record."""

    player_id: str
    endpoint: str
    p256dh: str
    auth: str
    created_at: str


class NewPush(TypedDict):
    """A push to queue to each browser of a player (see
    :meth:`~server.store.base.NotificationStore.queue_pushes`)."""

    game_id: str
    seat: int
    seq: int
    payload: dict[str, Json]
    created_at: str
    next_attempt_at: str


@dataclass(frozen=True, slots=True)
class ClaimedPush:
    """A push taken to send, with its subscription's endpoint and keys."""

    id: int
    subscription_id: int
    game_id: str
    seat: int
    seq: int
    payload: dict[str, Json]
    created_at: str
    next_attempt_at: str | None
    attempts: int
    endpoint: str
    p256dh: str
    auth: str


@dataclass(frozen=True)
class Table:
    """A table of the schema as ``turnpost copy-db`` copies it (read from the database)."""

    name: str
    #: The columns a copy carries, in the table's order (not a backend's own: see
    #: :class:`~server.store.base.TableCopying`).
    columns: tuple[str, ...]
    #: The columns that order its rows as the backend keeps them (its rowid or its key).
    order: tuple[str, ...]
    #: The tables its rows refer to (foreign keys).
    references: frozenset[str]
    #: Its columns kept as JSON values (whose text a backend may write its own way).
    json_columns: frozenset[str]


@dataclass(frozen=True)
class SchemaChange:
    """What creating or upgrading the schema did: the version before and after, and whether
    the database was new."""

    before: int
    after: int
    #: The database had no tables before (a new file).
    created: bool
