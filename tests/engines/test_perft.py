"""The move-count oracles of ``tests/engines/perft.json`` (see :mod:`tests.engines.perft`)."""

from __future__ import annotations

import json

import pytest

from tests.engines.perft import DEPTH, GAMES, PATH, counts, replay

ORACLES = json.loads(PATH.read_text())
CASES = [
    pytest.param(engine_id, entry, id=f"{engine_id}-{entry['name']}")
    for engine_id, entries in sorted(ORACLES.items())
    for entry in entries
]


def test_every_engine_has_its_oracles() -> None:
    assert sorted(ORACLES) == sorted(GAMES)
    for engine_id, entries in ORACLES.items():
        names = [entry["name"] for entry in entries]
        assert "start" in names and "middle" in names, engine_id
        assert any(len(entry["counts"]) == DEPTH for entry in entries), engine_id


@pytest.mark.parametrize(("engine_id", "entry"), CASES)
def test_move_counts_match_the_oracle(engine_id: str, entry: dict) -> None:
    engine = GAMES[engine_id]
    if entry["name"] == "pending":
        seat = entry["moves"][-1][0]
        assert engine.to_move(replay(engine, entry)) == [seat], "no decision pending"
    assert counts(engine, entry, len(entry["counts"])) == entry["counts"]
