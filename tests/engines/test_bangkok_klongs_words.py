"""Bangkok Klongs in words: the rulebook's examples as sentences, and random games checked for
identifiers, hidden information, questions that reach every move and labels in words.

Rulebook: /work/shared/rules/003_a10705c0827a5603.txt.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.bangkok_klongs.board import BOARDS
from engines.phrases import english
from engines.words import Question
from schemas.bangkok_klongs import BoardSchema, StateSchema
from tests.engines.test_bangkok_klongs_helpers import (
    ENGINE,
    make,
    neutral,
    options,
    plain,
    play,
    tile,
)
from tests.engines.test_bangkok_klongs_market import (
    john_and_eva,
    sarahs_inventory,
    thieves_in_column_4,
)
from tests.engines.test_bangkok_klongs_setup import two_boats

LAYOUT = BOARDS["standard"]
NAMES = ["Ann", "Bob", "Cleo", "Dirk"]
THIEF, THIEF2, OVERSEER, COOK = "t63", "t64", "t66", "t69"
#: What a sentence or a label must never show: tile ids, snake_case names, seats, raw values.
IDENTIFIER = re.compile(r"\bt\d+\b|\b[a-z]+_[a-z_]+\b|\bseat\b|None|True|False|[{}\[\]]|-card\b")


def position(players: int = 2, **given: Any) -> dict[str, Any]:
    """A state from a position where every seat still holds a boat unless ``hands`` says."""
    spare = [
        [plain("banana", 2, 1)],
        [plain("banana", 3)],
        [tile("banana", 0)],
        [plain("banana", 1)],
    ]
    hands = given.pop("hands", [[] for _ in range(players)])
    hands = [hand or spare[seat] for seat, hand in enumerate(hands)]
    return make(players, hands=hands, **given)


def said(state: dict[str, Any], seat: int, text: str, names: Sequence[str] = NAMES) -> str:
    """The sentence for ``seat`` playing ``text`` on ``state``."""
    move = ENGINE.parse(text)
    return english(
        ENGINE.describe(state, ENGINE.apply(state, seat, move), seat, move, names), names
    )


def rest(*used: str) -> list[str]:
    """Every tile not in ``used`` (for the box, to leave the draw pile empty)."""
    return [t for t in LAYOUT.tiles if t not in used]


# -- the rulebook's examples ------------------------------------------------------------


def test_luk_phat_example_mary_moves_the_marker_and_scores_6() -> None:
    hands = [[neutral("shrimp", 2)], [plain("fish", 2)]]
    state = position(2, board={"r7c3": (plain("fish", 1), 1)}, hands=hands)
    assert said(state, 0, f"place {neutral('shrimp', 2)} r7c4 none", ["Mary", "Tom"]) == (
        "Mary places the neutral shrimp boat with 2 baskets on E8. "
        "The Luk Phat marker moves on: Mary scores 6 points."
    )


def test_market_day_example_john_scores_ten_and_eva_five() -> None:
    names = ["John", "Eva"]
    state = position(2, board=john_and_eva(), hands=[[neutral("fish", 2)], []], luk_phat=3)
    assert said(state, 0, f"place {neutral('fish', 2)} r5c4 none", names) == (
        "John places the neutral fish boat with 2 baskets on E6. "
        "The Luk Phat marker moves on: John scores 3 points. "
        "The small market day begins: John scores first or declines."
    )
    state = play(state, 0, f"place {neutral('fish', 2)} r5c4 none")
    assert said(state, 0, "score L4-5 remove r3c4", names) == (
        "John scores the landing place E4-F5 with 5 baskets: John 10 points and Eva 5 points. "
        "John takes the shrimp boat with 2 baskets from E4 into the inventory. "
        "The small market day is over."
    )


def test_market_day_cook_doubles_the_points_and_says_so() -> None:
    board = {**john_and_eva(), "r4c5": (COOK, None)}
    state = position(2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4)
    assert said(state, 0, "score L4-5 remove r3c5") == (
        "Ann scores the landing place E4-F5 with 5 baskets doubled by the cook: "
        "Ann 20 points and Bob 10 points. "
        "Ann takes the flower boat with no baskets from F4 into the inventory. "
        "The small market day is over."
    )


def test_market_day_decline_and_the_end_of_the_small_market_day() -> None:
    state = make(
        2,
        board=john_and_eva(),
        market={"kind": "small", "trigger": 1, "step": 3},
        luk_phat=4,
        hands=[[plain("fish", 1)], [plain("fish", 2)]],
    )
    assert said(state, 0, "decline") == "Ann declines to score. The small market day is over."


def test_overseer_example_one_thief_to_the_hand_the_other_to_the_box() -> None:
    state = position(2, board=thieves_in_column_4(), hands=[[OVERSEER, plain("fish", 1)], []])
    assert said(state, 0, "place t66 r3c4 none remove-thieves keep r2c4") == (
        "Ann places an overseer boat on E4 and takes the thief on E3 into the hand "
        "and sends the thief on E6 back to the box."
    )
    assert said(state, 0, "place t66 r3c4 none remove-thieves") == (
        "Ann places an overseer boat on E4 and sends the thieves on E3 and E6 back to the box."
    )
    assert said(state, 0, "place t66 r3c4 none") == "Ann places an overseer boat on E4."


def test_thief_steals_another_players_boat_and_the_sentence_names_the_owner() -> None:
    board = {"r3c0": (plain("shrimp", 1), 1), "r3c2": (plain("avocado", 2), 0)}
    state = position(2, board=board, hands=[[THIEF, plain("fish", 1)], []])
    assert said(state, 0, "place t63 r3c1 none steal r3c0 keep inventory") == (
        "Ann places a thief boat on B4 and steals Bob's shrimp boat with 1 basket from A4 "
        "and puts it into the inventory."
    )
    assert said(state, 0, "place t63 r3c1 none steal r3c2 keep hand") == (
        "Ann places a thief boat on B4 and steals Ann's own avocado boat with 2 baskets from "
        "C4 and takes it into the hand."
    )
    assert said(state, 0, "place t63 r3c1 none") == (
        "Ann places a thief boat on B4 and steals nothing."
    )


def test_move_card_before_and_after_placing_in_one_move() -> None:
    state = position(2, board=two_boats(), hands=[[plain("shrimp", 1)], []])
    shrimp = plain("shrimp", 1)
    assert said(state, 0, f"place {shrimp} r7c3 none relocate r7c3 r6c4 before") == (
        "Ann moves the fish boat with 1 basket from D8 to E7 with a move card, then places "
        "the shrimp boat with 1 basket on D8 without a merchant."
    )
    assert said(state, 0, f"place {shrimp} r6c3 new relocate r6c3 r5c3 after") == (
        "Ann places the shrimp boat with 1 basket on D7 with a new merchant, then moves the "
        "shrimp boat with 1 basket from D7 to D6 with a move card."
    )


def test_move_card_as_decisions_of_their_own() -> None:
    state = position(2, board=two_boats(), hands=[[plain("shrimp", 1)], []])
    assert said(state, 0, "relocate r7c3 r6c3") == (
        "Ann moves the fish boat with 1 basket from D8 to D7 with a move card."
    )
    shrimp = plain("shrimp", 1)
    assert said(state, 0, f"place {shrimp} r6c3 new relocate after") == (
        "Ann places the shrimp boat with 1 basket on D7 with a new merchant, and will move a "
        "boat with a move card next."
    )
    state = play(state, 0, f"place {shrimp} r6c3 new relocate after")
    assert said(state, 0, "finish") == "Ann ends the turn."


def test_merchant_taken_back_once_all_are_in_use() -> None:
    fields = [
        f"r{2 * sr + r}c{2 * sc + c}"
        for sr in (2, 3)
        for sc in (0, 1, 2)
        for r, c in ((0, 0), (0, 1), (1, 0))
    ][:17]
    boats = [tile(good, i) for good in ("fish", "shrimp", "avocado") for i in (0, 2, 3, 5, 6, 8)]
    state = position(
        2,
        board={f: (boats[k], 0) for k, f in enumerate(fields)},
        hands=[[plain("pineapple", 2)], []],
    )
    assert said(state, 0, f"place {plain('pineapple', 2)} r3c0 r4c0") == (
        "Ann places the pineapple boat with 2 baskets on A4 with the merchant taken back from A5."
    )


def test_tactical_variant_names_the_pile() -> None:
    state = position(2, board=two_boats(), hands=[[plain("shrimp", 1)], []], tactical=True)
    assert said(state, 0, f"place {plain('shrimp', 1)} r7c5 none draw merchant") == (
        "Ann places the shrimp boat with 1 basket on F8 without a merchant, and draws from the "
        "pile of neutral and special boats."
    )


def test_seat_without_boats_is_passed_over_and_the_sentence_says_so() -> None:
    seat0 = [plain("shrimp", 1), plain("shrimp", 2)]
    used = [plain("fish", 1), *seat0]
    state = make(2, board={"r7c3": (used[0], 1)}, hands=[seat0, []], draw_pile=[], box=rest(*used))
    assert said(state, 0, f"place {seat0[0]} r7c4 new") == (
        "Ann places the shrimp boat with 1 basket on E8 with a new merchant. "
        "Bob cannot place a boat and is passed over."
    )


def test_nobody_can_place_the_big_market_day_begins_and_the_game_ends() -> None:
    last = plain("shrimp", 1)
    used = [plain("fish", 1), last]
    state = make(2, board={"r7c3": (used[0], 1)}, hands=[[last], []], draw_pile=[], box=rest(*used))
    assert said(state, 0, f"place {last} r7c4 new") == (
        "Ann places the shrimp boat with 1 basket on E8 with a new merchant. "
        "Nobody can place a boat any more, so the big market day begins, but nobody can score a "
        "landing place. The game ends with the inventory count."
    )


def test_inventory_example_sarah_the_result_in_words() -> None:
    seats = [{"inventory": sarahs_inventory(), "score": 40}, {"score": 50}]
    board = {"r7c3": (plain("shrimp", 1), 1)}
    state = position(2, board=board, hands=[[neutral("shrimp", 3)]], seats=seats, luk_phat=11)
    state = play(state, 0, f"place {neutral('shrimp', 3)} r7c4 none")
    result = ENGINE.result(state)
    assert english(ENGINE.describe_result(result, ["Sarah", "Tom"]), ["Sarah", "Tom"]) == (
        "Sarah wins with 77 points; Tom has 50 points. "
        "The inventories brought Sarah 35 and Tom 0 points."
    )
    assert result["reason"] == (
        "the big market day and the inventory count are over: the best score is 77 points"
    )


def test_equal_scores_share_the_win_in_words() -> None:
    result = {
        "winners": [0, 2],
        "scores": {"0": 60, "1": 41, "2": 60},
        "reason": "",
        "inventory_points": {"0": 10, "1": 3, "2": 6},
    }
    assert english(ENGINE.describe_result(result, NAMES), NAMES) == (
        "Ann and Cleo share the win with 60 points each; Bob has 41 points. "
        "The inventories brought Ann 10, Bob 3 and Cleo 6 points."
    )


def test_a_result_without_scores_falls_back_to_the_common_sentence() -> None:
    result = {"winners": [1], "resigned": [0]}
    assert english(ENGINE.describe_result(result, NAMES), NAMES) == "Bob wins: Ann resigned."


def test_prompts_follow_the_decision() -> None:
    state = ENGINE.setup(2, options(), 3)
    assert english(ENGINE.prompt(state, 0)) == "place a boat on a start field"
    assert english(ENGINE.prompt(state, 1)) == "wait for your turn"
    state = position(2, board=two_boats(), hands=[[plain("shrimp", 1)], []])
    assert (
        english(ENGINE.prompt(state, 0))
        == "place a boat (or first move one of yours with a move card)"
    )
    assert english(ENGINE.prompt(play(state, 0, "relocate r7c3 r6c3"), 0)) == "place a boat"
    later = play(state, 0, f"place {plain('shrimp', 1)} r6c3 new relocate after")
    assert (
        english(ENGINE.prompt(later, 0))
        == "move one of your boats with a move card, or end the turn"
    )
    market = position(2, board=john_and_eva(), market={"kind": "small", "trigger": 0}, luk_phat=4)
    assert (
        english(ENGINE.prompt(market, 0)) == "score a landing place or decline (small market day)"
    )


def test_questions_at_a_market_day_offer_landing_places_and_decline() -> None:
    state = position(2, board=john_and_eva(), market={"kind": "small", "trigger": 0}, luk_phat=4)
    moves = ENGINE.legal_moves(state, 0)
    landing, remove = ENGINE.questions(state, 0)
    view = ENGINE.view(state, 0)
    assert {landing.answer(m) for m in moves} == {"L4-5", "decline"}
    assert english(landing.label("L4-5", view)) == "the landing place E4-F5 (5 baskets)"
    assert english(landing.label("decline", view)) == "decline: score nothing now"
    assert {remove.answer(m) for m in moves if m["action"] == "score"} == {"r3c4", "r3c5"}
    assert english(remove.label("r3c4", view)) == "the shrimp boat with 2 baskets on E4"


def test_questions_alike_boats_in_hand_are_told_apart() -> None:
    twins = [plain("shrimp", 1, 0), plain("shrimp", 1, 1)]
    state = position(2, board=two_boats(), hands=[twins, []])
    boat = ENGINE.questions(state, 0)[0]
    view = ENGINE.view(state, 0)
    assert [english(boat.label(t, view)) for t in twins] == [
        "the shrimp boat with 1 basket (first of 2)",
        "the shrimp boat with 1 basket (second of 2)",
    ]
    assert english(boat.label("move-card", view)) == "first move one of your boats with a move card"


# -- random games ------------------------------------------------------------------------


def asked_tree(questions: list[Question], moves: list[dict[str, Any]]) -> int:
    """Walk the questions as the guided form does; return how many leaves were reached.

    The form asks the first question on which the remaining moves differ and
    offers each distinct answer: every answer must be a real one (no move of
    the group leaves the question out) and every path must end in one move.
    """
    for question in questions:
        answers = [question.answer(move) for move in moves]
        if len(set(answers)) > 1:
            assert None not in answers, f"{question.key} is asked of moves it does not fit"
            groups: dict[str, list[dict[str, Any]]] = {}
            for move, answer in zip(moves, answers, strict=True):
                groups.setdefault(answer, []).append(move)
            return sum(asked_tree(questions, group) for group in groups.values())
    assert len(moves) == 1, f"the questions cannot tell {moves[:2]} apart"
    return 1


def check_labels(questions: list[Question], moves: list[dict], view: dict[str, Any]) -> None:
    """Every answer of every listed move is put in words."""
    for question in questions:
        text = english(question.text)
        assert text.endswith("?") and not IDENTIFIER.search(text)
        for value in {question.answer(move) for move in moves} - {None}:
            label = english(question.label(value, view))
            assert label and label != value, (question.key, value)
            assert not IDENTIFIER.search(label), label


def hidden_shuffled(state: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """``state`` with the hidden boats (hands and draw pile) dealt anew, sizes kept."""
    shuffled = ENGINE.copy_state(state)
    hidden = list(shuffled["draw_pile"])
    for entry in shuffled["players"]:
        hidden += entry["hand"]
    rnd.shuffle(hidden)
    for entry in shuffled["players"]:
        size = len(entry["hand"])
        entry["hand"], hidden = hidden[:size], hidden[size:]
    shuffled["draw_pile"] = hidden
    return shuffled


def check_sentence(
    before: dict[str, Any], after: dict[str, Any], seat: int, move: dict, rnd: random.Random
) -> None:
    """One sentence naming the player, in words, from public information only."""
    names = NAMES[: len(before["players"])]
    sentence = english(ENGINE.describe(before, after, seat, move, names), names)
    assert sentence.startswith(names[seat] + " ") and sentence.endswith(".")
    assert not IDENTIFIER.search(sentence), sentence
    again = english(
        ENGINE.describe(
            hidden_shuffled(before, rnd), hidden_shuffled(after, rnd), seat, move, names
        ),
        names,
    )
    assert again == sentence, "the sentence depends on hidden boats"


def play_and_check(players: int, tactical: bool, seed: int, rnd: random.Random) -> None:
    """A random game: every listed move said in words and reached by the questions."""
    state = ENGINE.setup(players, options(tactical), seed)
    while ENGINE.result(state) is None:
        (seat,) = ENGINE.to_move(state)
        moves = ENGINE.legal_moves(state, seat)
        view = ENGINE.view(state, seat)
        questions = ENGINE.questions(state, seat)
        assert asked_tree(questions, moves) == len(moves)
        check_labels(questions, moves, view)
        prompt = english(ENGINE.prompt(state, seat))
        assert prompt and not IDENTIFIER.search(prompt)
        for viewer in [None, *range(players)]:
            assert StateSchema().validate(ENGINE.view(state, viewer)) == {}
        for move in rnd.sample(moves, min(3, len(moves))):
            check_sentence(state, ENGINE.apply(state, seat, move), seat, move, rnd)
        state = ENGINE.apply(state, seat, rnd.choice(moves))
    result = ENGINE.result(state)
    sentence = english(ENGINE.describe_result(result, NAMES[:players]), NAMES[:players])
    assert not IDENTIFIER.search(sentence + result["reason"])
    assert not re.search(r"\bseat|Ann|Bob", result["reason"])


@settings(max_examples=4, deadline=None)
@given(
    players=st.integers(2, 4),
    tactical=st.booleans(),
    seed=st.integers(0, 2**32),
    choices=st.integers(0, 2**32),
)
def test_random_games_every_move_in_words_and_reached_by_the_questions(
    players: int, tactical: bool, seed: int, choices: int
) -> None:
    play_and_check(players, tactical, seed, random.Random(choices))


# -- board data --------------------------------------------------------------------------


def test_board_data_matches_its_schema_and_the_contract() -> None:
    data = ENGINE.board_data({})
    assert BoardSchema().validate(data) == {}
    assert len(data["fields"]) == 80 and len(data["sub_markets"]) == 20
    assert len(data["landing_places"]) == 43 and len(data["tiles"]) == 72
    assert data["start_fields"]["2"] == [f"r7c{c}" for c in range(2, 8)]
    assert [space["points"] for space in data["luk_phat_track"]] == list(LAYOUT.track)
    assert {s["space"]: s["market_day"] for s in data["luk_phat_track"] if s["market_day"]} == {
        4: "small",
        8: "small",
        12: "big",
    }
    assert data["merchants"] == {"2": 17, "3": 12, "4": 9}


def test_board_data_refuses_an_unknown_board() -> None:
    with pytest.raises(ValueError, match="board"):
        ENGINE.board_data({"board": "venice"})


# -- the state schema against real views -------------------------------------------------


@pytest.mark.parametrize(("players", "tactical"), [(2, False), (3, True), (4, False)])
def test_state_schema_accepts_every_view_of_a_game(players: int, tactical: bool) -> None:
    state, rnd = ENGINE.setup(players, options(tactical), 17), random.Random(17)
    while ENGINE.result(state) is None:
        for viewer in [None, *range(players)]:
            assert StateSchema().validate(ENGINE.view(state, viewer)) == {}
        (seat,) = ENGINE.to_move(state)
        state = ENGINE.apply(state, seat, rnd.choice(ENGINE.legal_moves(state, seat)))
    assert StateSchema().validate(ENGINE.view(state, 0)) == {}


def test_state_schema_refuses_what_a_view_never_holds() -> None:
    view = ENGINE.view(ENGINE.setup(2, options(), 3), 0)
    wrong = [
        {**view, "secret": 1},
        {**view, "hand": [*view["hand"], "t70"]},
        {**view, "board": {"r9c12x": {"tile": "t1", "merchant": None}}},
        {**view, "market": {"kind": "small", "trigger": 0, "seat": 0, "declined": []}},
        {**view, "tiles": {"t1": {**LAYOUT.tiles["t1"], "good": "rice"}}},
    ]
    for bad in wrong:
        assert StateSchema().validate(bad), bad
