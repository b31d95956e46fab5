"""Small queries and updates on a Foreign King state (a plain JSON dict)."""

from __future__ import annotations

from typing import Any

from engines.base import State
from engines.foreign_king.board import (
    CITIZENS_PER_COLOUR,
    VIRTUAL,
    table_actions,
)


def player_count(state: State) -> int:
    """How many seats play."""
    return len(state["players"])


def is_two_player(state: State) -> bool:
    """Whether the virtual third player takes part."""
    return player_count(state) == 2


def current_seat(state: State) -> int:
    """The seat whose turn it is."""
    return state["turn_order"][state["turn_index"]]


def player(state: State, seat: int) -> dict[str, Any]:
    """The ``players`` entry of ``seat``."""
    return state["players"][seat]


def owner_key(seat: int) -> str:
    """The key of a seat's citizens in ``citizens`` and ``parliament``."""
    return str(seat)


def markers(players: int) -> int:
    """Citizens of each colour standing on tracks (score, and turn order with 3-4 players)."""
    return 2 if players >= 3 else 1


def add_count(counts: dict[str, int], key: str, amount: int) -> None:
    """Add ``amount`` to ``counts[key]``, dropping the key when it falls to zero."""
    total = counts.get(key, 0) + amount
    if total:
        counts[key] = total
    else:
        counts.pop(key, None)


def citizens(state: State, province: str) -> dict[str, int]:
    """The citizens in ``province`` by owner key (seats as strings, ``"virtual"``)."""
    return state["provinces"][province]["citizens"]


def own_citizens(state: State, seat: int, province: str) -> int:
    """How many citizens ``seat`` has in ``province``."""
    return citizens(state, province).get(owner_key(seat), 0)


def majority(counts: dict[str, int]) -> str | None:
    """The owner with strictly more citizens than anyone else, if any."""
    ranked = sorted(counts.values(), reverse=True)
    if not ranked or ranked[0] == 0 or (len(ranked) > 1 and ranked[1] == ranked[0]):
        return None
    return next(key for key, count in counts.items() if count == ranked[0])


def controller(state: State, province: str) -> str | None:
    """The owner controlling ``province`` (strict majority of its citizens)."""
    return majority(citizens(state, province))


def face_up_orders(state: State, seat: int) -> int:
    """Royal orders of ``seat`` that can still be turned face down for a loan."""
    entry = player(state, seat)
    return entry["orders"] - entry["loans"]


def scores(state: State) -> dict[str, int]:
    """Victory points by owner key, the virtual player included in a 2-player game."""
    found = {owner_key(entry["seat"]): entry["vp"] for entry in state["players"]}
    if state["virtual"] is not None:
        found[VIRTUAL] = state["virtual"]["vp"]
    return found


def add_points(state: State, key: str, points: int) -> None:
    """Give ``points`` victory points to owner ``key``."""
    if key == VIRTUAL:
        state["virtual"]["vp"] += points
    else:
        player(state, int(key))["vp"] += points


def figure_at(state: State, seat: int) -> str | None:
    """The action the figure of ``seat`` stands on, if any."""
    return next((name for name, holder in state["actions"].items() if holder == seat), None)


def empty_actions(players: int) -> dict[str, int | None]:
    """The action table with no figure on it."""
    return {name: None for name in table_actions(players)}


def supply_left(players: int, on_board: int, in_parliament: int) -> int:
    """The personal supply left when the other citizens are where they are."""
    return CITIZENS_PER_COLOUR - markers(players) - on_board - in_parliament
