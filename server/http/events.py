"""Server-sent events: one feed per worker process, many cheap streams.

``GET /api/v1/games/{id}/events`` streams one ``move`` event per appended
move and ends a finished (or aborted) game's stream with a final ``end``
event; a ``message`` event tells each message of the table talk
(:mod:`server.games.talk`) posted while the stream is open. Thousands of
listeners must not each poll SQLite, so each worker process has one
:class:`Feed`: a single background thread (a greenlet under gunicorn's
gevent workers) waits for the store to say that another connection has
committed (:meth:`~server.store.base.Connection.wait_for_change`: SQLite looks
a few times a second) and only then reads the moves logged and the messages posted since its
cursors and the watched games that ended, formats each event once (from the
public log entry, or the message) and hands it to the :class:`Subscription`
of every stream that follows the game. A stream waits on its subscription
and writes a comment line when it has been quiet for
:data:`KEEPALIVE_SECONDS` (which also finds listeners that went away).

A stream reads the threads its :class:`Reader` names: the table's for
everyone, a team's private thread only for a stream opened with a seat of
that team (its token, or on the game page its cookie), and never the
messages of the seats that seat muted. Message events carry no ``id``: they
do not move the point a stream resumes from, and are not replayed (a client
catches up with ``GET /messages``). A stream opened with ``talk`` stays open
after the ``end`` event, for the talk after the game.

``GET /me/games/events`` (the script of a signed-in player's games page)
streams a ``change`` event naming those of the player's games that moved:
the feed matches the games of the moves it read to their players with one
query on those games' seats, so a player's stream costs nothing while their
games are quiet, however many games the database holds. (A game stopped by
its admin logs no move: the page shows it at the next change or reload.)

Open streams are capped in all and per client address, so that one client
holding many sockets cannot take the streams of everyone else: per worker, or
across every worker and host with ``TURNPOST_RATELIMIT_STORAGE=redis://...``
(:mod:`server.http.stream_caps`).

A stream replays at most :data:`REPLAY_PAGE` logged moves: a client far
behind gets that page and the stream ends (after :data:`MORE_EVENTS`, a
comment), so that it reconnects with the last id it saw, as an
``EventSource`` does by itself. The replayed bytes count against the rate
limits like an answer's (:func:`~server.http.limits.charge_stream`).

    >>> move_event({"seq": 3, "seat": 1, "move": {"action": "pass"}, "notation": "pass",
    ...     "description": "Bob passes.", "to_move": [0], "status": "active", "result": None,
    ...     "at": "2026-11-25T21:00:00.000000Z"})
    'id: 3\\nevent: move\\ndata: {"seq": 3, "seat": 1, "move": {"action": "pass"}, "notation": \
"pass", "description": "Bob passes.", "to_move": [0], "status": "active", "result": null}\\n\\n'
    >>> end_event(EndedGame("g1", 9, "finished", {"winners": [0]}))
    'id: 9\\nevent: end\\ndata: {"seq": 9, "status": "finished", "result": {"winners": [0]}}\\n\\n'
    >>> message_event({"thread": "table", "number": 1, "text": "gg\\n<b>"})
    'event: message\\ndata: {"thread": "table", "number": 1, "text": "gg\\\\n<b>"}\\n\\n'
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from server.games.game import log_entry
from server.games.talk import TABLE, message_entry
from server.http.stream_caps import StreamCaps
from server.store import open_store
from server.store.base import Store, StoreUnavailable
from server.store.records import EndedGame, GameRow, Message

logger = logging.getLogger(__name__)

#: Seconds between keep-alive comments on a quiet stream (the contract asks for <= 15).
KEEPALIVE_SECONDS = 5.0
#: The longest the feed waits for a change at once (it waits again when nothing changed).
WAIT_SECONDS = 5.0
#: Seconds before the feed looks again after the database was unavailable.
RETRY_SECONDS = 1.0
#: Headers of an event stream: never cached nor buffered by a proxy.
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
#: Sent first on every stream: reconnect after 2 s if the connection drops.
PREAMBLE = "retry: 2000\n: connected\n\n"
KEEPALIVE = ": keep-alive\n\n"
#: The most logged moves one stream replays; a client further behind reconnects for more.
REPLAY_PAGE = 200
#: The last line of a stream that replayed a page of a longer log.
MORE_EVENTS = ": more events follow: reconnect with the last event id\n\n"


#: What a ``move`` event carries of its log entry: the public move, its notation and
#: sentence, the new seq, whose turn it is now, and the status and result after it.
MOVE_EVENT_KEYS = ("seq", "seat", "move", "notation", "description", "to_move", "status", "result")


def move_event(entry: dict[str, Any]) -> str:
    """The ``move`` event of a public move log entry (:func:`~server.games.game.log_entry`)."""
    data = {key: entry[key] for key in MOVE_EVENT_KEYS}
    return f"id: {entry['seq']}\nevent: move\ndata: {json.dumps(data)}\n\n"


def end_event(game: EndedGame | GameRow) -> str:
    """The final ``end`` event of a game that is over; its id is the last seq."""
    data = {"seq": game.seq, "status": game.status, "result": game.result}
    return f"id: {game.seq}\nevent: end\ndata: {json.dumps(data)}\n\n"


def message_event(entry: dict[str, Any]) -> str:
    """The ``message`` event of a message (:func:`~server.games.talk.message_entry`).

    It has no ``id``: a client's ``Last-Event-ID`` stays the last move's seq.
    The data is ASCII JSON, so a line break in the text cannot end the event.
    """
    return f"event: message\ndata: {json.dumps(entry)}\n\n"


@dataclass(frozen=True)
class Reader:
    """Who reads a stream: the threads it may read (the store's names), the seats whose
    messages it leaves out (muted), whether it stays open after the end (``talk``), and the
    language its moves are told in."""

    threads: frozenset[str] = frozenset({TABLE})
    hidden: frozenset[int] = frozenset()
    talk: bool = False
    language: str = "en"

    def reads(self, message: Message) -> bool:
        """Whether a message goes to this stream."""
        return message.thread in self.threads and message.seat not in self.hidden


class Subscription:
    """What one stream is waiting for: the moves after ``sent`` and the messages its
    ``reader`` reads, then perhaps the end."""

    def __init__(
        self, feed: Feed, game_id: str, client: str, after: int, reader: Reader = Reader()
    ) -> None:
        self.feed = feed
        self.game_id = game_id
        self.client = client
        self.sent = after
        self.reader = reader
        self.moves: dict[int, str] = {}
        self.messages: list[str] = []
        self.end: str | None = None
        self.ended = False
        self.lock = threading.Lock()
        self.wake = threading.Event()

    def deliver_move(self, seq: int, event: str) -> None:
        """Queue the event of move ``seq`` (ignored if already sent or queued)."""
        with self.lock:
            if seq > self.sent:
                self.moves.setdefault(seq, event)
        self.wake.set()

    def deliver_message(self, message: Message, event: str) -> None:
        """Queue the event of a message, if this stream's reader reads it."""
        if not self.reader.reads(message):
            return
        with self.lock:
            self.messages.append(event)
        self.wake.set()

    def deliver_end(self, event: str) -> None:
        """Queue the final event (once); the stream ends once it is sent, but for ``talk``."""
        with self.lock:
            if not self.ended:
                self.end = self.end or event
        self.wake.set()

    def skip_end(self) -> None:
        """Never send the final event: the client saw it (a ``talk`` stream of a game over)."""
        with self.lock:
            self.end, self.ended = None, True

    def _due(self) -> tuple[list[str], str | None]:
        with self.lock:
            seqs = sorted(seq for seq in self.moves if seq > self.sent)
            due = [self.moves[seq] for seq in seqs] + self.messages
            self.moves.clear()
            self.messages = []
            self.sent = seqs[-1] if seqs else self.sent
            end, self.end = self.end, None
            self.ended = self.ended or end is not None
            return due, end

    def stream(self) -> Iterator[str]:
        """The text of the stream: the preamble, the events in seq order, keep-alives, the end
        (after which a ``talk`` stream goes on with messages)."""
        try:
            yield PREAMBLE
            while True:
                self.wake.clear()
                due, end = self._due()
                yield from due
                if end is not None:
                    yield end
                    if not self.reader.talk:
                        return
                if not self.wake.wait(KEEPALIVE_SECONDS):
                    yield KEEPALIVE
        finally:
            self.close()

    def close(self) -> None:
        """Stop following the game (idempotent)."""
        self.feed.unsubscribe(self)


class PlayerSubscription:
    """What a player's games page waits for: a move in any game with a seat of theirs."""

    def __init__(self, feed: Feed, player_id: str, client: str) -> None:
        self.feed = feed
        self.player_id = player_id
        self.client = client
        self.changed: set[str] = set()
        self.lock = threading.Lock()
        self.wake = threading.Event()

    def deliver_change(self, game_id: str) -> None:
        """Note that ``game_id`` changed (several changes before the next event make one)."""
        with self.lock:
            self.changed.add(game_id)
        self.wake.set()

    def stream(self) -> Iterator[str]:
        """The text of the stream: the preamble, a ``change`` event per batch, keep-alives."""
        try:
            yield PREAMBLE
            while True:
                self.wake.clear()
                with self.lock:
                    changed, self.changed = sorted(self.changed), set()
                if changed:
                    yield change_event(changed)
                elif not self.wake.wait(KEEPALIVE_SECONDS):
                    yield KEEPALIVE
        finally:
            self.close()

    def close(self) -> None:
        """Stop following the player's games (idempotent)."""
        self.feed.unsubscribe(self)


def change_event(game_ids: list[str]) -> str:
    """The ``change`` event of a player's stream: which of their games moved (an empty id:
    some may have, the page had better fetch the list again).

    >>> change_event(["a1", "b2"])
    'event: change\\ndata: {"games": ["a1", "b2"]}\\n\\n'
    """
    return f"event: change\ndata: {json.dumps({'games': game_ids})}\n\n"


class Feed:
    """The per-process source of events: one poller for every open stream of this worker.

    A stream follows one game (:class:`Subscription`) or every game of one
    player (:class:`PlayerSubscription`, for the player's games page): the
    games of the moves logged since the last look are matched to their
    players' streams by one query on the seats of those games.
    """

    def __init__(self, db_url: str, caps: StreamCaps) -> None:
        self.db_url = db_url
        self.caps = caps
        self._lock = threading.Lock()
        self._by_game: dict[str, set[Subscription]] = {}
        self._by_player: dict[str, set[PlayerSubscription]] = {}
        self._poller: threading.Thread | None = None
        #: Told ``+1`` when a stream opens and ``-1`` when it closes (the metrics count them).
        self.counted: Callable[[int], None] = lambda _step: None

    def subscribe(
        self, game_id: str, client: str, after: int, reader: Reader = Reader()
    ) -> Subscription:
        """Follow ``game_id`` from after move ``after`` as ``reader``; ``429`` past a cap."""
        subscription = Subscription(self, game_id, client, after, reader)
        self._follow(self._by_game, game_id, subscription)
        return subscription

    def subscribe_player(self, player_id: str, client: str) -> PlayerSubscription:
        """Follow every game of ``player_id``; ``429`` past a cap."""
        subscription = PlayerSubscription(self, player_id, client)
        self._follow(self._by_player, player_id, subscription)
        return subscription

    def _follow(
        self, index: dict[str, set[Any]], key: str, subscription: Subscription | PlayerSubscription
    ) -> None:
        """Count a new stream (``429`` past a cap) and file it in ``index`` under ``key``."""
        with self._lock:
            self._start_polling()
        self.caps.admit(subscription, subscription.client)
        with self._lock:
            index.setdefault(key, set()).add(subscription)
        self.counted(1)

    def _start_polling(self) -> None:
        """Start the poller with the first stream (under the lock)."""
        if self._poller is None:  # from the moves logged before this stream was admitted
            store = open_store(self.db_url)
            start = (store, store.last_move_cursor(), store.last_message_cursor())
            self._poller = threading.Thread(
                target=self._poll, args=start, name="events", daemon=True
            )
            self._poller.start()

    def unsubscribe(self, subscription: Subscription | PlayerSubscription) -> None:
        """Forget a stream (idempotent)."""
        if isinstance(subscription, PlayerSubscription):
            index: dict[str, set[Any]] = self._by_player
            key = subscription.player_id
        else:
            index, key = self._by_game, subscription.game_id
        with self._lock:
            followers = index.get(key, set())
            if subscription not in followers:
                return
            followers.discard(subscription)
            if not followers:
                del index[key]
        self.caps.release(subscription)
        self.counted(-1)

    def _followers(self, game_id: str) -> list[Subscription]:
        with self._lock:
            return list(self._by_game.get(game_id, ()))

    def _poll(self, store: Store, cursor: int, talk_cursor: int) -> None:
        """Forever: when the database changed, hand the moves logged after ``cursor``, the
        messages posted after ``talk_cursor`` and the ended games to their streams.

        A failing look (the database unavailable: locked for longer than the
        store waits, or out of reach) is logged in one line (no traceback:
        formatting one parses source, which Python 3.11 cannot do in two threads
        at once, gh-106905) and tried again a moment later: the feed must not die.
        """
        seen = None
        while True:
            try:
                current = store.wait_for_change(seen, WAIT_SECONDS)
                if current != seen:
                    cursor, moved = self._publish_moves(store, cursor)
                    talk_cursor = self._publish_messages(store, talk_cursor)
                    self._publish_ends(store)
                    self._publish_players(store, moved)
                    seen = current
            except StoreUnavailable as error:  # one line each time: its cause is in the message
                logger.error("the event feed could not read the database (%s); retrying", error)
                time.sleep(RETRY_SECONDS)

    def _publish_moves(self, store: Store, cursor: int) -> tuple[int, set[str]]:
        """Hand the moves logged after ``cursor`` to their games' streams: the new cursor and
        the games that moved."""
        moved = set()
        for logged, move in store.moves_since(cursor):
            moved.add(move.game_id)
            followers = self._followers(move.game_id)
            if followers:
                names = [row.name for row in store.seats(move.game_id)]
                events: dict[str, str] = {}  # one event per language read
                for subscription in followers:
                    language = subscription.reader.language
                    if language not in events:
                        events[language] = move_event(log_entry(move, names, language))
                    subscription.deliver_move(move.seq, events[language])
            cursor = logged
        return cursor, moved

    def _publish_players(self, store: Store, moved: set[str]) -> None:
        """Tell the streams of the players of the games that ``moved``."""
        with self._lock:
            if not self._by_player or not moved:
                return
        for game_id, player_id in store.players_of_games(sorted(moved)):
            with self._lock:
                followers = list(self._by_player.get(player_id, ()))
            for subscription in followers:
                subscription.deliver_change(game_id)

    def _publish_messages(self, store: Store, cursor: int) -> int:
        for message, writer in store.messages_since(cursor):
            followers = self._followers(message.game_id)
            if followers and message.deleted_at is None:
                event = message_event(message_entry(message, writer))
                for subscription in followers:
                    subscription.deliver_message(message, event)
            cursor = message.id
        return cursor

    def _publish_ends(self, store: Store) -> None:
        with self._lock:
            watched = list(self._by_game)
        if not watched:
            return
        for game in store.ended_games(watched):
            event = end_event(game)
            for subscription in self._followers(game.id):
                subscription.deliver_end(event)
