"""A game as loaded from the store, and the public shapes built from it.

:func:`game_object` builds the contract's game object (for the API, the
pages, the mails and the CLI), :func:`game_summary` a game in a list and
:func:`log_entry` a public entry of the move log: nowhere else are they put
together.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engines import Engine


@dataclass
class Game:
    """A game as loaded from the store: its row, seats, engine and live state."""

    row: dict[str, Any]
    seats: list[dict[str, Any]]
    engine: Engine
    state: dict[str, Any]

    @property
    def id(self) -> str:
        """The game id."""
        return self.row["id"]

    @property
    def seq(self) -> int:
        """Number of moves in the log."""
        return self.row["seq"]

    @property
    def status(self) -> str:
        """``forming``, ``active``, ``finished`` or ``aborted``."""
        return self.row["status"]

    @property
    def to_move(self) -> list[int]:
        """Seats the game waits for, as stored with the snapshot."""
        return json.loads(self.row["to_move"])

    @property
    def started(self) -> bool:
        """Whether the game was dealt: a table that never filled was not."""
        return self.state is not None


def game_object(
    game: Game, seat: int | None, at: int | None = None, state: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The contract's game object of ``game`` for ``seat`` (``None``: the public one).

    With ``at`` and the ``state`` replayed up to it: the game as it stood after move ``at``.
    """
    row, engine = game.row, game.engine
    if at is None or state is None:
        state, status, seq, to_move = game.state, game.status, game.seq, game.to_move
        result = None if row["result"] is None else json.loads(row["result"])
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
        "deadline": row["deadline"],
        "options": json.loads(row["options"]),
        "seeded": bool(row["seeded"]),
        "from_position": row["position"] is not None,
        "state": None if state is None else engine.view(state, seat),
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }


def seating(row: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, Any]:
    """``players`` (the named seats), ``open_seats`` and ``forming_until`` of a game ``row``.

    An open seat of a forming table has no name yet (see :mod:`server.games.tables`).
    """
    return {
        "players": [player_entry(seat) for seat in seats if seat["name"]],
        "open_seats": sum(not seat["name"] for seat in seats),
        "forming_until": row["forming_until"] if row["status"] == "forming" else None,
    }


def player_entry(seat: dict[str, Any]) -> dict[str, Any]:
    """A seat in the game object (a ``seats`` row): its name, and who may hold a token of it."""
    return {
        "seat": seat["seat"],
        "name": seat["name"],
        "private": seat["private_at"] is not None,
        "reissued_at": seat["reissued_at"],
    }


def log_entry(row: dict[str, Any]) -> dict[str, Any]:
    """The public entry of a logged move (a ``moves`` row): no hidden parts.

    ``description`` is the move in a sentence (the notation for moves logged
    before sentences were kept); ``result`` is the game's result on the entry
    that ended the game, else ``None``.

    >>> row = {"seq": 1, "seat": 0, "public_move": '{"action": "pass"}', "notation": "pass",
    ...        "description": "Ann passes.", "at": "2025-03-01T12:00:00.000000Z",
    ...        "to_move": "[1]", "status": "active", "result": None}
    >>> log_entry(row)["move"], log_entry(row)["description"], log_entry(row)["to_move"]
    ({'action': 'pass'}, 'Ann passes.', [1])
    """
    return {
        "seq": row["seq"],
        "seat": row["seat"],
        "move": json.loads(row["public_move"]),
        "notation": row["notation"],
        "description": row.get("description") or row["notation"],
        "at": row["at"],
        "to_move": json.loads(row["to_move"]),
        "status": row["status"],
        "result": None if row.get("result") is None else json.loads(row["result"]),
    }


def game_summary(row: dict[str, Any], you: int | None) -> dict[str, Any]:
    """A game in a list: the game object without its state, from a listed ``games`` row.

    The row carries ``players``, the seats' names in seat order
    (:meth:`~server.store.sqlite.Store.games_page`).
    """
    return {
        "id": row["id"],
        "engine": row["engine"],
        "status": row["status"],
        "seq": row["seq"],
        "to_move": json.loads(row["to_move"]),
        **seating(row, row["players"]),
        "you": you,
        "result": None if row["result"] is None else json.loads(row["result"]),
        "deadline": row["deadline"],
        "seeded": bool(row["seeded"]),
        "from_position": bool(row["from_position"]),
        "created_at": row["created_at"],
        "updated_at": row["updated_at"],
    }
