"""Engine figures per engine and player count, printed as a Markdown table (never pass/fail).

    .venv/bin/python bench/engines.py                       # 200 games each (the issue's figures)
    .venv/bin/python bench/engines.py --games 5             # a quick look
    .venv/bin/python bench/engines.py --engines bangkok-klongs --players 4 \\
        --options '{"tactical": true}'

Random games are played with a seeded ``random.Random``: at every decision
the seat to move lists its legal moves and plays one of them at random. For
each engine and player count the table shows, over all decisions of all
games, the 50th and 95th percentile and the maximum of

- the legal-moves list: entries, and bytes of the compact JSON the API
  answers (``{"moves", "seq"}``, each move with its ``notation`` beside its
  fields; 1 KB = 1024 bytes),
- the time of one ``legal_moves`` call and of one ``apply`` call (wall clock,
  milliseconds),

and random moves per second (decisions divided by the time spent in
``legal_moves`` and ``apply``). A game longer than ``--max-plies`` is cut
there and counted in the "cut" column. The load average at the start is
printed: the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import ENGINES, Engine  # noqa: E402


@dataclass
class Figures:
    """What one engine and player count measured, one value per decision."""

    entries: list[int] = field(default_factory=list)
    size: list[int] = field(default_factory=list)
    listing: list[float] = field(default_factory=list)
    applying: list[float] = field(default_factory=list)
    games: int = 0
    cut: int = 0

    def moves_per_second(self) -> float:
        """Decisions per second of ``legal_moves`` plus ``apply`` time."""
        return len(self.applying) / (sum(self.listing) + sum(self.applying))


def play(
    engine: Engine, players: int, options: dict, seed: int, max_plies: int, into: Figures
) -> None:
    """Play one random game from ``seed``, adding each decision's figures to ``into``."""
    chooser = random.Random(seed)
    state = engine.setup(players, options, seed)
    for _ in range(max_plies):
        to_move = engine.to_move(state)
        if not to_move:
            break
        seat = to_move[0]
        started = time.perf_counter()
        moves = engine.legal_moves(state, seat)
        listed = time.perf_counter()
        entries = [{**move, "notation": engine.format(move)} for move in moves]
        into.size.append(len(json.dumps({"moves": entries, "seq": 0}, separators=(",", ":"))))
        into.entries.append(len(moves))
        move = chooser.choice(moves)
        applying = time.perf_counter()
        state = engine.apply(state, seat, move)
        into.applying.append(time.perf_counter() - applying)
        into.listing.append(listed - started)
    else:
        into.cut += int(bool(engine.to_move(state)))
    into.games += 1


def spread(values: list[float], scale: float = 1.0, digits: int = 0) -> str:
    """``p50 / p95 / max`` of ``values`` times ``scale``."""
    p95 = (
        statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]
    )
    return " / ".join(
        f"{v * scale:,.{digits}f}" for v in (statistics.median(values), p95, max(values))
    )


HEADER = (
    "| engine | players | games (cut) | decisions | entries p50 / p95 / max "
    "| KB p50 / p95 / max | `legal_moves` ms p50 / p95 / max | `apply` ms p50 / p95 / max "
    "| random moves/s |\n|---|---|---|---|---|---|---|---|---|"
)


def row(engine: Engine, players: int, figures: Figures) -> str:
    """One Markdown table row."""
    return (
        f"| {engine.id} | {players} | {figures.games} ({figures.cut}) | {len(figures.entries):,} "
        f"| {spread(figures.entries)} | {spread(figures.size, 1 / 1024, 1)} "
        f"| {spread(figures.listing, 1000, 2)} | {spread(figures.applying, 1000, 2)} "
        f"| {figures.moves_per_second():,.0f} |"
    )


def engine_options(engine: Engine, given: dict) -> dict:
    """The engine's options with those of ``given`` it knows."""
    return engine.options({k: v for k, v in given.items() if k in engine.default_options})


def main() -> None:
    """Print the table for the chosen engines and player counts."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="random games per row")
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated ids")
    parser.add_argument("--players", default="", help="comma-separated counts (default: all)")
    parser.add_argument("--options", default="{}", help="JSON options, for engines that have them")
    parser.add_argument("--max-plies", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    given = json.loads(args.options)
    wanted = {int(p) for p in args.players.split(",") if p}
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"options: {given}\n\n{HEADER}")
    for engine_id in args.engines.split(","):
        engine = ENGINES[engine_id]
        for players in range(engine.min_players, engine.max_players + 1):
            if wanted and players not in wanted:
                continue
            figures = Figures()
            for game in range(args.games):
                seed = args.seed * 1_000_003 + game
                play(engine, players, engine_options(engine, given), seed, args.max_plies, figures)
            print(row(engine, players, figures), flush=True)


if __name__ == "__main__":
    main()
