"""Game engines by id.

    >>> get_engine("siam").name
    'Siam'
    >>> sorted(ENGINES)
    ['bangkok-klongs', 'foreign-king', 'king-of-siam', 'siam']

See :mod:`engines.base` for the interface every engine implements.
"""

from __future__ import annotations

from engines.bangkok_klongs import BangkokKlongsEngine
from engines.base import Engine, EngineError, IllegalMove, InvalidPosition, NotationError
from engines.foreign_king import ForeignKingEngine
from engines.king_of_siam import KingOfSiamEngine
from engines.siam import SiamEngine

ENGINES: dict[str, Engine] = {
    engine.id: engine
    for engine in (SiamEngine(), KingOfSiamEngine(), ForeignKingEngine(), BangkokKlongsEngine())
}

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
