"""The guided move form: the engine's questions, one at a time, over the seat's legal moves.

Nobody needs to know the notation: the engine breaks a move into questions
(:meth:`~engines.base.Engine.questions`, e.g. "Which elephant?", "Where
to?", "Facing which way?"). The form keeps the legal moves whose answers
match the answers so far, skips every question they all answer alike, and
asks the first one on which they differ, offering each distinct answer with
the engine's words for it. The answers so far travel as query parameters
(``?m.piece=b2&m.to=b3``), so every step is a plain link: a click on the
board picture or on a button, with or without JavaScript. Once one legal
move is left, the page shows it as a preview with a confirm button.

    >>> from engines import get_engine
    >>> from server.phrases import read_questions
    >>> siam = get_engine("siam")
    >>> state = siam.setup(2, siam.options({}), 1)
    >>> legal = [{**m, "notation": siam.format(m)} for m in siam.legal_moves(state, 0)]
    >>> link = lambda picks: "?" + "&".join(f"m.{k}={v}" for k, v in picks)
    >>> asked = read_questions(siam.questions(state, 0), ["Ann", "Bob"], "en")
    >>> step = build_guide(asked, legal, [], link, siam.view(state, 0))
    >>> step.question, step.chosen, [choice.value for choice in step.choices][:3]
    ('Where to?', ['reserve'], ['a1', 'b1', 'd1'])
    >>> step = build_guide(asked, legal, [("piece", "reserve"),
    ...     ("to", "a1"), ("facing", "N")], link, siam.view(state, 0))
    >>> step.move["notation"], [pick.label for pick in step.picks]
    ('enter a1 N', ['a new elephant from the reserve', 'a1', 'north ↑'])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines.phrases import N_
from engines.words import Question
from server.i18n import catalog

#: Prefix of the query parameters carrying the guided form's answers so far.
PICK = "m."
#: The URL value of the answer "the question does not apply to this move" (``None``).
NO_ANSWER = ""
#: Words for that answer (a question that applies to some of the remaining moves only).
NO_ANSWER_LABEL = N_("none of these")
#: The last-resort question, when the engine's questions leave several moves apart.
WHICH_MOVE_TEXT = N_("Which move?")
#: The key of the last-resort question when the engine's questions leave several moves apart.
WHICH_MOVE = "move"

Picks = list[tuple[str, str]]


#: The marks around the seat's hand (cards, tiles) in a board's HTML.
HAND_START, HAND_END = "<!--hand-->", "<!--/hand-->"


@dataclass
class Choice:
    """One answer the form offers: its words, its value and the link choosing it.

    ``on_board`` is set by the page once the board picture drew it as a target,
    ``in_hand`` when it drew it in the seat's hand (between :data:`HAND_START` and
    :data:`HAND_END`), so that the question says where to look.
    """

    label: str
    value: str
    url: str
    on_board: bool = False
    in_hand: bool = False


@dataclass
class Pick:
    """An answer given so far: the question, the answer in words, the link taking it back."""

    question: str
    label: str
    value: str
    undo: str


@dataclass
class Guide:
    """Where the form stands: the answers so far and the next question, or the one move left.

    ``moved_on`` says the answers in the address matched no legal move any
    more (the game moved on, or the link was edited): they were dropped.
    """

    picks: list[Pick] = field(default_factory=list)
    key: str | None = None
    question: str | None = None
    choices: list[Choice] = field(default_factory=list)
    move: dict[str, Any] | None = None
    matching: list[dict[str, Any]] = field(default_factory=list)
    moved_on: bool = False
    #: The answers settled before the question asked, in the questions' order: those picked
    #: and those every remaining move shares (what the board marks as chosen).
    chosen: list[str] = field(default_factory=list)


def read_picks(args: Mapping[str, str]) -> Picks:
    """The form's answers so far, from the query string, in order."""
    return [(key[len(PICK) :], value) for key, value in args.items() if key.startswith(PICK)]


def pick_params(picks: Picks) -> dict[str, str]:
    """The query parameters carrying ``picks``.

    >>> pick_params([("piece", "b2"), ("to", "b3")])
    {'m.piece': 'b2', 'm.to': 'b3'}
    """
    return {PICK + key: value for key, value in picks}


def answer_value(question: Question, move: dict[str, Any]) -> str:
    """The answer of ``move`` to ``question`` as it travels in a URL (``""`` for ``None``)."""
    answer = question.answer(move)
    return NO_ANSWER if answer is None else str(answer)


def build_guide(
    questions: Sequence[Question],
    legal: list[dict[str, Any]],
    picks: Picks,
    link: Callable[[Picks], str],
    view: dict[str, Any],
    sentence: Callable[[dict[str, Any]], str] = lambda move: move["notation"],
    language: str = "en",
) -> Guide:
    """The next step of the form for the legal moves ``legal`` (each with its ``notation``).

    ``link(picks)`` is the page's URL with the answers ``picks``; ``view`` is
    the asking seat's view (the engine's labels read it). Should the
    engine's questions leave several moves apart, the last question offers
    each by its ``sentence``. The form's own words are in ``language`` (the
    questions come read already: :func:`server.phrases.read_questions`).
    """
    say = catalog(language).gettext
    by_key = {question.key: question for question in questions}
    remaining = _matching(by_key, legal, picks)
    moved_on = remaining is None
    if remaining is None:
        picks, remaining = [], list(legal)
    guide = Guide(matching=remaining, moved_on=moved_on)
    for index, (key, value) in enumerate(picks):
        question = by_key.get(key)
        if question is None:
            label = next((sentence(m) for m in legal if m["notation"] == value), value)
        else:
            label = _label(question, value, view, say)
        text = question.text if question else say(WHICH_MOVE_TEXT)
        guide.picks.append(Pick(text, label, value, link(picks[:index])))
    asked = dict(picks)
    for question in questions:
        if question.key in asked:
            guide.chosen.append(asked[question.key])
            continue
        values = list(dict.fromkeys(answer_value(question, move) for move in remaining))
        if len(values) == 1 and values[0] != NO_ANSWER:
            guide.chosen.append(values[0])
        if len(values) > 1:
            values.sort(key=lambda value: value == NO_ANSWER)
            guide.key, guide.question = question.key, question.text
            guide.choices = [
                Choice(
                    _label(question, value, view, say),
                    value,
                    link([*picks, (question.key, value)]),
                )
                for value in values
            ]
            return guide
    if len(remaining) > 1 and WHICH_MOVE not in asked:
        guide.key, guide.question = WHICH_MOVE, say(WHICH_MOVE_TEXT)
        guide.choices = [
            Choice(sentence(move), move["notation"], link([*picks, (WHICH_MOVE, move["notation"])]))
            for move in remaining
        ]
        return guide
    guide.move = remaining[0] if remaining else None
    return guide


def _matching(
    by_key: Mapping[str, Question], legal: list[dict[str, Any]], picks: Picks
) -> list[dict[str, Any]] | None:
    """The legal moves answering every pick as picked; ``None`` if the picks fit none."""
    remaining = list(legal)
    for key, value in picks:
        question = by_key.get(key)
        if question is not None:
            remaining = [move for move in remaining if answer_value(question, move) == value]
        elif key == WHICH_MOVE:
            remaining = [move for move in remaining if move["notation"] == value]
        else:
            return None
    return remaining or None


def _label(question: Question, value: str, view: dict[str, Any], say: Callable[[str], str]) -> str:
    """The engine's words for an answer (a fixed phrase for "does not apply")."""
    return say(NO_ANSWER_LABEL) if value == NO_ANSWER else str(question.label(value, view))
