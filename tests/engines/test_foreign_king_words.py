"""The Foreign King in words: the rulebook's examples as sentences, results, prompts, questions.

Seats in the rulebook's examples: Green = 0, Red = 1, Blue = 2 (3-4 players); Blue = 0 and
Black = 1 in the 2-player example of the virtual player.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from engines.foreign_king.board import BORDERS, NAMES, PROVINCES, board_data
from engines.phrases import english
from engines.words import Question
from tests.engines.test_foreign_king_support import (
    ENGINE,
    Move,
    State,
    choose,
    position,
    with_citizens,
)

GREEN, RED, BLUE = 0, 1, 2
COLOURS = ["Green", "Red", "Blue", "Black"]
PEOPLE = ["Ann", "Bob", "Cleo", "Dan"]
#: What a sentence for players may not contain: identifiers, seat numbers, raw values.
IDENTIFIER = re.compile(
    r"[a-z]+_[a-z_]+|\bseat\b|\bNone\b|\bTrue\b|\bFalse\b|[{}\[\]]|\b("
    + "|".join(re.escape(province) for province in PROVINCES)
    + r")\b"
)


def told(state: State, seat: int, text: str, names: Sequence[str] = COLOURS) -> tuple[str, State]:
    """The sentence for ``seat`` playing ``text`` in ``state``, and the state after it."""
    move = ENGINE.parse(text)
    after = ENGINE.apply(state, seat, move)
    return english(ENGINE.describe(state, after, seat, move, names), names), after


def say(state: State, seat: int, text: str, names: Sequence[str] = COLOURS) -> str:
    """The sentence for ``seat`` playing ``text`` in ``state``."""
    return told(state, seat, text, names)[0]


# -- the rulebook's actions as sentences --------------------------------------------------------
def test_build_factory_the_first_of_a_province_brings_a_royal_order():
    state = position(3, to_move=GREEN)
    assert say(state, GREEN, "build textile liege") == (
        "Green builds a textile factory in Liège and receives a royal order."
    )
    state = position(3, provinces={"liege": {"factories": [{"kind": "textile"}]}}, to_move=RED)
    assert say(state, RED, "build metal liege") == "Red builds a metal factory in Liège."


def test_place_citizens_example_three_citizens_cost_two_francs():
    state = position(3, to_move=GREEN)
    assert say(state, GREEN, "place namur 3") == "Green places 3 citizens in Namur (2 francs)."
    assert say(state, GREEN, "place namur 1") == "Green places a citizen in Namur."


def test_move_citizens_contract_example_as_one_sentence():
    state = position(3, provinces=with_citizens(namur={"0": 4}), to_move=GREEN)
    assert say(state, GREEN, "move namur: liege | hainaut west-vlaanderen | supply") == (
        "Green moves 3 citizens from Namur: one to Liège, one through Hainaut to "
        "West-Vlaanderen and one back to the supply (3 francs)."
    )
    assert say(state, GREEN, "move namur: liege") == "Green moves a citizen from Namur to Liège."


def test_move_citizens_step_by_step_each_further_step_costs_a_franc():
    state = position(3, provinces=with_citizens(namur={"1": 3}), to_move=RED)
    first, state = told(state, RED, "step namur liege")
    further, state = told(state, RED, "step namur hainaut")
    onward, state = told(state, RED, "step hainaut west-vlaanderen")
    assert first == "Red moves a citizen from Namur to Liège."
    assert further == "Red moves a citizen from Namur to Hainaut (1 franc)."
    assert onward == "Red moves a citizen on from Hainaut to West-Vlaanderen (1 franc)."
    assert say(state, RED, "end") == "Red ends the move of citizens."


def test_move_citizens_back_to_the_supply():
    state = position(3, provinces=with_citizens(namur={"0": 1}), to_move=GREEN)
    assert say(state, GREEN, "step namur supply") == (
        "Green moves a citizen from Namur back to the supply."
    )


def test_parliament_from_the_supply_or_a_province():
    state = position(3, provinces=with_citizens(namur={"2": 1}), to_move=BLUE)
    assert say(state, BLUE, "parliament supply") == (
        "Blue sends a citizen from the supply into parliament."
    )
    assert (
        say(state, BLUE, "parliament namur") == "Blue sends a citizen from Namur into parliament."
    )


def test_take_coins_three_plus_one_per_controlled_textile_factory():
    provinces = {"liege": {"citizens": {"0": 2}, "factories": [{"kind": "textile"}]}}
    state = position(3, provinces=provinces, to_move=GREEN)
    assert say(state, GREEN, "coins") == "Green takes 4 francs."


def test_king_from_his_portrait_into_an_empty_province():
    state = position(3, to_move=BLUE)
    assert say(state, BLUE, "king liege") == (
        "Blue puts the King into Liège; nobody lives in Liège, so nothing is scored."
    )


def test_king_further_provinces_are_named_and_paid():
    state = position(3, king={"at": "namur"}, to_move=GREEN)
    assert say(state, GREEN, "king brabant limburg") == (
        "Green moves the King from Namur through Brabant to Limburg (1 franc); nobody lives "
        "in Limburg, so nothing is scored."
    )


def test_scoring_example_liege_blue_alone_with_four_citizens_scores_three():
    provinces = {"liege": {"citizens": {"2": 4}, "factories": [{"kind": "textile"}]}}
    state = position(3, provinces=provinces, king={"at": "namur"}, to_move=GREEN)
    assert say(state, GREEN, "king liege") == (
        "Green moves the King from Namur to Liège: Blue scores 3 points."
    )


def test_scoring_example_namur_green_scores_nine_for_a_metal_and_a_textile_factory():
    factories = [{"kind": "metal"}, {"kind": "textile"}]
    provinces = {"namur": {"citizens": {"0": 3, "1": 2}, "factories": factories}}
    state = position(3, provinces=provinces, king={"at": "liege"}, to_move=RED)
    assert say(state, RED, "king namur") == (
        "Red moves the King from Liège to Namur: Green scores 9 points."
    )


def test_scoring_example_luxembourg_red_scores_two_for_six_citizens():
    provinces = with_citizens(luxembourg={"1": 6})
    state = position(3, provinces=provinces, king={"at": "namur"}, to_move=GREEN)
    assert say(state, GREEN, "king luxembourg") == (
        "Green moves the King from Namur to Luxembourg: Red scores 2 points."
    )


def test_parliament_example_red_declines_blue_brings_two_and_scores_three():
    provinces = {"liege": {"citizens": {"0": 1, "1": 1}, "factories": [{"kind": "textile"}]}}
    state = position(
        3, provinces=provinces, parliament={"1": 3, "2": 2}, king={"at": "namur"}, to_move=GREEN
    )
    moved, state = told(state, GREEN, "king liege")
    declined, state = told(state, RED, "bring no")
    brought, state = told(state, BLUE, "bring yes")
    assert moved == (
        "Green moves the King from Namur to Liège: Red may first bring the parliamentarians."
    )
    assert declined == (
        "Red leaves the parliamentarians in parliament: Blue may first bring the parliamentarians."
    )
    assert brought == "Blue brings 2 parliamentarians to Liège: Blue scores 3 points."


def test_no_majority_the_kings_mover_may_switch_off_a_factory():
    factories = [{"kind": "metal"}, {"kind": "textile"}]
    provinces = {"liege": {"citizens": {"0": 2, "1": 2}, "factories": factories}}
    state = position(3, provinces=provinces, king={"at": "namur"}, to_move=BLUE)
    moved, state = told(state, BLUE, "king liege")
    assert moved == (
        "Blue moves the King from Namur to Liège: no majority, so Blue may switch off a factory."
    )
    assert say(state, BLUE, "deactivate 1") == "Blue switches off the textile factory in Liège."
    assert say(state, BLUE, "deactivate none") == "Blue leaves the factories in Liège running."


def test_queen_copies_an_occupied_action_for_two_francs():
    state = position(4, actions={"build_factory": 0}, to_move=3)
    assert say(state, 3, "queen build metal namur") == (
        "With the Queen (2 francs), Black builds a metal factory in Namur and receives a "
        "royal order."
    )


def test_turn_order_action_and_the_new_place_at_the_end_of_the_round():
    state = position(3, to_move=2)
    chose, state = told(state, 2, "turn-order")
    assert chose == (
        "Blue takes 1 franc and will choose a new place in the turn order at the end of the round."
    )
    assert ENGINE.to_move(state) == [2] and state["pending"]["kind"] == "set_position"
    assert say(state, 2, "position 0") == "Blue takes the first place in the turn order."


def test_loans_and_repayments():
    state = position(3, players=[{"orders": 1, "loans": 1, "coins": 5}, {}, {}], to_move=GREEN)
    assert say(state, GREEN, "repay") == (
        "Green repays a loan (4 francs) and turns a royal order face up."
    )
    state = position(3, players=[{"orders": 1}, {}, {}], to_move=GREEN)
    assert say(state, GREEN, "loan") == (
        "Green takes a loan of 3 francs, turning a royal order face down."
    )


def test_virtual_example_blue_scores_three_and_black_places_and_moves_two():
    provinces = {
        "liege": {"citizens": {"0": 4}, "factories": [{"kind": "textile"}]},
        "namur": {"citizens": {"virtual": 2}},
    }
    state = position(2, provinces=provinces, king={"at": "brabant"}, to_move=0)
    names = ["Blue", "Black"]
    scored, state = told(state, 0, "king liege", names)
    assert scored == (
        "Blue moves the King from Brabant to Liège: Blue scores 3 points, so Black places or "
        "moves 2 citizens of the virtual player."
    )
    assert say(state, 1, "virtual place antwerpen, move namur hainaut", names) == (
        "Black places a virtual citizen in Antwerpen and moves a virtual citizen from Namur to "
        "Hainaut."
    )


def test_the_move_that_ends_the_game_says_so():
    provinces = with_citizens(liege={"0": 4})
    state = position(
        3,
        provinces=provinces,
        king={"at": "namur", "track": 3},
        players=[{}, {"vp": 1}, {}],
        to_move=GREEN,
    )
    assert say(state, GREEN, "king liege") == (
        "Green moves the King from Namur to Liège: Green scores 1 point. This ends the game."
    )


# -- results -----------------------------------------------------------------------------------
def said(outcome: dict[str, Any]) -> str:
    """The result in English, the seats named by :data:`PEOPLE`."""
    return english(ENGINE.describe_result(outcome, PEOPLE), PEOPLE)


def result(winners: list[int], scores: dict[str, int], **more: Any) -> dict[str, Any]:
    """A result as the engine writes it."""
    reason = "The King's marker reached the score of the player with the second-most points."
    return {"winners": winners, "scores": scores, "reason": reason, "virtual_wins": False} | more


def test_result_one_winner_with_the_others_points_and_the_reason():
    assert said(result([2], {"0": 20, "1": 31, "2": 40})) == (
        "Cleo wins with 40 points (Bob 31, Ann 20): the King's marker reached the score of the "
        "player with the second-most points."
    )


def test_result_a_tie_on_points_broken_by_royal_orders():
    assert said(result([1], {"0": 30, "1": 30})).startswith(
        "Bob wins with 30 points and more royal orders (Ann 30):"
    )


def test_result_a_shared_win():
    assert said(result([0, 1], {"0": 30, "1": 30, "2": 9})).startswith(
        "Ann and Bob share the win with 30 points (Cleo 9):"
    )


def test_result_the_virtual_player_wins():
    outcome = result([], {"0": 20, "1": 25}, virtual_wins=True, virtual_score=31)
    assert said(outcome).startswith("The virtual player wins with 31 points (Bob 25, Ann 20):")


def test_result_reasons_name_nobody():
    state = position(
        3,
        provinces=with_citizens(liege={"0": 4}),
        king={"at": "namur", "track": 3},
        players=[{}, {"vp": 1}, {}],
        to_move=0,
    )
    state = ENGINE.apply(state, 0, ENGINE.parse("king liege"))
    reason = ENGINE.result(state)["reason"]
    assert not IDENTIFIER.search(reason) and not re.search(r"\d", reason)


# -- prompts -------------------------------------------------------------------------------------
def test_prompt_a_regular_turn_and_waiting():
    state = position(3, to_move=GREEN)
    assert english(ENGINE.prompt(state, GREEN)) == "choose an action"
    assert english(ENGINE.prompt(state, RED)) == "wait for your turn"


@pytest.mark.parametrize(
    ("setup", "seat", "expected"),
    [
        (["step namur liege"], RED, "move another citizen (1 franc) or end the move"),
        (["king liege"], BLUE, "bring your parliamentarians to Liège, or leave them"),
        (["turn-order"], RED, "choose your new place in the turn order"),
    ],
)
def test_prompt_of_each_pending_decision(setup: list[str], seat: int, expected: str):
    state = position(
        3,
        provinces=with_citizens(namur={"1": 3}, liege={"0": 1}),
        parliament={"2": 2},
        king={"at": "namur"},
        turn_order=[0, 2, 1],
        to_move=seat if setup[0] != "king liege" else GREEN,
    )
    mover = seat if setup[0] != "king liege" else GREEN
    for text in setup:
        state = ENGINE.apply(state, mover, ENGINE.parse(text))
    assert ENGINE.to_move(state) == [seat]
    assert english(ENGINE.prompt(state, seat)) == expected


def test_prompt_deactivate_virtual_and_finish():
    factories = [{"kind": "metal"}]
    provinces = {"liege": {"citizens": {"0": 2, "1": 2}, "factories": factories}}
    state = ENGINE.apply(
        position(3, provinces=provinces, king={"at": "namur"}, to_move=BLUE),
        BLUE,
        ENGINE.parse("king liege"),
    )
    assert english(ENGINE.prompt(state, BLUE)) == "switch off a factory in Liège, or none"
    provinces = {"liege": {"citizens": {"0": 4}, "factories": [{"kind": "textile"}]}}
    state = position(2, provinces=provinces, king={"at": "brabant"}, to_move=0)
    state = ENGINE.apply(state, 0, ENGINE.parse("king liege"))
    assert english(ENGINE.prompt(state, 1)) == "place or move 2 citizens of the virtual player"
    state = position(
        3,
        provinces=with_citizens(liege={"0": 4}),
        king={"at": "namur", "track": 3},
        players=[{"orders": 1, "loans": 1, "coins": 4}, {"vp": 1}, {}],
        to_move=0,
    )
    state = ENGINE.apply(state, 0, ENGINE.parse("king liege"))
    assert english(ENGINE.prompt(state, 0)) == "repay a loan before the game ends, or end it"
    finished = ENGINE.apply(state, 0, ENGINE.parse("finish"))
    assert english(ENGINE.prompt(finished, 0)) == "nothing: the game is over"


# -- questions ----------------------------------------------------------------------------------
def walk(
    questions: list[Question], moves: list[Move], view: dict[str, Any], picks: tuple = ()
) -> Iterator[tuple[Move, list[tuple[str, str, str]]]]:
    """Every move the questions lead to, with its (key, answer, label) steps.

    As the guided form asks: keep the moves matching the answers so far, ask the first
    question on which they differ, follow each distinct answer.
    """
    remaining = [move for move in moves if all(q.answer(move) == v for q, v, _ in picks)]
    asked = {q.key for q, _, _ in picks}
    for question in questions:
        if question.key in asked:
            continue
        values = list(dict.fromkeys(question.answer(move) for move in remaining))
        if len(values) > 1:
            assert None not in values, (question.key, remaining[:3])
            for value in values:
                label = english(question.label(value, view))
                yield from walk(questions, moves, view, (*picks, (question, value, label)))
            return
    assert len(remaining) == 1, remaining[:3]
    yield remaining[0], [(q.key, v, label) for q, v, label in picks]


def random_states(players: int, seed: int, limit: int = 120) -> Iterator[State]:
    """The states of a random game (kinds of action chosen evenly)."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    for _ in range(limit):
        if ENGINE.result(state) is not None:
            return
        yield state
        seat = ENGINE.to_move(state)[0]
        state = ENGINE.apply(state, seat, choose(rng, ENGINE.legal_moves(state, seat)))


GAMES = [(players, seed) for players in (2, 3, 4) for seed in (1, 2)]


def canonical(move: Move) -> str:
    """A move as comparable text."""
    return json.dumps(move, sort_keys=True)


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_questions_reach_every_listed_move_with_labels_in_words(players: int, seed: int):
    for state in random_states(players, seed):
        seat = ENGINE.to_move(state)[0]
        moves = ENGINE.legal_moves(state, seat)
        view = ENGINE.view(state, seat)
        reached = list(walk(ENGINE.questions(state, seat), moves, view))
        assert sorted(canonical(move) for move, _ in reached) == sorted(map(canonical, moves))
        for _, steps in reached:
            for key, value, label in steps:
                assert label and not IDENTIFIER.search(label), (key, value, label)
                if value in PROVINCES:
                    assert label in (NAMES[value], f"back to {NAMES[value]}")


def test_questions_ask_the_action_first_on_the_action_table():
    state = position(4, actions={"build_factory": 1}, players=[{"orders": 1}, {}, {}, {}])
    questions = ENGINE.questions(state, 0)
    assert questions[0].key == "action"
    answers = {questions[0].answer(move) for move in ENGINE.legal_moves(state, 0)}
    assert answers == {
        "loan",
        "place_citizens",
        "parliament",
        "take_coins",
        "king",
        "queen",
        "turn_order",
    }
    labels = {english(questions[0].label(answer, ENGINE.view(state, 0))) for answer in answers}
    assert "Take a loan (3 francs)" in labels and "The Queen (2 francs)" in labels


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_every_listed_move_has_a_sentence_in_words(players: int, seed: int):
    names = PEOPLE[:players]
    for state in random_states(players, seed, limit=80):
        seat = ENGINE.to_move(state)[0]
        for move in ENGINE.legal_moves(state, seat):
            after = ENGINE.apply(state, seat, move)
            sentence = english(ENGINE.describe(state, after, seat, move, names), names)
            assert sentence.startswith((names[seat], "With the Queen")), sentence
            assert sentence.endswith(".") and not IDENTIFIER.search(sentence), sentence
        prompt = english(ENGINE.prompt(state, seat))
        assert prompt and not IDENTIFIER.search(prompt) and not any(n in prompt for n in names)


def test_finished_random_games_have_result_sentences():
    for players in (2, 3, 4):
        state = ENGINE.setup(players, {}, players)
        rng = random.Random(players)
        while ENGINE.result(state) is None:
            seat = ENGINE.to_move(state)[0]
            state = ENGINE.apply(state, seat, choose(rng, ENGINE.legal_moves(state, seat)))
        sentence = english(ENGINE.describe_result(ENGINE.result(state), PEOPLE), PEOPLE[:players])
        assert " with " in sentence and not IDENTIFIER.search(sentence)


# -- the static board --------------------------------------------------------------------------
def edges(outline: list[list[int]]) -> set[frozenset[tuple[int, int]]]:
    """The sides of a closed outline, each as the set of its two ends."""
    points = [tuple(point) for point in outline]
    return {frozenset(pair) for pair in zip(points, points[1:] + points[:1], strict=True)}


def inside(point: list[int], outline: list[list[int]]) -> bool:
    """Whether ``point`` lies inside the polygon ``outline`` (even-odd rule)."""
    x, y = point
    crossings = 0
    for (x1, y1), (x2, y2) in zip(outline, outline[1:] + outline[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            crossings += 1
    return crossings % 2 == 1


def test_board_data_map_provinces_touch_exactly_where_the_rules_have_borders():
    provinces = {entry["id"]: entry for entry in board_data()["provinces"]}
    touching = {
        frozenset((a, b))
        for a in provinces
        for b in provinces
        if a < b and edges(provinces[a]["outline"]) & edges(provinces[b]["outline"])
    }
    assert touching == {frozenset(pair) for pair in BORDERS}


def test_board_data_names_neighbours_and_labels_inside_their_provinces():
    data = board_data()
    assert [entry["name"] for entry in data["provinces"]] == [NAMES[p] for p in PROVINCES]
    assert data["provinces"][3]["name"] == "Liège"
    for entry in data["provinces"]:
        assert inside(entry["label"], entry["outline"]), entry["id"]
        assert all(
            0 <= x <= data["map"]["width"] and 0 <= y <= data["map"]["height"]
            for x, y in entry["outline"]
        )
    assert [a["name"] for a in data["actions"]["4"]][-2:] == ["Turn order", "The Queen"]
    assert [a["id"] for a in data["actions"]["2"]] == [
        "build_factory",
        "place_citizens",
        "move_citizens",
        "parliament",
        "take_coins",
        "king",
    ]
    assert ENGINE.board_data({}) == data
