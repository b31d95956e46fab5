"""The Foreign King: random games to the end, checking invariants after every move."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.base import IllegalMove
from engines.foreign_king.board import KINDS, NEIGHBOURS, PROVINCES, routes, simple_routes
from schemas.foreign_king import MOVE_SCHEMAS
from tests.engines.test_foreign_king_support import (
    ENGINE,
    check_invariants,
    choose,
    moving_citizens,
    play_listed,
)

MAX_MOVES = 3000
Move = dict[str, Any]


def textile_income(state: dict, seat: int) -> int:
    """3 francs plus one per textile factory in a province where ``seat`` has strictly most."""
    income = 3
    for entry in state["provinces"].values():
        mine = entry["citizens"].get(str(seat), 0)
        others = [n for key, n in entry["citizens"].items() if key != str(seat)]
        if mine > max(others, default=0):
            income += sum(1 for factory in entry["factories"] if factory["kind"] == "textile")
    return income


def coin_change(state: dict, seat: int, move: Move) -> int:
    """The change of the mover's francs the rules give for ``move``."""
    action = move["action"]
    if action == "queen":
        return -2 + coin_change(state, seat, move["copy"])
    if action == "move_citizens":
        return 1 - sum(len(path) for path in move["paths"])
    if action == "step":
        return -1 if moving_citizens(state) else 0
    if action == "king":
        return 0 if state["king"]["at"] is None else 1 - len(move["path"])
    if action == "place_citizens":
        return 1 - move["count"]
    if action == "take_coins":
        return textile_income(state, seat)
    fixed = {"loan": 3, "repay": -4, "build_factory": -3, "turn_order": 1}
    return fixed.get(action, 0)


def check_move(before: dict, after: dict, seat: int, move: Move) -> None:
    """Coins change only by the move's cost or income; points and the King only one way."""
    for entry_before, entry_after in zip(before["players"], after["players"], strict=True):
        expected = coin_change(before, seat, move) if entry_before["seat"] == seat else 0
        assert entry_after["coins"] - entry_before["coins"] == expected
        if ENGINE.result(after) is None:
            assert entry_after["vp"] >= entry_before["vp"]
    assert after["king"]["track"] <= before["king"]["track"]


def check_views(state: dict) -> None:
    """Every view is the public view, without the PRNG."""
    public = ENGINE.view(state, None)
    assert "rng" not in json.dumps(public)
    for seat in range(len(state["players"])):
        assert ENGINE.view(state, seat) == public


def check_listing(state: dict, moves: list[Move], rng: random.Random) -> None:
    """Legal moves pass their schema and their notation reads back; other seats have none."""
    for move in rng.sample(moves, min(6, len(moves))):
        assert MOVE_SCHEMAS[move["action"]]().load(move) == move
        assert ENGINE.parse(ENGINE.format(move)) == move
    waiting = ENGINE.to_move(state)
    for seat in range(len(state["players"])):
        if seat not in waiting:
            assert ENGINE.legal_moves(state, seat) == []


def check_no_redundant_entries(state: dict, seat: int, moves: list[Move]) -> None:
    """Each listed move leads to another state: no two entries for one outcome."""
    outcomes = {json.dumps(ENGINE.apply(state, seat, move), sort_keys=True) for move in moves}
    assert len(outcomes) == len(moves)


def random_main(rng: random.Random) -> Move:
    """A well-formed but random main action."""
    place = rng.choice([*PROVINCES, "supply"])
    province = rng.choice(PROVINCES)
    options = [
        {"action": "build_factory", "kind": rng.choice(KINDS), "province": province},
        {"action": "place_citizens", "province": province, "count": rng.randint(1, 16)},
        {
            "action": "move_citizens",
            "from": province,
            "paths": [
                [rng.choice([*PROVINCES, "supply"]) for _ in range(rng.randint(1, 3))]
                for _ in range(rng.randint(1, 3))
            ],
        },
        {"action": "step", "from": province, "to": place},
        {"action": "parliament", "from": place},
        {"action": "take_coins"},
        {"action": "king", "path": rng.sample(PROVINCES, rng.randint(1, 3))},
        {"action": "turn_order"},
    ]
    return rng.choice(options)


def random_move(rng: random.Random) -> Move:
    """A well-formed but random move of any kind."""
    province = rng.choice(PROVINCES)
    step = rng.choice([{"place": province}, {"move": [province, rng.choice(PROVINCES)]}])
    options = [
        random_main(rng),
        {"action": "queen", "copy": random_main(rng)},
        {"action": rng.choice(["loan", "repay", "finish", "end_move"])},
        {"action": "bring_parliament", "accept": rng.random() < 0.5},
        {"action": "deactivate", "factory": rng.choice([None, 0, 1, 2])},
        {"action": "virtual", "steps": [step] * rng.randint(1, 3)},
        {"action": "set_position", "position": rng.randint(0, 3)},
    ]
    return rng.choice(options)


def check_random_moves(state: dict, seat: int, rng: random.Random) -> None:
    """Random well-formed moves are refused with IllegalMove, or reached by listed moves."""
    for _ in range(4):
        move = (
            MOVE_SCHEMAS["queen"]().load(m) if (m := random_move(rng))["action"] == "queen" else m
        )
        try:
            after = ENGINE.apply(state, seat, move)
        except IllegalMove as error:
            assert error.message and error.rule
        else:
            assert play_listed(state, seat, move) == after


def check_open_move(opened: dict, after: dict, seat: int, first: Move) -> None:
    """Ending an open move of citizens gives the state of the whole move with its paths."""
    pending = after["pending"]
    whole = {"action": "move_citizens", "from": pending["from"], "paths": pending["paths"]}
    if first["action"] == "queen":
        whole = {"action": "queen", "copy": whole}
    ended = ENGINE.apply(after, seat, {"action": "end_move"})
    assert ended == ENGINE.apply(opened, seat, whole)


def play_random_game(players: int, seed: int) -> None:
    """Play a seeded random game to its end, checking everything after every move."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    log: list[tuple[int, Move]] = []
    while ENGINE.result(state) is None:
        assert len(log) < MAX_MOVES, "the game did not end"
        (seat,) = ENGINE.to_move(state)
        moves = ENGINE.legal_moves(state, seat)
        assert moves, "a seat to move always has a legal move"
        check_listing(state, moves, rng)
        if len(log) % 7 == 0:
            check_random_moves(state, seat, rng)
            check_no_redundant_entries(state, seat, moves)
        move = choose(rng, moves)
        snapshot = json.dumps(state, sort_keys=True)
        after = ENGINE.apply(state, seat, move)
        assert json.dumps(state, sort_keys=True) == snapshot, "apply changed its input"
        check_move(state, after, seat, move)
        check_invariants(after)
        check_views(after)
        if not moving_citizens(state):
            opened, first = state, move
        if moving_citizens(after):
            check_open_move(opened, after, seat, first)
        log.append((seat, move))
        state = after
    assert ENGINE.to_move(state) == []
    result = ENGINE.result(state)
    assert set(result["scores"]) == {str(seat) for seat in range(players)}
    assert result["winners"] or result["virtual_wins"]
    replay = ENGINE.setup(players, {}, seed)
    for seat, move in log:
        replay = ENGINE.apply(replay, seat, json.loads(json.dumps(move)))
    assert json.dumps(replay, sort_keys=True) == json.dumps(state, sort_keys=True)


@pytest.mark.parametrize("players", [2, 3, 4])
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**63 - 1))
def test_random_games_end_with_pieces_coins_and_replay_consistent(players, seed):
    play_random_game(players, seed)


def test_routes_one_walk_over_borders_without_a_province_twice_per_end_and_length():
    for start in PROVINCES:
        walks = [[a] for a in NEIGHBOURS[start]]
        walks += [[a, b] for [a] in walks for b in NEIGHBOURS[a]]
        walks += [[a, b, c] for a, b in [w for w in walks if len(w) == 2] for c in NEIGHBOURS[b]]
        simple = [w for w in walks if len({start, *w}) == len(w) + 1]
        assert sorted(simple_routes_upto(start, 3)) == sorted(simple)
        found = routes(start, 3)
        assert all(route in simple for route in found)
        ends = [(route[-1], len(route)) for route in found]
        assert sorted(ends) == sorted({(walk[-1], len(walk)) for walk in simple})
        assert len(routes(start, 8)) == len(routes(start, 20))


def simple_routes_upto(start: str, most_steps: int) -> list[list[str]]:
    """The board's simple routes from ``start`` of at most ``most_steps`` steps."""
    return [route for route in simple_routes(start) if len(route) <= most_steps]


def decision_states() -> list[tuple[dict, int]]:
    """A regular turn and one state waiting for each kind of decision, with the deciding seat."""
    turn = ENGINE.from_position(
        4,
        {},
        1,
        {
            "provinces": {
                "liege": {"citizens": {"0": 2, "1": 1}, "factories": [{"kind": "metal"}]}
            },
            "players": [{"orders": 1}, {}, {}, {}],
            "parliament": {"2": 1},
            "actions": {"take_coins": 1, "turn_order": 3},
            "king": {"at": "namur", "track": 12},
        },
    )
    bring = ENGINE.apply(turn, 0, {"action": "king", "path": ["liege"]})
    moving = ENGINE.apply(turn, 0, {"action": "step", "from": "liege", "to": "namur"})
    deactivate = ENGINE.from_position(
        3,
        {},
        1,
        {
            "provinces": {
                "liege": {"citizens": {"0": 1, "1": 1}, "factories": [{"kind": "metal"}]}
            },
            "king": {"at": "namur"},
        },
    )
    deactivate = ENGINE.apply(deactivate, 0, {"action": "king", "path": ["liege"]})
    virtual = ENGINE.from_position(
        2,
        {},
        1,
        {
            "provinces": {"liege": {"citizens": {"0": 1}, "factories": [{"kind": "metal"}]}},
            "king": {"at": "namur"},
        },
    )
    virtual = ENGINE.apply(virtual, 0, {"action": "king", "path": ["liege"]})
    order = ENGINE.apply(
        ENGINE.from_position(3, {}, 1, {"to_move": 2}), 2, {"action": "turn_order"}
    )
    finish = ENGINE.from_position(
        3,
        {},
        1,
        {"players": [{"orders": 1, "loans": 1}, {}, {}], "king": {"at": "namur", "track": 2}},
    )
    finish = ENGINE.apply(finish, 0, {"action": "king", "path": ["luxembourg"]})
    states = [turn, moving, bring, deactivate, virtual, order, finish]
    kinds = [None if s["pending"] is None else s["pending"]["kind"] for s in states]
    assert kinds == [
        None,
        "move_citizens",
        "bring_parliament",
        "deactivate",
        "virtual",
        "set_position",
        "finish",
    ]
    return [(state, ENGINE.to_move(state)[0]) for state in states]


MALFORMED = [
    None,
    "coins",
    {},
    {"action": None},
    {"action": ["king"]},
    {"action": "pass"},
    {"action": "build_factory"},
    {"action": "build_factory", "kind": ["metal"], "province": "liege"},
    {"action": "build_factory", "kind": "metal", "province": {"x": 1}},
    {"action": "place_citizens", "province": "liege", "count": "3"},
    {"action": "place_citizens", "province": "liege", "count": True},
    {"action": "place_citizens", "province": "liege", "count": -2},
    {"action": "move_citizens", "from": "liege", "paths": "namur"},
    {"action": "move_citizens", "from": "liege", "paths": [["namur"], "namur"]},
    {"action": "move_citizens", "from": "liege", "paths": [[["namur"]]]},
    {"action": "move_citizens", "from": None, "paths": [["namur"]]},
    {"action": "step", "from": "liege"},
    {"action": "step", "from": "liege", "to": ["namur"]},
    {"action": "step", "from": ["liege"], "to": "namur"},
    {"action": "step", "from": "liege", "to": "namur", "paths": [["namur"]]},
    {"action": "end_move", "now": True},
    {"action": "parliament", "from": 3},
    {"action": "king", "path": None},
    {"action": "king", "path": "liege"},
    {"action": "king", "path": [None]},
    {"action": "queen"},
    {"action": "queen", "copy": {"action": ["x"]}},
    {"action": "queen", "copy": {"action": []}},
    {"action": "queen", "copy": {"action": {}}},
    {"action": "queen", "copy": []},
    {"action": "queen", "copy": {"action": "end_move"}},
    {"action": "queen", "copy": {"action": "step", "from": "liege"}},
    {"action": "queen", "copy": {"action": "queen", "copy": {"action": "take_coins"}}},
    {"action": "queen", "copy": {"action": "take_coins"}},
    {"action": "bring_parliament", "accept": "yes"},
    {"action": "bring_parliament"},
    {"action": "deactivate", "factory": "0"},
    {"action": "deactivate", "factory": 7},
    {"action": "deactivate", "factory": -1},
    {"action": "virtual", "steps": [["place", "liege"]]},
    {"action": "virtual", "steps": [{"place": "liege", "move": ["liege", "namur"]}]},
    {"action": "virtual", "steps": [{"move": "liege"}]},
    {"action": "virtual", "steps": [{"jump": "liege"}]},
    {"action": "virtual", "steps": []},
    {"action": "set_position", "position": 9},
    {"action": "set_position", "position": "0"},
    {"action": "finish", "now": {}},
]


@pytest.mark.parametrize("move", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_moves_are_refused_as_illegal_moves_in_every_situation(move):
    for state, seat in decision_states():
        if move not in ENGINE.legal_moves(state, seat):
            with pytest.raises(IllegalMove):
                ENGINE.apply(state, seat, move)
