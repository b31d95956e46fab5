"""Names as the cards and boards print them, read in notation; the closest spelling in refusals.

Notation writes wire ids (``khon_thai``, ``chiang-mai``, ``liege``) and reads
them back; it also reads the names a player copies from the board or a card,
in any case, with spaces, hyphens, underscores or dots between their words,
with or without accents. :class:`Spellings` turns every such name in a line
into its id before the notation is parsed:

    >>> spellings = Spellings({"khon_thai": ["Khon Thai"], "one_vs_one": ["1 vs. 1", "one vs one"],
    ...                        "chiang-mai": ["Chiang Mai"], "liege": ["Liège"]})
    >>> spellings.canonical("Khon Thai rama Chiang Mai; take lao LIÈGE")
    'khon_thai rama chiang-mai; take lao liege'
    >>> spellings.canonical("1 vs 1 rama korat with lao kedah")
    'one_vs_one rama korat with lao kedah'
    >>> spellings.canonical("khon-thai one vs one onevsone")
    'khon_thai one_vs_one one_vs_one'
    >>> closest("sukotai", ["sukhothai", "korat"])
    'sukhothai'
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Mapping

from engines.phrases import Phrase, english, phrase

#: What may stand between the words of a printed name (or nothing at all).
BETWEEN = r"[\s_.\-]*"
#: How alike a word must be to a valid one to be offered as its closest spelling.
CLOSE = 0.6


def fold(text: str) -> str:
    """``text`` in lower case without accents: ``"Liège"`` -> ``"liege"``."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


class Spellings:
    """The printed names of a game's ids, each id with the names it is printed as."""

    def __init__(self, names: Mapping[str, Iterable[str]]) -> None:
        phrases: dict[str, str] = {}
        for ident, printed in names.items():
            for spelling in (ident, *printed):
                words = [word for word in re.split(r"[\s_.\-]+", fold(spelling)) if word]
                phrases[BETWEEN.join(map(re.escape, words))] = ident
        ordered = sorted(phrases, key=len, reverse=True)  # "nakhon si thammarat" before "si"
        self._ids = [phrases[phrase] for phrase in ordered]
        self._pattern = re.compile(
            r"(?<![\w-])(?:" + "|".join(f"({phrase})" for phrase in ordered) + r")(?![\w-])"
        )

    def canonical(self, text: str) -> str:
        """``text`` folded (:func:`fold`), each printed name in it replaced by its id."""
        return self._pattern.sub(lambda match: self._ids[match.lastindex - 1], fold(text))


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The valid spelling most like ``word``, if one is close enough."""
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=CLOSE)
    return found[0] if found else None


def suggestion(word: str, choices: Iterable[str]) -> Phrase | None:
    """ "Did you mean 'x'?" for the closest valid spelling (a phrase), or ``None``."""
    found = closest(word, choices)
    return phrase("Did you mean %(word)r?", word=found) if found else None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` Did you mean 'x'?`` for the closest valid spelling (in English), or ``""``.

    >>> did_you_mean("khon", ["khon_thai", "rama"])
    " Did you mean 'khon_thai'?"
    """
    found = suggestion(word, choices)
    return f" {english(found)}" if found else ""
