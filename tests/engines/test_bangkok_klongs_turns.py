"""Bangkok Klongs: a turn split into decisions of the same seat, and the whole-turn move.

A move card played before placing (``relocate FROM TO``), a placement whose
move card comes after it (``place ... relocate after``, then ``relocate`` or
``finish``) and the tactical pile chosen after placing are decisions of their
own; the whole-turn ``place`` move with ``relocate {from, to, when}`` and
``draw`` stays accepted. The property test enumerates every whole-turn move
on small positions and compares the outcomes with those of listed decisions.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.bangkok_klongs.board import BOARDS
from engines.base import IllegalMove, InvalidPosition
from tests.engines.test_bangkok_klongs_helpers import (
    ENGINE,
    OVERSEERS,
    THIEVES,
    hand,
    make,
    neutral,
    plain,
    play,
    player,
    reached_market_day,
    relocations_listed,
)

LAYOUT = BOARDS["standard"]


def two_boats() -> dict[str, tuple[str, int]]:
    """Seat 0 on r7c3, seat 1 on r7c4."""
    return {"r7c3": (plain("fish", 1), 0), "r7c4": (plain("fish", 2), 1)}


def start() -> dict[str, Any]:
    """Seat 0 to place a shrimp boat beside the two boats, both move cards in hand."""
    return make(
        2, board=two_boats(), hands=[[plain("shrimp", 1), plain("shrimp", 2)], [plain("banana", 1)]]
    )


def board_of(state: dict[str, Any]) -> dict[str, Any]:
    """The public board."""
    return ENGINE.view(state, None)["board"]


def canonical(state: dict[str, Any]) -> str:
    """A state as canonical JSON."""
    return json.dumps(state, sort_keys=True)


# -- placement rule 5 as decisions --------------------------------------------------------


def test_move_card_before_placing_is_a_decision_then_the_placement() -> None:
    state = play(start(), 0, "relocate r7c3 r6c3")
    assert ENGINE.to_move(state) == [0]
    assert ENGINE.view(state, None)["pending"] == {"seat": 0, "kind": "place"}
    assert player(state, 0)["move_cards"] == 1 and "r6c3" in board_of(state)
    listed = ENGINE.legal_moves(state, 0)
    assert listed and all(m["action"] == "place" and "relocate" not in m for m in listed)
    state = play(state, 0, f"place {plain('shrimp', 1)} r7c3 new")
    assert ENGINE.view(state, None)["pending"] is None and len(hand(state, 0)) == 4


def test_move_card_after_placing_is_chosen_once_the_boat_lies() -> None:
    state = play(start(), 0, f"place {plain('shrimp', 1)} r6c3 new relocate after")
    assert ENGINE.view(state, None)["pending"] == {
        "seat": 0,
        "kind": "finish",
        "relocate": True,
        "draw": True,
    }
    assert ("r6c3", "r5c3") in relocations_listed(state, 0), "the new boat may move"
    assert {"action": "finish"} in ENGINE.legal_moves(state, 0)
    moved = play(state, 0, "relocate r6c3 r5c3")
    assert "r5c3" in board_of(moved) and player(moved, 0)["move_cards"] == 1
    kept = play(state, 0, "finish")
    assert "r6c3" in board_of(kept) and player(kept, 0)["move_cards"] == 2
    for after in (moved, kept):
        assert ENGINE.to_move(after) == [1] and len(hand(after, 0)) == 4


@pytest.mark.parametrize(
    ("whole", "steps"),
    [
        (
            "place {t} r7c2 new relocate r7c3 r6c3 before",
            ["relocate r7c3 r6c3", "place {t} r7c2 new"],
        ),
        (
            "place {t} r6c3 new relocate r6c3 r5c3 after",
            ["place {t} r6c3 new relocate after", "relocate r6c3 r5c3"],
        ),
        ("place {t} r6c3 new", ["place {t} r6c3 new relocate after", "finish"]),
    ],
)
def test_move_card_whole_turn_move_ends_where_its_decisions_end(
    whole: str, steps: list[str]
) -> None:
    shrimp = plain("shrimp", 1)
    state = start()
    for step in steps:
        state = play(state, 0, step.format(t=shrimp))
    assert canonical(play(start(), 0, whole.format(t=shrimp))) == canonical(state)


def test_move_card_once_per_turn_also_across_decisions() -> None:
    state = play(start(), 0, "relocate r7c3 r6c3")
    for text in (
        "relocate r6c3 r5c3",
        f"place {plain('shrimp', 1)} r7c3 new relocate after",
        f"place {plain('shrimp', 1)} r7c3 new relocate r6c3 r5c3 after",
    ):
        with pytest.raises(IllegalMove) as refused:
            play(state, 0, text)
        assert refused.value.rule in ("move_card", "turn")


def test_move_card_relocate_after_needs_a_card_and_a_boat_that_can_move() -> None:
    no_cards = make(
        2,
        board=two_boats(),
        hands=[[plain("shrimp", 1)], []],
        seats=[{"move_cards": 0}, {}],
    )
    with pytest.raises(IllegalMove) as refused:
        play(no_cards, 0, f"place {plain('shrimp', 1)} r6c3 new relocate after")
    assert refused.value.rule == "move_card"
    assert not any(m.get("relocate") for m in ENGINE.legal_moves(no_cards, 0))
    nothing_own = make(2, board={"r7c4": (plain("fish", 2), 1)}, hands=[[neutral("fish", 1)], []])
    with pytest.raises(IllegalMove) as refused:
        play(nothing_own, 0, f"place {neutral('fish', 1)} r7c5 none relocate after")
    assert refused.value.rule == "move_card"


def test_turn_decisions_only_in_their_place() -> None:
    with pytest.raises(IllegalMove) as refused:
        play(start(), 0, "finish")
    assert refused.value.rule == "turn"
    placed = play(start(), 0, f"place {plain('shrimp', 1)} r6c3 new relocate after")
    with pytest.raises(IllegalMove) as refused:
        play(placed, 0, f"place {plain('shrimp', 2)} r5c3 new")
    assert refused.value.rule == "turn"
    with pytest.raises(IllegalMove) as refused:
        play(placed, 1, "finish")
    assert refused.value.rule == "turn"


def test_pending_decision_survives_a_view_posted_back_as_a_position() -> None:
    state = play(start(), 0, f"place {plain('shrimp', 1)} r6c3 new relocate after")
    view = ENGINE.view(state, None)
    view["players"] = [{**p, "hand": state["players"][p["seat"]]["hand"]} for p in view["players"]]
    for entry in view["players"]:
        del entry["hand_size"]
    view["draw_pile"] = state["draw_pile"]
    rebuilt = ENGINE.from_position(2, state["options"], 7, {**view, "to_move": 0})
    assert rebuilt["pending"] == state["pending"]
    assert ENGINE.legal_moves(rebuilt, 0) == ENGINE.legal_moves(state, 0)


@pytest.mark.parametrize(
    "pending",
    [
        {"seat": 1, "kind": "finish"},
        {"kind": "later"},
        {"kind": "finish", "relocate": "yes"},
        {"kind": "place", "draw": True},
        ["finish"],
        {"kind": "place", "seat": True},
    ],
)
def test_pending_decision_in_a_position_is_checked(pending: Any) -> None:
    with pytest.raises(InvalidPosition):
        make(2, board=two_boats(), hands=[[plain("shrimp", 1)], []], pending=pending)


# -- every outcome of a turn is reachable from listed decisions -----------------------------


def turn_over(start: dict[str, Any], state: dict[str, Any], seat: int) -> bool:
    """True when ``seat`` has nothing left to decide in the turn begun at ``start``, or the turn
    reached a market day (which ends a whole-turn move)."""
    pending = state["pending"]
    return (
        state["market"] is not None
        or pending is None
        or pending["seat"] != seat
        or reached_market_day(start, state)
    )


def listed_turn_outcomes(state: dict[str, Any], seat: int) -> set[str]:
    """Every state a turn of ``seat`` can end in, playing listed decisions one after the other.

    On the way, no two listed decisions may lead to the same state (no redundant entries).
    """
    outcomes, frontier = set(), [state]
    while frontier:
        current = frontier.pop()
        afters = [ENGINE.apply(current, seat, move) for move in ENGINE.legal_moves(current, seat)]
        assert len({canonical(after) for after in afters}) == len(afters), "redundant entries"
        for after in afters:
            if turn_over(state, after, seat):
                outcomes.add(canonical(after))
            else:
                frontier.append(after)
    return outcomes


def near(field: str, distance: int) -> list[str]:
    """The fields at most ``distance`` rows and columns away from ``field``."""
    row, col = LAYOUT.coords[field]
    return [f for f, (r, c) in LAYOUT.coords.items() if abs(r - row) <= distance >= abs(c - col)]


def whole_turn_moves(state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """Every whole-turn ``place`` move worth trying: a superset of the legal ones.

    Fields near the boats, every merchant choice (one wrong one for a boat
    without merchant spot), every steal of a boat that is or may be moved
    into the thief's row, every overseer choice, every relocation of an own
    (or the new) boat to a neighbouring field before or after, every pile.
    """
    board = state["board"]
    own = [f for f, cell in board.items() if cell["merchant"] == seat]
    fields = sorted({f for occupied in board for f in near(occupied, 2)})
    boats = set(board) | {f for origin in own for f in near(origin, 1)}
    piles = [None, "merchant", "plain"] if state["options"]["tactical"] else [None]
    moves = []
    for tile_id in state["players"][seat]["hand"]:
        spot = LAYOUT.tiles[tile_id]["special"] is None and not LAYOUT.tiles[tile_id]["neutral"]
        for at in fields:
            for merchant in ["new", "none", *own] if spot else ["new", "none"]:
                base = {"action": "place", "tile": tile_id, "at": at, "merchant": merchant}
                for extra in effects(tile_id, at, board, boats):
                    for relocation in relocations(own, at):
                        for pile in piles:
                            move = {**base, **extra}
                            if relocation:
                                move["relocate"] = relocation
                            if pile:
                                move["draw"] = pile
                            moves.append(move)
    return moves


def effects(tile_id: str, at: str, board: dict[str, Any], boats: set[str]) -> list[dict[str, Any]]:
    """Nothing, or a thief's steal of a field of its row among ``boats`` (where boats are or
    may be moved to), or the overseer's removals."""
    row, col = LAYOUT.coords[at]
    if tile_id in THIEVES:
        targets = sorted(f for f in boats if LAYOUT.coords[f][0] == row)
        return [{}] + [
            {"steal": f, "keep": keep} for f in targets for keep in ("hand", "inventory")
        ]
    if tile_id in OVERSEERS:
        thieves = [f for f in board if LAYOUT.coords[f][1] == col and board[f]["tile"] in THIEVES]
        return [{}, {"remove_thieves": True}] + [
            {"remove_thieves": True, "keep": f} for f in thieves
        ]
    return [{}]


def relocations(own: list[str], at: str) -> list[dict[str, str] | None]:
    """No relocation, or an own boat (also the new one, after) to a neighbouring field."""
    moves: list[dict[str, str] | None] = [None]
    for when, origins in (("before", own), ("after", [*own, at])):
        for origin in origins:
            moves += [
                {"from": origin, "to": target, "when": when}
                for target in near(origin, 1)
                if target != origin
            ]
    return moves


def accepted_turn_outcomes(state: dict[str, Any], seat: int) -> set[str]:
    """The end states of every whole-turn move ``apply`` accepts."""
    outcomes = set()
    for move in whole_turn_moves(state, seat):
        try:
            after = ENGINE.apply(state, seat, move)
        except IllegalMove:
            continue
        if turn_over(state, after, seat):
            outcomes.add(canonical(after))
    return outcomes


FIELDS_NEAR_THE_MIDDLE = [f"r{r}c{c}" for r in range(2, 6) for c in range(2, 7)]
GOODS_TILES = [t for t, d in LAYOUT.tiles.items() if d["special"] is None]


@st.composite
def small_positions(draw: st.DrawFn) -> dict[str, Any]:
    """Seat 0 to move in a 2-player game: 2-4 boats near the middle, a hand of 1-2 boats
    (1 in the tactical variant, whose piles multiply the whole-turn moves by three)."""
    fields = draw(
        st.lists(st.sampled_from(FIELDS_NEAR_THE_MIDDLE), min_size=2, max_size=4, unique=True)
    )
    tactical = draw(st.booleans())
    hand_size = 1 if tactical else draw(st.integers(1, 2))
    tiles = draw(
        st.lists(
            st.sampled_from([*GOODS_TILES, *THIEVES, *OVERSEERS]),
            min_size=len(fields) + hand_size,
            max_size=len(fields) + hand_size,
            unique=True,
        )
    )
    board = {}
    for field, tile_id in zip(fields, tiles, strict=False):
        owner = draw(st.sampled_from([0, 1, None]))
        described = LAYOUT.tiles[tile_id]
        board[field] = (tile_id, None if described["neutral"] or described["special"] else owner)
    return {
        "board": board,
        "hands": [tiles[len(fields) :], []],
        "seats": [{"move_cards": draw(st.integers(0, 2))}, {}],
        "tactical": tactical,
        "luk_phat": draw(st.sampled_from([0, 3])),
    }


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=small_positions())
def test_every_whole_turn_outcome_is_reached_by_listed_decisions_and_no_entry_is_redundant(
    position: dict[str, Any],
) -> None:
    try:
        state = make(2, **position)
    except InvalidPosition:
        return
    if ENGINE.to_move(state) != [0] or state["pending"] is not None:
        return
    assert accepted_turn_outcomes(state, 0) == listed_turn_outcomes(state, 0)
