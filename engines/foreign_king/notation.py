"""The one-line notation of Foreign King moves (examples in the package docstring)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.base import Move, NotationError
from engines.foreign_king.board import KINDS, NAMES, PROVINCES, SUPPLY
from engines.phrases import phrase, sentences
from engines.spelling import Spellings, suggestion

WORDS = {
    "build_factory": "build",
    "place_citizens": "place",
    "move_citizens": "move",
    "step": "step",
    "end_move": "end",
    "parliament": "parliament",
    "take_coins": "coins",
    "king": "king",
    "queen": "queen",
    "turn_order": "turn-order",
    "loan": "loan",
    "repay": "repay",
    "bring_parliament": "bring",
    "deactivate": "deactivate",
    "virtual": "virtual",
    "set_position": "position",
    "finish": "finish",
}
ACTIONS = {word: action for action, word in WORDS.items()}
#: The whole turn: its decisions (a loan, the main action, its steps and answers) in one move,
#: written one after the other with ``;`` between them.
TURN = "turn"
TURN_SEPARATOR = ";"
#: The provinces as the board prints them ("Liège", "West-Vlaanderen"), read as their ids.
SPELLINGS = Spellings({province: (NAMES[province],) for province in PROVINCES})
#: Each language's words for the notation's words (the German rulebook's actions), read as
#: the notation (see :meth:`engines.base.Engine.in_notation`); the notation is always read.
LANGUAGE_WORDS = {
    "nl": {
        "build": ("bouw", "bouwen"),
        "place": ("plaats", "plaatsen"),
        "move": ("verplaats", "verplaatsen"),
        "step": ("stap",),
        "end": ("einde",),
        "parliament": ("parlement",),
        "coins": ("munten",),
        "king": ("koning",),
        "queen": ("koningin",),
        "turn-order": ("spelersvolgorde", "volgorde"),
        "loan": ("lening",),
        "repay": ("aflossen", "los af"),
        "bring": ("breng", "brengen"),
        "deactivate": ("stilleggen", "leg stil"),
        "virtual": ("virtueel",),
        "position": ("positie",),
        "finish": ("afsluiten",),
        "textile": ("textiel",),
        "metal": ("metaal",),
        "supply": ("voorraad",),
        "yes": ("ja",),
        "no": ("nee",),
        "none": ("geen",),
    },
    "de": {
        "build": ("baue", "bauen"),
        "place": ("setze", "einsetzen"),
        "move": ("bewege", "bewegen"),
        "step": ("schritt",),
        "end": ("ende",),
        "parliament": ("parlament", "parlamentarier"),
        "coins": ("münzen",),
        "king": ("könig",),
        "queen": ("königin", "königinaktion"),
        "turn-order": ("spielerreihenfolge", "reihenfolge"),
        "loan": ("kredit",),
        "repay": ("zurückzahlen", "zahle zurück"),
        "bring": ("bringe", "bringen"),
        "deactivate": ("inaktiviere", "inaktivieren"),
        "virtual": ("virtuell",),
        "position": ("platz",),
        "finish": ("spielende",),
        "textile": ("textil",),
        "metal": ("metall",),
        "supply": ("vorrat",),
        "yes": ("ja",),
        "no": ("nein",),
        "none": ("keine",),
    },
    "fr": {
        "build": ("construis", "construire"),
        "place": ("placer",),
        "move": ("déplace", "déplacer"),
        "step": ("pas",),
        "end": ("fin",),
        "parliament": ("parlement",),
        "coins": ("pièces",),
        "king": ("roi",),
        "queen": ("reine",),
        "turn-order": ("ordre",),
        "loan": ("emprunt", "emprunter"),
        "repay": ("rembourse", "rembourser"),
        "bring": ("amène", "amener"),
        "deactivate": ("désactive", "désactiver"),
        "virtual": ("virtuel",),
        "position": ("rang",),
        "finish": ("terminer",),
        "metal": ("métal", "métallurgique"),
        "supply": ("réserve",),
        "yes": ("oui",),
        "no": ("non",),
        "none": ("aucune", "aucun"),
    },
}
BARE = frozenset({"take_coins", "turn_order", "loan", "repay", "finish", "end_move"})


# -- format -----------------------------------------------------------------
def _format_virtual_step(step: dict[str, Any]) -> str:
    """``place liege`` or ``move liege namur``."""
    if "place" in step:
        return f"place {step['place']}"
    return f"move {' '.join(step['move'])}"


def _format_fields(move: Move) -> str:
    """The words after the action word."""
    action = move["action"]
    if action == "build_factory":
        return f"{move['kind']} {move['province']}"
    if action == "place_citizens":
        return f"{move['province']} {move['count']}"
    if action == "move_citizens":
        return f"{move['from']}: " + " | ".join(" ".join(path) for path in move["paths"])
    if action == "step":
        return f"{move['from']} {move['to']}"
    if action == "parliament":
        return move["from"]
    if action == "king":
        return " ".join(move["path"])
    if action == "queen":
        return format_move(move["copy"])
    if action == "bring_parliament":
        return "yes" if move["accept"] else "no"
    if action == "deactivate":
        return "none" if move["factory"] is None else str(move["factory"])
    if action == "virtual":
        return ", ".join(_format_virtual_step(step) for step in move["steps"])
    return str(move["position"])


def format_move(move: Move) -> str:
    """The notation of ``move``."""
    if move["action"] == TURN:
        return f"{TURN_SEPARATOR} ".join(format_move(decision) for decision in move["moves"])
    word = WORDS[move["action"]]
    return word if move["action"] in BARE else f"{word} {_format_fields(move)}"


# -- parse --------------------------------------------------------------------
def _province(word: str) -> str:
    """A province name, or a notation error."""
    if word not in PROVINCES:
        raise NotationError(
            sentences(
                phrase("Unknown province %(word)s.", word=repr(word)), suggestion(word, PROVINCES)
            )
        )
    return word


def _place(word: str) -> str:
    """A province name or ``supply``."""
    return SUPPLY if word == SUPPLY else _province(word)


def _number(word: str) -> int:
    """A whole number written in digits."""
    if not word.isdigit():
        raise NotationError(phrase("%(word)s is not a number.", word=repr(word)))
    return int(word)


def _exactly(words: list[str], count: int, example: str) -> list[str]:
    """``words`` if there are ``count`` of them, else a notation error citing ``example``."""
    if len(words) != count:
        raise NotationError(phrase("Expected something like %(example)s.", example=repr(example)))
    return words


def _build(rest: str) -> Move:
    kind, province = _exactly(rest.split(), 2, "build textile liege")
    if kind not in KINDS:
        raise NotationError(
            phrase("Unknown factory kind %(word)s: textile or metal.", word=repr(kind))
        )
    return {"action": "build_factory", "kind": kind, "province": _province(province)}


def _place_citizens(rest: str) -> Move:
    province, count = _exactly(rest.split(), 2, "place namur 3")
    return {"action": "place_citizens", "province": _province(province), "count": _number(count)}


def _move(rest: str) -> Move:
    origin, colon, targets = rest.partition(":")
    if not colon:
        raise NotationError(
            phrase(
                "Expected something like %(example)s.",
                example="'move namur: liege | hainaut brabant'",
            )
        )
    paths = [[_place(word) for word in path.split()] for path in targets.split("|")]
    if not all(paths):
        raise NotationError(
            phrase("Every path between '|' needs at least one province or 'supply'.")
        )
    (source,) = _exactly(origin.split(), 1, "move namur: liege")
    return {"action": "move_citizens", "from": _province(source), "paths": paths}


def _parliament(rest: str) -> Move:
    (source,) = _exactly(rest.split(), 1, "parliament supply")
    return {"action": "parliament", "from": _place(source)}


def _king(rest: str) -> Move:
    path = [_province(word) for word in rest.split()]
    if not path:
        raise NotationError(
            phrase("Expected something like %(example)s.", example="'king namur liege'")
        )
    return {"action": "king", "path": path}


def _queen(rest: str) -> Move:
    copied = parse_move(rest)
    if copied["action"] not in MAIN or copied["action"] == "queen":
        raise NotationError(phrase("The Queen copies a main action, e.g. 'queen place namur 3'."))
    return {"action": "queen", "copy": copied}


def _bring(rest: str) -> Move:
    (answer,) = _exactly(rest.split(), 1, "bring yes")
    if answer not in ("yes", "no"):
        raise NotationError(phrase("Answer 'bring yes' or 'bring no'."))
    return {"action": "bring_parliament", "accept": answer == "yes"}


def _deactivate(rest: str) -> Move:
    (index,) = _exactly(rest.split(), 1, "deactivate 0")
    return {"action": "deactivate", "factory": None if index == "none" else _number(index)}


def _citizen_step(rest: str) -> Move:
    source, target = _exactly(rest.split(), 2, "step namur liege")
    return {"action": "step", "from": _province(source), "to": _place(target)}


def _virtual_step(text: str) -> dict[str, Any]:
    words = text.split()
    if words[:1] == ["place"] and len(words) == 2:
        return {"place": _province(words[1])}
    if words[:1] == ["move"] and len(words) == 3:
        return {"move": [_province(words[1]), _province(words[2])]}
    raise NotationError(
        phrase(
            "A virtual step is 'place liege' or 'move liege namur', not %(text)s.", text=repr(text)
        )
    )


def _virtual(rest: str) -> Move:
    return {"action": "virtual", "steps": [_virtual_step(part) for part in rest.split(",")]}


def _position(rest: str) -> Move:
    (position,) = _exactly(rest.split(), 1, "position 0")
    return {"action": "set_position", "position": _number(position)}


PARSERS: dict[str, Callable[[str], Move]] = {
    "build_factory": _build,
    "place_citizens": _place_citizens,
    "move_citizens": _move,
    "step": _citizen_step,
    "parliament": _parliament,
    "king": _king,
    "queen": _queen,
    "bring_parliament": _bring,
    "deactivate": _deactivate,
    "virtual": _virtual,
    "set_position": _position,
}
MAIN = frozenset(
    {"build_factory", "place_citizens", "move_citizens", "step", "parliament", "take_coins"}
    | {"king", "queen", "turn_order"}
)


def parse_move(text: str) -> Move:
    """The move written as ``text`` (case and spacing are free)."""
    if not isinstance(text, str) or not text.strip():
        raise NotationError(phrase("Empty notation."))
    text = SPELLINGS.canonical(text)
    if TURN_SEPARATOR in text:
        return {"action": TURN, "moves": [parse_move(part) for part in text.split(TURN_SEPARATOR)]}
    word, _, rest = text.strip().lower().partition(" ")
    action = ACTIONS.get(word)
    if action is None:
        unknown = phrase(
            "Unknown action word %(word)s; expected one of %(words)s.",
            word=repr(word),
            words=", ".join(ACTIONS),
        )
        raise NotationError(sentences(unknown, suggestion(word, ACTIONS)))
    if action in BARE:
        _exactly(rest.split(), 0, word)
        return {"action": action}
    return PARSERS[action](rest)
