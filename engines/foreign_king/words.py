"""The Foreign King in words: moves as sentences, what a seat must decide, the move questions.

Names are the game's: provinces as the board prints them ("Liège",
"West-Vlaanderen"), the actions as the action table names them ("Build a
factory", "The King"). A move is told from the states before and after it,
so a sentence can say what the move brought about (points scored, a royal
order won):

    >>> from engines.foreign_king.position import new_game
    >>> from engines.foreign_king.engine import ForeignKingEngine
    >>> engine = ForeignKingEngine()
    >>> before = new_game(2, {}, 1)
    >>> move = {"action": "build_factory", "kind": "textile", "province": "liege"}
    >>> describe(before, engine.apply(before, 0, move), 0, move, ["Ann", "Bob"])
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
    SUPPLY,
    TURN_ORDER_INCOME,
    VIRTUAL,
)
from engines.foreign_king.state import scores
from engines.phrases import Phrase, Words, counted, phrase
from engines.words import Question, join, plural, result_sentence

#: Places on the turn-order track, as answers and in words.
PLACES = ("first", "second", "third", "fourth")
#: The answer that ends an open move of citizens.
END = "end"
NOBODY = "none"
#: Buttons of the action question that are not spaces of the action table.
ACTION_LABELS = {
    "loan": f"Take a loan ({LOAN_AMOUNT} francs)",
    "repay": f"Repay a loan ({REPAY_AMOUNT} francs)",
    "finish": "End the game",
    QUEEN: f"The Queen ({QUEEN_COST} francs)",
}


def francs(count: int) -> str:
    """An amount of francs: "1 franc", "3 francs"."""
    return plural(count, "franc")


def points(count: int) -> str:
    """Victory points: "1 point", "9 points"."""
    return plural(count, "point")


def owner_name(key: str, names: Sequence[str]) -> str:
    """The name of the owner of citizens: a player's, or "the virtual player"."""
    return "the virtual player" if key == VIRTUAL else names[int(key)]


def place_name(place: str, whose: str = "the") -> str:
    """A province by its printed name, or the supply ("the supply", "your supply")."""
    return f"{whose} supply" if place == SUPPLY else NAMES[place]


# -- sentences -------------------------------------------------------------------------
def describe(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    """One sentence saying what ``seat`` did with ``move`` (the game hides nothing)."""
    name = names[seat]
    action = move["action"]
    if action == QUEEN:
        inner = SENTENCES[move["copy"]["action"]](before, after, seat, move["copy"], names)
        sentence = f"With the Queen ({francs(QUEEN_COST)}), {name} {inner}"
    else:
        sentence = f"{name} {SENTENCES[action](before, after, seat, move, names)}"
    return sentence + _game_end(before, after)


def _loan(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    return f"takes a loan of {francs(LOAN_AMOUNT)}, turning a royal order face down."


def _repay(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    return f"repays a loan ({francs(REPAY_AMOUNT)}) and turns a royal order face up."


def _build(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    built = f"builds a {move['kind']} factory in {NAMES[move['province']]}"
    gained = after["players"][seat]["orders"] > before["players"][seat]["orders"]
    return built + (" and receives a royal order." if gained else ".")


def _place(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    count, province = move["count"], NAMES[move["province"]]
    if count == 1:
        return f"places a citizen in {province}."
    return f"places {count} citizens in {province} ({francs(count - 1)})."


def _route(origin: str, path: Sequence[str], whose: str = "the") -> str:
    """ "from Namur through Hainaut to West-Vlaanderen" (or "back to the supply")."""
    if list(path) == [SUPPLY]:
        return f"from {NAMES[origin]} back to {whose} supply"
    through = f" through {join(NAMES[step] for step in path[:-1])}" if len(path) > 1 else ""
    return f"from {NAMES[origin]}{through} to {NAMES[path[-1]]}"


def _cost(amount: int) -> str:
    """ " (2 francs)", or nothing when free."""
    return f" ({francs(amount)})" if amount else ""


def _move_whole(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    paths, origin = move["paths"], move["from"]
    cost = _cost(sum(len(path) for path in paths) - 1)
    if len(paths) == 1:
        return f"moves a citizen {_route(origin, paths[0])}{cost}."
    each = [
        "one back to the supply"
        if path == [SUPPLY]
        else f"one{_route(origin, path).removeprefix('from ' + NAMES[origin])}"
        for path in paths
    ]
    return f"moves {len(paths)} citizens from {NAMES[origin]}: {join(each)}{cost}."


def _step(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    pending = before["pending"]
    further = pending is not None and pending["kind"] == MOVE
    onward = further and move["from"] != pending["from"]
    route = _route(move["from"], [move["to"]])
    if onward:
        route = route.replace("from", "on from", 1)
    return f"moves a citizen {route}{_cost(1 if further else 0)}."


def _end_move(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    return "ends the move of citizens."


def _parliament(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    return f"sends a citizen from {place_name(move['from'])} into parliament."


def _coins(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    return f"takes {francs(coins_income(before, seat))}."


def _king(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    path, start = move["path"], before["king"]["at"]
    if start is None:
        went = f"puts the King into {NAMES[path[-1]]}"
    else:
        went = f"moves the King {_route(start, path)}{_cost(len(path) - 1)}"
    return went + _scoring(before, after, path[-1], names) + "."


def _turn_order(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    return (
        f"takes {francs(TURN_ORDER_INCOME)} and will choose a new place in the turn order "
        "at the end of the round."
    )


def _bring(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    province = before["pending"]["province"]
    if move["accept"]:
        brought = before["parliament"].get(str(seat), 0)
        head = f"brings {plural(brought, 'parliamentarian')} to {NAMES[province]}"
    else:
        head = "leaves the parliamentarians in parliament"
    return head + _scoring(before, after, province, names) + "."


def _deactivate(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    province = before["pending"]["province"]
    if move["factory"] is None:
        return f"leaves the factories in {NAMES[province]} running."
    kind = before["provinces"][province]["factories"][move["factory"]]["kind"]
    return f"switches off the {kind} factory in {NAMES[province]}."


def _virtual(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    steps = [
        f"places a virtual citizen in {NAMES[step['place']]}"
        if "place" in step
        else f"moves a virtual citizen from {NAMES[step['move'][0]]} to {NAMES[step['move'][1]]}"
        for step in move["steps"]
    ]
    return join(steps) + "."


def _position(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    return f"takes the {PLACES[move['position']]} place in the turn order."


def _finish(before: State, after: State, seat: int, move: Move, names: Sequence[str]) -> str:
    return "repays no more loans."


Sentence = Callable[[State, State, int, Move, Sequence[str]], str]
#: The rest of the sentence after the player's name, by action.
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


def _gains(before: State, after: State, names: Sequence[str]) -> list[str]:
    """Who scored how many points between ``before`` and ``after`` (the final scoring left out)."""
    final = after["final"] if before["final"] is None and after["final"] else {}
    old = scores(before)
    found = []
    for key, value in scores(after).items():
        gained = value - old[key] - sum(final.get(key, {}).values())
        if gained > 0:
            found.append(f"{owner_name(key, names)} scores {points(gained)}")
    return found


def _scoring(before: State, after: State, province: str, names: Sequence[str]) -> str:
    """What the King's arrival in ``province`` brought about, as the end of a sentence."""
    pending = after["pending"]
    kind = pending["kind"] if pending is not None else None
    if kind == "bring_parliament":
        return f": {names[pending['seat']]} may first bring the parliamentarians"
    if not after["provinces"][province]["citizens"]:
        return f"; nobody lives in {NAMES[province]}, so nothing is scored"
    gains = _gains(before, after, names)
    if gains:
        told = f": {join(gains)}"
        if kind == "virtual":
            owed = plural(pending["steps"], "citizen")
            told += f", so {names[pending['seat']]} places or moves {owed} of the virtual player"
        return told
    if kind == "deactivate":
        return f": no majority, so {names[pending['seat']]} may switch off a factory"
    return ": no majority, nobody scores"


def _game_end(before: State, after: State) -> str:
    """ " The game ends." when this move ended it (or opened the last repayments)."""
    if before["ending"] is None and after["ending"] is not None:
        return " This ends the game." if after["result"] is not None else " The game is ending."
    return ""


def describe_result(result: dict[str, Any], names: Sequence[str]) -> Words:
    """The result: who won with how many points, the others' points, and why the game ended.

    >>> result = {"winners": [1], "scores": {"0": 30, "1": 41}, "virtual_wins": False,
    ...           "virtual_score": 12, "reason": "No player could carry out any action."}
    >>> describe_result(result, ["Ann", "Bob"])
    'Bob wins with 41 points (Ann 30, the virtual player 12): no player could carry out any action.'

    A game ended before its scoring (a resignation, a forfeit) has no scores:

    >>> from engines.phrases import english
    >>> english(describe_result({"winners": [1], "scores": {}, "resigned": [0]}, "AB"), "AB")
    'B wins: A resigned.'
    """
    if not result.get("scores"):
        return result_sentence(result)
    scores = dict(result["scores"])
    if result.get("virtual_score") is not None:
        scores[VIRTUAL] = result["virtual_score"]
    winners = [str(seat) for seat in result["winners"]]
    winners += [VIRTUAL] if result.get("virtual_wins") else []
    best = max(scores.values())
    tied = [key for key, value in scores.items() if value == best]
    named = [owner_name(key, names) for key in winners]
    named[0] = named[0][0].upper() + named[0][1:]
    head = f"{join(named)} {'wins' if len(named) == 1 else 'share the win'} with {points(best)}"
    if len(tied) > len(winners):
        head += " and more royal orders"
    others = [
        f"{owner_name(key, names)} {value}"
        for key, value in sorted(scores.items(), key=lambda item: -item[1])
        if key not in winners
    ]
    if others:
        head += f" ({', '.join(others)})"
    reason = str(result.get("reason") or "").strip()
    return f"{head}: {reason[:1].lower()}{reason[1:]}" if reason else f"{head}."


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


def _action_label(value: str, view: dict[str, Any]) -> str:
    """Words for the action answer."""
    return ACTION_LABELS.get(value) or ACTION_NAMES.get(value) or value.replace("_", " ")


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


def _kind_label(value: str, view: dict[str, Any]) -> str:
    left = view.get("stock", {}).get(value)
    return f"a {value} factory" + (f" ({left} left)" if left is not None else "")


def _province_label(value: str, view: dict[str, Any]) -> str:
    return NAMES[value]


def _count_label(value: str, view: dict[str, Any]) -> str:
    count = int(value)
    return plural(count, "citizen") + (f" ({francs(count - 1)})" if count > 1 else " (free)")


def _virtual_asked(view: dict[str, Any]) -> bool:
    pending = view.get("pending")
    return pending is not None and pending["kind"] == "virtual"


def _from_label(value: str, view: dict[str, Any]) -> str:
    if value == END:
        return "End the move"
    if value == SUPPLY:
        return "the virtual player's supply" if _virtual_asked(view) else "your supply"
    return NAMES[value]


def _to_label(value: str, view: dict[str, Any]) -> str:
    return "back to your supply" if value == SUPPLY else NAMES[value]


def _route_label(value: str, view: dict[str, Any]) -> str:
    length = int(value)
    cost = francs(length - 1) if length > 1 else "free"
    return f"crossing {plural(length, 'border')} ({cost}; the King's marker falls {length + 1})"


def _accept_label(value: str, view: dict[str, Any]) -> str:
    pending = view.get("pending") or {}
    if value == "no":
        return "Leave them in parliament"
    if pending.get("kind") != "bring_parliament":
        return "Bring them"
    brought = view["parliament"].get(str(pending["seat"]), 0)
    return f"Bring {plural(brought, 'parliamentarian')} to {NAMES[pending['province']]}"


def _factory_label(value: str, view: dict[str, Any]) -> str:
    if value == NOBODY:
        return "No factory: leave them all running"
    factories = view["provinces"][view["pending"]["province"]]["factories"]
    index = int(value.removeprefix("factory-"))
    kind = factories[index]["kind"]
    same = [i for i, factory in enumerate(factories) if factory["kind"] == kind]
    nth = f"{PLACES[same.index(index)]} " if len(same) > 1 else ""
    return f"the {nth}{kind} factory"


def _position_label(value: str, view: dict[str, Any]) -> str:
    return f"{value} place"


def questions(state: State, seat: int) -> list[Question]:
    """The questions of a move of ``seat``: the action first, then provinces and counts."""
    pending = state["pending"]
    kind = pending["kind"] if pending is not None and pending["seat"] == seat else None
    action_text = "Repay a loan before the game ends?" if kind == "finish" else "Which action?"
    from_text = {
        MOVE: "Which citizen moves next (from where), or end the move?",
        "virtual": "Place a virtual citizen from its supply, or move one from where?",
    }.get(kind or "", "From where?")
    return [
        Question("action", action_text, _action_answer, _action_label),
        Question("copy", "Which action does the Queen carry out?", _copy_answer, _action_label),
        Question("kind", "Which factory?", _field("kind", ["build_factory"]), _kind_label),
        Question(
            "province",
            "In which province?",
            _field("province", ["build_factory", "place_citizens"]),
            _province_label,
        ),
        Question("count", "How many citizens?", _field("count", ["place_citizens"]), _count_label),
        Question("from", from_text, _from_answer, _from_label),
        Question("to", "Where to?", _to_answer, _to_label),
        Question("king", "Where does the King go?", _king_answer, _province_label),
        Question("route", "By which route?", _route_answer, _route_label),
        Question("accept", "Bring your parliamentarians?", _accept_answer, _accept_label),
        Question("factory", "Which factory do you switch off?", _factory_answer, _factory_label),
        Question("position", "Which place in the turn order?", _position_answer, _position_label),
    ]
