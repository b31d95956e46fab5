"""Security: seat isolation, the admin token's reach, secrets at rest and in logs, rate
limits, request size limits and the headers of HTML pages.

Seat isolation and leaks run against a real gunicorn process (whose stderr is
read after it stops); rate limits with an app given low limits in its config,
and once through gunicorn with the limits set in the environment.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from engines import ENGINES
from server import create_app
from server.http.pages import HELD_SEPARATOR
from server.store import open_store
from tests.conftest import new_database
from tests.server.test_api import WINNING_LINE, auth, create_siam, error_code, move_of
from tests.server.test_web import OPENED
from tests.support import BackgroundServer, start_background

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

TILE_ID = re.compile(r"\bt\d+\b")


@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackgroundServer]:
    """A gunicorn server on the module's ``backend`` with the default rate limits."""
    server = start_background(new_database(request, backend, tmp_path_factory.mktemp("security")))
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
    store = open_store(db_path)
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
    send(browser, "GET", f"{live.url}/games/{gid}/seat/{tokens[0]}", headers=OPENED)
    send(browser, "GET", f"{live.url}/games/{gid}?at=1")
    send(browser, "GET", f"{live.url}/")
    send(session, "GET", f"{live.url}/games/{other['id']}/seat/{tokens[1]}")
    send(session, "POST", live.api(f"/games/{gid}/abort"), headers=auth(admin))
    send(session, "GET", live.api(f"/games/{gid}/events"))
    assert browser.cookies.get(f"turnpost_seat_{gid}"), "the seat link failed"
    assert all(tokens[0] not in cookie.value for cookie in browser.cookies), "the handed token"
    return answers


def test_the_database_holds_no_signing_secret_when_the_environment_gives_one(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mail reply keys, session cookies and CSRF tokens all derive from ``SECRET_KEY``.

    If the secret sits in the database, a copy of the database lets anyone derive
    every seat's reply address and play by mail for it, although seat tokens are
    stored hashed. The two-command start keeps a secret it made in the database
    (a 0600 file; ``turnpost check`` says so when the file is readable by others);
    a server given ``TURNPOST_SECRET_KEY`` keeps none there, and forgets one kept
    before.
    """
    db_path = str(tmp_path / "secret.db")
    made = create_app({"TURNPOST_DB": db_path}).config["SECRET_KEY"]
    assert made in database_text(db_path), "the default start keeps the secret it made"
    assert oct(os.stat(db_path).st_mode & 0o777) == "0o600"
    monkeypatch.setenv("TURNPOST_SECRET_KEY", "from the environment, not the database")
    given = create_app({"TURNPOST_DB": db_path}).config["SECRET_KEY"]
    dump = database_text(db_path)
    assert given == "from the environment, not the database"
    assert given not in dump and made not in dump


def database_text(db_path: str) -> str:
    """Every row of the SQLite database at ``db_path``, as SQL text."""
    store = open_store(db_path)
    try:
        return "\n".join(store.db.conn.iterdump())
    finally:
        store.close()


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


def test_static_files_and_unknown_paths_do_not_use_up_the_address_limit(limited) -> None:
    """A page's styles and scripts, and paths of no route, count against no limit (as the
    liveness check): a visitor's page loads do not spend the budget of its API calls."""
    for _ in range(3):
        assert limited.get("/assets/turnpost.css").status_code == 200
        assert limited.get("/assets/turnpost.js").status_code == 200
        assert limited.get("/no/such/path").status_code == 404
    for _ in range(5):
        assert limited.get("/api/v1/engines").status_code == 200
    assert_rate_limited(limited.get("/api/v1/engines"))


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
    """The number of logged moves of the game at ``path`` (from another address)."""
    return len(client.get(f"{path}/moves", environ_base=ELSEWHERE).get_json())


ELSEWHERE = {"REMOTE_ADDR": "10.0.0.9"}


def test_a_seat_token_does_not_escape_the_address_limit(limited) -> None:
    """Issue 11: any seat token (as Bearer or cookie) used to lift the per-IP limit."""
    games = [
        limited.post(
            "/api/v1/games", json={"engine": "siam", "players": [{"name": "A"}, {"name": "B"}]}
        ).get_json()
        for _ in range(2)
    ]
    seats = [(game["id"], p["token"]) for game in games for p in game["players"]]
    answers = [limited.get(f"/api/v1/games/{gid}", headers=auth(token)) for gid, token in seats]
    assert [a.status_code for a in answers[:3]] == [200, 200, 200]  # 2 creations + 3 reads
    assert_rate_limited(answers[3])
    limited.set_cookie(f"turnpost_seat_{games[0]['id']}", seats[0][1])
    assert limited.get(f"/games/{games[0]['id']}").status_code == 429
    assert limited.get(f"/api/v1/games/{games[1]['id']}", environ_base=ELSEWHERE).status_code == 200


def test_game_creation_has_its_own_limit_per_address(db_path: str) -> None:
    """Issue 11: 400 games from one address in 20 s, each handing out tokens and mail."""
    app = create_app(
        {"TURNPOST_DB": db_path, "TESTING": True, "TURNPOST_RATELIMIT_CREATE": "3/hour"}
    )
    client = app.test_client()
    body = {"engine": "siam", "players": [{"name": "A"}, {"name": "B"}]}
    statuses = [client.post("/api/v1/games", json=body).status_code for _ in range(3)]
    assert statuses == [201, 201, 201]
    assert_rate_limited(client.post("/api/v1/games", json=body))
    form = {"engine": "siam", "name0": "A", "name1": "B", "csrf_token": "unchecked"}
    app.config["WTF_CSRF_ENABLED"] = False
    assert client.post("/games", data=form).status_code == 429, "the lobby form shares the limit"
    assert client.get("/api/v1/engines").status_code == 200, "other requests still pass"
    assert client.post("/api/v1/games", json=body, environ_base=ELSEWHERE).status_code == 201
    assert app.config["TURNPOST_RATELIMIT_CREATE"] == "3/hour"


def test_the_default_creation_limit_is_ten_an_hour(db_path: str, monkeypatch) -> None:
    monkeypatch.delenv("TURNPOST_RATELIMIT_CREATE")
    app = create_app({"TURNPOST_DB": db_path, "TESTING": True})
    assert app.config["TURNPOST_RATELIMIT_CREATE"] == "10/hour"


def test_large_answers_cost_more_than_one_request(db_path: str) -> None:
    """Issue 11: a large answer counts as many requests as it has blocks of bytes.

    Legal-move answers are no longer megabytes, so the block is made small
    here (``TURNPOST_COST_BYTES``): the token may make 600 requests a minute,
    but each King of Siam ``legal-moves`` answer counts as many of them, so
    after a few the token is refused before any work is done, while another
    player's token is served.
    """
    app = create_app(
        {
            "TURNPOST_DB": db_path,
            "TESTING": True,
            "TURNPOST_RATELIMIT_IP": "100000/minute",
            "TURNPOST_COST_BYTES": "64",
        }
    )
    client = app.test_client()
    body = {"engine": "king-of-siam", "players": [{"name": "A"}, {"name": "B"}], "seed": 3}
    game = client.post("/api/v1/games", json=body).get_json()
    seat = game["to_move"][0]
    hog = auth(game["players"][seat]["token"])
    path = f"/api/v1/games/{game['id']}"
    served = []
    for _ in range(600):
        answer = client.get(f"{path}/legal-moves", headers=hog)
        if answer.status_code != 200:
            break
        served.append(len(answer.data))
    assert_rate_limited(answer)
    assert 1 <= len(served) <= 600 * 64 // min(served) + 1
    assert min(served) > 64 * 10, "each answer cost at least ten requests"
    other = auth(game["players"][1 - seat]["token"])
    assert client.get(path, headers=other).status_code == 200
    assert client.get(f"{path}/legal-moves", headers=other).status_code == 200


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
        scripts = re.search(r"script-src ([^;]*);", policy).group(1)
        assert re.fullmatch(r"'nonce-[\w-]+'", scripts), "only the script tags with the nonce run"
        assert "style-src 'self' 'unsafe-inline'" in policy
        assert "http" not in policy, "no foreign origin"
    api = requests.get(server.api("/engines"), timeout=10)
    assert api.headers["X-Content-Type-Options"] == "nosniff"
    assert "Content-Security-Policy" not in api.headers


# -- hostile inputs that gave 500 (issue 11) ---------------------------------------------
DEEP = "[" * 1000 + "]" * 1000


@pytest.mark.parametrize(
    "body",
    [
        DEEP,
        '{"engine": "siam", "players": [{"name": "A"}, {"name": "B"}], "options": {"x": '
        + DEEP
        + "}}",
        '{"engine": "king-of-siam", "players": [{"name": "A"}, {"name": "B"}], "position": '
        + '{"a": ' * 500
        + "1"
        + "}" * 501,
    ],
    ids=["bare", "options", "position"],
)
def test_json_nested_a_thousand_deep_is_a_bad_request(server: BackgroundServer, body: str) -> None:
    """Was ``RecursionError`` in the body parser: a 500."""
    response = requests.post(server.api("/games"), data=body, timeout=10)
    assert (response.status_code, error_code(response)) == (400, "bad_request")
    assert "deeper than" in response.json()["error"]["message"]


def test_a_deep_move_is_a_bad_request_and_appends_nothing(server: BackgroundServer) -> None:
    game = create_siam(server)
    for move in (
        '{"action": ' + DEEP + "}",
        '{"action": "pass", "x": ' + "[" * 40 + "]" * 40 + "}",
    ):
        response = requests.post(
            server.api(f"/games/{game['id']}/moves"),
            data='{"move": ' + move + "}",
            headers=auth(game["players"][0]["token"]),
            timeout=10,
        )
        assert (response.status_code, error_code(response)) == (400, "bad_request")
    assert read(server, f"/games/{game['id']}/moves").json() == []


def test_a_lone_surrogate_in_any_json_text_is_a_bad_request(server: BackgroundServer) -> None:
    """``\\ud800`` is valid JSON syntax but no text: SQLite could not store it (a 500)."""
    game = create_siam(server)
    moved = requests.post(
        server.api(f"/games/{game['id']}/moves"),
        data='{"notation": "enter a1 \\ud800"}',
        headers=auth(game["players"][0]["token"]),
        timeout=10,
    )
    created = requests.post(
        server.api("/games"),
        data='{"engine": "siam", "players": [{"name": "\\ud800"}, {"name": "B"}]}',
        timeout=10,
    )
    for response in (moved, created):
        assert (response.status_code, error_code(response)) == (400, "bad_request")


@pytest.mark.parametrize(
    "value", ["\u00b2".encode("latin-1"), "\u00b2".encode(), b"-1", b"1e3", b"12x", b"%d" % 2**63]
)
def test_a_malformed_last_event_id_is_a_bad_request(server: BackgroundServer, value: bytes) -> None:
    """``Last-Event-ID: ²`` passed ``isdigit()`` and broke ``int()``: a 500."""
    game = create_siam(server)
    with requests.get(
        server.api(f"/games/{game['id']}/events"),
        headers={"Last-Event-ID": value},
        stream=True,
        timeout=10,
    ) as response:
        assert response.status_code == 400
        assert error_code(response) == "bad_request"


def test_405_answers_say_which_methods_are_allowed(server: BackgroundServer) -> None:
    game = create_siam(server)
    for method, path in [
        ("DELETE", server.api("/engines")),
        ("PUT", server.api(f"/games/{game['id']}")),
        ("DELETE", f"{server.url}/games/{game['id']}"),
    ]:
        response = requests.request(method, path, timeout=10)
        assert response.status_code == 405, path
        allowed = {m.strip() for m in response.headers["Allow"].split(",")}
        assert "GET" in allowed and method not in allowed


# -- event streams --------------------------------------------------------------------------
def test_one_client_cannot_take_every_event_stream(db_path: str) -> None:
    """Issue 11: one client holding 20 sockets took the 8 streams of a worker from everyone."""
    app = create_app(
        {
            "TURNPOST_DB": db_path,
            "TESTING": True,
            "TURNPOST_MAX_STREAMS": 5,
            "TURNPOST_MAX_STREAMS_PER_CLIENT": 2,
        }
    )
    client = app.test_client()
    body = {"engine": "siam", "players": [{"name": "A"}, {"name": "B"}]}
    url = f"/api/v1/games/{client.post('/api/v1/games', json=body).get_json()['id']}/events"
    hog = [client.get(url, buffered=False) for _ in range(20)]
    assert [r.status_code for r in hog[:2]] == [200, 200]
    assert {r.status_code for r in hog[2:]} == {429}
    assert all(error_code_of(r) == "rate_limited" for r in hog[2:])
    others = [
        client.get(url, buffered=False, environ_base={"REMOTE_ADDR": f"10.0.0.{i}"})
        for i in range(4)
    ]
    assert [r.status_code for r in others] == [200, 200, 200, 429], "5 in all per worker"
    hog[0].close()
    assert client.get(url, buffered=False).status_code == 200, "a closed stream is given back"
    for response in [*hog, *others]:
        response.close()


def error_code_of(response: Any) -> str:
    """The error code of a Flask test client's error answer."""
    return response.get_json()["error"]["code"]


# -- cookies, caches and the seat link (issue 11) ------------------------------------------
def test_a_cross_site_seat_link_asks_before_taking_the_seat(server: BackgroundServer) -> None:
    """Login CSRF: a hostile page linking to ``/games/G/seat/ITS_TOKEN`` swapped the
    visitor's seat cookie, so the visitor then played for the attacker's seat."""
    game = create_siam(server)
    mine, theirs = (p["token"] for p in game["players"])
    base = f"{server.url}/games/{game['id']}/seat"
    browser = requests.Session()
    browser.get(f"{base}/{mine}", headers=OPENED, timeout=10)
    playing = browser.cookies.get(f"turnpost_seat_{game['id']}")
    assert playing and playing != mine, "the link's own token, replaced by the browser's"
    for site in ("cross-site", "same-site", "none", "same-origin", None):
        headers = {} if site is None else {"Sec-Fetch-Site": site}
        lured = browser.get(f"{base}/{theirs}", headers=headers, timeout=10)
        assert lured.status_code == 200 and 'id="claim"' in lured.text, site
        assert "This browser plays as <strong>Ann</strong>" in lured.text
        assert lured.headers["Cache-Control"] == "no-store"
        assert browser.cookies.get(f"turnpost_seat_{game['id']}") == playing, site
    forged = browser.post(f"{base}/{theirs}", data={"csrf_token": "forged"}, timeout=10)
    assert forged.status_code == 400
    assert browser.cookies.get(f"turnpost_seat_{game['id']}") == playing
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', lured.text).group(1)
    confirmed = browser.post(f"{base}/{theirs}", data={"csrf_token": csrf}, timeout=10)
    assert confirmed.status_code == 200 and confirmed.url.endswith(f"/games/{game['id']}?as=1")
    now_playing = browser.cookies.get(f"turnpost_seat_{game['id']}")
    assert now_playing not in (playing, theirs, mine)
    held = browser.cookies.get(f"turnpost_seats_{game['id']}").split(HELD_SEPARATOR)
    assert sorted(held) == sorted([playing, now_playing]), "both seats: players share the device"


def test_a_first_seat_link_from_another_site_asks_too(server: BackgroundServer) -> None:
    game = create_siam(server)
    link = f"{server.url}/games/{game['id']}/seat/{game['players'][1]['token']}"
    browser = requests.Session()
    page = browser.get(link, headers={"Sec-Fetch-Site": "cross-site"}, timeout=10)
    assert 'id="claim"' in page.text and "Play as Bob" in page.text
    cookie = f"turnpost_seat_{game['id']}"
    assert cookie not in browser.cookies
    direct = browser.get(link, headers={"Sec-Fetch-Site": "none"}, timeout=10)
    assert direct.url.endswith(f"/games/{game['id']}") and cookie in browser.cookies


def test_answers_holding_a_hand_or_a_token_are_not_stored(server: BackgroundServer) -> None:
    game = create(server, "bangkok-klongs", 2, seed=5)
    token = game["players"][game["to_move"][0]]["token"]
    gid = game["id"]
    private = [
        read(server, f"/games/{gid}", token),
        read(server, f"/games/{gid}/legal-moves", token),
        read(server, f"/games/{gid}?at=0", token),
        requests.post(
            server.api("/games"),
            json={"engine": "siam", "players": [{"name": "A"}, {"name": "B"}]},
            timeout=10,
        ),
    ]
    browser = requests.Session()
    browser.get(f"{server.url}/games/{gid}/seat/{token}", headers=OPENED, timeout=10)
    private.append(browser.get(f"{server.url}/games/{gid}", timeout=10))
    for response in private:
        assert response.headers["Cache-Control"] == "no-store", response.url
    public = read(server, f"/games/{gid}")
    assert "no-store" not in public.headers.get("Cache-Control", "")


def test_cookies_are_secure_behind_a_tls_proxy(db_path: str) -> None:
    """Behind a TLS proxy ``request.is_secure`` was never true: no ``Secure`` cookie."""
    app = create_app({"TURNPOST_DB": db_path, "TURNPOST_PROXY_HOPS": 1})
    client = app.test_client()
    game = client.post(
        "/api/v1/games", json={"engine": "siam", "players": [{"name": "A"}, {"name": "B"}]}
    ).get_json()
    proxied = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}
    lobby = client.get("/", headers=proxied)
    seat = client.get(
        f"/games/{game['id']}/seat/{game['players'][0]['token']}",
        headers={**proxied, "Sec-Fetch-Site": "none"},
    )
    for response in (lobby, seat):
        cookie = response.headers["Set-Cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie, cookie
    plain = create_app({"TURNPOST_DB": db_path}).test_client().get("/", headers=proxied)
    assert "Secure" not in plain.headers["Set-Cookie"], "no proxy is trusted by default"


def test_the_client_address_behind_a_proxy_is_the_forwarded_one(db_path: str) -> None:
    app = create_app(
        {"TURNPOST_DB": db_path, "TURNPOST_PROXY_HOPS": 1, "TURNPOST_RATELIMIT_IP": "2/minute"}
    )
    client = app.test_client()
    for address in ("203.0.113.7", "203.0.113.8"):
        forwarded = {"X-Forwarded-For": address}
        statuses = [client.get("/api/v1/engines", headers=forwarded).status_code for _ in range(3)]
        assert statuses == [200, 200, 429], address


def test_the_api_docs_load_nothing_from_other_origins(server: BackgroundServer) -> None:
    """``/api/docs`` loaded a floating ``redoc@2`` from a CDN without SRI."""
    page = requests.get(f"{server.url}/api/docs", timeout=10)
    assert page.status_code == 200
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "http" not in policy
    sources = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert sources and all(source.startswith("/api/docs/") for source in sources)
    for source in sources:
        asset = requests.get(f"{server.url}{source}", timeout=10)
        assert asset.status_code == 200 and len(asset.content) > 100, source
    assert requests.get(f"{server.url}/api/docs/swagger/index.html", timeout=10).status_code == 404
