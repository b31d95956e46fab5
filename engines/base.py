"""The engine interface every game implements.

An engine is pure game rules: no Flask, no database, no I/O. The server
talks to every game through the :class:`Engine` methods below and nothing
else, and finds every game in :data:`engines.ENGINES` (:func:`engines.register`).

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
from abc import ABC, abstractmethod
from collections.abc import Collection
from typing import Any

State = dict[str, Any]
Move = dict[str, Any]


class EngineError(Exception):
    """Base class of the errors an engine raises about its input."""

    def __init__(self, message: str, rule: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule


class IllegalMove(EngineError):
    """A well-formed move that breaks a rule; ``rule`` is the rule's short name."""


class NotationError(EngineError):
    """Text that is not valid notation for the engine."""


class InvalidPosition(EngineError):
    """A starting position that is malformed or inconsistent."""


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
    #: For options that name one of a few things (a map, a board): the allowed names.
    option_choices: dict[str, Collection[str]] = {}
    #: Where the game's move schemas are, as ``"package.module:NAME"``: a dict from each
    #: action to its marshmallow schema class, loaded by :mod:`schemas.moves` (an engine
    #: never imports marshmallow itself).
    move_schemas: str
    #: What the game hides from a seat, in words for players ("" when nothing is hidden).
    #: Whoever chose a game's seed or starting position can know it: players are warned.
    hidden_information: str = ""

    # -- creation -------------------------------------------------------
    def options(self, given: dict[str, Any] | None) -> dict[str, Any]:
        """Merge ``given`` over the defaults; raise ``ValueError`` on unknown names or types."""
        given = given or {}
        unknown = sorted(set(given) - set(self.default_options))
        if unknown:
            raise ValueError(f"unknown option(s): {', '.join(unknown)}")
        merged = dict(self.default_options)
        for key, value in given.items():
            default = self.default_options[key]
            if default is not None and type(value) is not type(default):
                raise ValueError(f"option {key!r} must be {type(default).__name__}")
            choices = self.option_choices.get(key)
            if choices is not None and value not in choices:
                raise ValueError(f"option {key!r} must be one of: {', '.join(sorted(choices))}")
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
        """Every legal move of ``seat`` now (empty when it is not their turn)."""

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

    # -- notation -------------------------------------------------------
    @abstractmethod
    def format(self, move: Move) -> str:
        """The one-line notation of ``move``."""

    @abstractmethod
    def parse(self, text: str, state: State | None = None) -> Move:
        """The move written as ``text``; raise :class:`NotationError` if it is not notation."""

    # -- helpers for subclasses -----------------------------------------
    @staticmethod
    def copy_state(state: State) -> State:
        """A deep copy of ``state`` that :meth:`apply` may change freely."""
        return json.loads(json.dumps(state))
