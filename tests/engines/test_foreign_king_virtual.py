"""The Foreign King with two players: the virtual third player.

Seats in the rulebook's example: Blue = 0, Black = 1.
"""

from __future__ import annotations

import pytest

from engines.base import IllegalMove
from tests.engines.test_foreign_king_support import (
    ENGINE,
    check_invariants,
    citizens,
    legal_texts,
    play,
    position,
    vp,
)

BLUE, BLACK = 0, 1


def blue_scores_three(**fields):
    """Blue scores 3 in Liège (4 citizens, a textile factory); 2 virtual citizens wait in Namur."""
    provinces = {
        "liege": {"citizens": {"0": 4}, "factories": [{"kind": "textile"}]},
        "namur": {"citizens": {"virtual": 2}},
        **fields.pop("provinces", {}),
    }
    state = position(2, provinces=provinces, king={"at": "brabant"}, to_move=BLUE, **fields)
    return play(state, BLUE, "king liege")


def test_virtual_example_blue_scores_three_so_black_owes_two_virtual_steps():
    state = blue_scores_three()
    assert vp(state, BLUE) == 3
    assert state["pending"] == {"seat": BLACK, "kind": "virtual", "steps": 2}
    assert ENGINE.to_move(state) == [BLACK]
    assert ENGINE.legal_moves(state, BLUE) == []


def test_virtual_example_black_places_two_virtual_citizens():
    state = play(blue_scores_three(), BLACK, "virtual place liege, place hainaut")
    assert citizens(state, "liege") == {"0": 4, "virtual": 1}
    assert citizens(state, "hainaut") == {"virtual": 1}
    assert state["virtual"]["supply"] == 15 - 2 - 2
    assert state["pending"] is None and ENGINE.to_move(state) == [BLACK]  # Black's turn now
    check_invariants(state)


def test_virtual_example_black_moves_two_virtual_citizens():
    state = play(blue_scores_three(), BLACK, "virtual move namur liege, move namur luxembourg")
    assert citizens(state, "namur") == {}
    assert citizens(state, "liege") == {"0": 4, "virtual": 1}
    assert citizens(state, "luxembourg") == {"virtual": 1}
    assert state["virtual"]["supply"] == 13


def test_virtual_example_black_moves_one_virtual_citizen_twice():
    state = play(blue_scores_three(), BLACK, "virtual move namur luxembourg, move luxembourg liege")
    assert citizens(state, "namur") == {"virtual": 1}
    assert citizens(state, "luxembourg") == {}
    assert citizens(state, "liege") == {"0": 4, "virtual": 1}


def test_virtual_example_black_places_one_and_moves_one_virtual_citizen():
    state = play(blue_scores_three(), BLACK, "virtual place antwerpen, move namur hainaut")
    assert citizens(state, "antwerpen") == {"virtual": 1}
    assert citizens(state, "namur") == {"virtual": 1}
    assert citizens(state, "hainaut") == {"virtual": 1}
    assert state["virtual"]["supply"] == 12


def test_virtual_steps_may_be_given_one_at_a_time():
    state = blue_scores_three()
    moves = ENGINE.legal_moves(state, BLACK)
    assert all(move["action"] == "virtual" and len(move["steps"]) == 1 for move in moves)
    places = {f"virtual place {p}" for p in state["provinces"]}
    from_namur = {f"virtual move namur {p}" for p in ("brabant", "hainaut", "liege", "luxembourg")}
    assert legal_texts(state, BLACK) == places | from_namur
    state = play(state, BLACK, "virtual place liege")
    assert state["pending"] == {"seat": BLACK, "kind": "virtual", "steps": 1}
    state = play(state, BLACK, "virtual move liege brabant")
    assert state["pending"] is None and citizens(state, "brabant") == {"virtual": 1}


def test_virtual_no_more_steps_than_points_minus_one():
    state = blue_scores_three()
    with pytest.raises(IllegalMove) as error:
        play(state, BLACK, "virtual place liege, place liege, place liege")
    assert error.value.rule == "virtual_count"


def test_virtual_one_point_means_no_virtual_steps():
    state = position(
        2, provinces={"luxembourg": {"citizens": {"0": 3}}}, king={"at": "namur"}, to_move=BLUE
    )
    state = play(state, BLUE, "king luxembourg")
    assert vp(state, BLUE) == 1 and state["pending"] is None
    assert ENGINE.to_move(state) == [BLACK]


def test_virtual_steps_are_made_by_the_opponent_of_the_scorer():
    provinces = {"liege": {"citizens": {"1": 2}, "factories": [{"kind": "metal"}]}}
    state = position(2, provinces=provinces, king={"at": "namur"}, to_move=BLUE)
    state = play(state, BLUE, "king liege")
    assert vp(state, BLACK) == 6
    assert state["pending"] == {"seat": BLUE, "kind": "virtual", "steps": 5}


def test_virtual_when_all_its_citizens_are_on_the_board_they_can_only_be_moved():
    state = blue_scores_three(provinces={"namur": {"citizens": {"virtual": 15}}})
    assert state["virtual"]["supply"] == 0
    assert all("move" in move["steps"][0] for move in ENGINE.legal_moves(state, BLACK))
    with pytest.raises(IllegalMove) as error:
        play(state, BLACK, "virtual place liege")
    assert error.value.rule == "virtual_supply"


def test_virtual_moves_only_its_own_citizens_into_neighbouring_provinces():
    state = blue_scores_three()
    for text in ("virtual move liege namur", "virtual move namur antwerpen"):
        with pytest.raises(IllegalMove) as error:
            play(state, BLACK, text)
        assert error.value.rule == "virtual_move"


def test_virtual_player_scores_like_a_player_and_its_points_trigger_no_steps():
    provinces = {"liege": {"citizens": {"virtual": 3, "0": 1}, "factories": [{"kind": "metal"}]}}
    state = position(2, provinces=provinces, king={"at": "namur"}, to_move=BLUE)
    state = play(state, BLUE, "king liege")
    assert state["virtual"]["vp"] == 6 and state["pending"] is None
    assert ENGINE.to_move(state) == [BLACK]


def test_virtual_citizens_count_for_the_majority():
    provinces = {"liege": {"citizens": {"virtual": 2, "0": 2}, "factories": [{"kind": "metal"}]}}
    state = position(2, provinces=provinces, king={"at": "namur"}, to_move=BLACK)
    state = play(state, BLACK, "king liege")
    assert vp(state, BLUE) == 0
    assert state["pending"] == {"seat": BLACK, "kind": "deactivate", "province": "liege"}


def test_virtual_citizens_count_for_control_when_taking_coins():
    provinces = {"liege": {"citizens": {"virtual": 3, "0": 2}, "factories": [{"kind": "textile"}]}}
    state = play(position(2, provinces=provinces, to_move=BLUE), BLUE, "coins")
    assert state["players"][BLUE]["coins"] == 5 + 3


def test_virtual_points_count_for_the_second_most_points_that_end_the_game():
    players = [{"vp": 20}, {"vp": 2}]
    fields = {"players": players, "king": {"at": "namur", "track": 12}, "to_move": BLUE}
    state = position(2, virtual={"vp": 10}, **fields)
    assert ENGINE.result(play(state, BLUE, "king luxembourg")) is not None
    without = position(2, **fields)
    assert ENGINE.result(play(without, BLUE, "king luxembourg")) is None


def end_two_player(**fields):
    """End a 2-player game at once: Blue moves the King from Namur to empty Luxembourg."""
    state = position(2, king={"at": "namur", "track": 2}, to_move=BLUE, **fields)
    state = play(state, BLUE, "king luxembourg")
    assert ENGINE.result(state) is not None
    return state


def test_virtual_end_bonus_most_provinces_doubled_plus_one_per_majority_plus_three_if_industrial():
    provinces = {
        "antwerpen": {"citizens": {"virtual": 1}},
        "limburg": {"citizens": {"virtual": 2, "1": 1}, "factories": [{"kind": "metal"}]},
        "brabant": {"citizens": {"0": 1}},
    }
    state = end_two_player(provinces=provinces)
    assert state["final"]["virtual"] == {"provinces": 18, "majorities": 2, "industry": 3}
    assert state["virtual"]["vp"] == 23
    assert state["final"]["0"]["provinces"] == 0


def test_virtual_tie_for_most_provinces_gets_its_share_doubled():
    provinces = {"antwerpen": {"citizens": {"virtual": 1}}, "brabant": {"citizens": {"0": 1}}}
    state = end_two_player(provinces=provinces)
    assert state["final"]["virtual"]["provinces"] == 8
    assert state["final"]["0"]["provinces"] == 4


def test_virtual_win_is_reported_with_no_winning_seat():
    provinces = {"antwerpen": {"citizens": {"virtual": 1}}}
    result = ENGINE.result(end_two_player(provinces=provinces, virtual={"vp": 1}))
    assert result["virtual_wins"] is True and result["winners"] == []
    assert result["virtual_score"] == 1 + 18 + 1
    assert set(result["scores"]) == {"0", "1"}


def test_virtual_steps_still_happen_when_the_last_factory_is_deactivated():
    inactive = [{"kind": kind, "active": False} for kind in ("metal",) * 5 + ("textile",) * 4]
    state = blue_scores_three(provinces={"hainaut": {"factories": inactive}})
    assert ENGINE.result(state) is None
    assert state["pending"] == {"seat": BLACK, "kind": "virtual", "steps": 2}
    state = play(state, BLACK, "virtual place liege, place liege")
    assert citizens(state, "liege") == {"0": 4, "virtual": 2}
    result = ENGINE.result(state)
    assert result is not None and "factory" in result["reason"]
