"""The one-line notation of Siam moves (examples in the package docstring).

>>> parse_move("Move B2 b3 e")
{'action': 'move', 'from': 'b2', 'to': 'b3', 'facing': 'E'}
>>> format_move({"action": "exit", "from": "a1"})
'exit a1'
"""

from __future__ import annotations

from engines.base import Move, NotationError
from engines.phrases import counted, phrase
from engines.siam.board import DIRECTIONS, SQUARE_SET
from engines.siam.rules import FIELDS, shape_problem

#: One example per action, quoted when a move has the wrong number of words.
EXAMPLES = {
    "enter": "enter a1 N",
    "move": "move b2 b3 E",
    "rotate": "rotate b2 S",
    "exit": "exit a1",
}


#: Each language's words for the actions and the facings (the rulebooks' verbs: Dutch "zet,
#: verplaats, draai, haal", German "setze, ziehe, drehe, nimm", French "entre, déplace,
#: tourne, sors"; each language's compass letters: Dutch and German O for east, French O for
#: west).
LANGUAGE_WORDS = {
    "nl": {
        "enter": ("zet", "inzetten"),
        "move": ("verplaats", "schuif"),
        "rotate": ("draai",),
        "exit": ("haal", "eruit"),
        "N": ("noord",),
        "E": ("o", "oost"),
        "S": ("z", "zuid"),
        "W": ("west",),
    },
    "de": {
        "enter": ("setze", "einsetzen"),
        "move": ("ziehe", "bewege"),
        "rotate": ("drehe",),
        "exit": ("nimm", "raus"),
        "N": ("nord",),
        "E": ("o", "ost"),
        "S": ("süd",),
        "W": ("west",),
    },
    "fr": {
        "enter": ("entre", "entrer"),
        "move": ("déplace", "déplacer"),
        "rotate": ("tourne", "tourner"),
        "exit": ("sors", "sortir"),
        "N": ("nord",),
        "E": ("est",),
        "S": ("sud",),
        "W": ("o", "ouest"),
    },
}


def format_move(move: Move) -> str:
    """``enter a1 N``, ``move b2 b3 E``, ``rotate b2 S`` or ``exit a1``; NotationError otherwise."""
    problem = shape_problem(move)
    if problem:
        raise NotationError(problem)
    return " ".join([move["action"], *(move[field] for field in FIELDS[move["action"]])])


def parse_move(text: str) -> Move:
    """The move written as ``text`` (case-insensitive); raise NotationError otherwise."""
    if not isinstance(text, str) or not text.split():
        raise NotationError(
            phrase("Write a move such as 'enter a1 N', 'move b2 b3 E', 'rotate b2 S' or 'exit a1'.")
        )
    action, *words = text.split()
    action = action.lower()
    if action not in FIELDS:
        raise NotationError(
            phrase("Unknown action %(action)r: use enter, move, rotate or exit.", action=action)
        )
    fields = FIELDS[action]
    if len(words) != len(fields):
        raise NotationError(
            counted(
                "'%(action)s' takes %(count)s word after it, e.g. '%(example)s'.",
                "'%(action)s' takes %(count)s words after it, e.g. '%(example)s'.",
                len(fields),
                action=action,
                example=EXAMPLES[action],
            )
        )
    move = {"action": action}
    for field, word in zip(fields, words, strict=True):
        move[field] = _parse_word(field, word)
    return move


def _parse_word(field: str, word: str) -> str:
    """A facing (upper case) or a square (lower case) read from ``word``."""
    if field == "facing":
        if word.upper() not in DIRECTIONS:
            raise NotationError(phrase("%(word)r is not a facing: use N, E, S or W.", word=word))
        return word.upper()
    if word.lower() not in SQUARE_SET:
        raise NotationError(phrase("%(word)r is not a square: use a1..e5.", word=word))
    return word.lower()
