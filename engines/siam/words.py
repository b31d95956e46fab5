"""Siam in the rulebook's words: moves, the result, the prompt and the guided questions.

The English rulebook's vocabulary: animals (elephants and rhinos) are
entered onto the outer squares, moved, turned (their orientation changed),
taken off the board from an outer square, and push rocks and other animals.
Sentences name the players and never their seats; they say only what the
board shows (Siam hides nothing).

>>> from engines.siam.position import new_game
>>> from engines.siam.rules import play
>>> state = new_game({"cross_rule": True, "exit_once": False})
>>> move = {"action": "enter", "to": "a1", "facing": "N"}
>>> describe(state, play(state, "elephant", move), 0, move, ["Ann", "Bob"])
'Ann enters an elephant on a1, facing north.'
>>> facing_label("E")
'east →'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.siam.board import DIRECTION_NAMES, KINDS, NEXT, OPPOSITE, PLY_LIMIT, owner
from engines.words import Question, join, result_sentence

Move = dict[str, Any]

#: The arrow shown beside each facing's name.
ARROWS = {"N": "↑", "E": "→", "S": "↓", "W": "←"}
#: The answers of the "where" question that are not squares.
TURN_HERE = "here"
TAKE_OFF = "off"
#: The answer of the "which animal" question for entering an animal from the reserve.
RESERVE = "reserve"
#: What each action lets a player do, in the prompt's words, in the prompt's order.
VERBS = {"enter": "enter", "move": "move", "rotate": "turn", "exit": "take off"}
#: Why a game is drawn, by the ``draw`` of its outcome.
DRAWS = {
    "repetition": "the same position came up for the third time, with the same player to move",
    "ply_limit": f"{PLY_LIMIT} moves were played and no rock left the board",
}


def article(kind: str) -> str:
    """``kind`` with its indefinite article: "an elephant", "a rhino"."""
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def facing_label(direction: str) -> str:
    """A facing as a button says it: "north ↑"."""
    return f"{DIRECTION_NAMES[direction]} {ARROWS[direction]}"


def piece_words(piece: dict[str, str], names: Sequence[str]) -> str:
    """A piece with its owner: "a rock", "Bob's rhino".

    >>> piece_words({"kind": "rock"}, "AB"), piece_words({"kind": "rhino"}, ["Ann", "Bob"])
    ('a rock', "Bob's rhino")
    """
    kind = piece["kind"]
    return "a rock" if kind == "rock" else f"{names[owner(kind)]}'s {kind}"


# -- moves ------------------------------------------------------------------
def describe(
    before: dict[str, Any], after: dict[str, Any], seat: int, move: Move, names: Sequence[str]
) -> str:
    """What ``seat`` did with ``move``, given the states ``before`` and ``after`` it.

    >>> after = {"board": {"b4": {"kind": "rock"}}, "last_push":
    ...     {"direction": "N", "squares": ["b4"], "off": None}}
    >>> describe({}, after, 0, {"action": "move", "from": "b2", "to": "b3", "facing": "N"}, "AB")
    'A pushes from b2 to the north: a rock moves from b3 to b4.'
    >>> before = {"board": {"b2": {"kind": "rhino", "facing": "N"}}}
    >>> describe(before, {}, 1, {"action": "move", "from": "b2", "to": "b3", "facing": "E"}, "AB")
    'B moves the rhino from b2 to b3 and turns it east.'
    >>> describe({}, {}, 1, {"action": "rotate", "at": "c2", "facing": "S"}, ["Ann", "Bob"])
    'Bob turns the rhino on c2 to face south.'
    >>> describe({}, {}, 0, {"action": "exit", "from": "a1"}, ["Ann", "Bob"])
    'Ann takes the elephant on a1 off the board.'
    """
    return _action_words(before, after, seat, move, names) + _draw_words(after)


def _draw_words(after: dict[str, Any]) -> str:
    """ " The game is drawn: ..." when the move drew the game, else nothing.

    >>> _draw_words({"outcome": {"draw": "repetition"}})
    ' The game is drawn: the same position came up for the third time, with the same player \
to move.'
    """
    outcome = after.get("outcome") or {}
    return f" The game is drawn: {DRAWS[outcome['draw']]}." if "draw" in outcome else ""


def _action_words(
    before: dict[str, Any], after: dict[str, Any], seat: int, move: Move, names: Sequence[str]
) -> str:
    """What ``move`` did on the board, in one sentence."""
    name, kind, action = names[seat], KINDS[seat], move["action"]
    push = after.get("last_push") if action in ("enter", "move") else None
    facing = DIRECTION_NAMES.get(move.get("facing", ""), "")
    entering = f"{name} enters {article(kind)} on {move.get('to')}"
    if push:
        pushed = pushed_words(after, push, names)
        if action == "enter":
            return f"{entering} and pushes to the {facing}: {pushed}."
        return f"{name} pushes from {move['from']} to the {facing}: {pushed}."
    if action == "enter":
        return f"{entering}, facing {facing}."
    if action == "move":
        turned = before["board"][move["from"]]["facing"] != move["facing"]
        return f"{name} moves the {kind} from {move['from']} to {move['to']}" + (
            f" and turns it {facing}." if turned else "."
        )
    if action == "rotate":
        return f"{name} turns the {kind} on {move['at']} to face {facing}."
    return f"{name} takes the {kind} on {move['from']} off the board."


def pushed_words(after: dict[str, Any], push: dict[str, Any], names: Sequence[str]) -> str:
    """What a push did to the pieces ahead of the pusher, from the state after it.

    A piece pushed off the board is the news; otherwise each pushed piece is named.

    >>> board = {"b4": {"kind": "rock"}, "b5": {"kind": "rhino", "facing": "E"}}
    >>> pushed_words({"board": board}, {"direction": "N", "squares": ["b4", "b5"], "off": None},
    ...     ["Ann", "Bob"])
    "a rock and Bob's rhino move one square north"
    >>> pushed_words({"board": {}}, {"direction": "N", "squares": [],
    ...     "off": {"kind": "rock", "from": "a5"}}, ["Ann", "Bob"])
    'the rock on a5 leaves the board'
    """
    off = push["off"]
    if off:
        piece = piece_words(off, names)
        return f"{'the rock' if off['kind'] == 'rock' else piece} on {off['from']} leaves the board"
    board, direction = after["board"], push["direction"]
    pieces = [piece_words(board[square], names) for square in push["squares"]]
    if len(pieces) == 1:
        origin = NEXT[push["squares"][0]][OPPOSITE[direction]]
        return f"{pieces[0]} moves from {origin} to {push['squares'][0]}"
    return f"{join(pieces)} move one square {DIRECTION_NAMES[direction]}"


# -- the result -------------------------------------------------------------
def reason(outcome: dict[str, Any]) -> str:
    """The engine's name-free reason for a finished game.

    >>> reason({"winner": 0, "mover": 1, "rock": "c5", "direction": "N", "animal": "c3"})
    'The rock on c5 was pushed off the board to the north; the nearest animal behind it \
facing the push is the elephant on c3, so the elephants win although the rhinos pushed.'
    >>> reason({"draw": "ply_limit"})
    'A draw: 500 moves were played and no rock left the board.'
    """
    if "draw" in outcome:
        return f"A draw: {DRAWS[outcome['draw']]}."
    kind = KINDS[outcome["winner"]]
    text = (
        f"The rock on {outcome['rock']} was pushed off the board to the "
        f"{DIRECTION_NAMES[outcome['direction']]}; the nearest animal behind it facing "
        f"the push is the {kind} on {outcome['animal']}, so the {kind}s win"
    )
    if outcome["mover"] != outcome["winner"]:
        text += f" although the {KINDS[outcome['mover']]}s pushed"
    return text + "."


def describe_result(result: dict[str, Any], names: Sequence[str]) -> str:
    """The result with the players' names (a result not from a push: the shared words).

    >>> describe_result({"winners": [1], "rock": "a1", "direction": "S",
    ...     "winning_animal": "a2", "pushed_by": 1}, ["Ann", "Bob"])
    "Bob wins: the rock on a1 was pushed off the board to the south, and the nearest animal \
behind it facing the push is Bob's rhino on a2."
    >>> describe_result({"winners": [0], "rock": "e3", "direction": "E",
    ...     "winning_animal": "d3", "pushed_by": 1}, ["Ann", "Bob"])
    "Ann wins: Bob pushed the rock on e3 off the board to the east, but the nearest animal \
behind it facing the push is Ann's elephant on d3."
    >>> describe_result({"winners": [], "reason": "Ann resigned"}, ["Ann", "Bob"])
    'Nobody wins: Ann resigned.'
    >>> describe_result({"winners": [], "draw": "repetition"}, ["Ann", "Bob"])
    'Ann and Bob draw: the same position came up for the third time, with the same player \
to move.'
    """
    if result.get("draw") in DRAWS:
        return f"{join(names)} draw: {DRAWS[result['draw']]}."
    winners = result.get("winners") or []
    if "rock" not in result or len(winners) != 1:
        return result_sentence(result, names)
    winner, mover = winners[0], result["pushed_by"]
    rock, direction = f"the rock on {result['rock']}", DIRECTION_NAMES[result["direction"]]
    animal = f"{names[winner]}'s {KINDS[winner]} on {result['winning_animal']}"
    if mover == winner:
        push = f"{rock} was pushed off the board to the {direction}, and"
    else:
        push = f"{names[mover]} pushed {rock} off the board to the {direction}, but"
    return f"{names[winner]} wins: {push} the nearest animal behind it facing the push is {animal}."


# -- asking for a move --------------------------------------------------------
def prompt(state: dict[str, Any], moves: Sequence[Move], seat: int) -> str:
    """What ``seat`` may do now, from its legal ``moves``: "enter, move or turn an elephant".

    >>> prompt({"outcome": None}, [{"action": "enter"}, {"action": "rotate"}], 1)
    'enter or turn a rhino'
    >>> prompt({"outcome": None}, [], 1)
    'wait for the elephants to move'
    """
    if state.get("outcome"):
        return "nothing more: the game is over"
    if not moves:
        return f"wait for the {KINDS[1 - seat]}s to move"
    actions = {move["action"] for move in moves}
    verbs = [verb for action, verb in VERBS.items() if action in actions]
    return f"{join(verbs, 'or')} {article(KINDS[seat])}"


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


def questions(seat: int) -> list[Question]:
    """Which animal, where, facing which way: the guided form of a move of ``seat``.

    >>> piece, where, facing = questions(0)
    >>> move = {"action": "move", "from": "b2", "to": "b3", "facing": "E"}
    >>> [question.answer(move) for question in (piece, where, facing)]
    ['b2', 'b3', 'E']
    >>> view = {"board": {"b3": {"kind": "rock"}}}
    >>> piece.label("reserve", view), piece.label("b2", view), where.label("b3", view)
    ('a new elephant from the reserve', 'the elephant on b2', 'b3, pushing')
    >>> where.label("off", view), facing.label("N", view)
    ('take it off the board', 'north ↑')
    """
    kind = KINDS[seat]

    def piece_label(value: str, view: dict[str, Any]) -> str:
        return f"a new {kind} from the reserve" if value == RESERVE else f"the {kind} on {value}"

    def where_label(value: str, view: dict[str, Any]) -> str:
        if value == TURN_HERE:
            return "turn it here"
        if value == TAKE_OFF:
            return "take it off the board"
        return f"{value}, pushing" if value in view.get("board", {}) else value

    return [
        Question("piece", f"Which {kind}?", piece_answer, piece_label),
        Question("to", "Where to?", where_answer, where_label),
        Question(
            "facing", "Facing which way?", facing_answer, lambda value, view: facing_label(value)
        ),
    ]
