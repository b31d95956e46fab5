"""Turn flow, power struggles and the end of the game: who rules Siam and who wins.

These functions change the state they are given in place (the engine hands
them a copy) or only read it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from engines.base import State
from engines.king_of_siam.board import FACTIONS, get_board

BRITISH = "british"


def contested_of(state: State) -> str | None:
    """The province of the lowest face-up tile (None once every struggle is decided)."""
    provinces = state["provinces"]
    return next((p for p in state["struggle_order"] if provinces[p]["control"] is None), None)


def majority(followers: dict[str, int]) -> str:
    """The faction with the most followers, or ``british`` on any tie (even at zero)."""
    most = max(followers.values())
    leaders = [faction for faction in FACTIONS if followers[faction] == most]
    return leaders[0] if len(leaders) == 1 else BRITISH


def resolve_struggle(state: State) -> None:
    """Decide the contested province: a sole majority takes it, any tie brings the British."""
    province = state["contested"]
    followers = state["provinces"][province]["followers"]
    control = majority(followers)
    for faction in FACTIONS:
        state["pool"][faction] += followers[faction]
        followers[faction] = 0
    state["provinces"][province]["control"] = control
    state["control_history"].append({"province": province, "control": control})
    state["contested"] = contested_of(state)


def control_tally(state: State) -> Counter[str]:
    """How many provinces each faction and the British control."""
    return Counter(
        entry["control"] for entry in state["provinces"].values() if entry["control"] is not None
    )


def is_over(state: State) -> bool:
    """True once the British hold enough provinces or every struggle is decided."""
    british = control_tally(state)[BRITISH]
    return british >= get_board(state["map"]).colony_at or state["contested"] is None


def pass_turn(state: State, seat: int) -> None:
    """``seat`` passes; when every player has passed in a row the struggle is decided."""
    players = len(state["players"])
    state["passes_in_a_row"] += 1
    if state["passes_in_a_row"] >= players:
        resolve_struggle(state)
        state["passes_in_a_row"] = 0
    state["current_seat"] = (seat + 1) % players


def finish_by_passing(state: State) -> None:
    """Decide the remaining struggles as they stand (what happens once no card is left)."""
    while not is_over(state):
        resolve_struggle(state)


# -- the end of the game ----------------------------------------------------
def outcome(state: State) -> dict[str, Any] | None:
    """None while the game runs, else the result: the contract fields but ``reason`` (the
    engine words it, :func:`.words.reason`), plus ruling, rankings and the tie-break."""
    if not is_over(state):
        return None
    tally = control_tally(state)
    counts = {name: tally[name] for name in (*FACTIONS, BRITISH)}
    if tally[BRITISH] >= get_board(state["map"]).colony_at:
        result = _colony_result(state)
    else:
        result = _faction_result(state, tally)
    result["provinces"] = counts
    return result


def _recency(state: State) -> Callable[[int], int]:
    """Seat -> how recently it played an action card (higher is later, -1: never)."""
    order = {seat: index for index, seat in enumerate(state["card_recency"])}
    return lambda seat: order.get(seat, -1)


def faction_ranking(state: State, tally: Counter[str]) -> tuple[list[str], str | None]:
    """Factions best first (most provinces, then latest control) and the second-ranked one.

    The second-ranked faction is None when the last two cannot be told apart
    (neither ever controlled a province).
    """
    last_gain = {entry["control"]: index for index, entry in enumerate(state["control_history"])}
    ranking = sorted(FACTIONS, key=lambda f: (-tally[f], -last_gain.get(f, -1)))
    second, third = ranking[1], ranking[2]
    undecided = (tally[second], last_gain.get(second)) == (tally[third], last_gain.get(third))
    return ranking, None if undecided else second


def _faction_result(state: State, tally: Counter[str]) -> dict[str, Any]:
    ranking, second = faction_ranking(state, tally)
    ruling = ranking[0]
    held = [player["followers"] for player in state["players"]]
    recency = _recency(state)

    def key(seat: int) -> tuple[int, int, int]:
        runner_up = held[seat][second] if second else 0
        return (-held[seat][ruling], -runner_up, recency(seat))

    seats = sorted(range(len(held)), key=key)
    levels = [[seat for seat in seats if key(seat)[:n] == key(seats[0])[:n]] for n in (1, 2, 3)]
    result = _finish(state, seats, levels, FACTION_TIE_BREAKS, len)
    result.update(
        ruling=ruling,
        second=second,
        faction_ranking=ranking,
        scores={str(seat): held[seat][ruling] for seat in range(len(held))},
    )
    return result


def _colony_result(state: State) -> dict[str, Any]:
    players = len(state["players"])
    recency = _recency(state)
    partners = players == 4
    groups = [(seat, seat + 2) for seat in (0, 1)] if partners else [(s,) for s in range(players)]
    sets = {}
    for group in groups:
        pooled = {f: sum(state["players"][s]["followers"][f] for s in group) for f in FACTIONS}
        for seat in group:
            sets[seat] = min(pooled.values())

    def key(seat: int) -> tuple[int, int]:
        group = groups[seat % 2] if partners else (seat,)
        return (-sets[seat], -max(recency(s) for s in group))

    seats = sorted(range(players), key=lambda seat: (key(seat), -recency(seat)))
    levels = [[seat for seat in seats if key(seat)[:n] == key(seats[0])[:n]] for n in (1, 2)]

    def sides(level: list[int]) -> int:
        return len({seat % 2 for seat in level}) if partners else len(level)

    result = _finish(state, seats, levels, COLONY_TIE_BREAKS, sides)
    result.update(
        ruling=BRITISH,
        second=None,
        faction_ranking=[],
        scores={str(seat): sets[seat] for seat in range(players)},
    )
    return result


#: Which rule separates the best players at each level of a faction result's ranking key
#: (ruling followers, second-ranked followers, the last card played) and of a colony's
#: (complete sets, who played last); ``shared`` when none does.
FACTION_TIE_BREAKS = ("most", "second_faction", "last_card", "shared")
COLONY_TIE_BREAKS = ("most", "last_card", "shared")


def _finish(
    state: State,
    seats: list[int],
    levels: list[list[int]],
    tie_breaks: tuple[str, ...],
    sides: Callable[[list[int]], int],
) -> dict[str, Any]:
    """Winners, ranking and the rule that decided (``decided_by``, between the ``tied`` seats).

    ``levels`` are the seats level with the best one on the first criterion,
    on the first two, ...; ``sides(level)`` counts the players (or teams) in
    a level. With 4 players a winner's partner wins too.
    """
    decided_by, tied = tie_breaks[-1], levels[-1]
    for index, level in enumerate(levels):
        if sides(level) == 1:
            decided_by, tied = tie_breaks[index], levels[index - 1] if index else []
            break
    winners = set(levels[-1])
    if len(state["players"]) == 4:
        winners |= {(seat + 2) % 4 for seat in winners}
    return {
        "winners": sorted(winners),
        "decided_by": decided_by,
        "tied": sorted(tied),
        "ranking": seats,
    }
