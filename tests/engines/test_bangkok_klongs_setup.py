"""Bangkok Klongs: material, preparation, placement rules 1-6, move cards, Luk Phat, tactical.

Rulebook: /work/shared/rules/003_a10705c0827a5603.txt; board data: CONTRACT 4.4.
"""

from __future__ import annotations

import json

import pytest

from engines.bangkok_klongs.board import BOARDS
from engines.base import IllegalMove
from tests.engines.test_bangkok_klongs_helpers import (
    ENGINE,
    GOODS,
    OVERSEERS,
    THIEVES,
    hand,
    make,
    neutral,
    options,
    placements,
    plain,
    play,
    player,
    relocations_listed,
    tile,
)

LAYOUT = BOARDS["standard"]
LIGHT_STARTS = {f"r7c{c}" for c in range(2, 8)}
DARK_STARTS = {f"r0c{c}" for c in range(10)}


def legal_fields(state: dict, seat: int) -> set[str]:
    """The fields the seat may place a boat on (without using a move card)."""
    return {m["at"] for m in placements(state, seat)}


def rest(*used: str) -> list[str]:
    """Every tile not in ``used``, in catalogue order (for an explicit draw pile)."""
    return [t for t in LAYOUT.tiles if t not in used]


# -- material (CONTRACT 4.4) ---------------------------------------------------------


def test_tile_mix_nine_boats_per_good_with_baskets_0_1_1_1_2_2_2_3_3() -> None:
    for g, good in enumerate(GOODS):
        boats = [LAYOUT.tiles[f"t{9 * g + i}"] for i in range(9)]
        assert {b["good"] for b in boats} == {good}
        assert [b["baskets"] for b in boats] == [0, 1, 1, 1, 2, 2, 2, 3, 3]


def test_tile_mix_neutral_boats_are_indexes_1_4_7_and_luk_phat_4_7() -> None:
    neutral_ids = {t for t, d in LAYOUT.tiles.items() if d["neutral"]}
    luk_phat_ids = {t for t, d in LAYOUT.tiles.items() if d["luk_phat"]}
    assert neutral_ids == {f"t{9 * g + i}" for g in range(7) for i in (1, 4, 7)}
    assert luk_phat_ids == {f"t{9 * g + i}" for g in range(7) for i in (4, 7)}


def test_tile_mix_three_thieves_overseers_and_cooks_without_goods_or_merchant() -> None:
    for ids, special in (
        (THIEVES, "thief"),
        (OVERSEERS, "overseer"),
        (("t69", "t70", "t71"), "cook"),
    ):
        for tile_id in ids:
            described = LAYOUT.tiles[tile_id]
            assert described["special"] == special
            assert described["good"] is None and not described["neutral"]
            assert not described["luk_phat"] and described["baskets"] == 0
    assert len(LAYOUT.tiles) == 72


def test_board_twenty_sub_markets_of_four_fields() -> None:
    subs: dict[str, set[str]] = {}
    for field, sub in LAYOUT.sub_market.items():
        subs.setdefault(sub, set()).add(field)
    assert len(LAYOUT.coords) == 80 and len(subs) == 20
    assert subs[LAYOUT.sub_market["r3c5"]] == {"r2c4", "r2c5", "r3c4", "r3c5"}
    assert all(len(fields) == 4 for fields in subs.values())


def test_board_landing_places_touch_four_fields_and_never_one_whole_sub_market() -> None:
    assert "L1-1" not in LAYOUT.landing_places and "L3-5" not in LAYOUT.landing_places
    assert LAYOUT.landing_places["L4-5"] == ("r3c4", "r3c5", "r4c4", "r4c5")
    assert len(LAYOUT.landing_places) == 7 * 9 - 4 * 5
    for fields in LAYOUT.landing_places.values():
        assert len({LAYOUT.sub_market[f] for f in fields}) > 1


# -- preparation -----------------------------------------------------------------------


def test_setup_each_player_takes_four_secret_boats_from_the_shuffled_pile() -> None:
    state = ENGINE.setup(3, options(), 11)
    hands = [hand(state, seat) for seat in range(3)]
    assert [len(h) for h in hands] == [4, 4, 4]
    assert len(set().union(*hands)) == 12
    assert ENGINE.view(state, None)["draw_pile"] == 72 - 12
    assert hands[0] != ["t0", "t1", "t2", "t3"]


def test_setup_shuffle_comes_from_the_seed() -> None:
    first = ENGINE.setup(2, options(), 5)
    assert json.dumps(first) == json.dumps(ENGINE.setup(2, options(), 5))
    assert hand(first, 0) != hand(ENGINE.setup(2, options(), 6), 0)


@pytest.mark.parametrize(("players", "merchants"), [(2, 17), (3, 12), (4, 9)])
def test_setup_merchants_17_12_9_by_player_count(players: int, merchants: int) -> None:
    state = ENGINE.setup(players, options(), 1)
    assert [player(state, s)["merchants"] for s in range(players)] == [merchants] * players


def test_setup_two_move_cards_each_luk_phat_on_start_space_youngest_seat_0_starts() -> None:
    state = ENGINE.setup(4, options(), 3)
    view = ENGINE.view(state, None)
    assert all(p["move_cards"] == 2 and p["score"] == 0 for p in view["players"])
    assert view["luk_phat"] == 0 and view["market"] is None
    assert ENGINE.to_move(state) == [0]


def test_setup_refuses_an_unknown_board() -> None:
    with pytest.raises(ValueError):
        ENGINE.setup(2, {"tactical": False, "board": "atlantis"}, 1)


# -- placement rules ---------------------------------------------------------------------


def test_placement_rule_1_first_round_on_light_start_fields_with_two_players() -> None:
    state = make(2, hands=[[plain("fish", 1)], [plain("fish", 2)]])
    assert legal_fields(state, 0) == LIGHT_STARTS
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {plain('fish', 1)} r0c0 new")
    assert refused.value.rule == "start_field"


@pytest.mark.parametrize("players", [3, 4])
def test_placement_rule_1_dark_start_fields_too_with_three_or_four_players(players: int) -> None:
    state = make(players, hands=[[plain("fish", 1)]] * 1 + [[]] * (players - 1))
    assert legal_fields(state, 0) == LIGHT_STARTS | DARK_STARTS


def test_placement_rule_1_every_player_starts_on_a_start_field_even_next_to_a_boat() -> None:
    state = make(2, hands=[[plain("fish", 1)], [plain("fish", 2), plain("fish", 3)]])
    state = play(state, 0, f"place {plain('fish', 1)} r7c2 new")
    assert ENGINE.to_move(state) == [1]
    assert legal_fields(state, 1) == LIGHT_STARTS - {"r7c2"}
    with pytest.raises(IllegalMove):
        play(state, 1, f"place {plain('fish', 2)} r6c2 new")


def test_placement_rule_2_after_first_round_boat_touches_another_boat_diagonals_count() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 1)}, hands=[[plain("shrimp", 1)], []])
    assert legal_fields(state, 0) == {"r6c2", "r6c3", "r6c4", "r7c2", "r7c4"}
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {plain('shrimp', 1)} r5c3 new")
    assert refused.value.rule == "adjacency"


def test_placement_rule_2_jetties_do_not_matter() -> None:
    # r7c3 and r7c4 lie in different sub-markets, a jetty between them.
    assert LAYOUT.sub_market["r7c3"] != LAYOUT.sub_market["r7c4"]
    state = make(2, board={"r7c3": (plain("fish", 1), 1)}, hands=[[plain("shrimp", 1)], []])
    state = play(state, 0, f"place {plain('shrimp', 1)} r7c4 new")
    assert ENGINE.view(state, None)["board"]["r7c4"] == {"tile": plain("shrimp", 1), "merchant": 0}


def test_placement_rule_3_a_sub_market_holds_at_most_three_boats() -> None:
    board = {
        "r2c4": (plain("fish", 1), 1),
        "r2c5": (plain("fish", 2), 1),
        "r3c4": (plain("fish", 3), 1),
    }
    state = make(2, board=board, hands=[[plain("shrimp", 1)], []])
    assert "r3c5" not in legal_fields(state, 0)
    assert "r3c6" in legal_fields(state, 0)
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {plain('shrimp', 1)} r3c5 new")
    assert refused.value.rule == "sub_market"


def test_placement_rule_4_no_thief_on_a_field_protected_by_an_overseer() -> None:
    board = {"r3c3": (plain("fish", 1), 1), "r0c4": ("t66", None), "r1c4": (plain("fish", 2), 1)}
    state = make(2, board=board, hands=[["t63", plain("shrimp", 1)], []])
    moves = placements(state, 0)
    assert not any(m["tile"] == "t63" and m["at"].endswith("c4") for m in moves)
    assert any(m["tile"] == plain("shrimp", 1) and m["at"] == "r3c4" for m in moves)
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, "place t63 r3c4 none")
    assert refused.value.rule == "overseer_protection"
    play(state, 0, "place t63 r2c3 none")


def test_placement_on_an_occupied_field_or_with_a_boat_not_in_hand_is_refused() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 1)}, hands=[[plain("shrimp", 1)], []])
    with pytest.raises(IllegalMove) as occupied:
        play(state, 0, f"place {plain('shrimp', 1)} r7c3 new")
    assert occupied.value.rule == "free_field"
    with pytest.raises(IllegalMove) as not_in_hand:
        play(state, 0, f"place {plain('shrimp', 2)} r7c4 new")
    assert not_in_hand.value.rule == "tile_in_hand"


def test_boat_with_empty_spot_takes_a_new_merchant_from_the_supply() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 1)}, hands=[[plain("shrimp", 1)], []])
    after = play(state, 0, f"place {plain('shrimp', 1)} r7c4 new")
    assert player(after, 0)["merchants"] == 17 - 1
    assert ENGINE.view(after, None)["board"]["r7c4"]["merchant"] == 0


def test_boat_with_empty_spot_may_stay_unowned() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 1)}, hands=[[plain("shrimp", 1)], []])
    after = play(state, 0, f"place {plain('shrimp', 1)} r7c4 none")
    assert player(after, 0)["merchants"] == 17
    assert ENGINE.view(after, None)["board"]["r7c4"]["merchant"] is None


def test_neutral_boats_cannot_be_taken_into_possession() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 1)}, hands=[[neutral("shrimp", 1)], []])
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {neutral('shrimp', 1)} r7c4 new")
    assert refused.value.rule == "merchant"
    assert {m["merchant"] for m in placements(state, 0)} == {"none"}


def nine_own_boats() -> dict[str, tuple[str, int]]:
    """Seat 0's nine merchants (four players) on nine boats of rows 3-4."""
    fields = [f"r{r}c{c}" for r in (3, 4) for c in range(6)][:9]
    boats = [tile(good, i) for good in GOODS for i in (0, 2, 3, 5, 6, 8)]
    return {f: (boats[k], 0) for k, f in enumerate(fields)}


def test_all_merchants_in_use_one_is_taken_back_from_an_own_boat() -> None:
    state = make(4, board=nine_own_boats(), hands=[[plain("banana", 3)], [], [], []])
    assert player(state, 0)["merchants"] == 0
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {plain('banana', 3)} r2c0 new")
    assert refused.value.rule == "merchant"
    after = play(state, 0, f"place {plain('banana', 3)} r2c0 r3c0")
    board = ENGINE.view(after, None)["board"]
    assert board["r2c0"]["merchant"] == 0 and board["r3c0"]["merchant"] is None
    assert player(after, 0)["merchants"] == 0
    choices = {m["merchant"] for m in placements(state, 0)}
    assert choices == {"none", *nine_own_boats()}


def test_merchant_taken_back_only_when_all_are_in_use() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 0)}, hands=[[plain("shrimp", 1)], []])
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {plain('shrimp', 1)} r7c4 r7c3")
    assert refused.value.rule == "merchant"


def test_placement_rule_6_turn_ends_drawing_the_top_boat_back_to_four() -> None:
    hands = [[plain("shrimp", 1), plain("shrimp", 2), plain("shrimp", 3), tile("shrimp", 0)], []]
    used = [plain("fish", 1), *hands[0]]
    pile = [tile("banana", 8), *rest(*used, tile("banana", 8))]
    state = make(2, board={"r7c3": (used[0], 1)}, hands=hands, draw_pile=pile)
    after = play(state, 0, f"place {plain('shrimp', 1)} r7c4 new")
    assert hand(after, 0) == [*hands[0][1:], tile("banana", 8)]
    assert ENGINE.view(after, None)["draw_pile"] == len(pile) - 1


def test_placement_rule_6_empty_pile_hands_are_played_out_until_the_big_market_day() -> None:
    seat0, seat1 = [plain("shrimp", 1), plain("shrimp", 2)], [plain("avocado", 1)]
    used = [plain("fish", 1), *seat0, *seat1]
    state = make(
        2, board={"r7c3": (used[0], 1)}, hands=[seat0, seat1], draw_pile=[], box=rest(*used)
    )
    state = play(state, 0, f"place {seat0[0]} r7c4 new")
    assert hand(state, 0) == [seat0[1]]
    state = play(state, 1, f"place {seat1[0]} r7c2 new")
    state = play(state, 0, f"place {seat0[1]} r6c4 new")
    assert ENGINE.result(state) is not None, "nobody can place: big market day, then the end"


def test_seat_without_boats_is_passed_over() -> None:
    seat0 = [plain("shrimp", 1), plain("shrimp", 2)]
    used = [plain("fish", 1), *seat0]
    state = make(2, board={"r7c3": (used[0], 1)}, hands=[seat0, []], draw_pile=[], box=rest(*used))
    state = play(state, 0, f"place {seat0[0]} r7c4 new")
    assert ENGINE.to_move(state) == [0]


# -- move cards (placement rule 5) ------------------------------------------------------


def two_boats() -> dict[str, tuple[str, int]]:
    """Seat 0 on r7c3, seat 1 on r7c4."""
    return {"r7c3": (plain("fish", 1), 0), "r7c4": (plain("fish", 2), 1)}


def test_move_card_before_placing_moves_own_boat_diagonally_across_a_jetty() -> None:
    state = make(2, board=two_boats(), hands=[[plain("shrimp", 1)], []])
    after = play(state, 0, f"place {plain('shrimp', 1)} r7c3 none relocate r7c3 r6c4 before")
    board = ENGINE.view(after, None)["board"]
    assert board["r6c4"] == {"tile": plain("fish", 1), "merchant": 0}
    assert board["r7c3"]["tile"] == plain("shrimp", 1)
    assert player(after, 0)["move_cards"] == 1


def test_move_card_after_placing_may_move_the_new_boat() -> None:
    state = make(2, board=two_boats(), hands=[[plain("shrimp", 1)], []])
    after = play(state, 0, f"place {plain('shrimp', 1)} r6c3 new relocate r6c3 r5c3 after")
    board = ENGINE.view(after, None)["board"]
    assert "r6c3" not in board and board["r5c3"]["tile"] == plain("shrimp", 1)


def test_move_card_relocated_boat_need_not_touch_another_boat() -> None:
    state = make(2, board=two_boats(), hands=[[plain("shrimp", 1)], []])
    after = play(state, 0, f"place {plain('shrimp', 1)} r7c5 none relocate r7c3 r6c2 after")
    board = ENGINE.view(after, None)["board"]
    assert set(board) == {"r6c2", "r7c4", "r7c5"}


def test_move_card_only_twice_per_game() -> None:
    seats = [{"move_cards": 0}, {}]
    state = make(2, board=two_boats(), hands=[[plain("shrimp", 1)], []], seats=seats)
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {plain('shrimp', 1)} r7c5 none relocate r7c3 r6c3 before")
    assert refused.value.rule == "move_card"
    moves = ENGINE.legal_moves(state, 0)
    assert not any("relocate" in m or m["action"] == "relocate" for m in moves)


def test_move_card_once_per_turn_spends_one_card() -> None:
    state = make(2, board=two_boats(), hands=[[plain("shrimp", 1)], []])
    with pytest.raises(IllegalMove) as refused:
        ENGINE.apply(
            state,
            0,
            {
                "action": "place",
                "tile": plain("shrimp", 1),
                "at": "r7c5",
                "merchant": "none",
                "relocate": [{"from": "r7c3", "to": "r6c3", "when": "before"}] * 2,
            },
        )
    assert refused.value.rule == "move_shape"
    after = play(state, 0, f"place {plain('shrimp', 1)} r7c5 none relocate r7c3 r6c3 before")
    assert player(after, 0)["move_cards"] == 1


def test_move_card_only_for_own_boats() -> None:
    state = make(2, board=two_boats(), hands=[[plain("shrimp", 1)], []])
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {plain('shrimp', 1)} r7c5 none relocate r7c4 r6c4 before")
    assert refused.value.rule == "move_card"


def test_move_card_target_is_a_free_neighbouring_field() -> None:
    state = make(2, board=two_boats(), hands=[[plain("shrimp", 1)], []])
    for target in ("r5c3", "r7c4"):
        with pytest.raises(IllegalMove):
            play(state, 0, f"place {plain('shrimp', 1)} r7c5 none relocate r7c3 {target} before")
    targets = {to for origin, to in relocations_listed(state, 0) if origin == "r7c3"}
    assert targets == {"r6c2", "r6c3", "r6c4", "r7c2"}


def test_move_card_relocated_boat_respects_the_sub_market_limit() -> None:
    # The sub-market r6c4 r6c5 r7c4 r7c5 already holds three boats.
    board = {
        "r6c4": (plain("fish", 1), 1),
        "r6c5": (plain("fish", 2), 1),
        "r7c4": (plain("fish", 3), 1),
        "r7c6": (plain("banana", 1), 0),
    }
    state = make(2, board=board, hands=[[plain("shrimp", 1)], []])
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {plain('shrimp', 1)} r7c7 none relocate r7c6 r7c5 before")
    assert refused.value.rule == "move_card"
    targets = {to for _, to in relocations_listed(state, 0)}
    assert "r7c5" not in targets and "r6c6" in targets


# -- Luk Phat ----------------------------------------------------------------------------


def test_luk_phat_example_mary_moves_the_marker_to_6_and_scores_6() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 1)}, hands=[[neutral("shrimp", 2)], []])
    after = play(state, 0, f"place {neutral('shrimp', 2)} r7c4 none")
    assert ENGINE.view(after, None)["luk_phat"] == 1
    assert player(after, 0)["score"] == 6


@pytest.mark.parametrize(("space", "points"), list(enumerate([6, 5, 4, 3, 5, 4, 3, 3, 4, 3, 3, 2])))
def test_luk_phat_track_after_the_start_space(space: int, points: int) -> None:
    state = make(
        2,
        board={"r7c3": (plain("fish", 1), 1)},
        hands=[[neutral("shrimp", 3)], []],
        luk_phat=space,
    )
    after = play(state, 0, f"place {neutral('shrimp', 3)} r7c4 none")
    assert player(after, 0)["score"] == points
    assert after["luk_phat"] == space + 1


def test_luk_phat_only_boats_with_the_symbol_move_the_marker() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 1)}, hands=[[neutral("shrimp", 1)], []])
    after = play(state, 0, f"place {neutral('shrimp', 1)} r7c4 none")
    assert after["luk_phat"] == 0 and player(after, 0)["score"] == 0


@pytest.mark.parametrize(("space", "kind"), [(3, "small"), (7, "small"), (11, "big")])
def test_luk_phat_market_day_spaces_start_a_market_day(space: int, kind: str) -> None:
    board = {
        "r3c4": (plain("shrimp", 2), 0),
        "r3c5": (plain("flower", 0), 0),
        "r4c4": (plain("flower", 3), 1),
        "r4c5": (plain("avocado", 0), None),
    }
    state = make(2, board=board, hands=[[neutral("fish", 2)], []], luk_phat=space)
    after = play(state, 0, f"place {neutral('fish', 2)} r5c4 none")
    assert ENGINE.view(after, None)["market"]["kind"] == kind
    # Small: the trigger scores first. Big: the player furthest behind (seat 1) starts.
    assert ENGINE.to_move(after) == [0 if kind == "small" else 1]


def john_and_eva_block() -> dict[str, tuple[str, int | None]]:
    """L4-5 full: seat 0 owns r3c4 and r3c5, seat 1 r4c4, r4c5 belongs to nobody."""
    return {
        "r3c4": (plain("shrimp", 2), 0),
        "r3c5": (plain("flower", 0), 0),
        "r4c4": (plain("flower", 3), 1),
        "r4c5": (plain("avocado", 0), None),
    }


def trigger_hands() -> list[list[str]]:
    """Seat 0 holds the Luk Phat boat that reaches the first small market day."""
    return [[neutral("fish", 2), plain("fish", 1), plain("fish", 2)], [plain("fish", 3)]]


def test_market_day_zodra_het_luk_phat_fiche_verplaatst_wordt_vindt_een_waardering_plaats() -> None:
    # "Zodra het Luk Phat fiche verplaatst wordt naar de velden Kleine Marktdag of Grote
    # Marktdag vindt een waardering plaats": the market day comes before the rest of the turn.
    state = make(2, board=john_and_eva_block(), hands=trigger_hands(), luk_phat=3)
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {neutral('fish', 2)} r5c4 none relocate r3c5 r2c6 after")
    assert refused.value.rule == "market_day"
    state = play(state, 0, f"place {neutral('fish', 2)} r5c4 none")
    assert ENGINE.view(state, None)["market"]["kind"] == "small"
    assert len(hand(state, 0)) == 2, "the hand is refilled only after the market day"
    assert ENGINE.view(state, None)["pending"] == {
        "seat": 0,
        "kind": "finish",
        "relocate": True,
        "draw": True,
    }
    # The relocation r3c5 -> r2c6 would have broken L4-5: now it comes too late for that.
    assert {m.get("landing") for m in ENGINE.legal_moves(state, 0)} == {"L4-5", None}
    state = play(state, 0, "score L4-5 remove r3c4")
    assert ENGINE.view(state, None)["market"] is None, "nothing else can be scored"
    assert ENGINE.to_move(state) == [0], "the trigger finishes its turn after the market day"
    assert ("r3c5", "r2c6") in relocations_listed(state, 0)
    state = play(state, 0, "relocate r3c5 r2c6")
    assert "r2c6" in ENGINE.view(state, None)["board"] and len(hand(state, 0)) == 4
    assert ENGINE.view(state, None)["pending"] is None and ENGINE.to_move(state) == [1]


def test_market_day_zodra_the_rest_of_the_turn_ends_by_itself_without_a_choice() -> None:
    seats = [{"move_cards": 0}, {}]
    state = make(2, board=john_and_eva_block(), hands=trigger_hands(), luk_phat=3, seats=seats)
    state = play(state, 0, f"place {neutral('fish', 2)} r5c4 none")
    state = play(state, 0, "score L4-5 remove r3c4")
    assert ENGINE.view(state, None)["pending"] is None
    assert len(hand(state, 0)) == 4 and ENGINE.to_move(state) == [1]


def test_market_day_zodra_tactical_draw_comes_after_the_market_day() -> None:
    state = make(2, board=john_and_eva_block(), hands=trigger_hands(), luk_phat=3, tactical=True)
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {neutral('fish', 2)} r5c4 none draw plain")
    assert refused.value.rule == "market_day"
    state = play(state, 0, f"place {neutral('fish', 2)} r5c4 none")
    state = play(state, 0, "score L4-5 remove r3c4")
    finishes = {m.get("draw") for m in ENGINE.legal_moves(state, 0) if m["action"] == "finish"}
    assert finishes == {"merchant", "plain"}
    state = play(state, 0, "finish draw merchant")
    assert is_merchant_pile(hand(state, 0)[-1]) and ENGINE.to_move(state) == [1]


def test_market_day_zodra_after_the_big_market_day_the_rest_of_the_turn_is_dropped() -> None:
    state = make(2, board=john_and_eva_block(), hands=trigger_hands(), luk_phat=11)
    state = play(state, 0, f"place {neutral('fish', 2)} r5c4 none")
    assert ENGINE.view(state, None)["market"]["kind"] == "big"
    assert ENGINE.view(state, None)["pending"] is None


def test_luk_phat_boat_moves_the_marker_each_time_it_is_placed() -> None:
    board = {"r3c0": (neutral("fish", 2), None), "r3c2": (plain("avocado", 2), 1)}
    hands = [["t63", plain("fish", 1)], [plain("banana", 1)]]
    state = make(2, board=board, hands=hands, luk_phat=1)
    state = play(state, 0, "place t63 r3c1 none steal r3c0 keep hand")
    assert state["luk_phat"] == 1
    state = play(state, 1, f"place {plain('banana', 1)} r4c2 none")
    state = play(state, 0, f"place {neutral('fish', 2)} r2c2 none")
    assert state["luk_phat"] == 2 and player(state, 0)["score"] == 5


# -- tactical variant ------------------------------------------------------------------------


def is_merchant_pile(tile_id: str) -> bool:
    """Neutral and special boats form the tactical variant's merchant pile."""
    described = LAYOUT.tiles[tile_id]
    return described["neutral"] or described["special"] is not None


def test_tactical_starting_hands_three_boats_without_and_one_with_merchant() -> None:
    state = ENGINE.setup(4, options(tactical=True), 9)
    for seat in range(4):
        kinds = sorted(is_merchant_pile(t) for t in hand(state, seat))
        assert kinds == [False, False, False, True]
    assert ENGINE.view(state, None)["draw_piles"] == {"merchant": 30 - 4, "plain": 42 - 12}


def test_tactical_refill_from_the_chosen_pile() -> None:
    seat0 = [plain("shrimp", 1), plain("shrimp", 2), plain("shrimp", 3), neutral("shrimp", 1)]
    used = [plain("fish", 1), *seat0]
    pile = rest(*used)
    state = make(2, board={"r7c3": (used[0], 1)}, hands=[seat0, []], tactical=True, draw_pile=pile)
    first_plain = next(t for t in pile if not is_merchant_pile(t))
    first_merchant = next(t for t in pile if is_merchant_pile(t))
    for pile_name, expected in (("plain", first_plain), ("merchant", first_merchant)):
        after = play(state, 0, f"place {seat0[0]} r7c4 new draw {pile_name}")
        assert hand(after, 0) == [*seat0[1:], expected]


def tactical_plain_pile_only() -> tuple[dict, list[str]]:
    """Seat 0 to place in the tactical variant with only plain boats left to draw."""
    seat0 = [plain("shrimp", 1), plain("shrimp", 2), plain("shrimp", 3), neutral("shrimp", 1)]
    used = [plain("fish", 1), *seat0]
    plain_only = [t for t in rest(*used) if not is_merchant_pile(t)]
    box = [t for t in rest(*used) if is_merchant_pile(t)]
    state = make(
        2,
        board={"r7c3": (used[0], 1)},
        hands=[seat0, []],
        tactical=True,
        draw_pile=plain_only,
        box=box,
    )
    return state, seat0


def test_tactical_pile_must_not_be_empty() -> None:
    state, seat0 = tactical_plain_pile_only()
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {seat0[0]} r7c4 new draw merchant")
    assert refused.value.rule == "draw"
    after = play(state, 0, f"place {seat0[0]} r7c4 new draw plain")
    assert len(hand(after, 0)) == 4 and ENGINE.view(after, None)["pending"] is None


def test_tactical_pile_left_unnamed_is_the_next_decision() -> None:
    state, seat0 = tactical_plain_pile_only()
    listed = ENGINE.legal_moves(state, 0)
    # A new merchant makes a boat of seat 0 that a move card could move: pile and move card
    # are the next decision. With no merchant there is nothing to choose: the turn is whole.
    assert all("draw" not in m for m in listed if m["merchant"] == "new")
    assert all(m["draw"] == "plain" for m in listed if m["merchant"] == "none")
    state = play(state, 0, f"place {seat0[0]} r7c4 new")
    assert ENGINE.to_move(state) == [0] and len(hand(state, 0)) == 3
    finishes = [m for m in ENGINE.legal_moves(state, 0) if m["action"] == "finish"]
    assert finishes == [{"action": "finish", "draw": "plain"}]
    assert ("r7c4", "r6c4") in relocations_listed(state, 0)
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, "finish")
    assert refused.value.rule == "draw"
    state = play(state, 0, "relocate r7c4 r6c4 draw plain")
    assert len(hand(state, 0)) == 4 and ENGINE.view(state, None)["pending"] is None


def test_draw_pile_choice_is_refused_outside_the_tactical_variant() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 1)}, hands=[[plain("shrimp", 1)], []])
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, f"place {plain('shrimp', 1)} r7c4 new draw plain")
    assert refused.value.rule == "draw"
