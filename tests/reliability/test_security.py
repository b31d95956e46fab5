"""Security: seat isolation, the admin token's reach, secrets at rest and in logs, rate
limits, request size limits and the headers of HTML pages.

Seat isolation and leaks run against a real gunicorn process (whose stderr is
read after it stops); rate limits with an app given low limits in its config,
and once through gunicorn with the limits set in the environment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from engines import ENGINES
from server import create_app
from server.gunicorn import BackgroundServer, start_background
from server.store import Store
from tests.server.test_api import WINNING_LINE, auth, create_siam, error_code, move_of

TILE_ID = re.compile(r"\bt\d+\b")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """A gunicorn server with the default rate limits."""
    server = start_background(str(tmp_path_factory.mktemp("security") / "turnpost.db"))
    yield server
    server.stop()


def create(server: BackgroundServer, engine_id: str, count: int, **extra: Any) -> dict[str, Any]:
    """Create a game of ``engine_id`` with ``count`` players; the answer has the tokens."""
    body = {"engine": engine_id, "players": [{"name": f"P{i}"} for i in range(count)], **extra}
    response = requests.post(server.api("/games"), json=body, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()


def read(server: BackgroundServer, path: str, token: str | None = None) -> requests.Response:
    """GET an API path, with a bearer token if given."""
    return requests.get(server.api(path), headers=auth(token) if token else {}, timeout=10)


# -- seat isolation -------------------------------------------------------------------
def test_a_seat_token_cannot_move_for_the_other_seat(server: BackgroundServer) -> None:
    game = create_siam(server)
    for body in ({"notation": "enter a1 N"}, {"notation": "enter a1 N", "expected_seq": 0}):
        response = requests.post(
            server.api(f"/games/{game['id']}/moves"),
            json=body,
            headers=auth(game["players"][1]["token"]),
            timeout=10,
        )
        assert (response.status_code, error_code(response)) == (409, "not_your_turn")
    assert read(server, f"/games/{game['id']}/moves").json() == []


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_tokens_of_one_game_are_refused_by_another(
    server: BackgroundServer, engine_id: str
) -> None:
    engine = ENGINES[engine_id]
    first = create(server, engine_id, engine.min_players)
    other = create(server, engine_id, engine.min_players)
    for token in [first["admin_token"], *(p["token"] for p in first["players"])]:
        for path in ("", "/legal-moves", "?at=0"):
            response = read(server, f"/games/{other['id']}{path}", token)
            assert (response.status_code, error_code(response)) == (401, "unauthorized"), path
        moved = requests.post(
            server.api(f"/games/{other['id']}/moves"),
            json={"move": {"action": "pass"}},
            headers=auth(token),
            timeout=10,
        )
        assert (moved.status_code, error_code(moved)) == (401, "unauthorized")


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_the_admin_token_cannot_read_hands_or_move(
    server: BackgroundServer, engine_id: str
) -> None:
    engine = ENGINES[engine_id]
    game = create(server, engine_id, engine.min_players)
    admin = game["admin_token"]
    for path in ("", "/legal-moves"):
        response = read(server, f"/games/{game['id']}{path}", admin)
        assert (response.status_code, error_code(response)) == (401, "unauthorized")
    seat = game["to_move"][0]
    legal = read(server, f"/games/{game['id']}/legal-moves", game["players"][seat]["token"])
    moved = requests.post(
        server.api(f"/games/{game['id']}/moves"),
        json={"move": move_of(legal.json()["moves"][0])},
        headers=auth(admin),
        timeout=10,
    )
    assert (moved.status_code, error_code(moved)) == (401, "unauthorized")
    assert read(server, f"/games/{game['id']}").json()["seq"] == 0
    assert "hand" not in read(server, f"/games/{game['id']}").json()["state"]


def test_a_seat_never_sees_another_seats_hand(server: BackgroundServer) -> None:
    """Bangkok Klongs hands are distinct tiles: seat 0's answers never name seat 1's."""
    game = create(server, "bangkok-klongs", 2, seed=11)
    tokens = [p["token"] for p in game["players"]]
    hands = [read(server, f"/games/{game['id']}", t).json()["state"]["hand"] for t in tokens]
    assert hands[0] and hands[1] and not set(hands[0]) & set(hands[1])
    seen_by_0 = "".join(
        read(server, f"/games/{game['id']}{path}", tokens[0]).text
        for path in ("", "?at=0", "/legal-moves", "/moves")
    )
    assert set(TILE_ID.findall(seen_by_0)) & set(hands[1]) == set()
    public = read(server, f"/games/{game['id']}").json()["state"]
    assert "hand" not in public and isinstance(public["draw_pile"], int)


# -- secrets at rest, in answers and in logs -------------------------------------------
def test_tokens_appear_nowhere_after_creation(tmp_path) -> None:
    """Play, fail, browse and stream with every token; then search answers, database and log."""
    db_path = str(tmp_path / "leak.db")
    live = start_background(db_path)
    answers: list[str] = []
    try:
        players = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob"}]
        game = create(live, "siam", 2, players=players)
        other = create_siam(live)
        tokens = [game["admin_token"], *(p["token"] for p in game["players"])]
        answers += exercise(live, game, other)
    finally:
        live.stop()
    log = live.log()
    store = Store.open(db_path)
    try:
        dump = "\n".join(store.db.conn.iterdump())
    finally:
        store.close()
    for token in tokens:
        assert all(token not in answer for answer in answers)
        assert token not in dump
        assert token not in log


def exercise(live: BackgroundServer, game: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """Use a game's tokens every way a client may; every answer's headers and body as text.

    The seat link's ``Set-Cookie`` is left out: handing the token to the browser is its job.
    """
    gid, admin = game["id"], game["admin_token"]
    tokens = [p["token"] for p in game["players"]]
    session, browser, answers = requests.Session(), requests.Session(), []

    def send(client: requests.Session, method: str, url: str, **kwargs: Any) -> None:
        response = client.request(method, url, timeout=10, **kwargs)
        headers = "\n".join(f"{k}: {v}" for k, v in response.headers.items() if k != "Set-Cookie")
        answers.append(f"{response.status_code}\n{headers}\n{response.text}")

    for seq, notation in enumerate(WINNING_LINE[:4]):
        headers = {**auth(tokens[seq % 2]), "Idempotency-Key": f"k{seq}"}
        for _ in range(2):  # the repeat replays the recorded answer
            body = {"notation": notation}
            send(session, "POST", live.api(f"/games/{gid}/moves"), json=body, headers=headers)
    for token in [*tokens, admin]:
        for path in ("", "/legal-moves", "?at=2", "/moves"):
            send(session, "GET", live.api(f"/games/{gid}{path}"), headers=auth(token))
        send(session, "GET", live.api(f"/games/{other['id']}"), headers=auth(token))
        send(session, "POST", live.api(f"/games/{gid}/moves"), data="{no", headers=auth(token))
        send(
            session,
            "POST",
            live.api(f"/games/{gid}/moves"),
            json={"notation": "fly"},
            headers=auth(token),
        )
        send(session, "GET", live.api(f"/games/{gid}"), headers={"Authorization": token})
    send(session, "POST", live.api(f"/games/{gid}/abort"), headers=auth(tokens[0]))
    send(browser, "GET", f"{live.url}/games/{gid}/seat/{tokens[0]}")
    send(browser, "GET", f"{live.url}/games/{gid}?at=1")
    send(browser, "GET", f"{live.url}/")
    send(session, "GET", f"{live.url}/games/{other['id']}/seat/{tokens[1]}")
    send(session, "POST", live.api(f"/games/{gid}/abort"), headers=auth(admin))
    send(session, "GET", live.api(f"/games/{gid}/events"))
    assert any(tokens[0] in cookie.value for cookie in browser.cookies), "the seat link failed"
    return answers


def test_the_database_does_not_hold_the_signing_secret(tmp_path) -> None:
    """Mail reply keys, session cookies and CSRF tokens all derive from ``SECRET_KEY``.

    If the secret sits in the database, a copy of the database lets anyone derive
    every seat's reply address and play by mail for it, although seat tokens are
    stored hashed.
    """
    db_path = str(tmp_path / "secret.db")
    app = create_app({"TURNPOST_DB": db_path})
    store = Store.open(db_path)
    try:
        dump = "\n".join(store.db.conn.iterdump())
    finally:
        store.close()
    assert app.config["SECRET_KEY"] not in dump


# -- rate limits ------------------------------------------------------------------------
@pytest.fixture
def limited(db_path: str):
    """An app allowing 3 requests a minute per seat token and 5 per address."""
    app = create_app(
        {
            "TURNPOST_DB": db_path,
            "TESTING": True,
            "TURNPOST_RATELIMIT_TOKEN": "3/minute",
            "TURNPOST_RATELIMIT_IP": "5/minute",
        }
    )
    return app.test_client()


def assert_rate_limited(response: Any) -> None:
    """A ``429 rate_limited`` answer in the contract's shape, with ``Retry-After``."""
    assert response.status_code == 429
    body = response.get_json()
    assert set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == "rate_limited" and body["error"]["message"]
    assert int(response.headers["Retry-After"]) > 0


def test_rate_limit_per_address(limited) -> None:
    for _ in range(5):
        assert limited.get("/api/v1/engines").status_code == 200
    assert_rate_limited(limited.get("/api/v1/engines"))
    assert_rate_limited(limited.get("/api/v1/games/nope"))
    assert limited.get("/", environ_base={"REMOTE_ADDR": "10.0.0.2"}).status_code == 200
    assert limited.get("/").status_code == 429
    assert limited.get("/healthz").status_code == 200


def test_rate_limit_per_token(limited) -> None:
    game = limited.post(
        "/api/v1/games", json={"engine": "siam", "players": [{"name": "A"}, {"name": "B"}]}
    ).get_json()
    path = f"/api/v1/games/{game['id']}"
    first, second = (auth(p["token"]) for p in game["players"])
    for _ in range(3):
        assert limited.get(path, headers=first).status_code == 200
    assert_rate_limited(limited.get(path, headers=first))
    assert_rate_limited(
        limited.post(f"{path}/moves", json={"notation": "enter a1 N"}, headers=first)
    )
    assert limited.get(path, headers=second).status_code == 200
    assert read_log_length(limited, path) == 0


def read_log_length(client, path: str) -> int:
    """The number of logged moves of the game at ``path`` (an anonymous request)."""
    return len(client.get(f"{path}/moves").get_json())


def test_made_up_tokens_count_against_the_address(limited) -> None:
    for attempt in range(5):
        response = limited.get("/api/v1/engines", headers=auth(f"guess-{attempt}"))
        assert response.status_code == 200
    assert_rate_limited(limited.get("/api/v1/engines", headers=auth("guess-5")))


def test_rate_limits_from_the_environment_under_gunicorn(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each of the 2 workers counts on its own (in-memory storage): at most 2 x 5 pass."""
    monkeypatch.setenv("TURNPOST_RATELIMIT_IP", "5/minute")
    live = start_background(str(tmp_path / "limits.db"))
    try:
        session = requests.Session()
        answers = [session.get(live.api("/games/nope"), timeout=10) for _ in range(30)]
    finally:
        live.stop()
    statuses = [a.status_code for a in answers]
    assert set(statuses) == {404, 429}
    assert statuses.count(404) <= 10
    assert all(error_code(a) == "rate_limited" for a in answers if a.status_code == 429)


# -- request size ---------------------------------------------------------------------------
def test_oversized_bodies_are_refused(server: BackgroundServer) -> None:
    game = create_siam(server)
    big = json.dumps({"notation": "x" * 70_000})
    headers = auth(game["players"][0]["token"])
    for response in (
        requests.post(server.api("/games"), data=big, timeout=10),
        requests.post(
            server.api(f"/games/{game['id']}/moves"), data=big, headers=headers, timeout=10
        ),
    ):
        assert (response.status_code, error_code(response)) == (413, "payload_too_large")
    form = requests.post(
        f"{server.url}/games/{game['id']}/moves", data={"notation": "x" * 70_000}, timeout=10
    )
    assert form.status_code == 413
    assert read(server, f"/games/{game['id']}/moves").json() == []


def test_chunked_bodies_over_the_limit_are_refused(server: BackgroundServer) -> None:
    """Without Content-Length, Werkzeug hands the app the first 64 KiB and drops the rest.

    So a chunked body over the limit must not be judged by its head: this one is a
    valid game creation followed by 70 KB of padding and junk, and must get 413.
    """
    body = json.dumps({"engine": "siam", "players": [{"name": "A"}, {"name": "B"}]}).encode()
    body += b" " * 70_000 + b"junk after the limit"
    chunks = (body[i : i + 4096] for i in range(0, len(body), 4096))
    response = requests.post(server.api("/games"), data=chunks, timeout=10)
    assert response.status_code == 413, f"{response.status_code}: {response.text[:120]}"
    assert error_code(response) == "payload_too_large"


# -- headers of HTML pages ----------------------------------------------------------------
def test_html_pages_carry_security_headers(server: BackgroundServer) -> None:
    game = create_siam(server)
    for path in ("/", f"/games/{game['id']}", "/games/nope", "/no/such/page"):
        response = requests.get(f"{server.url}{path}", timeout=10)
        assert response.headers["Content-Type"].startswith("text/html"), path
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Referrer-Policy"] == "no-referrer"
        policy = response.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy
        assert "script-src" not in policy, "Turnpost's pages run no script"
        assert "style-src 'self' 'unsafe-inline'" in policy
    docs = requests.get(f"{server.url}/api/docs", timeout=10)
    assert "script-src https://cdn.jsdelivr.net;" in docs.headers["Content-Security-Policy"]
    api = requests.get(server.api("/engines"), timeout=10)
    assert api.headers["X-Content-Type-Options"] == "nosniff"
    assert "Content-Security-Policy" not in api.headers
