"""HTTP throughput and latency under wrk, as ratios to a bare Flask app (never pass/fail).

    .venv/bin/python bench/throughput.py [--seconds 10] [--connections 16] [--workers 2] [--db URL]

wrk (Debian's package, installed by ``bench/ensure_wrk.sh`` when missing) is
the load generator: written in C, it leaves the CPU to the server far more
than Python clients do. In one run it measures, each for ``--seconds``:

1. the ratio base: ``GET /`` of a bare Flask app (``bench/bare.py``) under
   gunicorn's gevent workers, served exactly as Turnpost is;
2. Turnpost's own routes on a temporary database: ``/healthz``, a game read
   (public and with a seat token), legal moves (Siam and King of Siam), the
   move log, the game page, the lobby;
3. move submissions: each wrk connection posts Siam's four-move cycle
   (``enter a1 N``, ``enter e5 S``, ``exit a1``, ``exit e5``) to games of its
   own; the cycle returns the board to the start, so the third repetition
   draws a game at its 8th move and the connection goes on with its next
   game (games made beforehand for up to 320 moves a second per connection;
   every answer must be ``201``).

It prints a Markdown table: requests/s, latency p50/p99 (wrk's), the ratio
of requests/s to the bare app, and the error count (any non-2xx answer or
socket error; it must be 0).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bare import served  # noqa: E402
from bench.database import add_db_option, bench_database  # noqa: E402
from tests.support import BackgroundServer, start_background  # noqa: E402

BENCH = Path(__file__).resolve().parent
#: Limits far above a benchmark's rate (wrk's connections share 127.0.0.1).
UNLIMITED = {
    "TURNPOST_RATELIMIT_TOKEN": "100000000/minute",
    "TURNPOST_RATELIMIT_IP": "100000000/minute",
    "TURNPOST_RATELIMIT_CREATE": "100000000/hour",
    "TURNPOST_MAX_CONNECTIONS_PER_CLIENT": "100000",
}

MOVES_LUA = """
-- Siam's four-move cycle, each wrk thread (one connection) on its own games: the cycle
-- returns to the start, so a game is drawn by the third repetition at its 8th move, and the
-- thread goes on with its next game (every answer must be 201).
local games = {%s}
local per_thread = %d
local counter = 0
function setup(thread)
  thread:set("first", counter * per_thread)
  counter = counter + 1
end
local cycle = {"enter a1 N", "enter e5 S", "exit a1", "exit e5"}
-- The next move is the one after the last move answered 201 (wrk may build a request it
-- never sends, so the step moves on in response(), not in request()).
local step = 0
function request()
  local game = games[first + (math.floor(step / 8) %% per_thread) + 1]
  local move = cycle[(step %% 4) + 1]
  local token = (step %% 2 == 0) and game[2] or game[3]
  return wrk.format("POST", "/api/v1/games/" .. game[1] .. "/moves",
    {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json"},
    '{"notation": "' .. move .. '"}')
end
function response(status, headers, body)
  if status == 201 then step = step + 1 end
end
"""


@dataclass
class Figures:
    """What wrk measured for one route."""

    label: str
    per_second: float
    p50_ms: float
    p99_ms: float
    errors: int


def ensure_wrk() -> str:
    """The path of wrk, installed from Debian first if it is missing."""
    if not Path("/usr/bin/wrk").exists():
        subprocess.run([str(BENCH / "ensure_wrk.sh")], check=True)
    return "/usr/bin/wrk"


def run_wrk(
    label: str, url: str, seconds: int, connections: int, threads: int, extra: list[str]
) -> Figures:
    """Run wrk against ``url`` and read its summary (latency percentiles included)."""
    command = [ensure_wrk(), f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency"]
    output = subprocess.run(
        [*command, *extra, url], capture_output=True, text=True, check=True
    ).stdout
    per_second = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses: (\d+)", output))
    sockets = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    errors += sum(int(n) for n in sockets.groups()) if sockets else 0
    return Figures(label, per_second, latency(output, "50%"), latency(output, "99%"), errors)


def latency(output: str, quantile: str) -> float:
    """A latency percentile of wrk's ``--latency`` table, in milliseconds."""
    value, unit = re.search(rf"^\s+{quantile}\s+([\d.]+)(us|ms|s)\b", output, flags=re.M).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def bare_flask(seconds: int, connections: int, workers: int) -> Figures:
    """The ratio base: ``bench/bare.py`` under gunicorn's gevent workers, like Turnpost."""
    with served(workers) as url:
        return run_wrk("bare Flask `GET /` (ratio base)", url, seconds, connections, 2, [])


def create(server: BackgroundServer, engine: str, players: int = 2) -> dict:
    """A new game over the API (the answer holds the seat tokens)."""
    body = {"engine": engine, "players": [{"name": f"P{i}"} for i in range(players)]}
    answer = requests.post(server.api("/games"), json=body, timeout=10)
    answer.raise_for_status()
    return answer.json()


def reads(server: BackgroundServer, seconds: int, connections: int) -> list[Figures]:
    """wrk on each read route of Turnpost."""
    siam, kos = create(server, "siam"), create(server, "king-of-siam")
    siam_token = siam["players"][0]["token"]
    kos_token = kos["players"][kos["to_move"][0]]["token"]
    bearer = ["-H", f"Authorization: Bearer {siam_token}"]
    routes = [
        ("`GET /healthz`", "/healthz", []),
        ("game, public", f"/api/v1/games/{siam['id']}", []),
        ("game, with a seat token", f"/api/v1/games/{siam['id']}", bearer),
        ("legal moves, Siam", f"/api/v1/games/{siam['id']}/legal-moves", bearer),
        (
            "legal moves, King of Siam",
            f"/api/v1/games/{kos['id']}/legal-moves",
            ["-H", f"Authorization: Bearer {kos_token}"],
        ),
        ("move log", f"/api/v1/games/{siam['id']}/moves", []),
        ("game page", f"/games/{siam['id']}", []),
        ("lobby", "/", []),
    ]
    return [
        run_wrk(label, server.url + path, seconds, connections, 2, extra)
        for label, path, extra in routes
    ]


#: Moves a second one connection can post at most (its games run out beyond: then 409s).
MOVES_PER_CONNECTION = 320


def moves(server: BackgroundServer, seconds: int, connections: int) -> Figures:
    """wrk posting the four-move cycle, each connection on games of its own (8 moves each:
    the third repetition draws a Siam game)."""
    with moves_script(server, seconds, connections) as script:
        return run_wrk(
            "move submissions (Siam)", server.url, seconds, connections, connections, script
        )


@contextmanager
def moves_script(server: BackgroundServer, seconds: int, connections: int) -> Iterator[list[str]]:
    """wrk's options for :func:`moves`: its Lua script, on games made for it now."""
    per_connection = seconds * MOVES_PER_CONNECTION // 8
    entries = []
    for _ in range(connections * per_connection):
        game = create(server, "siam")
        parts = [game["id"], *(player["token"] for player in game["players"])]
        entries.append("{" + ", ".join(json.dumps(part) for part in parts) + "}")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(MOVES_LUA % (", ".join(entries), per_connection))
    try:
        yield ["-s", script.name]
    finally:
        os.unlink(script.name)


def table(figures: list[Figures], base: Figures) -> str:
    """The Markdown table of a run."""
    lines = [
        "| route | requests/s | p50 ms | p99 ms | ratio to bare Flask | errors |",
        "|---|---|---|---|---|---|",
    ]
    for row in figures:
        ratio = row.per_second / base.per_second
        lines.append(
            f"| {row.label} | {row.per_second:,.0f} | {row.p50_ms:.1f} | {row.p99_ms:.1f} "
            f"| {ratio:.2f} | {row.errors} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16, help="for the read routes")
    parser.add_argument("--games", type=int, default=8, help="move-posting connections")
    parser.add_argument("--workers", type=int, default=2)
    add_db_option(parser)
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    base = bare_flask(args.seconds, args.connections, args.workers)
    os.environ.update(UNLIMITED)
    with tempfile.TemporaryDirectory() as folder:
        server = start_background(bench_database(args.db, folder, "bench.db"), args.workers)
        try:
            figures = [base, *reads(server, args.seconds, args.connections)]
            figures.append(moves(server, args.seconds, args.games))
        finally:
            server.stop()
    print(table(figures, base))


if __name__ == "__main__":
    main()
