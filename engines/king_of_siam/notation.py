"""The one-line notation of King of Siam moves (see the package docstring for examples)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from engines.base import Move, NotationError, State
from engines.king_of_siam.board import FACTION_NAMES, FACTIONS, MAPS, get_board
from engines.king_of_siam.cards import CARD_TITLES, CARDS, FIELD_SETS
from engines.phrases import phrase, sentences
from engines.spelling import Spellings, suggestion

NONE = "none"
PROVINCE_WORD = re.compile(r"^[a-z][a-z0-9-]*$")
HINT = phrase(
    "Write 'pass', a card with its targets and the take (e.g. 'rama korat sukhothai; take lao"
    " kedah'), the card alone ('rama korat sukhothai') or, after your card, the next step ('take"
    " lao kedah', 'swap lao kedah', 'place lao kedah')."
)
#: The answers to a pending decision, each naming one follower: ``<word> <faction> <province>``.
ANSWERS = ("take", "swap", "place")
#: How players say the cards besides their printed titles ("1 vs. 1" on the card).
SAID = {"one_vs_one": ("one vs one",), "two_vs_one": ("two vs one",)}
#: Each language's words for the notation's words: its printed names of the cards and the
#: factions (the Dutch rulebook's "Maleisiërs", "1 vs. 1"), and its verbs.
LANGUAGE_WORDS = {
    "nl": {
        "pass": ("pas", "passen"),
        "take": ("neem",),
        "swap": ("wissel", "ruil"),
        "place": ("plaats", "zet"),
        "with": ("met",),
        "none": ("geen",),
        "malay": ("maleisiërs", "maleisisch", "maleisische"),
        "one_vs_one": ("1 tegen 1",),
        "two_vs_one": ("2 tegen 1",),
    },
    "de": {
        "pass": ("passe", "passen"),
        "take": ("nimm", "nehme"),
        "swap": ("tausche",),
        "place": ("setze",),
        "with": ("mit", "gegen"),
        "none": ("keinen", "nichts"),
        "malay": ("malaien", "malaiisch", "malaiischen"),
        "one_vs_one": ("1 gegen 1",),
        "two_vs_one": ("2 gegen 1",),
    },
    "fr": {
        "pass": ("passe", "passer"),
        "take": ("prends", "prendre"),
        "swap": ("échange", "échanger"),
        "place": ("placer",),
        "with": ("avec", "contre"),
        "none": ("aucun", "rien"),
        "malay": ("malais", "malaise"),
        "one_vs_one": ("1 contre 1",),
        "two_vs_one": ("2 contre 1",),
    },
}


# -- format -------------------------------------------------------------------
def format_move(move: Move) -> str:
    """The notation of a well-formed move; NotationError for anything else."""
    try:
        if move == {"action": "pass"}:
            return "pass"
        if move["action"] in ANSWERS and set(move) == {"action", "province", "faction"}:
            return f"{move['action']} {move['faction']} {move['province']}"
        card = move["card"]
        fields = set(move) - {"action", "card", "take"}
        if move["action"] != "play" or fields not in FIELD_SETS[card]:
            raise NotationError(phrase("Not a King of Siam move: %(move)s.", move=repr(move)))
        text = f"{card} {' '.join(_FORMATTERS.get(card, _format_faction_card)(move)) or NONE}"
        return f"{text}; {_format_take(move['take'])}" if "take" in move else text
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise NotationError(
            phrase("Not a King of Siam move: %(move)s.", move=repr(move))
        ) from error


def _format_take(take: dict[str, str] | None) -> str:
    return f"take {NONE}" if take is None else f"take {take['faction']} {take['province']}"


def _format_maharacha(move: Move) -> list[str]:
    if not move["swap"]:
        return []
    first, second = move["swap"]
    return ["swap", first, second, "king", move["king"]]


def _format_khon_thai(move: Move) -> list[str]:
    place = move["place"]
    return [word for faction in FACTIONS if faction in place for word in (faction, place[faction])]


def _format_one_vs_one(move: Move) -> list[str]:
    give = move["give"]
    if give is None and move["get"] is None:
        return []
    return [give["faction"], give["province"], *_format_with(move.get("get"))]


def _format_two_vs_one(move: Move) -> list[str]:
    two = move["two"]
    if two is None and move["one"] is None:
        return []
    if not 1 <= len(two["factions"]) <= 2:
        raise ValueError("two factions, or one")
    return [*two["factions"], two["province"], *_format_with(move.get("one"))]


def _format_with(other: dict[str, str] | None) -> list[str]:
    """``with <faction> <province>``, or nothing for a first step."""
    return [] if other is None else ["with", other["faction"], other["province"]]


def _format_faction_card(move: Move) -> list[str]:
    return list(move["place"])


_FORMATTERS = {
    "maharacha": _format_maharacha,
    "khon_thai": _format_khon_thai,
    "one_vs_one": _format_one_vs_one,
    "two_vs_one": _format_two_vs_one,
}


# -- parse --------------------------------------------------------------------
def parse_move(text: str, state: State | None = None) -> Move:
    """The move written as ``text`` (case-insensitive); NotationError if it is not notation."""
    if not isinstance(text, str) or not text.strip():
        raise NotationError(HINT)
    provinces = get_board(state["map"]).provinces if state else None
    text = spellings(state["map"] if state else None).canonical(text)
    parts = [part.split() for part in text.split(";")]
    if parts == [["pass"]]:
        return {"action": "pass"}
    if len(parts) > 2 or not parts[0]:
        raise NotationError(
            sentences(phrase("A card and its take are separated by one ';'."), HINT)
        )
    if parts[0][0] in ANSWERS and len(parts) == 1:
        return _read_answer(parts[0], provinces)
    card, *words = parts[0]
    if card not in CARDS:
        raise NotationError(
            sentences(
                phrase(
                    "Unknown card %(card)r: use pass, take, %(cards)s.",
                    card=card,
                    cards=", ".join(CARDS),
                ),
                suggestion(card, (*CARDS, "pass", *ANSWERS)),
            )
        )
    reader = _READERS.get(card, _read_faction_card)
    fields = _empty_fields(card) if words == [NONE] else reader(words, _Words(provinces))
    move = {"action": "play", "card": card, **fields}
    if len(parts) == 2:
        move["take"] = _read_take(parts[1], provinces)
    return move


@cache
def spellings(map_name: str | None) -> Spellings:
    """The printed names of the cards, the factions and the provinces of ``map_name`` (of
    every map when it is not known), read as their ids: "Khon Thai", "1 vs 1", "Chiang Mai"."""
    boards = [get_board(map_name)] if map_name else [get_board(name) for name in MAPS]
    names: dict[str, tuple[str, ...]] = {
        card: (CARD_TITLES[card], *SAID.get(card, ())) for card in CARDS
    }
    names |= {faction: (FACTION_NAMES[faction],) for faction in FACTIONS}
    for board in boards:
        names |= {province: (board.names[province],) for province in board.provinces}
    return Spellings(names)


class _Words:
    """Checks single words: factions always, provinces against the map when it is known."""

    def __init__(self, provinces: tuple[str, ...] | None) -> None:
        self.provinces = provinces

    def province(self, word: str) -> str:
        if not PROVINCE_WORD.match(word) or (self.provinces and word not in self.provinces):
            said = (
                phrase(
                    "%(word)r is not a province (%(provinces)s).",
                    word=word,
                    provinces=", ".join(self.provinces),
                )
                if self.provinces
                else phrase("%(word)r is not a province.", word=word)
            )
            raise NotationError(sentences(said, suggestion(word, self.provinces or ())))
        return word

    @staticmethod
    def faction(word: str) -> str:
        if word not in FACTIONS:
            raise NotationError(
                sentences(
                    phrase("%(word)r is not a faction: use rama, lao or malay.", word=word),
                    suggestion(word, FACTIONS),
                )
            )
        return word


def _empty_fields(card: str) -> dict[str, Any]:
    return {
        "maharacha": {"swap": [], "king": None},
        "khon_thai": {"place": {}},
        "one_vs_one": {"give": None, "get": None},
        "two_vs_one": {"two": None, "one": None},
    }.get(card, {"place": []})


def _read_answer(words: list[str], provinces: tuple[str, ...] | None) -> dict[str, str]:
    action = words[0]
    if len(words) != 3:
        raise NotationError(phrase("Write '%(action)s <faction> <province>'.", action=action))
    check = _Words(provinces)
    return {
        "action": action,
        "province": check.province(words[2]),
        "faction": check.faction(words[1]),
    }


def _read_take(words: list[str], provinces: tuple[str, ...] | None) -> dict[str, str] | None:
    if words == ["take", NONE]:
        return None
    if len(words) != 3 or words[0] != "take":
        raise NotationError(
            phrase("After ';' write the take: 'take <faction> <province>' or 'take none'.")
        )
    check = _Words(provinces)
    return {"province": check.province(words[2]), "faction": check.faction(words[1])}


def _read_maharacha(words: list[str], check: _Words) -> dict[str, Any]:
    if len(words) != 5 or words[0] != "swap" or words[3] != "king":
        raise NotationError(
            phrase(
                "Write 'maharacha swap <province> <province> king <province>' or 'maharacha none'."
            )
        )
    return {
        "swap": [check.province(words[1]), check.province(words[2])],
        "king": check.province(words[4]),
    }


def _read_khon_thai(words: list[str], check: _Words) -> dict[str, Any]:
    pairs = list(zip(words[::2], words[1::2], strict=False))
    factions = [faction for faction, _ in pairs]
    if len(words) % 2 or len(set(factions)) != len(factions):
        raise NotationError(
            phrase(
                "Write 'khon_thai <faction> <province> ...' with each faction at most once, or"
                " 'khon_thai none'."
            )
        )
    return {"place": {check.faction(f): check.province(p) for f, p in pairs}}


def _read_one_vs_one(words: list[str], check: _Words) -> dict[str, Any]:
    if len(words) not in (2, 5) or words[2:3] not in ([], ["with"]):
        raise NotationError(
            phrase(
                "Write 'one_vs_one <faction> <province> with <faction> <province>', its first "
                "step 'one_vs_one <faction> <province>' or 'one_vs_one none'."
            )
        )
    move = {"give": {"province": check.province(words[1]), "faction": check.faction(words[0])}}
    if len(words) == 5:
        move["get"] = {"province": check.province(words[4]), "faction": check.faction(words[3])}
    return move


def _read_two_vs_one(words: list[str], check: _Words) -> dict[str, Any]:
    two, one = (words[:-3], words[-2:]) if "with" in words else (words, None)
    if len(two) not in (2, 3) or (one is not None and words[-3] != "with"):
        raise NotationError(
            phrase(
                "Write 'two_vs_one <faction> <faction> <province> with <faction> <province>', "
                "'two_vs_one <faction> <province> with <faction> <province>' (1 for 1), the "
                "first step alone ('two_vs_one <faction> <faction> <province>') or "
                "'two_vs_one none'."
            )
        )
    move = {
        "two": {
            "province": check.province(two[-1]),
            "factions": [check.faction(word) for word in two[:-1]],
        }
    }
    if one is not None:
        move["one"] = {"province": check.province(one[1]), "faction": check.faction(one[0])}
    return move


def _read_faction_card(words: list[str], check: _Words) -> dict[str, Any]:
    if not 1 <= len(words) <= 2:
        raise NotationError(
            phrase("Write '<faction card> <province> [<province>]' or '<faction card> none'.")
        )
    return {"place": [check.province(word) for word in words]}


_READERS = {
    "maharacha": _read_maharacha,
    "khon_thai": _read_khon_thai,
    "one_vs_one": _read_one_vs_one,
    "two_vs_one": _read_two_vs_one,
}
