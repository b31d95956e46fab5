"""Server time of the web pages, per game: the table, each guided step, the preview.

    .venv/bin/python bench/pages.py [--games 3] [--repeat 5]

For every engine, plays ``--games`` random games to their middle (a fresh
SQLite file, the service in this process), then walks one random move of the
seat to move through the game page the way a player clicks it: the page with
no answer yet, each answer (a guided step), the preview with its confirm
button, plus the watcher's page and the live fragment the script fetches.
Each page is asked ``--repeat`` times through Flask's test client (the
whole app: routing, cookies, limits, templates), timed with
``time.perf_counter``; the median and the slowest median per kind of page
are printed per engine. The goal (issue 14): every median under 100 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import ENGINES  # noqa: E402
from server import create_app  # noqa: E402
from server.http.guide import PICK  # noqa: E402

PLAYERS = {"siam": 2, "king-of-siam": 4, "foreign-king": 3, "bangkok-klongs": 4}
GOAL_MS = 100.0


def timed(client, url: str, repeat: int, shows: str = "") -> float:
    """The median server time of ``GET url`` in milliseconds (200, and showing ``shows``)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        assert shows in response.get_data(as_text=True), (url, shows)
    return statistics.median(times)


def middle_game(app, engine_id: str, seed: int) -> tuple[dict, int, dict]:
    """A game of ``engine_id`` played halfway by random moves: the game, seat to move, state."""
    engine = ENGINES[engine_id]
    rng = random.Random(seed)
    with app.app_context():
        from server.games.service import MoveRequest
        from server.http.context import current_service

        games = current_service()
        names = ("Ann", "Bob", "Cleo", "Dan")[: PLAYERS[engine_id]]
        players = [{"name": name, "email": f"{name.lower()}@example.org"} for name in names]
        created = games.create(engine_id, players, {}, seed=seed)
        state = engine.setup(len(players), engine.options({}), seed)
        length = 0
        probe = state
        while engine.result(probe) is None and length < 400:
            seat = engine.to_move(probe)[0]
            probe = engine.apply(probe, seat, rng.choice(engine.legal_moves(probe, seat)))
            length += 1
        rng = random.Random(seed)  # the probe's moves again, up to its middle
        for _ in range(length // 2):
            seat = engine.to_move(state)[0]
            move = rng.choice(engine.legal_moves(state, seat))
            games.submit(MoveRequest(created["id"], seat=seat, move=move))
            state = engine.apply(state, seat, move)
        return created, engine.to_move(state)[0], state


def walk(app, engine_id: str, seed: int, repeat: int) -> dict[str, list[float]]:
    """The median times of one game's pages, by kind of page."""
    engine = ENGINES[engine_id]
    created, seat, state = middle_game(app, engine_id, seed)
    game_id = created["id"]
    times: dict[str, list[float]] = defaultdict(list)
    watcher = app.test_client()
    times["watcher page"].append(timed(watcher, f"/games/{game_id}", repeat))
    client = app.test_client()
    token = created["players"][seat]["token"]
    client.set_cookie(f"turnpost_seat_{game_id}", token, path=f"/games/{game_id}")
    move = random.Random(seed).choice(engine.legal_moves(state, seat))
    picks: list[tuple[str, str]] = []
    for question in engine.questions(state, seat):
        query = "&".join(f"{PICK}{key}={value}" for key, value in picks)
        kind = "seat page" if not picks else "guided step"
        times[kind].append(timed(client, f"/games/{game_id}?{query}", repeat, "turn yours"))
        answer = question.answer(move)
        picks.append((question.key, "" if answer is None else str(answer)))
    query = "&".join(f"{PICK}{key}={value}" for key, value in picks)
    times["preview"].append(timed(client, f"/games/{game_id}?{query}", repeat, 'id="confirm"'))
    times["live fragment"].append(timed(client, f"/games/{game_id}/live", repeat))
    return times


def main() -> None:
    """Print the medians per engine and kind of page."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "TURNPOST_DB": str(Path(folder) / "bench.db"),
                "RATELIMIT_ENABLED": False,
                "TESTING": True,
            }
        )
        print(f"{'engine':16} {'page':14} {'median ms':>10} {'slowest ms':>11}")
        worst = 0.0
        for engine_id in PLAYERS:
            if engine_id not in ENGINES:
                continue
            by_kind: dict[str, list[float]] = defaultdict(list)
            for seed in range(args.games):
                for kind, values in walk(app, engine_id, seed, args.repeat).items():
                    by_kind[kind] += values
            for kind, values in by_kind.items():
                median = statistics.median(values)
                worst = max(worst, median)
                print(f"{engine_id:16} {kind:14} {median:10.1f} {max(values):11.1f}")
        verdict = "under" if worst < GOAL_MS else "OVER"
        print(f"slowest median {worst:.1f} ms: {verdict} the {GOAL_MS:.0f} ms goal")


if __name__ == "__main__":
    main()
