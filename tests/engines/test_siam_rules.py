"""Siam rules, one test per rule and per rulebook example (rules file 004, contract 4.1).

Boards are written with ``el("E")`` (an elephant facing east), ``rh("W")`` and
``ROCK``. Positions come from ``from_position`` at ply 4 (cross rule over)
unless a test says otherwise; seat 0 (elephants) moves unless ``to_move``.
"""

from __future__ import annotations

import json

import pytest

from engines.base import IllegalMove, InvalidPosition, NotationError
from engines.siam import SiamEngine
from engines.siam.board import position_key

SIAM = SiamEngine()
ROCK = {"kind": "rock"}
#: Rocks parked on the top rank, away from the rank-2 and file-a action below.
PARKED_ROCKS = {"b5": ROCK, "c5": ROCK, "d5": ROCK}
OUTER = {f + r for f in "abcde" for r in "12345" if f in "ae" or r in "15"}


def el(facing: str) -> dict[str, str]:
    """An elephant facing ``facing``."""
    return {"kind": "elephant", "facing": facing}


def rh(facing: str) -> dict[str, str]:
    """A rhino facing ``facing``."""
    return {"kind": "rhino", "facing": facing}


def position(board: dict, to_move: int = 0, **options: bool) -> dict:
    """A running state with ``board`` (rocks included), ``to_move`` and ``options``."""
    merged = SIAM.options(options)
    return SIAM.from_position(2, merged, 7, {"board": board, "to_move": to_move})


def new_game(**options: bool) -> dict:
    """The starting state with ``options`` over the defaults."""
    return SIAM.setup(2, SIAM.options(options), 7)


def play(state: dict, *notations: str) -> dict:
    """``state`` after the moves written in ``notations``, seats alternating."""
    for text in notations:
        state = SIAM.apply(state, SIAM.to_move(state)[0], SIAM.parse(text))
    return state


def refused(state: dict, notation: str, rule: str) -> IllegalMove:
    """Assert the move is refused for ``rule``, is not listed as legal and changes nothing."""
    seat = SIAM.to_move(state)[0]
    move = SIAM.parse(notation)
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalMove) as info:
        SIAM.apply(state, seat, move)
    assert info.value.rule == rule
    assert info.value.message
    assert move not in SIAM.legal_moves(state, seat)
    assert json.dumps(state, sort_keys=True) == before
    return info.value


def accepted(state: dict, notation: str) -> dict:
    """Assert the move is legal (listed and applied) and return the new state."""
    seat = SIAM.to_move(state)[0]
    move = SIAM.parse(notation)
    assert move in SIAM.legal_moves(state, seat)
    return SIAM.apply(state, seat, move)


# -- setup ----------------------------------------------------------------
def test_setup_rocks_in_the_centre_and_all_animals_beside_the_board() -> None:
    state = new_game()
    assert state["board"] == {"b3": ROCK, "c3": ROCK, "d3": ROCK}
    assert state["reserve"] == {"elephant": 5, "rhino": 5}
    assert state["ply"] == 0
    assert SIAM.result(state) is None


def test_engine_identity_and_default_options() -> None:
    assert (SIAM.id, SIAM.name, SIAM.min_players, SIAM.max_players) == ("siam", "Siam", 2, 2)
    assert SIAM.default_options == {"cross_rule": True, "exit_once": False}


def test_elephants_start_then_players_alternate() -> None:
    state = new_game()
    assert SIAM.to_move(state) == [0]
    assert SIAM.legal_moves(state, 1) == []
    state = play(state, "enter a1 N")
    assert SIAM.to_move(state) == [1]
    assert SIAM.legal_moves(state, 0) == []
    state = play(state, "enter e5 S")
    assert SIAM.to_move(state) == [0]


def test_start_has_56_legal_moves_with_cross_rule() -> None:
    moves = SIAM.legal_moves(new_game(), 0)
    assert len(moves) == 56 == (16 - 2) * 4
    assert {m["to"] for m in moves} == OUTER - {"c1", "c5"}
    assert all(m["action"] == "enter" for m in moves)


def test_start_has_64_legal_moves_without_cross_rule() -> None:
    moves = SIAM.legal_moves(new_game(cross_rule=False), 0)
    assert len(moves) == 64 == 16 * 4
    assert {m["to"] for m in moves} == OUTER


# -- entering ---------------------------------------------------------------
@pytest.mark.parametrize("facing", ["N", "E", "S", "W"])
def test_enter_free_outer_square_with_any_facing(facing: str) -> None:
    state = accepted(new_game(), f"enter b1 {facing}")
    assert state["board"]["b1"] == el(facing)
    assert state["reserve"] == {"elephant": 4, "rhino": 5}


def test_enter_only_onto_outer_squares() -> None:
    refused(new_game(), "enter b2 N", "outer_square")
    refused(new_game(), "enter c4 N", "outer_square")


def test_enter_occupied_square_only_as_push_facing_inward() -> None:
    state = position({**PARKED_ROCKS, "a3": rh("N")})
    for facing in "NSW":
        refused(state, f"enter a3 {facing}", "enter_push_facing")
    state = accepted(state, "enter a3 E")
    assert state["board"]["a3"] == el("E")
    assert state["board"]["b3"] == rh("N")


def test_enter_corner_push_allows_either_inward_direction() -> None:
    state = position({**PARKED_ROCKS, "a1": rh("N")})
    entries = {m["facing"] for m in SIAM.legal_moves(state, 0) if m.get("to") == "a1"}
    assert entries == {"N", "E"}
    north = accepted(state, "enter a1 N")
    assert north["board"]["a1"] == el("N") and north["board"]["a2"] == rh("N")
    east = accepted(state, "enter a1 E")
    assert east["board"]["a1"] == el("E") and east["board"]["b1"] == rh("N")
    refused(state, "enter a1 S", "enter_push_facing")


def test_sixth_entry_refused() -> None:
    five = {sq: el("N") for sq in ("a2", "a4", "e2", "e4", "b1")}
    state = position({**PARKED_ROCKS, **five})
    assert state["reserve"]["elephant"] == 0
    refused(state, "enter a1 N", "reserve_empty")
    assert not [m for m in SIAM.legal_moves(state, 0) if m["action"] == "enter"]


def test_fifth_entry_allowed_from_a_game() -> None:
    state = new_game()
    for notation in (
        "enter a1 N",
        "enter e1 N",
        "enter a5 E",
        "enter e5 W",
        "enter b1 N",
        "enter d1 N",
        "enter b5 S",
        "enter d5 S",
    ):
        state = play(state, notation)
    state = accepted(state, "enter a2 E")
    assert state["reserve"] == {"elephant": 0, "rhino": 1}
    state = play(state, "rotate e1 W")
    refused(state, "enter a4 E", "reserve_empty")


# -- moving -----------------------------------------------------------------
def test_move_one_square_orthogonally_with_any_facing() -> None:
    state = position({"b5": ROCK, "c5": ROCK, "d5": ROCK, "c2": el("N")})
    moves = [m for m in SIAM.legal_moves(state, 0) if m["action"] == "move"]
    assert {(m["to"], m["facing"]) for m in moves} == {
        (to, f) for to in ("b2", "d2", "c1", "c3") for f in "NESW"
    }
    after = accepted(state, "move c2 d2 W")
    assert after["board"]["d2"] == el("W") and "c2" not in after["board"]


def test_move_orientation_independent_of_direction() -> None:
    state = position({**PARKED_ROCKS, "c2": el("N")})
    assert accepted(state, "move c2 c1 N")["board"]["c1"] == el("N")


@pytest.mark.parametrize(
    "notation", ["move c2 d3 N", "move c2 c4 N", "move c2 a2 N", "move c2 c2 E"]
)
def test_move_diagonal_or_longer_refused(notation: str) -> None:
    refused(position({**PARKED_ROCKS, "c2": el("N")}), notation, "orthogonal_step")


def test_move_only_own_animals() -> None:
    state = position({**PARKED_ROCKS, "c2": rh("N")})
    refused(state, "move c2 c1 N", "own_animal")
    refused(state, "move b2 b1 N", "own_animal")
    refused(state, "move c5 c4 S", "own_animal")


# -- rotating -----------------------------------------------------------------
@pytest.mark.parametrize("facing", ["E", "S", "W"])
def test_rotate_quarter_or_half_turn(facing: str) -> None:
    state = accepted(position({**PARKED_ROCKS, "c2": el("N")}), f"rotate c2 {facing}")
    assert state["board"]["c2"] == el(facing)
    assert SIAM.to_move(state) == [1]


def test_rotate_must_change_facing() -> None:
    refused(position({**PARKED_ROCKS, "c2": el("N")}), "rotate c2 N", "same_facing")


def test_rotate_only_own_animals() -> None:
    refused(position({**PARKED_ROCKS, "c2": rh("N")}), "rotate c2 S", "own_animal")


# -- exiting ----------------------------------------------------------------
def test_exit_from_outer_square_returns_animal_to_reserve_for_later() -> None:
    state = position({**PARKED_ROCKS, "a2": el("N")})
    state = accepted(state, "exit a2")
    assert "a2" not in state["board"]
    assert state["reserve"]["elephant"] == 5
    state = play(state, "enter e1 N")
    assert accepted(state, "enter a2 E")["board"]["a2"] == el("E")


def test_exit_only_from_outer_square() -> None:
    refused(position({**PARKED_ROCKS, "b2": el("N")}), "exit b2", "exit_outer")


def test_exit_only_own_animals() -> None:
    refused(position({**PARKED_ROCKS, "a2": rh("N")}), "exit a2", "own_animal")
    refused(position({**PARKED_ROCKS}), "exit b5", "own_animal")


def test_exit_unlimited_without_variant_b() -> None:
    state = position({**PARKED_ROCKS, "a2": el("N"), "e2": rh("N")})
    for _ in range(3):
        state = play(state, "exit a2", "exit e2", "enter a2 N", "enter e2 N")
    assert accepted(state, "exit a2")["exits"] == {"elephant": 4, "rhino": 3}


# -- pushing: rulebook section A to I ------------------------------------------
def test_push_a_only_forward() -> None:
    state = position({"b5": ROCK, "d5": ROCK, "b2": el("N"), "c2": ROCK})
    refused(state, "move b2 c2 N", "push_forward")
    refused(state, "move b2 c2 E", "push_forward")


def test_push_a_forward_moves_the_piece_ahead() -> None:
    state = accepted(position({**PARKED_ROCKS, "b2": el("E"), "c2": rh("N")}), "move b2 c2 E")
    assert state["board"]["c2"] == el("E") and state["board"]["d2"] == rh("N")
    assert "b2" not in state["board"]


def test_push_b_one_animal_pushes_one_rock() -> None:
    state = position({"a2": el("E"), "b2": ROCK, "b5": ROCK, "d5": ROCK})
    state = accepted(state, "move a2 b2 E")
    assert state["board"]["b2"] == el("E") and state["board"]["c2"] == ROCK


def test_push_b_one_animal_cannot_push_two_rocks() -> None:
    state = position({"a2": el("E"), "b2": ROCK, "c2": ROCK, "d5": ROCK})
    refused(state, "move a2 b2 E", "push_rocks")


def test_push_b_two_animals_push_two_rocks() -> None:
    state = position({"a2": el("E"), "b2": rh("E"), "c2": ROCK, "d2": ROCK, "d5": ROCK})
    state = accepted(state, "move a2 b2 E")
    assert state["board"]["b2"] == el("E") and state["board"]["c2"] == rh("E")
    assert state["board"]["d2"] == ROCK == state["board"]["e2"]
    assert SIAM.result(state) is None


def test_push_b_two_animals_cannot_push_three_rocks() -> None:
    state = position({"a2": el("E"), "b2": el("E"), "c2": ROCK, "d2": ROCK, "e2": ROCK})
    refused(state, "move a2 b2 E", "push_rocks")


def test_push_b_three_animals_push_three_rocks() -> None:
    # Only possible while entering: the pusher comes from outside the board.
    state = position({"a2": el("E"), "b2": rh("E"), "c2": ROCK, "d2": ROCK, "e2": ROCK})
    state = accepted(state, "enter a2 E")
    assert SIAM.result(state)["rock"] == "e2"


def test_push_c_animal_cannot_push_animal_facing_it_whoever_owns_it() -> None:
    refused(position({**PARKED_ROCKS, "a2": el("E"), "b2": rh("W")}), "move a2 b2 E", "push_facing")
    refused(position({**PARKED_ROCKS, "a2": el("E"), "b2": el("W")}), "move a2 b2 E", "push_facing")


def test_push_c_equal_strength_needs_a_majority() -> None:
    state = position({**PARKED_ROCKS, "a2": el("E"), "b2": el("E"), "c2": rh("W"), "d2": rh("W")})
    refused(state, "move a2 b2 E", "push_facing")


def test_push_c_own_animal_can_prevent_the_push() -> None:
    state = position({**PARKED_ROCKS, "a2": el("E"), "b2": rh("N"), "c2": el("W")})
    refused(state, "move a2 b2 E", "push_facing")


def test_push_c_opponent_animal_can_help_the_push() -> None:
    state = position({**PARKED_ROCKS, "a2": el("E"), "b2": rh("E"), "c2": rh("W")})
    state = accepted(state, "move a2 b2 E")
    assert [state["board"][sq] for sq in ("b2", "c2", "d2")] == [el("E"), rh("E"), rh("W")]


def test_push_d_lone_animal_pushes_any_number_of_sideways_animals() -> None:
    state = position({**PARKED_ROCKS, "a2": el("E"), "b2": rh("N"), "c2": el("S"), "d2": rh("S")})
    state = accepted(state, "move a2 b2 E")
    assert [state["board"][sq] for sq in ("b2", "c2", "d2", "e2")] == [
        el("E"),
        rh("N"),
        el("S"),
        rh("S"),
    ]


def test_push_e_push_while_entering() -> None:
    state = position({"a2": ROCK, "b2": rh("S"), "c5": ROCK, "d5": ROCK})
    state = accepted(state, "enter a2 E")
    assert [state["board"][sq] for sq in ("a2", "b2", "c2")] == [el("E"), ROCK, rh("S")]
    assert state["reserve"]["elephant"] == 4


def test_push_e_entering_pusher_follows_the_push_rules() -> None:
    refused(position({**PARKED_ROCKS, "a2": rh("W")}), "enter a2 E", "push_facing")
    refused(position({"a2": ROCK, "b2": ROCK, "c5": ROCK}), "enter a2 E", "push_rocks")


def test_push_example_f_two_against_one_succeeds() -> None:
    # The left elephant and the rhino push together; one elephant faces them.
    state = position(
        {"a2": el("E"), "b2": rh("E"), "c2": ROCK, "d2": el("W"), "c5": ROCK, "d5": ROCK}
    )
    state = accepted(state, "move a2 b2 E")
    assert [state["board"][sq] for sq in ("b2", "c2", "d2", "e2")] == [
        el("E"),
        rh("E"),
        ROCK,
        el("W"),
    ]


def test_push_example_f_two_against_one_fails_with_two_rocks() -> None:
    # Same line with a second rock: one net animal cannot push two rocks.
    state = position(
        {"a2": el("E"), "b2": rh("E"), "c2": ROCK, "d2": ROCK, "e2": el("W"), "d5": ROCK}
    )
    refused(state, "move a2 b2 E", "push_rocks")


def test_push_line_is_only_the_contiguous_run() -> None:
    state = position({"a2": el("E"), "b2": ROCK, "d2": rh("W"), "c5": ROCK, "d5": ROCK})
    state = accepted(state, "move a2 b2 E")
    assert state["board"]["c2"] == ROCK and state["board"]["d2"] == rh("W")


def test_push_g_rock_off_the_board_ends_the_game() -> None:
    state = position({"d2": el("E"), "e2": ROCK, "c5": ROCK, "d5": ROCK})
    state = accepted(state, "move d2 e2 E")
    assert "e2" in state["board"] and len([p for p in state["board"].values() if p == ROCK]) == 2
    result = SIAM.result(state)
    assert result["winners"] == [0]
    assert result["scores"] == {"0": 1, "1": 0}
    assert "e2" in result["reason"] and "elephant" in result["reason"]
    assert SIAM.to_move(state) == []
    assert SIAM.legal_moves(state, 0) == SIAM.legal_moves(state, 1) == []
    with pytest.raises(IllegalMove) as info:
        SIAM.apply(state, 1, SIAM.parse("enter a1 N"))
    assert info.value.rule == "game_over"


def test_push_g_winner_is_the_closest_animal_facing_the_push() -> None:
    # Rhino pushes; walking back from the rock: sideways elephant, facing-against
    # rhino, then an elephant facing east: the elephants win.
    state = position(
        {
            "a2": rh("E"),
            "b2": el("E"),
            "c2": rh("W"),
            "d2": el("N"),
            "e2": ROCK,
            "c5": ROCK,
            "d5": ROCK,
        },
        to_move=1,
    )
    state = accepted(state, "move a2 b2 E")
    result = SIAM.result(state)
    assert result["winners"] == [0]
    assert result["scores"] == {"0": 1, "1": 0}
    assert result["winning_animal"] == "c2"
    assert state["board"]["c2"] == el("E")


def test_push_g_opponent_of_the_mover_can_win() -> None:
    state = position(
        {"b2": el("E"), "c2": rh("E"), "d2": el("S"), "e2": ROCK, "c5": ROCK, "d5": ROCK}
    )
    state = accepted(state, "move b2 c2 E")
    result = SIAM.result(state)
    assert result["winners"] == [1]
    assert result["scores"] == {"0": 0, "1": 1}
    assert result["pushed_by"] == 0
    assert "rhino" in result["reason"]


def test_push_g_pusher_wins_when_no_closer_animal_faces_the_push() -> None:
    state = position(
        {"a4": rh("S"), "a3": el("E"), "a2": rh("W"), "a1": ROCK, "c5": ROCK, "d5": ROCK}, to_move=1
    )
    state = accepted(state, "move a4 a3 S")
    result = SIAM.result(state)
    assert result["winners"] == [1] and result["rock"] == "a1" and result["direction"] == "S"
    assert result["winning_animal"] == "a3" and result["reason"].count("although") == 0


def test_push_g_rock_pushed_out_while_entering() -> None:
    # The entering rhino and the elephant push two rocks; the elephant is nearer.
    state = position(
        {"e1": rh("N"), "e2": el("N"), "e3": ROCK, "e4": el("W"), "e5": ROCK, "c5": ROCK}, to_move=1
    )
    state = accepted(state, "enter e1 N")
    result = SIAM.result(state)
    assert result["rock"] == "e5" and result["winners"] == [0]
    assert result["winning_animal"] == "e3" and "although the rhinos pushed" in result["reason"]
    assert state["reserve"]["rhino"] == 3


def test_push_h_animal_pushed_off_returns_to_its_owner() -> None:
    state = position(
        {**PARKED_ROCKS, "a2": el("E"), "b2": rh("N"), "c2": el("S"), "d2": el("N"), "e2": rh("S")}
    )
    state = accepted(state, "move a2 b2 E")
    assert state["reserve"] == {"elephant": 2, "rhino": 4}
    assert state["board"]["e2"] == el("N")
    state = play(state, "enter a1 N")
    assert accepted(state, "enter a2 E")["reserve"]["elephant"] == 1


def test_push_h_own_animal_pushed_off_returns_to_reserve() -> None:
    state = position({**PARKED_ROCKS, "d2": el("E"), "e2": el("N")})
    state = accepted(state, "move d2 e2 E")
    assert state["reserve"]["elephant"] == 4 and state["board"] == {**PARKED_ROCKS, "e2": el("E")}


def test_push_i_no_orientation_change_while_pushing() -> None:
    state = position({"b5": ROCK, "d5": ROCK, "b2": el("E"), "c2": ROCK})
    for facing in "NSW":
        refused(state, f"move b2 c2 {facing}", "push_orientation")


# -- cross rule ---------------------------------------------------------------
def test_cross_rule_no_entry_on_c1_or_c5_during_first_two_turns() -> None:
    state = new_game()
    refused(state, "enter c1 N", "cross_rule")
    state = play(state, "enter a1 N")
    refused(state, "enter c5 S", "cross_rule")
    state = play(state, "enter e5 S")
    refused(state, "enter c1 N", "cross_rule")
    state = play(state, "enter a5 E")
    refused(state, "enter c5 S", "cross_rule")
    state = play(state, "enter e1 N")
    assert accepted(state, "enter c1 N")["board"]["c1"] == el("N")


def test_cross_rule_no_move_onto_c1_during_first_two_turns() -> None:
    state = play(new_game(), "enter b1 N", "enter e5 S")
    refused(state, "move b1 c1 N", "cross_rule")
    state = play(state, "rotate b1 E", "rotate e5 W")
    assert accepted(state, "move b1 c1 E")["board"]["c1"] == el("E")


def test_cross_rule_pushed_piece_may_land_on_c1() -> None:
    state = play(new_game(), "enter a1 N", "enter b1 N")
    state = accepted(state, "enter a1 E")
    assert state["board"]["c1"] == rh("N") and state["ply"] == 3


def test_cross_rule_option_off_allows_c1_and_c5_at_once() -> None:
    state = accepted(new_game(cross_rule=False), "enter c1 N")
    assert accepted(state, "enter c5 S")["board"]["c5"] == rh("S")


# -- variant B --------------------------------------------------------------------
def test_variant_b_each_player_exits_only_once() -> None:
    state = position({**PARKED_ROCKS, "a2": el("N"), "a4": el("N"), "e2": rh("N")}, exit_once=True)
    state = accepted(state, "exit a2")
    state = accepted(state, "exit e2")
    refused(state, "exit a4", "exit_once")
    assert state["exits"] == {"elephant": 1, "rhino": 1}


def test_variant_b_exited_animal_may_return() -> None:
    state = position({**PARKED_ROCKS, "a2": el("N")}, exit_once=True)
    state = play(state, "exit a2", "enter e2 N")
    assert accepted(state, "enter a2 N")["reserve"]["elephant"] == 4


def test_variant_b_pushed_off_animals_do_not_count() -> None:
    state = position(
        {**PARKED_ROCKS, "d2": rh("E"), "e2": el("N"), "a3": el("N")}, to_move=1, exit_once=True
    )
    state = accepted(state, "move d2 e2 E")
    assert state["reserve"]["elephant"] == 4 and state["exits"]["elephant"] == 0
    assert accepted(state, "exit a3")["exits"]["elephant"] == 1


# -- draws (the rulebook is silent: see the engine's Decisions) ----------------------------
LOOP = ("rotate a1 E", "rotate e1 W", "rotate a1 N", "rotate e1 N")


def loop_position() -> dict:
    """An elephant on a1 and a rhino on e1, both facing north, the elephants to move."""
    return position({**PARKED_ROCKS, "a1": el("N"), "e1": rh("N")})


def test_third_repetition_is_a_draw() -> None:
    state = play(loop_position(), *LOOP, *LOOP[:3])
    assert SIAM.result(state) is None
    state = play(state, LOOP[3])
    assert SIAM.result(state) == {
        "winners": [],
        "scores": {"0": 0, "1": 0},
        "reason": "A draw: the same position came up for the third time, with the same player"
        " to move.",
        "draw": "repetition",
    }
    assert SIAM.to_move(state) == [] and SIAM.legal_moves(state, 0) == []
    with pytest.raises(IllegalMove, match="The game is over: it is drawn.") as info:
        SIAM.apply(state, 0, SIAM.parse("rotate a1 E"))
    assert info.value.rule == "game_over"


def test_the_same_board_with_the_other_player_to_move_is_another_position() -> None:
    start = loop_position()
    state = play(start, "rotate a1 E", "rotate e1 E", "rotate a1 S", "rotate e1 N", "rotate a1 N")
    assert state["board"] == start["board"] and SIAM.to_move(state) == [1]
    board = start["board"]
    assert state["positions"][position_key(board, 0)] == 1
    assert state["positions"][position_key(board, 1)] == 1


def test_an_entry_an_exit_or_a_push_starts_the_count_again() -> None:
    start = loop_position()
    state = play(start, *LOOP, "exit a1", "rotate e1 W", "enter a1 N", "rotate e1 N")
    assert state["board"] == start["board"] and SIAM.result(state) is None
    assert len(state["positions"]) == 2
    assert state["positions"][position_key(start["board"], 0)] == 1
    assert SIAM.result(play(state, *LOOP)) is None
    pushing = position({**PARKED_ROCKS, "a1": el("N"), "a2": rh("E"), "e1": rh("N")})
    pushed = play(pushing, *LOOP, "move a1 a2 N")
    assert pushed["board"]["a3"] == rh("E")
    assert pushed["positions"] == {position_key(pushed["board"], 1): 1}


def test_ply_limit_ends_in_a_draw() -> None:
    state = SIAM.from_position(
        2, SIAM.options({}), 7, {"board": {**PARKED_ROCKS, "a1": el("N")}, "ply": 498}
    )
    state = play(state, "rotate a1 E")
    assert SIAM.result(state) is None and SIAM.to_move(state) == [1]
    state = play(state, "enter e1 N")
    assert state["ply"] == 500
    assert SIAM.result(state)["draw"] == "ply_limit" and SIAM.result(state)["winners"] == []
    assert SIAM.to_move(state) == []


def test_a_rock_pushed_off_on_the_last_ply_still_wins() -> None:
    board = {"a1": ROCK, "c5": ROCK, "d5": ROCK, "a2": rh("S"), "a4": el("S")}
    state = SIAM.from_position(2, SIAM.options({}), 7, {"board": board, "ply": 499})
    state = play(state, "move a2 a1 S")
    assert state["ply"] == 500
    assert SIAM.result(state)["winners"] == [1] and "draw" not in SIAM.result(state)


# -- turns, malformed moves, immutability ----------------------------------------------
@pytest.mark.parametrize("seat", [1, 2, -1, True, "0", None])
def test_only_the_seat_to_move_may_play(seat: object) -> None:
    with pytest.raises(IllegalMove) as info:
        SIAM.apply(new_game(), seat, SIAM.parse("enter a1 N"))
    assert info.value.rule == "turn"
    assert SIAM.legal_moves(new_game(), seat) == []


@pytest.mark.parametrize(
    "move",
    [
        None,
        [],
        "enter a1 N",
        {},
        {"action": "jump"},
        {"action": ["enter"]},
        {"action": "enter", "to": "a1"},
        {"action": "enter", "to": "a1", "facing": "N", "extra": 1},
        {"action": "enter", "to": "a6", "facing": "N"},
        {"action": "enter", "to": "A1", "facing": "N"},
        {"action": "enter", "to": "a1", "facing": "n"},
        {"action": "enter", "to": 11, "facing": "N"},
        {"action": "enter", "to": ["a1"], "facing": {"x": 1}},
        {"action": "move", "from_": "a1", "to": "a2", "facing": "N"},
        {"action": "rotate", "at": None, "facing": "N"},
        {"action": "exit", "from": "a1", "facing": "N"},
    ],
)
def test_malformed_move_refused_as_illegal(move: object) -> None:
    state = new_game()
    with pytest.raises(IllegalMove) as info:
        SIAM.apply(state, 0, move)
    assert info.value.rule == "malformed"
    assert state == new_game()


def test_apply_never_mutates_its_input() -> None:
    state = position(
        {"a2": el("E"), "b2": rh("N"), "c2": ROCK, "e2": rh("N"), "c5": ROCK, "d5": ROCK}
    )
    snapshot = json.dumps(state, sort_keys=True)
    for move in SIAM.legal_moves(state, 0):
        SIAM.apply(state, 0, move)
    assert json.dumps(state, sort_keys=True) == snapshot


def test_same_moves_give_identical_states() -> None:
    moves = ("enter a1 N", "enter e5 S", "move a1 a2 E", "rotate e5 W", "enter a1 E")
    assert play(new_game(), *moves) == play(SIAM.setup(2, SIAM.options({}), 99), *moves)


# -- views and state ------------------------------------------------------------------
def test_view_is_public_and_the_same_for_every_seat() -> None:
    state = play(new_game(), "enter a1 N", "enter e5 S")
    view = SIAM.view(state, None)
    assert view == SIAM.view(state, 0) == SIAM.view(state, 1)
    assert view["board"] == state["board"] and view["reserve"] == {"elephant": 4, "rhino": 4}
    assert view["ply"] == 2
    assert not {"rng", "seed"} & set(view)
    view["board"].clear()
    assert state["board"]


def test_state_survives_a_json_round_trip() -> None:
    state = play(new_game(), "enter a1 N", "enter e5 S", "move a1 a2 E")
    assert json.loads(json.dumps(state)) == state


def test_result_is_none_while_running() -> None:
    assert SIAM.result(play(new_game(), "enter a1 N")) is None


# -- notation -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("enter a1 N", {"action": "enter", "to": "a1", "facing": "N"}),
        ("move b2 b3 E", {"action": "move", "from": "b2", "to": "b3", "facing": "E"}),
        ("rotate b2 S", {"action": "rotate", "at": "b2", "facing": "S"}),
        ("exit a1", {"action": "exit", "from": "a1"}),
    ],
)
def test_notation_examples_from_the_contract(text: str, move: dict) -> None:
    assert SIAM.parse(text) == move
    assert SIAM.format(move) == text


def test_notation_is_case_insensitive_and_ignores_extra_spaces() -> None:
    assert SIAM.parse("  MOVE   B2 b3\te ") == {
        "action": "move",
        "from": "b2",
        "to": "b3",
        "facing": "E",
    }


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "jump a1",
        "enter a1",
        "enter a1 N S",
        "enter z9 N",
        "enter a1 X",
        "move b2 N",
        "exit",
        "rotate b2 north",
        None,
        42,
    ],
)
def test_bad_notation_raises_notation_error(text: object) -> None:
    with pytest.raises(NotationError) as info:
        SIAM.parse(text)
    assert info.value.message


def test_format_refuses_a_malformed_move() -> None:
    with pytest.raises(NotationError):
        SIAM.format({"action": "enter", "to": "a1"})


# -- positions ------------------------------------------------------------------------
def test_from_position_fills_reserve_and_ply() -> None:
    state = SIAM.from_position(
        2,
        SIAM.options({}),
        1,
        {"board": {**PARKED_ROCKS, "a2": el("N"), "b2": rh("S"), "c2": rh("E")}, "to_move": 1},
    )
    assert state["reserve"] == {"elephant": 4, "rhino": 3}
    assert state["ply"] == 5 and SIAM.to_move(state) == [1]


def test_from_position_without_ply_leaves_cross_rule_behind() -> None:
    state = SIAM.from_position(
        2, SIAM.options({}), 1, {"board": dict(PARKED_ROCKS), "to_move": [0]}
    )
    assert state["ply"] == 4
    assert accepted(state, "enter c1 N")["board"]["c1"] == el("N")


def test_from_position_with_ply_keeps_cross_rule() -> None:
    state = SIAM.from_position(
        2, SIAM.options({}), 1, {"board": dict(PARKED_ROCKS), "ply": 2, "to_move": 0}
    )
    refused(state, "enter c1 N", "cross_rule")


def test_from_position_accepts_a_view_back() -> None:
    state = play(new_game(exit_once=True), "enter a1 N", "enter e5 S", "exit a1")
    position_ = {**SIAM.view(state, None), "to_move": SIAM.to_move(state)}
    assert SIAM.from_position(2, state["options"], 3, position_) == state


@pytest.mark.parametrize(
    ("position_", "options"),
    [
        (None, {}),
        ([], {}),
        ({}, {}),
        ({"board": []}, {}),
        ({"board": PARKED_ROCKS, "colour": "red"}, {}),
        ({"board": {**PARKED_ROCKS, "f1": el("N")}}, {}),
        ({"board": {**PARKED_ROCKS, 11: el("N")}}, {}),
        ({"board": {**PARKED_ROCKS, "a1": {"kind": "tiger", "facing": "N"}}}, {}),
        ({"board": {**PARKED_ROCKS, "a1": {"kind": ["rock"]}}}, {}),
        ({"board": {**PARKED_ROCKS, "a1": "elephant"}}, {}),
        ({"board": {**PARKED_ROCKS, "a1": {"kind": "elephant"}}}, {}),
        ({"board": {**PARKED_ROCKS, "a1": el("X")}}, {}),
        ({"board": {**PARKED_ROCKS, "a1": {**el("N"), "owner": 0}}}, {}),
        ({"board": {"b5": ROCK, "c5": ROCK, "d5": {"kind": "rock", "facing": "N"}}}, {}),
        ({"board": {"b5": ROCK, "c5": ROCK}}, {}),
        ({"board": {**PARKED_ROCKS, "a1": ROCK}}, {}),
        (
            {
                "board": {
                    **PARKED_ROCKS,
                    **{sq: el("N") for sq in ("a1", "a2", "a3", "a4", "a5", "b1")},
                }
            },
            {},
        ),
        ({"board": PARKED_ROCKS, "reserve": {"elephant": 5, "rhino": 4}}, {}),
        ({"board": PARKED_ROCKS, "reserve": {"elephant": 5}}, {}),
        ({"board": PARKED_ROCKS, "reserve": {"elephant": 5.0, "rhino": 5}}, {}),
        ({"board": PARKED_ROCKS, "reserve": [5, 5]}, {}),
        ({"board": {**PARKED_ROCKS, "a1": el("N")}, "reserve": {"elephant": 5, "rhino": 5}}, {}),
        ({"board": PARKED_ROCKS, "ply": -1}, {}),
        ({"board": PARKED_ROCKS, "ply": True}, {}),
        ({"board": PARKED_ROCKS, "ply": "4"}, {}),
        ({"board": PARKED_ROCKS, "ply": 500}, {}),
        ({"board": PARKED_ROCKS, "ply": 4, "to_move": 1}, {}),
        ({"board": PARKED_ROCKS, "to_move": 2}, {}),
        ({"board": PARKED_ROCKS, "to_move": [0, 1]}, {}),
        ({"board": PARKED_ROCKS, "to_move": []}, {}),
        ({"board": PARKED_ROCKS, "to_move": "0"}, {}),
        ({"board": PARKED_ROCKS, "to_move": True}, {}),
        ({"board": PARKED_ROCKS, "exits": {"elephant": 2, "rhino": 0}}, {"exit_once": True}),
        ({"board": PARKED_ROCKS, "exits": {"elephant": -1, "rhino": 0}}, {}),
        ({"board": PARKED_ROCKS, "exits": "none"}, {}),
        ({"board": PARKED_ROCKS, "options": {"cross_rule": False, "exit_once": False}}, {}),
    ],
)
def test_from_position_refuses_inconsistent_positions(position_: object, options: dict) -> None:
    with pytest.raises(InvalidPosition) as info:
        SIAM.from_position(2, SIAM.options(options), 1, position_)
    assert info.value.message
