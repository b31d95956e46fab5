"""Market days: who scores when, the ``score`` and ``decline`` moves, and the end of the game.

``state["market"]`` is None between market days, else
``{"kind": "small", "trigger": t, "seat": s, "step": k}`` (decision ``k`` of
the two rounds starting at ``t``) or
``{"kind": "big", "trigger": t, "seat": s, "declined": [seats]}`` (seats
that declined since the last scoring). ``seat`` is the seat asked now; seats
that cannot score any landing place are passed over automatically.
"""

from __future__ import annotations

from engines.bangkok_klongs.board import (
    BIG,
    SMALL,
    Layout,
    can_score,
    inventory_points,
    landing_points,
    merchants_on_board,
    removable,
    scorable_landings,
)
from engines.bangkok_klongs.rules import check_keys, text
from engines.base import IllegalMove, Move, State
from engines.phrases import Phrase, phrase

SCORE_KEYS = frozenset({"action", "landing", "remove"})
DECLINE_KEYS = frozenset({"action"})


def start_market(state: State, kind: str, trigger: int) -> None:
    """Open a market day caused by ``trigger`` (changes ``state``).

    The rest of the trigger's turn waits in ``pending`` until a small market
    day is over; after the big one only the inventory count follows, so it
    is dropped.
    """
    if kind == SMALL:
        state["market"] = {"kind": SMALL, "trigger": trigger, "seat": trigger, "step": 0}
    else:
        starter = big_market_starter(state, trigger)
        state["pending"] = None
        state["market"] = {"kind": BIG, "trigger": trigger, "seat": starter, "declined": []}


def big_market_starter(state: State, trigger: int) -> int:
    """The seat furthest behind; ties: fewer merchants on the board, then first from ``trigger``."""
    count = len(state["players"])
    order = [(trigger + k) % count for k in range(count)]
    return min(
        order,
        key=lambda seat: (
            state["players"][seat]["score"],
            merchants_on_board(state["board"], seat),
            order.index(seat),
        ),
    )


def settle_market(layout: Layout, state: State) -> bool:
    """Ask the next seat able to score; close the market day if none is left.

    Returns True while a decision is awaited. Changes ``state``.
    """
    market = state["market"]
    count = len(state["players"])
    if market["kind"] == SMALL:
        while market["step"] < 2 * count:
            seat = (market["trigger"] + market["step"]) % count
            if scorable_landings(layout, state["board"], seat):
                market["seat"] = seat
                return True
            market["step"] += 1
        state["market"] = None
        state["current"] = (market["trigger"] + 1) % count
        return False
    for k in range(count):
        seat = (market["seat"] + k) % count
        if seat not in market["declined"] and scorable_landings(layout, state["board"], seat):
            market["seat"] = seat
            return True
    finish_game(layout, state)
    return False


def finish_game(layout: Layout, state: State) -> None:
    """Score the inventories and end the game (changes ``state``)."""
    points = {}
    for player in state["players"]:
        points[str(player["seat"])] = inventory_points(layout, player["inventory"])
        player["score"] += points[str(player["seat"])]
    state["inventory_points"] = points
    state["market"] = None
    state["finished"] = True


def market_moves(layout: Layout, state: State, seat: int) -> list[Move]:
    """Every ``score`` move of ``seat`` now, then ``decline``."""
    board, kind = state["board"], state["market"]["kind"]
    moves: list[Move] = [
        {"action": "score", "landing": landing, "remove": field}
        for landing in scorable_landings(layout, board, seat)
        for field in removable(layout, board, landing, seat, kind)
    ]
    moves.append({"action": "decline"})
    return moves


def play_score(layout: Layout, state: State, seat: int, move: Move) -> State:
    """Score a landing place and lift one boat into the scorer's inventory (changes
    ``state``)."""
    check_keys(move, SCORE_KEYS)
    landing, field = text(move, "landing"), text(move, "remove")
    board, kind = state["board"], state["market"]["kind"]
    if landing not in layout.landing_places:
        raise IllegalMove(
            phrase("There is no landing place %(landing)s on this board.", landing=landing),
            "landing_place",
        )
    if not can_score(layout, board, landing, seat):
        raise IllegalMove(
            phrase(
                "Market day: a landing place scores only when all four water fields around it "
                "hold boats and at least one of them is yours; %(landing)s does not qualify.",
                landing=landing,
            ),
            "landing_place",
        )
    if field not in removable(layout, board, landing, seat, kind):
        raise IllegalMove(_removal_message(kind, landing), "removal")
    for scorer, points in landing_points(layout, board, landing).items():
        state["players"][scorer]["score"] += points
    cell = board.pop(field)
    state["players"][seat]["inventory"].append(cell["tile"])
    if cell["merchant"] is not None:
        state["players"][seat]["merchants"] += 1
    _next_decision(state, seat, declined=False)
    return state


def _removal_message(kind: str, landing: str) -> Phrase:
    """Why the chosen boat may not be removed after scoring."""
    if kind == SMALL:
        return phrase(
            "Small market day: after scoring you remove one of your own boats of %(landing)s.",
            landing=landing,
        )
    return phrase(
        "Big market day: after scoring you remove one of your own boats or a neutral boat (one "
        "with a printed merchant) of %(landing)s; never another player's boat, a boat with an "
        "empty merchant spot or a special boat.",
        landing=landing,
    )


def play_decline(state: State, seat: int, move: Move) -> State:
    """Pass on this scoring opportunity (changes ``state``)."""
    check_keys(move, DECLINE_KEYS)
    _next_decision(state, seat, declined=True)
    return state


def _next_decision(state: State, seat: int, declined: bool) -> None:
    """Move the market day on after ``seat``'s decision (changes ``state``)."""
    market = state["market"]
    if market["kind"] == SMALL:
        market["step"] += 1
        return
    market["declined"] = [*market["declined"], seat] if declined else []
    market["seat"] = (seat + 1) % len(state["players"])
