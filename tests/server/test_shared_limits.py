"""Limits across processes: a real Redis and a real server of 2 gunicorn workers.

With ``TURNPOST_RATELIMIT_STORAGE=redis://...`` the rate limits (per address,
per token, creation, the cost of large answers) and the event stream caps
are counted in Redis, so they hold whatever worker answers; without it each
worker counts alone and a client gets up to twice a limit. Requests come
from a made-up address (``X-Forwarded-For`` through ``TURNPOST_PROXY_HOPS=1``)
over kept-alive connections that the test knows each worker holds (from
``/proc``), the workers taking turns: without Redis, every one of these
tests fails.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from http.client import HTTPConnection, HTTPResponse
from pathlib import Path

import pytest
import requests

from server import create_app
from server.errors import TurnpostError
from server.http.stream_caps import HEARTBEAT_SECONDS, STALE_SECONDS, STREAMS_KEY, open_stream_caps
from tests.server.test_api import auth, create_siam
from tests.servers import RedisServer, wait_for_redis
from tests.support import BackgroundServer, start_background

#: The limit every test sets, per minute (or per hour for creations).
LIMIT = 6
#: The made-up address the requests come from.
CLIENT = "203.0.113.7"
#: The game the requests create.
GAME = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}


def from_address(address: str = CLIENT) -> dict[str, str]:
    """The header that makes a request come from ``address`` behind the one proxy."""
    return {"X-Forwarded-For": address}


@pytest.fixture
def start_shared(
    tmp_path: Path, redis_server: RedisServer
) -> Iterator[Callable[..., BackgroundServer]]:
    """Start a 2-worker server counting in ``redis_server``, with more settings; stop it after."""
    servers: list[BackgroundServer] = []

    def start(**settings: str) -> BackgroundServer:
        environment = {
            "TURNPOST_RATELIMIT_STORAGE": redis_server.url,
            "TURNPOST_PROXY_HOPS": "1",
            **settings,
        }
        server = start_background(str(tmp_path / f"shared{len(servers)}.db"), 2, environment)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def worker_pids(server: BackgroundServer) -> list[int]:
    """The gunicorn workers of a server (the children of its master process)."""
    pid = server.process.pid
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def accepted_by(server: BackgroundServer, connection: HTTPConnection) -> int:
    """The worker that holds the server's end of ``connection`` (which it answered once)."""
    client_port = connection.sock.getsockname()[1]
    server_port = int(server.url.rsplit(":", 1)[1])
    rows = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
    inode = next(
        row[9]
        for row in rows
        if int(row[1].split(":")[1], 16) == server_port
        and int(row[2].split(":")[1], 16) == client_port
    )
    for pid in worker_pids(server):
        if any(os.readlink(fd) == f"socket:[{inode}]" for fd in Path(f"/proc/{pid}/fd").iterdir()):
            return pid
    raise AssertionError(f"no worker holds the connection from port {client_port}")


def connections_to_each_worker(server: BackgroundServer, each: int) -> list[HTTPConnection]:
    """``each`` kept-alive connections to each of the 2 workers, the workers taking turns."""
    by_worker: dict[int, list[HTTPConnection]] = {pid: [] for pid in worker_pids(server)}
    host, port = server.url.removeprefix("http://").split(":")
    for _ in range(200):
        connection = HTTPConnection(host, int(port), timeout=10)
        connection.request("GET", "/healthz")  # never limited; once answered, it is accepted
        connection.getresponse().read()
        pinned = by_worker[accepted_by(server, connection)]
        if len(pinned) < each:
            pinned.append(connection)
        else:
            connection.close()
        if all(len(pinned) == each for pinned in by_worker.values()):
            return [
                connection for turn in zip(*by_worker.values(), strict=True) for connection in turn
            ]
    raise AssertionError(f"200 connections never reached both workers: {by_worker}")


def send(
    connection: HTTPConnection, method: str, path: str, address: str = CLIENT, **headers: str
) -> HTTPResponse:
    """Send a request from ``address`` (a JSON body for a POST) on ``connection``."""
    body = json.dumps(GAME) if method == "POST" else None
    headers |= {"Content-Type": "application/json", **from_address(address)}
    connection.request(method, f"/api/v1{path}", body=body, headers=headers)
    return connection.getresponse()


def statuses(
    connections: list[HTTPConnection],
    method: str,
    path: str,
    count: int = LIMIT + 1,
    **headers: str,
) -> list[int]:
    """The statuses of ``count`` requests from :data:`CLIENT`, the workers taking turns."""
    answers = []
    for turn in range(count):
        response = send(connections[turn % len(connections)], method, path, **headers)
        response.read()
        answers.append(response.status)
    return answers


def test_a_limit_per_address_holds_across_workers(start_shared) -> None:
    server = start_shared(TURNPOST_RATELIMIT_IP=f"{LIMIT}/minute")
    connections = connections_to_each_worker(server, 1)
    assert statuses(connections, "GET", "/engines") == [200] * LIMIT + [429]
    other = send(connections[1], "GET", "/engines", address="198.51.100.1")
    assert other.status == 200, "another address keeps its own count"


def test_a_limit_per_token_holds_across_workers(start_shared) -> None:
    server = start_shared(TURNPOST_RATELIMIT_TOKEN=f"{LIMIT}/minute")
    game = create_siam(server)
    token = auth(game["players"][0]["token"])
    connections = connections_to_each_worker(server, 1)
    answers = statuses(connections, "GET", f"/games/{game['id']}", **token)
    assert answers == [200] * LIMIT + [429]


def test_the_creation_limit_holds_across_workers(start_shared) -> None:
    server = start_shared(TURNPOST_RATELIMIT_CREATE=f"{LIMIT}/hour")
    connections = connections_to_each_worker(server, 1)
    assert statuses(connections, "POST", "/games") == [201] * LIMIT + [429]


def test_the_cost_of_a_large_answer_is_charged_across_workers(start_shared) -> None:
    """With one byte costing one request, one answer of the engines spends the whole limit."""
    server = start_shared(TURNPOST_RATELIMIT_IP="100/minute", TURNPOST_COST_BYTES="1")
    first_worker, second_worker = connections_to_each_worker(server, 1)
    first = send(first_worker, "GET", "/engines")
    assert first.status == 200 and len(first.read()) > 100
    then = send(second_worker, "GET", "/engines")
    assert then.status == 429, "the other worker knows the budget is spent"


def open_streams(connections: list[HTTPConnection], addresses: list[str]) -> list[int]:
    """Open an event stream on each connection, from each address: their statuses (the
    streams admitted stay open until their connections close)."""
    game_id = json.loads(send(connections[0], "POST", "/games", address="192.0.2.1").read())["id"]
    answers = []
    for connection, address in zip(connections[1:], addresses, strict=True):
        response = send(connection, "GET", f"/games/{game_id}/events", address=address)
        answers.append(response.status)
        if response.status != 200:
            response.read()
    return answers


def test_the_stream_cap_per_client_holds_across_workers(start_shared) -> None:
    server = start_shared(TURNPOST_MAX_STREAMS_PER_CLIENT="2")
    connections = connections_to_each_worker(server, 4)
    assert open_streams(connections[:7], [CLIENT] * 6) == [200, 200] + [429] * 4
    assert open_streams([connections[0], connections[7]], ["198.51.100.1"]) == [200]


def test_the_stream_cap_in_all_holds_across_workers(start_shared) -> None:
    server = start_shared(TURNPOST_MAX_STREAMS="3")
    connections = connections_to_each_worker(server, 4)
    addresses = [f"198.51.100.{i}" for i in range(1, 7)]
    assert open_streams(connections[:7], addresses) == [200] * 3 + [429] * 3


def test_a_closed_stream_frees_its_place_at_once(redis_server: RedisServer) -> None:
    caps = open_stream_caps(redis_server.url, max_streams=10, max_per_client=2)
    first, second, third = object(), object(), object()
    caps.admit(first, CLIENT)
    caps.admit(second, CLIENT)
    with pytest.raises(TurnpostError, match="already follows 2 event streams"):
        caps.admit(third, CLIENT)
    caps.release(first)
    caps.release(first)
    caps.admit(third, CLIENT)
    with redis_server.client() as client:
        assert client.zcard(STREAMS_KEY) == client.zcard(f"{STREAMS_KEY}:{CLIENT}") == 2


def wait_until_serving(server: BackgroundServer, old_workers: list[int]) -> None:
    """Wait until gunicorn replaced every killed worker and the server answers again."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        fresh = set(worker_pids(server)) - set(old_workers)
        if len(fresh) == 2 and requests.get(f"{server.url}/healthz", timeout=5).ok:
            return
        time.sleep(0.2)
    raise AssertionError(f"the workers were not replaced: {server.log()[-2000:]}")


def test_the_streams_of_a_killed_worker_stop_counting_in_bounded_time(start_shared) -> None:
    server = start_shared(TURNPOST_MAX_STREAMS_PER_CLIENT="2")
    connections = connections_to_each_worker(server, 2)
    assert open_streams(connections[:3], [CLIENT] * 2) == [200, 200], "one on each worker"
    workers = worker_pids(server)
    for pid in workers:  # no stream is closed: the workers die with them
        os.kill(pid, signal.SIGKILL)
    killed_at = time.monotonic()
    wait_until_serving(server, workers)
    refused = open_streams(connections_to_each_worker(server, 1), [CLIENT])
    assert refused == [429], "the dead workers' streams still count for a while"
    deadline = killed_at + STALE_SECONDS + HEARTBEAT_SECONDS + 5
    while open_streams(connections_to_each_worker(server, 1), [CLIENT]) == [429]:
        assert time.monotonic() < deadline, "the dead workers' streams never stopped counting"
        time.sleep(0.5)


def test_the_server_serves_on_when_redis_goes_away(start_shared, redis_server) -> None:
    """Without Redis each worker counts in memory meanwhile: no request fails for it."""
    server = start_shared(TURNPOST_RATELIMIT_IP=f"{LIMIT}/minute")
    redis_server.process.kill()
    redis_server.process.wait()
    connections = connections_to_each_worker(server, 2)
    answers = statuses(connections[:2], "GET", "/engines", count=2 * LIMIT + 2)
    assert sorted(answers) == [200] * 2 * LIMIT + [429] * 2, "each worker allows the limit"
    assert open_streams(connections[1:3], ["198.51.100.9"]) == [200]
    assert "Traceback" not in server.log()


def test_the_limits_count_in_redis_again_once_it_is_back(
    tmp_path: Path, redis_server: RedisServer
) -> None:
    """While Redis is away the counts are in memory; once it answers again (tried 1 s after
    the failure), they are in Redis again, and the limit holds there."""
    app = create_app(
        {
            "TURNPOST_DB": str(tmp_path / "limits.db"),
            "TURNPOST_RATELIMIT_STORAGE": redis_server.url,
            "TURNPOST_RATELIMIT_IP": f"{LIMIT}/minute",
        }
    )
    client = app.test_client()
    redis_server.process.kill()
    redis_server.process.wait()
    assert client.get("/api/v1/engines").status_code == 200, "counted in memory meanwhile"
    port = redis_server.url.rsplit(":", 1)[1].split("/")[0]
    options = ["--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    with (tmp_path / "redis.log").open("wb") as log:
        back = subprocess.Popen(
            ["redis-server", *options, "--dir", str(tmp_path)], stdout=log, stderr=log
        )
    try:
        wait_for_redis(RedisServer(redis_server.url, back), tmp_path / "redis.log")
        time.sleep(1.2)
        answers = [client.get("/api/v1/engines").status_code for _ in range(LIMIT + 1)]
        with redis_server.client() as redis_client:
            counted = redis_client.keys("*LIMITER/ip:*")
    finally:
        back.terminate()
        back.wait(timeout=10)
    assert counted, "the counts never went back to Redis"
    assert answers == [200] * LIMIT + [429]
