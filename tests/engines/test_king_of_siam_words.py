"""King of Siam in its own words: the rulebook's examples as sentences, prompts and questions.

Sentences are checked word for word for the rulebook examples the rules
tests already play (Alfred, Benjamin and Charles are seats 0, 1 and 2);
over random games every listed move gets a sentence without identifiers
or hidden information, and the guided questions reach every listed move.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from engines.king_of_siam import KingOfSiamEngine
from engines.king_of_siam.board import MAPS
from engines.phrases import Words, english
from tests.engines.test_king_of_siam_rules import (
    BOARD,
    COLONY,
    FACTION_RULE,
    LAO_TIE,
    PROVINCE_TIE,
    PROVINCES,
    finished,
    make,
)

ENGINE = KingOfSiamEngine()
NAMES = ["Alfred", "Benjamin", "Charles", "Dora"]


def en(words: Words) -> str:
    """The engine's words in English, the seats named by :data:`NAMES`."""
    return english(words, NAMES)


#: What no sentence may contain: snake_case or kebab-case identifiers, seat numbers.
IDENTIFIER = re.compile(r"\b[a-z]+[_-][a-z]+\b|\bseat\b|\b(?:rama|lao|malay|british)\b")


def said(state: dict[str, Any], text: str, names: list[str] = NAMES) -> tuple[str, dict[str, Any]]:
    """The sentence for the seat to move playing ``text``, and the state after it."""
    seat = ENGINE.to_move(state)[0]
    move = ENGINE.parse(text, state)
    after = ENGINE.apply(state, seat, move)
    return english(ENGINE.describe(state, after, seat, move, names), names), after


def korat_first(**extra: Any) -> dict[str, Any]:
    """The rules tests' BOARD with Korat contested first, Alfred to move."""
    order = ["korat", *[p for p in PROVINCES if p != "korat"]]
    return make(board=BOARD, struggle_order=order, **extra)


# -- the card sentences -------------------------------------------------------------------
def test_khon_thai_one_follower_of_each_faction_in_a_sentence() -> None:
    sentence, _ = said(korat_first(), "khon_thai rama korat lao kedah malay korat")
    assert sentence == (
        "Alfred plays Khon Thai: a Rama follower to Korat, a Lao follower to Kedah and "
        "a Malay follower to Korat."
    )


def test_the_take_after_a_card() -> None:
    _, state = said(korat_first(), "khon_thai rama korat lao kedah malay korat")
    sentence, _ = said(state, "take lao kedah")
    assert sentence == "Alfred takes a Lao follower from Kedah."


def test_a_card_with_its_take_is_one_sentence() -> None:
    sentence, _ = said(korat_first(), "rama korat sukhothai; take lao kedah")
    assert sentence == (
        "Alfred plays Rama: a Rama follower to Korat and one to Sukhothai, "
        "then takes a Lao follower from Kedah."
    )


def test_faction_card_both_followers_to_one_province() -> None:
    sentence, _ = said(korat_first(), "malay nakhon-si-thammarat nakhon-si-thammarat")
    assert sentence == "Alfred plays Malay: 2 Malay followers to Nakhon Si Thammarat."


def test_maharacha_swaps_two_tiles_and_places_the_king() -> None:
    sentence, _ = said(korat_first(), "maharacha swap korat sukhothai king sukhothai")
    assert sentence == (
        "Alfred plays Maharacha: Korat and Sukhothai swap places in the struggle order, "
        "and Sukhothai gets the King marker."
    )


def test_one_vs_one_in_one_move_and_in_steps() -> None:
    sentence, _ = said(korat_first(), "one_vs_one rama korat with lao kedah")
    assert sentence == (
        "Alfred plays 1 vs 1: a Rama follower of Korat swaps places with a Lao follower of Kedah."
    )
    first, state = said(korat_first(), "one_vs_one rama korat")
    assert first == "Alfred plays 1 vs 1 on a Rama follower of Korat."
    second, _ = said(state, "swap lao kedah")
    assert second == (
        "Alfred goes on with 1 vs 1: a Rama follower of Korat swaps places with "
        "a Lao follower of Kedah."
    )


def test_two_vs_one_names_both_followers_that_go() -> None:
    first, state = said(korat_first(), "two_vs_one rama lao korat")
    assert first == "Alfred plays 2 vs 1 on a Rama follower and a Lao follower of Korat."
    second, _ = said(state, "swap malay sukhothai")
    assert second == (
        "Alfred goes on with 2 vs 1: a Rama follower and a Lao follower of Korat swap places with "
        "a Malay follower of Sukhothai."
    )


def test_khon_thai_in_steps() -> None:
    first, state = said(korat_first(), "khon_thai rama korat")
    assert first == "Alfred plays Khon Thai: a Rama follower to Korat."
    second, _ = said(state, "place lao kedah")
    assert second == "Alfred goes on with Khon Thai: a Lao follower to Kedah."


def test_a_card_that_can_do_nothing_says_why() -> None:
    # The players hold every follower that is not on the board: the pool is empty.
    pool_empty = korat_first(held=[(5, 5, 6), (5, 5, 5), (5, 4, 5)])
    assert pool_empty["pool"] == {"rama": 0, "lao": 0, "malay": 0}
    sentence, _ = said(pool_empty, "khon_thai none")
    assert sentence == "Alfred plays Khon Thai (the pool holds no follower)."
    sentence, _ = said(pool_empty, "rama none")
    assert sentence == "Alfred plays Rama (no Rama follower can be placed)."


# -- passes and struggles -------------------------------------------------------------------
def test_pass_table_example_benjamin_finishes_and_korat_falls() -> None:
    # Rulebook section 4: Alfred and Benjamin pass, Charles acts; ...; Benjamin finishes.
    state = korat_first()
    for text in ("pass", "pass", "malay nakhon-si-thammarat nakhon-si-thammarat; take lao kedah"):
        _, state = said(state, text)
    for text in ("pass", "khon_thai rama kedah lao kedah malay kedah; take lao kedah"):
        _, state = said(state, text)
    for text in ("pass", "pass"):
        _, state = said(state, text)
    sentence, _ = said(state, "pass")
    assert sentence == "Benjamin passes. Korat falls to the Rama."


def test_a_tie_brings_the_british() -> None:
    order = ["sukhothai", *[p for p in PROVINCES if p != "sukhothai"]]
    state = make(board=BOARD, struggle_order=order)
    _, state = said(state, "pass")
    _, state = said(state, "pass")
    sentence, _ = said(state, "pass")
    assert sentence == "Charles passes. Sukhothai falls to the British."


def test_players_without_a_playable_card_have_to_pass() -> None:
    # Benjamin and Charles have no card left: they pass by themselves, and the struggle ends.
    state = korat_first(hands=[["rama", "lao"], [], []])
    sentence, _ = said(state, "lao sukhothai korat; take malay kedah")
    assert sentence == (
        "Alfred plays Lao: a Lao follower to Sukhothai and one to Korat, then takes a Malay "
        "follower from Kedah. Benjamin and Charles have to pass."
    )


# -- results ------------------------------------------------------------------------------
def result_of(state: dict[str, Any], names: list[str] = NAMES) -> str:
    result = ENGINE.result(state)
    return english(ENGINE.describe_result(result, names), names[: len(state["players"])])


def test_british_colony_example_charles_with_two_sets_wins() -> None:
    state = finished(3, COLONY, [(1, 1, 1), (3, 1, 2), (2, 2, 2)])
    assert result_of(state) == (
        "Charles wins: Siam is a British colony (the British control 4 provinces), "
        "and Charles has the most complete sets of followers (2)."
    )
    assert ENGINE.result(state)["reason"] == (
        "Siam is a British colony (the British control 4 provinces), and the player with "
        "the most complete sets of followers (2) wins."
    )


def test_four_player_colony_example_benjamin_and_bertha_win_with_four_sets() -> None:
    names = ["Alfred", "Benjamin", "Alice", "Bertha"]
    state = finished(4, COLONY, [(3, 1, 4), (2, 2, 2), (3, 2, 3), (2, 2, 3)])
    assert result_of(state, names) == (
        "Benjamin and Bertha win as partners: Siam is a British colony (the British control "
        "4 provinces), and Benjamin and Bertha have the most complete sets of followers "
        "together (4)."
    )


def test_colony_tie_the_player_who_played_a_card_last_wins() -> None:
    held = [(2, 2, 2), (2, 3, 2), (1, 1, 1)]
    assert result_of(finished(3, COLONY, held, [1, 2, 0])) == (
        "Alfred wins: Siam is a British colony (the British control 4 provinces); Alfred and "
        "Benjamin tie with 2 complete sets, and Alfred played an action card last."
    )


def test_four_player_rama_example_benjamin_wins_and_bertha_with_him() -> None:
    names = ["Alfred", "Benjamin", "Alice", "Bertha"]
    state = finished(4, FACTION_RULE, [(4, 0, 0), (5, 0, 0), (3, 0, 0), (1, 0, 0)])
    assert result_of(state, names) == (
        "Benjamin and Bertha win as partners: the Rama rule Siam with 3 provinces, "
        "and Benjamin has the most Rama followers (5)."
    )
    assert ENGINE.result(state)["reason"].endswith(" Partners win together.")


def test_lao_tie_example_alfred_wins_with_more_rama_followers() -> None:
    state = finished(3, LAO_TIE, [(2, 4, 0), (1, 4, 3), (0, 1, 5)])
    assert result_of(state) == (
        "Alfred wins: the Lao rule Siam with 3 provinces; Alfred and Benjamin tie with "
        "4 Lao followers, and Alfred has more Rama followers."
    )


def test_tie_on_provinces_example_the_faction_that_gained_control_last_rules() -> None:
    state = finished(3, PROVINCE_TIE, [(1, 0, 0), (0, 3, 0), (0, 0, 0)])
    assert result_of(state) == (
        "Alfred wins: the Rama rule Siam with 3 provinces (as many as the Lao, but the Rama "
        "gained control of a province last), and Alfred has the most Rama followers (1)."
    )


def test_still_tied_the_player_whose_last_card_lies_furthest_back_wins() -> None:
    held = [(3, 1, 0), (3, 1, 0), (0, 0, 0)]
    assert result_of(finished(3, FACTION_RULE, held, [1, 0])) == (
        "Benjamin wins: the Rama rule Siam with 3 provinces; Alfred and Benjamin tie with "
        "3 Rama followers and as many Malay followers, and Benjamin's last action card lies "
        "furthest back."
    )


def test_a_tie_no_rule_breaks_is_a_shared_win() -> None:
    held = [(3, 1, 0), (3, 1, 0), (0, 0, 0)]
    state = finished(3, FACTION_RULE, held, [2])
    assert result_of(state) == (
        "Alfred and Benjamin share the win: the Rama rule Siam with 3 provinces; Alfred and "
        "Benjamin tie with 3 Rama followers and as many Malay followers, and no rule breaks "
        "the tie."
    )
    assert ENGINE.result(state)["reason"] == (
        "The Rama rule Siam with 3 provinces; 2 players tie with 3 Rama followers and as "
        "many Malay followers, and no rule breaks the tie."
    )


def test_a_result_the_server_made_keeps_its_own_reason() -> None:
    result = {"winners": [1], "scores": {}, "reason": "Alfred ran out of time and forfeits."}
    assert en(ENGINE.describe_result(result, NAMES[:2])) == (
        "Benjamin wins: Alfred ran out of time and forfeits."
    )


# -- prompts --------------------------------------------------------------------------------
def test_prompts_follow_the_decisions_of_a_turn() -> None:
    state = korat_first()
    assert en(ENGINE.prompt(state, 0)) == "play a card or pass"
    assert en(ENGINE.prompt(state, 1)) == "wait for your turn"
    _, stepped = said(state, "khon_thai rama korat")
    assert en(ENGINE.prompt(stepped, 0)) == "place the Lao follower of your Khon Thai"
    _, swapping = said(state, "one_vs_one rama korat")
    assert en(ENGINE.prompt(swapping, 0)) == "choose the follower your 1 vs 1 swaps with"
    _, taking = said(state, "rama korat sukhothai")
    assert en(ENGINE.prompt(taking, 0)) == "take a follower"
    over = finished(3, FACTION_RULE, [(1, 0, 0), (0, 0, 0), (0, 0, 0)])
    assert en(ENGINE.prompt(over, 0)) == "the game is over"


# -- questions ------------------------------------------------------------------------------
def walk(state: dict[str, Any], seat: int, target: dict[str, Any]) -> list[tuple[str, str]]:
    """Answer the questions as the guided form does; the (question text, label) pairs asked.

    Fails unless exactly ``target`` is left, every question asked is answered by all the
    moves still left, and every label is words.
    """
    remaining = ENGINE.legal_moves(state, seat)
    view = ENGINE.view(state, seat)
    asked = []
    for question in ENGINE.questions(state, seat):
        answers = [question.answer(move) for move in remaining]
        if len(set(answers)) <= 1:
            continue
        assert None not in answers, question.key
        for answer in set(answers):
            label = en(question.label(answer, view))
            assert label and not IDENTIFIER.search(label), (question.key, label)
        picked = question.answer(target)
        asked.append((en(question.text), en(question.label(picked, view))))
        remaining = [
            move for move, answer in zip(remaining, answers, strict=True) if answer == picked
        ]
    assert remaining == [target]
    return asked


def test_questions_take_a_follower_province_then_faction() -> None:
    _, state = said(korat_first(), "rama korat sukhothai")
    target = {"action": "take", "province": "korat", "faction": "lao"}
    assert walk(state, 0, target) == [
        ("Take a follower from which province?", "Korat"),
        ("Which follower do you take?", "a Lao follower"),
    ]


def test_questions_maharacha_king_first_then_the_other_tile_in_any_order() -> None:
    state = korat_first()
    moves = ENGINE.legal_moves(state, 0)
    swaps = [m for m in moves if m.get("card") == "maharacha"]
    kings = {(m["king"], next(p for p in m["swap"] if p != m["king"])) for m in swaps}
    assert ("sukhothai", "korat") in kings and ("korat", "sukhothai") in kings
    target = next(m for m in swaps if m["king"] == "sukhothai" and "korat" in m["swap"])
    assert walk(state, 0, target) == [
        ("Which card do you play?", "Maharacha"),
        ("Which tile gets the King marker?", "Sukhothai"),
        ("Swap it with which tile?", "Korat"),
    ]


def test_questions_two_vs_one_names_the_pair() -> None:
    state = korat_first()
    target = ENGINE.parse("two_vs_one rama lao korat", state)
    assert walk(state, 0, target) == [
        ("Which card do you play?", "2 vs 1"),
        ("Swap two followers from which province?", "Korat"),
        ("Which followers?", "a Rama follower and a Lao follower"),
    ]


def test_questions_faction_card_northern_province_first() -> None:
    state = korat_first()
    target = ENGINE.parse("rama sukhothai korat", state)
    assert walk(state, 0, target) == [
        ("Which card do you play?", "Rama"),
        ("Where does a Rama follower go? (The northern province first.)", "Sukhothai"),
        ("Where does the other Rama follower go?", "Korat"),
    ]


def random_states(players: int, seed: int) -> list[dict[str, Any]]:
    """Every state of one random game (passes 30% of the time where a pass is listed)."""
    chance = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    states = [state]
    while not ENGINE.result(state):
        seat = ENGINE.to_move(state)[0]
        moves = ENGINE.legal_moves(state, seat)
        plays = moves[1:] if moves[0] == {"action": "pass"} and chance.random() > 0.3 else moves
        state = ENGINE.apply(state, seat, chance.choice(plays or moves))
        states.append(state)
    return states


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 2), (4, 3), (3, 4)])
def test_random_games_every_listed_move_in_words(players: int, seed: int) -> None:
    names = NAMES[:players]
    for state in random_states(players, seed):
        if ENGINE.result(state):
            sentence = en(ENGINE.describe_result(ENGINE.result(state), names))
            assert not IDENTIFIER.search(sentence) and sentence.endswith("."), sentence
            assert not IDENTIFIER.search(ENGINE.result(state)["reason"])
            continue
        seat = ENGINE.to_move(state)[0]
        assert not IDENTIFIER.search(en(ENGINE.prompt(state, seat)))
        for move in ENGINE.legal_moves(state, seat):
            after = ENGINE.apply(state, seat, move)
            sentence = en(ENGINE.describe(state, after, seat, move, names))
            assert sentence.startswith(names[seat]) and sentence.endswith("."), sentence
            assert not IDENTIFIER.search(sentence), sentence
            assert sentence == public_sentence(state, after, seat, move, names)
            walk(state, seat, move)


def public_sentence(
    before: dict[str, Any], after: dict[str, Any], seat: int, move: dict[str, Any], names: list[str]
) -> str:
    """The sentence told from the public views and the public move only: no hidden parts."""
    public = ENGINE.public_move(before, after, seat, move)
    return en(
        ENGINE.describe(ENGINE.view(before, None), ENGINE.view(after, None), seat, public, names)
    )


def test_every_map_province_has_a_name_with_capitals() -> None:
    for data in MAPS.values():
        assert set(data["names"]) == set(data["provinces"])
        for name in data["names"].values():
            assert all(word[0].isupper() for word in name.split()), name
