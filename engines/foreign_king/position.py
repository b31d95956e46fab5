"""Building a starting state: a new game, or a given position (contract section 2)."""

from __future__ import annotations

from typing import Any

from engines.base import InvalidPosition, State
from engines.foreign_king.actions import can_act
from engines.foreign_king.board import (
    CITIZENS_PER_COLOUR,
    FACTORIES_PER_KIND,
    FIRST_COINS,
    KINDS,
    PROVINCES,
    ROUND_LIMIT,
    ROYAL_ORDERS,
    TRACK_START,
    VIRTUAL,
    table_actions,
)
from engines.foreign_king.rules import end_reason
from engines.foreign_king.state import empty_actions, owner_key, supply_left
from engines.rng import Rng

POSITION_KEYS = frozenset(
    {"provinces", "king", "parliament", "actions", "players", "virtual", "stock"}
    | {"turn_order", "round", "pending", "to_move", "current", "final"}
)
PLAYER_KEYS = frozenset({"seat", "coins", "vp", "supply", "orders", "loans"})


def skeleton(players: int, options: dict[str, Any], rng: int, turn_order: list[int]) -> State:
    """A state at the start of the game with the given turn order."""
    return {
        "options": dict(options),
        "rng": rng,
        "provinces": {province: {"citizens": {}, "factories": []} for province in PROVINCES},
        "king": {"at": None, "track": TRACK_START},
        "parliament": {},
        "actions": empty_actions(players),
        "players": [
            {
                "seat": seat,
                "coins": FIRST_COINS + turn_order.index(seat),
                "vp": 0,
                "supply": supply_left(players, 0, 0),
                "orders": 0,
                "loans": 0,
            }
            for seat in range(players)
        ],
        "virtual": {"supply": CITIZENS_PER_COLOUR - 1, "vp": 0} if players == 2 else None,
        "stock": {"orders": ROYAL_ORDERS, **{kind: FACTORIES_PER_KIND for kind in KINDS}},
        "turn_order": turn_order,
        "round": 1,
        "pending": None,
        "turn_index": 0,
        "order_changes": [],
        "skips": 0,
        "ending": None,
        "final": None,
        "result": None,
    }


def new_game(players: int, options: dict[str, Any], seed: int) -> State:
    """The setup: seat order for 2 players, a random turn order for 3 or 4."""
    rng = Rng(seed)
    order = list(range(players))
    if players >= 3:
        order = rng.shuffled(order)
    return skeleton(players, options, rng.state, order)


# -- positions ------------------------------------------------------------------
def _number(value: Any, name: str, low: int = 0, high: int | None = None) -> int:
    """``value`` as a whole number in ``low..high``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InvalidPosition(f"{name} must be a whole number, not {value!r}.")
    if value < low or (high is not None and value > high):
        top = "" if high is None else f" and at most {high}"
        raise InvalidPosition(f"{name} must be at least {low}{top}, not {value}.")
    return value


def _mapping(value: Any, name: str, allowed: frozenset[str] | None = None) -> dict[str, Any]:
    """``value`` as a dict (``None``: empty) whose keys are in ``allowed``."""
    value = {} if value is None else value
    if not isinstance(value, dict):
        raise InvalidPosition(f"{name} must be an object.")
    unknown = sorted(str(key) for key in set(value) - allowed) if allowed is not None else []
    if unknown:
        raise InvalidPosition(f"{name} has unknown key(s): {', '.join(unknown)}.")
    return value


def _counts(value: Any, name: str, owners: frozenset[str]) -> dict[str, int]:
    """Citizen counts by owner key, zero counts dropped."""
    given = _mapping(value, name, owners)
    counts = {key: _number(count, f"{name}[{key}]") for key, count in given.items()}
    return {key: count for key, count in counts.items() if count}


def _factories(value: Any, name: str) -> list[dict[str, Any]]:
    """A province's factories: ``[{"kind": "textile", "active": true}]``."""
    value = [] if value is None else value
    if not isinstance(value, list):
        raise InvalidPosition(f"{name} must be a list.")
    factories = []
    for factory in value:
        entry = _mapping(factory, name, frozenset({"kind", "active"}))
        if entry.get("kind") not in KINDS or not isinstance(entry.get("active", True), bool):
            raise InvalidPosition(f"{name}: a factory is {{'kind': textile|metal, 'active': b}}.")
        factories.append({"kind": entry["kind"], "active": entry.get("active", True)})
    return factories


def _provinces(value: Any, owners: frozenset[str]) -> dict[str, Any]:
    """All nine provinces with their citizens and factories."""
    given = _mapping(value, "provinces", frozenset(PROVINCES))
    provinces = {}
    for province in PROVINCES:
        entry = _mapping(given.get(province), province, frozenset({"citizens", "factories"}))
        provinces[province] = {
            "citizens": _counts(entry.get("citizens"), f"{province} citizens", owners),
            "factories": _factories(entry.get("factories"), f"{province} factories"),
        }
    return provinces


def _king(value: Any) -> dict[str, Any]:
    """The King's province (``null``: his portrait) and his marker."""
    given = _mapping(value, "king", frozenset({"at", "track"}))
    at = given.get("at")
    if at is not None and at not in PROVINCES:
        raise InvalidPosition(f"king.at must be a province or null, not {at!r}.")
    return {"at": at, "track": _number(given.get("track", TRACK_START), "king.track", 0, 30)}


def _turn_order(value: Any, players: int) -> list[int]:
    """A permutation of the seats (default: seat order)."""
    order = list(range(players)) if value is None else value
    if not isinstance(order, list):
        raise InvalidPosition("turn_order must be a list of seats.")
    seats = [_number(seat, "turn_order", 0, players - 1) for seat in order]
    if sorted(seats) != list(range(players)):
        raise InvalidPosition(f"turn_order must list each seat 0..{players - 1} once.")
    return seats


def _players(state: State, value: Any) -> None:
    """Each seat's purse, points, royal orders, loans and supply (checked, or defaulted)."""
    count = len(state["players"])
    value = [{} for _ in range(count)] if value is None else value
    if not isinstance(value, list) or len(value) != count:
        raise InvalidPosition(f"players must list the {count} seats.")
    for seat, given in enumerate(value):
        entry = _mapping(given, f"players[{seat}]", PLAYER_KEYS)
        target = state["players"][seat]
        if entry.get("seat", seat) != seat:
            raise InvalidPosition(f"players[{seat}] has seat {entry['seat']!r}.")
        for key in ("coins", "vp", "orders", "loans"):
            target[key] = _number(entry.get(key, target[key]), f"players[{seat}].{key}")
        if target["loans"] > target["orders"]:
            raise InvalidPosition(f"players[{seat}]: a loan is a royal order turned face down.")
        _check_supply(state, seat, entry.get("supply"))


def _check_supply(state: State, seat: int, given: Any) -> None:
    """Set the supply of ``seat`` from the 16 citizens; a given supply must agree."""
    key = owner_key(seat)
    on_board = sum(state["provinces"][p]["citizens"].get(key, 0) for p in PROVINCES)
    supply = supply_left(len(state["players"]), on_board, state["parliament"].get(key, 0))
    if given is not None:
        _number(given, f"players[{seat}].supply")
    if supply < 0 or given not in (None, supply):
        raise InvalidPosition(
            f"Seat {seat} has {CITIZENS_PER_COLOUR} citizens: board, parliament, supply and "
            f"track markers must add up to that (the supply would be {supply})."
        )
    state["players"][seat]["supply"] = supply


def _virtual(state: State, value: Any) -> None:
    """The virtual player's supply and points (2 players only)."""
    if state["virtual"] is None:
        if value is not None:
            raise InvalidPosition("Only a 2-player game has a virtual player.")
        return
    given = _mapping(value, "virtual", frozenset({"supply", "vp"}))
    on_board = sum(state["provinces"][p]["citizens"].get(VIRTUAL, 0) for p in PROVINCES)
    supply = CITIZENS_PER_COLOUR - 1 - on_board
    if "supply" in given:
        _number(given["supply"], "virtual.supply")
    if supply < 0 or given.get("supply", supply) != supply:
        raise InvalidPosition(
            "The virtual player has 16 citizens: board, supply and its score marker must add "
            f"up to that (its supply would be {supply})."
        )
    state["virtual"] = {"supply": supply, "vp": _number(given.get("vp", 0), "virtual.vp")}


def _stock(state: State, value: Any) -> None:
    """Royal orders and factories left in stock (checked against the pieces in play)."""
    given = _mapping(value, "stock", frozenset({"orders", *KINDS}))
    built = [f["kind"] for p in PROVINCES for f in state["provinces"][p]["factories"]]
    stock = {
        "orders": ROYAL_ORDERS - sum(entry["orders"] for entry in state["players"]),
        **{kind: FACTORIES_PER_KIND - built.count(kind) for kind in KINDS},
    }
    for key, left in stock.items():
        if key in given:
            _number(given[key], f"stock.{key}")
        if left < 0 or given.get(key, left) != left:
            total = ROYAL_ORDERS if key == "orders" else FACTORIES_PER_KIND
            raise InvalidPosition(
                f"There are {total} {key} in the game: stock and pieces in play must add up "
                f"to that (the stock would be {left})."
            )
    state["stock"] = stock


def _actions(state: State, value: Any) -> None:
    """Which figure stands on which action of the table."""
    names = table_actions(len(state["players"]))
    given = _mapping(value, "actions", frozenset(names))
    holders = [given.get(name) for name in names]
    for holder in holders:
        if holder is not None:
            _number(holder, "actions", 0, len(state["players"]) - 1)
    figures = [holder for holder in holders if holder is not None]
    if len(figures) != len(set(figures)):
        raise InvalidPosition("Each player has one figure on the action table.")
    state["actions"] = dict(zip(names, holders, strict=True))


def _to_move(state: State, value: Any) -> None:
    """The seat whose turn it is (a seat or a one-seat list; default: first in turn order)."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    seat = state["turn_order"][0] if value is None else value
    _number(seat, "to_move", 0, len(state["players"]) - 1)
    state["turn_index"] = state["turn_order"].index(seat)


def from_position(players: int, options: dict[str, Any], seed: int, position: Any) -> State:
    """A state built from ``position``; raise :class:`InvalidPosition` on any inconsistency."""
    given = _mapping(position, "position", POSITION_KEYS)
    owners = frozenset(owner_key(seat) for seat in range(players))
    order = _turn_order(given.get("turn_order"), players)
    state = skeleton(players, options, Rng(seed).state, order)
    state["provinces"] = _provinces(given.get("provinces"), owners | _virtual_key(players))
    state["king"] = _king(given.get("king"))
    state["parliament"] = _counts(given.get("parliament"), "parliament", owners)
    _players(state, given.get("players"))
    _virtual(state, given.get("virtual"))
    _stock(state, given.get("stock"))
    _actions(state, given.get("actions"))
    state["round"] = _number(given.get("round", 1), "round", 1, ROUND_LIMIT)
    if given.get("pending") is not None:
        raise InvalidPosition("A position starts at a regular turn: pending must be null.")
    _to_move(state, given.get("to_move"))
    if end_reason(state) is not None:
        raise InvalidPosition("The position already meets an end condition of the game.")
    if not can_act(state, state["turn_order"][state["turn_index"]]):
        raise InvalidPosition("The seat to move could not carry out any action.")
    return state


def _virtual_key(players: int) -> frozenset[str]:
    """``{"virtual"}`` in a 2-player game, else nothing."""
    return frozenset({VIRTUAL}) if players == 2 else frozenset()
