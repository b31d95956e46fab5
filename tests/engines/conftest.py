"""Fixtures of the engine tests: the test-only Nim engine, registered for one test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engines import register, unregister
from tests.engines.tiny_game import NimEngine


@pytest.fixture
def nim() -> Iterator[NimEngine]:
    """Nim registered as ``nim`` the public way (:func:`engines.register`) for one test."""
    engine = register(NimEngine())
    try:
        yield engine
    finally:
        unregister(engine.id)
