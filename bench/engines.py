"""Engine speed for every registered game, printed as figures (never pass/fail).

    .venv/bin/python bench/engines.py [--seconds 5] [--players 3]

For each engine: random legal moves applied per second (``legal_moves`` plus
``apply``), and ``legal_moves`` calls per second with the median number of
legal moves, measured on positions sampled along random games.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import ENGINES, Engine  # noqa: E402


def sample_positions(engine: Engine, players: int, count: int, seed: int) -> list[dict]:
    """``count`` states along random games (a new game whenever one ends)."""
    rng = random.Random(seed)
    positions: list[dict] = []
    state = engine.setup(players, engine.options({}), seed)
    while len(positions) < count:
        to_move = engine.to_move(state)
        if not to_move:
            state = engine.setup(players, engine.options({}), rng.randrange(2**32))
            continue
        positions.append(state)
        state = engine.apply(state, to_move[0], rng.choice(engine.legal_moves(state, to_move[0])))
    return positions


def moves_per_second(engine: Engine, players: int, seconds: float) -> float:
    """Random legal moves chosen and applied per second."""
    rng, applied = random.Random(1), 0
    state = engine.setup(players, engine.options({}), 1)
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        to_move = engine.to_move(state)
        if not to_move:
            state = engine.setup(players, engine.options({}), rng.randrange(2**32))
            continue
        state = engine.apply(state, to_move[0], rng.choice(engine.legal_moves(state, to_move[0])))
        applied += 1
    return applied / seconds


def legal_moves_rate(engine: Engine, positions: list[dict]) -> tuple[float, float]:
    """``(legal_moves calls per second, median number of legal moves)`` over ``positions``."""
    sizes, started = [], time.perf_counter()
    for state in positions:
        sizes.append(len(engine.legal_moves(state, engine.to_move(state)[0])))
    return len(positions) / (time.perf_counter() - started), statistics.median(sizes)


def main() -> None:
    """Print the figures for every engine."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--positions", type=int, default=60)
    args = parser.parse_args()
    for engine in ENGINES.values():
        players = min(max(args.players, engine.min_players), engine.max_players)
        applied = moves_per_second(engine, players, args.seconds)
        calls, median = legal_moves_rate(
            engine, sample_positions(engine, players, args.positions, 7)
        )
        print(
            f"{engine.id} ({players} players): {applied:,.0f} random moves/s; "
            f"legal_moves {calls:,.1f} calls/s, median {median:,.0f} legal moves"
        )


if __name__ == "__main__":
    main()
