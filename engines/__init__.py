"""Game engines by id: :data:`ENGINES` is the one list of games, filled by :func:`register`.

    >>> get_engine("siam").name
    'Siam'
    >>> sorted(ENGINES)
    ['bangkok-klongs', 'foreign-king', 'king-of-siam', 'siam']

A layer that keeps a part of every game (the move schemas in
:mod:`schemas.moves`) checks it with :func:`on_register`, so a game whose part
is missing or broken is refused when it is registered (or when that layer is
imported), never when a request needs the part. See :mod:`engines.base` for
the interface every engine implements and how to add a game.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from engines.bangkok_klongs import BangkokKlongsEngine
from engines.base import (
    DETERMINISTIC,
    IMPERFECT,
    PERFECT,
    SAMPLED,
    Engine,
    EngineError,
    IllegalMove,
    InvalidPosition,
    NotationError,
    OptionError,
)
from engines.foreign_king import ForeignKingEngine
from engines.king_of_siam import KingOfSiamEngine
from engines.siam import SiamEngine

#: Every registered engine by its id, in registration order.
ENGINES: dict[str, Engine] = {}

#: The checks :func:`register` runs on each engine (see :func:`on_register`).
_CHECKS: list[Callable[[Engine], object]] = []

#: An engine id: lower-case words joined by hyphens (it appears in URLs and mail).
ENGINE_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
#: A ``move_schemas`` reference: ``"package.module:NAME"``.
REFERENCE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")

__all__ = [
    "ENGINES",
    "Engine",
    "EngineError",
    "IllegalMove",
    "InvalidPosition",
    "NotationError",
    "OptionError",
    "get_engine",
    "on_register",
    "register",
    "unregister",
]


def get_engine(engine_id: str) -> Engine:
    """The engine registered as ``engine_id``; ``KeyError`` if there is none."""
    return ENGINES[engine_id]


def register(engine: Engine) -> Engine:
    """Add ``engine`` to :data:`ENGINES` and return it.

    Raise ``ValueError`` if its id is taken, its class attributes are missing
    or malformed, or a check added by :func:`on_register` refuses it.
    """
    problem = _attribute_problem(engine)
    if problem:
        raise ValueError(f"Cannot register {type(engine).__name__}: {problem}.")
    if engine.id in ENGINES:
        raise ValueError(f"An engine is already registered as {engine.id!r}.")
    for check in _CHECKS:
        check(engine)
    ENGINES[engine.id] = engine
    return engine


def unregister(engine_id: str) -> Engine:
    """Remove the engine registered as ``engine_id`` and return it; ``KeyError`` if none is."""
    return ENGINES.pop(engine_id)


def on_register(check: Callable[[Engine], object]) -> None:
    """Run ``check`` on every registered engine now and on each one registered later.

    ``check`` raises (``ValueError`` with a sentence naming the engine) to refuse one.
    """
    for engine in ENGINES.values():
        check(engine)
    _CHECKS.append(check)


def _attribute_problem(engine: Engine) -> str | None:
    """What is wrong with the class attributes of ``engine``, or None."""
    if not isinstance(engine, Engine):
        return "it is not an engines.base.Engine"
    engine_id = getattr(engine, "id", None)
    if not isinstance(engine_id, str) or not ENGINE_ID.match(engine_id):
        return "'id' must be lower-case words joined by hyphens, such as 'king-of-siam'"
    if not isinstance(getattr(engine, "name", None), str) or not engine.name:
        return "'name' must be the game's name"
    low, high = getattr(engine, "min_players", None), getattr(engine, "max_players", None)
    if type(low) is not int or type(high) is not int or not 1 <= low <= high:
        return "'min_players' and 'max_players' must be whole numbers with 1 <= min <= max"
    reference = getattr(engine, "move_schemas", None)
    if not isinstance(reference, str) or not REFERENCE.match(reference):
        return "'move_schemas' must name the move schemas as 'package.module:NAME'"
    if getattr(engine, "information", None) not in (PERFECT, IMPERFECT):
        return f"'information' must be {PERFECT!r} or {IMPERFECT!r}"
    if getattr(engine, "chance", None) not in (DETERMINISTIC, SAMPLED):
        return f"'chance' must be {DETERMINISTIC!r} or {SAMPLED!r}"
    return None


register(SiamEngine())
register(KingOfSiamEngine())
register(ForeignKingEngine())
register(BangkokKlongsEngine())
