"""Words made when read: a sentence kept as a phrase key and its parameters.

The log keeps what happened, never an English sentence: an engine says
what a move did, why a game ended, what a seat must decide and why a move
is refused as a :data:`Phrase`, a JSON object ``{"key": message id,
"args": {name: value}}`` whose key is the English message (a gettext id
with ``%(name)s`` placeholders) and whose values are plain words or numbers
(squares, notation), a seat (``{"seat": 1}``: the reader sees that seat's
player's name), another phrase, or a list of these (read as "A, B and C").
A phrase whose words depend on a number is :func:`counted` (gettext's
plural forms, the number in ``%(count)s``). The server renders a phrase in
each reader's language when a page, mail, event or answer is made
(:func:`server.phrases.render`); :func:`english` says it in English
without a catalog (the engines' own messages, doctests). A sentence logged
before phrases were kept is ``{"text": sentence}``, read as it was written.

>>> phrase("%(seat)s resigns.", seat=seat(1))
{'key': '%(seat)s resigns.', 'args': {'seat': {'seat': 1}}}
>>> english(counted("%(count)s rock", "%(count)s rocks", 2))
'2 rocks'
>>> english(phrase("%(seat)s or %(who)s", seat=seat(0), who=either(seat(1), "Cy")), "AB")
'A or B or Cy'
>>> verbatim("Ann passes.")
{'text': 'Ann passes.'}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: A phrase: ``{"key": message id, "args": {...}}`` (with ``"plural"`` when counted),
#: ``{"sentences": [phrase, ...]}`` read one after the other, or ``{"text": sentence}``.
Phrase = dict[str, Any]
#: Words an engine says: a phrase, or a plain string (a name, a square) read as it is.
Words = str | Phrase
#: How a renderer looks a message up: ``(message id, plural id or None, count)`` -> message.
Lookup = Callable[[str, str | None, int], str]
#: How a renderer joins a list of words: ``(words, "and" or "or")`` -> "A, B and C".
Joiner = Callable[[list[str], str], str]


def N_(message: str) -> str:  # noqa: N802 (gettext's name for a message marked, not translated)
    """``message`` as it is: marks a message id kept in a constant, translated where used."""
    return message


def phrase(key: str, **args: Any) -> Phrase:
    """The phrase of message ``key`` with its parameters (marked for the catalogs by name)."""
    return {"key": key, "args": args} if args else {"key": key}


def counted(singular: str, plural: str, count: int, **args: Any) -> Phrase:
    """The phrase of a message with plural forms, chosen by ``count`` (its ``%(count)s``)."""
    return {"key": singular, "plural": plural, "args": {"count": count, **args}}


def recount(words: Phrase, count: int) -> Phrase:
    """The :func:`counted` phrase ``words`` with another ``count``."""
    return {**words, "args": {**words.get("args", {}), "count": count}}


def seat(number: int) -> dict[str, int]:
    """A parameter naming seat ``number``: read as its player's name."""
    return {"seat": number}


def verbatim(text: str) -> Phrase:
    """A sentence kept as it was written (an engine's that has no phrases yet, or an old log's)."""
    return {"text": text}


def as_phrase(words: Words) -> Phrase:
    """``words`` as a phrase: a sentence is kept :func:`verbatim`."""
    return verbatim(words) if isinstance(words, str) else words


def either(*items: Any) -> dict[str, list[Any]]:
    """A parameter listing ``items`` as alternatives: "A, B or C"."""
    return {"or": list(items)}


def sentences(*parts: Words) -> Phrase:
    """Several sentences read one after the other (empty parts left out)."""
    kept = [as_phrase(part) for part in parts if part]
    return kept[0] if len(kept) == 1 else {"sentences": kept}


def say(words: Words, names: Sequence[str], lookup: Lookup, joiner: Joiner) -> str:
    """``words`` with each message looked up by ``lookup``, lists joined by ``joiner`` and each
    seat named by ``names`` (``"seat N"`` beyond them): the one way every language is said."""
    if isinstance(words, str):
        return words
    if "text" in words:
        return str(words["text"])
    if "sentences" in words:
        return " ".join(say(part, names, lookup, joiner) for part in words["sentences"])
    args = words.get("args", {})
    message = lookup(words["key"], words.get("plural"), int(args.get("count", 1) or 0))
    said = {name: _argument(value, names, lookup, joiner) for name, value in args.items()}
    return message % said if said else message


def _argument(value: Any, names: Sequence[str], lookup: Lookup, joiner: Joiner) -> Any:
    """One parameter of a phrase: a seat's name, a phrase, a list, or the value itself."""
    if isinstance(value, list):
        return joiner([str(_argument(item, names, lookup, joiner)) for item in value], "and")
    if isinstance(value, dict) and set(value) == {"or"}:
        return joiner([str(_argument(item, names, lookup, joiner)) for item in value["or"]], "or")
    if isinstance(value, dict) and set(value) == {"seat"}:
        number = value["seat"]
        return names[number] if number < len(names) else f"seat {number}"
    if isinstance(value, dict):
        return say(value, names, lookup, joiner)
    return value


def english(words: Words, names: Sequence[str] = ()) -> str:
    """``words`` in English, straight from the message ids (no catalog needed)."""
    return say(words, names, _english_lookup, _english_join)


def _english_lookup(key: str, plural: str | None, count: int) -> str:
    return plural if plural is not None and count != 1 else key


def _english_join(items: list[str], last: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"
