"""Phrases read in a reader's language (:mod:`engines.phrases`): the games' words.

Every word an engine says (the log's sentences, results, prompts, the guided
form's questions and labels, refusals) is a phrase rendered here, in the
reader's language with the seats' names; a plain string is read as it is.

>>> from engines.phrases import counted, phrase, seat, verbatim
>>> resigns = phrase("%(seat)s resigns.", seat=seat(1))
>>> render(resigns, ["Ann", "Bob"], "en"), render(resigns, ["Ann", "Bob"], "nl")
('Bob resigns.', 'Bob geeft op.')
>>> render(phrase("%(seat)s plays %(notation)s.", seat=seat(0), notation="pass"), "AB", "de")
'A spielt pass.'
>>> render(verbatim("Ann passes."), ["Ann", "Bob"], "fr")
'Ann passes.'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from engines.phrases import Words, say
from engines.words import Question
from server.i18n import catalog, listing


def render(words: Words, names: Sequence[str], language: str) -> str:
    """``words`` as ``language`` says them, each seat named by ``names``."""
    translations = catalog(language)

    def lookup(key: str, plural: str | None, count: int) -> str:
        if plural is None:
            return translations.gettext(key)
        return translations.ngettext(key, plural, count)

    return say(words, names, lookup, lambda items, last: listing(items, language, last))


def read_questions(
    questions: Sequence[Question], names: Sequence[str], language: str
) -> list[Question]:
    """The engine's questions with their texts and labels rendered in ``language``."""
    return [_read_question(question, names, language) for question in questions]


def _read_question(question: Question, names: Sequence[str], language: str) -> Question:
    label = question.label

    def read_label(value: str, view: dict[str, Any]) -> str:
        return render(label(value, view), names, language)

    text = render(question.text, names, language)
    return dataclasses.replace(question, text=text, label=read_label)
