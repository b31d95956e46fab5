"""Scoring a province with the King, the decisions around it, and the final scoring.

A King's scoring runs in steps, each of which may wait for a decision
(``state["pending"]``): parliamentarians offered to the parliament majority
first (``bring_parliament``), the province's majority scores, then either the
opponent moves the virtual player (``virtual``, 2 players) or, without a
majority, the King's mover may switch off a factory (``deactivate``).
"""

from __future__ import annotations

from typing import Any

from engines.base import IllegalMove, Move, State
from engines.foreign_king import checks
from engines.foreign_king.board import (
    CITIZENS_PER_SEAT,
    FACTORY_POINTS,
    LOAN_PENALTY,
    NAMES,
    NEIGHBOURS,
    PROVINCES,
    VIRTUAL,
)
from engines.foreign_king.state import (
    add_count,
    add_points,
    citizens,
    controller,
    current_seat,
    is_two_player,
    owner_key,
    player_count,
)
from engines.phrases import counted, phrase

PROVINCE_PRIZE = 9
ORDERS_PRIZE = 9
PARLIAMENT_PRIZE = 3
COINS_PRIZE = 3
VIRTUAL_PROVINCE_FACTOR = 2
VIRTUAL_INDUSTRY_BONUS = 3


# -- the King arrives ----------------------------------------------------
def bring_candidates(state: State) -> list[int]:
    """Seats offered to bring their parliamentarians: most first, ties by turn order.

    In a 2-player game nobody may bring them on a tie.
    """
    counts = {int(key): count for key, count in state["parliament"].items() if count > 0}
    if is_two_player(state) and len(counts) == 2 and len(set(counts.values())) == 1:
        return []
    order = state["turn_order"]
    return sorted(counts, key=lambda seat: (-counts[seat], order.index(seat)))


def king_arrives(state: State, province: str) -> None:
    """Start scoring ``province`` if any citizen stands there."""
    if citizens(state, province):
        offer_parliament(state, province, bring_candidates(state))


def offer_parliament(state: State, province: str, queue: list[int]) -> None:
    """Ask the next candidate to bring the parliamentarians, or score when none is left."""
    if queue:
        state["pending"] = {
            "seat": queue[0],
            "kind": "bring_parliament",
            "province": province,
            "queue": queue[1:],
        }
        return
    state["pending"] = None
    score_province(state, province)


def answer_bring(state: State, seat: int, move: Move) -> None:
    """Bring ALL parliamentarians of ``seat`` to the scored province, or pass the offer on."""
    accept = checks.field(move, "accept")
    if not isinstance(accept, bool):
        raise IllegalMove(phrase("'accept' must be true or false."), "shape")
    pending = state["pending"]
    if not accept:
        offer_parliament(state, pending["province"], pending["queue"])
        return
    key = owner_key(seat)
    add_count(citizens(state, pending["province"]), key, state["parliament"].pop(key))
    state["pending"] = None
    score_province(state, pending["province"])


# -- scoring a province ----------------------------------------------------
def province_points(state: State, province: str, holder: str) -> int:
    """Points of the majority: active factories (then switched off), else 1 per 3 citizens."""
    active = [factory for factory in state["provinces"][province]["factories"] if factory["active"]]
    for factory in active:
        factory["active"] = False
    if active:
        return sum(FACTORY_POINTS[factory["kind"]] for factory in active)
    return citizens(state, province)[holder] // CITIZENS_PER_SEAT


def score_province(state: State, province: str) -> None:
    """Score ``province``: its majority gains points, or the mover may switch a factory off."""
    holder = controller(state, province)
    if holder is None:
        if any(factory["active"] for factory in state["provinces"][province]["factories"]):
            state["pending"] = {
                "seat": current_seat(state),
                "kind": "deactivate",
                "province": province,
            }
        return
    points = province_points(state, province, holder)
    add_points(state, holder, points)
    if is_two_player(state) and holder != VIRTUAL and points > 1:
        state["pending"] = {"seat": 1 - int(holder), "kind": "virtual", "steps": points - 1}


def deactivate_options(state: State) -> list[Move]:
    """Each active factory of the scored province, or none."""
    factories = state["provinces"][state["pending"]["province"]]["factories"]
    indices: list[int | None] = [i for i, factory in enumerate(factories) if factory["active"]]
    return [{"action": "deactivate", "factory": index} for index in indices + [None]]


def answer_deactivate(state: State, seat: int, move: Move) -> None:
    """Switch off the chosen active factory (``null``: none)."""
    index = checks.field(move, "factory")
    factories = state["provinces"][state["pending"]["province"]]["factories"]
    if index is not None:
        checks.integer(index, "factory")
        if not 0 <= index < len(factories) or not factories[index]["active"]:
            raise IllegalMove(
                phrase(
                    "Deactivate: choose an active factory of the scored province by its index, "
                    "or none."
                ),
                "deactivate",
            )
        factories[index]["active"] = False
    state["pending"] = None


# -- the virtual player (2 players) --------------------------------------------
def virtual_options(state: State) -> list[Move]:
    """Every single step: place a virtual citizen, or move one to a neighbouring province."""
    steps: list[dict[str, Any]] = []
    if state["virtual"]["supply"] > 0:
        steps += [{"place": province} for province in PROVINCES]
    for province in PROVINCES:
        if citizens(state, province).get(VIRTUAL):
            steps += [{"move": [province, target]} for target in NEIGHBOURS[province]]
    return [{"action": "virtual", "steps": [step]} for step in steps]


def _virtual_step(state: State, step: Any) -> None:
    """Carry out one virtual step; refuse a broken one."""
    if not isinstance(step, dict) or len(step) != 1 or not {"place", "move"} & set(step):
        raise IllegalMove(phrase('A virtual step is {"place": p} or {"move": [p, q]}.'), "shape")
    if "place" in step:
        province = checks.province(step["place"])
        if state["virtual"]["supply"] == 0:
            raise IllegalMove(
                phrase(
                    "Virtual player: all its citizens are on the board, so they can only be moved."
                ),
                "virtual_supply",
            )
        state["virtual"]["supply"] -= 1
        add_count(citizens(state, province), VIRTUAL, 1)
        return
    move = step["move"]
    if not isinstance(move, list) or len(move) != 2:
        raise IllegalMove(phrase('A virtual move is {"move": [from, to]}.'), "shape")
    origin, target = checks.province(move[0]), checks.province(move[1])
    if not citizens(state, origin).get(VIRTUAL):
        raise IllegalMove(
            phrase("Virtual player: it has no citizen in %(province)s.", province=NAMES[origin]),
            "virtual_move",
        )
    if target not in NEIGHBOURS[origin]:
        raise IllegalMove(
            phrase(
                "Virtual player: %(province)s does not border %(origin)s; a virtual citizen moves "
                "into a neighbouring province.",
                province=NAMES[target],
                origin=NAMES[origin],
            ),
            "virtual_move",
        )
    add_count(citizens(state, origin), VIRTUAL, -1)
    add_count(citizens(state, target), VIRTUAL, 1)


def answer_virtual(state: State, seat: int, move: Move) -> None:
    """Carry out up to the owed number of virtual steps, in order."""
    steps = checks.listing(checks.field(move, "steps"), "steps")
    owed = state["pending"]["steps"]
    if len(steps) > owed:
        raise IllegalMove(
            counted(
                "Virtual player: you owe %(count)s more step (points scored minus 1).",
                "Virtual player: you owe %(count)s more steps (points scored minus 1).",
                owed,
            ),
            "virtual_count",
        )
    for step in steps:
        _virtual_step(state, step)
    if len(steps) == owed:
        state["pending"] = None
    else:
        state["pending"]["steps"] = owed - len(steps)


# -- final scoring ---------------------------------------------------------
def share(counts: dict[str, int], prize: int) -> dict[str, int]:
    """``prize`` to the owner(s) of the highest positive count, split evenly and rounded down."""
    best = max(counts.values(), default=0)
    if best <= 0:
        return {}
    winners = [key for key, count in counts.items() if count == best]
    return {key: prize // len(winners) for key in winners}


def province_weights(state: State) -> dict[str, int]:
    """Provinces controlled by each owner; each factory in a province counts 1 more."""
    weights: dict[str, int] = {}
    for province in PROVINCES:
        holder = controller(state, province)
        if holder is not None:
            factories = len(state["provinces"][province]["factories"])
            weights[holder] = weights.get(holder, 0) + 1 + factories
    return weights


def _virtual_bonus(state: State, province_share: int) -> dict[str, int]:
    """The virtual player's end points: provinces (x2), majorities and industrial majorities."""
    held = [province for province in PROVINCES if controller(state, province) == VIRTUAL]
    industrial = [province for province in held if state["provinces"][province]["factories"]]
    return {
        "provinces": province_share * VIRTUAL_PROVINCE_FACTOR,
        "majorities": len(held),
        "industry": VIRTUAL_INDUSTRY_BONUS * len(industrial),
    }


def final_scoring(state: State) -> dict[str, dict[str, int]]:
    """The end-of-game points of each owner key, by category."""
    seats = [owner_key(seat) for seat in range(player_count(state))]
    players = state["players"]
    weights = province_weights(state)
    contenders = seats + ([VIRTUAL] if state["virtual"] is not None else [])
    provinces = share({key: weights.get(key, 0) for key in contenders}, PROVINCE_PRIZE)
    orders = share({key: players[int(key)]["orders"] for key in seats}, ORDERS_PRIZE)
    assembly = share({key: state["parliament"].get(key, 0) for key in seats}, PARLIAMENT_PRIZE)
    purse = share({key: players[int(key)]["coins"] for key in seats}, COINS_PRIZE)
    final = {
        key: {
            "loans": -LOAN_PENALTY * players[int(key)]["loans"],
            "provinces": provinces.get(key, 0),
            "orders": orders.get(key, 0),
            "parliament": assembly.get(key, 0),
            "coins": purse.get(key, 0),
        }
        for key in seats
    }
    if state["virtual"] is not None:
        final[VIRTUAL] = _virtual_bonus(state, provinces.get(VIRTUAL, 0))
    return final
