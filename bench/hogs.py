"""Another user's reads while clients hammer King of Siam legal moves, as figures (never pass/fail).

    .venv/bin/python bench/hogs.py [--seconds 20] [--hogs 6] [--unlimited] [--db URL]

Issue 11 measured that 6 clients asking for the legal moves of one King of
Siam token (3.4 MB and 0.14 s of CPU each) raised another user's read
latency from 5 ms to 224 ms median, 1.07 s max. This starts the server as
``turnpost serve`` does, with the default rate limits (only game creation
raised), and measures another user's game reads, from another address
(127.0.0.2), first alone and then while ``--hogs`` threads on one token
(from 127.0.0.1) ask for legal moves without pause. ``--unlimited`` raises
the per-token and per-address limits out of the way, to show what the cost
limits save.
"""

from __future__ import annotations

import argparse
import http.client
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.database import add_db_option, bench_database  # noqa: E402
from bench.moves import percentile, run_threads  # noqa: E402
from tests.support import BackgroundServer, start_background  # noqa: E402

#: The other user's address: another loopback address, so that the hogs' address limit
#: is not theirs.
VICTIM_ADDRESS = "127.0.0.2"


def create(server: BackgroundServer, engine: str) -> dict:
    """A two-player game of ``engine`` (seeded, so every run asks for the same position)."""
    body = {"engine": engine, "players": [{"name": "A"}, {"name": "B"}], "seed": 3}
    response = requests.post(server.api("/games"), json=body, timeout=10)
    response.raise_for_status()
    return response.json()


def victim_reads(server: BackgroundServer, game_id: str, seconds: float) -> list[float]:
    """Latencies of reading a game every 20 ms from :data:`VICTIM_ADDRESS` for ``seconds``."""
    host, port = server.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(
        host, int(port), timeout=10, source_address=(VICTIM_ADDRESS, 0)
    )
    latencies, deadline = [], time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        connection.request("GET", f"/api/v1/games/{game_id}")
        answer = connection.getresponse()
        answer.read()
        if answer.status != 200:
            raise RuntimeError(f"the other user got {answer.status}")
        latencies.append(time.perf_counter() - started)
        time.sleep(0.02)
    return latencies


def hog(server: BackgroundServer, game: dict, deadline: float, statuses: list[int]) -> None:
    """Ask for the legal moves of the seat to move until ``deadline``; record each status."""
    seat = game["to_move"][0]
    headers = {"Authorization": f"Bearer {game['players'][seat]['token']}"}
    session = requests.Session()
    url = server.api(f"/games/{game['id']}/legal-moves")
    while time.perf_counter() < deadline:
        statuses.append(session.get(url, headers=headers, timeout=30).status_code)


def describe(label: str, latencies: list[float]) -> str:
    """Median, p99 and max of the other user's reads."""
    p50, p99 = (percentile(latencies, q) * 1000 for q in (0.5, 0.99))
    return (
        f"{label}: {len(latencies)} reads, median {p50:.1f} ms, p99 {p99:.1f} ms, "
        f"max {max(latencies) * 1000:.1f} ms"
    )


def main() -> None:
    """Measure the other user alone, then beside the hogs."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--hogs", type=int, default=6)
    parser.add_argument("--unlimited", action="store_true")
    add_db_option(parser)
    args = parser.parse_args()
    environment = {"TURNPOST_RATELIMIT_CREATE": "1000/hour"}
    if args.unlimited:
        environment |= {"TURNPOST_RATELIMIT_TOKEN": "1000000/minute"}
        environment |= {"TURNPOST_RATELIMIT_IP": "1000000/minute"}
    with tempfile.TemporaryDirectory() as folder:
        server = start_background(
            bench_database(args.db, folder, "hogs.db"), environment=environment
        )
        try:
            hogged, other = create(server, "king-of-siam"), create(server, "siam")
            alone = victim_reads(server, other["id"], args.seconds / 2)
            statuses: list[int] = []
            deadline = time.perf_counter() + args.seconds
            hogs = threading.Thread(
                target=run_threads,
                args=(lambda _: hog(server, hogged, deadline, statuses), args.hogs),
            )
            hogs.start()
            beside = victim_reads(server, other["id"], args.seconds)
            hogs.join()
        finally:
            server.stop()
    limits = "per-token and per-address limits raised" if args.unlimited else "default limits"
    print(f"{args.hogs} clients on one King of Siam token, {args.seconds:.0f} s, {limits}")
    print(describe("other user alone", alone))
    print(describe("other user beside them", beside))
    served, refused = statuses.count(200), statuses.count(429)
    print(f"legal-moves answers to the token: {served} served, {refused} refused (429)")


if __name__ == "__main__":
    main()
