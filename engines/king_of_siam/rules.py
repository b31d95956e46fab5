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
    """None while the game runs, else the result (contract fields plus ruling and ranking)."""
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


def _seat_list(seats: list[int]) -> str:
    names = [f"seat {seat}" for seat in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


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
    best = [seat for seat in seats if key(seat) == key(seats[0])]
    reason = (
        f"{ruling.capitalize()} rules Siam with {tally[ruling]} provinces"
        f"{_ruling_tie_note(ranking, tally)}. "
        f"{_player_note(seats, key, ruling, second)}"
    )
    return _finish(
        state,
        best,
        seats,
        reason,
        ruling,
        ranking,
        {str(seat): held[seat][ruling] for seat in range(len(held))},
    )


def _ruling_tie_note(ranking: list[str], tally: Counter[str]) -> str:
    tied = [f.capitalize() for f in ranking[1:] if tally[f] == tally[ranking[0]]]
    if not tied:
        return ""
    return f" (tied with {' and '.join(tied)}, but it gained control of a province last)"


def _player_note(
    seats: list[int], key: Callable[[int], tuple[int, ...]], ruling: str, second: str | None
) -> str:
    """Why the best seat(s) won, naming the tie-break that decided."""
    first = key(seats[0])
    most = [seat for seat in seats if key(seat)[0] == first[0]]
    if len(most) == 1:
        return f"Seat {seats[0]} has the most {ruling.capitalize()} followers ({-first[0]})."
    note = (
        f"{_seat_list(sorted(most)).capitalize()} tie with {-first[0]} "
        f"{ruling.capitalize()} followers"
    )
    still = [seat for seat in most if key(seat)[:2] == first[:2]]
    if len(still) == 1:
        return note + f"; seat {seats[0]} has the most {second.capitalize()} followers of them."
    if second:
        note += (
            f"; {_seat_list(sorted(still))} also tie with {-first[1]} "
            f"{second.capitalize()} followers"
        )
    if key(still[1]) == first:
        return note + "; no rule breaks the tie, so they share the win."
    return (
        note + f"; the tied player who played an action card last loses, so seat "
        f"{seats[0]}, whose last card lies furthest back, wins."
    )


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
    best = [seat for seat in seats if key(seat) == key(seats[0])]
    who = "team" if partners else "player"
    reason = (
        f"Siam is a British colony: the British control "
        f"{control_tally(state)[BRITISH]} provinces. The {who} with the most complete "
        f"sets of followers ({sets[seats[0]]}) wins"
    )
    tied = [seat for seat in seats if key(seat)[0] == key(seats[0])[0]]
    if len(tied) > len(best):
        reason += f"; of the tied {who}s, the one who played an action card last wins"
    elif len(best) > (2 if partners else 1):
        reason += f"; the tied {who}s share the win"
    return _finish(
        state,
        best,
        seats,
        reason + f": {_seat_list(sorted(best))}.",
        BRITISH,
        [],
        {str(seat): sets[seat] for seat in range(players)},
    )


def _finish(
    state: State,
    best: list[int],
    ranking: list[int],
    reason: str,
    ruling: str,
    factions: list[str],
    scores: dict[str, int],
) -> dict[str, Any]:
    """The result dict; with 4 players a winner's partner wins too."""
    winners = set(best)
    if len(state["players"]) == 4:
        winners |= {(seat + 2) % 4 for seat in best}
        if len(winners) > len(best):
            reason += f" Partners share the win: {_seat_list(sorted(winners))}."
    return {
        "winners": sorted(winners),
        "scores": scores,
        "reason": reason,
        "ruling": ruling,
        "faction_ranking": factions,
        "ranking": ranking,
    }
