"""Table talk: the threads of short messages of every game, as the pages, the API and mail use them.

Every game has a thread for everyone at the table (``table``): its players
write, and whoever may see the game reads it. In a game with partners
(4-player King of Siam: seats 0+2 and 1+3, see ``Engine.partners``) each team
also has a private thread (``partners``) that only its two seats read and
write: no page, answer, event or mail shows it to anyone else, the game's
host included. A message is plain text (:func:`schemas.talk.message_text`),
and a seat may post :data:`PER_MINUTE` a minute and :data:`PER_DAY` a day
(``429`` past them).

The talk starts with the game: a table still forming (:mod:`server.games.tables`)
refuses messages and mutes (``409 not_started``), so nothing of the talk names
a seat before the seat order is drawn.

A seat may mute another seat: their messages are then left out of
everything that seat reads (its page, its mails, its event stream, the API
with its token). The host (the admin token) may delete a message of the
table: its row stays, marked deleted, and its text is gone from the store.

Nothing is queued when a message is posted, so it needs no listener
(:mod:`server.games.changes`): event streams follow the ``messages`` table
(:mod:`server.http.events`), and every mail a seat is sent tells the messages
posted since its last one (:meth:`TalkService.unmailed`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from marshmallow import ValidationError

from engines.phrases import N_, phrase
from schemas.talk import THREADS, message_text
from server.errors import TurnpostError
from server.games.clock import format_time, parse_time, utcnow
from server.games.game import Game
from server.store.base import Store
from server.store.records import Message, Player

log = logging.getLogger(__name__)

#: The thread every player writes in and anyone who sees the game reads.
TABLE = "table"
#: A team's private thread.
PARTNERS = "partners"
#: How many messages one seat may post in a minute and in a day.
PER_MINUTE = 10
PER_DAY = 100
#: How many of a thread's newest messages the game page shows.
SHOWN = 30
#: How many of the newest unmailed messages a mail tells.
MAILED = 10


def partners_of(game: Game, seat: int | None) -> list[int]:
    """The seats of ``seat``'s team, itself included; none for someone watching, nor at a
    table not dealt yet (its seat order, and so its teams, may still be drawn)."""
    if seat is None or not game.started:
        return []
    return game.engine.partners(game.state, seat)


def team_thread(game: Game, seat: int) -> str | None:
    """The store's name of the private thread of ``seat``'s team (``team:0,2``), or ``None``."""
    team = sorted(partners_of(game, seat))
    return f"team:{','.join(map(str, team))}" if len(team) > 1 else None


def thread_name(key: str) -> str:
    """The thread (``table`` or ``partners``) of a store's thread name (``team:0,2``)."""
    return TABLE if key == TABLE else PARTNERS


def talk_seat(game: Game, shown: int | None, player: Player | None) -> int | None:
    """The seat a game page talks as: the seat it ``shown``, else the first seat of the game
    that belongs to the signed-in ``player``, else none (someone watching)."""
    if shown is not None or player is None:
        return shown
    return next((row.seat for row in game.seats if row.player_id == player.id), None)


def threads_of(game: Game, seat: int | None) -> list[str]:
    """The store's names of the threads ``seat`` reads (``None``: someone watching)."""
    team = None if seat is None else team_thread(game, seat)
    return [TABLE, *([team] if team else [])]


def message_entry(row: Message, name: str) -> dict[str, Any]:
    """A ``messages`` row as the API, the pages and the events show it (``name``: its writer's)."""
    return {
        "thread": thread_name(row.thread),
        "number": row.number,
        "seat": row.seat,
        "name": name,
        "text": row.text,
        "deleted": row.deleted_at is not None,
        "at": row.at,
    }


@dataclass
class ThreadView:
    """One thread on the game page: its newest messages, and whether earlier ones exist."""

    name: str
    messages: list[dict[str, Any]]
    earlier: bool


@dataclass
class TalkView:
    """The talk panel of a game page for ``seat`` (``None``: someone watching)."""

    seat: int | None
    threads: list[ThreadView]
    #: The names of the seat's partners (empty without a partner thread).
    partner_names: list[str]
    #: The other seats of the game with their names (the seat may mute them).
    others: list[tuple[int, str]]
    #: The seats whose messages ``seat`` muted.
    muted: list[int]
    #: Whether the viewer is the game's host (who may delete the table's messages).
    host: bool = False
    #: A refused message: why, what was written, and for which thread (written again).
    error: str = ""
    draft: str = ""
    draft_thread: str = TABLE


@dataclass
class Said:
    """The messages a mail tells one seat: the newest :data:`MAILED`, how many earlier ones it
    leaves out, and the id of the last one (the seat's cursor once the mail is sent)."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    earlier: int = 0
    upto: int = 0


class TalkService:
    """Post, read, mute and delete the messages of games on one :class:`Store`."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def thread_key(self, game: Game, seat: int | None, thread: str) -> str:
        """The store's name of ``thread`` for ``seat``; ``401`` or ``422`` if it has none."""
        if thread not in THREADS:
            raise TurnpostError(
                "invalid_request",
                phrase("No thread %(thread)r.", thread=thread),
                {"thread": [f"One of {THREADS}."]},
            )
        if thread == TABLE:
            return TABLE
        if seat is None:
            raise TurnpostError(
                "unauthorized", phrase("A seat token is needed for a partner thread.")
            )
        key = team_thread(game, seat)
        if key is None:
            message = N_(
                "This seat has no partner: only 4-player King of Siam has partner threads."
            )
            raise TurnpostError("invalid_request", phrase(message), {"thread": [message]})
        return key

    def post(
        self, game: Game, seat: int, text: str, thread: str = TABLE, via: str = "api"
    ) -> dict[str, Any]:
        """Post ``text`` as ``seat`` in ``thread``; the message. ``422`` for a text
        :func:`~schemas.talk.message_text` refuses, ``429`` past a seat's limits."""
        try:
            text = message_text(text)
        except ValidationError as error:
            raise TurnpostError(
                "invalid_request", error.kwargs["words"], {"text": error.messages}
            ) from None
        check_started(game)
        key = self.thread_key(game, seat, thread)
        now = utcnow()
        with self.store.write():
            self._check_rate(game.id, seat, now)
            row = self.store.add_message(
                {
                    "game_id": game.id,
                    "thread": key,
                    "seat": seat,
                    "text": text,
                    "via": via,
                    "at": now,
                }
            )
        return message_entry(row, game.seats[seat].name)

    def _check_rate(self, game_id: str, seat: int, now: str) -> None:
        """``429`` if ``seat`` posted :data:`PER_MINUTE` messages in the last minute, or
        :data:`PER_DAY` in the last day."""
        moment = parse_time(now)
        for limit, window, words in (
            (
                PER_MINUTE,
                timedelta(minutes=1),
                N_("A seat may post %(limit)s messages a minute; wait a little."),
            ),
            (
                PER_DAY,
                timedelta(days=1),
                N_("A seat may post %(limit)s messages a day; wait a little."),
            ),
        ):
            since = format_time(moment - window)
            if self.store.messages_posted_since(game_id, seat, since) >= limit:
                raise TurnpostError(
                    "rate_limited",
                    phrase(words, limit=limit),
                    headers={"Retry-After": str(int(window.total_seconds()))},
                )

    def read(
        self, game: Game, seat: int | None, thread: str, after: int = 0, limit: int = -1
    ) -> list[dict[str, Any]]:
        """The messages of ``thread`` numbered after ``after`` (the first ``limit``), as
        ``seat`` reads them (without the seats it muted; ``None``: the public table)."""
        key = self.thread_key(game, seat, thread)
        hidden = [] if seat is None else self.store.muted_seats(game.id, seat)
        rows = self.store.thread_messages(game.id, key, after, limit, hidden)
        names = _names(game)
        return [message_entry(row, names[row.seat]) for row in rows]

    def delete(self, game: Game, number: int, by: str) -> None:
        """Delete the text of message ``number`` of the table (``by`` whom, for the record);
        ``404`` if there is no such message, or its text is already gone."""
        with self.store.write():
            row = self.store.message(game.id, TABLE, number)
            if row is None or not self.store.forget_message_text(row.id, utcnow(), by):
                raise TurnpostError(
                    "not_found",
                    phrase(
                        "Game %(game)r has no message %(number)s to delete.",
                        game=game.id,
                        number=number,
                    ),
                )
        log.info("message %d of game %s deleted by %s", number, game.id, by)

    def set_muted(self, game: Game, seat: int, other: int, muted: bool) -> None:
        """Mute (``muted``) or unmute the messages of seat ``other`` for ``seat``."""
        check_started(game)
        if other == seat or not 0 <= other < len(game.seats):
            raise TurnpostError(
                "invalid_request", phrase("Pick another player of this game to mute.")
            )
        self.store.set_muted(game.id, seat, other, muted, utcnow())

    def view(self, game: Game, seat: int | None, host: bool = False) -> TalkView:
        """The talk panel of the game page for ``seat`` (``None``: the table, read only);
        ``host``: the viewer is the game's host, who may delete the table's messages."""
        muted = [] if seat is None else self.store.muted_seats(game.id, seat)
        names = _names(game)
        threads = []
        for key in threads_of(game, seat):
            rows = self.store.thread_messages(
                game.id, key, limit=SHOWN + 1, hidden=muted, newest=True
            )
            entries = [message_entry(row, names[row.seat]) for row in rows[-SHOWN:]]
            threads.append(ThreadView(thread_name(key), entries, len(rows) > SHOWN))
        partners = partners_of(game, seat)
        return TalkView(
            seat,
            threads,
            partner_names=[names[other] for other in partners if other != seat],
            others=[] if seat is None else [(s, n) for s, n in enumerate(names) if s != seat],
            muted=muted,
            host=host,
        )

    def unmailed(self, game: Game, seat: int) -> Said:
        """The messages to tell ``seat`` in its next mail: those of its threads posted since
        its last mail, but its own, the deleted ones and those of seats it muted."""
        rows = self.store.unmailed_messages(
            game.id, seat, threads_of(game, seat), self.store.muted_seats(game.id, seat)
        )
        if not rows:
            return Said()
        names = _names(game)
        entries = [message_entry(row, names[row.seat]) for row in rows[-MAILED:]]
        return Said(entries, max(len(rows) - MAILED, 0), rows[-1].id)


def check_started(game: Game) -> None:
    """``409 not_started`` at a table still forming: the talk starts with the game (the seats
    a message or a mute names are numbered once the seat order is drawn)."""
    if not game.started:
        raise TurnpostError(
            "not_started",
            phrase("This table waits for its players: the talk starts with the game."),
        )


def _names(game: Game) -> list[str]:
    return [row.name for row in game.seats]
