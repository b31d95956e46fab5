"""Phrases read in a reader's language (:mod:`engines.phrases`): the log's sentences.

>>> from engines.phrases import phrase, seat, verbatim
>>> resigns = phrase("%(seat)s resigns.", seat=seat(1))
>>> render(resigns, ["Ann", "Bob"], "en"), render(resigns, ["Ann", "Bob"], "nl")
('Bob resigns.', 'Bob geeft op.')
>>> render(phrase("%(seat)s plays %(notation)s.", seat=seat(0), notation="pass"), "AB", "de")
'A spielt pass.'
>>> render(verbatim("Ann passes."), ["Ann", "Bob"], "fr")
'Ann passes.'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.phrases import Phrase
from server.i18n import catalog, listing


def render(words: Phrase, names: Sequence[str], language: str) -> str:
    """``words`` as ``language`` says them, each seat named by ``names``."""
    if "text" in words:
        return str(words["text"])
    message = catalog(language).gettext(words["key"])
    args = {
        name: _argument(value, names, language) for name, value in words.get("args", {}).items()
    }
    return message % args if args else message


def _argument(value: Any, names: Sequence[str], language: str) -> str:
    """One parameter of a phrase in ``language``: a seat's name, a phrase, a list, or a word."""
    if isinstance(value, list):
        return listing([_argument(item, names, language) for item in value], language)
    if isinstance(value, dict) and "seat" in value:
        return names[value["seat"]]
    if isinstance(value, dict):
        return render(value, names, language)
    return str(value)
