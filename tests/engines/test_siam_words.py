"""Siam's words: the sentences of the rulebook's examples, the result, the prompt, the guided
questions, the board data and the state and board schemas, checked over random games too.

Positions are those of ``test_siam_rules.py`` (rulebook file 004, contract 4.1).
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.phrases import Words, english
from engines.siam import SiamEngine
from schemas.siam import BoardSchema, StateSchema
from tests.engines.test_siam_rules import (
    LOOP,
    PARKED_ROCKS,
    ROCK,
    el,
    new_game,
    play,
    position,
    rh,
)

SIAM = SiamEngine()
NAMES = ["Ann", "Bob"]


def en(words: Words) -> str:
    """The engine's words in English, the seats named by :data:`NAMES`."""
    return english(words, NAMES)


#: What a player must never read: identifiers, seats, JSON, notation letters for facings.
IDENTIFIER = re.compile(r"[a-z]+_[a-z]+|\bseat\b|[{}\[\]]|\bNone\b|\b[NESW]\b")
#: A label is lower-case words, square names, commas and the facing arrows.
LABEL = re.compile(r"^[a-z][a-z0-9 ,↑→↓←]*$")
OPTIONS = st.fixed_dictionaries({"cross_rule": st.booleans(), "exit_once": st.booleans()})


def said(state: dict, notation: str) -> tuple[str, dict]:
    """The sentence for the seat to move playing ``notation``, and the state after it."""
    seat = SIAM.to_move(state)[0]
    move = SIAM.parse(notation)
    after = SIAM.apply(state, seat, move)
    return en(SIAM.describe(state, after, seat, move, NAMES)), after


def random_positions(options: dict, seed: int, plies: int = 80) -> list[dict]:
    """The states of a random game (pushes preferred half the time), start included."""
    rng = random.Random(seed)
    state = SIAM.setup(2, SIAM.options(options), seed)
    states = [state]
    while SIAM.result(state) is None and len(states) < plies:
        seat = SIAM.to_move(state)[0]
        legal = SIAM.legal_moves(state, seat)
        pushes = [m for m in legal if m["action"] != "rotate" and m.get("to") in state["board"]]
        move = rng.choice(pushes if pushes and rng.random() < 0.5 else legal)
        state = SIAM.apply(state, seat, move)
        states.append(state)
    return states


def walk(questions: list, legal: list[dict], move: dict) -> list[dict]:
    """The moves left after answering ``questions`` as ``move`` does, asking only those on
    which the remaining moves differ (as the guided form and the board clicks do)."""
    remaining = legal
    for question in questions:
        if len({question.answer(m) for m in remaining}) > 1:
            remaining = [m for m in remaining if question.answer(m) == question.answer(move)]
    return remaining


# -- the rulebook's examples in words ------------------------------------------------
def test_sentence_enter_on_a_free_outer_square() -> None:
    sentence, _ = said(new_game(), "enter a1 N")
    assert sentence == "Ann enters an elephant on a1, facing north."


def test_sentence_move_to_a_free_square_turning_and_not_turning() -> None:
    state = position({**PARKED_ROCKS, "b2": rh("N")}, to_move=1)
    assert (
        said(state, "move b2 b3 E")[0]
        == "Bob moves the rhino from b2 to b3 and turns it to the east."
    )
    assert said(state, "move b2 b3 N")[0] == "Bob moves the rhino from b2 to b3."


def test_sentence_rotate_and_exit() -> None:
    state = position({**PARKED_ROCKS, "c2": rh("N"), "a1": rh("E")}, to_move=1)
    assert said(state, "rotate c2 S")[0] == "Bob turns the rhino on c2 to the south."
    assert said(state, "exit a1")[0] == "Bob takes the rhino on a1 off the board."


def test_sentence_push_a_moves_the_piece_ahead() -> None:
    state = position({**PARKED_ROCKS, "a2": el("E"), "b2": rh("N")})
    sentence, after = said(state, "move a2 b2 E")
    assert sentence == "Ann pushes from a2 to the east: Bob's rhino moves from b2 to c2."
    assert after["last_push"] == {"direction": "E", "squares": ["c2"], "off": None}


def test_sentence_push_d_names_every_pushed_piece() -> None:
    board = {"b5": ROCK, "c5": ROCK, "a2": el("E"), "b2": rh("N"), "c2": el("S"), "d2": ROCK}
    state = position(board)
    sentence, _ = said(state, "move a2 b2 E")
    assert sentence == (
        "Ann pushes from a2 to the east: Bob's rhino, Ann's elephant and a rock "
        "move one square to the east."
    )


def test_sentence_push_e_while_entering() -> None:
    state = position({"a2": ROCK, "b2": rh("S"), "c5": ROCK, "d5": ROCK})
    sentence, _ = said(state, "enter a2 E")
    assert sentence == (
        "Ann enters an elephant on a2 and pushes to the east: a rock and Bob's rhino "
        "move one square to the east."
    )


def test_sentence_push_h_animal_pushed_off() -> None:
    state = position(
        {**PARKED_ROCKS, "a2": el("E"), "b2": rh("N"), "c2": el("S"), "d2": el("N"), "e2": rh("S")}
    )
    sentence, after = said(state, "move a2 b2 E")
    assert sentence == "Ann pushes from a2 to the east: Bob's rhino on e2 leaves the board."
    assert after["last_push"]["off"] == {"kind": "rhino", "from": "e2"}


def test_sentence_and_result_push_g_rock_off_the_board() -> None:
    state = position({"d2": el("E"), "e2": ROCK, "c5": ROCK, "d5": ROCK})
    sentence, after = said(state, "move d2 e2 E")
    assert sentence == "Ann pushes from d2 to the east: the rock on e2 leaves the board."
    assert en(SIAM.describe_result(SIAM.result(after), NAMES)) == (
        "Ann wins: the rock on e2 was pushed off the board to the east, and the nearest "
        "animal behind it facing the push is Ann's elephant on e2."
    )


def test_result_push_g_opponent_of_the_mover_wins() -> None:
    state = position(
        {"b2": el("E"), "c2": rh("E"), "d2": el("S"), "e2": ROCK, "c5": ROCK, "d5": ROCK}
    )
    _, after = said(state, "move b2 c2 E")
    result = SIAM.result(after)
    assert en(SIAM.describe_result(result, NAMES)) == (
        "Bob wins: Ann pushed the rock on e2 off the board to the east, but the nearest "
        "animal behind it facing the push is Bob's rhino on d2."
    )
    assert result["reason"] == (
        "The rock on e2 was pushed off the board to the east; the nearest animal behind it "
        "facing the push is the rhino on d2, so the rhinos win although the elephants pushed."
    )


def test_sentence_and_result_third_repetition_is_a_draw() -> None:
    state = play(position({**PARKED_ROCKS, "a1": el("N"), "e1": rh("N")}), *LOOP, *LOOP[:3])
    sentence, after = said(state, LOOP[3])
    assert sentence == (
        "Bob turns the rhino on e1 to the north. The game is drawn: the same position came up"
        " for the third time, with the same player to move."
    )
    assert en(SIAM.describe_result(SIAM.result(after), NAMES)) == (
        "Ann and Bob draw: the same position came up for the third time, with the same player"
        " to move."
    )


def test_result_ply_limit_is_a_draw() -> None:
    state = SIAM.from_position(2, SIAM.options({}), 7, {"board": PARKED_ROCKS, "ply": 499})
    _, after = said(state, "enter a1 N")
    assert en(SIAM.describe_result(SIAM.result(after), NAMES)) == (
        "Ann and Bob draw: 500 moves were played and no rock left the board."
    )


def test_result_not_from_a_push_uses_the_shared_words() -> None:
    result = {"winners": [1], "scores": {"0": 0, "1": 1}, "reason": "Ann ran out of time"}
    assert en(SIAM.describe_result(result, NAMES)) == "Bob wins: Ann ran out of time."


# -- prompt and questions ------------------------------------------------------------
def test_prompt_says_what_the_seat_may_do() -> None:
    state = new_game()
    assert en(SIAM.prompt(state, 0)) == "enter an elephant"
    assert en(SIAM.prompt(state, 1)) == "wait for the elephants to move"
    state = position({**PARKED_ROCKS, "a1": rh("N")}, to_move=1)
    assert en(SIAM.prompt(state, 1)) == "enter, move, turn or take off a rhino"


def test_questions_ask_which_animal_then_where_then_the_facing() -> None:
    state = position({**PARKED_ROCKS, "b2": el("N"), "a1": el("E")})
    piece, where, facing = SIAM.questions(state, 0)
    view = SIAM.view(state, 0)
    assert (piece.key, where.key, facing.key) == ("piece", "to", "facing")
    assert [en(piece.text), en(where.text), en(facing.text)] == [
        "Which elephant?",
        "Where to?",
        "Facing which way?",
    ]
    assert en(piece.label("reserve", view)) == "a new elephant from the reserve"
    assert en(piece.label("a1", view)) == "the elephant on a1"
    assert en(where.label("here", view)) == "turn it here"
    assert en(where.label("off", view)) == "take it off the board"
    assert en(where.label("b5", view)) == "b5, pushing"
    assert [en(facing.label(d, view)) for d in "NESW"] == ["north ↑", "east →", "south ↓", "west ←"]


def test_questions_skip_forced_answers_a_push_needs_no_facing() -> None:
    state = position({"b5": ROCK, "c5": ROCK, "b2": el("N"), "b3": ROCK})
    legal = SIAM.legal_moves(state, 0)
    questions = SIAM.questions(state, 0)
    push = {"action": "move", "from": "b2", "to": "b3", "facing": "N"}
    after_piece_and_place = [m for m in legal if m.get("from") == "b2" and m.get("to") == "b3"]
    assert after_piece_and_place == [push]
    assert walk(questions, legal, push) == [push]


@settings(max_examples=25, deadline=None)
@given(options=OPTIONS, seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_speak_in_words_and_the_questions_reach_every_move(
    options: dict, seed: int
) -> None:
    states = random_positions(options, seed)
    for state in states[::7] + states[-1:]:
        for seat in SIAM.to_move(state):
            legal = SIAM.legal_moves(state, seat)
            questions = SIAM.questions(state, seat)
            view = SIAM.view(state, seat)
            assert not IDENTIFIER.search(en(SIAM.prompt(state, seat)))
            for move in legal:
                assert walk(questions, legal, move) == [move]
                for question in questions:
                    value = question.answer(move)
                    if value is not None:
                        assert LABEL.match(en(question.label(value, view))), en(
                            question.label(value, view)
                        )
            for move in random.Random(seed).sample(legal, min(12, len(legal))):
                after = SIAM.apply(state, seat, move)
                sentence = en(SIAM.describe(state, after, seat, move, NAMES))
                assert sentence.startswith(NAMES[seat]) and sentence.endswith(".")
                assert not IDENTIFIER.search(sentence), sentence
    result = SIAM.result(states[-1])
    if result:
        assert not IDENTIFIER.search(result["reason"]) and "Ann" not in result["reason"]
        assert not IDENTIFIER.search(en(SIAM.describe_result(result, NAMES)))


# -- board data and schemas ------------------------------------------------------------
@pytest.mark.parametrize("cross_rule", [True, False])
@pytest.mark.parametrize("exit_once", [True, False])
def test_board_data_matches_its_schema_and_the_rules(cross_rule: bool, exit_once: bool) -> None:
    data = SIAM.board_data({"cross_rule": cross_rule, "exit_once": exit_once})
    assert BoardSchema().validate(data) == {}
    assert len(data["squares"]) == 25 and len(data["outer_squares"]) == 16
    assert data["start_rocks"] == sorted(new_game()["board"])
    assert data["cross_squares"] == (["c1", "c5"] if cross_rule else [])
    assert data["exits_per_side"] == (1 if exit_once else None)
    assert data["ply_limit"] == 500 and data["repetitions"] == 3
    assert [d["id"] for d in data["directions"]] == ["N", "E", "S", "W"]


def test_board_data_refuses_unknown_options() -> None:
    with pytest.raises(ValueError):
        SIAM.board_data({"colour": "red"})


@settings(max_examples=20, deadline=None)
@given(options=OPTIONS, seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_every_view_of_random_games_matches_the_state_schema(options: dict, seed: int) -> None:
    for state in random_positions(options, seed, plies=60):
        for seat in (None, 0, 1):
            assert StateSchema().validate(SIAM.view(state, seat)) == {}


@pytest.mark.parametrize(
    "change",
    [
        {"board": {"c3": {"kind": "rock", "facing": "N"}}},
        {"board": {"c3": {"kind": "elephant"}}},
        {"board": {"f9": {"kind": "rock"}}},
        {"reserve": {"elephant": 6, "rhino": 5}},
        {"last_push": {"direction": "up", "squares": [], "off": None}},
        {"positions": {"N..........###..........s": 1}},
        {"positions": {"N..........###..........s1": 4}},
        {"colour": "red"},
    ],
)
def test_state_schema_refuses_what_no_view_holds(change: dict) -> None:
    view = {**SIAM.view(new_game(), None), **change}
    assert StateSchema().validate(view) != {}
