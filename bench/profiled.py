"""Where a request's time goes: the whole app in this process under cProfile (never pass/fail).

    .venv/bin/python bench/profiled.py [--requests 2000] [--route move] [--top 25] [--sort tottime]

The app (routing, the rate limiter, schemas, the store on a temporary SQLite
file with ``synchronous = FULL``, the engine) answers ``--requests``
requests of one route through Flask's test client, without the network:
``move`` (Siam's four-move cycle, a new game every 400 moves, each answer ``201``), ``game``
(the public game), ``seat`` (the game with a seat token), ``legal`` (Siam's
legal moves), ``log`` (the move log), ``healthz`` (the liveness check),
``bare`` (``GET /`` of the bare Flask app of ``bench/bare.py``, the ratio base
of ``bench/throughput.py``, through the same test client), ``page`` (the game page of a
watcher), ``page-seat`` (the game page of the seat to move, or of seat 0 when the game
hides something: its hand) or ``lobby`` (the lobby of a visitor). The pages
are those of ``--engine``'s game ``--plies`` random legal moves in. It prints the CPU time per
request (of every thread of the process: a machine shared with other work
makes wall time noisy), the SQL statements per request (SQLite's trace callback: of the
first request, which fills the caches, and of the next) and the
top functions of the profile, so that a change is measured before and after
it on the same route (``docs/performance.md``). ``--hooks`` adds the CPU
time per request of every ``before_request``, ``after_request`` and teardown
function of the app and of the view itself. ``--route growth`` instead
plays ``--games`` whole Siam games (to the 500-ply draw) and compares the CPU
and wall time of moves 5-24 with those of moves 480-499.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bare  # noqa: E402
from engines import ENGINES  # noqa: E402
from engines.siam.board import PLY_LIMIT  # noqa: E402
from server import create_app  # noqa: E402

#: Limits far above the run's rate; the limiter still runs on every request.
UNLIMITED = {
    "TURNPOST_RATELIMIT_TOKEN": "100000000/minute",
    "TURNPOST_RATELIMIT_IP": "100000000/minute",
    "TURNPOST_RATELIMIT_CREATE": "100000000/hour",
}
#: Siam's four-move cycle that returns the board to the start.
CYCLE = ("enter a1 N", "enter e5 S", "exit a1", "exit e5")
#: Moves played in one game before the next (Siam draws a game at 500 plies).
MOVES_PER_GAME = 400
#: The players of each engine's game for the page routes.
PLAYERS = {"siam": 2, "king-of-siam": 4, "foreign-king": 3, "bangkok-klongs": 4}
#: The page routes: each answers a ``GET`` of a web page.
PAGES = ("page", "page-seat", "lobby")


def new_game(client: Any) -> tuple[str, list[str]]:
    """A Siam game two moves in: its path and its seats' Authorization headers."""
    body = {"engine": "siam", "players": [{"name": "A"}, {"name": "B"}], "seed": 1}
    game = client.post("/api/v1/games", json=body).get_json()
    path = f"/api/v1/games/{game['id']}"
    tokens = [f"Bearer {player['token']}" for player in game["players"]]
    for ply in range(2):  # a game under way: a log to read, pieces on the board
        client.post(
            f"{path}/moves", json={"notation": CYCLE[ply]}, headers={"Authorization": tokens[ply]}
        )
    return path, tokens


def page_game(app: Any, engine_id: str, plies: int) -> tuple[str, list[str], int]:
    """A game of ``engine_id`` ``plies`` random legal moves in (fewer if it ends): its id, its
    seats' tokens and the seat whose page ``page-seat`` shows."""
    engine = ENGINES[engine_id]
    with app.app_context():
        from server.games.service import MoveRequest
        from server.http.context import current_service

        games = current_service()
        players = [{"name": name} for name in ("Ann", "Bob", "Cleo", "Dan")[: PLAYERS[engine_id]]]
        created = games.create(engine_id, players, {}, seed=1)
        state = engine.setup(len(players), engine.options({}), 1)
        rng = random.Random(1)
        for _ in range(plies):
            if engine.result(state) is not None:
                break
            seat = engine.to_move(state)[0]
            move = rng.choice(engine.legal_moves(state, seat))
            games.submit(MoveRequest(created["id"], seat=seat, move=move))
            state = engine.apply(state, seat, move)
    tokens = [player["token"] for player in created["players"]]
    shown = 0 if engine.hidden_information else engine.to_move(state)[0]
    return created["id"], tokens, shown


def page(app: Any, name: str, engine_id: str, plies: int) -> Callable[[int], int]:
    """A function answering request number ``i`` of page route ``name``; it returns the status."""
    client = app.test_client()
    if name == "lobby":
        return lambda i: client.get("/").status_code
    game_id, tokens, seat = page_game(app, engine_id, plies)
    if name == "page-seat":
        client.set_cookie(f"turnpost_seat_{game_id}", tokens[seat], path=f"/games/{game_id}")
    return lambda i: client.get(f"/games/{game_id}").status_code


def route(app: Any, name: str) -> Callable[[int], int]:
    """A function answering request number ``i`` of route ``name``; it returns the status."""
    client = app.test_client()
    path, tokens = new_game(client)
    games = {0: (path, tokens)}

    def move(i: int) -> int:
        """Move ``i`` of the cycle, in a new game every :data:`MOVES_PER_GAME` moves."""
        number, ply = divmod(i, MOVES_PER_GAME)
        if number not in games:
            games[number] = new_game(client)
        path, tokens = games[number]
        return client.post(
            f"{path}/moves",
            json={"notation": CYCLE[(ply + 2) % 4]},
            headers={"Authorization": tokens[ply % 2]},
        ).status_code

    reads = {
        "game": lambda i: client.get(path).status_code,
        "seat": lambda i: client.get(path, headers={"Authorization": tokens[0]}).status_code,
        "legal": lambda i: (
            client.get(f"{path}/legal-moves", headers={"Authorization": tokens[0]}).status_code
        ),
        "log": lambda i: client.get(f"{path}/moves").status_code,
        "healthz": lambda i: client.get("/healthz").status_code,
    }
    return move if name == "move" else reads[name]


def timed_hooks(app: Any) -> dict[str, float]:
    """Wrap every request hook and view of ``app`` in a CPU clock; the seconds each took,
    by name, summed over the requests answered from now on."""
    seconds: dict[str, float] = {}

    def clocked(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[name] = seconds.get(name, 0.0) + time.thread_time() - started

        return run

    def named(kind: str, function: Callable[..., Any]) -> str:
        inner = getattr(function, "func", function)  # a functools.partial
        return f"{kind} {getattr(inner, '__module__', '?')}.{getattr(inner, '__qualname__', inner)}"

    for kind in ("before_request", "after_request", "teardown_request"):
        for functions in getattr(app, f"{kind}_funcs").values():
            functions[:] = [clocked(named(kind, f), f) for f in functions]
    app.teardown_appcontext_funcs[:] = [
        clocked(named("teardown_appcontext", f), f) for f in app.teardown_appcontext_funcs
    ]
    for endpoint, view in list(app.view_functions.items()):
        app.view_functions[endpoint] = clocked(f"view {endpoint}", view)
    return seconds


def growth(app: Any, games: int) -> None:
    """Print the CPU and wall time of a move early and late in a game: medians over ``games``
    games of Siam's cycle to its last ply (a game is drawn at 500), moves 5-24 and 480-499."""
    client = app.test_client()
    cpu: list[list[float]] = []
    wall: list[list[float]] = []
    for _ in range(games):
        path, tokens = new_game(client)
        cpu.append([])
        wall.append([])
        for ply in range(2, PLY_LIMIT):
            cpu_started, started = time.thread_time(), time.perf_counter()
            status = client.post(
                f"{path}/moves",
                json={"notation": CYCLE[ply % 4]},
                headers={"Authorization": tokens[ply % 2]},
            ).status_code
            cpu[-1].append(time.thread_time() - cpu_started)
            wall[-1].append(time.perf_counter() - started)
            assert status == 201, (ply, status)

    def medians(times: list[list[float]]) -> tuple[float, float]:
        early = [t for game in times for t in game[3:23]]
        late = [t for game in times for t in game[-20:]]
        return statistics.median(early) * 1000, statistics.median(late) * 1000

    for name, times in (("CPU", cpu), ("wall", wall)):
        early, late = medians(times)
        print(
            f"{name} per move, median over {games} games: moves 5-24 {early:.3f} ms,"
            f" moves 480-499 {late:.3f} ms, ratio {late / early:.2f}"
        )


def count_statements(app: Any, answer: Callable[[int], int], request: int) -> int:
    """Answer request number ``request`` and count its SQL statements."""
    statements: list[str] = []
    with app.app_context():
        app.extensions["turnpost"].store().db.conn.set_trace_callback(statements.append)
    answer(request)
    with app.app_context():
        app.extensions["turnpost"].store().db.conn.set_trace_callback(None)
    return len(statements)


def main() -> None:
    """Profile ``--requests`` requests of one route and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument(
        "--route",
        choices=("move", "game", "seat", "legal", "log", "healthz", "bare", "growth", *PAGES),
        default="move",
    )
    parser.add_argument("--hooks", action="store_true", help="CPU per request of each hook")
    parser.add_argument("--engine", choices=sorted(PLAYERS), default="siam", help="of pages")
    parser.add_argument("--plies", type=int, default=20, help="moves before a page is asked")
    parser.add_argument("--games", type=int, default=4, help="games of the growth route")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sort", default="tottime", help="a pstats sort key (cumulative, ...)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config = {"TURNPOST_DB": f"{folder}/profile.db", **UNLIMITED}
        app = create_app(config)
        app.logger.disabled = True
        if args.route == "growth":
            growth(app, args.games)
            return
        if args.route == "bare":
            app, bare_client = bare.app, bare.app.test_client()
            answer = lambda i: bare_client.get("/").status_code  # noqa: E731
        elif args.route in PAGES:
            answer = page(app, args.route, args.engine, args.plies)
        else:
            answer = route(app, args.route)
        counted = args.route != "bare"
        first = count_statements(app, answer, 0) if counted else 0  # it warms the caches too
        per_request = count_statements(app, answer, 1) if counted else 0
        hooks = timed_hooks(app) if args.hooks else {}
        cpu_started = time.process_time()
        for i in range(1, args.requests + 1):
            answer(i)
        cpu = (time.process_time() - cpu_started) / args.requests
        hook_seconds = dict(hooks)
        profile = cProfile.Profile()
        started = time.perf_counter()
        profile.enable()
        statuses = {answer(i) for i in range(args.requests + 1, 2 * args.requests + 1)}
        profile.disable()
        elapsed = time.perf_counter() - started
    game = f" ({args.engine}, {args.plies} plies)" if args.route in PAGES[:2] else ""
    print(f"route {args.route}{game}: {args.requests} requests, statuses {sorted(statuses)}")
    print(f"{cpu * 1000:.3f} ms of CPU per request (every thread of the process), unprofiled")
    print(f"{elapsed / args.requests * 1000:.3f} ms per request under the profiler")
    print(
        f"{per_request} SQL statements per request, {first} in the first (triggers' steps included)"
    )
    for name, seconds in sorted(hook_seconds.items(), key=lambda item: -item[1]):
        print(f"{seconds / args.requests * 1e6:8.1f} us  {name}")
    text = io.StringIO()
    pstats.Stats(profile, stream=text).sort_stats(args.sort).print_stats(args.top)
    print(text.getvalue())


if __name__ == "__main__":
    main()
