"""A player's games across engines, in the order a player reads them.

The games waiting for the player come first (the nearest deadline first,
then the one waiting longest), then the others still running (the latest
change first), then the finished and stopped ones (the latest first). The
page ``/me/games`` and ``GET /api/v1/me/games`` list them alike
(:func:`player_games`); the API a page at a time, after a cursor naming the
place of the last game of the previous page (:func:`games_page`), not a
count: a game that keeps its place is listed once, whatever others do.

    >>> row = {"id": "g1", "waiting": 1, "status": "active", "deadline": None,
    ...        "updated_at": "2026-11-25T21:00:00.000000Z"}
    >>> place(row).group, Place.from_cursor(place(row).cursor()) == place(row)
    (0, True)
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from engines import ENGINES
from schemas.accounts import MAX_CURSOR
from server.errors import TurnpostError
from server.games.clock import parse_time
from server.games.game import game_summary
from server.store.sqlite import Store

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


def place(row: dict[str, Any]) -> Place:
    """The place of a listed game (a row of :meth:`Store.player_games`)."""
    updated = micros(row["updated_at"])
    if row["waiting"]:
        deadline = micros(row["deadline"]) if row["deadline"] else NO_DEADLINE
        return Place(WAITING, deadline, updated, row["id"])
    group = OVER if row["status"] in OVER_STATUSES else RUNNING
    return Place(group, -updated, 0, row["id"])


def player_games(store: Store, player_id: str) -> list[dict[str, Any]]:
    """Every game of ``player_id`` in the list's order, each once.

    Each is a row of :meth:`Store.player_games` for the player's seat that
    the game waits for (else their first seat) as ``you``, with ``mine``:
    every seat of the game that is theirs (a player may hold two seats of
    a game played on one device), and ``part``: :data:`WAITING`,
    :data:`RUNNING` or :data:`OVER`.
    """
    rows = sorted(store.player_games(player_id), key=lambda row: (not row["waiting"], row["you"]))
    games: dict[str, dict[str, Any]] = {}
    for row in rows:
        games.setdefault(row["id"], {**row, "mine": []})["mine"].append(row["you"])
    places = {game_id: place(game) for game_id, game in games.items()}
    ordered = sorted(games.values(), key=lambda game: places[game["id"]])
    return [{**game, "part": places[game["id"]].group} for game in ordered]


def games_page(
    games: list[dict[str, Any]], limit: int, cursor: str | None
) -> tuple[list[dict[str, Any]], str | None]:
    """The ``limit`` games after ``cursor`` (from the start without), and the next cursor
    (``None`` on the last page); ``422`` for a cursor that is not one."""
    after = None if cursor is None else Place.from_cursor(cursor)
    if cursor is not None and after is None:
        raise TurnpostError(
            "invalid_request", "This is not a cursor of this list.", {"cursor": [cursor[:40]]}
        )
    rest = games if after is None else [game for game in games if place(game) > after]
    page = rest[:limit]
    more = len(rest) > limit
    return page, place(page[-1]).cursor() if more else None


def summary(row: dict[str, Any]) -> dict[str, Any]:
    """A listed game as ``GET /api/v1/me/games`` answers it: the game list's summary with
    ``waiting`` and ``last_move`` (the last log entry, or ``None`` before the first)."""
    last = None
    if row["last_seq"] is not None:
        last = {
            "seq": row["last_seq"],
            "seat": row["last_seat"],
            "description": row["last_description"],
            "at": row["last_at"],
        }
    return {**game_summary(row, row["you"]), "waiting": bool(row["waiting"]), "last_move": last}


def prompts(store: Store, games: list[dict[str, Any]]) -> dict[str, str]:
    """What each game waiting for the player asks of them (the engine's prompt), by game id."""
    waiting = [game for game in games if game["waiting"]]
    states = store.game_states([game["id"] for game in waiting])
    return {
        game["id"]: ENGINES[game["engine"]].prompt(json.loads(states[game["id"]]), game["you"])
        for game in waiting
        if game["id"] in states
    }
