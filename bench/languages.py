"""What rendering in another language costs: the game pages and the turn mail per language.

    .venv/bin/python bench/languages.py [--games 2] [--repeat 15]

For every engine, plays ``--games`` random games to their middle (``bench/pages.py``'s
``middle_game``: a fresh SQLite file, the service in this process), then renders, in
English, Dutch, German and French: the watcher's game page and the seat's page through
Flask's test client (``Accept-Language``; the whole app: routing, cookies, templates), and
the seat's turn mail (text, HTML and board picture: ``server.mail.render.compose``). The
languages take turns within each round so that a busy machine slows them alike; each time
is the CPU time of this process (``time.process_time``), the median of ``--repeat``
rounds. It prints milliseconds per language and each language's ratio to English (goal of
issue 24: at most 1.10), and never fails.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pages import PLAYERS, middle_game  # noqa: E402
from server import create_app  # noqa: E402
from server.games.game import log_entry  # noqa: E402
from server.i18n import LANGUAGES  # noqa: E402
from server.mail.render import compose  # noqa: E402
from server.store.records import OutboxMail  # noqa: E402

GOAL = 1.10


def cpu_ms(render: Callable[[], object]) -> float:
    """The CPU milliseconds of one call of ``render``."""
    started = time.process_time()
    render()
    return (time.process_time() - started) * 1000


def page(client, url: str, language: str) -> Callable[[], object]:
    """A call that asks ``url`` in ``language`` and checks the answer is a page."""

    def get() -> None:
        response = client.get(url, headers={"Accept-Language": language})
        assert response.status_code == 200, (url, response.status_code)

    return get


def mail(app, game_id: str, seat: int, language: str) -> Callable[[], object]:
    """A call that composes the turn mail of ``seat`` in ``language`` (as the worker does)."""
    from server.http.context import current_service

    def build() -> None:
        with app.app_context():
            games = current_service()
            game = games.load(game_id)
            names = [row.name for row in game.seats]
            recent = [log_entry(row, names, language) for row in games.store.moves(game_id)]
            now = game.row.updated_at
            turn = OutboxMail(
                0,
                game_id,
                seat,
                "turn",
                "ann@example.org",
                None,
                None,
                None,
                game.seq,
                now,
                0,
                None,
                None,
                None,
                None,
                None,
                False,
                {},
                None,
                None,
            )
            settings = games.notifier.settings
            compose(settings, game, seat, [turn], recent[-5:], 0, now, language=language)

    return build


def rounds(app, engine_id: str, seed: int, repeat: int) -> dict[tuple[str, str], list[float]]:
    """CPU milliseconds per (kind, language) of one middle game, ``repeat`` rounds."""
    created, seat, _ = middle_game(app, engine_id, seed)
    game_id = created["id"]
    watcher, player = app.test_client(), app.test_client()
    player.set_cookie(
        f"turnpost_seat_{game_id}", created["players"][seat]["token"], path=f"/games/{game_id}"
    )
    calls = {
        (kind, language): call
        for language in LANGUAGES
        for kind, call in (
            ("watcher page", page(watcher, f"/games/{game_id}", language)),
            ("seat page", page(player, f"/games/{game_id}", language)),
            ("turn mail", mail(app, game_id, seat, language)),
        )
    }
    for call in calls.values():  # warm: catalogs, templates, caches of the first render
        call()
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    for _ in range(repeat):
        for key, call in calls.items():
            times[key].append(cpu_ms(call))
    return times


def main() -> None:
    """Print CPU milliseconds per engine, kind and language, and the ratios to English."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        app = create_app(
            {
                "TURNPOST_DB": str(Path(folder) / "bench.db"),
                "RATELIMIT_ENABLED": False,
                "TESTING": True,
            }
        )
        header = " ".join(f"{language + ' ms':>8} {'ratio':>6}" for language in LANGUAGES)
        print(f"| engine | kind | {header} |")
        worst = 0.0
        for engine_id in PLAYERS:
            medians: dict[tuple[str, str], list[float]] = defaultdict(list)
            for seed in range(args.games):
                for key, values in rounds(app, engine_id, seed, args.repeat).items():
                    medians[key].append(statistics.median(values))
            for kind in ("watcher page", "seat page", "turn mail"):
                english = statistics.mean(medians[(kind, "en")])
                cells = []
                for language in LANGUAGES:
                    spent = statistics.mean(medians[(kind, language)])
                    worst = max(worst, spent / english)
                    cells.append(f"{spent:8.2f} {spent / english:6.2f}")
                print(f"| {engine_id} | {kind} | {' '.join(cells)} |")
        verdict = "within" if worst <= GOAL else "OVER"
        print(f"the costliest language: {worst:.2f} of English, {verdict} the {GOAL:.2f} goal")


if __name__ == "__main__":
    main()
