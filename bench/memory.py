"""What a worker's memory grows by under a mixed load: the app in this process under
``tracemalloc`` (never pass/fail).

    .venv/bin/python bench/memory.py [--rounds 20] [--games 50] [--top 12]

Each round plays, through Flask's test client on a temporary SQLite file, what
``bench/load.py`` sends a worker: ``--games`` new Siam games, and moves and reads
(the game, a seat's view, the log, the legal moves, the page, the lobby) in
those of the last four rounds, so that every round answers as many requests.
After a first warm-up round it prints per round the Python heap that
``tracemalloc`` sees, and at the end the source lines whose allocations grew the
most since the warm-up. Growth that stops is caches filling to their bounds;
growth that goes on with the number of games is what ``docs/performance.md``
looks for (a 10-minute ``bench/load.py --crowded-only`` run saw the workers'
RSS grow 108 -> 171 MiB).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.profiled import CYCLE, UNLIMITED, new_game  # noqa: E402
from server import create_app  # noqa: E402

#: A game is played and read in the round it is created and in the next ones, this many in all.
PLAYED_ROUNDS = 4


class Load:
    """Games created and played through one test client, and reads of each."""

    def __init__(self, app: Any) -> None:
        self.client = app.test_client()
        #: Each game's API path and its seats' Authorization headers.
        self.games: list[tuple[str, list[str]]] = []

    def play(self, path: str, tokens: list[str]) -> None:
        """One whole cycle of Siam's four moves (a game is two moves in after
        :func:`~bench.profiled.new_game`, and so after every cycle)."""
        for ply in range(2, 2 + len(CYCLE)):
            answer = self.client.post(
                f"{path}/moves",
                json={"notation": CYCLE[ply % 4]},
                headers={"Authorization": tokens[ply % 2]},
            )
            assert answer.status_code == 201, answer.get_data(as_text=True)

    def read(self, api: str, tokens: list[str]) -> None:
        """Every read of the game a spectator or a seat makes."""
        game_id = api.rsplit("/", 1)[1]
        seat = {"Authorization": tokens[0]}
        for path, headers in ((api, {}), (api, seat), (f"{api}/moves", {})):
            assert self.client.get(path, headers=headers).status_code == 200
        assert self.client.get(f"{api}/legal-moves", headers=seat).status_code == 200
        assert self.client.get(f"/games/{game_id}").status_code == 200
        assert self.client.get("/").status_code == 200

    def round(self, games: int) -> None:
        """``games`` new games, then moves and reads in the games of the last
        :data:`PLAYED_ROUNDS` rounds (as many requests each round)."""
        self.games.extend(new_game(self.client) for _ in range(games))
        for path, tokens in self.games[-PLAYED_ROUNDS * games :]:
            self.play(path, tokens)
            self.read(path, tokens)


def main() -> None:
    """Run the rounds and print the heap per round and the lines that grew most."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20, help="rounds after the warm-up")
    parser.add_argument("--games", type=int, default=50, help="new games per round")
    parser.add_argument("--top", type=int, default=12, help="source lines to print")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"TURNPOST_DB": str(Path(folder) / "memory.db"), **UNLIMITED})
        load = Load(app)
        tracemalloc.start(1)
        load.round(args.games)
        gc.collect()
        start = tracemalloc.take_snapshot()
        print(f"after the warm-up ({len(load.games)} games): {heap_mib():.1f} MiB")
        for number in range(1, args.rounds + 1):
            load.round(args.games)
            gc.collect()
            print(f"round {number} ({len(load.games)} games): {heap_mib():.1f} MiB")
        grown = tracemalloc.take_snapshot().compare_to(start, "lineno")
        print(f"\nthe {args.top} source lines whose allocations grew most since the warm-up:")
        for stat in grown[: args.top]:
            grew = f"{stat.size_diff / 2**20:+7.2f} MiB {stat.count_diff:+8d} blocks"
            print(f"  {grew}  {stat.traceback}")


def heap_mib() -> float:
    """The Python heap ``tracemalloc`` traces now, in MiB."""
    return tracemalloc.get_traced_memory()[0] / 2**20


if __name__ == "__main__":
    main()
