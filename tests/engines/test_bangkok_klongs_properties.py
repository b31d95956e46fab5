"""Random legal Bangkok Klongs games played to the end, checking invariants after every move."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engines.bangkok_klongs.board import BOARDS
from engines.bangkok_klongs.rules import can_place
from engines.base import IllegalMove
from schemas.bangkok_klongs import MOVE_SCHEMAS
from tests.engines.test_bangkok_klongs_helpers import (
    ENGINE,
    all_tiles,
    listed_outcome,
    options,
)

LAYOUT = BOARDS["standard"]
MERCHANTS = {2: 17, 3: 12, 4: 9}


def strings_in(value: Any) -> set[str]:
    """Every string (keys included) anywhere in a JSON value."""
    if isinstance(value, dict):
        return set(value).union(*(strings_in(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value))
    return {value} if isinstance(value, str) else set()


def check_invariants(state: dict[str, Any], players: int) -> None:
    """Tiles and merchants conserved, JSON round trip, hands of at most 4."""
    tiles = all_tiles(state)
    assert sorted(tiles) == sorted(LAYOUT.tiles), "tiles not conserved"
    for entry in state["players"]:
        on_board = sum(1 for c in state["board"].values() if c["merchant"] == entry["seat"])
        assert entry["merchants"] + on_board == MERCHANTS[players]
        assert 0 <= entry["move_cards"] <= 2
        assert len(entry["hand"]) <= 4
    assert json.loads(json.dumps(state)) == state


def check_views(state: dict[str, Any], players: int) -> None:
    """No view shows another seat's hand, the pile order, the seed or the PRNG."""
    public = [c["tile"] for c in state["board"].values()] + state["box"]
    for entry in state["players"]:
        public += entry["inventory"]
    for viewer in [None, *range(players)]:
        view = ENGINE.view(state, viewer)
        assert "rng" not in view and "seed" not in view
        assert isinstance(view["draw_pile"], int)
        assert all("hand" not in p for p in view["players"])
        seen = {s for s in strings_in(view) if s in LAYOUT.tiles}
        own = set(state["players"][viewer]["hand"]) if viewer is not None else set()
        assert seen <= set(public) | own
        assert set(view["tiles"]) == set(public) | own
        assert ("hand" in view) == (viewer is not None)


def canonical(state: dict[str, Any] | None) -> str | None:
    """A state as canonical JSON (None stays None)."""
    return None if state is None else json.dumps(state, sort_keys=True)


def check_accepted_iff_reachable(state: dict[str, Any], seat: int, move: Any) -> None:
    """``apply`` takes ``move`` exactly when listed decisions reach the same outcome."""
    reached = listed_outcome(state, seat, move)
    try:
        after = ENGINE.apply(state, seat, move)
    except IllegalMove as refusal:
        assert refusal.rule and refusal.message
        assert reached is None, f"refused but reachable: {move}"
    else:
        assert canonical(after) == canonical(reached), f"accepted but not reached: {move}"


def check_moves(state: dict[str, Any], seat: int, moves: list[dict], rnd: random.Random) -> None:
    """Listed moves are distinct, pass the schema, round-trip the notation and apply; mutants
    and whole-turn moves built from them are accepted exactly when listed decisions reach them."""
    assert len({json.dumps(m, sort_keys=True) for m in moves}) == len(moves), "duplicates"
    for move in rnd.sample(moves, min(4, len(moves))):
        assert ENGINE.parse(ENGINE.format(move)) == move
        assert MOVE_SCHEMAS[move["action"]]().validate(move) == {}
        ENGINE.apply(state, seat, move)
        check_accepted_iff_reachable(state, seat, mutate(move, rnd))
    if state["market"] is None and state["pending"] is None:
        check_accepted_iff_reachable(state, seat, whole_turn(state, seat, moves, rnd))


def whole_turn(state: dict[str, Any], seat: int, moves: list[dict], rnd: random.Random) -> dict:
    """A random whole-turn placement: a listed placement with a relocation and maybe a draw."""
    placements = [m for m in moves if m["action"] == "place"]
    move = {k: v for k, v in rnd.choice(placements).items() if k != "relocate"}
    own = [f for f, cell in state["board"].items() if cell["merchant"] == seat] + [move["at"]]
    origin = rnd.choice(own)
    row, col = LAYOUT.coords[origin]
    target = f"r{row + rnd.choice((-1, 0, 1))}c{col + rnd.choice((-1, 0, 1))}"
    move["relocate"] = {"from": origin, "to": target, "when": rnd.choice(["before", "after"])}
    if state["options"]["tactical"] and rnd.random() < 0.7:
        move["draw"] = rnd.choice(["merchant", "plain"])
    return move


def mutate(move: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """``move`` with one field changed to another plausible value."""
    fields = [f"r{r}c{c}" for r in range(8) for c in range(10)]
    mutant = json.loads(json.dumps(move))
    choices = {
        "at": fields,
        "tile": list(LAYOUT.tiles),
        "merchant": ["new", "none", *fields],
        "steal": fields,
        "keep": ["hand", "inventory", *fields],
        "landing": list(LAYOUT.landing_places),
        "remove": fields,
        "draw": ["merchant", "plain"],
    }
    key = rnd.choice(sorted(set(mutant) & (set(choices) | {"relocate"})) or ["action"])
    if key == "action":
        mutant = {"action": rnd.choice(["place", "score", "decline"])}
    elif key == "relocate":
        mutant["relocate"]["to"] = rnd.choice(fields)
    else:
        mutant[key] = rnd.choice(choices[key])
    extra = rnd.choice(["relocate", "draw", "keep", None])
    if extra and extra not in mutant and mutant["action"] == "place":
        mutant[extra] = (
            {"from": rnd.choice(fields), "to": rnd.choice(fields), "when": "after"}
            if extra == "relocate"
            else rnd.choice(choices[extra])
        )
    return mutant


def play_game(players: int, tactical: bool, seed: int, rnd: random.Random) -> None:
    """Play one random game to the end, checking everything on the way."""
    state = ENGINE.setup(players, options(tactical), seed)
    log: list[tuple[int, dict]] = []
    big_markets = 0
    while ENGINE.result(state) is None:
        check_invariants(state, players)
        check_views(state, players)
        (seat,) = ENGINE.to_move(state)
        assert all(ENGINE.legal_moves(state, s) == [] for s in range(players) if s != seat)
        moves = ENGINE.legal_moves(state, seat)
        snapshot = json.dumps(state, sort_keys=True)
        check_moves(state, seat, moves, rnd)
        move = rnd.choice(moves)
        before, state = state, ENGINE.apply(state, seat, move)
        assert json.dumps(before, sort_keys=True) == snapshot, "apply changed its input"
        check_hand_refill(before, state, seat, move)
        scores = [
            (p["score"], q["score"])
            for p, q in zip(before["players"], state["players"], strict=True)
        ]
        assert all(old <= new for old, new in scores)
        if big_market_started(before, state):
            big_markets += 1
            check_big_market_cause(state, players)
        log.append((seat, move))
    assert big_markets == 1, "every game ends with exactly one big market day"
    check_end(state, players)
    replayed = ENGINE.setup(players, options(tactical), seed)
    for seat, move in log:
        replayed = ENGINE.apply(replayed, seat, move)
    assert json.dumps(replayed, sort_keys=True) == json.dumps(state, sort_keys=True)


def check_hand_refill(before: dict, after: dict, seat: int, move: dict) -> None:
    """Rule 6: a turn that ends outside market days leaves 4 boats in hand while the pile lasts."""
    turn_over = after["pending"] is None and after["market"] is None and not after["finished"]
    if move["action"] in ("place", "relocate", "finish") and turn_over and before["draw_pile"]:
        assert len(after["players"][seat]["hand"]) == 4


def big_market_started(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """True when the move from ``before`` to ``after`` opened the big market day."""
    was_big = (before["market"] or {}).get("kind") == "big"
    is_big = (after["market"] or {}).get("kind") == "big" or after["finished"]
    return is_big and not was_big


def check_big_market_cause(state: dict[str, Any], players: int) -> None:
    """The big market day comes with the last Luk Phat space, or when nobody can place.

    No boat has moved since the day opened: the first decision is still awaited.
    """
    blocked = not any(can_place(LAYOUT, state, s) for s in range(players))
    assert state["luk_phat"] == len(LAYOUT.track) or blocked


def check_end(state: dict[str, Any], players: int) -> None:
    """The game ended with the inventory count; the best score wins."""
    assert ENGINE.to_move(state) == []
    assert all(ENGINE.legal_moves(state, s) == [] for s in range(players))
    result = ENGINE.result(state)
    assert set(result["scores"]) == {str(s) for s in range(players)}
    best = max(result["scores"].values())
    assert result["winners"] == [s for s in range(players) if result["scores"][str(s)] == best]
    assert set(result["inventory_points"]) == set(result["scores"])
    check_invariants(state, players)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32), rnd=st.randoms(use_true_random=False))
def test_random_two_player_games_keep_every_invariant(seed: int, rnd: random.Random) -> None:
    play_game(2, False, seed, rnd)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32), rnd=st.randoms(use_true_random=False))
def test_random_three_player_games_keep_every_invariant(seed: int, rnd: random.Random) -> None:
    play_game(3, False, seed, rnd)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32), rnd=st.randoms(use_true_random=False))
def test_random_four_player_games_keep_every_invariant(seed: int, rnd: random.Random) -> None:
    play_game(4, False, seed, rnd)


@settings(max_examples=5, deadline=None)
@given(
    players=st.integers(2, 4),
    seed=st.integers(0, 2**32),
    rnd=st.randoms(use_true_random=False),
)
def test_random_tactical_games_keep_every_invariant(
    players: int, seed: int, rnd: random.Random
) -> None:
    play_game(players, True, seed, rnd)
