"""Bangkok Klongs: thief, overseer, cook, the market days and the final inventory count.

Rulebook: /work/shared/rules/003_a10705c0827a5603.txt.
"""

from __future__ import annotations

import pytest

from engines.base import IllegalMove
from tests.engines.test_bangkok_klongs_helpers import (
    ENGINE,
    hand,
    make,
    neutral,
    placements,
    plain,
    play,
    player,
    tile,
)

THIEF, THIEF2, OVERSEER, COOK = "t63", "t64", "t66", "t69"
#: One boat per hand so that play goes on after a small market day.
HANDS = [[plain("pineapple", 1)], [plain("pineapple", 1, 1)], [plain("pineapple", 2)]]


def board_of(state: dict) -> dict:
    """The public board."""
    return ENGINE.view(state, None)["board"]


# -- thief ---------------------------------------------------------------------------


def row_three() -> dict[str, tuple[str, int | None]]:
    """Row 3: seat 1's boat on c0, a neutral boat on c1, seat 0's boat on c2."""
    return {
        "r3c0": (plain("shrimp", 1), 1),
        "r3c1": (neutral("flower", 1), None),
        "r3c2": (plain("avocado", 2), 0),
        "r2c2": (plain("banana", 2), 1),
    }


def thief_hand() -> list[str]:
    """Seat 0's hand with a thief."""
    return [THIEF, plain("fish", 1), plain("fish", 2), plain("fish", 3)]


def test_thief_takes_a_boat_of_its_row_into_the_inventory_and_draws() -> None:
    state = make(2, board=row_three(), hands=[thief_hand(), []])
    after = play(state, 0, "place t63 r3c3 none steal r3c0 keep inventory")
    assert "r3c0" not in board_of(after) and board_of(after)["r3c3"]["tile"] == THIEF
    assert player(after, 0)["inventory"] == [plain("shrimp", 1)]
    assert len(hand(after, 0)) == 4
    assert ENGINE.view(after, None)["draw_pile"] == ENGINE.view(state, None)["draw_pile"] - 1


def test_thief_stolen_boats_merchant_returns_to_its_owner() -> None:
    state = make(2, board=row_three(), hands=[thief_hand(), []])
    after = play(state, 0, "place t63 r3c3 none steal r3c0 keep inventory")
    assert player(after, 1)["merchants"] == player(state, 1)["merchants"] + 1


def test_thief_may_take_the_stolen_boat_into_the_hand_without_drawing() -> None:
    state = make(2, board=row_three(), hands=[thief_hand(), []])
    after = play(state, 0, "place t63 r3c3 none steal r3c1 keep hand")
    assert hand(after, 0) == [*thief_hand()[1:], neutral("flower", 1)]
    assert ENGINE.view(after, None)["draw_pile"] == ENGINE.view(state, None)["draw_pile"]


def test_thief_stolen_boat_in_hand_means_no_draw_even_with_a_short_hand() -> None:
    state = make(2, board=row_three(), hands=[thief_hand()[:2], []])
    after = play(state, 0, "place t63 r3c3 none steal r3c1 keep hand")
    assert hand(after, 0) == [thief_hand()[1], neutral("flower", 1)]


def test_thief_only_takes_from_its_own_row() -> None:
    state = make(2, board=row_three(), hands=[thief_hand(), []])
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, "place t63 r3c3 none steal r2c2 keep inventory")
    assert refused.value.rule == "thief"
    steals = {m["steal"] for m in placements(state, 0) if m["at"] == "r3c3" and "steal" in m}
    assert steals == {"r3c0", "r3c1", "r3c2"}


def test_thief_may_not_take_an_overseer_nor_a_boat_it_protects() -> None:
    board = {**row_three(), "r3c4": (OVERSEER, None), "r0c0": ("t67", None)}
    state = make(2, board=board, hands=[thief_hand(), []])
    for target in ("r3c4", "r3c0"):
        with pytest.raises(IllegalMove) as refused:
            play(state, 0, f"place t63 r3c3 none steal {target} keep inventory")
        assert refused.value.rule == "thief"
    play(state, 0, "place t63 r3c3 none steal r3c1 keep inventory")


def test_thief_stealing_is_optional() -> None:
    state = make(2, board=row_three(), hands=[thief_hand(), []])
    after = play(state, 0, "place t63 r3c3 none")
    assert set(board_of(after)) == {*row_three(), "r3c3"}


# -- overseer ------------------------------------------------------------------------------


def thieves_in_column_4() -> dict[str, tuple[str, int | None]]:
    """Two thieves in column 4 and a boat of seat 1 beside them."""
    return {"r2c4": (THIEF, None), "r5c4": (THIEF2, None), "r3c3": (plain("shrimp", 1), 1)}


def overseer_hand() -> list[str]:
    """Seat 0's hand with an overseer."""
    return [OVERSEER, plain("fish", 1), plain("fish", 2), plain("fish", 3)]


def test_overseer_protects_its_column_against_thieves() -> None:
    board = {"r3c3": (plain("shrimp", 1), 1), "r6c3": (plain("shrimp", 2), 1)}
    state = make(2, board=board, hands=[overseer_hand(), [THIEF]])
    columns_before = {
        m["at"][-2:] for m in placements(make(2, board=board, hands=[[], [THIEF]], to_move=1), 1)
    }
    assert "c3" in columns_before
    state = play(state, 0, "place t66 r2c3 none")
    assert ENGINE.to_move(state) == [1]
    thief_fields = {m["at"] for m in placements(state, 1)}
    assert thief_fields and not any(f.endswith("c3") for f in thief_fields)


def test_overseer_example_two_thieves_removed_one_kept_in_hand_other_to_the_box() -> None:
    state = make(2, board=thieves_in_column_4(), hands=[overseer_hand(), []])
    after = play(state, 0, "place t66 r3c4 none remove-thieves keep r2c4")
    assert "r2c4" not in board_of(after) and "r5c4" not in board_of(after)
    assert hand(after, 0) == [*overseer_hand()[1:], THIEF]
    assert ENGINE.view(after, None)["box"] == [THIEF2]
    assert ENGINE.view(after, None)["draw_pile"] == ENGINE.view(state, None)["draw_pile"]


def test_overseer_example_two_thieves_both_to_the_box_and_a_new_boat_drawn() -> None:
    state = make(2, board=thieves_in_column_4(), hands=[overseer_hand(), []])
    after = play(state, 0, "place t66 r3c4 none remove-thieves")
    assert sorted(ENGINE.view(after, None)["box"]) == [THIEF, THIEF2]
    assert len(hand(after, 0)) == 4 and THIEF not in hand(after, 0)
    assert ENGINE.view(after, None)["draw_pile"] == ENGINE.view(state, None)["draw_pile"] - 1


def test_overseer_removes_all_thieves_of_its_column_or_none() -> None:
    state = make(2, board=thieves_in_column_4(), hands=[overseer_hand(), []])
    kept = play(state, 0, "place t66 r3c4 none")
    assert {"r2c4", "r5c4"} <= set(board_of(kept))
    moves = [m for m in placements(state, 0) if m["at"] == "r3c4"]
    removals = [m for m in moves if "remove_thieves" in m and m["merchant"] == "none"]
    assert sorted(m.get("keep", "-") for m in removals) == ["-", "r2c4", "r5c4"]
    assert all(m["remove_thieves"] is True for m in removals)


def test_overseer_cannot_remove_thieves_outside_its_column() -> None:
    state = make(2, board=thieves_in_column_4(), hands=[overseer_hand(), []])
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, "place t66 r3c2 none remove-thieves")
    assert refused.value.rule == "overseer"
    with pytest.raises(IllegalMove):
        play(state, 0, "place t66 r3c4 none remove-thieves keep r3c3")


# -- market days ------------------------------------------------------------------------------


def john_and_eva() -> dict[str, tuple[str, int | None]]:
    """The rulebook's block at L4-5: John (seat 0) 2 + 0 baskets, Eva (seat 1) 3, unowned 0."""
    return {
        "r3c4": (plain("shrimp", 2), 0),
        "r3c5": (plain("flower", 0), 0),
        "r4c4": (plain("flower", 3), 1),
        "r4c5": (plain("avocado", 0), None),
    }


def test_market_day_example_john_scores_ten_and_eva_five() -> None:
    state = make(2, board=john_and_eva(), hands=[[neutral("fish", 2)], []], luk_phat=3)
    state = play(state, 0, f"place {neutral('fish', 2)} r5c4 none")
    assert ENGINE.view(state, None)["market"]["kind"] == "small"
    before = [player(state, s)["score"] for s in (0, 1)]
    after = play(state, 0, "score L4-5 remove r3c4")
    gained = [player(after, s)["score"] - before[s] for s in (0, 1)]
    assert gained == [5 * 2, 5 * 1]


def test_market_day_scorer_removes_an_own_boat_into_the_inventory_and_the_merchant_returns() -> (
    None
):
    state = make(
        2, board=john_and_eva(), market={"kind": "small", "trigger": 0}, luk_phat=4, hands=HANDS[:2]
    )
    after = play(state, 0, "score L4-5 remove r3c5")
    assert "r3c5" not in board_of(after)
    assert player(after, 0)["inventory"] == [plain("flower", 0)]
    assert player(after, 0)["merchants"] == player(state, 0)["merchants"] + 1


def test_market_day_landing_place_needs_all_four_fields_occupied() -> None:
    board = {**john_and_eva(), "r3c3": (plain("banana", 3), 0), "r4c3": (plain("banana", 0), 1)}
    del board["r4c5"]
    state = make(
        2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4, hands=HANDS[:2]
    )
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, "score L4-5 remove r3c4")
    assert refused.value.rule == "landing_place"
    assert {m.get("landing") for m in ENGINE.legal_moves(state, 0)} == {"L4-4", None}


def test_market_day_scorer_must_own_a_boat_at_the_landing_place() -> None:
    others = [plain("banana", b, n) for b, n in ((0, 0), (1, 0), (1, 1), (2, 0))]
    board = {
        **john_and_eva(),
        **dict(zip(("r3c6", "r3c7", "r4c6", "r4c7"), [(t, 1) for t in others], strict=True)),
    }
    state = make(
        2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4, hands=HANDS[:2]
    )
    with pytest.raises(IllegalMove) as refused:
        play(state, 0, "score L4-7 remove r3c6")
    assert refused.value.rule == "landing_place"


def test_market_day_cook_doubles_the_points() -> None:
    board = {**john_and_eva(), "r4c5": (COOK, None)}
    state = make(
        2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4, hands=HANDS[:2]
    )
    after = play(state, 0, "score L4-5 remove r3c4")
    assert [player(after, s)["score"] for s in (0, 1)] == [2 * 5 * 2, 2 * 5 * 1]


def test_market_day_thief_baskets_do_not_count() -> None:
    board = {**john_and_eva(), "r4c5": (THIEF, None)}
    state = make(
        2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4, hands=HANDS[:2]
    )
    after = play(state, 0, "score L4-5 remove r3c4")
    assert [player(after, s)["score"] for s in (0, 1)] == [5 * 2, 5 * 1]


def rows_three_four(owners: dict[str, int]) -> dict[str, tuple[str, int | None]]:
    """Rows 3 and 4, columns 0-5, all occupied (2 per sub-market); ``owners`` own some."""
    fields = [f"r{r}c{c}" for r in (3, 4) for c in range(6)]
    boats = [tile(good, i) for good in ("shrimp", "flower") for i in (0, 2, 3, 5, 6, 8)]
    return {f: (boats[k], owners.get(f)) for k, f in enumerate(fields)}


def test_small_market_day_the_trigger_scores_first_then_clockwise() -> None:
    board = rows_three_four({"r3c0": 0, "r3c2": 1, "r3c4": 2})
    state = make(
        3, board=board, market={"kind": "small", "trigger": 1}, luk_phat=4, to_move=1, hands=HANDS
    )
    order = []
    while ENGINE.view(state, None)["market"] is not None:
        (seat,) = ENGINE.to_move(state)
        order.append(seat)
        state = play(state, seat, "decline")
    assert order == [1, 2, 0, 1, 2, 0]


def test_small_market_day_play_resumes_left_of_the_trigger() -> None:
    board = rows_three_four({"r3c0": 0, "r3c2": 1, "r3c4": 2})
    state = make(
        3, board=board, market={"kind": "small", "trigger": 1}, luk_phat=4, to_move=1, hands=HANDS
    )
    for seat in (1, 2, 0, 1, 2, 0):
        state = play(state, seat, "decline")
    assert ENGINE.view(state, None)["market"] is None
    assert ENGINE.to_move(state) == [2]


def test_small_market_day_each_player_scores_at_most_twice() -> None:
    board = rows_three_four({"r3c0": 0, "r3c2": 0, "r3c4": 0})
    state = make(
        2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4, hands=HANDS[:2]
    )
    state = play(state, 0, "score L4-1 remove r3c0")
    assert ENGINE.to_move(state) == [0], "seat 1 owns nothing there and is passed over"
    state = play(state, 0, "score L4-3 remove r3c2")
    assert ENGINE.view(state, None)["market"] is None, "L4-5 is left unscored"
    assert {"r3c4", "r3c5", "r4c4", "r4c5"} <= set(board_of(state))
    assert ENGINE.to_move(state) == [1]


def test_small_market_day_decline_in_the_first_round_then_score_in_the_second() -> None:
    board = rows_three_four({"r3c0": 0})
    state = make(
        2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4, hands=HANDS[:2]
    )
    state = play(state, 0, "decline")
    assert ENGINE.to_move(state) == [0]
    state = play(state, 0, "score L4-1 remove r3c0")
    assert player(state, 0)["score"] > 0 and ENGINE.view(state, None)["market"] is None


def test_small_market_day_only_an_own_boat_may_be_removed() -> None:
    board = rows_three_four({"r3c0": 0, "r4c0": 1})
    state = make(
        2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4, hands=HANDS[:2]
    )
    for field in ("r3c1", "r4c0"):
        with pytest.raises(IllegalMove) as refused:
            play(state, 0, f"score L4-1 remove {field}")
        assert refused.value.rule == "removal"
    assert {m.get("remove") for m in ENGINE.legal_moves(state, 0)} == {"r3c0", None}


def test_market_day_seat_that_cannot_score_is_passed_over() -> None:
    state = make(
        2,
        board=john_and_eva(),
        market={"kind": "small", "trigger": 1},
        luk_phat=4,
        to_move=1,
        hands=HANDS[:2],
    )
    state = play(state, 1, "score L4-5 remove r4c4")
    assert ENGINE.view(state, None)["market"] is None, "nothing left to score for anyone"
    assert ENGINE.to_move(state) == [0]


def big_market(scores: list[int], owners: dict[str, int], trigger: int) -> dict:
    """``trigger`` places the last Luk Phat boat (2 points): the big market day opens."""
    board = rows_three_four(owners)
    count = len(scores)
    hands = [[neutral("fish", 3)] if s == trigger else [] for s in range(count)]
    seats = [{"score": score} for score in scores]
    state = make(count, board=board, hands=hands, seats=seats, luk_phat=11, to_move=trigger)
    state = play(state, trigger, f"place {neutral('fish', 3)} r5c0 none")
    assert ENGINE.view(state, None)["market"]["kind"] == "big"
    return state


def test_big_market_day_starts_with_the_player_furthest_behind() -> None:
    state = big_market([10, 4, 7], {"r3c0": 0, "r3c2": 1, "r3c4": 2}, trigger=0)
    assert ENGINE.to_move(state) == [1]


def test_big_market_day_tie_fewer_merchants_on_the_board_starts() -> None:
    state = big_market([5, 5, 9], {"r3c0": 0, "r4c0": 0, "r3c2": 1, "r3c4": 2}, trigger=2)
    assert ENGINE.to_move(state) == [1]


@pytest.mark.parametrize(
    ("trigger", "scores", "starter"),
    [(1, [5, 3, 5], 1), (1, [5, 9, 5], 2), (0, [9, 5, 5], 1)],
)
def test_big_market_day_tie_again_the_trigger_or_the_first_after_it_starts(
    trigger: int, scores: list[int], starter: int
) -> None:
    # The trigger gains 2 for the last Luk Phat space; every seat has one merchant out.
    state = big_market(scores, {"r3c0": 0, "r3c2": 1, "r3c4": 2}, trigger=trigger)
    assert ENGINE.to_move(state) == [starter]


def test_big_market_day_continues_until_nobody_can_score() -> None:
    state = big_market([0, 0], {"r3c0": 0, "r3c2": 0, "r3c4": 0}, trigger=1)
    scorings = 0
    while ENGINE.result(state) is None:
        (seat,) = ENGINE.to_move(state)
        score = next(m for m in ENGINE.legal_moves(state, seat) if m["action"] == "score")
        state = ENGINE.apply(state, seat, score)
        scorings += 1
    assert scorings > 2, "no limit of two on the big market day"
    assert len(player(state, 0)["inventory"]) == scorings


def test_big_market_day_ends_when_nobody_wants_to_score() -> None:
    state = big_market([0, 0], {"r3c0": 0, "r3c2": 1}, trigger=1)
    state = play(state, ENGINE.to_move(state)[0], "decline")
    assert ENGINE.result(state) is None
    state = play(state, ENGINE.to_move(state)[0], "decline")
    assert ENGINE.result(state) is not None


def test_big_market_day_a_decline_holds_until_someone_scores() -> None:
    state = big_market([1, 0, 0], {"r3c0": 0, "r3c2": 1, "r3c4": 2}, trigger=0)
    assert ENGINE.to_move(state) == [1]
    state = play(state, 1, "decline")
    state = play(state, 2, "score L4-5 remove r3c4")
    assert ENGINE.to_move(state) == [0]
    state = play(state, 0, "decline")
    assert ENGINE.to_move(state) == [1], "after a scoring, seat 1 may score after all"


def test_big_market_day_may_remove_a_neutral_boat_but_not_another_players_or_a_special() -> None:
    board = rows_three_four({"r3c0": 0, "r4c0": 1})
    board["r3c1"] = (neutral("banana", 1), None)
    board["r4c1"] = (COOK, None)
    state = make(2, board=board, market={"kind": "big", "trigger": 0}, luk_phat=12)
    assert {m.get("remove") for m in ENGINE.legal_moves(state, 0)} == {"r3c0", "r3c1", None}
    for field in ("r4c0", "r4c1"):
        with pytest.raises(IllegalMove) as refused:
            play(state, 0, f"score L4-1 remove {field}")
        assert refused.value.rule == "removal"
    after = play(state, 0, "score L4-1 remove r3c1")
    assert player(after, 0)["inventory"] == [neutral("banana", 1)]


def test_big_market_day_een_eigen_of_een_neutrale_boot_not_a_boat_with_an_empty_spot() -> None:
    # "een eigen of een neutrale boot te nemen": neutral boats are those with a printed
    # merchant ("Boten met daarin een handelaar zijn neutraal"); a boat whose merchant spot
    # is empty is not neutral, nor is it the scorer's own.
    board = rows_three_four({"r3c0": 0})
    board["r3c1"] = (neutral("banana", 1), None)
    state = make(2, board=board, market={"kind": "big", "trigger": 0}, luk_phat=12)
    empty_spots = [f for f in ("r4c0", "r4c1") if board[f][1] is None]
    assert empty_spots == ["r4c0", "r4c1"]
    assert {m.get("remove") for m in ENGINE.legal_moves(state, 0)} == {"r3c0", "r3c1", None}
    for field in empty_spots:
        with pytest.raises(IllegalMove) as refused:
            play(state, 0, f"score L4-1 remove {field}")
        assert refused.value.rule == "removal"
        assert "empty merchant spot" in refused.value.message


def test_removal_reopens_a_field_the_sub_market_rule_blocked() -> None:
    board = {**rows_three_four({"r3c0": 0}), "r2c0": (plain("banana", 3), 1)}
    state = make(
        2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4, hands=HANDS[:2]
    )
    blocked = make(2, board=board, hands=HANDS[:2], to_move=1)
    assert "r2c1" not in {m["at"] for m in placements(blocked, 1)}
    state = play(state, 0, "score L4-1 remove r3c0")
    assert ENGINE.to_move(state) == [1]
    play(state, 1, f"place {HANDS[1][0]} r2c1 none")


def test_removal_breaking_a_chain_does_not_matter() -> None:
    board = {
        "r3c0": (plain("shrimp", 1), 0),
        "r3c1": (plain("shrimp", 2), 0),
        "r4c0": (plain("shrimp", 3), None),
        "r4c1": (plain("shrimp", 0), None),
        "r2c2": (plain("banana", 3), 1),
    }
    state = make(
        2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4, hands=HANDS[:2]
    )
    state = play(state, 0, "score L4-1 remove r3c1")
    assert ENGINE.to_move(state) == [1]
    play(state, 1, f"place {HANDS[1][0]} r1c2 none")


# -- the end ----------------------------------------------------------------------------------


def sarahs_inventory() -> list[str]:
    """One banana boat, three fish boats, seven flower boats."""
    return (
        [tile("banana", 0)]
        + [tile("fish", i) for i in range(3)]
        + [tile("flower", i) for i in range(7)]
    )


def test_inventory_example_sarah_scores_1_plus_6_plus_28() -> None:
    seats = [{"inventory": sarahs_inventory(), "score": 40}, {"score": 50}]
    state = make(
        2,
        board={"r7c3": (plain("shrimp", 1), 1)},
        hands=[[neutral("shrimp", 3)], []],
        seats=seats,
        luk_phat=11,
    )
    state = play(state, 0, f"place {neutral('shrimp', 3)} r7c4 none")
    result = ENGINE.result(state)
    assert result["inventory_points"] == {"0": 1 + 6 + 28, "1": 0}
    assert result["scores"] == {"0": 40 + 2 + 35, "1": 50}
    assert result["winners"] == [0]


def test_inventory_special_boats_score_nothing() -> None:
    seats = [{"inventory": [THIEF, OVERSEER, COOK, tile("fish", 0)]}, {}]
    state = make(
        2,
        board={"r7c3": (plain("shrimp", 1), 1)},
        seats=seats,
        market={"kind": "big", "trigger": 0},
        luk_phat=12,
    )
    assert ENGINE.result(state)["inventory_points"]["0"] == 1


def test_end_most_points_wins_and_equal_scores_share_the_win() -> None:
    seats = [{"score": 30}, {"score": 31}, {"score": 31}]
    state = make(
        3,
        board={"r7c3": (plain("shrimp", 1), 1)},
        seats=seats,
        market={"kind": "big", "trigger": 0},
        luk_phat=12,
    )
    result = ENGINE.result(state)
    assert result["winners"] == [1, 2]
    assert ENGINE.to_move(state) == [] and ENGINE.legal_moves(state, 1) == []
    with pytest.raises(IllegalMove) as refused:
        play(state, 1, "decline")
    assert refused.value.rule == "game_over"


def test_game_runs_until_the_big_market_day() -> None:
    state = make(
        2, board={"r7c3": (plain("shrimp", 1), 1)}, hands=[[neutral("shrimp", 3)], []], luk_phat=10
    )
    state = play(state, 0, f"place {neutral('shrimp', 3)} r7c4 none")
    assert ENGINE.result(state) is None and ENGINE.view(state, None)["luk_phat"] == 11
