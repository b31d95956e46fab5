"""Game engines by id.

    >>> get_engine("siam").name
    'Siam'
    >>> sorted(ENGINES)[0]
    'siam'

See :mod:`engines.base` for the interface every engine implements.
"""

from __future__ import annotations

from engines.base import Engine, EngineError, IllegalMove, InvalidPosition, NotationError
from engines.siam import SiamEngine

ENGINES: dict[str, Engine] = {engine.id: engine for engine in (SiamEngine(),)}

__all__ = [
    "ENGINES",
    "Engine",
    "EngineError",
    "IllegalMove",
    "InvalidPosition",
    "NotationError",
    "get_engine",
]


def get_engine(engine_id: str) -> Engine:
    """The engine registered as ``engine_id``; ``KeyError`` if there is none."""
    return ENGINES[engine_id]
