"""A game as loaded from the store, and the public shapes built from it.

:func:`game_object` builds the contract's game object (for the API, the
pages, the mails and the CLI), :func:`game_summary` a game in a list and
:func:`log_entry` a public entry of the move log: nowhere else are they put
together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engines import Engine
from engines.phrases import N_, Words, phrase
from server.games.clock import utcnow
from server.games.seat_clocks import clock_view
from server.phrases import render
from server.store.records import GameListing, GameRow, GameStamp, ListedSeat, LoggedMove, Seat

#: A game's status said as a refusal's reason, in three turns of phrase.
STATUS_SENTENCES = {
    "is": {
        "forming": N_("The game is forming."),
        "finished": N_("The game is finished."),
        "aborted": N_("The game is aborted."),
    },
    "this": {"finished": N_("This game is finished."), "aborted": N_("This game is aborted.")},
    "already": {
        "finished": N_("The game is already finished."),
        "aborted": N_("The game is already aborted."),
    },
}


def status_words(status: str, turn: str = "is") -> Words:
    """Why a game refuses, by its ``status`` ("The game is finished."), as a phrase.

    >>> status_words("aborted", "already")
    {'key': 'The game is already aborted.'}
    """
    key = STATUS_SENTENCES[turn].get(status)
    return phrase(key) if key else phrase("The game is %(status)s.", status=status)


@dataclass(frozen=True)
class Game:
    """A game as loaded from the store: its row (with its live state), seats and engine."""

    row: GameRow
    seats: list[Seat]
    engine: Engine
    #: Whether a seat may have stored conditional moves, and whether the game may have a
    #: webhook or chat ping (``False`` only when the read said none: then a change need not
    #: look for them).
    lines_stored: bool = True
    hooks_stored: bool = True

    @property
    def id(self) -> str:
        """The game id."""
        return self.row.id

    @property
    def seq(self) -> int:
        """Number of moves in the log."""
        return self.row.seq

    @property
    def status(self) -> str:
        """``forming``, ``active``, ``finished`` or ``aborted``."""
        return self.row.status

    @property
    def stamp(self) -> GameStamp:
        """What every answer about the game changes with (as the store's
        :meth:`~server.store.base.GameStore.game_stamp` reads it without the state)."""
        row = self.row
        return GameStamp(
            row.id,
            row.seq,
            row.status,
            row.updated_at,
            row.deadline,
            row.turn_hours,
            row.clock,
            self.seats,
        )

    @property
    def state(self) -> Any:
        """The engine's state after move :attr:`seq` (``None`` before a table is dealt)."""
        return self.row.state

    @property
    def to_move(self) -> list[int]:
        """Seats the game waits for, as stored with the snapshot."""
        return self.row.to_move

    @property
    def started(self) -> bool:
        """Whether the game was dealt: a table that never filled was not."""
        return self.state is not None


def game_object(
    game: Game,
    seat: int | None,
    at: int | None = None,
    state: dict[str, Any] | None = None,
    vacation_days_left: int | None = None,
) -> dict[str, Any]:
    """The contract's game object of ``game`` for ``seat`` (``None``: the public one).

    With ``at`` and the ``state`` replayed up to it: the game as it stood after move ``at``.
    ``vacation_days_left`` are the seat's own automatic vacation days left (its view only:
    :meth:`~server.games.service.GameService.game_object` reads them).
    """
    row, engine = game.row, game.engine
    if at is None or state is None:
        state, status, seq, to_move = game.state, game.status, game.seq, game.to_move
        result = row.result
    else:
        result = engine.result(state)
        status, seq, to_move = (
            ("active" if result is None else "finished"),
            at,
            engine.to_move(state),
        )
    if status == "aborted":
        to_move = []
    return {
        "id": game.id,
        "engine": engine.id,
        "status": status,
        "seq": seq,
        "to_move": to_move,
        **seating(row, game.seats),
        "you": seat,
        "result": result,
        "deadline": row.deadline,
        "clock": clock_view(row, game.seats, utcnow(), vacation_days_left) if at is None else None,
        "options": row.options,
        "takebacks": row.takebacks,
        "seeded": row.seeded,
        "from_position": row.position is not None,
        "state": None if state is None else engine.view(state, seat),
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def seating(
    row: GameRow | GameListing, seats: Sequence[Seat] | Sequence[ListedSeat]
) -> dict[str, Any]:
    """``players`` (the named seats), ``open_seats`` and ``forming_until`` of a game.

    An open seat of a forming table has no name yet (see :mod:`server.games.tables`).
    """
    return {
        "players": [player_entry(seat) for seat in seats if seat.name],
        "open_seats": sum(not seat.name for seat in seats),
        "forming_until": row.forming_until if row.status == "forming" else None,
    }


def player_entry(seat: Seat | ListedSeat) -> dict[str, Any]:
    """A seat in the game object: its name, who may hold a token of it, and the bot that
    plays it (``None``: a person)."""
    return {
        "seat": seat.seat,
        "name": seat.name,
        "private": seat.private_at is not None,
        "reissued_at": seat.reissued_at,
        "bot": seat.bot,
    }


def log_entry(move: LoggedMove, names: Sequence[str], language: str = "en") -> dict[str, Any]:
    """The public entry of a logged move: no hidden parts.

    ``description`` is the move in a sentence, in ``language`` with the
    seats' ``names`` (:func:`server.phrases.render`); ``result`` is the
    game's result on the entry that ended the game, else ``None``.

    >>> from engines.phrases import phrase, seat
    >>> move = LoggedMove("g1", 1, 0, "resign", {"action": "resign", "secret": 7},
    ...     {"action": "resign"}, "resign", phrase("%(seat)s resigns.", seat=seat(0)), [],
    ...     "finished", "2025-03-01T12:00:00.000000Z")
    >>> entry = log_entry(move, ["Ann", "Bob"], "de")
    >>> entry["move"], entry["description"], entry["to_move"]
    ({'action': 'resign'}, 'Ann gibt auf.', [])
    """
    return {
        "seq": move.seq,
        "seat": move.seat,
        "move": move.public_move,
        "notation": move.notation,
        "description": render(move.description, names, language),
        "at": move.at,
        "to_move": move.to_move,
        "status": move.status,
        "result": move.result,
        "conditional": move.conditional,
    }


def game_summary(game: GameListing, you: int | None) -> dict[str, Any]:
    """A game in a list: the game object without its state, from a listed game
    (:meth:`~server.store.base.GameStore.games_page`)."""
    return {
        "id": game.id,
        "engine": game.engine,
        "status": game.status,
        "seq": game.seq,
        "to_move": game.to_move,
        **seating(game, game.players),
        "you": you,
        "result": game.result,
        "deadline": game.deadline,
        "seeded": game.seeded,
        "from_position": game.from_position,
        "created_at": game.created_at,
        "updated_at": game.updated_at,
    }
