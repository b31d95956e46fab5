"""King of Siam: every rule of the rulebook and every worked example, one test each.

Positions are built with ``from_position``; follower triples are (rama, lao,
malay), i.e. (yellow, red, blue). Map siam-1874 adjacency used below:
ayutthaya (Rama home) borders sukhothai, korat, chanthaburi and
nakhon-si-thammarat; luang-prabang (Lao home) borders chiang-mai, sukhothai
and korat; kedah (Malay home) borders only nakhon-si-thammarat.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engines.base import IllegalMove
from engines.king_of_siam import KingOfSiamEngine
from engines.king_of_siam.board import FACTIONS, MAPS, get_board
from engines.king_of_siam.cards import HAND

ENGINE = KingOfSiamEngine()
PROVINCES = MAPS["siam-1874"]["provinces"]


def make(
    players: int = 3,
    board: dict[str, tuple[int, int, int]] | None = None,
    control: dict[str, str] | None = None,
    hands: list[list[str]] | None = None,
    held: list[tuple[int, int, int]] | None = None,
    to_move: int | None = 0,
    marked: list[str] = (),
    **extra: Any,
) -> dict[str, Any]:
    """A state from a position: ``board`` followers, ``control`` (in history order), hands."""
    provinces: dict[str, Any] = {
        p: {"followers": dict(zip(FACTIONS, counts, strict=True))}
        for p, counts in (board or {}).items()
    }
    for province in marked:
        provinces.setdefault(province, {})["king_marker"] = True
    for province, owner in (control or {}).items():
        provinces.setdefault(province, {})["control"] = owner
    if control and "struggle_order" not in extra:
        extra["struggle_order"] = list(control) + [p for p in PROVINCES if p not in control]
    players_ = []
    for seat in range(players):
        entry: dict[str, Any] = {"hand": list(hands[seat]) if hands else list(HAND)}
        if held:
            entry["followers"] = dict(zip(FACTIONS, held[seat], strict=True))
        players_.append(entry)
    position = {"provinces": provinces, "players": players_, **extra}
    if to_move is not None:
        position["to_move"] = to_move
    return ENGINE.from_position(players, {}, 7, position)


def play(state: dict[str, Any], text: str) -> dict[str, Any]:
    """The state after the seat to move plays ``text``."""
    return ENGINE.apply(state, ENGINE.to_move(state)[0], ENGINE.parse(text, state))


def refused(state: dict[str, Any], text: str) -> IllegalMove:
    """The IllegalMove raised by ``text`` (the test fails if it is accepted)."""
    with pytest.raises(IllegalMove) as caught:
        play(state, text)
    return caught.value


def followers(state: dict[str, Any], province: str) -> tuple[int, ...]:
    return tuple(state["provinces"][province]["followers"][f] for f in FACTIONS)


def held(state: dict[str, Any], seat: int) -> tuple[int, ...]:
    return tuple(state["players"][seat]["followers"][f] for f in FACTIONS)


def total(state: dict[str, Any]) -> Counter[str]:
    counts: Counter[str] = Counter(state["pool"])
    for entry in state["provinces"].values():
        counts.update(entry["followers"])
    for player in state["players"]:
        counts.update(player["followers"])
    return counts


def test_engine_identity_and_options() -> None:
    assert (ENGINE.id, ENGINE.name) == ("king-of-siam", "King of Siam")
    assert (ENGINE.min_players, ENGINE.max_players) == (2, 4)
    assert ENGINE.default_options == {"map": "siam-1874"}
    assert ENGINE.options({}) == {"map": "siam-1874"}


# -- 3 Setting up the game --------------------------------------------------
@pytest.mark.parametrize("players, each", [(2, 16), (3, 18), (4, 18)])
def test_setup_two_players_remove_two_followers_of_each_colour(players: int, each: int) -> None:
    for seed in range(5):
        state = ENGINE.setup(players, {"map": "siam-1874"}, seed)
        assert total(state) == {faction: each for faction in FACTIONS}


def test_setup_every_player_receives_one_set_of_eight_action_cards() -> None:
    state = ENGINE.setup(4, {"map": "siam-1874"}, 3)
    for player in state["players"]:
        assert Counter(player["hand"]) == Counter(
            [
                "maharacha",
                "khon_thai",
                "khon_thai",
                "one_vs_one",
                "two_vs_one",
                "rama",
                "lao",
                "malay",
            ]
        )
        assert player["cards_left"] == 8 and player["top_card"] is None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_setup_players_receive_the_followers_of_their_playing_aid(players: int) -> None:
    shown = {1: (1, 1, 0), 2: (0, 1, 1), 3: (1, 0, 1)}
    for seed in range(10):
        state = ENGINE.setup(players, {"map": "siam-1874"}, seed)
        cards = [player["aid_card"] for player in state["players"]]
        assert len(set(cards)) == players
        assert set(cards) <= ({1, 2, 3, 4} if players == 4 else {1, 2, 3})
        for seat, card in enumerate(cards):
            if card == 4:
                card = cards[(seat + 1) % players]
            assert held(state, seat) == shown[card]


def test_setup_aid_card_4_is_used_in_the_four_player_game_only() -> None:
    for seed in range(10):
        assert 4 in [p["aid_card"] for p in ENGINE.setup(4, {}, seed)["players"]]
        assert 4 not in [p["aid_card"] for p in ENGINE.setup(3, {}, seed)["players"]]


def test_setup_four_followers_per_province_and_two_of_its_faction_at_home() -> None:
    homes = MAPS["siam-1874"]["homes"]
    for seed in range(10):
        state = ENGINE.setup(3, {}, seed)
        for province in PROVINCES:
            assert sum(followers(state, province)) == 4
        for faction, home in homes.items():
            assert state["provinces"][home]["followers"][faction] >= 2


def test_setup_followers_are_chosen_at_random_from_the_seed() -> None:
    layouts = {str(ENGINE.setup(3, {}, seed)["provinces"]) for seed in range(10)}
    assert len(layouts) > 5
    assert ENGINE.setup(3, {}, 11) == ENGINE.setup(3, {}, 11)


def test_setup_province_tiles_in_random_order_first_tile_contested() -> None:
    orders = set()
    for seed in range(10):
        state = ENGINE.setup(2, {}, seed)
        assert sorted(state["struggle_order"]) == sorted(PROVINCES)
        assert state["contested"] == state["struggle_order"][0]
        orders.add(tuple(state["struggle_order"]))
    assert len(orders) > 5


def test_setup_player_with_lowest_aid_card_starts() -> None:
    for players in (2, 3, 4):
        for seed in range(10):
            state = ENGINE.setup(players, {}, seed)
            cards = [player["aid_card"] for player in state["players"]]
            assert ENGINE.to_move(state) == [cards.index(min(cards))]


def test_setup_lowest_aid_card_starts_when_card_1_is_not_dealt() -> None:
    # Two players get two of the cards 1-3: without card 1, the holder of card 2 starts.
    without_one = [
        s for s in range(30) if 1 not in [p["aid_card"] for p in ENGINE.setup(2, {}, s)["players"]]
    ]
    assert without_one
    for seed in without_one:
        state = ENGINE.setup(2, {}, seed)
        assert ENGINE.to_move(state) == [[p["aid_card"] for p in state["players"]].index(2)]


def test_setup_four_players_sit_in_partnerships_opposite_each_other() -> None:
    assert [p["team"] for p in ENGINE.setup(4, {}, 1)["players"]] == [0, 1, 0, 1]
    assert [p["team"] for p in ENGINE.setup(3, {}, 1)["players"]] == [None] * 3


def test_setup_refuses_an_unknown_map_with_value_error() -> None:
    with pytest.raises(ValueError):
        ENGINE.setup(3, {"map": "king-of-saba"}, 1)
    with pytest.raises(ValueError):
        ENGINE.setup(3, {"board": "siam-1874"}, 1)


def test_map_borders_are_symmetric_and_connected() -> None:
    for name in MAPS:
        board = get_board(name)
        assert set(board.homes) == set(FACTIONS)
        assert set(board.homes.values()) <= set(board.provinces)
        for province, neighbours in board.adjacent.items():
            assert province not in neighbours
            assert all(province in board.adjacent[other] for other in neighbours)
        reached, frontier = set(), [board.provinces[0]]
        while frontier:
            province = frontier.pop()
            if province not in reached:
                reached.add(province)
                frontier += board.adjacent[province]
        assert reached == set(board.provinces)


def test_map_siam_1874_is_the_contract_map() -> None:
    board = get_board("siam-1874")
    assert board.homes == {"rama": "ayutthaya", "lao": "luang-prabang", "malay": "kedah"}
    assert sum(len(n) for n in board.adjacent.values()) == 2 * 11
    assert board.adjacent["korat"] == {"luang-prabang", "sukhothai", "ayutthaya", "chanthaburi"}
    assert board.adjacent["kedah"] == {"nakhon-si-thammarat"}


# -- 4 Course of the game ----------------------------------------------------
BOARD = {"korat": (2, 1, 0), "kedah": (0, 2, 1), "sukhothai": (1, 1, 1)}


def test_pass_table_example_charles_starts_the_next_struggle() -> None:
    # Alfred (seat 0), Benjamin (1), Charles (2); the contested tile is korat.
    state = make(board=BOARD, struggle_order=["korat", *[p for p in PROVINCES if p != "korat"]])
    state = play(state, "pass")  # 1. Alfred passes
    state = play(state, "pass")  # 1. Benjamin passes
    state = play(
        state, "malay nakhon-si-thammarat nakhon-si-thammarat; take lao kedah"
    )  # 1. Charles acts
    state = play(state, "pass")  # 2. Alfred passes
    state = play(state, "khon_thai rama kedah lao kedah malay kedah; take lao kedah")
    assert state["control_history"] == []
    state = play(state, "pass")  # 2. Charles passes
    state = play(state, "pass")  # 3. Alfred passes
    state = play(state, "pass")  # 3. Benjamin: finish
    assert state["control_history"] == [{"province": "korat", "control": "rama"}]
    assert state["contested"] != "korat"
    assert ENGINE.to_move(state) == [2]
    assert state["passes_in_a_row"] == 0


def test_a_player_who_passed_may_re_enter_later() -> None:
    state = play(play(make(board=BOARD), "pass"), "pass")
    state = play(state, "malay nakhon-si-thammarat nakhon-si-thammarat; take lao kedah")
    assert ENGINE.to_move(state) == [0]
    assert any(m["action"] == "play" for m in ENGINE.legal_moves(state, 0))
    state = play(state, "rama korat sukhothai; take rama korat")
    assert state["players"][0]["cards_left"] == 7


def test_a_player_may_pass_every_turn_even_holding_cards() -> None:
    state = make(board=BOARD)
    assert {"action": "pass"} in ENGINE.legal_moves(state, 0)
    for _ in range(3 * 8):
        if ENGINE.result(state):
            break
        state = play(state, "pass")
    assert ENGINE.result(state) is not None
    assert all(player["cards_left"] == 8 for player in state["players"])


def test_a_played_card_resets_the_passes_in_a_row() -> None:
    state = play(play(make(board=BOARD), "pass"), "pass")
    assert state["passes_in_a_row"] == 2
    state = play(state, "malay nakhon-si-thammarat nakhon-si-thammarat; take lao kedah")
    assert state["passes_in_a_row"] == 0
    state = play(play(state, "pass"), "pass")
    assert state["control_history"] == []


def test_player_without_action_cards_is_passed_automatically() -> None:
    state = make(board=BOARD, hands=[list(HAND), [], list(HAND)])
    state = play(state, "pass")
    assert state["auto_passed"] == [1]
    assert ENGINE.to_move(state) == [2]
    assert state["passes_in_a_row"] == 2
    assert ENGINE.legal_moves(state, 1) == []


def test_automatic_passes_decide_struggles_until_someone_can_play() -> None:
    order = ["korat", "kedah", "sukhothai", *[p for p in PROVINCES if p not in BOARD]]
    state = make(board=BOARD, hands=[["rama"], [], []], struggle_order=order)
    state = play(state, "pass")
    # Seats 1 and 2 pass automatically: korat is decided; seat 0 plays on.
    assert state["auto_passed"] == [1, 2]
    assert state["control_history"] == [{"province": "korat", "control": "rama"}]
    assert ENGINE.to_move(state) == [0]


def test_automatic_passes_end_the_game_when_nobody_holds_cards() -> None:
    state = make(board={p: (1, 0, 0) for p in PROVINCES}, hands=[["rama"], [], []])
    state = play(state, "rama korat sukhothai; take rama korat")
    assert ENGINE.result(state) is not None
    assert ENGINE.to_move(state) == []
    assert len(state["control_history"]) == 8
    assert set(state["auto_passed"]) == {0, 1, 2}


# -- 6 Completing a power struggle -------------------------------------------
def decide(state: dict[str, Any]) -> dict[str, Any]:
    """All players pass once."""
    for _ in state["players"]:
        state = play(state, "pass")
    return state


def test_struggle_faction_with_most_followers_gains_control() -> None:
    state = decide(
        make(
            board={"korat": (1, 3, 2)},
            struggle_order=["korat", *[p for p in PROVINCES if p != "korat"]],
        )
    )
    assert state["provinces"]["korat"]["control"] == "lao"


@pytest.mark.parametrize("counts", [(2, 2, 1), (3, 0, 3), (1, 1, 1), (0, 0, 0)])
def test_struggle_tie_between_factions_brings_the_british(counts: tuple[int, int, int]) -> None:
    order = ["korat", *[p for p in PROVINCES if p != "korat"]]
    state = decide(make(board={"korat": counts, "kedah": (1, 0, 0)}, struggle_order=order))
    assert state["provinces"]["korat"]["control"] == "british"
    assert state["control_history"][-1] == {"province": "korat", "control": "british"}


def test_struggle_followers_in_province_return_to_the_pool() -> None:
    order = ["korat", *[p for p in PROVINCES if p != "korat"]]
    before = make(board={"korat": (1, 3, 2)}, struggle_order=order)
    after = decide(before)
    assert followers(after, "korat") == (0, 0, 0)
    assert [after["pool"][f] - before["pool"][f] for f in FACTIONS] == [1, 3, 2]


def test_struggle_tile_turned_face_down_next_tile_contested() -> None:
    order = ["kedah", "korat", *[p for p in PROVINCES if p not in ("kedah", "korat")]]
    state = decide(make(board={"kedah": (0, 0, 2)}, struggle_order=order))
    assert state["contested"] == "korat"


# -- 5 Actions: Maharacha ---------------------------------------------------
ORDER = [
    "korat",
    "kedah",
    "sukhothai",
    "chiang-mai",
    "luang-prabang",
    "ayutthaya",
    "chanthaburi",
    "nakhon-si-thammarat",
]


def test_maharacha_swaps_two_face_up_tiles_and_puts_a_king_on_one() -> None:
    state = make(board=BOARD, struggle_order=ORDER)
    state = play(state, "maharacha swap kedah ayutthaya king ayutthaya; take rama korat")
    assert state["struggle_order"][1] == "ayutthaya"
    assert state["struggle_order"][5] == "kedah"
    assert state["provinces"]["ayutthaya"]["king_marker"]
    assert not state["provinces"]["kedah"]["king_marker"]


def test_maharacha_swapping_the_contested_tile_changes_the_contested_province() -> None:
    state = make(board=BOARD, struggle_order=ORDER)
    state = play(state, "maharacha swap korat chanthaburi king korat; take rama korat")
    assert state["contested"] == "chanthaburi"
    state = decide(state)
    assert state["control_history"][0]["province"] == "chanthaburi"


def test_maharacha_tile_already_marked_with_king_cannot_be_swapped() -> None:
    hands = [list(HAND), [c for c in HAND if c != "maharacha"], list(HAND)]
    state = make(board=BOARD, struggle_order=ORDER, hands=hands, marked=["kedah"])
    error = refused(state, "maharacha swap kedah ayutthaya king ayutthaya; take rama korat")
    assert error.rule == "maharacha" and "King" in error.message
    assert all("kedah" not in m.get("swap", []) for m in ENGINE.legal_moves(state, 0))


def test_maharacha_decided_face_down_tile_cannot_be_swapped() -> None:
    state = make(board=BOARD, control={"chanthaburi": "rama"})
    error = refused(state, "maharacha swap chanthaburi korat king korat; take rama korat")
    assert error.rule == "maharacha"


def test_maharacha_king_marker_goes_on_one_of_the_two_tiles() -> None:
    state = make(board=BOARD)
    error = refused(state, "maharacha swap korat kedah king sukhothai; take rama korat")
    assert error.rule == "maharacha"


def test_maharacha_without_two_swappable_tiles_is_executed_as_far_as_possible() -> None:
    control = {p: "rama" if i % 2 else "lao" for i, p in enumerate(PROVINCES[:7])}
    state = make(board={"kedah": (1, 0, 0)}, control=control)
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.get("card") == "maharacha"]
    assert moves == [{"action": "play", "card": "maharacha", "swap": [], "king": None}]
    assert ENGINE.legal_moves(play(state, "maharacha none"), 0) == [
        {"action": "take", "province": "kedah", "faction": "rama"}
    ]
    state = play(state, "maharacha none; take rama kedah")
    assert held(state, 0) == (1, 0, 0)


def test_maharacha_doing_nothing_while_a_swap_is_possible_is_refused() -> None:
    error = refused(make(board=BOARD), "maharacha none; take rama korat")
    assert error.rule == "as_far_as_possible"


# -- Khon Thai ----------------------------------------------------------------
def test_khon_thai_moves_one_follower_of_each_faction_from_the_pool() -> None:
    state = make(board=BOARD)
    after = play(state, "khon_thai rama kedah lao chanthaburi malay korat; take rama korat")
    assert followers(after, "kedah") == (1, 2, 1)
    assert followers(after, "chanthaburi") == (0, 1, 0)
    assert followers(after, "korat") == (1, 1, 1)
    assert [state["pool"][f] - after["pool"][f] for f in FACTIONS] == [1, 1, 1]


def test_khon_thai_followers_may_go_into_one_province() -> None:
    state = play(make(board=BOARD), "khon_thai rama kedah lao kedah malay kedah; take lao kedah")
    assert followers(state, "kedah") == (1, 2, 2)


def test_khon_thai_faction_without_followers_in_pool_is_not_moved() -> None:
    # 3 players: 18 Lao; 16 on the board and 2 held leave none in the pool.
    board = {"korat": (0, 8, 0), "kedah": (0, 8, 1)}
    state = make(board=board, held=[(0, 2, 0), (0, 0, 0), (0, 0, 0)])
    assert state["pool"]["lao"] == 0
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.get("card") == "khon_thai"]
    assert moves and all(set(m["place"]) == {"rama"} for m in moves)
    placing = play(state, "khon_thai rama kedah")
    assert {m["faction"] for m in ENGINE.legal_moves(placing, 0)} == {"malay"}
    assert refused(placing, "place lao kedah").rule == "khon_thai"
    error = refused(state, "khon_thai rama kedah lao kedah malay kedah; take lao kedah")
    assert error.rule == "khon_thai"
    state = play(state, "khon_thai rama korat malay korat; take lao kedah")
    assert followers(state, "korat") == (1, 8, 1)


def test_khon_thai_must_place_every_faction_still_in_the_pool() -> None:
    error = refused(make(board=BOARD), "khon_thai rama kedah lao kedah; take lao kedah")
    assert error.rule == "as_far_as_possible"
    assert "Malay follower" in error.message


def test_khon_thai_has_two_copies_per_set() -> None:
    state = make(board=BOARD, hands=[["khon_thai", "khon_thai", "rama"], [], list(HAND)])
    state = play(state, "khon_thai rama kedah lao kedah malay kedah; take lao kedah")
    state = play(state, "pass")
    state = play(state, "khon_thai rama korat lao korat malay korat; take lao korat")
    assert state["players"][0]["hand"] == ["rama"]


def test_no_follower_may_be_put_into_a_controlled_province() -> None:
    state = make(board=BOARD, control={"chanthaburi": "rama"})
    error = refused(state, "khon_thai rama chanthaburi lao kedah malay kedah; take lao kedah")
    assert error.rule == "controlled_province"
    assert refused(play(state, "khon_thai rama korat"), "place lao chanthaburi").rule == (
        "controlled_province"
    )
    for move in ENGINE.legal_moves(state, 0):
        if move.get("card") == "khon_thai":
            assert "chanthaburi" not in move["place"].values()
            placing = ENGINE.apply(state, 0, move)
            assert all(m["province"] != "chanthaburi" for m in ENGINE.legal_moves(placing, 0))


# -- 1 vs 1 -------------------------------------------------------------------
def test_one_vs_one_swaps_followers_of_two_provinces_not_adjacent() -> None:
    state = play(make(board=BOARD), "one_vs_one rama korat with malay kedah; take lao kedah")
    assert followers(state, "korat") == (1, 1, 1)
    assert followers(state, "kedah") == (1, 1, 0)


def test_one_vs_one_followers_of_the_same_colour_may_be_swapped() -> None:
    state = play(make(board=BOARD), "one_vs_one lao korat with lao kedah; take rama korat")
    assert followers(state, "korat") == (1, 1, 0)
    assert followers(state, "kedah") == (0, 2, 1)


def test_one_vs_one_needs_two_different_provinces() -> None:
    error = refused(make(board=BOARD), "one_vs_one rama korat with lao korat; take rama korat")
    assert error.rule == "one_vs_one"


def test_one_vs_one_needs_the_named_followers() -> None:
    error = refused(make(board=BOARD), "one_vs_one malay korat with lao kedah; take rama korat")
    assert error.message == "1 vs 1: Korat does not hold a Malay follower to swap."


def test_one_vs_one_right_after_one_vs_one_may_not_undo_it() -> None:
    state = play(make(board=BOARD), "one_vs_one rama korat with malay kedah; take lao kedah")
    # The undo moves the Rama back from kedah and the Malay back from korat.
    error = refused(state, "one_vs_one rama kedah with malay korat; take lao sukhothai")
    assert error.rule == "undo_swap"
    error = refused(state, "one_vs_one malay korat with rama kedah; take lao sukhothai")
    assert error.rule == "undo_swap"
    state = play(state, "one_vs_one lao korat with rama kedah; take lao sukhothai")
    assert followers(state, "kedah") == (0, 2, 0)


def test_one_vs_one_repeating_a_same_colour_swap_is_an_undo() -> None:
    state = play(make(board=BOARD), "one_vs_one lao korat with lao kedah; take rama korat")
    error = refused(state, "one_vs_one lao korat with lao kedah; take rama korat")
    assert error.rule == "undo_swap"


def test_one_vs_one_undo_is_allowed_when_another_card_came_between() -> None:
    state = play(make(board=BOARD), "one_vs_one rama korat with malay kedah; take lao kedah")
    state = play(state, "malay nakhon-si-thammarat nakhon-si-thammarat; take lao sukhothai")
    state = play(state, "one_vs_one rama kedah with malay korat; take lao korat")
    assert followers(state, "kedah")[0] == 0


def test_one_vs_one_undo_rule_holds_across_passes() -> None:
    state = play(make(board=BOARD), "one_vs_one rama korat with malay kedah; take lao kedah")
    state = play(state, "pass")
    error = refused(state, "one_vs_one rama kedah with malay korat; take lao sukhothai")
    assert error.rule == "undo_swap"


def test_one_vs_one_cannot_swap_with_a_controlled_province() -> None:
    state = make(board=BOARD, control={"chanthaburi": "lao"})
    error = refused(state, "one_vs_one rama korat with lao chanthaburi; take lao kedah")
    assert error.rule == "one_vs_one"


def test_one_vs_one_impossible_swap_does_nothing_but_the_take() -> None:
    state = make(board={"korat": (1, 1, 0)})
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.get("card") == "one_vs_one"]
    assert {m["give"] for m in moves} == {None}
    assert len(moves) == 1
    assert len(ENGINE.legal_moves(ENGINE.apply(state, 0, moves[0]), 0)) == 2
    state = play(state, "one_vs_one none; take lao korat")
    assert followers(state, "korat") == (1, 0, 0) and held(state, 0) == (0, 1, 0)


def test_one_vs_one_doing_nothing_while_a_swap_is_possible_is_refused() -> None:
    assert (
        refused(make(board=BOARD), "one_vs_one none; take lao kedah").rule == "as_far_as_possible"
    )


# -- 2 vs 1 -------------------------------------------------------------------
def test_two_vs_one_swaps_two_followers_with_one_of_an_adjacent_province() -> None:
    state = play(
        make(board=BOARD), "two_vs_one rama lao korat with malay sukhothai; take rama korat"
    )
    assert followers(state, "korat") == (0, 0, 1)
    assert followers(state, "sukhothai") == (2, 2, 0)


def test_two_vs_one_same_colour_followers_may_be_swapped() -> None:
    state = play(
        make(board=BOARD), "two_vs_one rama rama korat with rama sukhothai; take lao korat"
    )
    assert followers(state, "korat") == (1, 0, 0)
    assert followers(state, "sukhothai") == (2, 1, 1)


def test_two_vs_one_provinces_must_be_adjacent() -> None:
    error = refused(make(board=BOARD), "two_vs_one rama lao korat with malay kedah; take lao kedah")
    assert error.rule == "two_vs_one" and "adjacent" in error.message


def test_two_vs_one_needs_two_followers_in_the_first_province() -> None:
    error = refused(
        make(board=BOARD), "two_vs_one lao lao korat with malay sukhothai; take lao kedah"
    )
    assert error.rule == "two_vs_one"


def test_two_vs_one_right_after_two_vs_one_may_not_undo_it() -> None:
    state = play(
        make(board=BOARD), "two_vs_one rama lao korat with malay sukhothai; take lao kedah"
    )
    error = refused(state, "two_vs_one lao rama sukhothai with malay korat; take lao kedah")
    assert error.rule == "undo_swap"
    state = play(state, "two_vs_one rama lao sukhothai with rama korat; take lao kedah")
    assert followers(state, "korat") == (1, 1, 1)


def test_two_vs_one_impossible_swap_does_nothing_but_the_take() -> None:
    state = make(board={"korat": (1, 1, 0), "kedah": (0, 0, 1)})
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.get("card") == "two_vs_one"]
    assert {(m["two"], m["one"]) for m in moves} == {(None, None)}
    state = play(state, "two_vs_one none; take malay kedah")
    assert held(state, 0) == (0, 0, 1)


# "It is permitted to play an action card which is wholly or partly illegal to execute.
# In such a case, the action of the card is executed as far as legally possible."
LONE = {"korat": (1, 0, 0), "sukhothai": (0, 1, 0), "kedah": (0, 0, 1)}


def test_two_vs_one_executed_as_far_as_legally_possible_swaps_one_for_one() -> None:
    # No province holds two followers: swapping one follower with one of an adjacent
    # province is the fullest legal execution (korat and sukhothai are adjacent;
    # kedah's only neighbour is empty).
    state = make(board=LONE)
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.get("card") == "two_vs_one"]
    two = {"province": "sukhothai", "factions": ["lao"]}
    assert moves == [{"action": "play", "card": "two_vs_one", "two": two}]
    assert ENGINE.legal_moves(ENGINE.apply(state, 0, moves[0]), 0) == [
        {"action": "swap", "province": "korat", "faction": "rama"}
    ]
    after = play(state, "two_vs_one rama korat with lao sukhothai; take malay kedah")
    assert followers(after, "korat") == (0, 1, 0) and followers(after, "sukhothai") == (1, 0, 0)
    assert after == play(state, "two_vs_one lao sukhothai with rama korat; take malay kedah")
    error = refused(state, "two_vs_one none; take malay kedah")
    assert error.rule == "as_far_as_possible" and "adjacent" in error.message


def test_two_vs_one_one_for_one_is_refused_while_two_followers_can_be_swapped() -> None:
    error = refused(make(board=BOARD), "two_vs_one rama korat with malay sukhothai; take lao kedah")
    assert error.rule == "as_far_as_possible" and "may not swap only one" in error.message


def test_two_vs_one_one_for_one_may_not_undo_the_previous_one_for_one() -> None:
    state = play(
        make(board={**LONE, "chiang-mai": (0, 1, 0)}),
        "two_vs_one rama korat with lao sukhothai; take malay kedah",
    )
    error = refused(state, "two_vs_one lao korat with rama sukhothai; take lao chiang-mai")
    assert error.rule == "undo_swap"
    state = play(state, "two_vs_one rama sukhothai with lao chiang-mai; take lao korat")
    assert followers(state, "chiang-mai") == (1, 0, 0)


# -- Rama, Lao, Malay ----------------------------------------------------------
def test_rama_puts_two_followers_adjacent_to_the_rama_home_province() -> None:
    state = make(board=BOARD)
    targets = {
        p for m in ENGINE.legal_moves(state, 0) if m.get("card") == "rama" for p in m["place"]
    }
    assert targets == {"sukhothai", "korat", "chanthaburi", "nakhon-si-thammarat"}
    after = play(state, "rama chanthaburi nakhon-si-thammarat; take rama korat")
    assert followers(after, "chanthaburi") == (1, 0, 0)
    assert after["pool"]["rama"] == state["pool"]["rama"] - 2


def test_rama_both_followers_may_go_into_one_province() -> None:
    state = play(make(board=BOARD), "rama korat korat; take lao korat")
    assert followers(state, "korat") == (4, 0, 0)


def test_rama_not_adjacent_to_home_or_rama_province_is_refused() -> None:
    # "He can only choose provinces which are adjacent to an already controlled Rama
    # province or which are adjacent to the Rama home province": the refusal says so.
    error = refused(make(board=BOARD), "rama kedah korat; take lao korat")
    assert error.rule == "faction_card"
    assert "adjacent to a province its faction controls or to its home province (Ayutthaya)" in (
        error.message
    )
    assert "Kedah is adjacent to neither" in error.message


def test_rama_adjacent_to_an_already_controlled_rama_province() -> None:
    state = make(board=BOARD, control={"luang-prabang": "rama"})
    targets = {
        p for m in ENGINE.legal_moves(state, 0) if m.get("card") == "rama" for p in m["place"]
    }
    assert "chiang-mai" in targets
    play(state, "rama chiang-mai korat; take lao korat")


def test_rama_home_controlled_by_another_faction_or_british_is_no_base() -> None:
    for owner, ruler in (("lao", "the Lao"), ("british", "the British")):
        state = make(board=BOARD, control={"ayutthaya": owner})
        targets = {
            p for m in ENGINE.legal_moves(state, 0) if m.get("card") == "rama" for p in m["place"]
        }
        assert targets == set()
        error = refused(state, "rama korat korat; take lao korat")
        assert error.rule == "faction_card"
        assert f"Korat borders Ayutthaya, but {ruler} control it" in error.message
        play(state, "rama none; take lao korat")


def test_rama_home_controlled_by_rama_still_serves_as_base() -> None:
    state = make(board=BOARD, control={"ayutthaya": "rama"})
    targets = {
        p for m in ENGINE.legal_moves(state, 0) if m.get("card") == "rama" for p in m["place"]
    }
    assert targets == {"sukhothai", "korat", "chanthaburi", "nakhon-si-thammarat"}


def test_rama_cannot_put_followers_into_a_controlled_province() -> None:
    state = make(board={"kedah": (0, 2, 1), "sukhothai": (1, 1, 1)}, control={"korat": "lao"})
    assert refused(state, "rama korat sukhothai; take lao kedah").rule == "controlled_province"


def test_rama_with_one_follower_in_the_pool_places_one() -> None:
    # 18 Rama: 17 on the board leaves 1 in the pool.
    state = make(board={"chiang-mai": (9, 0, 0), "kedah": (8, 0, 0)})
    assert state["pool"]["rama"] == 1
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.get("card") == "rama"]
    assert {len(m["place"]) for m in moves} == {1}
    assert refused(state, "rama korat korat; take rama kedah").rule == "faction_card"
    state = play(state, "rama korat; take rama kedah")
    assert followers(state, "korat") == (1, 0, 0) and state["pool"]["rama"] == 0


def test_rama_placing_fewer_followers_than_possible_is_refused() -> None:
    error = refused(make(board=BOARD), "rama korat; take lao korat")
    assert error.rule == "as_far_as_possible"


def test_rama_with_empty_pool_does_nothing_but_the_take() -> None:
    state = make(board={"chiang-mai": (9, 0, 0), "kedah": (9, 0, 0)})
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.get("card") == "rama"]
    assert {tuple(m["place"]) for m in moves} == {()}
    state = play(state, "rama none; take rama kedah")
    assert held(state, 0) == (1, 0, 0)


def test_lao_and_malay_cards_work_from_their_own_home_provinces() -> None:
    state = make(board=BOARD)
    lao = {p for m in ENGINE.legal_moves(state, 0) if m.get("card") == "lao" for p in m["place"]}
    malay = {
        p for m in ENGINE.legal_moves(state, 0) if m.get("card") == "malay" for p in m["place"]
    }
    assert lao == {"chiang-mai", "sukhothai", "korat"}
    assert malay == {"nakhon-si-thammarat"}
    state = play(state, "malay nakhon-si-thammarat nakhon-si-thammarat; take lao kedah")
    assert followers(state, "nakhon-si-thammarat") == (0, 0, 2)


# -- The take -------------------------------------------------------------------
def test_take_one_follower_from_any_province_after_the_action() -> None:
    state = play(make(board=BOARD), "rama korat korat; take rama korat")
    assert followers(state, "korat") == (3, 1, 0)
    assert held(state, 0) == (1, 0, 0)


def test_take_may_take_a_follower_the_action_just_placed() -> None:
    state = play(make(board=BOARD), "rama chanthaburi chanthaburi; take rama chanthaburi")
    assert followers(state, "chanthaburi") == (1, 0, 0)


def test_take_is_mandatory_even_when_the_action_did_nothing() -> None:
    state = make(board={"korat": (1, 1, 0)})
    error = refused(state, "one_vs_one none; take none")
    assert error.rule == "take"


def test_take_must_name_a_follower_that_is_there() -> None:
    assert refused(make(board=BOARD), "rama korat korat; take malay korat").rule == "take"


def test_take_is_null_only_when_no_province_holds_a_follower() -> None:
    state = make(board={})
    moves = [m for m in ENGINE.legal_moves(state, 0) if m.get("card") == "one_vs_one"]
    assert moves == [{"action": "play", "card": "one_vs_one", "give": None, "get": None}]
    alone = ENGINE.apply(state, 0, moves[0])
    assert alone["pending"] is None and ENGINE.to_move(alone) == [1]
    assert play(state, "one_vs_one none; take none") == alone


# -- Played cards ---------------------------------------------------------------
def test_played_action_cards_are_never_returned_to_the_player() -> None:
    state = play(make(board=BOARD), "maharacha swap korat kedah king kedah; take rama korat")
    player = state["players"][0]
    assert "maharacha" not in player["hand"] and player["cards_left"] == 7
    assert player["top_card"] == "maharacha"
    state = play(play(state, "pass"), "pass")
    error = refused(state, "maharacha swap sukhothai chiang-mai king sukhothai; take rama korat")
    assert error.rule == "hand"


# -- The last card ---------------------------------------------------------------
LAST_CONTROL = {
    "chiang-mai": "rama",
    "luang-prabang": "lao",
    "sukhothai": "rama",
    "chanthaburi": "lao",
    "kedah": "malay",
    "nakhon-si-thammarat": "british",
    "ayutthaya": "rama",
}


def last_card_position(players: int = 3, holder: int = 0) -> dict[str, Any]:
    """All cards played but the holder's Lao card; only korat (Rama 2) is still open."""
    hands = [[] for _ in range(players)]
    hands[holder] = ["lao"]
    held = [(0, 5, 0), (5, 0, 0), (0, 0, 3), (0, 0, 0)][:players]
    return make(
        players=players,
        board={"korat": (2, 0, 0)},
        control=LAST_CONTROL,
        hands=hands,
        held=held,
        to_move=holder,
    )


def test_last_card_example_may_be_played_only_if_it_wins() -> None:
    # Passing: korat goes to Rama (4 provinces) and Benjamin (5 Rama) wins.
    state = last_card_position()
    plays = [m for m in ENGINE.legal_moves(state, 0) if m["action"] == "play"]
    # Lao twice into korat ties 2-2; only taking a Rama gives Lao korat, and Lao
    # (3 provinces, the latest) rules with Alfred's 5 Lao followers.
    assert plays == [{"action": "play", "card": "lao", "place": ["korat", "korat"]}]
    played = play(state, "lao korat korat")
    assert ENGINE.legal_moves(played, 0) == [
        {"action": "take", "province": "korat", "faction": "rama"}
    ]
    assert refused(played, "take lao korat").rule == "last_card"
    assert refused(state, "lao korat korat; take lao korat").rule == "last_card"
    after = play(state, "lao korat korat; take rama korat")
    assert ENGINE.result(after)["winners"] == [0]
    assert ENGINE.result(after)["ruling"] == "lao"


def test_last_card_holder_who_cannot_win_passes_and_the_game_ends() -> None:
    state = last_card_position()
    after = play(state, "pass")
    assert ENGINE.result(after)["winners"] == [1]
    assert ENGINE.result(after)["ruling"] == "rama"


def test_last_card_that_can_never_win_is_passed_automatically() -> None:
    hands = [["malay"], [], []]
    state = make(
        board={"korat": (2, 0, 0)},
        control=LAST_CONTROL,
        hands=hands,
        held=[(0, 0, 1), (5, 0, 0), (0, 0, 3)],
        to_move=0,
    )
    assert ENGINE.result(state) is not None
    assert state["auto_passed"] == [0, 1, 2]
    assert ENGINE.result(state)["winners"] == [1]


def test_last_card_may_be_played_when_it_wins_for_the_partner() -> None:
    # Four players: seat 2 holds the last card; its partner seat 0 holds the Lao.
    state = last_card_position(players=4, holder=2)
    moves = ENGINE.legal_moves(state, 2)
    assert {"action": "pass"} in moves and len(moves) == 2
    after = play(state, "lao korat korat; take rama korat")
    assert ENGINE.result(after)["winners"] == [0, 2]


# -- 7 Winning the game ------------------------------------------------------------
def finished(
    players: int,
    control: dict[str, str],
    held: list[tuple[int, int, int]],
    card_recency: list[int] | None = None,
) -> dict[str, Any]:
    """A finished game: ``control`` in the order the struggles were decided."""
    hands = [
        list(HAND) if card_recency is not None and seat not in card_recency else []
        for seat in range(players)
    ]
    extra = {"card_recency": card_recency} if card_recency is not None else {}
    return make(players=players, control=control, held=held, hands=hands, to_move=None, **extra)


COLONY = {
    "korat": "british",
    "kedah": "rama",
    "sukhothai": "british",
    "chiang-mai": "british",
    "luang-prabang": "lao",
    "ayutthaya": "british",
}


def test_game_ends_immediately_when_the_british_control_four_provinces_example() -> None:
    control = dict(list(COLONY.items())[:-1])
    order = [*control, "ayutthaya", "chanthaburi", "nakhon-si-thammarat"]
    state = make(
        board={"ayutthaya": (1, 1, 0), "kedah": (0, 0, 0)},
        control=control,
        struggle_order=order,
        held=[(1, 1, 1), (0, 0, 0), (0, 0, 0)],
    )
    state = decide(state)
    assert ENGINE.to_move(state) == []
    assert ENGINE.result(state)["ruling"] == "british"
    assert state["contested"] == "chanthaburi"
    assert len(state["control_history"]) == 6
    with pytest.raises(IllegalMove):
        ENGINE.apply(state, 0, {"action": "pass"})


def test_british_colony_example_charles_with_two_sets_wins() -> None:
    state = finished(3, COLONY, [(1, 1, 1), (3, 1, 2), (2, 2, 2)])
    result = ENGINE.result(state)
    assert result["winners"] == [2]
    assert result["ruling"] == "british"
    assert result["scores"] == {"0": 1, "1": 1, "2": 2}


def test_british_colony_tie_won_by_the_tied_player_who_played_last() -> None:
    held = [(2, 2, 2), (2, 3, 2), (1, 1, 1)]
    assert ENGINE.result(finished(3, COLONY, held, [1, 2, 0]))["winners"] == [0]
    assert ENGINE.result(finished(3, COLONY, held, [0, 2, 1]))["winners"] == [1]


def test_four_player_colony_example_benjamin_and_bertha_win_with_four_sets() -> None:
    # Alfred (0) and Alice (2): 7 blue, 3 red, 6 yellow = 3 sets; Benjamin (1) and
    # Bertha (3): 4 sets, although no single player holds more than 2 sets.
    held = [(3, 1, 4), (2, 2, 2), (3, 2, 3), (2, 2, 3)]
    result = ENGINE.result(finished(4, COLONY, held))
    assert result["winners"] == [1, 3]
    assert result["scores"] == {"0": 3, "1": 4, "2": 3, "3": 4}


def test_four_player_colony_tie_won_by_the_team_that_played_a_card_last() -> None:
    held = [(2, 2, 2), (2, 2, 2), (1, 1, 1), (1, 1, 1)]
    assert ENGINE.result(finished(4, COLONY, held, [1, 0, 3, 2]))["winners"] == [0, 2]
    assert ENGINE.result(finished(4, COLONY, held, [0, 2, 1, 3]))["winners"] == [1, 3]


FACTION_RULE = {
    "korat": "rama",
    "kedah": "malay",
    "sukhothai": "lao",
    "chiang-mai": "rama",
    "luang-prabang": "lao",
    "ayutthaya": "rama",
    "chanthaburi": "british",
    "nakhon-si-thammarat": "malay",
}

#: The rulebook's tie example: the Lao rule with three provinces, the Rama hold two.
LAO_TIE = {
    "korat": "lao",
    "kedah": "rama",
    "sukhothai": "lao",
    "chiang-mai": "rama",
    "luang-prabang": "lao",
    "ayutthaya": "malay",
    "chanthaburi": "british",
    "nakhon-si-thammarat": "british",
}
#: The same with the Rama gaining a third province last: a tie on provinces.
PROVINCE_TIE = {**LAO_TIE, "nakhon-si-thammarat": "rama"}


def test_the_faction_controlling_the_most_provinces_reigns() -> None:
    result = ENGINE.result(finished(3, FACTION_RULE, [(1, 5, 5), (2, 0, 0), (0, 1, 1)]))
    assert result["ruling"] == "rama"
    assert result["faction_ranking"][0] == "rama"
    assert result["winners"] == [1]
    assert result["provinces"] == {"rama": 3, "lao": 2, "malay": 2, "british": 1}


def test_tie_on_provinces_example_rama_gained_control_last_and_reigns() -> None:
    # Lao and Rama both hold three provinces; Rama took the last one.
    result = ENGINE.result(finished(3, PROVINCE_TIE, [(1, 0, 0), (0, 3, 0), (0, 0, 0)]))
    assert result["ruling"] == "rama"
    assert result["faction_ranking"] == ["rama", "lao", "malay"]
    assert result["winners"] == [0]


def test_lao_tie_example_alfred_wins_with_more_followers_of_second_ranked_rama() -> None:
    held = [(2, 4, 0), (1, 4, 3), (0, 1, 5)]
    result = ENGINE.result(finished(3, LAO_TIE, held))
    assert result["ruling"] == "lao" and result["faction_ranking"][1] == "rama"
    assert result["winners"] == [0]


def test_still_tied_player_who_played_an_action_card_last_loses() -> None:
    held = [(3, 1, 0), (3, 1, 0), (0, 0, 0)]
    assert ENGINE.result(finished(3, FACTION_RULE, held, [1, 0]))["winners"] == [1]
    assert ENGINE.result(finished(3, FACTION_RULE, held, [0, 1]))["winners"] == [0]
    # Three still tied: applied until one is left, the oldest last card wins.
    held = [(3, 1, 0), (3, 1, 0), (3, 1, 0)]
    assert ENGINE.result(finished(3, FACTION_RULE, held, [2, 0, 1]))["winners"] == [2]


def test_tie_no_rule_breaks_is_a_shared_win() -> None:
    held = [(3, 1, 0), (3, 1, 0), (0, 0, 0)]
    result = ENGINE.result(finished(3, FACTION_RULE, held, [2]))
    assert result["winners"] == [0, 1]


def test_four_player_rama_example_benjamin_wins_and_bertha_with_him() -> None:
    # Alfred 4 yellow, Alice 3, Benjamin 5, Bertha 1.
    held = [(4, 0, 0), (5, 0, 0), (3, 0, 0), (1, 0, 0)]
    result = ENGINE.result(finished(4, FACTION_RULE, held))
    assert result["ruling"] == "rama"
    assert result["winners"] == [1, 3]
    assert result["ranking"][0] == 1


def test_second_ranked_faction_is_skipped_when_undecidable() -> None:
    control = {p: "rama" for p in PROVINCES[:5]}
    control |= {p: "british" for p in PROVINCES[5:]}
    held = [(2, 3, 0), (2, 0, 3), (0, 0, 0)]
    result = ENGINE.result(finished(3, control, held, [0, 1]))
    assert result["ruling"] == "rama"
    assert result["winners"] == [0]


def test_no_moves_and_no_turn_once_the_game_is_over() -> None:
    state = finished(3, FACTION_RULE, [(1, 0, 0), (0, 0, 0), (0, 0, 0)])
    assert ENGINE.to_move(state) == []
    assert all(ENGINE.legal_moves(state, seat) == [] for seat in range(3))
    running = make(board=BOARD)
    assert ENGINE.result(running) is None
    move = ENGINE.parse("rama korat korat; take lao korat")
    assert ENGINE.public_move(running, ENGINE.apply(running, 0, move), 0, move) == move
