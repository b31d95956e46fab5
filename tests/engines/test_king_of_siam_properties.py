"""King of Siam: random legal games, apply == legal_moves, views, notation, schemas, positions."""

from __future__ import annotations

import copy
import json
import random
import time
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

import engines.king_of_siam
from engines.base import IllegalMove, InvalidPosition, NotationError
from engines.king_of_siam import KingOfSiamEngine
from engines.king_of_siam.board import FACTIONS, MAPS
from engines.king_of_siam.cards import CARDS, HAND
from schemas.king_of_siam import MOVE_SCHEMAS

ENGINE = KingOfSiamEngine()
PROVINCES = MAPS["siam-1874"]["provinces"]
SLOW = settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def conserved(state: dict[str, Any]) -> bool:
    counts: Counter[str] = Counter(state["pool"])
    for entry in state["provinces"].values():
        counts.update(entry["followers"])
    for player in state["players"]:
        counts.update(player["followers"])
    each = 16 if len(state["players"]) == 2 else 18
    return counts == {faction: each for faction in FACTIONS}


def random_move(moves: list[dict[str, Any]], chance: random.Random) -> dict[str, Any]:
    """A pass 30% of the time where a pass is listed, else any other listed move."""
    if moves[0] == {"action": "pass"}:
        return moves[0] if chance.random() < 0.3 else chance.choice(moves[1:])
    return chance.choice(moves)


def random_state(players: int, seed: int, steps: int) -> dict[str, Any]:
    """A position reached by ``steps`` random legal moves (fewer if the game ends)."""
    chance = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    for _ in range(steps):
        if ENGINE.result(state):
            break
        seat = ENGINE.to_move(state)[0]
        state = ENGINE.apply(state, seat, random_move(ENGINE.legal_moves(state, seat), chance))
    return state


def check_views(state: dict[str, Any]) -> None:
    public = ENGINE.view(state, None)
    text = canonical(public)
    assert "hand" not in public and '"hand"' not in text and "rng" not in public
    for key in (
        "map",
        "provinces",
        "struggle_order",
        "contested",
        "pool",
        "control_history",
        "players",
        "passes_in_a_row",
    ):
        assert key in public
    for seat, player in enumerate(state["players"]):
        view = ENGINE.view(state, seat)
        assert view["hand"] == player["hand"]
        assert all("hand" not in entry for entry in view["players"])
        assert {k: v for k, v in view.items() if k != "hand"} == public
        entry = view["players"][seat]
        assert set(entry) >= {"seat", "aid_card", "team", "followers", "cards_left", "top_card"}
        assert entry["cards_left"] == len(player["hand"])


def check_notation_and_schema(state: dict[str, Any], moves: list[dict[str, Any]]) -> None:
    for move in moves:
        assert ENGINE.parse(ENGINE.format(move), state) == move
        assert ENGINE.parse(ENGINE.format(move)) == move
        assert MOVE_SCHEMAS[move["action"]]().load(copy.deepcopy(move)) == move


# -- random games ------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
@settings(SLOW, max_examples=3)
@given(seed=st.integers(0, 2**40), data=st.data())
def test_random_legal_games_keep_every_invariant(players: int, seed: int, data: Any) -> None:
    state = ENGINE.setup(players, {"map": "siam-1874"}, seed)
    log = []
    while ENGINE.result(state) is None:
        assert conserved(state)
        assert json.loads(json.dumps(state)) == state
        assert len(state["control_history"]) < 8
        seat = ENGINE.to_move(state)[0]
        moves = ENGINE.legal_moves(state, seat)
        if state["pending"] is None:
            assert moves[0] == {"action": "pass"} and len(moves) > 1
        else:
            assert moves and {move["action"] for move in moves} == {state["pending"]["kind"]}
        assert all(
            ENGINE.legal_moves(state, other) == [] for other in range(players) if other != seat
        )
        check_views(state)
        stored = json.loads(canonical(state))  # as stored: keys in another order
        assert ENGINE.legal_moves(stored, seat) == moves
        sample = moves[:: max(1, len(moves) // 15)]
        check_notation_and_schema(state, sample)
        if data.draw(st.integers(0, 3)) == 0 and state["pending"] is None:
            move = moves[0]
        else:
            move = moves[data.draw(st.integers(0, len(moves) - 1))]
        before = canonical(state)
        after = ENGINE.apply(state, seat, move)
        assert canonical(state) == before
        check_notation_and_schema(state, [move])
        assert set(after["auto_passed"]) <= set(range(players))
        log.append((seat, move))
        state = after
    result = ENGINE.result(state)
    assert conserved(state) and ENGINE.to_move(state) == []
    assert len(state["control_history"]) <= 8
    assert result["winners"] and set(result["winners"]) <= set(range(players))
    assert set(result["scores"]) == {str(seat) for seat in range(players)}
    if players == 4:
        assert all((seat + 2) % 4 in result["winners"] for seat in result["winners"])
    replay = ENGINE.setup(players, {"map": "siam-1874"}, seed)
    for seat, move in log:
        replay = ENGINE.apply(replay, seat, move)
    assert replay == state


def test_random_games_end_within_eight_struggles_and_use_every_card() -> None:
    seen: Counter[str] = Counter()
    for seed in (3, 4):
        state = random_state(seed, seed, 200)
        assert ENGINE.result(state) is not None
        assert len(state["control_history"]) <= 8
        for player in state["players"]:
            seen.update(Counter(HAND) - Counter(player["hand"]))
    assert set(seen) == set(CARDS)


# -- apply accepts exactly the legal moves -------------------------------------
REPLACEMENTS = [*PROVINCES, *FACTIONS, *CARDS, None, "atlantis", 3, True, [], {}]


def leaf_paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        found = [path] if path else []
        return found + [p for key, item in value.items() for p in leaf_paths(item, (*path, key))]
    if isinstance(value, list):
        return [path] + [p for i, item in enumerate(value) for p in leaf_paths(item, (*path, i))]
    return [path]


def mutated(move: dict[str, Any], data: Any) -> dict[str, Any]:
    move = copy.deepcopy(move)
    path = data.draw(st.sampled_from(leaf_paths(move)))
    parent = move
    for step in path[:-1]:
        parent = parent[step]
    kind = data.draw(st.integers(0, 3))
    if kind == 0 and isinstance(parent[path[-1]], list):
        parent[path[-1]] = list(reversed(parent[path[-1]]))[: data.draw(st.integers(0, 2))]
    elif kind == 1 and isinstance(parent, dict) and path[-1] != "action":
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(st.sampled_from(REPLACEMENTS))
    return move


@settings(SLOW, max_examples=8)
@given(
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 30),
    data=st.data(),
)
def test_apply_accepts_the_legal_moves_and_their_other_orders_only(
    players: int, seed: int, steps: int, data: Any
) -> None:
    state = random_state(players, seed, steps)
    if ENGINE.result(state):
        return
    seat = ENGINE.to_move(state)[0]
    moves = ENGINE.legal_moves(state, seat)
    legal = {canonical(move) for move in moves}
    outcomes = {canonical(ENGINE.apply(state, seat, move)) for move in moves}
    assert len(legal) == len(moves) == len(outcomes), "one listed move per outcome"
    for _ in range(120):
        move = mutated(moves[data.draw(st.integers(0, len(moves) - 1))], data)
        try:
            after = ENGINE.apply(state, seat, move)
        except IllegalMove as error:
            assert canonical(move) not in legal, error.message
            assert error.rule and error.message.endswith(".")
        else:
            assert conserved(after)
            if canonical(after) in outcomes:
                continue
            # Not the outcome of a listed move: a move in another order than the listed
            # one (two swapped tiles, the two sides of a swap...) has the outcome of the
            # listed one; only a step in another order (Khon Thai's factions, the other
            # side of a swap first) leads elsewhere, and the card then goes on.
            assert after["pending"] and after["pending"]["kind"] in ("place", "swap"), move
            assert ENGINE.legal_moves(after, seat)


def test_apply_refuses_moves_of_the_wrong_seat_and_never_changes_the_state() -> None:
    state = ENGINE.setup(3, {}, 5)
    seat = ENGINE.to_move(state)[0]
    before = canonical(state)
    for other, move in [
        ((seat + 1) % 3, {"action": "pass"}),
        (7, {"action": "pass"}),
        ("0", {"action": "pass"}),
        (seat, {"action": "fly"}),
        (seat, {"action": "pass", "x": 1}),
        (seat, []),
        (seat, {"action": "play"}),
        (seat, {"action": "play", "card": []}),
    ]:
        with pytest.raises(IllegalMove):
            ENGINE.apply(state, other, move)
    assert canonical(state) == before
    assert ENGINE.legal_moves(state, (seat + 1) % 3) == []
    assert ENGINE.legal_moves(state, "0") == []


def test_legal_moves_are_fast_enough_for_the_api() -> None:
    state = random_state(3, 17, 12)
    assert ENGINE.result(state) is None
    seat = ENGINE.to_move(state)[0]
    start = time.perf_counter()
    for _ in range(5):
        ENGINE.legal_moves(state, seat)
    assert (time.perf_counter() - start) / 5 < 0.5


# -- notation ---------------------------------------------------------------------
DOC_EXAMPLES = {
    "pass": {"action": "pass"},
    "maharacha swap korat sukhothai king korat; take rama kedah": {
        "action": "play",
        "card": "maharacha",
        "swap": ["korat", "sukhothai"],
        "king": "korat",
        "take": {"province": "kedah", "faction": "rama"},
    },
    "maharacha none; take rama kedah": {
        "action": "play",
        "card": "maharacha",
        "swap": [],
        "king": None,
        "take": {"province": "kedah", "faction": "rama"},
    },
    "khon_thai rama korat lao kedah malay korat; take lao kedah": {
        "action": "play",
        "card": "khon_thai",
        "place": {"rama": "korat", "lao": "kedah", "malay": "korat"},
        "take": {"province": "kedah", "faction": "lao"},
    },
    "khon_thai lao kedah; take none": {
        "action": "play",
        "card": "khon_thai",
        "place": {"lao": "kedah"},
        "take": None,
    },
    "khon_thai none; take malay korat": {
        "action": "play",
        "card": "khon_thai",
        "place": {},
        "take": {"province": "korat", "faction": "malay"},
    },
    "one_vs_one rama korat with lao kedah; take malay chiang-mai": {
        "action": "play",
        "card": "one_vs_one",
        "give": {"province": "korat", "faction": "rama"},
        "get": {"province": "kedah", "faction": "lao"},
        "take": {"province": "chiang-mai", "faction": "malay"},
    },
    "one_vs_one none; take malay chiang-mai": {
        "action": "play",
        "card": "one_vs_one",
        "give": None,
        "get": None,
        "take": {"province": "chiang-mai", "faction": "malay"},
    },
    "two_vs_one rama lao korat with malay sukhothai; take rama korat": {
        "action": "play",
        "card": "two_vs_one",
        "two": {"province": "korat", "factions": ["rama", "lao"]},
        "one": {"province": "sukhothai", "faction": "malay"},
        "take": {"province": "korat", "faction": "rama"},
    },
    "two_vs_one none; take rama korat": {
        "action": "play",
        "card": "two_vs_one",
        "two": None,
        "one": None,
        "take": {"province": "korat", "faction": "rama"},
    },
    "rama korat sukhothai; take lao kedah": {
        "action": "play",
        "card": "rama",
        "place": ["korat", "sukhothai"],
        "take": {"province": "kedah", "faction": "lao"},
    },
    "lao chiang-mai; take lao kedah": {
        "action": "play",
        "card": "lao",
        "place": ["chiang-mai"],
        "take": {"province": "kedah", "faction": "lao"},
    },
    "malay none; take rama kedah": {
        "action": "play",
        "card": "malay",
        "place": [],
        "take": {"province": "kedah", "faction": "rama"},
    },
    "two_vs_one rama korat with malay sukhothai; take rama korat": {
        "action": "play",
        "card": "two_vs_one",
        "two": {"province": "korat", "factions": ["rama"]},
        "one": {"province": "sukhothai", "faction": "malay"},
        "take": {"province": "korat", "faction": "rama"},
    },
    "rama korat sukhothai": {"action": "play", "card": "rama", "place": ["korat", "sukhothai"]},
    "one_vs_one none": {"action": "play", "card": "one_vs_one", "give": None, "get": None},
    "take lao kedah": {"action": "take", "province": "kedah", "faction": "lao"},
    "khon_thai rama korat": {"action": "play", "card": "khon_thai", "place": {"rama": "korat"}},
    "place lao kedah": {"action": "place", "faction": "lao", "province": "kedah"},
    "one_vs_one rama korat": {
        "action": "play",
        "card": "one_vs_one",
        "give": {"province": "korat", "faction": "rama"},
    },
    "two_vs_one rama lao korat": {
        "action": "play",
        "card": "two_vs_one",
        "two": {"province": "korat", "factions": ["rama", "lao"]},
    },
    "swap malay sukhothai": {"action": "swap", "province": "sukhothai", "faction": "malay"},
}


def test_notation_examples_are_the_documented_ones() -> None:
    doc = engines.king_of_siam.__doc__
    block = doc[doc.index("Notation (") :].split("::\n\n", 1)[1].split("\n\n", 1)[0]
    documented = [line.split("  (")[0].strip() for line in block.splitlines()]
    assert len(documented) == len(DOC_EXAMPLES) and set(documented) == set(DOC_EXAMPLES)


@pytest.mark.parametrize("text", list(DOC_EXAMPLES))
def test_notation_documented_examples(text: str) -> None:
    move = DOC_EXAMPLES[text]
    assert ENGINE.parse(text) == move
    assert ENGINE.format(move) == text
    assert ENGINE.parse("  " + text.upper().replace(" ", "   ") + " ") == move
    assert MOVE_SCHEMAS[move["action"]]().load(copy.deepcopy(move)) == move


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "fly",
        "pass now",
        "rama korat; take",
        "rama; take lao kedah",
        "take none",
        "take lao",
        "take lao kedah; take lao kedah",
        "take",
        "pass; take lao kedah",
        "rama a b c; take lao kedah",
        "maharacha swap korat; take lao kedah",
        "khon_thai rama korat rama kedah; take lao kedah",
        "khon_thai rama; take lao kedah",
        "one_vs_one rama korat lao kedah; take lao kedah",
        "two_vs_one rama korat lao kedah; take lao kedah",
        "two_vs_one rama lao malay korat with lao kedah; take lao kedah",
        "rama korat; take british kedah",
        "rama korat; take lao KE DAH",
        "rama Korat!; take lao kedah",
        "rama korat; take lao kedah; take lao kedah",
        "one_vs_one none none; take lao kedah",
        "emperor korat; take lao kedah",
    ],
)
def test_notation_refuses_text_that_is_not_a_move(text: str) -> None:
    with pytest.raises(NotationError):
        ENGINE.parse(text)


def test_notation_with_a_state_checks_province_names() -> None:
    state = ENGINE.setup(3, {}, 1)
    with pytest.raises(NotationError) as caught:
        ENGINE.parse("rama bangkok; take lao kedah", state)
    assert "kedah" in caught.value.message
    assert ENGINE.parse("rama bangkok; take lao kedah")["place"] == ["bangkok"]


@pytest.mark.parametrize(
    "move",
    [
        {},
        {"action": "pass", "x": 1},
        {"action": "play"},
        {"action": "play", "card": "rama"},
        {"action": "play", "card": "rama", "place": [], "take": None, "swap": []},
        [],
        None,
        {"action": "play", "card": "joker", "place": [], "take": None},
    ],
)
def test_format_refuses_what_is_not_a_move(move: Any) -> None:
    with pytest.raises(NotationError):
        ENGINE.format(move)


# -- schemas ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "move",
    [
        {"action": "pass", "card": "rama"},
        {"action": "take", "province": "korat"},
        {"action": "take", "province": "korat", "faction": "british"},
        {"action": "take", "province": "korat", "faction": "lao", "card": "rama"},
        {"action": "play", "card": "rama", "place": {"rama": "korat"}, "take": None},
        {"action": "play", "card": "khon_thai", "place": ["korat"], "take": None},
        {"action": "play", "card": "khon_thai", "place": {"british": "korat"}, "take": None},
        {"action": "play", "card": "rama", "place": ["a", "b", "c"], "take": None},
        {"action": "play", "card": "rama", "place": ["Korat"], "take": None},
        {"action": "play", "card": "maharacha", "swap": ["korat"], "king": None, "take": None},
        {"action": "play", "card": "maharacha", "swap": [], "take": None},
        {
            "action": "play",
            "card": "one_vs_one",
            "give": None,
            "get": None,
            "place": [],
            "take": None,
        },
        {
            "action": "play",
            "card": "two_vs_one",
            "two": {"province": "korat", "factions": []},
            "one": None,
            "take": None,
        },
        {
            "action": "play",
            "card": "two_vs_one",
            "two": {"province": "korat", "factions": ["rama", "lao", "malay"]},
            "one": None,
        },
        {"action": "play", "card": "joker", "take": None},
        {"action": "play", "card": "rama", "place": [], "take": {"province": "korat"}},
        {"action": "play", "card": "rama", "place": [], "take": None, "extra": 1},
    ],
)
def test_schema_refuses_malformed_moves(move: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        MOVE_SCHEMAS[move["action"]]().load(move)


def test_schema_lets_through_well_formed_but_illegal_moves_that_apply_refuses() -> None:
    state = ENGINE.setup(3, {}, 2)
    seat = ENGINE.to_move(state)[0]
    for move in [
        {"action": "play", "card": "rama", "place": ["atlantis"], "take": None},
        {
            "action": "play",
            "card": "one_vs_one",
            "give": {"province": "korat", "faction": "lao"},
            "get": None,
            "take": None,
        },
        {
            "action": "play",
            "card": "two_vs_one",
            "two": None,
            "one": {"province": "korat", "faction": "lao"},
            "take": None,
        },
        {"action": "play", "card": "maharacha", "swap": [], "king": "korat", "take": None},
        {"action": "play", "card": "khon_thai", "place": {}, "take": None},
    ]:
        loaded = MOVE_SCHEMAS["play"]().load(move)
        with pytest.raises(IllegalMove):
            ENGINE.apply(state, seat, loaded)


# -- positions ----------------------------------------------------------------------
def as_position(state: dict[str, Any]) -> dict[str, Any]:
    position = ENGINE.view(state, None)
    for seat, entry in enumerate(position["players"]):
        entry["hand"] = list(state["players"][seat]["hand"])
    position["to_move"] = ENGINE.to_move(state)
    return position


@settings(max_examples=6, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10**6), steps=st.integers(0, 50))
def test_from_position_rebuilds_any_reached_state(players: int, seed: int, steps: int) -> None:
    state = random_state(players, seed, steps)
    rebuilt = ENGINE.from_position(players, {}, 99, as_position(state))
    for key in state:
        if key not in ("rng", "auto_passed", "current_seat"):
            assert rebuilt[key] == state[key], key
    assert ENGINE.result(rebuilt) == ENGINE.result(state)
    assert ENGINE.to_move(rebuilt) == ENGINE.to_move(state)


def bad(change: Any) -> Any:
    """A 3-player position made wrong by ``change(position)``."""

    def build() -> dict[str, Any]:
        position = as_position(ENGINE.setup(3, {}, 4))
        change(position)
        return position

    return build


def _set(path: list[Any], value: Any) -> Any:
    def change(position: dict[str, Any]) -> None:
        target = position
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value

    return change


@pytest.mark.parametrize(
    "build",
    [
        bad(_set(["pool", "rama"], 99)),
        bad(_set(["provinces", "korat", "followers", "lao"], 40)),
        bad(_set(["provinces", "korat", "followers", "lao"], -1)),
        bad(_set(["provinces", "korat", "followers", "lao"], True)),
        bad(_set(["provinces", "korat", "followers", "lao"], 1.5)),
        bad(_set(["provinces", "korat", "followers", "british"], 0)),
        bad(_set(["provinces", "bangkok"], {})),
        bad(_set(["provinces", "korat", "control"], "french")),
        bad(_set(["provinces", "korat", "control"], "rama")),
        bad(_set(["provinces", "korat", "king_marker"], True)),
        bad(_set(["provinces", "korat", "king_marker"], "yes")),
        bad(_set(["provinces", "korat"], [])),
        bad(_set(["struggle_order"], PROVINCES[:7])),
        bad(_set(["struggle_order"], [*PROVINCES[:7], "korat"])),
        bad(_set(["contested"], "nowhere")),
        bad(_set(["control_history"], [{"province": "korat", "control": "rama"}])),
        bad(_set(["control_history"], "none")),
        bad(_set(["players"], [])),
        bad(_set(["players", 0, "seat"], 2)),
        bad(_set(["players", 0, "aid_card"], 4)),
        bad(_set(["players", 0, "aid_card"], 2)),
        bad(_set(["players", 0, "team"], 0)),
        bad(_set(["players", 0, "hand"], [*HAND, "rama"])),
        bad(_set(["players", 0, "hand"], ["joker"])),
        bad(_set(["players", 0, "hand"], "all")),
        bad(_set(["players", 0, "cards_left"], 3)),
        bad(_set(["players", 0, "top_card"], "rama")),
        bad(_set(["players", 0, "colour"], "red")),
        bad(_set(["players", 0, "followers"], {"rama": "x"})),
        bad(_set(["passes_in_a_row"], 3)),
        bad(_set(["to_move"], [0, 1])),
        bad(_set(["to_move"], 5)),
        bad(_set(["to_move"], [])),
        bad(_set(["last_card"], {"card": "rama", "place": []})),
        bad(_set(["last_card"], "rama")),
        bad(_set(["card_recency"], [0])),
        bad(_set(["auto_passed"], [9])),
        bad(_set(["map"], "king-of-saba")),
        bad(_set(["options"], {"map": "king-of-saba"})),
        bad(_set(["hand"], list(HAND))),
        bad(_set(["secret"], 1)),
    ],
)
def test_from_position_refuses_inconsistent_positions(build: Any) -> None:
    with pytest.raises(InvalidPosition) as caught:
        ENGINE.from_position(3, {}, 1, build())
    assert caught.value.message.endswith(".")


def test_from_position_refuses_play_after_the_british_colony() -> None:
    control = {p: "british" for p in PROVINCES[:4]} | {PROVINCES[4]: "rama"}
    provinces = {p: {"control": c} for p, c in control.items()}
    with pytest.raises(InvalidPosition):
        ENGINE.from_position(3, {}, 1, {"provinces": provinces, "struggle_order": PROVINCES})
    with pytest.raises(InvalidPosition):
        ENGINE.from_position(5, {}, 1, {})
    with pytest.raises(InvalidPosition):
        ENGINE.from_position(3, {"map": "atlantis"}, 1, {})


def test_from_position_defaults_are_the_natural_empty_values() -> None:
    state = ENGINE.from_position(2, {}, 1, {"to_move": 1})
    assert state["pool"] == {faction: 16 for faction in FACTIONS}
    assert state["struggle_order"] == PROVINCES and state["contested"] == PROVINCES[0]
    assert [p["hand"] for p in state["players"]] == [list(HAND)] * 2
    assert ENGINE.to_move(state) == [1]
    assert ENGINE.to_move(ENGINE.from_position(4, {}, 1, {})) == [0]


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 20)
    | st.sampled_from([*PROVINCES, *FACTIONS, *CARDS, "british", "x"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "provinces",
                    "players",
                    "pool",
                    "followers",
                    "hand",
                    "control",
                    "to_move",
                    "struggle_order",
                    "control_history",
                    "rama",
                    "korat",
                    "last_card",
                    "card",
                    "card_recency",
                    "king_marker",
                    "province",
                ]
            ),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(position=json_values)
def test_from_position_raises_only_invalid_position_on_junk(position: Any) -> None:
    try:
        state = ENGINE.from_position(3, {}, 1, position)
    except InvalidPosition:
        return
    assert conserved(state)
    assert json.loads(json.dumps(state)) == state


followers_ = st.fixed_dictionaries(
    {"province": st.sampled_from(PROVINCES), "faction": st.sampled_from(FACTIONS)}
)
decision_parts = st.one_of(
    st.none(),
    st.integers(0, 3),
    st.sampled_from([*PROVINCES, *FACTIONS, *CARDS, "take", "swap", "place"]),
    followers_,
    st.fixed_dictionaries(
        {
            "province": st.sampled_from(PROVINCES),
            "factions": st.lists(st.sampled_from(FACTIONS), max_size=3),
        }
    ),
    st.lists(st.sampled_from(PROVINCES), max_size=3),
    st.dictionaries(st.sampled_from(FACTIONS), st.sampled_from(PROVINCES)),
)


@st.composite
def decisions(draw: Any) -> Any:
    """A card with some of the fields of any card, maybe with a seat and a kind: near misses
    of a pending step or of a previous card."""
    names = ["give", "get", "two", "one", "place", "swap", "king", "x"]
    fields = draw(st.lists(st.sampled_from(names), unique=True, max_size=3))
    value = {"card": draw(st.sampled_from(CARDS)), **{n: draw(decision_parts) for n in fields}}
    if draw(st.booleans()):
        value |= {
            "seat": draw(st.integers(0, 3)),
            "kind": draw(st.sampled_from(["take", "swap", "place"])),
        }
    return value


@settings(max_examples=200, deadline=None)
@given(
    key=st.sampled_from(["pending", "last_card"]),
    junk=decisions() | decision_parts,
    seed=st.integers(0, 50),
    steps=st.integers(5, 40),
)
def test_from_position_refuses_junk_decisions_or_plays_on(
    key: str, junk: Any, seed: int, steps: int
) -> None:
    position = as_position(random_state(3, seed, steps))
    position[key] = junk
    try:
        state = ENGINE.from_position(3, {}, 1, position)
    except InvalidPosition:
        return
    for seat in ENGINE.to_move(state):
        for move in ENGINE.legal_moves(state, seat)[:5]:
            ENGINE.apply(state, seat, move)
