"""The Foreign King in words: moves as sentences, what a seat must decide, the move questions.

Names are the game's: provinces as the board prints them ("Liège",
"West-Vlaanderen"), the actions as the action table names them ("Build a
factory", "The King"), read in the reader's language with the German
rulebook's words (Bürger, Parlamentarier, Königsorden, Spielerreihenfolge).
Every sentence is a phrase (:mod:`engines.phrases`). A move is told from the
states before and after it, so a sentence can say what the move brought
about (points scored, a royal order won):

    >>> from engines.phrases import english
    >>> from engines.foreign_king.position import new_game
    >>> from engines.foreign_king.engine import ForeignKingEngine
    >>> engine = ForeignKingEngine()
    >>> before = new_game(2, {}, 1)
    >>> move = {"action": "build_factory", "kind": "textile", "province": "liege"}
    >>> english(describe(before, engine.apply(before, 0, move), 0, move), ["Ann", "Bob"])
    'Ann builds a textile factory in Liège and receives a royal order.'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engines.base import Move, State
from engines.foreign_king.actions import coins_income, table_action
from engines.foreign_king.board import (
    ACTION_NAMES,
    KING,
    LOAN_AMOUNT,
    MOVE,
    NAMES,
    QUEEN,
    QUEEN_COST,
    REPAY_AMOUNT,
    ROUND_LIMIT,
    SUPPLY,
    TURN_ORDER_INCOME,
    VIRTUAL,
)
from engines.foreign_king.rules import END_REASONS
from engines.foreign_king.state import scores
from engines.phrases import N_, Phrase, Words, counted, phrase, seat, sentences, verbatim
from engines.words import Question, result_sentence

#: Places on the turn-order track, as answers.
PLACES = ("first", "second", "third", "fourth")
#: The answer that ends an open move of citizens.
END = "end"
NOBODY = "none"
#: Buttons of the action question that are not spaces of the action table.
ACTION_LABELS = {
    "loan": N_("Take a loan (%(amount)s)"),
    "repay": N_("Repay a loan (%(amount)s)"),
    "finish": N_("End the game"),
    QUEEN: N_("The Queen (%(amount)s)"),
}
#: What each of those buttons costs or brings, in francs.
ACTION_AMOUNTS = {"loan": LOAN_AMOUNT, "repay": REPAY_AMOUNT, QUEEN: QUEEN_COST}
#: Each factory kind's sentences (each language gives the factory its own words).
FACTORY_SAYS = {
    "textile": {
        "builds": N_("%(seat)s builds a textile factory in %(province)s."),
        "builds_order": N_(
            "%(seat)s builds a textile factory in %(province)s and receives a royal order."
        ),
        "switches_off": N_("%(seat)s switches off the textile factory in %(province)s."),
        "kind": N_("a textile factory"),
        "left": N_("a textile factory (%(count)s left)"),
        "the": N_("the textile factory"),
        "nth": (
            N_("the first textile factory"),
            N_("the second textile factory"),
            N_("the third textile factory"),
            N_("the fourth textile factory"),
            N_("the fifth textile factory"),
        ),
    },
    "metal": {
        "builds": N_("%(seat)s builds a metal factory in %(province)s."),
        "builds_order": N_(
            "%(seat)s builds a metal factory in %(province)s and receives a royal order."
        ),
        "switches_off": N_("%(seat)s switches off the metal factory in %(province)s."),
        "kind": N_("a metal factory"),
        "left": N_("a metal factory (%(count)s left)"),
        "the": N_("the metal factory"),
        "nth": (
            N_("the first metal factory"),
            N_("the second metal factory"),
            N_("the third metal factory"),
            N_("the fourth metal factory"),
            N_("the fifth metal factory"),
        ),
    },
}
#: A place on the turn-order track taken, and as a button, by place.
PLACE_TAKEN = (
    N_("%(seat)s takes the first place in the turn order."),
    N_("%(seat)s takes the second place in the turn order."),
    N_("%(seat)s takes the third place in the turn order."),
    N_("%(seat)s takes the fourth place in the turn order."),
)
PLACE_LABELS = {
    "first": phrase("first place"),
    "second": phrase("second place"),
    "third": phrase("third place"),
    "fourth": phrase("fourth place"),
}
#: Why the game ended, by the engine's ``reason`` (kept in English in the result).
ENDINGS = {
    END_REASONS["king"]: phrase(
        "the King's marker reached the score of the player with the second-most points"
    ),
    END_REASONS["factories"]: phrase("every factory of the game is built and inactive"),
    END_REASONS["stalled"]: phrase("no player could carry out any action"),
    END_REASONS["rounds"]: phrase(
        "round %(count)s is over, and a game lasts at most %(count)s rounds", count=ROUND_LIMIT
    ),
}


def francs(count: int) -> Phrase:
    """An amount of francs: "1 franc", "3 francs"."""
    return counted("%(count)s franc", "%(count)s francs", count)


def points(count: int) -> Phrase:
    """Victory points: "1 point", "9 points"."""
    return counted("%(count)s point", "%(count)s points", count)


def owner(key: str) -> Words | dict[str, int]:
    """The owner of citizens: a player's seat, or "the virtual player"."""
    return phrase("the virtual player") if key == VIRTUAL else seat(int(key))


# -- sentences -------------------------------------------------------------------------
def describe(before: State, after: State, seat_: int, move: Move) -> Phrase:
    """One sentence saying what ``seat_`` did with ``move`` (the game hides nothing)."""
    action = move["action"]
    if action == QUEEN:
        inner = SENTENCES[move["copy"]["action"]](before, after, seat_, move["copy"])
        said = phrase(
            "With the Queen (%(amount)s), %(action)s", amount=francs(QUEEN_COST), action=inner
        )
    else:
        said = SENTENCES[action](before, after, seat_, move)
    return sentences(said, _game_end(before, after))


def _loan(before: State, after: State, seat_: int, move: Move) -> Phrase:
    return phrase(
        "%(seat)s takes a loan of %(amount)s, turning a royal order face down.",
        seat=seat(seat_),
        amount=francs(LOAN_AMOUNT),
    )


def _repay(before: State, after: State, seat_: int, move: Move) -> Phrase:
    return phrase(
        "%(seat)s repays a loan (%(amount)s) and turns a royal order face up.",
        seat=seat(seat_),
        amount=francs(REPAY_AMOUNT),
    )


def _build(before: State, after: State, seat_: int, move: Move) -> Phrase:
    gained = after["players"][seat_]["orders"] > before["players"][seat_]["orders"]
    says = FACTORY_SAYS[move["kind"]]["builds_order" if gained else "builds"]
    return phrase(says, seat=seat(seat_), province=NAMES[move["province"]])


def _place(before: State, after: State, seat_: int, move: Move) -> Phrase:
    count, province = move["count"], NAMES[move["province"]]
    if count == 1:
        return phrase(
            "%(seat)s places a citizen in %(province)s.", seat=seat(seat_), province=province
        )
    return phrase(
        "%(seat)s places %(count)s citizens in %(province)s (%(cost)s).",
        seat=seat(seat_),
        count=count,
        province=province,
        cost=francs(count - 1),
    )


def _route(origin: str, path: Sequence[str]) -> Phrase:
    """ "from Namur through Hainaut to West-Vlaanderen" (or "back to the supply")."""
    if list(path) == [SUPPLY]:
        return phrase("from %(origin)s back to the supply", origin=NAMES[origin])
    if len(path) == 1:
        return phrase(
            "from %(origin)s to %(province)s", origin=NAMES[origin], province=NAMES[path[0]]
        )
    return phrase(
        "from %(origin)s through %(through)s to %(province)s",
        origin=NAMES[origin],
        through=[NAMES[step] for step in path[:-1]],
        province=NAMES[path[-1]],
    )


def _moves_citizen(who: int, route: Phrase, cost: int) -> Phrase:
    """ "Ann moves a citizen from Namur to Liège (1 franc)." (no cost when free)."""
    if cost:
        return phrase(
            "%(seat)s moves a citizen %(route)s (%(cost)s).",
            seat=seat(who),
            route=route,
            cost=francs(cost),
        )
    return phrase("%(seat)s moves a citizen %(route)s.", seat=seat(who), route=route)


def _one(path: Sequence[str]) -> Phrase:
    """One of several citizens moved: "one back to the supply", "one through A to B"."""
    if list(path) == [SUPPLY]:
        return phrase("one back to the supply")
    if len(path) == 1:
        return phrase("one to %(province)s", province=NAMES[path[0]])
    return phrase(
        "one through %(through)s to %(province)s",
        through=[NAMES[step] for step in path[:-1]],
        province=NAMES[path[-1]],
    )


def _move_whole(before: State, after: State, seat_: int, move: Move) -> Phrase:
    paths, origin = move["paths"], move["from"]
    cost = sum(len(path) for path in paths) - 1
    if len(paths) == 1:
        return _moves_citizen(seat_, _route(origin, paths[0]), cost)
    return phrase(
        "%(seat)s moves %(count)s citizens from %(origin)s: %(each)s (%(cost)s).",
        seat=seat(seat_),
        count=len(paths),
        origin=NAMES[origin],
        each=[_one(path) for path in paths],
        cost=francs(cost),
    )


def _step(before: State, after: State, seat_: int, move: Move) -> Phrase:
    pending = before["pending"]
    further = pending is not None and pending["kind"] == MOVE
    if further and move["from"] != pending["from"]:
        route = phrase(
            "on from %(origin)s to %(province)s",
            origin=NAMES[move["from"]],
            province=NAMES[move["to"]],
        )
    else:
        route = _route(move["from"], [move["to"]])
    return _moves_citizen(seat_, route, 1 if further else 0)


def _end_move(before: State, after: State, seat_: int, move: Move) -> Phrase:
    return phrase("%(seat)s ends the move of citizens.", seat=seat(seat_))


def _parliament(before: State, after: State, seat_: int, move: Move) -> Phrase:
    if move["from"] == SUPPLY:
        return phrase("%(seat)s sends a citizen from the supply into parliament.", seat=seat(seat_))
    return phrase(
        "%(seat)s sends a citizen from %(province)s into parliament.",
        seat=seat(seat_),
        province=NAMES[move["from"]],
    )


def _coins(before: State, after: State, seat_: int, move: Move) -> Phrase:
    return phrase(
        "%(seat)s takes %(amount)s.", seat=seat(seat_), amount=francs(coins_income(before, seat_))
    )


def _king(before: State, after: State, seat_: int, move: Move) -> Phrase:
    path, start = move["path"], before["king"]["at"]
    if start is None:
        went = phrase(
            "%(seat)s puts the King into %(province)s", seat=seat(seat_), province=NAMES[path[-1]]
        )
    elif len(path) > 1:
        went = phrase(
            "%(seat)s moves the King %(route)s (%(cost)s)",
            seat=seat(seat_),
            route=_route(start, path),
            cost=francs(len(path) - 1),
        )
    else:
        went = phrase(
            "%(seat)s moves the King %(route)s", seat=seat(seat_), route=_route(start, path)
        )
    return _scoring(before, after, path[-1], went)


def _turn_order(before: State, after: State, seat_: int, move: Move) -> Phrase:
    return phrase(
        "%(seat)s takes %(amount)s and will choose a new place in the turn order at the end of "
        "the round.",
        seat=seat(seat_),
        amount=francs(TURN_ORDER_INCOME),
    )


def _bring(before: State, after: State, seat_: int, move: Move) -> Phrase:
    province = before["pending"]["province"]
    if move["accept"]:
        head = counted(
            "%(seat)s brings %(count)s parliamentarian to %(province)s",
            "%(seat)s brings %(count)s parliamentarians to %(province)s",
            before["parliament"].get(str(seat_), 0),
            seat=seat(seat_),
            province=NAMES[province],
        )
    else:
        head = phrase("%(seat)s leaves the parliamentarians in parliament", seat=seat(seat_))
    return _scoring(before, after, province, head)


def _deactivate(before: State, after: State, seat_: int, move: Move) -> Phrase:
    province = before["pending"]["province"]
    if move["factory"] is None:
        return phrase(
            "%(seat)s leaves the factories in %(province)s running.",
            seat=seat(seat_),
            province=NAMES[province],
        )
    kind = before["provinces"][province]["factories"][move["factory"]]["kind"]
    return phrase(FACTORY_SAYS[kind]["switches_off"], seat=seat(seat_), province=NAMES[province])


def _virtual(before: State, after: State, seat_: int, move: Move) -> Phrase:
    steps = [
        phrase("places a virtual citizen in %(province)s", province=NAMES[step["place"]])
        if "place" in step
        else phrase(
            "moves a virtual citizen from %(origin)s to %(province)s",
            origin=NAMES[step["move"][0]],
            province=NAMES[step["move"][1]],
        )
        for step in move["steps"]
    ]
    return phrase("%(seat)s %(steps)s.", seat=seat(seat_), steps=steps)


def _position(before: State, after: State, seat_: int, move: Move) -> Phrase:
    return phrase(PLACE_TAKEN[move["position"]], seat=seat(seat_))


def _finish(before: State, after: State, seat_: int, move: Move) -> Phrase:
    return phrase("%(seat)s repays no more loans.", seat=seat(seat_))


Sentence = Callable[[State, State, int, Move], Phrase]
#: The sentence of each action.
SENTENCES: dict[str, Sentence] = {
    "loan": _loan,
    "repay": _repay,
    "build_factory": _build,
    "place_citizens": _place,
    "move_citizens": _move_whole,
    "step": _step,
    "end_move": _end_move,
    "parliament": _parliament,
    "take_coins": _coins,
    "king": _king,
    "turn_order": _turn_order,
    "bring_parliament": _bring,
    "deactivate": _deactivate,
    "virtual": _virtual,
    "set_position": _position,
    "finish": _finish,
}


def _gains(before: State, after: State) -> list[Phrase]:
    """Who scored how many points between ``before`` and ``after`` (the final scoring left out)."""
    final = after["final"] if before["final"] is None and after["final"] else {}
    old = scores(before)
    found = []
    for key, value in scores(after).items():
        gained = value - old[key] - sum(final.get(key, {}).values())
        if gained > 0:
            found.append(phrase("%(who)s scores %(points)s", who=owner(key), points=points(gained)))
    return found


def _scoring(before: State, after: State, province: str, head: Phrase) -> Phrase:
    """The sentence ``head`` (the King's arrival in ``province``) with what it brought about."""
    pending = after["pending"]
    kind = pending["kind"] if pending is not None else None
    if kind == "bring_parliament":
        return phrase(
            "%(head)s: %(seat)s may first bring the parliamentarians.",
            head=head,
            seat=seat(pending["seat"]),
        )
    if not after["provinces"][province]["citizens"]:
        return phrase(
            "%(head)s; nobody lives in %(province)s, so nothing is scored.",
            head=head,
            province=NAMES[province],
        )
    gains = _gains(before, after)
    if gains and kind == "virtual":
        return phrase(
            "%(head)s: %(gains)s, so %(seat)s places or moves %(owed)s of the virtual player.",
            head=head,
            gains=gains,
            seat=seat(pending["seat"]),
            owed=counted("%(count)s citizen", "%(count)s citizens", pending["steps"]),
        )
    if gains:
        return phrase("%(head)s: %(gains)s.", head=head, gains=gains)
    if kind == "deactivate":
        return phrase(
            "%(head)s: no majority, so %(seat)s may switch off a factory.",
            head=head,
            seat=seat(pending["seat"]),
        )
    return phrase("%(head)s: no majority, nobody scores.", head=head)


def _game_end(before: State, after: State) -> Phrase | None:
    """ "This ends the game." when this move ended it (or opened the last repayments)."""
    if before["ending"] is None and after["ending"] is not None:
        if after["result"] is not None:
            return phrase("This ends the game.")
        return phrase("The game is ending.")
    return None


def describe_result(result: dict[str, Any]) -> Phrase:
    """The result: who won with how many points, the others' points, and why the game ended.

    >>> from engines.phrases import english
    >>> result = {"winners": [1], "scores": {"0": 30, "1": 41}, "virtual_wins": False,
    ...           "virtual_score": 12, "reason": "No player could carry out any action."}
    >>> english(describe_result(result), ["Ann", "Bob"])
    'Bob wins with 41 points (Ann 30, the virtual player 12): no player could carry out any action.'

    A game ended before its scoring (a resignation, a forfeit) has no scores:

    >>> english(describe_result({"winners": [1], "scores": {}, "resigned": [0]}), "AB")
    'B wins: A resigned.'
    """
    if not result.get("scores"):
        return result_sentence(result)
    scores_ = dict(result["scores"])
    if result.get("virtual_score") is not None:
        scores_[VIRTUAL] = result["virtual_score"]
    winners = [str(number) for number in result["winners"]]
    winners += [VIRTUAL] if result.get("virtual_wins") else []
    best = max(scores_.values())
    head = _winners(winners, best)
    if len([value for value in scores_.values() if value == best]) > len(winners):
        head = phrase("%(head)s and more royal orders", head=head)
    others = [
        phrase("%(who)s %(score)s", who=owner(key), score=value)
        for key, value in sorted(scores_.items(), key=lambda item: -item[1])
        if key not in winners
    ]
    if others:
        head = phrase("%(head)s (%(others)s)", head=head, others=_commas(others))
    why = _why(str(result.get("reason") or "").strip())
    return (
        phrase("%(head)s: %(why)s.", head=head, why=why) if why else phrase("%(head)s.", head=head)
    )


def _winners(winners: list[str], best: int) -> Phrase:
    """ "Ann wins with 41 points", "The virtual player wins ...", "A and B share the win ..."."""
    if winners == [VIRTUAL]:
        return counted(
            "The virtual player wins with %(count)s point",
            "The virtual player wins with %(count)s points",
            best,
        )
    if len(winners) == 1:
        return counted(
            "%(who)s wins with %(count)s point",
            "%(who)s wins with %(count)s points",
            best,
            who=owner(winners[0]),
        )
    return counted(
        "%(who)s share the win with %(count)s point",
        "%(who)s share the win with %(count)s points",
        best,
        who=[owner(key) for key in winners],
    )


def _commas(items: list[Phrase]) -> Phrase:
    """Items one after the other, separated by commas: "Bob 31, Ann 20"."""
    if len(items) == 1:
        return items[0]
    return phrase("%(first)s, %(rest)s", first=items[0], rest=_commas(items[1:]))


def _why(reason: str) -> Words | None:
    """Why the game ended, from the result's English ``reason`` (another reason as written)."""
    if not reason:
        return None
    return ENDINGS.get(reason) or verbatim(reason[:1].lower() + reason[1:].rstrip("."))


# -- what a seat must decide -------------------------------------------------------------
def prompt(state: State, seat: int) -> Phrase:
    """What ``seat`` must decide now, as a short phrase without a name (in the reader's
    language: the German rulebook's Bürger, Parlamentarier, Fabrik, Spielerreihenfolge)."""
    pending = state["pending"]
    if state["result"] is not None:
        return phrase("nothing: the game is over")
    if pending is None:
        if _current(state) == seat:
            return phrase("choose an action")
        return phrase("wait for your turn")
    if pending["seat"] != seat:
        return phrase("wait for your turn")
    kind = pending["kind"]
    if kind == "bring_parliament":
        return phrase(
            "bring your parliamentarians to %(province)s, or leave them",
            province=NAMES[pending["province"]],
        )
    if kind == "deactivate":
        return phrase(
            "switch off a factory in %(province)s, or none", province=NAMES[pending["province"]]
        )
    if kind == "virtual":
        return counted(
            "place or move %(count)s citizen of the virtual player",
            "place or move %(count)s citizens of the virtual player",
            pending["steps"],
        )
    if kind == "set_position":
        return phrase("choose your new place in the turn order")
    if kind == "finish":
        return phrase("repay a loan before the game ends, or end it")
    return phrase("move another citizen (1 franc) or end the move")


def _current(state: State) -> int | None:
    """The seat whose turn it is (``None`` between rounds)."""
    index, order = state["turn_index"], state["turn_order"]
    return order[index] if index < len(order) else None


# -- the move questions ----------------------------------------------------------------------
def _inner(move: Move) -> Move:
    """The move itself, or the action the Queen copies."""
    return move["copy"] if move["action"] == QUEEN else move


def _action_answer(move: Move) -> str:
    """The action chosen: a space of the action table, a loan, or the decision answered."""
    action = move["action"]
    return MOVE if action in ("step", "end_move") else action


def _action_label(value: str, view: dict[str, Any]) -> Words:
    """Words for the action answer."""
    if value in ACTION_LABELS:
        amount = ACTION_AMOUNTS.get(value)
        return phrase(ACTION_LABELS[value], **({"amount": francs(amount)} if amount else {}))
    return phrase(ACTION_NAMES[value]) if value in ACTION_NAMES else value.replace("_", " ")


def _copy_answer(move: Move) -> str | None:
    return table_action(move["copy"]["action"]) if move["action"] == QUEEN else None


def _field(name: str, actions: Sequence[str]) -> Callable[[Move], str | None]:
    """The answer ``inner[name]`` of the moves whose (copied) action is one of ``actions``."""

    def answer(move: Move) -> str | None:
        inner = _inner(move)
        return str(inner[name]) if inner["action"] in actions else None

    return answer


def _from_answer(move: Move) -> str | None:
    """Where a citizen comes from: a province or the supply (or ``end`` to end a move)."""
    inner = _inner(move)
    if inner["action"] == "end_move":
        return END
    if inner["action"] == "virtual":
        step = inner["steps"][0]
        return SUPPLY if "place" in step else step["move"][0]
    return inner["from"] if inner["action"] in ("step", "parliament") else None


def _to_answer(move: Move) -> str | None:
    """Where a citizen goes."""
    inner = _inner(move)
    if inner["action"] == "virtual":
        step = inner["steps"][0]
        return step["place"] if "place" in step else step["move"][1]
    return inner["to"] if inner["action"] == "step" else None


def _king_answer(move: Move) -> str | None:
    inner = _inner(move)
    return inner["path"][-1] if inner["action"] == KING else None


def _route_answer(move: Move) -> str | None:
    inner = _inner(move)
    return str(len(inner["path"])) if inner["action"] == KING else None


def _accept_answer(move: Move) -> str | None:
    return ("yes" if move["accept"] else "no") if move["action"] == "bring_parliament" else None


def _factory_answer(move: Move) -> str | None:
    if move["action"] != "deactivate":
        return None
    return NOBODY if move["factory"] is None else f"factory-{move['factory']}"


def _position_answer(move: Move) -> str | None:
    return PLACES[move["position"]] if move["action"] == "set_position" else None


def _kind_label(value: str, view: dict[str, Any]) -> Phrase:
    left = view.get("stock", {}).get(value)
    says = FACTORY_SAYS[value]
    return phrase(says["kind"]) if left is None else phrase(says["left"], count=left)


def _province_label(value: str, view: dict[str, Any]) -> str:
    return NAMES[value]


def _count_label(value: str, view: dict[str, Any]) -> Phrase:
    count = int(value)
    if count == 1:
        return phrase("1 citizen (free)")
    return phrase("%(count)s citizens (%(cost)s)", count=count, cost=francs(count - 1))


def _virtual_asked(view: dict[str, Any]) -> bool:
    pending = view.get("pending")
    return pending is not None and pending["kind"] == "virtual"


def _from_label(value: str, view: dict[str, Any]) -> Words:
    if value == END:
        return phrase("End the move")
    if value == SUPPLY:
        if _virtual_asked(view):
            return phrase("the virtual player's supply")
        return phrase("your supply")
    return NAMES[value]


def _to_label(value: str, view: dict[str, Any]) -> Words:
    return phrase("back to your supply") if value == SUPPLY else NAMES[value]


def _route_label(value: str, view: dict[str, Any]) -> Phrase:
    length = int(value)
    return counted(
        "crossing %(count)s border (%(cost)s; the King's marker falls %(fall)s)",
        "crossing %(count)s borders (%(cost)s; the King's marker falls %(fall)s)",
        length,
        cost=francs(length - 1) if length > 1 else phrase("free"),
        fall=length + 1,
    )


def _accept_label(value: str, view: dict[str, Any]) -> Phrase:
    pending = view.get("pending") or {}
    if value == "no":
        return phrase("Leave them in parliament")
    if pending.get("kind") != "bring_parliament":
        return phrase("Bring them")
    return counted(
        "Bring %(count)s parliamentarian to %(province)s",
        "Bring %(count)s parliamentarians to %(province)s",
        view["parliament"].get(str(pending["seat"]), 0),
        province=NAMES[pending["province"]],
    )


def _factory_label(value: str, view: dict[str, Any]) -> Phrase:
    if value == NOBODY:
        return phrase("No factory: leave them all running")
    factories = view["provinces"][view["pending"]["province"]]["factories"]
    index = int(value.removeprefix("factory-"))
    says = FACTORY_SAYS[factories[index]["kind"]]
    same = [i for i, factory in enumerate(factories) if factory["kind"] == factories[index]["kind"]]
    return phrase(says["nth"][same.index(index)] if len(same) > 1 else says["the"])


def _position_label(value: str, view: dict[str, Any]) -> Phrase:
    return PLACE_LABELS[value]


def questions(state: State, seat: int) -> list[Question]:
    """The questions of a move of ``seat``: the action first, then provinces and counts."""
    pending = state["pending"]
    kind = pending["kind"] if pending is not None and pending["seat"] == seat else None
    action_text = (
        phrase("Repay a loan before the game ends?")
        if kind == "finish"
        else phrase("Which action?")
    )
    from_text = {
        MOVE: phrase("Which citizen moves next (from where), or end the move?"),
        "virtual": phrase("Place a virtual citizen from its supply, or move one from where?"),
    }.get(kind or "", phrase("From where?"))
    return [
        Question("action", action_text, _action_answer, _action_label),
        Question(
            "copy", phrase("Which action does the Queen carry out?"), _copy_answer, _action_label
        ),
        Question("kind", phrase("Which factory?"), _field("kind", ["build_factory"]), _kind_label),
        Question(
            "province",
            phrase("In which province?"),
            _field("province", ["build_factory", "place_citizens"]),
            _province_label,
        ),
        Question(
            "count", phrase("How many citizens?"), _field("count", ["place_citizens"]), _count_label
        ),
        Question("from", from_text, _from_answer, _from_label),
        Question("to", phrase("Where to?"), _to_answer, _to_label),
        Question("king", phrase("Where does the King go?"), _king_answer, _province_label),
        Question("route", phrase("By which route?"), _route_answer, _route_label),
        Question("accept", phrase("Bring your parliamentarians?"), _accept_answer, _accept_label),
        Question(
            "factory", phrase("Which factory do you switch off?"), _factory_answer, _factory_label
        ),
        Question(
            "position", phrase("Which place in the turn order?"), _position_answer, _position_label
        ),
    ]
