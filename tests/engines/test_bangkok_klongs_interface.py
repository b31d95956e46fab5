"""Bangkok Klongs: hidden information in views, notation, positions, schemas, robustness."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.bangkok_klongs.board import BOARDS
from engines.base import IllegalMove, InvalidPosition, NotationError
from schemas.bangkok_klongs import MOVE_SCHEMAS
from tests.engines.test_bangkok_klongs_helpers import (
    ENGINE,
    hand,
    listed_outcome,
    make,
    options,
    plain,
    play,
)

LAYOUT = BOARDS["standard"]


# -- hidden information ----------------------------------------------------------------------


def test_view_of_a_seat_shows_its_own_hand_and_no_other() -> None:
    state = ENGINE.setup(3, options(), 21)
    hands = [state["players"][s]["hand"] for s in range(3)]
    for seat in range(3):
        view = ENGINE.view(state, seat)
        text = json.dumps(view)
        assert view["hand"] == hands[seat]
        for other in set(range(3)) - {seat}:
            assert not any(f'"{t}"' in text for t in hands[other])
        assert set(view["tiles"]) == set(hands[seat])


def test_public_view_shows_no_hand_and_no_draw_order() -> None:
    state = ENGINE.setup(2, options(), 4)
    view = ENGINE.view(state, None)
    text = json.dumps(view)
    assert "hand" not in view and view["tiles"] == {}
    assert view["draw_pile"] == 64
    assert not any(f'"{t}"' in text for t in state["draw_pile"])
    assert "rng" not in view and "seed" not in text
    assert [p["hand_size"] for p in view["players"]] == [4, 4]


def test_view_has_the_contract_state_shape() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 0)}, hands=[[plain("shrimp", 1)], []])
    view = ENGINE.view(state, 0)
    assert {"board", "tiles", "luk_phat", "market", "players", "draw_pile", "hand"} <= set(view)
    assert view["board"] == {"r7c3": {"tile": plain("fish", 1), "merchant": 0}}
    assert view["tiles"][plain("fish", 1)] == {
        "good": "fish",
        "baskets": 1,
        "neutral": False,
        "luk_phat": False,
        "special": None,
    }
    assert set(view["players"][0]) == {
        "seat",
        "score",
        "merchants",
        "move_cards",
        "inventory",
        "hand_size",
    }
    assert view["players"][0]["merchants"] == 16


def test_stolen_boat_kept_in_hand_disappears_from_the_other_views() -> None:
    board = {"r3c0": (plain("shrimp", 1), 1), "r3c2": (plain("avocado", 2), 0)}
    state = make(2, board=board, hands=[["t63", plain("fish", 1)], [plain("fish", 2)]])
    after = play(state, 0, "place t63 r3c1 none steal r3c0 keep hand")
    assert plain("shrimp", 1) in hand(after, 0)
    for viewer in (None, 1):
        assert plain("shrimp", 1) not in ENGINE.view(after, viewer)["tiles"]


def test_a_boat_everybody_saw_go_into_a_hand_stays_there_when_a_search_redraws() -> None:
    board = {"r3c0": (plain("shrimp", 1), 1), "r3c2": (plain("avocado", 2), 0)}
    state = make(2, board=board, hands=[["t63", plain("fish", 1)], [plain("fish", 2)]])
    after = play(state, 0, "place t63 r3c1 none steal r3c0 keep hand")
    assert after["revealed"] == {plain("shrimp", 1): 0}
    hands = [ENGINE.determinize(after, 1, random.Random(salt)) for salt in range(20)]
    assert all(plain("shrimp", 1) in redrawn["players"][0]["hand"] for redrawn in hands)
    assert len({tuple(redrawn["players"][0]["hand"]) for redrawn in hands}) > 1
    swapped = json.loads(json.dumps(after))
    theirs, pile = swapped["players"][0]["hand"], swapped["draw_pile"]
    theirs[theirs.index(plain("shrimp", 1))], pile[0] = pile[0], plain("shrimp", 1)
    assert ENGINE.information_key(swapped, 1) != ENGINE.information_key(after, 1)
    placed = play(after, 1, f"place {plain('fish', 2)} r4c2 new")
    placed = play(placed, 0, f"place {plain('shrimp', 1)} r2c2 new")
    assert placed["revealed"] == {}


def test_a_search_redraws_tactical_hands_from_the_pile_each_boat_came_from() -> None:
    state = ENGINE.setup(3, options(tactical=True), 5)
    merchant_boats = [
        [is_merchant_pile(t) for t in state["players"][seat]["hand"]].count(True)
        for seat in range(3)
    ]
    for salt in range(10):
        redrawn = ENGINE.determinize(state, 0, random.Random(salt))
        assert redrawn["players"][0]["hand"] == state["players"][0]["hand"]
        assert [
            [is_merchant_pile(t) for t in redrawn["players"][seat]["hand"]].count(True)
            for seat in range(3)
        ] == merchant_boats


def is_merchant_pile(tile_id: str) -> bool:
    """Neutral and special boats form the tactical variant's merchant pile."""
    described = LAYOUT.tiles[tile_id]
    return described["neutral"] or described["special"] is not None


def test_public_move_shows_that_boats_were_drawn_not_which() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 0)}, hands=[[plain("shrimp", 1)], []])
    move = ENGINE.parse(f"place {plain('shrimp', 1)} r7c4 new")
    after = ENGINE.apply(state, 0, move)
    drawn = set(hand(after, 0))
    public = ENGINE.public_move(state, after, 0, move)
    assert public == {**move, "drew": len(drawn)} and len(drawn) == 4
    assert not drawn & set(json.dumps(public).split('"'))


def test_state_survives_a_json_round_trip_and_is_deterministic() -> None:
    first = ENGINE.setup(4, options(tactical=True), 77)
    second = ENGINE.setup(4, options(tactical=True), 77)
    for _ in range(12):
        (seat,) = ENGINE.to_move(first)
        move = ENGINE.legal_moves(first, seat)[0]
        first, second = ENGINE.apply(first, seat, move), ENGINE.apply(second, seat, move)
        assert json.loads(json.dumps(first)) == first
        assert json.dumps(first) == json.dumps(second)


# -- notation --------------------------------------------------------------------------------

EXAMPLES = {
    "place t50 r3c4 new": {"action": "place", "tile": "t50", "at": "r3c4", "merchant": "new"},
    "place t20 r3c6 r7c2": {"action": "place", "tile": "t20", "at": "r3c6", "merchant": "r7c2"},
    "place t50 r3c4 none relocate r2c2 r2c3 before": {
        "action": "place",
        "tile": "t50",
        "at": "r3c4",
        "merchant": "none",
        "relocate": {"from": "r2c2", "to": "r2c3", "when": "before"},
    },
    "place t63 r3c4 none steal r3c7 keep hand": {
        "action": "place",
        "tile": "t63",
        "at": "r3c4",
        "merchant": "none",
        "steal": "r3c7",
        "keep": "hand",
    },
    "place t66 r1c5 none remove-thieves keep r4c5": {
        "action": "place",
        "tile": "t66",
        "at": "r1c5",
        "merchant": "none",
        "remove_thieves": True,
        "keep": "r4c5",
    },
    "place t12 r4c4 new draw plain": {
        "action": "place",
        "tile": "t12",
        "at": "r4c4",
        "merchant": "new",
        "draw": "plain",
    },
    "place t50 r3c4 new relocate after": {
        "action": "place",
        "tile": "t50",
        "at": "r3c4",
        "merchant": "new",
        "relocate": {"when": "after"},
    },
    "relocate r2c2 r2c3": {"action": "relocate", "from": "r2c2", "to": "r2c3"},
    "relocate r3c4 r2c4 draw merchant": {
        "action": "relocate",
        "from": "r3c4",
        "to": "r2c4",
        "draw": "merchant",
    },
    "finish": {"action": "finish"},
    "finish draw plain": {"action": "finish", "draw": "plain"},
    "score L4-5 remove r3c4": {"action": "score", "landing": "L4-5", "remove": "r3c4"},
    "decline": {"action": "decline"},
}


@pytest.mark.parametrize(("text", "move"), list(EXAMPLES.items()))
def test_notation_examples_format_and_parse(text: str, move: dict[str, Any]) -> None:
    assert ENGINE.format(move) == text
    assert ENGINE.parse(text) == move


def test_notation_is_case_insensitive_and_clauses_come_in_any_order() -> None:
    assert ENGINE.parse("SCORE l4-5 REMOVE R3C4") == EXAMPLES["score L4-5 remove r3c4"]
    assert (
        ENGINE.parse("place t63 r3c4 none  keep hand steal r3c7")
        == EXAMPLES["place t63 r3c4 none steal r3c7 keep hand"]
    )


@pytest.mark.parametrize(
    "text",
    [
        "",
        "fly t50",
        "place t50",
        "place t50 r3c4 maybe",
        "place x50 r3c4 new",
        "place t50 k1 new",
        "place t50 a9 new",
        "place t50 r3c4 new relocate r1c1",
        "place t50 r3c4 new relocate r1c1 r1c2 during",
        "place t50 r3c4 new draw twice",
        "place t50 r3c4 new draw plain draw plain",
        "place t63 r3c4 none keep pocket",
        "place t50 r3c4 new relocate before",
        "relocate r2c2",
        "relocate r2c2 r2c3 after",
        "relocate r2c2 r2c3 draw",
        "finish now",
        "finish draw top",
        "score L4-5 r3c4",
        "score 45 remove r3c4",
        "decline now",
    ],
)
def test_notation_rejects_what_is_not_a_move(text: str) -> None:
    with pytest.raises(NotationError):
        ENGINE.parse(text)


# -- positions -----------------------------------------------------------------------------------


def test_position_keeps_every_tile_the_draw_pile_defaults_to_the_rest() -> None:
    state = make(3, board={"r7c3": (plain("fish", 1), 0)}, hands=[[plain("shrimp", 1)], [], []])
    view = ENGINE.view(state, None)
    assert view["draw_pile"] == 72 - 2
    assert view["players"][0]["merchants"] == 12 - 1


def position(**changes: Any) -> dict[str, Any]:
    """A valid two-player position, changed."""
    base = {
        "board": {"r7c3": {"tile": "t2", "merchant": 0}},
        "players": [{"hand": ["t3"]}, {"hand": ["t4"]}],
        "to_move": 0,
    }
    base.update(changes)
    return base


BAD_POSITIONS = {
    "not an object": [],
    "unknown key": position(weather="rain"),
    "unknown field": position(board={"r8c0": {"tile": "t2", "merchant": 0}}),
    "unknown tile": position(board={"r7c3": {"tile": "t72", "merchant": 0}}),
    "bad cell": position(board={"r7c3": "t2"}),
    "merchant on a neutral boat": position(board={"r7c3": {"tile": "t1", "merchant": 0}}),
    "merchant of no seat": position(board={"r7c3": {"tile": "t2", "merchant": 5}}),
    "tile twice": position(players=[{"hand": ["t2"]}, {"hand": ["t4"]}]),
    "tiles not conserved": position(draw_pile=["t5", "t6"]),
    "merchants not conserved": position(players=[{"merchants": 17}, {}]),
    "hand of five": position(players=[{"hand": ["t5", "t6", "t7", "t8", "t9"]}, {}]),
    "wrong player count": position(players=[{}]),
    "wrong seat": position(players=[{"seat": 1}, {}]),
    "bad move cards": position(players=[{"move_cards": 3}, {}]),
    "to_move out of range": position(to_move=2),
    "to_move a bool": position(to_move=True),
    "hand at the top level": position(hand=["t3"]),
    "four boats in a sub-market": position(
        board={
            f: {"tile": t, "merchant": None}
            for f, t in zip(("r2c4", "r2c5", "r3c4", "r3c5"), ("t0", "t2", "t3", "t5"), strict=True)
        }
    ),
    "last Luk Phat space without market": position(luk_phat=12),
    "small market off its space": position(market={"kind": "small", "trigger": 0}, luk_phat=5),
    "unknown market kind": position(market={"kind": "huge", "trigger": 0}),
    "market seat not to move": position(market={"kind": "big", "trigger": 0, "seat": 1}),
    "other options": position(options={"tactical": True, "board": "standard"}),
    "wrong tile description": position(tiles={"t2": {"good": "gold"}}),
}


@pytest.mark.parametrize("name", list(BAD_POSITIONS))
def test_position_inconsistent_is_refused(name: str) -> None:
    with pytest.raises(InvalidPosition):
        ENGINE.from_position(2, options(), 1, BAD_POSITIONS[name])


def test_position_with_a_list_for_a_tile_id_is_refused_issue_11() -> None:
    # Issue 11 item 5: this exact board raised TypeError (a 500) instead of invalid_position.
    bad = position(board={"r7c3": {"tile": ["t1"], "merchant": None}})
    with pytest.raises(InvalidPosition) as refused:
        ENGINE.from_position(2, options(), 1, bad)
    assert "tile" in refused.value.message


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 100)
    | st.floats(allow_nan=False)
    | st.text(max_size=4)
    | st.sampled_from(["t1", "t63", "r7c3", "small", "big", "place", "finish"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a part of a JSON value (the value itself included)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += paths(inner, (*prefix, index))
    return found


def replaced(value: Any, path: tuple, new: Any) -> Any:
    """A copy of ``value`` with the part at ``path`` replaced by ``new``."""
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    inner = copy
    for step in path[:-1]:
        inner = inner[step]
    inner[path[-1]] = new
    return copy


def posted_back_view(seed: int, plies: int) -> dict[str, Any]:
    """A full position: the view of a random game after ``plies`` moves with the hands."""
    state = ENGINE.setup(3, options(), seed)
    for ply in range(plies):
        (seat,) = ENGINE.to_move(state)
        moves = ENGINE.legal_moves(state, seat)
        state = ENGINE.apply(state, seat, moves[(seed + ply) % len(moves)])
    view = ENGINE.view(state, None)
    for entry in view["players"]:
        entry["hand"] = state["players"][entry["seat"]]["hand"]
    view["draw_pile"] = state["draw_pile"]
    return {**view, "to_move": ENGINE.to_move(state)}


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 50),
    plies=st.integers(0, 12),
    pick=st.integers(0, 10**6),
    new=JSON_VALUES,
)
def test_position_any_part_of_any_type_gives_a_state_or_invalid_position(
    seed: int, plies: int, pick: int, new: Any
) -> None:
    base = posted_back_view(seed, plies)
    where = paths(base)
    broken = replaced(base, where[pick % len(where)], new)
    try:
        state = ENGINE.from_position(3, options(), seed, broken)
    except InvalidPosition as refusal:
        assert refusal.message
    else:
        assert json.loads(json.dumps(state)) == state


def test_position_with_unknown_board_or_option_is_refused() -> None:
    for bad in ({"board": "atlantis"}, {"tactical": "yes"}, {"colour": "red"}):
        with pytest.raises(InvalidPosition):
            ENGINE.from_position(2, bad, 1, position())


def test_position_from_a_view_posted_back_gives_the_same_game() -> None:
    state = ENGINE.setup(2, options(), 8)
    for _ in range(6):
        (seat,) = ENGINE.to_move(state)
        state = ENGINE.apply(state, seat, ENGINE.legal_moves(state, seat)[-1])
    view = ENGINE.view(state, None)
    view["players"] = [{**p, "hand": state["players"][p["seat"]]["hand"]} for p in view["players"]]
    del view["players"][0]["hand_size"]
    view["draw_pile"] = state["draw_pile"]
    rebuilt = ENGINE.from_position(2, options(), 8, {**view, "to_move": ENGINE.to_move(state)})
    for key in ("board", "players", "draw_pile", "box", "luk_phat", "first_round"):
        assert rebuilt[key] == state[key]


# -- apply refuses bad input with IllegalMove only ---------------------------------------------


def test_apply_refuses_a_seat_whose_turn_it_is_not() -> None:
    state = make(
        2, board={"r7c3": (plain("fish", 1), 0)}, hands=[[plain("shrimp", 1)], [plain("shrimp", 2)]]
    )
    for seat in (1, "0", None, True, 7):
        with pytest.raises(IllegalMove) as refused:
            ENGINE.apply(
                state,
                seat,
                {"action": "place", "tile": plain("shrimp", 2), "at": "r7c4", "merchant": "new"},
            )
        assert refused.value.rule == "turn"
    assert ENGINE.legal_moves(state, 1) == []


def test_apply_refuses_market_moves_outside_market_days_and_the_reverse() -> None:
    state = make(2, board={"r7c3": (plain("fish", 1), 0)}, hands=[[plain("shrimp", 1)], []])
    for text in ("decline", "score L4-5 remove r3c4"):
        with pytest.raises(IllegalMove):
            play(state, 0, text)
    board = {"r3c4": ("t5", 0), "r3c5": ("t9", 0), "r4c4": ("t17", 1), "r4c5": ("t18", None)}
    market = make(
        2, board=board, market={"kind": "small", "trigger": 0}, luk_phat=4, hands=[["t29"], []]
    )
    with pytest.raises(IllegalMove) as refused:
        play(market, 0, "place t29 r5c4 new")
    assert refused.value.rule == "market_day"


MOVE_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 100),
    st.sampled_from(["new", "none", "hand", "inventory", "before", "after", "plain", "merchant"]),
    st.sampled_from(
        ["t0", "t3", "t50", "t63", "t66", "t72", "r3c4", "r7c3", "r7c4", "r9c9", "L4-5"]
    ),
    st.lists(st.text(max_size=3), max_size=2),
    st.dictionaries(
        st.sampled_from(["from", "to", "when"]),
        st.sampled_from(["r7c3", "r6c3", "before", "after", 3]),
        max_size=3,
    ),
)
#: Every field a Bangkok Klongs move may carry besides ``action``.
MOVE_FIELDS = (
    "from",
    "to",
    "tile",
    "at",
    "merchant",
    "relocate",
    "steal",
    "keep",
    "remove_thieves",
    "draw",
    "landing",
    "remove",
)
MOVE_KEYS = st.sampled_from(["action", *MOVE_FIELDS, "x"])


@settings(max_examples=200, deadline=None)
@given(
    move=st.one_of(
        st.dictionaries(MOVE_KEYS, MOVE_VALUES, max_size=7),
        st.fixed_dictionaries(
            {"action": st.sampled_from(["place", "relocate", "finish", "score", "decline"])},
            optional=dict.fromkeys(MOVE_FIELDS, MOVE_VALUES),
        ),
        MOVE_VALUES,
    ),
    market=st.booleans(),
)
def test_apply_answers_any_input_with_a_new_state_or_illegal_move(move: Any, market: bool) -> None:
    board = {
        "r7c3": ("t2", 0),
        "r3c4": ("t5", 0),
        "r3c5": ("t9", 0),
        "r4c4": ("t17", 1),
        "r4c5": ("t18", None),
        "r3c3": ("t64", None),
    }
    extra = {"market": {"kind": "big", "trigger": 0}, "luk_phat": 12} if market else {}
    state = make(2, board=board, hands=[["t50", "t0", "t63", "t66"], ["t3"]], **extra)
    snapshot = json.dumps(state, sort_keys=True)
    reached = listed_outcome(state, 0, move)
    try:
        after = ENGINE.apply(state, 0, move)
    except IllegalMove as error:
        assert error.message and error.rule
        assert reached is None
    else:
        assert json.dumps(after, sort_keys=True) == json.dumps(reached, sort_keys=True)
    assert json.dumps(state, sort_keys=True) == snapshot


# -- schemas ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("move", list(EXAMPLES.values()))
def test_schema_accepts_every_move_shape(move: dict[str, Any]) -> None:
    assert MOVE_SCHEMAS[move["action"]]().validate(move) == {}


@pytest.mark.parametrize(
    "move",
    [
        {"action": "place", "tile": "t50", "at": "r3c4"},
        {"action": "place", "tile": "fifty", "at": "r3c4", "merchant": "new"},
        {"action": "place", "tile": "t50", "at": "r3c4", "merchant": "new", "colour": "red"},
        {
            "action": "place",
            "tile": "t50",
            "at": "r3c4",
            "merchant": "new",
            "remove_thieves": False,
        },
        {"action": "place", "tile": "t50", "at": "r3c4", "merchant": "new", "draw": "top"},
        {
            "action": "place",
            "tile": "t50",
            "at": "r3c4",
            "merchant": "new",
            "relocate": {"from": "r1c1"},
        },
        {
            "action": "place",
            "tile": "t50",
            "at": "r3c4",
            "merchant": "new",
            "relocate": {"when": "before"},
        },
        {"action": "relocate", "from": "r2c2"},
        {"action": "relocate", "from": "r2c2", "to": "r2c3", "when": "after"},
        {"action": "finish", "draw": "top"},
        {"action": "score", "landing": "45", "remove": "r3c4"},
        {"action": "decline", "landing": "L4-5"},
    ],
)
def test_schema_refuses_malformed_moves(move: dict[str, Any]) -> None:
    assert MOVE_SCHEMAS[move["action"]]().validate(move) != {}
