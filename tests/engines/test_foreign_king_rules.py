"""The Foreign King: every rule of the rulebook and its worked examples.

Seats in the rulebook's examples: Green = 0, Red = 1, Blue = 2 (3-4 players).
"""

from __future__ import annotations

import pytest

from engines.base import IllegalMove, InvalidPosition
from engines.foreign_king.board import NEIGHBOURS, ROUND_LIMIT
from engines.phrases import english
from tests.engines.test_foreign_king_support import (
    ENGINE,
    check_invariants,
    citizens,
    coins,
    legal_texts,
    main_action_names,
    play,
    position,
    vp,
    with_citizens,
)

GREEN, RED, BLUE = 0, 1, 2


def refused(state: dict, seat: int, text: str) -> IllegalMove:
    """The refusal of ``text`` by ``seat``; the move must not be in the legal moves."""
    assert ENGINE.parse(text) not in ENGINE.legal_moves(state, seat)
    with pytest.raises(IllegalMove) as error:
        play(state, seat, text)
    return error.value


# -- setup -------------------------------------------------------------------------
def test_setup_king_on_his_portrait_and_his_marker_on_30():
    state = ENGINE.setup(3, {}, 1)
    assert state["king"] == {"at": None, "track": 30}


@pytest.mark.parametrize(("players", "supply"), [(2, 15), (3, 14), (4, 14)])
def test_setup_16_citizens_one_on_the_score_track_and_one_on_the_turn_order_track(players, supply):
    state = ENGINE.setup(players, {}, 1)
    assert [entry["supply"] for entry in state["players"]] == [supply] * players
    assert all(entry["vp"] == 0 for entry in state["players"])
    assert state["parliament"] == {}
    check_invariants(state)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_starting_coins_5_6_7_8_by_turn_order(players):
    for seed in range(6):
        state = ENGINE.setup(players, {}, seed)
        assert [coins(state, seat) for seat in state["turn_order"]] == [5, 6, 7, 8][:players]


def test_setup_two_players_play_in_seat_order():
    for seed in range(6):
        state = ENGINE.setup(2, {}, seed)
        assert state["turn_order"] == [0, 1]
        assert ENGINE.to_move(state) == [0]


@pytest.mark.parametrize("players", [3, 4])
def test_setup_three_or_four_players_draw_the_turn_order_from_the_seed(players):
    orders = {tuple(ENGINE.setup(players, {}, seed)["turn_order"]) for seed in range(40)}
    assert len(orders) > 2
    assert all(sorted(order) == list(range(players)) for order in orders)
    assert ENGINE.setup(players, {}, 11) == ENGINE.setup(players, {}, 11)
    state = ENGINE.setup(players, {}, 11)
    assert ENGINE.to_move(state) == [state["turn_order"][0]]


def test_setup_stock_nine_royal_orders_five_textile_and_five_metal_factories():
    state = ENGINE.setup(4, {}, 3)
    assert state["stock"] == {"orders": 9, "textile": 5, "metal": 5}
    assert all(entry["orders"] == 0 and entry["loans"] == 0 for entry in state["players"])
    assert all(not state["provinces"][p]["factories"] for p in state["provinces"])


def test_setup_only_a_two_player_game_has_the_virtual_player():
    assert ENGINE.setup(2, {}, 1)["virtual"] == {"supply": 15, "vp": 0}
    assert ENGINE.setup(3, {}, 1)["virtual"] is None


def test_setup_action_table_queen_with_4_players_turn_order_with_3_or_4():
    basic = {"build_factory", "place_citizens", "move_citizens", "parliament", "take_coins", "king"}
    assert set(ENGINE.setup(2, {}, 1)["actions"]) == basic
    assert set(ENGINE.setup(3, {}, 1)["actions"]) == basic | {"turn_order"}
    assert set(ENGINE.setup(4, {}, 1)["actions"]) == basic | {"turn_order", "queen"}
    assert all(holder is None for holder in ENGINE.setup(4, {}, 1)["actions"].values())


def test_engine_metadata():
    assert (ENGINE.id, ENGINE.name, ENGINE.min_players, ENGINE.max_players) == (
        "foreign-king",
        "The Foreign King",
        2,
        4,
    )
    assert ENGINE.default_options == {}


# -- the action table -----------------------------------------------------------------
def test_action_table_example_red_may_move_score_with_the_king_use_the_queen_or_change_order():
    state = position(
        4,
        actions={"place_citizens": RED, "build_factory": 0, "parliament": 2, "take_coins": 3},
        provinces=with_citizens(namur={"1": 2}),
        to_move=RED,
    )
    assert main_action_names(state, RED) == {"move_citizens", "king", "queen", "turn_order"}
    copies = {
        move["copy"]["action"]
        for move in ENGINE.legal_moves(state, RED)
        if move["action"] == "queen"
    }
    assert copies == {"build_factory", "parliament", "take_coins"}
    after = play(state, RED, "queen build textile liege")
    assert coins(after, RED) == 6 - 2 - 3
    assert after["provinces"]["liege"]["factories"] == [{"kind": "textile", "active": True}]
    assert after["actions"]["queen"] == RED and after["actions"]["build_factory"] == 0
    assert after["actions"]["place_citizens"] is None


def test_figure_stays_on_its_action_from_one_round_to_the_next():
    state = ENGINE.setup(2, {}, 1)
    state = play(state, 0, "coins")
    state = play(state, 1, "place namur 1")
    assert state["round"] == 2 and ENGINE.to_move(state) == [0]
    assert state["actions"]["take_coins"] == 0 and state["actions"]["place_citizens"] == 1
    assert "take_coins" not in main_action_names(state, 0)


def test_a_player_may_not_pass_or_choose_the_action_their_figure_stands_on():
    state = position(3, actions={"take_coins": GREEN}, to_move=GREEN)
    assert refused(state, GREEN, "coins").rule == "repeat_action"
    assert "pass" not in {move["action"] for move in ENGINE.legal_moves(state, GREEN)}


def test_a_player_may_not_choose_an_action_another_figure_occupies():
    state = position(3, actions={"take_coins": RED}, to_move=GREEN)
    assert refused(state, GREEN, "coins").rule == "occupied"


def test_a_player_may_not_choose_an_action_they_cannot_carry_out():
    state = position(3, players=[{"coins": 2}, {}, {}], parliament={"0": 14}, to_move=GREEN)
    assert refused(state, GREEN, "build textile liege").rule == "coins"
    assert refused(state, GREEN, "place liege 1").rule == "supply"
    assert refused(state, GREEN, "move liege: namur").rule == "citizens"
    assert refused(state, GREEN, "parliament supply").rule == "supply"
    assert main_action_names(state, GREEN) == {"take_coins", "king", "turn_order"}


def test_queen_exists_only_with_four_players():
    state = position(3, actions={"take_coins": RED}, to_move=GREEN)
    assert refused(state, GREEN, "queen coins").rule == "action_table"


def test_change_turn_order_exists_only_with_three_or_four_players():
    state = position(2, to_move=0)
    assert refused(state, 0, "turn-order").rule == "action_table"


def test_moves_of_another_seat_or_out_of_turn_are_refused():
    state = position(3, to_move=GREEN)
    assert ENGINE.legal_moves(state, RED) == []
    with pytest.raises(IllegalMove) as error:
        play(state, RED, "coins")
    assert error.value.rule == "turn"


# -- build a factory ---------------------------------------------------------------------
def test_build_factory_costs_three_francs_and_takes_a_factory_from_stock():
    state = play(position(3, to_move=GREEN), GREEN, "build metal hainaut")
    assert coins(state, GREEN) == 5 - 3
    assert state["stock"]["metal"] == 4
    assert state["provinces"]["hainaut"]["factories"] == [{"kind": "metal", "active": True}]


def test_build_first_factory_of_a_province_earns_a_royal_order():
    state = play(position(3, to_move=GREEN), GREEN, "build metal hainaut")
    assert state["players"][GREEN]["orders"] == 1 and state["stock"]["orders"] == 8


def test_build_second_factory_of_a_province_earns_no_royal_order():
    factories = {"hainaut": {"factories": [{"kind": "textile", "active": False}]}}
    state = position(3, provinces=factories, to_move=GREEN)
    state = play(state, GREEN, "build textile hainaut")
    assert state["players"][GREEN]["orders"] == 0 and state["stock"]["orders"] == 9
    assert len(state["provinces"]["hainaut"]["factories"]) == 2


def test_build_no_royal_order_when_none_is_left_in_stock():
    players = [{"orders": 5, "coins": 5}, {"orders": 4}, {}]
    state = play(position(3, players=players, to_move=GREEN), GREEN, "build textile namur")
    assert state["players"][GREEN]["orders"] == 5 and state["stock"]["orders"] == 0


def test_build_any_number_and_kind_of_factories_in_one_province():
    built = [{"kind": kind, "active": True} for kind in ("metal",) * 4 + ("textile",) * 4]
    state = position(3, provinces={"liege": {"factories": built}}, to_move=GREEN)
    assert {"build textile liege", "build metal liege"} <= legal_texts(state, GREEN)


def test_build_impossible_when_that_kind_is_out_of_stock():
    built = [{"kind": "metal", "active": True}] * 5
    state = position(3, provinces={"liege": {"factories": built}}, to_move=GREEN)
    assert refused(state, GREEN, "build metal namur").rule == "factory_stock"
    assert "build textile namur" in legal_texts(state, GREEN)


def test_build_impossible_when_no_factory_is_left_in_stock():
    built = [{"kind": kind, "active": True} for kind in ("metal", "textile") * 5]
    state = position(3, provinces={"liege": {"factories": built}}, to_move=GREEN)
    assert "build_factory" not in main_action_names(state, GREEN)


# -- place citizens ----------------------------------------------------------------------
def test_place_citizens_first_is_free_three_cost_two_francs():
    state = play(position(3, to_move=GREEN), GREEN, "place namur 3")
    assert citizens(state, "namur") == {"0": 3}
    assert coins(state, GREEN) == 5 - 2
    assert state["players"][GREEN]["supply"] == 14 - 3


def test_place_one_citizen_is_free():
    state = play(position(3, players=[{"coins": 0}, {}, {}], to_move=GREEN), GREEN, "place liege 1")
    assert coins(state, GREEN) == 0 and citizens(state, "liege") == {"0": 1}


def test_place_citizens_limited_by_coins_and_supply():
    state = position(3, players=[{"coins": 2}, {}, {}], parliament={"0": 11}, to_move=GREEN)
    counts = {
        m["count"] for m in ENGINE.legal_moves(state, GREEN) if m["action"] == "place_citizens"
    }
    assert counts == {1, 2, 3}
    assert refused(state, GREEN, "place liege 4").rule == "supply"
    state = position(3, players=[{"coins": 1}, {}, {}], to_move=GREEN)
    assert refused(state, GREEN, "place liege 3").rule == "coins"


# -- move citizens ---------------------------------------------------------------------------
def test_move_citizens_contract_example_costs_one_franc_per_further_citizen_or_step():
    state = position(3, provinces=with_citizens(namur={"0": 4}), to_move=GREEN)
    state = play(state, GREEN, "move namur: liege | hainaut west-vlaanderen | supply")
    assert citizens(state, "namur") == {"0": 1}
    assert citizens(state, "liege") == {"0": 1}
    assert citizens(state, "west-vlaanderen") == {"0": 1}
    assert citizens(state, "hainaut") == {}
    assert state["players"][GREEN]["supply"] == 14 - 4 + 1
    assert coins(state, GREEN) == 5 - 3  # 4 steps, the first free


def test_move_one_citizen_into_a_neighbouring_province_is_free():
    state = position(3, provinces=with_citizens(namur={"0": 1}), to_move=GREEN)
    state = play(state, GREEN, "move namur: luxembourg")
    assert citizens(state, "luxembourg") == {"0": 1} and coins(state, GREEN) == 5


def test_move_a_citizen_back_to_the_personal_supply():
    state = position(3, provinces=with_citizens(namur={"0": 2}), to_move=GREEN)
    state = play(state, GREEN, "move namur: supply")
    assert citizens(state, "namur") == {"0": 1}
    assert state["players"][GREEN]["supply"] == 13


def test_move_citizens_only_into_neighbouring_provinces():
    state = position(3, provinces=with_citizens(namur={"0": 2}), to_move=GREEN)
    assert refused(state, GREEN, "move namur: antwerpen").rule == "path"
    assert refused(state, GREEN, "move namur: supply liege").rule == "path"


def test_move_citizens_all_come_from_one_province():
    state = position(3, provinces=with_citizens(namur={"0": 1}, liege={"0": 3}), to_move=GREEN)
    assert refused(state, GREEN, "move namur: liege | luxembourg").rule == "citizens"


def test_move_citizens_only_own_citizens():
    state = position(3, provinces=with_citizens(namur={"1": 3, "0": 1}), to_move=GREEN)
    assert refused(state, GREEN, "move namur: liege | liege").rule == "citizens"


def test_move_citizens_further_steps_must_be_paid():
    players = [{"coins": 1}, {}, {}]
    state = position(3, players=players, provinces=with_citizens(namur={"0": 3}), to_move=GREEN)
    assert play(state, GREEN, "move namur: liege limburg")["players"][GREEN]["coins"] == 0
    assert refused(state, GREEN, "move namur: liege | liege | liege").rule == "coins"


def test_move_a_citizen_never_returns_to_a_province_in_the_same_action():
    state = position(3, provinces=with_citizens(namur={"0": 1}), to_move=GREEN)
    assert refused(state, GREEN, "move namur: liege namur").rule == "path"
    assert refused(state, GREEN, "move namur: liege brabant liege").rule == "path"


def test_move_a_citizen_goes_back_to_the_supply_straight_from_its_province():
    state = position(3, provinces=with_citizens(namur={"0": 1}), to_move=GREEN)
    assert refused(state, GREEN, "move namur: liege supply").rule == "path"


def test_move_citizens_may_take_any_route_paying_for_each_step():
    state = position(3, provinces=with_citizens(namur={"0": 2}), to_move=GREEN)
    state = play(state, GREEN, "move namur: liege limburg | brabant limburg")
    assert citizens(state, "limburg") == {"0": 2} and coins(state, GREEN) == 5 - 3


# -- move citizens step by step ("Einen Bürger bewegen") ----------------------------------------
def open_move(state: dict, seat: int, *texts: str) -> dict:
    """``state`` after the steps ``texts`` of ``seat``; the move must still be open."""
    state = play(state, seat, *texts)
    assert state["pending"]["kind"] == "move_citizens" and ENGINE.to_move(state) == [seat]
    return state


def test_move_one_citizen_into_a_neighbouring_province_or_back_to_the_supply_first_step_free():
    state = position(3, provinces=with_citizens(namur={"0": 2}, liege={"1": 1}), to_move=GREEN)
    steps = {text for text in legal_texts(state, GREEN) if text.startswith("step")}
    assert steps == {f"step namur {p}" for p in ("supply", *NEIGHBOURS["namur"])}
    state = open_move(state, GREEN, "step namur liege")
    assert citizens(state, "liege") == {"1": 1, "0": 1} and coins(state, GREEN) == 5
    assert state["pending"] == {
        "seat": GREEN,
        "kind": "move_citizens",
        "from": "namur",
        "paths": [["liege"]],
    }
    assert state["actions"]["move_citizens"] == GREEN


def test_move_further_citizens_for_one_franc_each():
    state = position(3, provinces=with_citizens(namur={"0": 3}), to_move=GREEN)
    state = open_move(state, GREEN, "step namur liege", "step namur supply")
    assert citizens(state, "namur") == {"0": 1} and state["players"][GREEN]["supply"] == 12
    assert coins(state, GREEN) == 5 - 1


def test_move_an_already_moved_citizen_one_province_further_for_one_franc():
    state = position(3, provinces=with_citizens(namur={"0": 1}), to_move=GREEN)
    state = open_move(state, GREEN, "step namur liege", "step liege limburg")
    assert citizens(state, "limburg") == {"0": 1} and citizens(state, "liege") == {}
    assert state["pending"]["paths"] == [["liege", "limburg"]] and coins(state, GREEN) == 4


def test_move_all_moved_citizens_come_from_the_same_province_but_may_go_anywhere():
    state = position(3, provinces=with_citizens(namur={"0": 2}, antwerpen={"0": 2}), to_move=GREEN)
    state = open_move(state, GREEN, "step namur liege")
    assert not any(text.startswith("step antwerpen") for text in legal_texts(state, GREEN))
    assert refused(state, GREEN, "step antwerpen limburg").rule == "citizens"
    state = open_move(state, GREEN, "step namur hainaut")
    assert citizens(state, "liege") == citizens(state, "hainaut") == {"0": 1}


def test_move_step_by_step_never_returns_a_citizen_to_a_province_nor_to_the_supply_on_the_way():
    state = position(3, provinces=with_citizens(namur={"0": 1}), to_move=GREEN)
    state = open_move(state, GREEN, "step namur liege", "step liege brabant")
    assert refused(state, GREEN, "step brabant namur").rule == "path"
    assert refused(state, GREEN, "step brabant liege").rule == "path"
    assert refused(state, GREEN, "step brabant supply").rule == "path"
    assert refused(state, GREEN, "step brabant luxembourg").rule == "path"
    assert refused(state, GREEN, "step namur liege").rule == "citizens"


def test_move_step_by_step_the_citizen_moved_last_goes_on_from_where_it_stands():
    state = position(3, provinces=with_citizens(namur={"0": 2}), to_move=GREEN)
    state = open_move(state, GREEN, "step namur liege", "step namur brabant", "step brabant liege")
    assert state["pending"]["paths"] == [["liege"], ["brabant", "liege"]]
    went_on = open_move(state, GREEN, "step liege luxembourg")
    assert went_on["pending"]["paths"] == [["liege"], ["brabant", "liege", "luxembourg"]]
    earlier = open_move(state, GREEN, "step liege brabant")
    assert earlier["pending"]["paths"] == [["brabant", "liege"], ["liege", "brabant"]]


def test_move_step_by_step_ends_with_end_or_when_no_further_step_is_affordable():
    players = [{"coins": 1}, {}, {}]
    state = position(3, players=players, provinces=with_citizens(namur={"0": 2}), to_move=GREEN)
    state = open_move(state, GREEN, "step namur liege")
    assert "end" in legal_texts(state, GREEN)
    ended = play(state, GREEN, "end")
    assert ended["pending"] is None and ENGINE.to_move(ended) == [RED]
    spent = play(state, GREEN, "step liege limburg")
    assert spent["pending"] is None and ENGINE.to_move(spent) == [RED]
    assert coins(spent, GREEN) == 0


def test_move_step_by_step_no_loan_and_no_other_action_while_the_move_is_open():
    players = [{"orders": 1}, {}, {}]
    state = position(3, players=players, provinces=with_citizens(namur={"0": 2}), to_move=GREEN)
    state = open_move(state, GREEN, "step namur liege")
    assert refused(state, GREEN, "loan").rule == "pending"
    assert refused(state, GREEN, "coins").rule == "pending"
    assert refused(state, GREEN, "move namur: hainaut").rule == "pending"
    assert ENGINE.legal_moves(state, RED) == []


def test_move_end_without_an_open_move_is_refused():
    state = position(3, provinces=with_citizens(namur={"0": 2}), to_move=GREEN)
    assert refused(state, GREEN, "end").rule == "pending"


def test_move_contract_example_step_by_step_gives_the_state_of_the_whole_move():
    state = position(3, provinces=with_citizens(namur={"0": 4}), to_move=GREEN)
    whole = play(state, GREEN, "move namur: liege | hainaut west-vlaanderen | supply")
    steps = ["step namur liege", "step namur hainaut", "step hainaut west-vlaanderen"]
    stepwise = play(state, GREEN, *steps, "step namur supply", "end")
    assert stepwise == whole


def test_move_via_the_queen_step_by_step_pays_the_queen_then_each_further_step():
    provinces = with_citizens(namur={"0": 2})
    state = position(4, actions={"move_citizens": 1}, provinces=provinces, to_move=0)
    assert "queen step namur liege" in legal_texts(state, 0)
    state = open_move(state, 0, "queen step namur liege", "step namur hainaut")
    assert coins(state, 0) == 5 - 2 - 1
    state = play(state, 0, "end")
    assert state["actions"]["queen"] == 0 and state["actions"]["move_citizens"] == 1
    whole = play(
        position(4, actions={"move_citizens": 1}, provinces=provinces, to_move=0),
        0,
        "queen move namur: liege | hainaut",
    )
    assert state == whole


# -- parliament -------------------------------------------------------------------------------
def test_parliament_from_the_personal_supply():
    state = play(position(3, to_move=GREEN), GREEN, "parliament supply")
    assert state["parliament"] == {"0": 1} and state["players"][GREEN]["supply"] == 13


def test_parliament_from_a_province():
    state = position(3, provinces=with_citizens(liege={"0": 2}), to_move=GREEN)
    state = play(state, GREEN, "parliament liege")
    assert state["parliament"] == {"0": 1} and citizens(state, "liege") == {"0": 1}
    assert coins(state, GREEN) == 5


def test_parliament_needs_an_own_citizen_where_it_comes_from():
    state = position(3, provinces=with_citizens(liege={"1": 2}), to_move=GREEN)
    assert refused(state, GREEN, "parliament liege").rule == "citizens"


# -- take coins ------------------------------------------------------------------------------
def test_take_coins_three_plus_one_per_controlled_textile_factory_active_or_not():
    provinces = {
        "liege": {
            "citizens": {"0": 2, "1": 1},
            "factories": [
                {"kind": "textile", "active": True},
                {"kind": "textile", "active": False},
                {"kind": "metal", "active": True},
            ],
        },
        "namur": {"citizens": {"0": 1}, "factories": [{"kind": "textile", "active": False}]},
        "brabant": {
            "citizens": {"0": 2, "2": 2},
            "factories": [{"kind": "textile", "active": True}],
        },
        "hainaut": {"citizens": {"1": 1}, "factories": [{"kind": "textile", "active": True}]},
    }
    state = play(position(3, provinces=provinces, to_move=GREEN), GREEN, "coins")
    assert coins(state, GREEN) == 5 + 3 + 3  # liege 2 textiles, namur 1; brabant is tied


def test_take_coins_without_factories_gives_three():
    state = play(position(3, to_move=GREEN), GREEN, "coins")
    assert coins(state, GREEN) == 8


# -- the King -----------------------------------------------------------------------------------
def test_king_from_his_portrait_into_any_province_for_one_step_of_his_marker():
    state = position(3, to_move=GREEN)
    assert {f"king {p}" for p in state["provinces"]} <= legal_texts(state, GREEN)
    state = play(state, GREEN, "king luxembourg")
    assert state["king"] == {"at": "luxembourg", "track": 29}
    assert coins(state, GREEN) == 5


def test_king_from_his_portrait_moves_no_further():
    state = position(3, to_move=GREEN)
    assert refused(state, GREEN, "king namur liege").rule == "king_path"


def test_king_into_a_neighbouring_province_is_free_and_his_marker_falls_two():
    state = play(position(3, king={"at": "namur"}, to_move=GREEN), GREEN, "king liege")
    assert state["king"] == {"at": "liege", "track": 28}
    assert coins(state, GREEN) == 5


def test_king_each_further_province_costs_one_franc_and_one_more_step_of_his_marker():
    state = position(3, king={"at": "namur", "track": 20}, to_move=GREEN)
    state = play(state, GREEN, "king liege limburg antwerpen")
    assert state["king"] == {"at": "antwerpen", "track": 20 - 4}
    assert coins(state, GREEN) == 5 - 2


def test_king_may_not_return_to_where_he_came_from_in_the_same_action():
    state = position(3, king={"at": "namur"}, to_move=GREEN)
    assert refused(state, GREEN, "king liege namur").rule == "king_return"
    assert refused(state, GREEN, "king liege brabant liege").rule == "king_return"


def test_king_moves_only_into_neighbouring_provinces():
    state = position(3, king={"at": "namur"}, to_move=GREEN)
    assert refused(state, GREEN, "king antwerpen").rule == "king_path"


def test_king_further_provinces_must_be_paid():
    state = position(3, players=[{"coins": 0}, {}, {}], king={"at": "namur"}, to_move=GREEN)
    kings = {text for text in legal_texts(state, GREEN) if text.startswith("king")}
    assert kings == {"king brabant", "king hainaut", "king liege", "king luxembourg"}
    assert refused(state, GREEN, "king liege limburg").rule == "coins"


def test_king_legal_moves_list_one_route_per_end_province_and_length():
    state = position(3, players=[{"coins": 1}, {}, {}], king={"at": "luxembourg"}, to_move=GREEN)
    kings = sorted(text for text in legal_texts(state, GREEN) if text.startswith("king"))
    assert kings == [
        "king liege",
        "king liege brabant",
        "king liege limburg",
        "king liege namur",
        "king namur",
        "king namur hainaut",
        "king namur liege",
    ]
    longer = play(state, GREEN, "king namur brabant")
    assert longer == play(state, GREEN, "king liege brabant")


def test_king_in_a_province_without_citizens_scores_nothing():
    state = position(3, king={"at": "namur"}, parliament={"1": 3}, to_move=GREEN)
    state = play(state, GREEN, "king luxembourg")
    assert state["pending"] is None and ENGINE.to_move(state) == [RED]
    assert [entry["vp"] for entry in state["players"]] == [0, 0, 0]


# -- scoring -------------------------------------------------------------------------------------
def test_scoring_example_liege_blue_alone_with_four_citizens_scores_three_for_a_textile_factory():
    provinces = {"liege": {"citizens": {"2": 4}, "factories": [{"kind": "textile"}]}}
    state = position(3, provinces=provinces, king={"at": "namur"}, to_move=GREEN)
    state = play(state, GREEN, "king liege")
    assert vp(state, BLUE) == 3
    assert state["provinces"]["liege"]["factories"] == [{"kind": "textile", "active": False}]


def test_scoring_example_namur_green_three_against_red_two_scores_nine_for_metal_and_textile():
    factories = [{"kind": "metal"}, {"kind": "textile"}]
    provinces = {"namur": {"citizens": {"0": 3, "1": 2}, "factories": factories}}
    state = position(3, provinces=provinces, king={"at": "liege"}, to_move=RED)
    state = play(state, RED, "king namur")
    assert vp(state, GREEN) == 9 and vp(state, RED) == 0
    assert all(not factory["active"] for factory in state["provinces"]["namur"]["factories"])


def test_scoring_example_luxembourg_red_six_citizens_scores_two_without_factories():
    state = position(
        3, provinces=with_citizens(luxembourg={"1": 6}), king={"at": "namur"}, to_move=GREEN
    )
    state = play(state, GREEN, "king luxembourg")
    assert vp(state, RED) == 2


def test_scoring_one_point_per_three_citizens_rounded_down():
    state = position(
        3, provinces=with_citizens(luxembourg={"1": 5, "2": 1}), king={"at": "namur"}, to_move=GREEN
    )
    assert vp(play(state, GREEN, "king luxembourg"), RED) == 1


def test_scoring_inactive_factories_score_nothing_so_citizens_count():
    provinces = {"liege": {"citizens": {"0": 7}, "factories": [{"kind": "metal", "active": False}]}}
    state = position(3, provinces=provinces, king={"at": "namur"}, to_move=RED)
    assert vp(play(state, RED, "king liege"), GREEN) == 2


def test_scoring_majority_needs_strictly_more_citizens_than_anyone():
    provinces = {"liege": {"citizens": {"0": 3, "1": 3, "2": 1}, "factories": [{"kind": "metal"}]}}
    state = position(3, provinces=provinces, king={"at": "namur"}, to_move=BLUE)
    state = play(state, BLUE, "king liege")
    assert [entry["vp"] for entry in state["players"]] == [0, 0, 0]


def test_scoring_without_majority_the_kings_mover_may_deactivate_one_active_factory():
    factories = [
        {"kind": "metal", "active": True},
        {"kind": "textile", "active": False},
        {"kind": "textile", "active": True},
    ]
    provinces = {"liege": {"citizens": {"0": 2, "1": 2}, "factories": factories}}
    state = position(3, provinces=provinces, king={"at": "namur"}, to_move=BLUE)
    state = play(state, BLUE, "king liege")
    assert state["pending"] == {"seat": BLUE, "kind": "deactivate", "province": "liege"}
    assert ENGINE.to_move(state) == [BLUE]
    assert legal_texts(state, BLUE) == {"deactivate 0", "deactivate 2", "deactivate none"}
    assert refused(state, BLUE, "deactivate 1").rule == "deactivate"
    after = play(state, BLUE, "deactivate 2")
    assert [f["active"] for f in after["provinces"]["liege"]["factories"]] == [True, False, False]
    assert after["pending"] is None and ENGINE.to_move(after) == [GREEN]
    kept = play(state, BLUE, "deactivate none")
    assert [f["active"] for f in kept["provinces"]["liege"]["factories"]] == [True, False, True]


def test_scoring_without_majority_and_without_active_factory_asks_nothing():
    provinces = {
        "liege": {"citizens": {"0": 2, "1": 2}, "factories": [{"kind": "metal", "active": False}]}
    }
    state = position(3, provinces=provinces, king={"at": "namur"}, to_move=BLUE)
    state = play(state, BLUE, "king liege")
    assert state["pending"] is None and ENGINE.to_move(state) == [GREEN]


# -- parliamentarians brought to the scoring -------------------------------------------------------
def test_parliament_example_red_declines_blue_brings_two_discs_to_liege_and_scores_three():
    provinces = {"liege": {"citizens": {"0": 1, "1": 1}, "factories": [{"kind": "textile"}]}}
    state = position(
        3,
        provinces=provinces,
        parliament={"1": 3, "2": 2},
        king={"at": "namur"},
        to_move=GREEN,
    )
    state = play(state, GREEN, "king liege")
    assert ENGINE.to_move(state) == [RED]
    assert state["pending"]["kind"] == "bring_parliament"
    assert legal_texts(state, RED) == {"bring yes", "bring no"}
    state = play(state, RED, "bring no")
    assert ENGINE.to_move(state) == [BLUE]
    state = play(state, BLUE, "bring yes")
    assert citizens(state, "liege") == {"0": 1, "1": 1, "2": 2}
    assert state["parliament"] == {"1": 3}
    assert vp(state, BLUE) == 3 and vp(state, RED) == 0
    assert state["provinces"]["liege"]["factories"][0]["active"] is False
    assert ENGINE.to_move(state) == [RED]  # Green's turn is over
    check_invariants(state)


def test_bring_parliament_offered_by_size_ties_by_turn_order_and_all_may_decline():
    state = position(
        4,
        provinces=with_citizens(liege={"0": 1}),
        parliament={"0": 2, "1": 3, "2": 3, "3": 1},
        turn_order=[2, 0, 1, 3],
        king={"at": "namur"},
        to_move=2,
    )
    state = play(state, 2, "king liege")
    offered = []
    while state["pending"] is not None:
        offered.append(state["pending"]["seat"])
        state = play(state, state["pending"]["seat"], "bring no")
    assert offered == [2, 1, 0, 3]
    assert vp(state, 0) == 0 and citizens(state, "liege") == {"0": 1}


def test_bring_parliament_the_first_to_accept_brings_all_and_ends_the_offers():
    state = position(
        3,
        provinces=with_citizens(liege={"0": 1}),
        parliament={"1": 2, "2": 4},
        king={"at": "namur"},
        to_move=GREEN,
    )
    state = play(state, GREEN, "king liege")
    state = play(state, BLUE, "bring yes")
    assert state["pending"] is None
    assert state["parliament"] == {"1": 2} and citizens(state, "liege") == {"0": 1, "2": 4}
    assert vp(state, BLUE) == 1


def test_bring_parliament_two_players_not_on_a_tie():
    state = position(
        2,
        provinces=with_citizens(liege={"0": 1}),
        parliament={"0": 2, "1": 2},
        king={"at": "namur"},
        to_move=1,
    )
    state = play(state, 1, "king liege")
    assert state["pending"] is None and state["parliament"] == {"0": 2, "1": 2}


def test_bring_parliament_two_players_majority_first_then_the_other():
    state = position(
        2,
        provinces=with_citizens(liege={"0": 1}),
        parliament={"0": 1, "1": 3},
        king={"at": "namur"},
        to_move=0,
    )
    state = play(state, 0, "king liege")
    assert state["pending"]["seat"] == 1
    state = play(state, 1, "bring no")
    assert state["pending"]["seat"] == 0
    state = play(state, 0, "bring yes")
    assert citizens(state, "liege") == {"0": 2} and state["parliament"] == {"1": 3}


def test_bring_parliament_not_offered_when_the_kings_province_has_no_citizen():
    state = position(3, parliament={"1": 2}, king={"at": "namur"}, to_move=GREEN)
    state = play(state, GREEN, "king liege")
    assert state["pending"] is None and state["parliament"] == {"1": 2}


def test_no_loan_or_action_while_a_decision_is_pending():
    state = position(
        3,
        players=[{"orders": 1}, {}, {}],
        provinces=with_citizens(liege={"0": 1}),
        parliament={"0": 2},
        king={"at": "namur"},
        to_move=GREEN,
    )
    state = play(state, GREEN, "king liege")
    assert legal_texts(state, GREEN) == {"bring yes", "bring no"}
    for text in ("loan", "coins", "deactivate none"):
        assert refused(state, GREEN, text).rule == "pending"


# -- loans --------------------------------------------------------------------------------------
def test_loan_turns_a_royal_order_face_down_for_three_francs_and_the_turn_goes_on():
    state = position(3, players=[{"orders": 1}, {}, {}], to_move=GREEN)
    assert "loan" in legal_texts(state, GREEN)
    state = play(state, GREEN, "loan")
    assert coins(state, GREEN) == 8 and state["players"][GREEN]["loans"] == 1
    assert state["players"][GREEN]["orders"] == 1
    assert ENGINE.to_move(state) == [GREEN]
    assert refused(state, GREEN, "loan").rule == "loan"


def test_loan_needs_a_face_up_royal_order():
    state = position(3, to_move=GREEN)
    assert refused(state, GREEN, "loan").rule == "loan"


def test_repay_costs_four_francs_three_plus_one_interest():
    state = position(3, players=[{"orders": 2, "loans": 2, "coins": 4}, {}, {}], to_move=GREEN)
    state = play(state, GREEN, "repay")
    assert coins(state, GREEN) == 0 and state["players"][GREEN]["loans"] == 1
    assert refused(state, GREEN, "repay").rule == "repay"


def test_repay_needs_a_loan():
    state = position(3, players=[{"orders": 1, "coins": 9}, {}, {}], to_move=GREEN)
    assert refused(state, GREEN, "repay").rule == "repay"


def test_loan_makes_an_action_affordable():
    state = position(3, players=[{"orders": 1, "coins": 1}, {}, {}], to_move=GREEN)
    assert "build_factory" not in main_action_names(state, GREEN)
    state = play(state, GREEN, "loan", "build textile liege")
    assert coins(state, GREEN) == 1 and state["players"][GREEN]["orders"] == 2


def test_loans_only_during_the_own_turn():
    state = position(3, players=[{}, {"orders": 1}, {}], to_move=GREEN)
    with pytest.raises(IllegalMove) as error:
        play(state, RED, "loan")
    assert error.value.rule == "turn"


# -- change turn order -----------------------------------------------------------------------
def test_turn_order_action_takes_one_coin_and_the_new_place_is_chosen_at_the_round_end():
    state = position(3, to_move=GREEN)
    state = play(state, GREEN, "turn-order")
    assert coins(state, GREEN) == 6 and state["pending"] is None
    state = play(state, RED, "coins")
    state = play(state, BLUE, "place namur 1")
    assert state["pending"] == {"seat": GREEN, "kind": "set_position"}
    assert legal_texts(state, GREEN) == {"position 0", "position 1", "position 2"}
    state = play(state, GREEN, "position 2")
    assert state["turn_order"] == [RED, BLUE, GREEN]
    assert state["round"] == 2 and ENGINE.to_move(state) == [RED]


def test_turn_order_displaced_markers_shift_to_the_right():
    state = position(4, to_move=3, turn_order=[0, 1, 2, 3])
    state = play(state, 3, "turn-order", "position 1")
    assert state["turn_order"] == [0, 3, 1, 2]
    assert ENGINE.to_move(state) == [0] and state["round"] == 2


def test_queen_copying_turn_order_the_original_chooser_moves_first_then_the_queen():
    state = position(4, to_move=0, turn_order=[0, 1, 2, 3])
    state = play(state, 0, "turn-order")
    state = play(state, 1, "queen turn-order")
    assert coins(state, 1) == 6 - 2 + 1
    state = play(state, 2, "coins")
    state = play(state, 3, "king namur")
    assert state["pending"] == {"seat": 0, "kind": "set_position"}
    state = play(state, 0, "position 3")
    assert state["turn_order"] == [1, 2, 3, 0]
    assert state["pending"] == {"seat": 1, "kind": "set_position"}
    state = play(state, 1, "position 3")
    assert state["turn_order"] == [2, 3, 0, 1]
    assert ENGINE.to_move(state) == [2] and state["round"] == 2


def test_turn_order_figure_left_from_an_earlier_round_changes_nothing():
    state = position(3, actions={"turn_order": BLUE}, to_move=GREEN)
    state = play(state, GREEN, "coins")
    state = play(state, RED, "king namur")
    state = play(state, BLUE, "place namur 1")
    assert state["pending"] is None and state["turn_order"] == [0, 1, 2]
    assert state["round"] == 2


# -- the Queen -------------------------------------------------------------------------------
def test_queen_costs_two_francs_and_carries_out_an_occupied_action():
    state = position(4, actions={"take_coins": 1}, to_move=0)
    state = play(state, 0, "queen coins")
    assert coins(state, 0) == 5 - 2 + 3
    assert state["actions"]["queen"] == 0 and state["actions"]["take_coins"] == 1


def test_queen_copies_only_an_action_occupied_by_another_figure():
    state = position(4, actions={"take_coins": 1}, to_move=0)
    assert refused(state, 0, "queen place namur 1").rule == "queen"


def test_queen_needs_two_francs_plus_the_cost_of_the_copied_action():
    state = position(4, actions={"build_factory": 1}, players=[{"coins": 4}, {}, {}, {}], to_move=0)
    assert refused(state, 0, "queen build metal namur").rule == "coins"
    poor = position(4, actions={"take_coins": 1}, players=[{"coins": 1}, {}, {}, {}], to_move=0)
    assert refused(poor, 0, "queen coins").rule == "coins"


def test_queen_copying_the_king_makes_the_queen_player_the_kings_mover():
    provinces = {"liege": {"citizens": {"1": 1, "2": 1}, "factories": [{"kind": "metal"}]}}
    state = position(4, actions={"king": 1}, provinces=provinces, king={"at": "namur"}, to_move=3)
    state = play(state, 3, "queen king liege")
    assert state["pending"] == {"seat": 3, "kind": "deactivate", "province": "liege"}
    assert coins(state, 3) == 8 - 2


# -- end of the game -----------------------------------------------------------------------------
def end_position(count: int = 3, **fields):
    """A position where Green (seat 0) moving the King from Namur to empty Luxembourg ends it."""
    scores = sorted([entry.get("vp", 0) for entry in fields.get("players", [{}] * count)])
    fields.setdefault("king", {"at": "namur", "track": scores[-2] + 2})
    return position(count, to_move=0, **fields)


def test_game_ends_when_the_kings_marker_reaches_the_second_most_points():
    players = [{"vp": 14}, {"vp": 10}, {"vp": 3}]
    state = position(3, players=players, king={"at": "namur", "track": 12}, to_move=GREEN)
    after = play(state, GREEN, "king luxembourg")
    assert after["king"]["track"] == 10
    assert ENGINE.result(after) is not None and ENGINE.to_move(after) == []
    assert "second-most" in ENGINE.result(after)["reason"]
    assert ENGINE.legal_moves(after, RED) == []
    with pytest.raises(IllegalMove) as error:
        play(after, RED, "coins")
    assert error.value.rule == "game_over"


def test_game_goes_on_while_the_kings_marker_is_above_the_second_most_points():
    players = [{"vp": 14}, {"vp": 9}, {"vp": 3}]
    state = position(3, players=players, king={"at": "namur", "track": 12}, to_move=GREEN)
    after = play(state, GREEN, "king luxembourg")
    assert ENGINE.result(after) is None and ENGINE.to_move(after) == [RED]


def test_game_ends_when_a_score_reaches_the_kings_marker():
    players = [{"vp": 15}, {"vp": 5}, {"vp": 0}]
    provinces = {"liege": {"citizens": {"1": 2}, "factories": [{"kind": "metal"}]}}
    state = position(
        3, players=players, provinces=provinces, king={"at": "namur", "track": 13}, to_move=GREEN
    )
    after = play(state, GREEN, "king liege")
    assert after["king"]["track"] == 11
    assert vp(after, RED) - sum(after["final"]["1"].values()) == 5 + 6
    assert ENGINE.result(after) is not None


def test_game_ends_when_every_factory_of_the_game_is_inactive():
    inactive = [{"kind": kind, "active": False} for kind in ("metal",) * 5 + ("textile",) * 4]
    provinces = {
        "brabant": {"factories": inactive},
        "liege": {"citizens": {"0": 1}, "factories": [{"kind": "textile", "active": True}]},
    }
    state = position(3, provinces=provinces, king={"at": "namur"}, to_move=RED)
    after = play(state, RED, "king liege")
    assert vp(after, GREEN) >= 3
    result = ENGINE.result(after)
    assert result is not None and "factory" in result["reason"]


def test_game_goes_on_while_factories_are_left_in_stock():
    inactive = [{"kind": "metal", "active": False}] * 5
    provinces = {"liege": {"citizens": {"0": 1}, "factories": inactive}}
    state = position(3, provinces=provinces, king={"at": "namur"}, to_move=RED)
    assert ENGINE.result(play(state, RED, "king liege")) is None


def test_game_end_lets_the_active_player_finish_the_turn():
    players = [{"vp": 0}, {"vp": 10}, {"vp": 10}]
    provinces = {"liege": {"citizens": {"0": 1}, "factories": [{"kind": "textile"}]}}
    state = position(
        3,
        players=players,
        provinces=provinces,
        parliament={"1": 1},
        king={"at": "namur", "track": 12},
        to_move=GREEN,
    )
    state = play(state, GREEN, "king liege")
    assert ENGINE.result(state) is None and ENGINE.to_move(state) == [RED]
    state = play(state, RED, "bring no")
    assert ENGINE.result(state) is not None
    assert vp(state, GREEN) - sum(state["final"]["0"].values()) == 3


def test_game_end_the_active_player_may_still_repay_loans_then_finish():
    players = [{"orders": 2, "loans": 2, "coins": 9}, {}, {}]
    state = end_position(players=players)
    state = play(state, GREEN, "king luxembourg")
    assert state["pending"] == {"seat": GREEN, "kind": "finish"}
    assert ENGINE.result(state) is None and ENGINE.to_move(state) == [GREEN]
    assert legal_texts(state, GREEN) == {"repay", "finish"}
    assert refused(state, GREEN, "loan").rule == "pending"
    state = play(state, GREEN, "repay")
    assert coins(state, GREEN) == 5 and state["players"][GREEN]["loans"] == 1
    state = play(state, GREEN, "finish")
    assert state["final"]["0"]["loans"] == -6
    assert ENGINE.result(state) is not None


def test_game_end_without_a_possible_repayment_ends_at_once():
    state = end_position(players=[{"orders": 1, "loans": 1, "coins": 3}, {}, {}])
    state = play(state, GREEN, "king luxembourg")
    assert ENGINE.result(state) is not None and state["pending"] is None


def test_round_limit_ends_the_game_with_the_final_scoring():
    state = position(2, round=ROUND_LIMIT - 1, to_move=0)
    state = play(state, 0, "coins")
    state = play(state, 1, "place namur 1")
    assert state["round"] == ROUND_LIMIT and ENGINE.result(state) is None
    state = play(state, 0, "build textile liege")
    state = play(state, 1, "coins")
    result = ENGINE.result(state)
    assert result is not None and ENGINE.to_move(state) == []
    assert state["ending"] == "rounds" and state["final"] is not None
    assert result["reason"] == "Round 100 is over, and a game lasts at most 100 rounds."
    assert english(ENGINE.describe_result(result, ["Ann", "Bob"]), ["Ann", "Bob"]).endswith(
        ": round 100 is over, and a game lasts at most 100 rounds."
    )


def test_a_position_after_the_round_limit_is_refused():
    with pytest.raises(InvalidPosition, match="round"):
        position(2, round=ROUND_LIMIT + 1, to_move=0)


# -- final scoring -----------------------------------------------------------------------------
def finished(count: int = 3, **fields):
    """The state after Green ends the game from ``end_position``, finishing any repay window."""
    state = play(end_position(count, **fields), GREEN, "king luxembourg")
    if state["pending"] is not None:
        state = play(state, GREEN, "finish")
    assert ENGINE.result(state) is not None
    return state


def test_final_scoring_minus_six_per_loan_not_repaid():
    state = finished(players=[{}, {"orders": 2, "loans": 2}, {"orders": 2}])
    assert state["final"]["1"]["loans"] == -12
    assert state["final"]["2"]["loans"] == 0


def test_final_scoring_nine_for_most_provinces_each_factory_counting_one_more():
    provinces = {
        "brabant": {"citizens": {"0": 1}, "factories": [{"kind": "metal"}, {"kind": "textile"}]},
        "antwerpen": {"citizens": {"1": 2}},
        "limburg": {"citizens": {"1": 2, "2": 1}},
        "liege": {"citizens": {"2": 1, "0": 1}},
    }
    state = finished(provinces=provinces)
    assert [state["final"][key]["provinces"] for key in "012"] == [9, 0, 0]


def test_final_scoring_nine_for_most_royal_orders_face_up_or_down():
    state = finished(players=[{"orders": 1}, {"orders": 3, "loans": 3}, {"orders": 2}])
    assert [state["final"][key]["orders"] for key in "012"] == [0, 9, 0]


def test_final_scoring_three_for_the_parliament_majority():
    state = finished(parliament={"0": 1, "2": 4})
    assert [state["final"][key]["parliament"] for key in "012"] == [0, 0, 3]


def test_final_scoring_three_for_most_francs():
    state = finished(players=[{"coins": 1}, {"coins": 12}, {"coins": 4}])
    assert [state["final"][key]["coins"] for key in "012"] == [0, 3, 0]


def test_final_scoring_ties_split_evenly_rounded_down():
    provinces = {"antwerpen": {"citizens": {"0": 1}}, "limburg": {"citizens": {"1": 1}}}
    state = finished(
        players=[{"coins": 4, "orders": 1}, {"coins": 4, "orders": 1}, {"coins": 4}],
        parliament={"0": 1, "1": 1},
        provinces=provinces,
    )
    final = state["final"]
    assert [final[key]["provinces"] for key in "012"] == [4, 4, 0]
    assert [final[key]["orders"] for key in "012"] == [4, 4, 0]
    assert [final[key]["parliament"] for key in "012"] == [1, 1, 0]
    assert [final[key]["coins"] for key in "012"] == [1, 1, 1]


def test_final_scoring_nothing_for_a_category_nobody_has():
    state = finished(players=[{"coins": 0}, {"coins": 0}, {"coins": 0}])
    assert all(sum(state["final"][key].values()) == 0 for key in "012")


def test_final_points_are_added_and_the_most_points_win():
    state = finished(players=[{"vp": 4}, {"vp": 6, "orders": 1}, {"vp": 5, "coins": 9}])
    result = ENGINE.result(state)
    assert result["scores"] == {"0": 4, "1": 6 + 9, "2": 5 + 3}
    assert result["winners"] == [RED] and result["virtual_wins"] is False
    assert result["virtual_score"] is None


def test_final_tie_on_points_won_by_more_royal_orders():
    players = [{"vp": 10, "orders": 3}, {"vp": 19, "orders": 2}, {"coins": 9}]
    result = ENGINE.result(finished(players=players))
    assert result["scores"]["0"] == result["scores"]["1"] == 19
    assert result["winners"] == [GREEN]


def test_final_tie_on_points_and_royal_orders_is_a_shared_win():
    players = [{"vp": 10, "orders": 2}, {"vp": 10, "orders": 2}, {"coins": 9}]
    result = ENGINE.result(finished(players=players))
    assert result["winners"] == [GREEN, RED]


# -- a player who cannot act ----------------------------------------------------------------------
def test_a_player_who_cannot_carry_out_any_action_is_skipped():
    state = position(
        2, parliament={"1": 15}, players=[{}, {"coins": 0}], actions={"take_coins": 1}, to_move=0
    )
    state = play(state, 0, "king namur")
    assert ENGINE.to_move(state) == [0] and state["round"] == 2


def test_the_game_ends_when_no_player_can_carry_out_any_action():
    state = position(
        2,
        parliament={"0": 15, "1": 15},
        players=[{"coins": 0}, {"coins": 0}],
        actions={"take_coins": 1},
        to_move=0,
    )
    state = play(state, 0, "king namur")
    result = ENGINE.result(state)
    assert result is not None and "No player" in result["reason"]
