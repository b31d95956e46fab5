"""King of Siam in its own words: moves as sentences, prompts, the guided questions, results.

Names are the ones players say: provinces as on the map ("Nakhon Si
Thammarat"), cards as printed ("Khon Thai", "1 vs 1"), factions ("Rama",
"Lao", "Malay"). Every sentence is a phrase (:mod:`engines.phrases`) read in
the reader's language with the rulebooks' terms, and says only what the
public log shows: the card played is public, the cards left in a hand are not.

    >>> from engines.king_of_siam import KingOfSiamEngine
    >>> from engines.phrases import english
    >>> engine, names = KingOfSiamEngine(), ["Bob"] * 3
    >>> before = engine.setup(3, {}, 1)
    >>> seat = engine.to_move(before)[0]
    >>> move = engine.parse("rama korat sukhothai", before)
    >>> after = engine.apply(before, seat, move)
    >>> english(describe(before, after, seat, move), names)
    'Bob plays Rama: a Rama follower to Korat and one to Sukhothai.'
    >>> english(prompt(after, seat))
    'take a follower'
    >>> take = {"action": "take", "province": "kedah", "faction": "lao"}
    >>> english(describe(after, engine.apply(after, seat, take), seat, take), names)
    'Bob takes a Lao follower from Kedah.'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engines.base import Move, State
from engines.king_of_siam.board import FACTION_NAMES, FACTIONS, RULERS, get_board
from engines.king_of_siam.cards import Table, two_for_one_exists
from engines.king_of_siam.names import FOLLOWERS, card_name, followers
from engines.king_of_siam.rules import BRITISH, is_over
from engines.phrases import N_, Phrase, counted, phrase, recount, seat, sentences
from engines.words import Label, Question, join, plural, result_sentence

#: What a card does when it can do nothing, after "Bob plays <card>".
NOTHING = {
    "maharacha": phrase("no two tiles can be swapped"),
    "khon_thai": phrase("the pool holds no follower"),
    "one_vs_one": phrase("there are no two followers to swap"),
    "two_vs_one": phrase("there are no followers to swap"),
    "rama": phrase("no Rama follower can be placed"),
    "lao": phrase("no Lao follower can be placed"),
    "malay": phrase("no Malay follower can be placed"),
}
PASS = "pass"
#: Province names of a map, by province.
Names = Mapping[str, str]
#: "<province> falls to the Malays.", by who takes control.
FALLS = {
    "rama": N_("%(province)s falls to the Rama."),
    "lao": N_("%(province)s falls to the Lao."),
    "malay": N_("%(province)s falls to the Malays."),
    "british": N_("%(province)s falls to the British."),
}
#: The question of a Khon Thai's next follower, by faction.
KHON_THAI_PLACES = {
    "rama": N_("Where does the Rama follower go?"),
    "lao": N_("Where does the Lao follower go?"),
    "malay": N_("Where does the Malay follower go?"),
}
#: The prompt of a Khon Thai played in steps, by the faction it places next.
KHON_THAI_PROMPTS = {
    "rama": N_("place the Rama follower of your Khon Thai"),
    "lao": N_("place the Lao follower of your Khon Thai"),
    "malay": N_("place the Malay follower of your Khon Thai"),
}
#: A faction card's two questions: the first follower's province, the other's.
FACTION_CARD_PLACES = {
    "rama": (
        N_("Where does a Rama follower go? (The northern province first.)"),
        N_("Where does the other Rama follower go?"),
    ),
    "lao": (
        N_("Where does a Lao follower go? (The northern province first.)"),
        N_("Where does the other Lao follower go?"),
    ),
    "malay": (
        N_("Where does a Malay follower go? (The northern province first.)"),
        N_("Where does the other Malay follower go?"),
    ),
}


# -- names ----------------------------------------------------------------------
def province_name(map_name: str, province: str) -> str:
    """The province as the map names it: ``nakhon-si-thammarat`` -> "Nakhon Si Thammarat"."""
    return get_board(map_name).names[province]


def faction_name(faction: str) -> str:
    """The faction's name in English: ``malay`` -> "Malay"."""
    return FACTION_NAMES[faction]


def ruler_name(control: str) -> str:
    """Who controls a province, in English, as in "the Lao rule Siam" (``british``: "the
    British")."""
    return RULERS[control]


def follower_group(factions: Sequence[str]) -> Phrase:
    """One or two followers named together: "a Rama follower and a Lao follower".

    >>> from engines.phrases import english
    >>> english(follower_group(["rama", "lao"])), english(follower_group(["lao", "lao"]))
    ('a Rama follower and a Lao follower', '2 Lao followers')
    """
    if len(factions) == 2 and factions[0] != factions[1]:
        return phrase("%(followers)s", followers=[followers(f) for f in factions])
    return followers(factions[0], len(factions))


# -- labels: answer values in words ---------------------------------------------------
def province_label(value: str, view: dict[str, Any]) -> str:
    """A province answer: its name on the map."""
    return province_name(view["map"], value)


def card_label(value: str, view: dict[str, Any]) -> Phrase:
    """A card answer: the card's name, or "Pass"."""
    return phrase("Pass") if value == PASS else card_name(value)


def follower_label(value: str, view: dict[str, Any]) -> Phrase:
    """A faction answer: "a Lao follower"."""
    return followers(value)


def group_label(value: str, view: dict[str, Any]) -> Phrase:
    """The followers of a 2 vs 1 side: "a Rama follower and a Lao follower"."""
    return follower_group(value.split("+"))


#: The sides of a swap card: the first side's field, how a move names its followers and
#: their label, and the other side's field (missing from a first step).
SWAP_SIDES: dict[str, tuple[str, Callable[[dict[str, Any]], str], Label, str]] = {
    "one_vs_one": ("give", lambda side: side["faction"], follower_label, "get"),
    "two_vs_one": ("two", lambda side: "+".join(side["factions"]), group_label, "one"),
}


# -- moves as sentences ---------------------------------------------------------
def describe(before: State, after: State, seat_: int, move: Move) -> Phrase:
    """What ``seat_`` did, then who had to pass and which struggles were decided."""
    place = get_board(before["map"]).names
    who = seat(seat_)
    action = move["action"]
    if action == "pass":
        text = phrase("%(seat)s passes.", seat=who)
    elif action == "take":
        text = phrase("%(seat)s takes %(take)s.", seat=who, take=_take(place, move))
    elif action == "play":
        text = phrase("%(seat)s plays %(play)s.", seat=who, play=_play(place, move))
    else:
        step = _step(place, before["pending"], move)
        text = phrase("%(seat)s goes on with %(step)s.", seat=who, step=step)
    return sentences(text, *_aftermath(place, before, after))


def _take(place: Names, follower: dict[str, str]) -> Phrase:
    return phrase(
        "%(followers)s from %(province)s",
        followers=followers(follower["faction"]),
        province=place[follower["province"]],
    )


def _play(place: Names, move: Move) -> Phrase:
    """ "Rama: 2 Rama followers to Korat, then takes a Lao follower from Kedah"."""
    card = move["card"]
    effect = _CARD_EFFECTS[card](place, move)
    if not effect:
        text = phrase("%(card)s (%(nothing)s)", card=card_name(card), nothing=NOTHING[card])
    elif card in SWAP_SIDES and SWAP_SIDES[card][3] not in move:
        text = phrase("%(card)s %(effect)s", card=card_name(card), effect=effect)
    else:
        text = phrase("%(card)s: %(effect)s", card=card_name(card), effect=effect)
    if "take" not in move:
        return text
    take = move["take"]
    if not take:
        return phrase("%(play)s, then finds no follower left to take", play=text)
    return phrase("%(play)s, then takes %(take)s", play=text, take=_take(place, take))


def _maharacha(place: Names, move: Move) -> Phrase | None:
    if not move["swap"]:
        return None
    first, second = (place[province] for province in move["swap"])
    return phrase(
        "%(first)s and %(second)s swap places in the struggle order, and %(king)s gets the "
        "King marker",
        first=first,
        second=second,
        king=place[move["king"]],
    )


def _to(place: Names, faction: str, province: str, count: int = 1) -> Phrase:
    """ "a Lao follower to Korat"."""
    return phrase(
        "%(followers)s to %(province)s",
        followers=followers(faction, count),
        province=place[province],
    )


def _khon_thai(place: Names, move: Move) -> Phrase | None:
    placed = move["place"]
    put = [_to(place, f, placed[f]) for f in FACTIONS if f in placed]
    return phrase("%(placed)s", placed=put) if put else None


def _one_vs_one(place: Names, move: Move) -> Phrase | None:
    give, get = move["give"], move.get("get")
    if give is None:
        return None
    return _swap(place, followers(give["faction"]), give["province"], 1, get)


def _two_vs_one(place: Names, move: Move) -> Phrase | None:
    two, one = move["two"], move.get("one")
    if two is None:
        return None
    group = follower_group(two["factions"])
    return _swap(place, group, two["province"], len(two["factions"]), one)


def _swap(
    place: Names, start: Phrase, province: str, count: int, other: dict[str, str] | None
) -> Phrase:
    """ "<start> of <province> swap(s) places with <other>", or the first step: "on <start>"."""
    if other is None:
        return phrase("on %(followers)s of %(province)s", followers=start, province=place[province])
    return counted(
        "%(followers)s of %(province)s swaps places with %(other)s of %(other_province)s",
        "%(followers)s of %(province)s swap places with %(other)s of %(other_province)s",
        count,
        followers=start,
        province=place[province],
        other=followers(other["faction"]),
        other_province=place[other["province"]],
    )


def _faction_card(place: Names, move: Move) -> Phrase | None:
    provinces = move["place"]
    faction = move["card"]
    if len(provinces) == 2 and provinces[0] != provinces[1]:
        return phrase(
            "%(followers)s to %(province)s and one to %(other)s",
            followers=followers(faction),
            province=place[provinces[0]],
            other=place[provinces[1]],
        )
    return _to(place, faction, provinces[0], len(provinces)) if provinces else None


_CARD_EFFECTS: dict[str, Callable[[Names, Move], Phrase | None]] = {
    "maharacha": _maharacha,
    "khon_thai": _khon_thai,
    "one_vs_one": _one_vs_one,
    "two_vs_one": _two_vs_one,
    **dict.fromkeys(FACTIONS, _faction_card),
}


def _step(place: Names, pending: dict[str, Any], move: Move) -> Phrase:
    """A step of a card played in steps, completed with what ``pending`` already holds."""
    card = pending["card"]
    follower = {"province": move["province"], "faction": move["faction"]}
    if card == "khon_thai":
        effect = _to(place, move["faction"], move["province"])
    elif card == "one_vs_one":
        effect = _CARD_EFFECTS[card](place, {"give": pending["give"], "get": follower})
    else:
        effect = _CARD_EFFECTS[card](place, {"two": pending["two"], "one": follower})
    return phrase("%(card)s: %(effect)s", card=card_name(card), effect=effect)


def _aftermath(place: Names, before: State, after: State) -> list[Phrase]:
    """Who had to pass after the move, and the struggles it decided, as sentences."""
    said = []
    passed = [seat(s) for s in dict.fromkeys(after["auto_passed"])]
    if passed:
        said.append(
            counted("%(seats)s has to pass.", "%(seats)s have to pass.", len(passed), seats=passed)
        )
    for entry in after["control_history"][len(before["control_history"]) :]:
        said.append(phrase(FALLS[entry["control"]], province=place[entry["province"]]))
    return said


# -- what to decide now -----------------------------------------------------------
def prompt(state: State, seat_: int) -> Phrase:
    """What ``seat_`` must decide now, as a short phrase."""
    pending = state["pending"]
    if is_over(state):
        return phrase("the game is over")
    if state["current_seat"] != seat_:
        return phrase("wait for your turn")
    if pending is None:
        return phrase("play a card or pass")
    if pending["kind"] == "take":
        return phrase("take a follower")
    if pending["kind"] == "place":
        return phrase(KHON_THAI_PROMPTS[_next_faction(state)])
    return phrase("choose the follower your %(card)s swaps with", card=card_name(pending["card"]))


def _next_faction(state: State) -> str:
    """The faction a Khon Thai played in steps places next (the first still in the pool)."""
    placed = state["pending"].get("place", {}) if state["pending"] else {}
    return next((f for f in FACTIONS if state["pool"][f] and f not in placed), FACTIONS[0])


def questions(state: State, seat_: int) -> list[Question]:
    """The questions of ``seat_``'s decision now: the card and its targets, a step, a take."""
    pending = state["pending"]
    if pending is None:
        return _turn_questions(state, seat_)
    if pending["kind"] == "take":
        return _follower_questions(
            "take",
            phrase("Take a follower from which province?"),
            phrase("Which follower do you take?"),
        )
    if pending["kind"] == "place":
        text = phrase(KHON_THAI_PLACES[_next_faction(state)])
        return [Question("to", text, _field("province"), province_label)]
    return _follower_questions(
        "with",
        phrase("Swap with a follower of which province?"),
        phrase("Which follower do you swap with?"),
    )


def _follower_questions(key: str, where: Phrase, which: Phrase) -> list[Question]:
    """A province, then one of its followers (the faction), of a take or a swap step."""
    return [
        Question(f"{key}-province", where, _field("province"), province_label),
        Question(key, which, _field("faction"), follower_label),
    ]


def _turn_questions(state: State, seat_: int) -> list[Question]:
    hand = set(state["players"][seat_]["hand"])
    asked = [Question("card", phrase("Which card do you play?"), _card_answer, card_label)]
    if "maharacha" in hand:
        asked += [
            Question(
                "king",
                phrase("Which tile gets the King marker?"),
                _of("maharacha", lambda m: m["king"]),
                province_label,
            ),
            Question(
                "swap",
                phrase("Swap it with which tile?"),
                _of("maharacha", lambda m: next(p for p in m["swap"] if p != m["king"])),
                province_label,
            ),
        ]
    if "khon_thai" in hand:
        asked.append(
            Question(
                "khon-thai",
                phrase(KHON_THAI_PLACES[_next_faction(state)]),
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
    where = (
        phrase("Swap a follower from which province?")
        if count == 1
        else phrase("Swap two followers from which province?")
    )
    which = phrase("Which follower?") if count == 1 else phrase("Which followers?")
    return [
        Question(f"{key}-province", where, _of(card, lambda m: m[key]["province"]), province_label),
        Question(key, which, _of(card, lambda m: followers_of(m[key])), label),
    ]


def _faction_card_questions(faction: str) -> list[Question]:
    """The provinces of a faction card's followers (the northern one first, in map order)."""
    first, other = FACTION_CARD_PLACES[faction]

    def nth(index: int) -> Callable[[Move], str | None]:
        return _of(faction, lambda m: m["place"][index] if len(m["place"]) > index else None)

    return [
        Question(f"{faction}-1", phrase(first), nth(0), province_label),
        Question(f"{faction}-2", phrase(other), nth(1), province_label),
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
#: How the game ended, by the faction ruling Siam (``british``: a colony), with the number of
#: provinces it controls in ``%(count)s``.
REIGNS = {
    "rama": counted(
        "the Rama rule Siam with %(count)s province",
        "the Rama rule Siam with %(count)s provinces",
        1,
    ),
    "lao": counted(
        "the Lao rule Siam with %(count)s province", "the Lao rule Siam with %(count)s provinces", 1
    ),
    "malay": counted(
        "the Malays rule Siam with %(count)s province",
        "the Malays rule Siam with %(count)s provinces",
        1,
    ),
    "british": counted(
        "Siam is a British colony (the British control %(count)s province)",
        "Siam is a British colony (the British control %(count)s provinces)",
        1,
    ),
}
#: Why the ruling faction won although another has as many provinces.
LAST_GAINED = {
    "rama": N_("%(reign)s (as many as %(others)s, but the Rama gained control of a province last)"),
    "lao": N_("%(reign)s (as many as %(others)s, but the Lao gained control of a province last)"),
    "malay": N_(
        "%(reign)s (as many as %(others)s, but the Malays gained control of a province last)"
    ),
}
#: The factions as a list names them ("as many as the Lao and the Malays").
RULER_NAMES = {"rama": phrase("the Rama"), "lao": phrase("the Lao"), "malay": phrase("the Malays")}
#: What the best player has most of, by the ruling faction (``british``: complete sets).
MOST = {
    "rama": phrase("the most Rama followers"),
    "lao": phrase("the most Lao followers"),
    "malay": phrase("the most Malay followers"),
    "british": phrase("the most complete sets of followers"),
}
#: The tied score, by the ruling faction: ``%(count)s`` followers, or complete sets.
SCORES = {
    **FOLLOWERS,
    "british": counted("a complete set", "%(count)s complete sets", 1),
}
#: "... and as many Rama followers", by the second-ranked faction.
AS_MANY = {
    "rama": N_("%(seats)s tie with %(score)s and as many Rama followers"),
    "lao": N_("%(seats)s tie with %(score)s and as many Lao followers"),
    "malay": N_("%(seats)s tie with %(score)s and as many Malay followers"),
}
#: "Ann has more Lao followers" (two tied) or "the most Lao followers" (more), by faction.
MORE = {
    "rama": (N_("%(seat)s has more Rama followers"), N_("%(seat)s has the most Rama followers")),
    "lao": (N_("%(seat)s has more Lao followers"), N_("%(seat)s has the most Lao followers")),
    "malay": (
        N_("%(seat)s has more Malay followers"),
        N_("%(seat)s has the most Malay followers"),
    ),
}


def reason(result: dict[str, Any]) -> str:
    """The engine's ``result["reason"]``: why the game ended as it did, without names (in
    English: pages and mails say :func:`describe_result` in the reader's language).

    >>> reason({"ruling": "lao", "provinces": {"rama": 2, "lao": 4, "malay": 1, "british": 1},
    ...         "decided_by": "most", "tied": [], "scores": {"0": 5, "1": 2},
    ...         "ranking": [0, 1], "second": "rama", "winners": [0]})
    'The Lao rule Siam with 4 provinces, and the player with the most Lao followers (5) wins.'
    """
    partners = " Partners win together." if len(result["scores"]) == 4 else ""
    return f"{_capital(_explain(result))}.{partners}"


def describe_result(result: dict[str, Any]) -> Phrase:
    """The result with the players' seats: "Ann wins: the Lao rule Siam with 4 provinces, ..."."""
    if "decided_by" not in result:  # ended by the server (time ran out), not by the game
        return result_sentence(result)
    ending = _ending(result)
    if result["decided_by"] == "most":
        why = phrase("%(ending)s, and %(most)s", ending=ending, most=_said_most(result))
    else:
        why = phrase(
            "%(ending)s; %(level)s, and %(tie_break)s",
            ending=ending,
            level=_level(result),
            tie_break=_said_tie_break(result),
        )
    return phrase("%(winners)s: %(why)s.", winners=_winners(result), why=why)


def _ending(result: dict[str, Any]) -> Phrase:
    """Who rules Siam, with how many provinces (and why, when another has as many)."""
    ruling = result["ruling"]
    count = result["provinces"][ruling]
    reign = recount(REIGNS[ruling], count)
    level = [f for f in FACTIONS if f != ruling and result["provinces"][f] == count]
    if ruling == BRITISH or not level:
        return reign
    return phrase(LAST_GAINED[ruling], reign=reign, others=[RULER_NAMES[f] for f in level])


def _winners(result: dict[str, Any]) -> Phrase:
    """ "Ann wins", "Bob and Dan win as partners", "Ann and Bob share the win"."""
    winners = [seat(number) for number in result["winners"]]
    if len(winners) == 1:
        return phrase("%(seat)s wins", seat=winners[0])
    if len(result["scores"]) == 4 and len(winners) == 2:
        return phrase("%(seats)s win as partners", seats=winners)
    return phrase("%(seats)s share the win", seats=winners)


def _said_most(result: dict[str, Any]) -> Phrase:
    """Why the best player (or team) won outright."""
    what, top = MOST[result["ruling"]], _top(result)
    if _teams(result):
        team = [seat(number) for number in result["winners"]]
        return phrase("%(seats)s have %(what)s together (%(top)s)", seats=team, what=what, top=top)
    best = seat(result["ranking"][0])
    return phrase("%(seat)s has %(what)s (%(top)s)", seat=best, what=what, top=top)


def _level(result: dict[str, Any]) -> Phrase:
    """Who tied, with which score: "Ann and Bob tie with 5 Lao followers"."""
    score = recount(SCORES[result["ruling"]], _top(result))
    tied = [seat(number) for number in result["tied"]]
    if result["decided_by"] in ("last_card", "shared") and result["second"]:
        return phrase(AS_MANY[result["second"]], seats=tied, score=score)
    return phrase("%(seats)s tie with %(score)s", seats=tied, score=score)


def _said_tie_break(result: dict[str, Any]) -> Phrase:
    """What broke the tie, naming the winner."""
    decided_by, best = result["decided_by"], seat(result["ranking"][0])
    if decided_by == "shared":
        return phrase("no rule breaks the tie")
    if decided_by == "second_faction":
        more, most = MORE[result["second"]]
        return phrase(more if len(result["tied"]) == 2 else most, seat=best)
    if result["ruling"] != BRITISH:
        return phrase("%(seat)s's last action card lies furthest back", seat=best)
    return phrase("%(seat)s played an action card last", seat=best)


def _explain(result: dict[str, Any]) -> str:
    """Who rules Siam and why the best player won, in English without names."""
    ending = _colony(result) if result["ruling"] == BRITISH else _reign(result)
    if result["decided_by"] == "most":
        return f"{ending}, and {_most(result)}"
    tied = "both teams" if _teams(result) else plural(len(result["tied"]), "player")
    level = f"{tied} tie with {_score(result)}{_as_many(result)}"
    return f"{ending}; {level}, and {_tie_break(result)}"


def _most(result: dict[str, Any]) -> str:
    """Why the best player (or team) won outright, without names."""
    top = _top(result)
    if result["ruling"] != BRITISH:
        what = f"the most {faction_name(result['ruling'])} followers"
    else:
        what = "the most complete sets of followers"
    return f"the {'team' if _teams(result) else 'player'} with {what} ({top}) wins"


def _score(result: dict[str, Any]) -> str:
    """The tied score: "5 Lao followers", "2 complete sets"."""
    top = _top(result)
    if result["ruling"] == BRITISH:
        return plural(top, "complete set")
    return plural(top, f"{faction_name(result['ruling'])} follower")


def _tie_break(result: dict[str, Any]) -> str:
    """What broke the tie, without names."""
    decided_by = result["decided_by"]
    if decided_by == "shared":
        return "no rule breaks the tie"
    if decided_by == "second_faction":
        return f"the one with the most {faction_name(result['second'])} followers wins"
    if result["ruling"] != BRITISH:
        return "the one whose last action card lies furthest back wins"
    return f"the {'team' if _teams(result) else 'one'} who played an action card last wins"


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
