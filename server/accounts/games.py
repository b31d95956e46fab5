"""A player's games across engines, in the order a player reads them.

The games waiting for the player come first (the nearest deadline first,
then the one waiting longest), then the others still running (the latest
change first), then the finished and stopped ones (the latest first). The
page ``/me/games`` and ``GET /api/v1/me/games`` list them alike
(:func:`player_games`); the API a page at a time, after a cursor naming the
place of the last game of the previous page (:func:`games_page`), not a
count: a game that keeps its place is listed once, whatever others do.

    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(id="g1", waiting=True, status="active", deadline=None,
    ...     updated_at="2026-11-25T21:00:00.000000Z")
    >>> place(row).group, Place.from_cursor(place(row).cursor()) == place(row)
    (0, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from engines import ENGINES
from engines.phrases import Words, phrase
from schemas.accounts import MAX_CURSOR
from server.errors import TurnpostError
from server.games.clock import parse_time
from server.games.game import game_summary
from server.phrases import render
from server.store.base import Store
from server.store.records import PlayerGame

#: The three parts of the list, in order.
WAITING, RUNNING, OVER = 0, 1, 2
#: Statuses of a game that is over.
OVER_STATUSES = frozenset({"finished", "aborted"})
#: Where a waiting game without a deadline goes: after every deadline.
NO_DEADLINE = 2**62
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros(stamp: str) -> int:
    """A stored moment as whole microseconds since 1970 (exact, and ordered as the moments)."""
    return (parse_time(stamp) - EPOCH) // timedelta(microseconds=1)


class Place(NamedTuple):
    """Where a game stands in a player's list: compared as a tuple, the list's order."""

    group: int
    first: int
    second: int
    game_id: str

    def cursor(self) -> str:
        """The place as a cursor: ``group.first.second.game_id``."""
        return f"{self.group}.{self.first}.{self.second}.{self.game_id}"

    @classmethod
    def from_cursor(cls, text: str) -> Place | None:
        """The place a cursor names, or ``None`` if ``text`` is not a cursor."""
        parts = text.split(".") if len(text) <= MAX_CURSOR and text.isascii() else []
        if len(parts) != 4 or not parts[3].isalnum():
            return None
        try:
            group, first, second = (int(part) for part in parts[:3])
        except ValueError:
            return None
        return cls(group, first, second, parts[3])


def place(row: PlayerGame) -> Place:
    """The place of a listed game (of :meth:`~server.store.base.PlayerStore.player_games`)."""
    updated = micros(row.updated_at)
    if row.waiting:
        deadline = micros(row.deadline) if row.deadline else NO_DEADLINE
        return Place(WAITING, deadline, updated, row.id)
    group = OVER if row.status in OVER_STATUSES else RUNNING
    return Place(group, -updated, 0, row.id)


@dataclass(frozen=True)
class MyGame:
    """A game of a player's list: the store's listing for the player's seat that the game
    waits for (else their first seat: ``row.you``), every seat of the game that is theirs
    (``mine``: a player may hold two seats of a game played on one device), and its ``part``
    of the list (:data:`WAITING`, :data:`RUNNING` or :data:`OVER`)."""

    row: PlayerGame
    mine: tuple[int, ...]
    part: int


def player_games(store: Store, player_id: str) -> list[MyGame]:
    """Every game of ``player_id`` in the list's order, each once."""
    rows = sorted(store.player_games(player_id), key=lambda row: (not row.waiting, row.you))
    firsts: dict[str, PlayerGame] = {}
    mine: dict[str, list[int]] = {}
    for row in rows:
        firsts.setdefault(row.id, row)
        mine.setdefault(row.id, []).append(row.you)
    places = {game_id: place(row) for game_id, row in firsts.items()}
    ordered = sorted(firsts.values(), key=lambda row: places[row.id])
    return [MyGame(row, tuple(mine[row.id]), places[row.id].group) for row in ordered]


def games_page(
    games: list[MyGame], limit: int, cursor: str | None
) -> tuple[list[MyGame], str | None]:
    """The ``limit`` games after ``cursor`` (from the start without), and the next cursor
    (``None`` on the last page); ``422`` for a cursor that is not one."""
    after = None if cursor is None else Place.from_cursor(cursor)
    if cursor is not None and after is None:
        raise TurnpostError(
            "invalid_request",
            phrase("This is not a cursor of this list."),
            {"cursor": [cursor[:40]]},
        )
    rest = games if after is None else [game for game in games if place(game.row) > after]
    page = rest[:limit]
    more = len(rest) > limit
    return page, place(page[-1].row).cursor() if more else None


def summary(game: MyGame, language: str) -> dict[str, Any]:
    """A listed game as ``GET /api/v1/me/games`` answers it: the game list's summary with
    ``waiting`` and ``last_move`` (the last log entry, its sentence in ``language``, or
    ``None`` before the first)."""
    row, last = game.row, None
    if row.last_seq is not None and row.last_description is not None:
        names = [seat.name for seat in row.players]
        last = {
            "seq": row.last_seq,
            "seat": row.last_seat,
            "description": render(row.last_description, names, language),
            "at": row.last_at,
        }
    return {**game_summary(row, row.you), "waiting": row.waiting, "last_move": last}


def prompts(store: Store, games: list[MyGame]) -> dict[str, Words]:
    """What each game waiting for the player asks of them (the engine's prompt, a phrase), by
    game id."""
    waiting = [game.row for game in games if game.row.waiting]
    states = store.game_states([row.id for row in waiting])
    return {
        row.id: ENGINES[row.engine].prompt(states[row.id], row.you)
        for row in waiting
        if row.id in states
    }
