"""The engine interface every game implements.

An engine is pure game rules: no Flask, no database, no I/O. The server
talks to every game through the :class:`Engine` methods below and nothing
else, and finds every game in :data:`engines.ENGINES`.

State
    A game state is a plain JSON-serialisable ``dict`` owned by the engine.
    It holds everything needed to continue the game, including private parts
    (hands, the draw order) and the PRNG (:class:`engines.rng.Rng` state kept
    under the key ``"rng"``). The server stores it as the snapshot, so two
    states are equal exactly when their canonical JSON is equal. Engines never
    mutate a state they are given: :meth:`Engine.apply` returns a new one.

Moves
    A move is a JSON object with an ``"action"`` key, exactly as documented
    for the engine in ``CONTRACT.md``. Its one-line text notation is produced
    by :meth:`Engine.format` and read back by :meth:`Engine.parse`, with
    ``parse(format(m)) == m`` for every legal move.

Errors
    :class:`IllegalMove` names the broken rule (``rule``) and explains it in a
    human sentence (``message``); :class:`NotationError` is raised for text
    that is not notation; :class:`InvalidPosition` for an inconsistent
    starting position. The state is never changed by a refused move.

Search
    What a bot needs (after OpenSpiel's ``pyspiel`` game type and
    ``resample_from_infostate``), with defaults that fit a game of perfect
    information:

    - :attr:`Engine.kind` (a :class:`GameKind`): perfect or imperfect
      information, how chance enters, the number of seats; declared by the
      class attributes ``information`` (:data:`PERFECT` or :data:`IMPERFECT`)
      and ``chance`` (:data:`DETERMINISTIC`, or :data:`SAMPLED`: chance is
      drawn from the seed or the PRNG kept in the state, so ``apply`` is a
      function of the state, the seat and the move, and there are no chance
      nodes); :meth:`Engine.seats` counts a state's seats.
    - :meth:`Engine.returns` (one number per seat once the game is over, None
      before: the winners share +1 and the losers -1, all 0 for a draw, so
      they always add up to 0) and :meth:`Engine.margins` (each seat's score
      minus the best score of the seats not on its side, in the game's
      points; 0 for games without scores).
    - :meth:`Engine.information_key`: equal for two states ``seat`` cannot
      tell apart, remembering every public move since the start (perfect
      recall); :meth:`Engine.determinize`: a state of the same information
      set, whose hidden parts (other hands, the draw order, the PRNG) are
      redrawn from ``rng`` alone, so that it depends only on the key and
      ``rng``. A bot that looks at the game only through ``determinize``
      cannot read what its seat may not know.
    - :meth:`Engine.clone` and :meth:`Engine.apply_fast`: the playout path. A
      clone (or a determinized state) belongs to the caller, who may hand it
      to ``apply_fast``, which changes it in place and returns it (or a new
      state); a listed move then gives exactly the state ``apply`` gives.
      ``apply_fast`` skips the checks and the copy: a move that is not listed
      may leave anything behind.

Adding a game
    A game is a package ``engines/<game>/`` with one module per role, each
    role named the same in every game:

    ================  ========================================================
    ``__init__.py``   the rulebook: the game, its ``State``, its ``Notation``
                      examples and its ``Decisions``; exports the engine class
    ``engine.py``     the :class:`Engine` subclass, delegating to the modules
                      below
    ``board.py``      the board and the fixed quantities: plain data, and
                      queries on it that change nothing
    ``position.py``   building states: ``from_position``, and a new game's
                      start where it takes more than a few lines
    ``rules.py``      playing: checking and carrying out moves, listing the
                      legal ones, the turn flow and the end of the game
    ``notation.py``   ``format_move(move)`` and ``parse_move(text[, state])``
    ================  ========================================================

    plus a module for each of the game's own parts, named after it (King of
    Siam's ``cards.py``, Bangkok Klongs' ``market.py``, the Foreign King's
    ``scoring.py``). A game small enough for one module keeps these roles in
    it, as the test suite's Nim does (``tests/engines/tiny_game.py``). Then:

    1. its move schemas, one marshmallow schema per action, as
       ``MOVE_SCHEMAS = {action: schema class}`` in ``schemas/<game>.py``,
       named by the engine class: ``move_schemas = "schemas.<game>:MOVE_SCHEMAS"``;
    2. one line in ``engines/__init__.py``: ``register(<Game>Engine())``
       (:func:`engines.register`; :func:`engines.unregister` takes it out);
    3. if wanted, its words: ``words.py`` behind :meth:`Engine.describe`,
       :meth:`Engine.describe_result`, :meth:`Engine.prompt` and
       :meth:`Engine.questions` (see :mod:`engines.words`), and board
       templates ``templates/boards/<id>.svg`` (the picture, standalone),
       ``<id>.html`` (the page) and ``<id>.txt`` (plain-text mail); without
       them the pages speak in notation and show the state as JSON;
    4. for the bots, ``information`` and ``chance`` (see "Search"); a game
       with hidden parts implements :meth:`Engine.information_key` and
       :meth:`Engine.determinize`; :meth:`Engine.apply_fast` makes its
       bots faster;
    5. its move-count oracles in ``tests/engines/perft.json``
       (``python -m tests.engines.perft`` regenerates them).

    Nothing else changes: the API, the pages and mail find the game in
    :data:`engines.ENGINES`. An engine whose attributes or move schemas are
    missing or malformed is refused when it is registered (or, if it was
    registered first, when :mod:`schemas.moves` is imported): the server does
    not start. ``tests/engines/test_conformance.py`` plays random games of
    every registered engine against the promises of this interface, and
    ``tests/engines/test_notation_docs.py`` reads the rulebook's notation
    examples with the engine's parser: the literal block after the paragraph
    starting with ``Notation`` (ending in ``::``) lists one move per line,
    written as ``format`` writes it, then after two or more spaces what it
    means (if that is the move's JSON object, parsing must give exactly it).

Example (Siam)::

    >>> from engines import get_engine
    >>> siam = get_engine("siam")
    >>> state = siam.setup(players=2, options={}, seed=1)
    >>> siam.to_move(state)
    [0]
    >>> move = siam.parse("enter a1 N", state)
    >>> state = siam.apply(state, 0, move)
    >>> siam.format(move)
    'enter a1 N'
"""

from __future__ import annotations

import json
import marshal
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from engines.phrases import N_, Words, counted, either, english, phrase
from engines.phrases import seat as seat_ref
from engines.spelling import Spellings
from engines.words import Question, field_questions, result_sentence

State = dict[str, Any]
Move = dict[str, Any]


#: :attr:`GameKind.information`: a seat that remembers every public move knows the whole
#: state but the PRNG (:data:`PERFECT`), or some parts stay hidden from it (:data:`IMPERFECT`).
PERFECT, IMPERFECT = "perfect", "imperfect"
#: :attr:`GameKind.chance`: nothing is left to chance (:data:`DETERMINISTIC`), or chance is
#: drawn from the seed and the state's PRNG, never in chance nodes (:data:`SAMPLED`).
DETERMINISTIC, SAMPLED = "deterministic", "sampled"


@dataclass(frozen=True)
class GameKind:
    """What kind of game an engine plays, for search (OpenSpiel's ``GameType``)."""

    information: str
    chance: str
    min_seats: int
    max_seats: int


class EngineError(Exception):
    """Base class of the errors an engine raises about its input.

    ``words`` says why, as a phrase read in the reader's language (or an
    English sentence, read as it is); ``message`` is the same in English.
    """

    def __init__(self, message: Words, rule: str = "") -> None:
        self.words: Words = message
        self.message = english(message)
        self.rule = rule
        super().__init__(self.message)


class IllegalMove(EngineError):
    """A well-formed move that breaks a rule; ``rule`` is the rule's short name."""


class NotationError(EngineError):
    """Text that is not valid notation for the engine."""


class InvalidPosition(EngineError):
    """A starting position that is malformed or inconsistent."""


class OptionError(EngineError, ValueError):
    """Options a game does not take: an unknown name, a value of the wrong kind or choice."""


#: How an option's kind of value is named in its refusal.
OPTION_KINDS = {
    bool: N_("true or false"),
    int: N_("a whole number"),
    float: N_("a number"),
    str: N_("text"),
}


class Engine(ABC):
    """One game's rules behind the interface the server uses.

    Subclasses set the class attributes and implement the abstract methods.
    """

    id: str
    name: str
    min_players: int
    max_players: int
    #: Option names and their defaults; unknown options are refused.
    default_options: dict[str, Any] = {}
    #: Each option as the rules page names it and its one line of explanation, in the same
    #: words (the new-game form shows both).
    option_words: dict[str, tuple[str, str]] = {}
    #: For options that name one of a few things (a map, a board): the allowed names.
    option_choices: dict[str, Collection[str]] = {}
    #: Where the game's move schemas are, as ``"package.module:NAME"``: a dict from each
    #: action to its marshmallow schema class, loaded by :mod:`schemas.moves` (an engine
    #: never imports marshmallow itself).
    move_schemas: str
    #: What the game hides from a seat, in words for players ("" when nothing is hidden).
    #: Whoever chose a game's seed or starting position can know it: players are warned.
    hidden_information: str = ""
    #: The words a move's notation may start with, in lower case. A mail reply that is no
    #: move and starts with none of them (nor a near miss) is table talk, not a mistyped
    #: move (:mod:`server.mail.talk`); without them, every reply is read as a move.
    move_words: frozenset[str] = frozenset()
    #: Each language's words for the notation's words, as its rulebook prints them or a player
    #: says them: ``{language: {notation word: (words, ...)}}`` (see :meth:`in_notation`).
    notation_words: Mapping[str, Mapping[str, Sequence[str]]] = {}
    #: :data:`PERFECT` or :data:`IMPERFECT` (see :attr:`kind`).
    information: str = PERFECT
    #: :data:`DETERMINISTIC` or :data:`SAMPLED` (see :attr:`kind`).
    chance: str = DETERMINISTIC

    # -- creation -------------------------------------------------------
    def options(self, given: dict[str, Any] | None) -> dict[str, Any]:
        """Merge ``given`` over the defaults; :class:`OptionError` on unknown names or values.

        >>> from engines import get_engine
        >>> get_engine("siam").options({"speed": 1, "cross_rule": 2})
        Traceback (most recent call last):
        engines.base.OptionError: This game has no option speed.
        """
        given = given or {}
        unknown = sorted(set(given) - set(self.default_options))
        if unknown:
            raise OptionError(
                counted(
                    "This game has no option %(names)s.",
                    "This game has no options %(names)s.",
                    len(unknown),
                    names=unknown,
                )
            )
        merged = dict(self.default_options)
        for key, value in given.items():
            default = self.default_options[key]
            if default is not None and type(value) is not type(default):
                kind = OPTION_KINDS[type(default)]
                raise OptionError(
                    phrase("The option %(option)s takes %(kind)s.", option=key, kind=phrase(kind))
                )
            choices = self.option_choices.get(key)
            if choices is not None and value not in choices:
                raise OptionError(
                    phrase(
                        "The option %(option)s takes %(choices)s.",
                        option=key,
                        choices=either(*sorted(choices)),
                    )
                )
            merged[key] = value
        return merged

    @abstractmethod
    def setup(self, players: int, options: dict[str, Any], seed: int) -> State:
        """The initial state for ``players`` seats, merged ``options`` and ``seed``."""

    @abstractmethod
    def from_position(
        self, players: int, options: dict[str, Any], seed: int, position: dict[str, Any]
    ) -> State:
        """A state built from a ``position`` in the engine's public state shape.

        ``position`` carries ``"to_move"`` and the private parts described in
        the contract. Raises :class:`InvalidPosition` naming the inconsistency.
        """

    # -- play -----------------------------------------------------------
    @abstractmethod
    def to_move(self, state: State) -> list[int]:
        """Seats whose decision the game waits for (empty when finished)."""

    @abstractmethod
    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """The legal moves of ``seat`` now, one per outcome (empty when it is not their turn).

        Moves that differ only in form (the same parts in another order) are
        listed once, in one canonical form; ``apply`` accepts the other forms
        too. Where combining the parts of a turn would multiply the list, the
        engine may split the turn into decisions by the same seat: a listed
        move plays a part and leaves a ``pending`` decision (``to_move`` is
        still that seat) whose answers are listed next. Every outcome of a turn
        is reachable from listed moves, and the whole-turn move stays accepted.
        """

    @abstractmethod
    def apply(self, state: State, seat: int, move: Move) -> State:
        """The state after ``seat`` plays ``move``; :class:`IllegalMove` if it breaks a rule."""

    @abstractmethod
    def result(self, state: State) -> dict[str, Any] | None:
        """``None`` while the game runs, else ``{"winners", "scores", "reason", ...}``."""

    # -- views ----------------------------------------------------------
    @abstractmethod
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """The state as ``seat`` may see it (``None``: the public view).

        Never another seat's private parts, the draw order, the seed or the PRNG.
        """

    def partners(self, state: State, seat: int) -> list[int]:
        """The seats that win or lose together with ``seat`` (itself included)."""
        return [seat]

    def public_move(self, before: State, after: State, seat: int, move: Move) -> Move:
        """The move as the public log shows it, from the states ``before`` and ``after`` it.

        Hidden parts are left out; what everyone may know of them (such as how
        many tiles were drawn) may be added.
        """
        return move

    # -- words ----------------------------------------------------------
    # What pages and mails say, in the game's own words (see :mod:`engines.words`).
    # The defaults speak in notation and identifiers; each game overrides them.
    def describe(
        self, before: State, after: State, seat: int, move: Move, names: Sequence[str]
    ) -> Words:
        """One sentence saying what ``seat`` did: "Ann pushes from a1 to the north: ...".

        It says only what the public log shows (never a drawn tile or a
        hand). The server writes it into the move log when the move is made:
        a :data:`~engines.phrases.Phrase` (seats as seat numbers), read in each
        reader's language; an English sentence with ``names`` is kept verbatim
        (as the log kept every sentence before phrases).
        """
        return phrase(
            "%(seat)s plays %(notation)s.", seat=seat_ref(seat), notation=self.format(move)
        )

    def describe_result(self, result: dict[str, Any], names: Sequence[str]) -> Words:
        """The result as a sentence with the players' names: "Ann wins: ..." (a phrase)."""
        return result_sentence(result)

    def prompt(self, state: State, seat: int) -> Words:
        """What ``seat`` must decide now, as a short phrase: "take a follower"."""
        return phrase("make your move")

    def questions(self, state: State, seat: int) -> list[Question]:
        """How a move of ``seat`` is asked for, one :class:`~engines.words.Question` at a time.

        Walking the questions with the answers of any listed move leaves
        exactly that move. Default: one question per field of the listed moves.
        """
        return field_questions(self.legal_moves(state, seat))

    def board_data(self, options: dict[str, Any]) -> dict[str, Any]:
        """The static board or map of a game with ``options``, for clients to draw it."""
        return {}

    # -- whole turns ----------------------------------------------------
    # A turn split into decisions of the same seat (``legal_moves``) is also one move: pages
    # and mails collect the decisions and send the turn once.
    def turn_goes_on(self, after: State, seat: int, step: Move) -> bool:
        """Whether ``seat``, having played ``step`` (reaching ``after``), still owes a decision
        of the same turn: by default, while ``after`` has a ``pending`` decision of that seat.
        """
        pending = after.get("pending") if isinstance(after, dict) else None
        owed = isinstance(pending, dict) and pending.get("seat") == seat
        return owed and seat in self.to_move(after)

    def turn_pause(self, after: State, seat: int, step: Move) -> Words:
        """Why the turn of ``seat`` stops after ``step`` before it is over ("" when it is over).

        Said where the game must reveal something or ask another seat first
        (a market day): the rest of the turn is a move of its own later.
        """
        return ""

    def join_turn(self, state: State, seat: int, steps: Sequence[Move]) -> Move:
        """The one move doing what the decisions ``steps`` of one turn do, played from ``state``.

        ``apply`` of the result gives exactly the state the steps give one by
        one. By default a turn is one decision; games that split turns join them.
        """
        if len(steps) != 1:
            raise IllegalMove(
                phrase(
                    "%(game)s has no move joining %(count)s decisions.",
                    game=self.name,
                    count=len(steps),
                ),
                "turn",
            )
        return steps[0]

    # -- notation -------------------------------------------------------
    @abstractmethod
    def format(self, move: Move) -> str:
        """The one-line notation of ``move``."""

    def canonical_names(self, text: str) -> str:
        """``text`` with each name as printed on the cards or the board ("Khon Thai", "Chiang
        Mai") replaced by its wire id, as :meth:`parse` reads it (see :mod:`engines.spelling`)."""
        return text

    def in_notation(self, text: str, language: str) -> str:
        """``text`` written in ``language`` with each of its words for a notation word
        (:attr:`notation_words`: "draai b2 Z" in Dutch) read as that word ("rotate b2 S");
        the notation itself is always understood. Without words in ``language``: ``text``."""
        words = self.notation_words.get(language)
        if not words:
            return text
        return language_spellings(tuple((word, tuple(said)) for word, said in words.items()))(text)

    @abstractmethod
    def parse(self, text: str, state: State | None = None) -> Move:
        """The move written as ``text``; raise :class:`NotationError` if it is not notation."""

    # -- search ---------------------------------------------------------
    @property
    def kind(self) -> GameKind:
        """The game's kind: information, chance and the number of seats."""
        return GameKind(self.information, self.chance, self.min_players, self.max_players)

    def seats(self, state: State) -> int:
        """How many seats play in ``state`` (default: the fixed count, else ``players``)."""
        if self.min_players == self.max_players:
            return self.min_players
        return len(state["players"])

    def returns(self, state: State) -> list[float] | None:
        """One number per seat once the game is over (None before): see :func:`win_returns`."""
        result = self.result(state)
        if result is None:
            return None
        return win_returns(self.seats(state), result["winners"])

    def margins(self, state: State) -> list[float] | None:
        """Per seat, its score minus the best score of the seats not on its side (None
        before the end; 0 where the result has no score for every seat)."""
        result = self.result(state)
        if result is None:
            return None
        count = self.seats(state)
        scores = result.get("scores") or {}
        if any(str(seat) not in scores for seat in range(count)):
            return [0.0] * count
        margins = []
        for seat in range(count):
            side = self.partners(state, seat)
            rivals = [scores[str(other)] for other in range(count) if other not in side]
            margins.append(float(scores[str(seat)] - max(rivals)) if rivals else 0.0)
        return margins

    def information_key(self, state: State, seat: int) -> str:
        """A string equal for the states ``seat`` cannot tell apart, remembering every
        public move since the start.

        Default (perfect information): the canonical JSON of the state without the PRNG.
        """
        self._require_perfect("information_key")
        return canonical_json({key: value for key, value in state.items() if key != "rng"})

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        """A state ``seat`` cannot tell from ``state``, its hidden parts redrawn from ``rng``.

        The result depends only on :meth:`information_key` and ``rng``, and belongs
        to the caller. Default (perfect information): a clone whose PRNG is redrawn.
        """
        self._require_perfect("determinize")
        copy = self.clone(state)
        if "rng" in copy:
            copy["rng"] = rng.getrandbits(64)
        return copy

    def clone(self, state: State) -> State:
        """A copy of ``state`` that belongs to the caller (for :meth:`apply_fast`).

        Default: a deep copy by :mod:`marshal` (a few times faster than a JSON round trip).
        """
        return marshal.loads(marshal.dumps(state))

    def apply_fast(self, state: State, seat: int, move: Move) -> State:
        """The state after ``seat`` plays the listed ``move``, made by changing ``state``.

        ``state`` must belong to the caller (a :meth:`clone` or a :meth:`determinize`
        result), who uses the returned state instead afterwards. Same state as
        :meth:`apply` for a listed move, without its checks and copy; default: ``apply``.
        """
        return self.apply(state, seat, move)

    def _require_perfect(self, method: str) -> None:
        """Refuse a perfect-information default in a game that hides something."""
        if self.information != PERFECT:
            raise NotImplementedError(f"{type(self).__name__} hides parts: it needs {method}.")

    # -- helpers for subclasses -----------------------------------------
    @staticmethod
    def copy_state(state: State) -> State:
        """A deep copy of ``state`` that :meth:`apply` may change freely."""
        return json.loads(json.dumps(state))


@cache
def language_spellings(words: tuple[tuple[str, tuple[str, ...]], ...]) -> Callable[[str], str]:
    """How a line is read with one language's notation ``words`` (built once per language)."""
    return Spellings(dict(words)).canonical


def canonical_json(value: Any) -> str:
    """Canonical JSON: sorted keys, no spaces (equal values give equal strings)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def win_returns(seats: int, winners: Collection[int]) -> list[float]:
    """The returns of a game won by ``winners``: they share +1, the losers share -1.

    Nobody (a draw) or everybody winning gives 0 to all; the returns add up to 0.

    >>> win_returns(2, [1]), win_returns(2, []), win_returns(4, [0, 2]), win_returns(3, [2])
    ([-1.0, 1.0], [0.0, 0.0], [0.5, -0.5, 0.5, -0.5], [-0.5, -0.5, 1.0])
    """
    won = set(winners)
    if not won or len(won) == seats:
        return [0.0] * seats
    losers = seats - len(won)
    return [1 / len(won) if seat in won else -1 / losers for seat in range(seats)]
