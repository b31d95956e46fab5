"""The catalog's English, cut into pieces a text in another language must not hold (issue 24).

Every message a language translates differently, cut at its placeholders and markup into
pieces long enough to be English for sure: two words and ten letters, or one word of seven
("Keys for programs", "Stock", no; "merchant" yes). A page or a mail in that language showing
such a piece shows English left untranslated.
"""

from __future__ import annotations

import re
from functools import cache

from tests.server.test_i18n import po, strings, texts

#: Where a message is cut: placeholders (ours and click's) and markup.
CUTS = re.compile(r"%\(\w+\)[sd]|\{\w+(?:![rsa])?\}|<[^>]+>")
#: What a cut piece loses at its ends.
TRIM = " .,:;()!?\u2019'\"\u201c\u201d-\u2013\u00b7"


@cache
def english_pieces(language: str) -> frozenset[str]:
    """The English pieces of every message ``language`` translates differently, but for a
    piece its translation says too, whatever its case (a word of both languages: "Argument")."""
    pieces = set()
    for message in po(language):
        if not message.id or set(strings(message)) <= set(texts(message)):
            continue
        for text in texts(message):
            for piece in CUTS.split(text):
                piece = piece.strip(TRIM)
                words = re.findall(r"[A-Za-z]{2,}", piece)
                long = (len(words) >= 2 and len(piece) >= 10) or (
                    len(words) == 1 and len(piece) >= 7
                )
                if long and not any(piece.lower() in said.lower() for said in strings(message)):
                    pieces.add(piece)
    return frozenset(pieces)


def english_left(text: str, language: str) -> set[str]:
    """The English pieces (of :func:`english_pieces`) in ``text``, each a whole word or words."""
    return {
        piece
        for piece in english_pieces(language)
        if piece in text and re.search(rf"(?<!\w){re.escape(piece)}(?!\w)", text)
    }
