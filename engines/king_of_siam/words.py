"""King of Siam in its own words: moves as sentences, prompts, the guided questions, results.

Names are the ones players say: provinces as on the map ("Nakhon Si
Thammarat"), cards as printed ("Khon Thai", "1 vs 1"), factions ("Rama",
"Lao", "Malay"). Every sentence says only what the public log shows: the
card played is public, the cards left in a hand are not.

    >>> from engines.king_of_siam import KingOfSiamEngine
    >>> engine, names = KingOfSiamEngine(), ["Bob"] * 3
    >>> before = engine.setup(3, {}, 1)
    >>> seat = engine.to_move(before)[0]
    >>> move = engine.parse("rama korat sukhothai", before)
    >>> after = engine.apply(before, seat, move)
    >>> describe(before, after, seat, move, names)
    'Bob plays Rama: a Rama follower to Korat and one to Sukhothai.'
    >>> prompt(after, seat)
    'take a follower'
    >>> take = {"action": "take", "province": "kedah", "faction": "lao"}
    >>> describe(after, engine.apply(after, seat, take), seat, take, names)
    'Bob takes a Lao follower from Kedah.'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engines.base import Move, State
from engines.king_of_siam.board import FACTION_NAMES, FACTIONS, RULERS, get_board
from engines.king_of_siam.cards import CARD_TITLES, Table, two_for_one_exists
from engines.king_of_siam.rules import BRITISH, is_over
from engines.words import Label, Question, join, plural, result_sentence

#: What a card does when it can do nothing, after "Bob plays <card>".
NOTHING = {
    "maharacha": "no two tiles can be swapped",
    "khon_thai": "the pool holds no follower",
    "one_vs_one": "there are no two followers to swap",
    "two_vs_one": "there are no followers to swap",
}
PASS = "pass"
#: Province names of a map, by province.
Names = Mapping[str, str]


# -- names ----------------------------------------------------------------------
def province_name(map_name: str, province: str) -> str:
    """The province as the map names it: ``nakhon-si-thammarat`` -> "Nakhon Si Thammarat"."""
    return get_board(map_name).names[province]


def card_name(card: str) -> str:
    """The card as printed: ``one_vs_one`` -> "1 vs 1"."""
    return CARD_TITLES[card]


def faction_name(faction: str) -> str:
    """The faction's name: ``malay`` -> "Malay"."""
    return FACTION_NAMES[faction]


def ruler_name(control: str) -> str:
    """Who controls a province, as in "falls to the Malays" (``british``: "the British")."""
    return RULERS[control]


def followers(faction: str, count: int = 1) -> str:
    """``count`` followers of ``faction``: "a Lao follower", "2 Lao followers".

    >>> followers("lao"), followers("rama", 2)
    ('a Lao follower', '2 Rama followers')
    """
    name = faction_name(faction)
    return f"a {name} follower" if count == 1 else plural(count, f"{name} follower")


def follower_group(factions: Sequence[str]) -> str:
    """One or two followers named together: "a Rama and a Lao follower", "2 Lao followers".

    >>> follower_group(["rama", "lao"]), follower_group(["lao", "lao"]), follower_group(["malay"])
    ('a Rama and a Lao follower', '2 Lao followers', 'a Malay follower')
    """
    if len(factions) == 2 and factions[0] != factions[1]:
        return f"a {faction_name(factions[0])} and a {faction_name(factions[1])} follower"
    return followers(factions[0], len(factions))


# -- labels: answer values in words ---------------------------------------------------
def province_label(value: str, view: dict[str, Any]) -> str:
    """A province answer: its name on the map."""
    return province_name(view["map"], value)


def card_label(value: str, view: dict[str, Any]) -> str:
    """A card answer: the card's name, or "Pass"."""
    return "Pass" if value == PASS else card_name(value)


def follower_label(value: str, view: dict[str, Any]) -> str:
    """A faction answer: "a Lao follower"."""
    return followers(value)


def group_label(value: str, view: dict[str, Any]) -> str:
    """The followers of a 2 vs 1 side: "a Rama and a Lao follower"."""
    return follower_group(value.split("+"))


#: The sides of a swap card: the first side's field, how a move names its followers and
#: their label, and the other side's field (missing from a first step).
SWAP_SIDES: dict[str, tuple[str, Callable[[dict[str, Any]], str], Label, str]] = {
    "one_vs_one": ("give", lambda side: side["faction"], follower_label, "get"),
    "two_vs_one": ("two", lambda side: "+".join(side["factions"]), group_label, "one"),
}


# -- moves as sentences ---------------------------------------------------------
def describe(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    """What ``seat`` did, then who had to pass and which struggles were decided."""
    place = get_board(before["map"]).names
    who = names[seat]
    action = move["action"]
    if action == "pass":
        text = f"{who} passes."
    elif action == "take":
        text = f"{who} takes {_take(place, move)}."
    elif action == "play":
        text = f"{who} plays {_play(place, move)}."
    else:
        text = f"{who} goes on with {_step(place, before['pending'], move)}."
    return " ".join([text, *_aftermath(place, before, after, names)])


def _take(place: Names, follower: dict[str, str]) -> str:
    return f"{followers(follower['faction'])} from {place[follower['province']]}"


def _play(place: Names, move: Move) -> str:
    """ "Rama: 2 Rama followers to Korat, then takes a Lao follower from Kedah"."""
    card = move["card"]
    effect = _CARD_EFFECTS[card](place, move)
    if not effect:
        text = f"{card_name(card)} ({_nothing(card)})"
    else:
        first_step = card in SWAP_SIDES and SWAP_SIDES[card][3] not in move
        text = f"{card_name(card)}{' ' if first_step else ': '}{effect}"
    if "take" not in move:
        return text
    take = move["take"]
    then = f"takes {_take(place, take)}" if take else "finds no follower left to take"
    return f"{text}, then {then}"


def _nothing(card: str) -> str:
    if card in FACTIONS:
        return f"no {faction_name(card)} follower can be placed"
    return NOTHING[card]


def _maharacha(place: Names, move: Move) -> str:
    if not move["swap"]:
        return ""
    first, second = (place[province] for province in move["swap"])
    return (
        f"{first} and {second} swap places in the struggle order, "
        f"and {place[move['king']]} gets the King marker"
    )


def _khon_thai(place: Names, move: Move) -> str:
    placed = move["place"]
    return join(f"{followers(f)} to {place[placed[f]]}" for f in FACTIONS if f in placed)


def _one_vs_one(place: Names, move: Move) -> str:
    give, get = move["give"], move.get("get")
    if give is None:
        return ""
    start = f"{followers(give['faction'])} of {place[give['province']]}"
    return _swap(place, start, "swaps", get)


def _two_vs_one(place: Names, move: Move) -> str:
    two, one = move["two"], move.get("one")
    if two is None:
        return ""
    start = f"{follower_group(two['factions'])} of {place[two['province']]}"
    return _swap(place, start, "swaps" if len(two["factions"]) == 1 else "swap", one)


def _swap(place: Names, start: str, verb: str, other: dict[str, str] | None) -> str:
    """ "<start> swap(s) places with <other>", or the first step: "on <start>"."""
    if other is None:
        return f"on {start}"
    return f"{start} {verb} places with {followers(other['faction'])} of {place[other['province']]}"


def _faction_card(place: Names, move: Move) -> str:
    provinces = move["place"]
    faction = move["card"]
    if len(provinces) == 2 and provinces[0] != provinces[1]:
        return f"{followers(faction)} to {place[provinces[0]]} and one to {place[provinces[1]]}"
    return f"{followers(faction, len(provinces))} to {place[provinces[0]]}" if provinces else ""


_CARD_EFFECTS: dict[str, Callable[[Names, Move], str]] = {
    "maharacha": _maharacha,
    "khon_thai": _khon_thai,
    "one_vs_one": _one_vs_one,
    "two_vs_one": _two_vs_one,
    **dict.fromkeys(FACTIONS, _faction_card),
}


def _step(place: Names, pending: dict[str, Any], move: Move) -> str:
    """A step of a card played in steps, completed with what ``pending`` already holds."""
    card = pending["card"]
    follower = {"province": move["province"], "faction": move["faction"]}
    if card == "khon_thai":
        return f"Khon Thai: {followers(move['faction'])} to {place[move['province']]}"
    if card == "one_vs_one":
        fields = {"give": pending["give"], "get": follower}
    else:
        fields = {"two": pending["two"], "one": follower}
    return f"{card_name(card)}: {_CARD_EFFECTS[card](place, fields)}"


def _aftermath(place: Names, before: State, after: State, names: Sequence[str]) -> list[str]:
    """Who had to pass after the move, and the struggles it decided, as sentences."""
    sentences = []
    passed = list(dict.fromkeys(after["auto_passed"]))
    if passed:
        verb = "has" if len(passed) == 1 else "have"
        sentences.append(f"{join(names[s] for s in passed)} {verb} to pass.")
    for entry in after["control_history"][len(before["control_history"]) :]:
        sentences.append(f"{place[entry['province']]} falls to {ruler_name(entry['control'])}.")
    return sentences


# -- what to decide now -----------------------------------------------------------
def prompt(state: State, seat: int) -> str:
    """What ``seat`` must decide now, as a short phrase."""
    pending = state["pending"]
    if is_over(state):
        return "the game is over"
    if state["current_seat"] != seat:
        return "wait for your turn"
    if pending is None:
        return "play a card or pass"
    if pending["kind"] == "take":
        return "take a follower"
    if pending["kind"] == "place":
        return f"place the {faction_name(_next_faction(state))} follower of your Khon Thai"
    return f"choose the follower your {card_name(pending['card'])} swaps with"


def _next_faction(state: State) -> str:
    """The faction a Khon Thai played in steps places next (the first still in the pool)."""
    placed = state["pending"].get("place", {}) if state["pending"] else {}
    return next((f for f in FACTIONS if state["pool"][f] and f not in placed), FACTIONS[0])


def questions(state: State, seat: int) -> list[Question]:
    """The questions of ``seat``'s decision now: the card and its targets, a step, a take."""
    pending = state["pending"]
    if pending is None:
        return _turn_questions(state, seat)
    if pending["kind"] == "take":
        return _follower_questions(
            "take", "Take a follower from which province?", "Which follower do you take?"
        )
    if pending["kind"] == "place":
        text = f"Where does the {faction_name(_next_faction(state))} follower go?"
        return [Question("to", text, _field("province"), province_label)]
    return _follower_questions(
        "with", "Swap with a follower of which province?", "Which follower do you swap with?"
    )


def _follower_questions(key: str, where: str, which: str) -> list[Question]:
    """A province, then one of its followers (the faction), of a take or a swap step."""
    return [
        Question(f"{key}-province", where, _field("province"), province_label),
        Question(key, which, _field("faction"), follower_label),
    ]


def _turn_questions(state: State, seat: int) -> list[Question]:
    hand = set(state["players"][seat]["hand"])
    asked = [Question("card", "Which card do you play?", _card_answer, card_label)]
    if "maharacha" in hand:
        asked += [
            Question(
                "king",
                "Which tile gets the King marker?",
                _of("maharacha", lambda m: m["king"]),
                province_label,
            ),
            Question(
                "swap",
                "Swap it with which tile?",
                _of("maharacha", lambda m: next(p for p in m["swap"] if p != m["king"])),
                province_label,
            ),
        ]
    if "khon_thai" in hand:
        first = faction_name(_next_faction(state))
        asked.append(
            Question(
                "khon-thai",
                f"Where does the {first} follower go?",
                _of("khon_thai", lambda m: next(iter(m["place"].values()))),
                province_label,
            )
        )
    if "one_vs_one" in hand:
        asked += _swap_questions("one_vs_one", 1)
    if "two_vs_one" in hand:
        asked += _swap_questions("two_vs_one", 2 if two_for_one_exists(Table(state)) else 1)
    for faction in FACTIONS:
        if faction in hand:
            asked += _faction_card_questions(faction)
    return asked


def _swap_questions(card: str, count: int) -> list[Question]:
    """Where the first side of a 1 vs 1 or 2 vs 1 (``count`` followers) comes from, and which."""
    key, followers_of, label, _ = SWAP_SIDES[card]
    what = "a follower" if count == 1 else "two followers"
    return [
        Question(
            f"{key}-province",
            f"Swap {what} from which province?",
            _of(card, lambda m: m[key]["province"]),
            province_label,
        ),
        Question(
            key,
            "Which follower?" if count == 1 else "Which followers?",
            _of(card, lambda m: followers_of(m[key])),
            label,
        ),
    ]


def _faction_card_questions(faction: str) -> list[Question]:
    """The provinces of a faction card's followers (the northern one first, in map order)."""
    name = faction_name(faction)

    def nth(index: int) -> Callable[[Move], str | None]:
        return _of(faction, lambda m: m["place"][index] if len(m["place"]) > index else None)

    return [
        Question(
            f"{faction}-1",
            f"Where does a {name} follower go? (The northern province first.)",
            nth(0),
            province_label,
        ),
        Question(
            f"{faction}-2", f"Where does the other {name} follower go?", nth(1), province_label
        ),
    ]


def _card_answer(move: Move) -> str:
    return move["card"] if move["action"] == "play" else PASS


def _of(card: str, answer: Callable[[Move], str | None]) -> Callable[[Move], str | None]:
    """``answer`` for plays of ``card`` that do something, ``None`` for any other move."""

    def answered(move: Move) -> str | None:
        if move.get("card") != card or not _does_something(move):
            return None
        return answer(move)

    return answered


def _does_something(move: Move) -> bool:
    return any(move.get(name) for name in ("swap", "place", "give", "two"))


def _field(name: str) -> Callable[[Move], str | None]:
    return lambda move: move.get(name)


# -- the result ------------------------------------------------------------------------
def reason(result: dict[str, Any]) -> str:
    """The engine's ``result["reason"]``: why the game ended as it did, without names.

    >>> reason({"ruling": "lao", "provinces": {"rama": 2, "lao": 4, "malay": 1, "british": 1},
    ...         "decided_by": "most", "tied": [], "scores": {"0": 5, "1": 2},
    ...         "ranking": [0, 1], "second": "rama", "winners": [0]})
    'The Lao rule Siam with 4 provinces, and the player with the most Lao followers (5) wins.'
    """
    partners = " Partners win together." if len(result["scores"]) == 4 else ""
    return f"{_capital(_explain(result))}.{partners}"


def describe_result(result: dict[str, Any], names: Sequence[str]) -> str:
    """The result with the players' names: "Ann wins: the Lao rule Siam with 4 provinces, ..."."""
    if "decided_by" not in result:  # ended by the server (time ran out), not by the game
        return result_sentence(result, names)
    return f"{_winners(result, names)}: {_explain(result, names)}."


def _explain(result: dict[str, Any], names: Sequence[str] = ()) -> str:
    """Who rules Siam and why the best player won, naming players if ``names`` are given."""
    ending = _colony(result) if result["ruling"] == BRITISH else _reign(result)
    if result["decided_by"] == "most":
        return f"{ending}, and {_most(result, names)}"
    if names:
        tied = join(names[seat] for seat in result["tied"])
    elif _teams(result):
        tied = "both teams"
    else:
        tied = plural(len(result["tied"]), "player")
    level = f"{tied} tie with {_score(result)}{_as_many(result)}"
    best = names[result["ranking"][0]] if names else ""
    return f"{ending}; {level}, and {_tie_break(result, best)}"


def _winners(result: dict[str, Any], names: Sequence[str]) -> str:
    """ "Ann wins", "Bob and Dan win as partners", "Ann and Bob share the win"."""
    winners = [names[seat] for seat in result["winners"]]
    if len(winners) == 1:
        return f"{winners[0]} wins"
    if len(names) == 4 and len(winners) == 2:
        return f"{join(winners)} win as partners"
    return f"{join(winners)} share the win"


def _most(result: dict[str, Any], names: Sequence[str]) -> str:
    """Why the best player (or team) won outright."""
    top = _top(result)
    if result["ruling"] != BRITISH:
        what = f"the most {faction_name(result['ruling'])} followers"
    else:
        what = "the most complete sets of followers"
    if not names:
        return f"the {'team' if _teams(result) else 'player'} with {what} ({top}) wins"
    if _teams(result):
        return f"{join(names[seat] for seat in result['winners'])} have {what} together ({top})"
    return f"{names[result['ranking'][0]]} has {what} ({top})"


def _score(result: dict[str, Any]) -> str:
    """The tied score: "5 Lao followers", "2 complete sets"."""
    top = _top(result)
    if result["ruling"] == BRITISH:
        return plural(top, "complete set")
    return plural(top, f"{faction_name(result['ruling'])} follower")


def _tie_break(result: dict[str, Any], best: str) -> str:
    """What broke the tie; ``best`` names the winner (empty: say it without names)."""
    decided_by = result["decided_by"]
    if decided_by == "shared":
        return "no rule breaks the tie"
    if decided_by == "second_faction":
        second = faction_name(result["second"])
        if not best:
            return f"the one with the most {second} followers wins"
        return f"{best} has {'more' if len(result['tied']) == 2 else 'the most'} {second} followers"
    if result["ruling"] != BRITISH:
        if not best:
            return "the one whose last action card lies furthest back wins"
        return f"{best}'s last action card lies furthest back"
    if not best:
        return f"the {'team' if _teams(result) else 'one'} who played an action card last wins"
    return f"{best} played an action card last"


def _teams(result: dict[str, Any]) -> bool:
    """True in a colony of a 4-player game, where the teams pool their followers."""
    return result["ruling"] == BRITISH and len(result["scores"]) == 4


def _top(result: dict[str, Any]) -> int:
    """The best player's score: ruling followers, or complete sets."""
    return result["scores"][str(result["ranking"][0])]


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _colony(result: dict[str, Any]) -> str:
    british = plural(result["provinces"][BRITISH], "province")
    return f"Siam is a British colony (the British control {british})"


def _reign(result: dict[str, Any]) -> str:
    """ "the Lao rule Siam with 4 provinces", and why when another faction has as many."""
    ruling = result["ruling"]
    count = result["provinces"][ruling]
    level = [f for f in FACTIONS if f != ruling and result["provinces"][f] == count]
    note = (
        f" (as many as {join(ruler_name(f) for f in level)}, but {ruler_name(ruling)} "
        "gained control of a province last)"
        if level
        else ""
    )
    return f"{ruler_name(ruling)} rule Siam with {plural(count, 'province')}{note}"


def _as_many(result: dict[str, Any]) -> str:
    """ " and as many Rama followers", when the second-ranked faction did not separate them."""
    if result["decided_by"] in ("last_card", "shared") and result["second"]:
        return f" and as many {faction_name(result['second'])} followers"
    return ""
