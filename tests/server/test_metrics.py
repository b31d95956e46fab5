"""``/metrics`` of a real gunicorn server with two workers, read with prometheus_client's own
parser after a short game, and the structured log lines of requests and mails (text and
JSON), which never hold a token, a mail address or a query string."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from aiosmtpd.controller import Controller
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families

from server.cli import main
from tests.mail.conftest import Sink
from tests.support import BackgroundServer, free_port, start_background

TOKEN = "metrics-token-of-the-club"
#: Requests one seat token may make per minute (per worker): a few, so that a flood is refused.
PER_TOKEN = 5
EMAIL = "cy.player@example.org"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """Two workers counting into one metrics folder, logging JSON lines."""
    folder = tmp_path_factory.mktemp("metrics")
    started = start_background(
        str(folder / "turnpost.db"),
        workers=2,
        environment={
            "TURNPOST_METRICS_TOKEN": TOKEN,
            "TURNPOST_LOG_FORMAT": "json",
            "TURNPOST_RATELIMIT_TOKEN": f"{PER_TOKEN}/minute",
        },
    )
    yield started
    started.stop()


def scrape(server: BackgroundServer) -> dict[tuple[str, tuple], float]:
    """Every sample of ``/metrics``: ``(name, sorted labels) -> value``."""
    answer = requests.get(
        f"{server.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["Content-Type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def value(samples: dict, name: str, **labels: str) -> float:
    """The sample ``name`` with exactly ``labels`` (0 if absent)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def play_a_short_game(server: BackgroundServer) -> dict:
    """A Siam game of four moves, a seat with an address (a mail waits: no worker runs)."""
    body = {
        "engine": "siam",
        "players": [{"name": "Ann"}, {"name": "Bob", "email": EMAIL, "invite": True}],
    }
    game = requests.post(server.api("/games"), json=body, timeout=10).json()
    for seat, notation in enumerate(["enter a1 N", "enter e5 S", "enter b1 N", "enter d5 S"]):
        answer = requests.post(
            server.api(f"/games/{game['id']}/moves"),
            json={"notation": notation},
            headers={"Authorization": f"Bearer {game['players'][seat % 2]['token']}"},
            timeout=10,
        )
        assert answer.status_code == 201, answer.text
    return game


def test_metrics_need_their_token(server: BackgroundServer) -> None:
    assert requests.get(f"{server.url}/metrics", timeout=10).status_code == 401
    wrong = {"Authorization": "Bearer not-the-token"}
    answer = requests.get(f"{server.url}/metrics", headers=wrong, timeout=10)
    assert answer.status_code == 401 and answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert "turnpost_" not in answer.text


def test_metrics_add_up_every_worker_after_a_short_game(server: BackgroundServer) -> None:
    before = scrape(server)
    game = play_a_short_game(server)
    engines = 30  # enough for both workers to answer some
    for _ in range(engines):
        assert requests.get(server.api("/engines"), timeout=10).status_code == 200
    token = {"Authorization": f"Bearer {game['players'][0]['token']}"}
    statuses = [
        requests.get(server.api(f"/games/{game['id']}"), headers=token, timeout=10).status_code
        for _ in range(4 * PER_TOKEN)
    ]
    assert 429 in statuses
    with requests.get(server.api(f"/games/{game['id']}/events"), stream=True, timeout=10):
        time.sleep(0.5)
        during = scrape(server)
    after = scrape(server)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("turnpost_moves_total", engine="siam") == 4
    assert grew("turnpost_move_seconds_count") == 4
    assert grew("turnpost_move_seconds_sum") > 0
    moves_route = "/api/v1/games/<game_id>/moves"
    assert grew("turnpost_requests_total", method="POST", route=moves_route, status="201") == 4
    assert grew("turnpost_requests_total", method="GET", route="/api/v1/engines", status="200") == (
        engines
    )
    refused = statuses.count(429)
    game_route = "/api/v1/games/<game_id>"
    assert grew("turnpost_requests_total", method="GET", route=game_route, status="429") == refused
    assert grew("turnpost_rate_limit_refusals_total", route=game_route) == refused
    assert value(during, "turnpost_event_streams") == value(before, "turnpost_event_streams") + 1
    assert value(after, "turnpost_outbox_unsent") >= 1
    assert value(after, "turnpost_outbox_oldest_unsent_seconds") >= 0
    assert value(after, "turnpost_webhook_deliveries_failing") == 0


def request_lines(server: BackgroundServer) -> list[dict]:
    """The server's JSON request lines so far."""
    lines = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == "request"]


def test_one_json_line_per_request_without_a_secret(server: BackgroundServer) -> None:
    game = play_a_short_game(server)
    seat_token = game["players"][1]["token"]
    admin = game["admin_token"]
    secret_query = "sekrit-in-the-query"
    requests.get(f"{server.url}/games/{game['id']}/seat/{seat_token}", timeout=10)
    requests.get(server.api(f"/games/{game['id']}?key={secret_query}"), timeout=10)
    requests.get(
        server.api(f"/games/{game['id']}"),
        headers={"Authorization": f"Bearer {admin}"},
        timeout=10,
    )
    time.sleep(0.5)
    log = server.log()
    for secret in [seat_token, admin, secret_query, EMAIL, TOKEN, game["players"][0]["token"]]:
        assert secret not in log
    lines = request_lines(server)
    routes = {(line["method"], line["route"], line["status"]) for line in lines}
    assert ("GET", "/games/<game_id>/seat/<token>", 303) in routes or (
        "GET",
        "/games/<game_id>/seat/<token>",
        200,
    ) in routes
    assert ("POST", "/api/v1/games/<game_id>/moves", 201) in routes
    line = lines[-1]
    assert set(line) == {"time", "level", "event", "method", "route", "status", "ms", "client"}
    assert line["client"] == "127.0.0.1" and line["ms"] >= 0


def test_one_line_per_mail_sent_without_an_address(db_path: str) -> None:
    sink = Sink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    env = {
        "TURNPOST_DB": db_path,
        "TURNPOST_SMTP_URL": f"smtp://127.0.0.1:{port}",
        "TURNPOST_BASE_URL": "https://turnpost.example.org",
        "TURNPOST_LOG_FORMAT": "json",
    }
    try:
        command = ["new-game", "siam", "--player", "Ann", "--player", "Bob", "--email", EMAIL]
        created = CliRunner().invoke(main, [*command, "--invite"], env=env)
        assert created.exit_code == 0, created.output
        sent = CliRunner().invoke(main, ["send-mail"], env=env)
    finally:
        controller.stop()
    assert sink.messages, sent.output
    lines = [json.loads(line) for line in sent.stderr.splitlines() if line.startswith("{")]
    mails = [line for line in lines if line["event"] == "mail"]
    assert mails and all(line["status"] == "sent" for line in mails)
    assert set(mails[0]) == {"time", "level", "event", "mail", "kind", "game", "seat", "status"}
    assert EMAIL not in sent.stderr and not re.search(r"\S+@\S+", sent.stderr)


def test_text_lines_by_default(tmp_path: Path) -> None:
    server = start_background(str(tmp_path / "turnpost.db"), workers=1)
    try:
        requests.get(server.api("/engines?x=1"), timeout=10)
        assert requests.get(f"{server.url}/metrics", timeout=10).status_code == 404  # off
        time.sleep(0.5)
    finally:
        server.stop()
    assert re.search(
        r"^turnpost\.request method=GET route=/api/v1/engines status=200 ms=[\d.]+"
        r" client=127\.0\.0\.1$",
        server.log(),
        flags=re.M,
    )
    assert "x=1" not in server.log()
