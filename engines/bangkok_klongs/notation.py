"""The one-line notation of Bangkok Klongs moves (grammar and examples in the package docstring).

``format_move`` writes the clauses in a fixed order; ``parse_move`` reads
them in any order, case-insensitively, each clause at most once.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engines.base import Move, NotationError
from engines.phrases import Phrase, phrase

TILE = re.compile(r"^t\d+$")
FIELD = re.compile(r"^r\d+c\d+$")
LANDING = re.compile(r"^l\d+-\d+$")
MERCHANTS = ("new", "none")
WHENS = ("before", "after")
PILES = ("merchant", "plain")
THIEF_KEEPS = ("hand", "inventory")
#: A field or a landing place as the board prints it: ``E4`` (column letter, row from 1), or
#: ``E4-F5`` (the landing place between E4 and F5).
PRINTED = re.compile(r"(?<![\w-])([a-j])([1-8])(?:-([a-j])([1-8]))?(?![\w-])")
COLUMNS = "abcdefghij"

#: Each language's words for the notation's words (the Dutch rulebook's actions), read as the
#: notation (see :meth:`engines.base.Engine.in_notation`); the notation is always read.
LANGUAGE_WORDS = {
    "nl": {
        "place": ("plaats",),
        "relocate": ("verplaats",),
        "finish": ("klaar",),
        "score": ("waardeer",),
        "decline": ("zie af", "afzien"),
        "remove": ("verwijder",),
        "new": ("nieuw", "nieuwe"),
        "none": ("geen",),
        "draw": ("neem",),
        "merchant": ("handelaar", "handelaren"),
        "plain": ("zonder",),
        "steal": ("steel",),
        "keep": ("houd",),
        "inventory": ("voorraad",),
        "before": ("voor",),
        "after": ("na",),
        "remove-thieves": ("verwijder dieven",),
    },
    "de": {
        "place": ("lege",),
        "relocate": ("versetze",),
        "finish": ("beende",),
        "score": ("werte",),
        "decline": ("verzichte",),
        "remove": ("entferne",),
        "new": ("neu", "neuer"),
        "none": ("kein", "keinen"),
        "draw": ("ziehe",),
        "merchant": ("händler",),
        "plain": ("ohne",),
        "steal": ("stehle",),
        "keep": ("behalte",),
        "inventory": ("vorrat",),
        "before": ("vorher",),
        "after": ("nachher",),
        "remove-thieves": ("diebe entfernen",),
    },
    "fr": {
        "place": ("placer",),
        "relocate": ("déplace", "déplacer"),
        "finish": ("termine", "terminer"),
        "score": ("décompte", "décompter"),
        "decline": ("renonce", "renoncer"),
        "remove": ("retire",),
        "new": ("nouveau",),
        "none": ("aucun",),
        "draw": ("pioche",),
        "merchant": ("marchand",),
        "plain": ("sans",),
        "steal": ("vole",),
        "keep": ("garde",),
        "hand": ("main",),
        "inventory": ("inventaire",),
        "before": ("avant",),
        "after": ("après",),
        "remove-thieves": ("retirer voleurs",),
    },
}

#: What a word of the notation should have been, as a refusal names it.
A_LANDING = phrase("a landing place")
A_FIELD = phrase("a field")
A_MERCHANT = phrase("a merchant (new, none or a field)")
A_KEEP = phrase("a keep (hand, inventory, field)")
A_TILE = phrase("a tile id")
THE_PILE = phrase("The pile to draw from")
A_TIME = phrase("A relocation's time")


def canonical_names(text: str) -> str:
    """``text`` in lower case with the printed names of fields and landing places written
    as the notation's ids.

    >>> canonical_names("Place t50 E4 new relocate A1 B1 before")
    'place t50 r3c4 new relocate r0c0 r0c1 before'
    >>> canonical_names("score E4-F5 remove E4")
    'score l4-5 remove r3c4'
    """

    def spelled(match: re.Match[str]) -> str:
        column, row = COLUMNS.index(match[1]), int(match[2]) - 1
        if match[3] is None:
            return f"r{row}c{column}"
        last_column, last_row = COLUMNS.index(match[3]), int(match[4]) - 1
        if (last_column, last_row) != (column + 1, row + 1):
            return match[0]
        return f"l{last_row}-{last_column}"

    return PRINTED.sub(spelled, text.lower())


def format_move(move: Move) -> str:
    """The notation of ``move``."""
    action = move["action"]
    if action == "score":
        return f"score {move['landing']} remove {move['remove']}"
    if action == "decline":
        return "decline"
    if action == "place":
        words = ["place", move["tile"], move["at"], move["merchant"]]
    elif action == "relocate":
        words = ["relocate", move["from"], move["to"]]
    else:
        words = ["finish"]
    if "relocate" in move:
        relocation = move["relocate"]
        words += ["relocate", *(relocation[k] for k in ("from", "to") if k in relocation)]
        words.append(relocation["when"])
    if "steal" in move:
        words += ["steal", move["steal"]]
    if move.get("remove_thieves"):
        words.append("remove-thieves")
    for key in ("keep", "draw"):
        if key in move:
            words += [key, move[key]]
    return " ".join(words)


def parse_move(text: str) -> Move:
    """The move written as ``text``; NotationError if it is not notation."""
    if not isinstance(text, str) or not text.split():
        raise NotationError(phrase("Write a move: place ..., score ... or decline."), "notation")
    words = canonical_names(text).split()
    action, rest = words[0], words[1:]
    if action == "decline" and not rest:
        return {"action": "decline"}
    if action == "score" and len(rest) == 3 and rest[1] == "remove":
        landing, field = _check(rest[0], LANDING, A_LANDING), _check(rest[2], FIELD, A_FIELD)
        return {"action": "score", "landing": "L" + landing[1:], "remove": field}
    if action == "place" and len(rest) >= 3:
        return _parse_place(rest)
    if action == "relocate" and len(rest) >= 2:
        move = {"action": "relocate", "from": _field(rest[0]), "to": _field(rest[1])}
        return _draw_clause(move, rest[2:])
    if action == "finish":
        return _draw_clause({"action": "finish"}, rest)
    raise NotationError(
        phrase(
            "Not a move: %(text)s. Examples: 'place t50 r3c4 new', 'relocate r2c2 r2c3', "
            "'finish', 'score L4-5 remove r3c4', 'decline'.",
            text=repr(text),
        ),
        "notation",
    )


def _field(word: str) -> str:
    """A water field like ``r3c4``."""
    return _check(word, FIELD, A_FIELD)


def _draw_clause(move: Move, words: list[str]) -> Move:
    """``move`` with an optional trailing ``draw merchant|plain``."""
    if not words:
        return move
    if len(words) != 2 or words[0] != "draw":
        raise NotationError(
            phrase(
                "Only 'draw merchant' or 'draw plain' may follow, not %(text)s.",
                text=repr(" ".join(words)),
            ),
            "notation",
        )
    return {**move, "draw": _one_of(words[1], PILES, THE_PILE)}


def _check(word: str, pattern: re.Pattern[str], what: Phrase) -> str:
    """``word`` if it matches ``pattern``, else NotationError naming ``what``."""
    if not pattern.match(word):
        raise NotationError(
            phrase("%(word)s is not %(what)s.", word=repr(word), what=what), "notation"
        )
    return word


def _one_of(word: str, choices: tuple[str, ...], what: Phrase) -> str:
    """``word`` if it is one of ``choices``."""
    if word not in choices:
        raise NotationError(
            phrase(
                "%(what)s is one of %(choices)s, not %(word)s.",
                what=what,
                choices=", ".join(choices),
                word=repr(word),
            ),
            "notation",
        )
    return word


def _merchant(word: str) -> str:
    """``new``, ``none`` or the field to take a merchant from."""
    return word if word in MERCHANTS else _check(word, FIELD, A_MERCHANT)


def _keep(word: str) -> str:
    """``hand``, ``inventory`` (thief) or a thief's field (overseer)."""
    return word if word in THIEF_KEEPS else _check(word, FIELD, A_KEEP)


def _relocation(words: list[str]) -> dict[str, str]:
    """``relocate FROM TO before|after``."""
    return {
        "from": _field(words[0]),
        "to": _field(words[1]),
        "when": _one_of(words[2], WHENS, A_TIME),
    }


#: clause keyword -> (move key, number of words, reader of those words)
CLAUSES: dict[str, tuple[str, int, Callable[[list[str]], object]]] = {
    "relocate": ("relocate", 3, _relocation),
    "steal": ("steal", 1, lambda w: _field(w[0])),
    "keep": ("keep", 1, lambda w: _keep(w[0])),
    "remove-thieves": ("remove_thieves", 0, lambda w: True),
    "remove_thieves": ("remove_thieves", 0, lambda w: True),
    "draw": ("draw", 1, lambda w: _one_of(w[0], PILES, THE_PILE)),
}


def _parse_place(words: list[str]) -> Move:
    """``TILE FIELD MERCHANT`` followed by optional clauses."""
    move: Move = {
        "action": "place",
        "tile": _check(words[0], TILE, A_TILE),
        "at": _field(words[1]),
        "merchant": _merchant(words[2]),
    }
    index = 3
    while index < len(words):
        keyword = words[index]
        if keyword not in CLAUSES:
            raise NotationError(
                phrase("Unknown clause %(word)s in a place move.", word=repr(keyword)), "notation"
            )
        key, arity, read = CLAUSES[keyword]
        if keyword == "relocate" and words[index + 1 : index + 2] == ["after"]:
            key, arity, read = "relocate", 1, lambda w: {"when": "after"}
        arguments = words[index + 1 : index + 1 + arity]
        if len(arguments) < arity or key in move:
            raise NotationError(
                phrase("Clause %(word)s is incomplete or repeated.", word=repr(keyword)),
                "notation",
            )
        move[key] = read(arguments)
        index += 1 + arity
    return move
