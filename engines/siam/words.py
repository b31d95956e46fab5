"""Siam in the rulebook's words: moves, the result, the prompt and the guided questions.

The rulebook's vocabulary: animals (elephants and rhinos) are entered onto
the outer squares, moved, turned (their orientation changed), taken off the
board from an outer square, and push rocks and other animals. Every
sentence is a phrase (:mod:`engines.phrases`) read in the reader's language;
it names the players by their seats and says only what the board shows
(Siam hides nothing). Each animal has its own sentences, so that each
language can give it its article and gender.

>>> from engines.phrases import english
>>> from engines.siam.position import new_game
>>> from engines.siam.rules import play
>>> state = new_game({"cross_rule": True, "exit_once": False})
>>> move = {"action": "enter", "to": "a1", "facing": "N"}
>>> english(describe(state, play(state, "elephant", move), 0, move), ["Ann", "Bob"])
'Ann enters an elephant on a1, facing north.'
>>> english(facing_label("E"))
'east →'
"""

from __future__ import annotations

from typing import Any

from engines.phrases import N_, Phrase, either, phrase, seat, sentences
from engines.siam.board import KINDS, NEXT, OPPOSITE, PLY_LIMIT, owner
from engines.words import Question, result_sentence

Move = dict[str, Any]

#: The arrow shown beside each facing's name.
ARROWS = {"N": "↑", "E": "→", "S": "↓", "W": "←"}
#: The answers of the "where" question that are not squares.
TURN_HERE = "here"
TAKE_OFF = "off"
#: The answer of the "which animal" question for entering an animal from the reserve.
RESERVE = "reserve"
#: Each facing's name (a button's label).
DIRECTIONS = {
    "N": phrase("north"),
    "E": phrase("east"),
    "S": phrase("south"),
    "W": phrase("west"),
}
#: Each facing as the way something goes: "to the north" (a push, a turn).
TOWARDS = {
    "N": phrase("to the north"),
    "E": phrase("to the east"),
    "S": phrase("to the south"),
    "W": phrase("to the west"),
}
#: Each facing as an animal's orientation: "facing north".
FACING = {
    "N": phrase("facing north"),
    "E": phrase("facing east"),
    "S": phrase("facing south"),
    "W": phrase("facing west"),
}
#: What each action lets a player do, in the prompt's words, in the prompt's order.
VERBS = {
    "enter": phrase("enter"),
    "move": phrase("move"),
    "rotate": phrase("turn"),
    "exit": phrase("take off"),
}
#: Why a game is drawn, by the ``draw`` of its outcome.
DRAWS = {
    "repetition": phrase(
        "the same position came up for the third time, with the same player to move"
    ),
    "ply_limit": phrase("%(count)s moves were played and no rock left the board", count=PLY_LIMIT),
}
#: Each animal's sentences, by kind (each language gives the animal its own article).
SAYS = {
    "elephant": {
        "enters": N_("%(seat)s enters an elephant on %(square)s, %(facing)s."),
        "enters_pushing": N_(
            "%(seat)s enters an elephant on %(square)s and pushes %(towards)s: %(pushed)s."
        ),
        "moves": N_("%(seat)s moves the elephant from %(origin)s to %(square)s."),
        "moves_turning": N_(
            "%(seat)s moves the elephant from %(origin)s to %(square)s and turns it %(towards)s."
        ),
        "turns": N_("%(seat)s turns the elephant on %(square)s %(towards)s."),
        "exits": N_("%(seat)s takes the elephant on %(square)s off the board."),
        "piece": N_("%(seat)s's elephant"),
        "piece_on": N_("%(seat)s's elephant on %(square)s"),
        "prompt": N_("%(actions)s an elephant"),
        "wait": N_("wait for the elephants to move"),
        "which": N_("Which elephant?"),
        "new": N_("a new elephant from the reserve"),
        "on": N_("the elephant on %(square)s"),
        "none_left": N_("All five elephants are already on the board; none is left to enter."),
        "not_yours": N_("There is no elephant of yours on %(square)s."),
        "not_forward": N_(
            "Push rule A: an animal pushes only forward; the elephant on %(square)s "
            "looks %(facing)s, not %(direction)s."
        ),
        "same_facing": N_(
            "Rotating must change the facing; the elephant on %(square)s already looks %(facing)s."
        ),
        "turn": N_("It is not your turn: the elephants move now."),
        "exit_once": N_(
            "Variant B: each player may take an animal off the board only once per game, and "
            "the elephants already have."
        ),
    },
    "rhino": {
        "enters": N_("%(seat)s enters a rhino on %(square)s, %(facing)s."),
        "enters_pushing": N_(
            "%(seat)s enters a rhino on %(square)s and pushes %(towards)s: %(pushed)s."
        ),
        "moves": N_("%(seat)s moves the rhino from %(origin)s to %(square)s."),
        "moves_turning": N_(
            "%(seat)s moves the rhino from %(origin)s to %(square)s and turns it %(towards)s."
        ),
        "turns": N_("%(seat)s turns the rhino on %(square)s %(towards)s."),
        "exits": N_("%(seat)s takes the rhino on %(square)s off the board."),
        "piece": N_("%(seat)s's rhino"),
        "piece_on": N_("%(seat)s's rhino on %(square)s"),
        "prompt": N_("%(actions)s a rhino"),
        "wait": N_("wait for the rhinos to move"),
        "which": N_("Which rhino?"),
        "new": N_("a new rhino from the reserve"),
        "on": N_("the rhino on %(square)s"),
        "none_left": N_("All five rhinos are already on the board; none is left to enter."),
        "not_yours": N_("There is no rhino of yours on %(square)s."),
        "not_forward": N_(
            "Push rule A: an animal pushes only forward; the rhino on %(square)s "
            "looks %(facing)s, not %(direction)s."
        ),
        "same_facing": N_(
            "Rotating must change the facing; the rhino on %(square)s already looks %(facing)s."
        ),
        "turn": N_("It is not your turn: the rhinos move now."),
        "exit_once": N_(
            "Variant B: each player may take an animal off the board only once per game, and "
            "the rhinos already have."
        ),
    },
}


def says(kind: str, what: str, **args: Any) -> Phrase:
    """The sentence ``what`` of animal ``kind`` (:data:`SAYS`) with its parameters."""
    return phrase(SAYS[kind][what], **args)


def facing_label(direction: str) -> Phrase:
    """A facing as a button says it: "north ↑"."""
    return sentences(DIRECTIONS[direction], ARROWS[direction])


def piece_words(piece: dict[str, str]) -> Phrase:
    """A piece with its owner: "a rock", "Bob's rhino".

    >>> from engines.phrases import english
    >>> english(piece_words({"kind": "rock"})), english(piece_words({"kind": "rhino"}), "AB")
    ('a rock', "B's rhino")
    """
    kind = piece["kind"]
    return phrase("a rock") if kind == "rock" else says(kind, "piece", seat=seat(owner(kind)))


# -- moves ------------------------------------------------------------------
def describe(before: dict[str, Any], after: dict[str, Any], seat_: int, move: Move) -> Phrase:
    """What ``seat_`` did with ``move``, given the states ``before`` and ``after`` it.

    >>> from engines.phrases import english
    >>> after = {"board": {"b4": {"kind": "rock"}}, "last_push":
    ...     {"direction": "N", "squares": ["b4"], "off": None}}
    >>> english(describe({}, after, 0, {"action": "move", "from": "b2", "to": "b3",
    ...     "facing": "N"}), "AB")
    'A pushes from b2 to the north: a rock moves from b3 to b4.'
    >>> before = {"board": {"b2": {"kind": "rhino", "facing": "N"}}}
    >>> english(describe(before, {}, 1, {"action": "move", "from": "b2", "to": "b3",
    ...     "facing": "E"}), "AB")
    'B moves the rhino from b2 to b3 and turns it to the east.'
    >>> english(describe({}, {}, 1, {"action": "rotate", "at": "c2", "facing": "S"}), "AB")
    'B turns the rhino on c2 to the south.'
    >>> english(describe({}, {}, 0, {"action": "exit", "from": "a1"}), ["Ann", "Bob"])
    'Ann takes the elephant on a1 off the board.'
    """
    return sentences(_action_words(before, after, seat_, move), _draw_words(after))


def _draw_words(after: dict[str, Any]) -> Phrase | None:
    """ "The game is drawn: ..." when the move drew the game, else nothing.

    >>> from engines.phrases import english
    >>> english(_draw_words({"outcome": {"draw": "repetition"}}))
    'The game is drawn: the same position came up for the third time, with the same player \
to move.'
    """
    outcome = after.get("outcome") or {}
    if "draw" not in outcome:
        return None
    return phrase("The game is drawn: %(why)s.", why=DRAWS[outcome["draw"]])


def _action_words(before: dict[str, Any], after: dict[str, Any], seat_: int, move: Move) -> Phrase:
    """What ``move`` did on the board, in one sentence."""
    kind, action, who = KINDS[seat_], move["action"], seat(seat_)
    push = after.get("last_push") if action in ("enter", "move") else None
    facing = move.get("facing", "")
    if push:
        pushed = pushed_words(after, push)
        if action == "enter":
            return says(
                kind,
                "enters_pushing",
                seat=who,
                square=move["to"],
                towards=TOWARDS[facing],
                pushed=pushed,
            )
        return phrase(
            "%(seat)s pushes from %(origin)s %(towards)s: %(pushed)s.",
            seat=who,
            origin=move["from"],
            towards=TOWARDS[facing],
            pushed=pushed,
        )
    if action == "enter":
        return says(kind, "enters", seat=who, square=move["to"], facing=FACING[facing])
    if action == "move":
        turned = before["board"][move["from"]]["facing"] != facing
        return says(
            kind,
            "moves_turning" if turned else "moves",
            seat=who,
            origin=move["from"],
            square=move["to"],
            **({"towards": TOWARDS[facing]} if turned else {}),
        )
    if action == "rotate":
        return says(kind, "turns", seat=who, square=move["at"], towards=TOWARDS[facing])
    return says(kind, "exits", seat=who, square=move["from"])


def pushed_words(after: dict[str, Any], push: dict[str, Any]) -> Phrase:
    """What a push did to the pieces ahead of the pusher, from the state after it.

    A piece pushed off the board is the news; otherwise each pushed piece is named.

    >>> from engines.phrases import english
    >>> board = {"b4": {"kind": "rock"}, "b5": {"kind": "rhino", "facing": "E"}}
    >>> english(pushed_words({"board": board}, {"direction": "N", "squares": ["b4", "b5"],
    ...     "off": None}), ["Ann", "Bob"])
    "a rock and Bob's rhino move one square to the north"
    >>> english(pushed_words({"board": {}}, {"direction": "N", "squares": [],
    ...     "off": {"kind": "rock", "from": "a5"}}))
    'the rock on a5 leaves the board'
    """
    off = push["off"]
    if off:
        return phrase("%(piece)s leaves the board", piece=piece_on(off["kind"], off["from"]))
    board, direction = after["board"], push["direction"]
    pieces = [piece_words(board[square]) for square in push["squares"]]
    if len(pieces) == 1:
        origin = NEXT[push["squares"][0]][OPPOSITE[direction]]
        return phrase(
            "%(piece)s moves from %(origin)s to %(square)s",
            piece=pieces[0],
            origin=origin,
            square=push["squares"][0],
        )
    return phrase(
        "%(pieces)s move one square %(towards)s", pieces=pieces, towards=TOWARDS[direction]
    )


def piece_on(kind: str, square: str) -> Phrase:
    """A piece on a square: "the rock on a5", "Bob's rhino on a2"."""
    if kind == "rock":
        return phrase("the rock on %(square)s", square=square)
    return says(kind, "piece_on", seat=seat(owner(kind)), square=square)


# -- the result -------------------------------------------------------------
def reason(outcome: dict[str, Any]) -> Phrase:
    """The engine's name-free reason for a finished game (the result's ``reason``, in English).

    >>> from engines.phrases import english
    >>> english(reason({"winner": 0, "mover": 1, "rock": "c5", "direction": "N", "animal": "c3"}))
    'The rock on c5 was pushed off the board to the north; the nearest animal behind it \
facing the push is the elephant on c3, so the elephants win although the rhinos pushed.'
    >>> english(reason({"draw": "ply_limit"}))
    'A draw: 500 moves were played and no rock left the board.'
    """
    if "draw" in outcome:
        return phrase("A draw: %(why)s.", why=DRAWS[outcome["draw"]])
    key = (
        N_(
            "The rock on %(rock)s was pushed off the board %(towards)s; the nearest animal "
            "behind it facing the push is the elephant on %(square)s, so the elephants win"
        )
        if outcome["winner"] == 0
        else N_(
            "The rock on %(rock)s was pushed off the board %(towards)s; the nearest animal "
            "behind it facing the push is the rhino on %(square)s, so the rhinos win"
        )
    )
    said = phrase(
        key, rock=outcome["rock"], towards=TOWARDS[outcome["direction"]], square=outcome["animal"]
    )
    if outcome["mover"] == outcome["winner"]:
        return phrase("%(reason)s.", reason=said)
    if outcome["mover"] == 0:
        return phrase("%(reason)s although the elephants pushed.", reason=said)
    return phrase("%(reason)s although the rhinos pushed.", reason=said)


def describe_result(result: dict[str, Any]) -> Phrase:
    """The result with the players' seats (a result not from a push: the shared words).

    >>> from engines.phrases import english
    >>> english(describe_result({"winners": [1], "rock": "a1", "direction": "S",
    ...     "winning_animal": "a2", "pushed_by": 1}), ["Ann", "Bob"])
    "Bob wins: the rock on a1 was pushed off the board to the south, and the nearest animal \
behind it facing the push is Bob's rhino on a2."
    >>> english(describe_result({"winners": [0], "rock": "e3", "direction": "E",
    ...     "winning_animal": "d3", "pushed_by": 1}), ["Ann", "Bob"])
    "Ann wins: Bob pushed the rock on e3 off the board to the east, but the nearest animal \
behind it facing the push is Ann's elephant on d3."
    >>> english(describe_result({"winners": [0], "resigned": [1]}), ["Ann", "Bob"])
    'Ann wins: Bob resigned.'
    >>> english(describe_result({"winners": [], "draw": "repetition"}), ["Ann", "Bob"])
    'Ann and Bob draw: the same position came up for the third time, with the same player \
to move.'
    """
    if result.get("draw") in DRAWS:
        return phrase(
            "%(seats)s draw: %(why)s.", seats=[seat(0), seat(1)], why=DRAWS[result["draw"]]
        )
    winners = result.get("winners") or []
    if "rock" not in result or len(winners) != 1:
        return result_sentence(result)
    winner, mover = winners[0], result["pushed_by"]
    animal = piece_on(KINDS[winner], result["winning_animal"])
    towards = TOWARDS[result["direction"]]
    if mover == winner:
        return phrase(
            "%(seat)s wins: the rock on %(rock)s was pushed off the board %(towards)s, and the "
            "nearest animal behind it facing the push is %(animal)s.",
            seat=seat(winner),
            rock=result["rock"],
            towards=towards,
            animal=animal,
        )
    return phrase(
        "%(seat)s wins: %(mover)s pushed the rock on %(rock)s off the board %(towards)s, but "
        "the nearest animal behind it facing the push is %(animal)s.",
        seat=seat(winner),
        mover=seat(mover),
        rock=result["rock"],
        towards=towards,
        animal=animal,
    )


# -- asking for a move --------------------------------------------------------
def prompt(state: dict[str, Any], moves: list[Move], seat_: int) -> Phrase:
    """What ``seat_`` may do now, from its legal ``moves``: "enter, move or turn an elephant".

    >>> from engines.phrases import english
    >>> english(prompt({"outcome": None}, [{"action": "enter"}, {"action": "rotate"}], 1))
    'enter or turn a rhino'
    >>> english(prompt({"outcome": None}, [], 1))
    'wait for the elephants to move'
    """
    if state.get("outcome"):
        return phrase("nothing more: the game is over")
    if not moves:
        return says(KINDS[1 - seat_], "wait")
    actions = {move["action"] for move in moves}
    verbs = [verb for action, verb in VERBS.items() if action in actions]
    return says(KINDS[seat_], "prompt", actions=either(*verbs))


def piece_answer(move: Move) -> str:
    """Which animal a move plays: ``reserve`` for an entry, else the animal's square."""
    if move["action"] == "enter":
        return RESERVE
    return move["at"] if move["action"] == "rotate" else move["from"]


def where_answer(move: Move) -> str:
    """Where a move takes the animal: a square, ``here`` (a turn) or ``off`` (off the board)."""
    return {"rotate": TURN_HERE, "exit": TAKE_OFF}.get(move["action"]) or move["to"]


def facing_answer(move: Move) -> str | None:
    """The facing a move leaves the animal with (``None`` when it leaves the board)."""
    return move.get("facing")


def questions(seat_: int) -> list[Question]:
    """Which animal, where, facing which way: the guided form of a move of ``seat_``.

    >>> from engines.phrases import english
    >>> piece, where, facing = questions(0)
    >>> move = {"action": "move", "from": "b2", "to": "b3", "facing": "E"}
    >>> [question.answer(move) for question in (piece, where, facing)]
    ['b2', 'b3', 'E']
    >>> view = {"board": {"b3": {"kind": "rock"}}}
    >>> [english(label) for label in (piece.label("reserve", view), piece.label("b2", view),
    ...     where.label("b3", view), where.label("off", view), facing.label("N", view))]
    ['a new elephant from the reserve', 'the elephant on b2', 'b3, pushing', \
'take it off the board', 'north ↑']
    """
    kind = KINDS[seat_]

    def piece_label(value: str, view: dict[str, Any]) -> Phrase:
        return says(kind, "new") if value == RESERVE else says(kind, "on", square=value)

    def where_label(value: str, view: dict[str, Any]) -> Phrase | str:
        if value == TURN_HERE:
            return phrase("turn it here")
        if value == TAKE_OFF:
            return phrase("take it off the board")
        if value in view.get("board", {}):
            return phrase("%(square)s, pushing", square=value)
        return value

    return [
        Question("piece", says(kind, "which"), piece_answer, piece_label),
        Question("to", phrase("Where to?"), where_answer, where_label),
        Question(
            "facing",
            phrase("Facing which way?"),
            facing_answer,
            lambda value, view: facing_label(value),
        ),
    ]
