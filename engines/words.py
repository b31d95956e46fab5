"""What every game's words share: the guided form's questions and small sentence helpers.

Pages and mails speak each game's language through the engine's
:meth:`~engines.base.Engine.describe`, :meth:`~engines.base.Engine.describe_result`,
:meth:`~engines.base.Engine.prompt` and :meth:`~engines.base.Engine.questions`;
a game writes its own in ``engines/<game>/words.py``. This module holds the
pieces they share, and the defaults an engine without words of its own gets.

A :class:`Question` is one thing the guided form (and a click on the board)
asks about a move. The form keeps the seat's legal moves whose answers
match the answers so far, asks the first question on which they differ, and
offers each distinct answer:

    >>> moves = [{"action": "exit", "from": "a1"}, {"action": "exit", "from": "b1"}]
    >>> [question.key for question in field_questions(moves)]
    ['action', 'from']
    >>> [field_questions(moves)[1].answer(move) for move in moves]
    ['a1', 'b1']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.phrases import Phrase, Words, counted, phrase, seat, verbatim

Move = dict[str, Any]
#: The answer of a move to a question: a string, or ``None`` when the question does not apply.
Answer = Callable[[Move], "str | None"]
#: Words for an answer value, given the asking seat's view of the game.
Label = Callable[[str, dict[str, Any]], Words]


def _as_is(value: str, view: dict[str, Any]) -> Words:
    """The answer value itself (the default label)."""
    return value


@dataclass(frozen=True)
class Question:
    """One question about a move: its ``key`` (stable, used in URLs), its ``text``, how a
    move answers it and how an answer is put into words.

    An answer that is the key of an element of the board picture (a square,
    a province, a field, a card in the hand...) is picked on the board; any
    other answer is a button with its ``label``.
    """

    key: str
    text: Words
    answer: Answer
    label: Label = field(default=_as_is)


def flatten(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """The fields of a move as ``(dotted key, text)`` pairs, in the move's own order.

    >>> list(flatten({"action": "king", "path": ["namur", "liege"]}))
    [('action', 'king'), ('path.0', 'namur'), ('path.1', 'liege')]
    >>> list(flatten({"action": "deactivate", "factory": None, "swap": []}))
    [('action', 'deactivate'), ('factory', 'none'), ('swap', 'none')]
    """
    if isinstance(value, dict) and value:
        for name, inner in value.items():
            yield from flatten(inner, f"{key}.{name}" if key else name)
    elif isinstance(value, list) and value:
        for index, inner in enumerate(value):
            yield from flatten(inner, f"{key}.{index}")
    elif value is None or value in ([], {}):
        yield key, "none"
    elif isinstance(value, bool):
        yield key, "yes" if value else "no"
    else:
        yield key, str(value)


def field_questions(moves: Iterable[Move]) -> list[Question]:
    """One question per field of ``moves`` (dotted keys, in order of first appearance).

    The default of :meth:`~engines.base.Engine.questions`: it reaches every
    move, but asks in identifiers; games give their own.
    """
    keys: dict[str, None] = {}
    for move in moves:
        keys.update(dict.fromkeys(key for key, _ in flatten(move)))
    return [Question(key, key.replace("_", " "), _field_answer(key)) for key in keys]


def _field_answer(key: str) -> Answer:
    """How a move answers the field question ``key`` (``None``: the move has no such field)."""
    return lambda move: dict(flatten(move)).get(key)


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``count`` with the noun in the right number.

    >>> plural(1, "basket"), plural(2, "basket"), plural(0, "follower"), plural(3, "city", "cities")
    ('1 basket', '2 baskets', '0 followers', '3 cities')
    """
    noun = singular if count == 1 else (plural_form or f"{singular}s")
    return f"{count} {noun}"


def join(words: Iterable[str], last: str = "and") -> str:
    """Words joined as in a sentence.

    >>> join(["Ann"]), join(["Ann", "Bob"]), join(["Ann", "Bob", "Cleo"], "or")
    ('Ann', 'Ann and Bob', 'Ann, Bob or Cleo')
    """
    items = list(words)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def result_sentence(result: dict[str, Any], names: Sequence[str] = ()) -> Phrase:
    """The default words for a result: who won, and why (a resignation, a forfeit, else the
    engine's reason, kept as written).

    >>> from engines.phrases import english
    >>> english(result_sentence({"winners": [1], "resigned": [0]}), ["Ann", "Bob"])
    'Bob wins: Ann resigned.'
    >>> english(result_sentence({"winners": [0, 1], "reason": ""}), ["Ann", "Bob"])
    'Ann and Bob share the win.'
    >>> english(result_sentence({"winners": [], "reason": "the game was stalled."}), "AB")
    'Nobody wins: the game was stalled.'
    """
    winners = [seat(number) for number in result.get("winners", [])]
    if not winners:
        head = phrase("Nobody wins")
    elif len(winners) == 1:
        head = phrase("%(seat)s wins", seat=winners[0])
    else:
        head = phrase("%(seats)s share the win", seats=winners)
    why = _why(result)
    return (
        phrase("%(head)s: %(why)s.", head=head, why=why) if why else phrase("%(head)s.", head=head)
    )


def _why(result: dict[str, Any]) -> Phrase | None:
    """Why the game ended, when the result says: who resigned or forfeited, or the reason."""
    resigned, forfeit = result.get("resigned"), result.get("forfeit")
    if resigned:
        losers = [seat(number) for number in resigned]
        return counted("%(seats)s resigned", "%(seats)s resigned", len(losers), seats=losers)
    if forfeit:
        losers = [seat(number) for number in forfeit]
        return counted(
            "%(seats)s ran out of time and forfeits",
            "%(seats)s ran out of time and forfeit",
            len(losers),
            seats=losers,
        )
    reason = str(result.get("reason") or "").strip().rstrip(".")
    return verbatim(reason) if reason else None
