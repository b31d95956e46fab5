"""Turns, rounds, the turn-order track and the end of the game."""

from __future__ import annotations

from typing import Any

from engines.base import IllegalMove, Move, State
from engines.foreign_king import checks
from engines.foreign_king.actions import can_act
from engines.foreign_king.board import KINDS, PROVINCES, REPAY_AMOUNT, ROUND_LIMIT, VIRTUAL
from engines.foreign_king.scoring import final_scoring
from engines.foreign_king.state import current_seat, player, player_count, scores
from engines.phrases import phrase

END_REASONS = {
    "king": "The King's marker reached the score of the player with the second-most points.",
    "factories": "Every factory of the game is built and inactive.",
    "stalled": "No player could carry out any action.",
    "rounds": f"Round {ROUND_LIMIT} is over, and a game lasts at most {ROUND_LIMIT} rounds.",
}


def can_repay(state: State, seat: int) -> bool:
    """Whether ``seat`` has a loan and the 4 francs to repay it."""
    entry = player(state, seat)
    return entry["loans"] > 0 and entry["coins"] >= REPAY_AMOUNT


def end_reason(state: State) -> str | None:
    """The end condition the state meets, if any."""
    ranked = sorted(scores(state).values(), reverse=True)
    if state["king"]["track"] <= ranked[1]:
        return "king"
    factories = [
        factory for province in PROVINCES for factory in state["provinces"][province]["factories"]
    ]
    if not any(state["stock"][kind] for kind in KINDS) and not any(
        factory["active"] for factory in factories
    ):
        return "factories"
    return None


def finish_turn(state: State) -> None:
    """End the active player's turn: the end of the game, or the next turn."""
    state["ending"] = state["ending"] or end_reason(state)
    if state["ending"] is None:
        advance(state)
    elif can_repay(state, current_seat(state)):
        state["pending"] = {"seat": current_seat(state), "kind": "finish"}
    else:
        finalize(state)


def advance(state: State) -> None:
    """Hand the turn to the next player in turn order, or end the round."""
    state["turn_index"] += 1
    if state["turn_index"] == player_count(state):
        end_round(state)
    else:
        start_turn(state)


def end_round(state: State) -> None:
    """Let the turn-order choosers pick their places, then start the next round; after the
    last round (:data:`ROUND_LIMIT`) the game ends with the final scoring."""
    if state["round"] >= ROUND_LIMIT:
        state["ending"] = "rounds"
        finalize(state)
        return
    if state["order_changes"]:
        state["pending"] = {"seat": state["order_changes"][0], "kind": "set_position"}
        return
    state["pending"] = None
    state["round"] += 1
    state["turn_index"] = 0
    start_turn(state)


def start_turn(state: State) -> None:
    """Skip the player about to start when no action at all is possible for them."""
    if can_act(state, current_seat(state)):
        state["skips"] = 0
        return
    state["skips"] += 1
    if state["skips"] >= player_count(state):
        state["ending"] = "stalled"
        finalize(state)
    else:
        advance(state)


def position_options(state: State) -> list[Move]:
    """Every place on the turn-order track."""
    return [{"action": "set_position", "position": i} for i in range(player_count(state))]


def answer_position(state: State, seat: int, move: Move) -> None:
    """Put the marker of ``seat`` at ``position`` (0 = first); the others keep their order."""
    position = checks.integer(checks.field(move, "position"), "position")
    if not 0 <= position < player_count(state):
        raise IllegalMove(
            phrase(
                "Change turn order: the track has places 0 to %(last)s.",
                last=player_count(state) - 1,
            ),
            "position",
        )
    state["turn_order"].remove(seat)
    state["turn_order"].insert(position, seat)
    state["order_changes"].pop(0)
    end_round(state)


def finalize(state: State) -> None:
    """Add the final scoring to the points and record the result."""
    state["pending"] = None
    final = final_scoring(state)
    for key, parts in final.items():
        total = sum(parts.values())
        if key == VIRTUAL:
            state["virtual"]["vp"] += total
        else:
            player(state, int(key))["vp"] += total
    state["final"] = final
    state["result"] = build_result(state)


def build_result(state: State) -> dict[str, Any]:
    """Winners by points, then by royal orders (the virtual player holds none)."""
    points = scores(state)
    orders = {key: player(state, int(key))["orders"] for key in points if key != VIRTUAL}
    best = max(points.values())
    tied = [key for key, value in points.items() if value == best]
    most_orders = max(orders.get(key, 0) for key in tied)
    winners = [key for key in tied if orders.get(key, 0) == most_orders]
    return {
        "winners": [int(key) for key in winners if key != VIRTUAL],
        "scores": {key: value for key, value in points.items() if key != VIRTUAL},
        "reason": END_REASONS[state["ending"]],
        "virtual_wins": VIRTUAL in winners,
        "virtual_score": points.get(VIRTUAL),
        "final": state["final"],
    }
