"""The Foreign King: starting from a given position (contract section 2)."""

from __future__ import annotations

import random

import pytest

from engines.base import InvalidPosition
from tests.engines.test_foreign_king_support import ENGINE, check_invariants, choose, position


def test_position_empty_is_the_start_of_a_two_player_game():
    assert ENGINE.from_position(2, {}, 7, {}) == ENGINE.setup(2, {}, 7)


def test_position_defaults_seat_order_and_coins_by_turn_order():
    state = position(4, turn_order=[2, 3, 0, 1])
    assert [entry["coins"] for entry in state["players"]] == [7, 8, 5, 6]
    assert ENGINE.to_move(state) == [2]


def test_position_supplies_and_stock_are_computed_from_the_pieces_in_play():
    state = position(
        3,
        provinces={
            "liege": {"citizens": {"0": 3, "1": 1}, "factories": [{"kind": "metal"}]},
            "namur": {"factories": [{"kind": "textile", "active": False}]},
        },
        parliament={"1": 2},
        players=[{"orders": 1}, {"orders": 1, "loans": 1}, {}],
    )
    assert [entry["supply"] for entry in state["players"]] == [11, 11, 14]
    assert state["stock"] == {"orders": 7, "textile": 4, "metal": 4}
    assert state["provinces"]["liege"]["factories"] == [{"kind": "metal", "active": True}]
    check_invariants(state)


def test_position_to_move_may_be_a_one_seat_list():
    assert ENGINE.to_move(position(3, to_move=[2])) == [2]


def test_position_zero_counts_are_dropped():
    state = position(3, provinces={"liege": {"citizens": {"0": 0, "1": 2}}}, parliament={"2": 0})
    assert state["provinces"]["liege"]["citizens"] == {"1": 2}
    assert state["parliament"] == {}


def test_position_posting_a_view_back_gives_the_same_game():
    rng = random.Random(5)
    state = ENGINE.setup(2, {}, 5)
    for _ in range(25):
        seat = ENGINE.to_move(state)[0]
        state = ENGINE.apply(state, seat, choose(rng, ENGINE.legal_moves(state, seat)))
        if state["pending"] is None and ENGINE.result(state) is None:
            view = ENGINE.view(state, None)
            rebuilt = ENGINE.from_position(2, {}, 5, {**view, "to_move": ENGINE.to_move(state)})
            assert ENGINE.view(rebuilt, None) == view
            assert ENGINE.legal_moves(rebuilt, seat) == ENGINE.legal_moves(state, seat)


BAD_POSITIONS = {
    "not an object": [1, 2],
    "unknown key": {"board": {}},
    "unknown province": {"provinces": {"gent": {"citizens": {"0": 1}}}},
    "unknown owner": {"provinces": {"liege": {"citizens": {"5": 1}}}},
    "virtual with 3 players": {"provinces": {"liege": {"citizens": {"virtual": 1}}}},
    "negative citizens": {"provinces": {"liege": {"citizens": {"0": -1}}}},
    "citizens as text": {"provinces": {"liege": {"citizens": {"0": "2"}}}},
    "boolean count": {"provinces": {"liege": {"citizens": {"0": True}}}},
    "too many citizens": {"provinces": {"liege": {"citizens": {"0": 10}}}, "parliament": {"0": 5}},
    "wrong supply": {"players": [{"supply": 3}, {}, {}]},
    "unknown factory": {"provinces": {"liege": {"factories": [{"kind": "steel"}]}}},
    "factory active as text": {
        "provinces": {"liege": {"factories": [{"kind": "metal", "active": "no"}]}}
    },
    "six metal factories": {"provinces": {"liege": {"factories": [{"kind": "metal"}] * 6}}},
    "wrong stock": {"stock": {"textile": 4}},
    "ten royal orders": {"players": [{"orders": 5}, {"orders": 5}, {}]},
    "loans without orders": {"players": [{"loans": 1}, {}, {}]},
    "negative coins": {"players": [{"coins": -1}, {}, {}]},
    "players too few": {"players": [{}, {}]},
    "player seat wrong": {"players": [{"seat": 1}, {}, {}]},
    "player unknown key": {"players": [{"hand": []}, {}, {}]},
    "king off the map": {"king": {"at": "paris"}},
    "king track too high": {"king": {"track": 31}},
    "unknown action": {"actions": {"fly": 0}},
    "queen with 3 players": {"actions": {"queen": 0}},
    "two figures of one seat": {"actions": {"take_coins": 0, "king": 0}},
    "figure of an unknown seat": {"actions": {"take_coins": 3}},
    "turn order not a permutation": {"turn_order": [0, 0, 1]},
    "turn order of text": {"turn_order": ["0", "1", "2"]},
    "to_move unknown seat": {"to_move": 3},
    "to_move text": {"to_move": "0"},
    "round zero": {"round": 0},
    "pending decision": {"pending": {"seat": 0, "kind": "finish"}},
    "virtual with 3 players field": {"virtual": {"supply": 15, "vp": 0}},
    "game already over": {"players": [{"vp": 30}, {"vp": 30}, {}]},
    "provinces a list": {"provinces": []},
}


@pytest.mark.parametrize("name", sorted(BAD_POSITIONS))
def test_position_inconsistent_or_malformed_is_refused(name):
    with pytest.raises(InvalidPosition):
        ENGINE.from_position(3, {}, 1, BAD_POSITIONS[name])


def test_position_virtual_supply_must_match_its_citizens():
    provinces = {"liege": {"citizens": {"virtual": 3}}}
    assert position(2, provinces=provinces)["virtual"] == {"supply": 12, "vp": 0}
    with pytest.raises(InvalidPosition):
        position(2, provinces=provinces, virtual={"supply": 15})


def test_position_seat_to_move_must_be_able_to_act():
    with pytest.raises(InvalidPosition):
        position(
            2,
            parliament={"0": 15},
            players=[{"coins": 0}, {}],
            actions={"take_coins": 0, "king": 1},
            to_move=0,
        )
