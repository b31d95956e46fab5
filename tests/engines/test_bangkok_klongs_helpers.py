"""Shared helpers of the Bangkok Klongs tests (this module holds no tests).

Tile ids follow CONTRACT 4.4: ``t{9*g+i}`` for good ``g`` in the order shrimp,
flower, avocado, pineapple, aubergine, fish, banana and index ``i`` with
baskets 0,1,1,1,2,2,2,3,3; indexes 1, 4, 7 are neutral, 4 and 7 carry Luk Phat.
"""

from __future__ import annotations

from typing import Any

from engines.bangkok_klongs import BangkokKlongsEngine
from engines.bangkok_klongs.board import BOARDS

ENGINE = BangkokKlongsEngine()
GOODS = ("shrimp", "flower", "avocado", "pineapple", "aubergine", "fish", "banana")
THIEVES = ("t63", "t64", "t65")
OVERSEERS = ("t66", "t67", "t68")
COOKS = ("t69", "t70", "t71")


def tile(good: str, index: int) -> str:
    """The id of boat ``index`` (0..8) of ``good``."""
    return f"t{9 * GOODS.index(good) + index}"


def plain(good: str, baskets: int, nth: int = 0) -> str:
    """A boat with an empty merchant spot and ``baskets`` baskets (0..3)."""
    indexes = {0: (0,), 1: (2, 3), 2: (5, 6), 3: (8,)}[baskets]
    return tile(good, indexes[nth])


def neutral(good: str, baskets: int) -> str:
    """The neutral boat of ``good`` with ``baskets`` (1 plain, 2 or 3 with Luk Phat)."""
    return tile(good, {1: 1, 2: 4, 3: 7}[baskets])


def options(tactical: bool = False) -> dict[str, Any]:
    """The game options."""
    return {"tactical": tactical, "board": "standard"}


def make(
    players: int = 2,
    board: dict[str, tuple[str, int | None]] | None = None,
    hands: list[list[str]] | None = None,
    to_move: int = 0,
    tactical: bool = False,
    seed: int = 7,
    seats: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A state from a position: ``board`` maps fields to (tile, merchant seat or None)."""
    entries = [dict(entry) for entry in (seats or [{} for _ in range(players)])]
    for entry, hand in zip(entries, hands or [], strict=False):
        entry["hand"] = hand
    position = {
        "board": {f: {"tile": t, "merchant": m} for f, (t, m) in (board or {}).items()},
        "players": entries,
        "to_move": to_move,
        **extra,
    }
    return ENGINE.from_position(players, options(tactical), seed, position)


def play(state: dict[str, Any], seat: int, text: str) -> dict[str, Any]:
    """The state after ``seat`` plays the move written as ``text``."""
    return ENGINE.apply(state, seat, ENGINE.parse(text))


def placements(state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The listed placements of ``seat`` that are whole turns (no move card played)."""
    return [
        m for m in ENGINE.legal_moves(state, seat) if m["action"] == "place" and "relocate" not in m
    ]


def relocations_listed(state: dict[str, Any], seat: int) -> set[tuple[str, str]]:
    """The ``(from, to)`` move-card decisions listed for ``seat``."""
    return {
        (m["from"], m["to"]) for m in ENGINE.legal_moves(state, seat) if m["action"] == "relocate"
    }


def steps_of(move: Any) -> list[list[Any]]:
    """The ways a whole-turn ``place`` move splits into decisions (none for other moves).

    ``relocate {from, to, before}`` is a ``relocate`` decision, then the
    placement; ``relocate {from, to, after}`` is the placement (with
    ``relocate after``, or without it when the pile is chosen next), then the
    ``relocate`` decision, drawing as the move says; a ``draw`` on a
    placement otherwise goes to a ``finish``.
    """
    if not isinstance(move, dict) or move.get("action") != "place":
        return []
    place = {k: v for k, v in move.items() if k not in ("relocate", "draw")}
    draw = {"draw": move["draw"]} if "draw" in move else {}
    relocation = move.get("relocate")
    if relocation is None:
        return [[place, {"action": "finish", **draw}]] if draw else []
    if not isinstance(relocation, dict) or set(relocation) != {"from", "to", "when"}:
        return []
    step = {"action": "relocate", "from": relocation["from"], "to": relocation["to"]}
    if relocation["when"] == "before":
        return [[step, {**place, **draw}]]
    return [[{**place, "relocate": {"when": "after"}}, {**step, **draw}], [place, {**step, **draw}]]


def listed_outcome(state: dict[str, Any], seat: int, move: Any) -> dict[str, Any] | None:
    """The state ``move`` leads to through listed decisions of ``seat``: itself if listed, else
    the decisions of a whole-turn move (see :func:`steps_of`); None if it is not reachable.

    A whole-turn move ends where its placement reaches a market day: what follows it is
    never part of the same move.
    """
    if move in ENGINE.legal_moves(state, seat):
        return ENGINE.apply(state, seat, move)
    for steps in steps_of(move):
        reached: dict[str, Any] | None = state
        for step in steps:
            if reached is None or reached_market_day(state, reached):
                reached = None
                break
            reached = listed_outcome(reached, seat, step)
        if reached is not None:
            return reached
    return None


def reached_market_day(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """True when the Luk Phat marker moved onto a market-day space from ``before`` to ``after``."""
    market_days = BOARDS[after["options"]["board"]].market_days
    return after["luk_phat"] != before["luk_phat"] and after["luk_phat"] in market_days


def hand(state: dict[str, Any], seat: int) -> list[str]:
    """``seat``'s hand as the seat sees it."""
    return ENGINE.view(state, seat)["hand"]


def player(state: dict[str, Any], seat: int) -> dict[str, Any]:
    """``seat``'s public entry."""
    return ENGINE.view(state, None)["players"][seat]


def all_tiles(state: dict[str, Any]) -> list[str]:
    """Every tile id the state holds anywhere (board, hands, inventories, box, pile)."""
    tiles = [cell["tile"] for cell in state["board"].values()] + state["box"] + state["draw_pile"]
    for entry in state["players"]:
        tiles += entry["hand"] + entry["inventory"]
    return tiles
