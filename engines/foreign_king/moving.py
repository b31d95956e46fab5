"""Moving citizens: the whole move at once, or one step at a time.

The rulebook ("Einen Bürger bewegen"): the player moves one of their citizens
into a neighbouring province or back to their supply; for 1 franc each they
may move further citizens or move an already moved citizen one province
further. All moved citizens come from one province.

The whole move ``{"action": "move_citizens", "from", "paths"}`` gives every
citizen's path at once. Step by step, ``{"action": "step", "from", "to"}``
chooses the action and moves one citizen one province (or to the supply,
``"to": "supply"``). While a further step is possible and affordable the
move stays open: ``pending`` is ``{"seat", "kind": "move_citizens", "from",
"paths"}`` (the origin, and each moved citizen's path so far, the one moved
last at the end) and the same seat answers with another ``step`` (a further
citizen from the origin, or a moved citizen one province on, 1 franc each)
or ``{"action": "end_move"}``. Both ways reach the same states.
"""

from __future__ import annotations

from typing import Any

from engines.base import IllegalMove, Move, State
from engines.foreign_king import checks
from engines.foreign_king.board import MOVE, NAMES, NEIGHBOURS, PROVINCES, SUPPLY
from engines.foreign_king.state import add_count, citizens, own_citizens, owner_key, player
from engines.phrases import Phrase, phrase

#: The refusal of a citizen going back to the supply after a step.
STRAIGHT_BACK = phrase(
    "Move citizens: a citizen goes back to the supply straight from its province."
)

STEP = "step"
END_MOVE = "end_move"


def _relocate(state: State, seat: int, source: str, target: str) -> None:
    """Move one citizen of ``seat`` from province ``source`` to ``target`` (or the supply)."""
    key = owner_key(seat)
    add_count(citizens(state, source), key, -1)
    if target == SUPPLY:
        player(state, seat)["supply"] += 1
    else:
        add_count(citizens(state, target), key, 1)


def _one_at_a_time(target: str, source: str) -> Phrase:
    """The refusal of a step from ``source`` into ``target``, which does not border it."""
    return phrase(
        "Move citizens: %(province)s does not border %(origin)s; a citizen moves one province "
        "at a time into a neighbouring province.",
        province=NAMES[target],
        origin=NAMES[source],
    )


def _no_return(target: str) -> Phrase:
    """The refusal of a citizen coming back to ``target`` in the same action."""
    return phrase(
        "Move citizens: a citizen may not return to %(province)s in the same action.",
        province=NAMES[target],
    )


# -- the whole move -------------------------------------------------------
def _path_steps(origin: str, path: Any) -> int:
    """The number of steps of one citizen's path; refuse a broken path."""
    steps = checks.listing(path, "path")
    if SUPPLY in steps and steps != [SUPPLY]:
        raise IllegalMove(STRAIGHT_BACK, "path")
    visited = [origin]
    for step in steps:
        target = checks.place(step)
        if target != SUPPLY and target not in NEIGHBOURS[visited[-1]]:
            raise IllegalMove(_one_at_a_time(target, visited[-1]), "path")
        if target in visited:
            raise IllegalMove(_no_return(target), "path")
        visited.append(target)
    return len(steps)


def whole_check(state: State, seat: int, move: Move, coins: int) -> None:
    """Refuse moves from a province without enough own citizens, bad paths, or unpaid steps."""
    origin = checks.province(checks.field(move, "from"))
    paths = checks.listing(checks.field(move, "paths"), "paths")
    steps = sum(_path_steps(origin, path) for path in paths)
    if len(paths) > own_citizens(state, seat, origin):
        raise IllegalMove(
            phrase(
                "Move citizens: all moved citizens come from one province, and you have only "
                "%(count)s in %(province)s.",
                count=own_citizens(state, seat, origin),
                province=NAMES[origin],
            ),
            "citizens",
        )
    if steps - 1 > coins:
        raise IllegalMove(
            phrase(
                "Move citizens: the first step is free, each further citizen or step costs "
                "1 franc (%(cost)s for %(count)s steps).",
                cost=steps - 1,
                count=steps,
            ),
            "coins",
        )


def whole_perform(state: State, seat: int, move: Move) -> None:
    """Move each citizen to the end of its path and pay for the extra steps."""
    for path in move["paths"]:
        _relocate(state, seat, move["from"], path[-1])
    player(state, seat)["coins"] -= sum(len(path) for path in move["paths"]) - 1


# -- step by step -----------------------------------------------------------
def _step(source: str, target: str) -> Move:
    """The step of a citizen from ``source`` to ``target``."""
    return {"action": STEP, "from": source, "to": target}


def first_steps(state: State, seat: int, coins: int) -> list[Move]:
    """Every first step: an own citizen into a neighbouring province or back to the supply."""
    return [
        _step(origin, target)
        for origin in PROVINCES
        if own_citizens(state, seat, origin)
        for target in (SUPPLY, *NEIGHBOURS[origin])
    ]


def _check_from_origin(state: State, seat: int, origin: str, target: str) -> None:
    """Refuse a citizen leaving ``origin`` without an own citizen there or off the borders."""
    if not own_citizens(state, seat, origin):
        raise IllegalMove(
            phrase(
                "Move citizens: you have no citizen left in %(province)s.", province=NAMES[origin]
            ),
            "citizens",
        )
    if target != SUPPLY and target not in NEIGHBOURS[origin]:
        raise IllegalMove(
            phrase(
                "Move citizens: %(province)s does not border %(origin)s; a citizen moves into a "
                "neighbouring province or back to the supply.",
                province=NAMES[target],
                origin=NAMES[origin],
            ),
            "path",
        )


def first_step_check(state: State, seat: int, move: Move, coins: int) -> None:
    """Refuse a first step without an own citizen where it starts, or off the borders."""
    origin = checks.province(checks.field(move, "from"))
    _check_from_origin(state, seat, origin, checks.place(checks.field(move, "to")))


def first_step_perform(state: State, seat: int, move: Move) -> None:
    """Move the citizen (free) and keep the move open while a further step is possible."""
    _relocate(state, seat, move["from"], move["to"])
    state["pending"] = {"seat": seat, "kind": MOVE, "from": move["from"], "paths": [[move["to"]]]}
    _close_when_done(state, seat)


def _onward(pending: dict[str, Any], source: str, target: str) -> int | None:
    """The index of the citizen moved last that stands in ``source`` and may enter ``target``."""
    paths = pending["paths"]
    for index in range(len(paths) - 1, -1, -1):
        if paths[index][-1] == source and target not in paths[index]:
            return index
    return None


def _further_steps(state: State, seat: int) -> list[Move]:
    """Every further step: a citizen from the origin, or a moved citizen one province on."""
    pending = state["pending"]
    origin = pending["from"]
    steps = []
    if own_citizens(state, seat, origin):
        steps += [_step(origin, target) for target in (SUPPLY, *NEIGHBOURS[origin])]
    ends = dict.fromkeys(path[-1] for path in pending["paths"] if path[-1] != SUPPLY)
    for source in ends:
        steps += [
            _step(source, target)
            for target in NEIGHBOURS[source]
            if target != origin and _onward(pending, source, target) is not None
        ]
    return steps


def _close_when_done(state: State, seat: int) -> None:
    """End the move when no further step is affordable or possible."""
    if player(state, seat)["coins"] < 1 or not _further_steps(state, seat):
        state["pending"] = None


def further_options(state: State) -> list[Move]:
    """Ending the open move, or a further step."""
    return [{"action": END_MOVE}, *_further_steps(state, state["pending"]["seat"])]


def _check_onward(pending: dict[str, Any], source: str, target: str) -> int:
    """The index of the moved citizen in ``source`` that goes on to ``target``; else refuse."""
    if not any(path[-1] == source for path in pending["paths"]):
        raise IllegalMove(
            phrase(
                "Move citizens: all moved citizens come from %(origin)s, and none moved in this "
                "action stands in %(province)s.",
                origin=NAMES[pending["from"]],
                province=NAMES[source],
            ),
            "citizens",
        )
    if target == SUPPLY:
        raise IllegalMove(STRAIGHT_BACK, "path")
    if target not in NEIGHBOURS[source]:
        raise IllegalMove(_one_at_a_time(target, source), "path")
    index = _onward(pending, source, target)
    if index is None or target == pending["from"]:
        raise IllegalMove(_no_return(target), "path")
    return index


def answer_step(state: State, seat: int, move: Move) -> None:
    """A further step for 1 franc: a citizen from the origin, or a moved one a province on."""
    pending = state["pending"]
    source = checks.province(checks.field(move, "from"))
    target = checks.place(checks.field(move, "to"))
    paths = pending["paths"]
    if source == pending["from"]:
        _check_from_origin(state, seat, source, target)
        paths.append([target])
    else:
        paths.append(paths.pop(_check_onward(pending, source, target)) + [target])
    _relocate(state, seat, source, target)
    player(state, seat)["coins"] -= 1
    _close_when_done(state, seat)


def answer_end(state: State, seat: int, move: Move) -> None:
    """End the move of citizens."""
    state["pending"] = None
