"""Shared helpers of the Foreign King tests (no tests here)."""

from __future__ import annotations

import json
import random
from typing import Any

from engines.foreign_king import ForeignKingEngine
from engines.foreign_king.actions import table_action
from engines.foreign_king.board import CITIZENS_PER_COLOUR, FACTORIES_PER_KIND, PROVINCES

ENGINE = ForeignKingEngine()
State = dict[str, Any]
Move = dict[str, Any]


def position(count: int = 3, **fields: Any) -> State:
    """A state for ``count`` players from a position given as keyword fields."""
    return ENGINE.from_position(count, {}, 7, fields)


def play(state: State, seat: int, *texts: str) -> State:
    """Apply each notation in ``texts`` for ``seat``, checking it is a legal move."""
    for text in texts:
        move = ENGINE.parse(text)
        state = ENGINE.apply(state, seat, move)
    return state


def legal_texts(state: State, seat: int) -> set[str]:
    """The notations of the legal moves of ``seat``."""
    return {ENGINE.format(move) for move in ENGINE.legal_moves(state, seat)}


def main_action_names(state: State, seat: int) -> set[str]:
    """The actions of the table ``seat`` may choose now (loans left out)."""
    names = {table_action(move["action"]) for move in ENGINE.legal_moves(state, seat)}
    return names - {"loan", "repay"}


def citizens(state: State, province: str) -> dict[str, int]:
    """The citizens in ``province``."""
    return state["provinces"][province]["citizens"]


def coins(state: State, seat: int) -> int:
    """The francs of ``seat``."""
    return state["players"][seat]["coins"]


def vp(state: State, seat: int) -> int:
    """The victory points of ``seat``."""
    return state["players"][seat]["vp"]


def with_citizens(**by_province: dict[str, int]) -> dict[str, Any]:
    """A ``provinces`` field with the given citizens (underscores for hyphens)."""
    return {name.replace("_", "-"): {"citizens": counts} for name, counts in by_province.items()}


def check_invariants(state: State) -> None:
    """Pieces conserved and the state JSON-clean."""
    assert json.loads(json.dumps(state)) == state
    players = len(state["players"])
    markers = 2 if players >= 3 else 1
    for entry in state["players"]:
        key = str(entry["seat"])
        on_board = sum(state["provinces"][p]["citizens"].get(key, 0) for p in PROVINCES)
        total = on_board + state["parliament"].get(key, 0) + entry["supply"] + markers
        assert total == CITIZENS_PER_COLOUR
        assert 0 <= entry["loans"] <= entry["orders"]
        assert entry["coins"] >= 0
    if state["virtual"] is not None:
        on_board = sum(state["provinces"][p]["citizens"].get("virtual", 0) for p in PROVINCES)
        assert on_board + state["virtual"]["supply"] + 1 == CITIZENS_PER_COLOUR
    for kind in ("textile", "metal"):
        built = sum(
            1 for p in PROVINCES for f in state["provinces"][p]["factories"] if f["kind"] == kind
        )
        assert built + state["stock"][kind] == FACTORIES_PER_KIND
    held = sum(entry["orders"] for entry in state["players"])
    assert held + state["stock"]["orders"] == 9
    for province in PROVINCES:
        assert all(count > 0 for count in state["provinces"][province]["citizens"].values())


def choose(rng: random.Random, moves: list[dict[str, Any]]) -> dict[str, Any]:
    """A random move, first choosing the kind of action uniformly."""
    kinds = sorted({move["action"] for move in moves})
    kind = rng.choice(kinds)
    return rng.choice([move for move in moves if move["action"] == kind])


def _citizen_steps(move: Move) -> list[Move]:
    """A whole move of citizens as its steps, one citizen after the other."""
    return [
        {"action": "step", "from": source, "to": target}
        for path in move["paths"]
        for source, target in zip([move["from"], *path], path, strict=False)
    ]


def _listed_route(state: State, seat: int, path: list[str]) -> list[str]:
    """The King's listed route with the same end and length as ``path``."""
    listed = [m.get("copy", m) for m in ENGINE.legal_moves(state, seat)]
    routes = [m["path"] for m in listed if m["action"] == "king"]
    return next(route for route in routes if (route[-1], len(route)) == (path[-1], len(path)))


def listed_parts(state: State, seat: int, move: Move) -> list[Move]:
    """The listed moves that together make ``move``, played one after the other.

    A whole move of citizens becomes its steps (the first copied by the Queen
    if the move was), the King's route the listed one with the same end and
    length, several virtual steps one move each; any other move stays itself.
    """
    inner = move.get("copy", move)
    parts = [inner]
    if inner["action"] == "move_citizens":
        parts = _citizen_steps(inner)
    elif inner["action"] == "king":
        parts = [{"action": "king", "path": _listed_route(state, seat, inner["path"])}]
    elif inner["action"] == "virtual":
        parts = [{"action": "virtual", "steps": [step]} for step in inner["steps"]]
    if move["action"] == "queen":
        parts[0] = {"action": "queen", "copy": parts[0]}
    return parts


def moving_citizens(state: State) -> bool:
    """Whether a move of citizens is open (waiting for a further step or its end)."""
    return state["pending"] is not None and state["pending"]["kind"] == "move_citizens"


def play_listed(state: State, seat: int, move: Move) -> State:
    """The state after ``move`` played as listed moves (each must be listed when played).

    A move of citizens still open after its steps is ended with ``end``.
    """
    parts = listed_parts(state, seat, move)
    if move.get("copy", move)["action"] == "move_citizens":
        parts.append({"action": "end_move"})
    for part in parts:
        if part["action"] == "end_move" and not moving_citizens(state):
            break
        assert part in ENGINE.legal_moves(state, seat), part
        state = ENGINE.apply(state, seat, part)
    return state


# -- faces: game objects as the API answers them, and positions worth drawing ----------------
NAMES = ["Ann", "Bob", "Cleo", "Dan"]
#: A 4-player game in round 4: every kind of piece on the map, figures on the action table.
MIDGAME = {
    "provinces": {
        "antwerpen": {"citizens": {"0": 3, "1": 2}, "factories": [{"kind": "textile"}]},
        "limburg": {"citizens": {"2": 4}},
        "brabant": {
            "citizens": {"0": 2, "1": 2, "2": 1, "3": 5},
            "factories": [{"kind": "metal"}, {"kind": "textile", "active": False}],
        },
        "liege": {
            "citizens": {"1": 4},
            "factories": [
                {"kind": "metal", "active": False},
                {"kind": "metal"},
                {"kind": "textile"},
            ],
        },
        "namur": {"citizens": {"0": 3, "2": 2}},
        "luxembourg": {"citizens": {"3": 4, "1": 1}},
        "hainaut": {"citizens": {"1": 1, "3": 1}, "factories": [{"kind": "textile"}]},
        "west-vlaanderen": {"citizens": {"2": 2}},
        "oost-vlaanderen": {"citizens": {"0": 1, "1": 3, "2": 1}, "factories": [{"kind": "metal"}]},
    },
    "king": {"at": "namur", "track": 21},
    "parliament": {"0": 2, "1": 1, "3": 2},
    "actions": {"build_factory": 0, "king": 2, "take_coins": 1, "place_citizens": 3},
    "players": [
        {"coins": 4, "vp": 9, "orders": 2, "loans": 1},
        {"coins": 11, "vp": 14, "orders": 2},
        {"coins": 2, "vp": 6, "orders": 1},
        {"coins": 7, "vp": 12, "orders": 1},
    ],
    "turn_order": [2, 0, 3, 1],
    "round": 4,
    "to_move": 3,
}


def game_object(state: State, seat: int | None = None) -> dict[str, Any]:
    """The game object the API answers for ``state``, seen by ``seat``."""
    result = ENGINE.result(state)
    return {
        "id": "fk1",
        "engine": ENGINE.id,
        "status": "active" if result is None else "finished",
        "seq": 1,
        "to_move": ENGINE.to_move(state),
        "players": [{"seat": seat, "name": NAMES[seat]} for seat in range(len(state["players"]))],
        "you": seat,
        "result": result,
        "options": {},
        "state": ENGINE.view(state, seat),
    }


def finished_game(players: int, seed: int) -> tuple[State, Move]:
    """A random game played to its end, and its last move as the public log shows it."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    last: Move = {}
    while ENGINE.result(state) is None:
        seat = ENGINE.to_move(state)[0]
        move = choose(rng, ENGINE.legal_moves(state, seat))
        before, state = state, ENGINE.apply(state, seat, move)
        last = ENGINE.public_move(before, state, seat, move)
    return state, last
