"""Web conventions: ETag and 304 per viewer, CORS for the API only, compressed JSON."""

from __future__ import annotations

import gzip
import json

import brotli
import pytest

from server import create_app
from tests.api.conftest import new_game, seat_header

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

READS = ["", "/moves", "/legal-moves"]


@pytest.mark.parametrize("read", READS)
def test_a_polling_client_gets_304_until_the_game_changes(client, siam_game, read) -> None:
    path = f"/api/v1/games/{siam_game['id']}{read}"
    seat = seat_header(siam_game, 0)
    first = client.get(path, headers=seat)
    etag = first.headers["ETag"]
    assert first.status_code == 200 and etag.startswith('W/"')
    again = client.get(path, headers={**seat, "If-None-Match": etag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == etag
    moved = client.post(
        f"/api/v1/games/{siam_game['id']}/moves",
        json={"notation": "enter a1 N"},
        headers=seat,
    )
    assert moved.status_code == 201
    changed = client.get(path, headers={**seat, "If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_each_viewer_has_its_own_etag(client, siam_game) -> None:
    path = f"/api/v1/games/{siam_game['id']}"
    public = client.get(path).headers["ETag"]
    ann = client.get(path, headers=seat_header(siam_game, 0)).headers["ETag"]
    bob = client.get(path, headers=seat_header(siam_game, 1)).headers["ETag"]
    assert len({public, ann, bob}) == 3
    refused = client.get(path, headers={**seat_header(siam_game, 0), "If-None-Match": public})
    assert refused.status_code == 200 and refused.get_json()["you"] == 0
    assert client.get(path, headers={"If-None-Match": ann}).status_code == 200
    history = client.get(path, query_string={"at": 0}).headers["ETag"]
    assert history != public


def test_a_resignation_changes_the_etag(client, siam_game) -> None:
    path = f"/api/v1/games/{siam_game['id']}"
    etag = client.get(path).headers["ETag"]
    client.post(f"{path}/resign", headers=seat_header(siam_game, 1))
    assert client.get(path, headers={"If-None-Match": etag}).status_code == 200


def test_cors_allows_the_configured_origins_on_the_api_only(db_url) -> None:
    app = create_app({"TURNPOST_DB": db_url, "TURNPOST_CORS_ORIGINS": "https://app.example"})
    client = app.test_client()
    allowed = client.get("/api/v1/engines", headers={"Origin": "https://app.example"})
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://app.example"
    assert "ETag" in allowed.headers["Access-Control-Expose-Headers"]
    assert "Access-Control-Allow-Credentials" not in allowed.headers
    stranger = client.get("/api/v1/engines", headers={"Origin": "https://evil.example"})
    assert "Access-Control-Allow-Origin" not in stranger.headers
    preflight = client.options(
        "/api/v1/games/abc/moves",
        headers={
            "Origin": "https://app.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "Authorization, Content-Type, Idempotency-Key",
        },
    )
    allowed_headers = preflight.headers["Access-Control-Allow-Headers"].lower()
    assert {"authorization", "content-type", "idempotency-key"} <= set(
        allowed_headers.replace(" ", "").split(",")
    )
    assert "Access-Control-Allow-Credentials" not in preflight.headers
    for page in ("/", "/api/docs"):
        answer = client.get(page, headers={"Origin": "https://app.example"})
        assert "Access-Control-Allow-Origin" not in answer.headers, page


def test_cors_default_is_any_origin_without_credentials(client) -> None:
    answer = client.get("/api/v1/engines", headers={"Origin": "https://any.example"})
    assert answer.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in answer.headers


def test_cors_can_be_switched_off(db_url) -> None:
    client = create_app({"TURNPOST_DB": db_url, "TURNPOST_CORS_ORIGINS": ""}).test_client()
    answer = client.get("/api/v1/engines", headers={"Origin": "https://any.example"})
    assert "Access-Control-Allow-Origin" not in answer.headers


@pytest.mark.parametrize(
    ("encoding", "decode"), [("br", brotli.decompress), ("gzip", gzip.decompress)]
)
def test_large_json_answers_are_compressed(client, encoding, decode) -> None:
    game = new_game(client, "king-of-siam", players=2, seed=5)
    seat = game["to_move"][0]
    path = f"/api/v1/games/{game['id']}/legal-moves"
    plain = client.get(path, headers=seat_header(game, seat))
    packed = client.get(path, headers={**seat_header(game, seat), "Accept-Encoding": encoding})
    assert packed.headers["Content-Encoding"] == encoding
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert len(packed.data) < len(plain.data) / 3
    assert json.loads(decode(packed.data)) == plain.get_json()
    assert "Content-Encoding" not in plain.headers


def test_pages_and_streams_are_not_compressed(client, siam_game) -> None:
    client.post(f"/api/v1/games/{siam_game['id']}/resign", headers=seat_header(siam_game, 0))
    page = client.get(f"/games/{siam_game['id']}", headers={"Accept-Encoding": "gzip"})
    assert page.status_code == 200 and "Content-Encoding" not in page.headers
    stream = client.get(
        f"/api/v1/games/{siam_game['id']}/events", headers={"Accept-Encoding": "gzip, br"}
    )
    assert stream.mimetype == "text/event-stream" and "Content-Encoding" not in stream.headers
    assert b"event: end" in stream.get_data()
