"""The reads' kept answers (server/http/answers.py): a read answered from a worker's kept bytes
after one small read of the game's stamp is never stale after any kind of change, and a seat's
kept view never reaches another token, a revoked one or the public.

The oracle is a second app on the same database that keeps nothing (its kept answers are
dropped before each read): every read of the app under test, whose answers were kept before
the change, must equal what that app builds afresh.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import brotli
import pytest

from server import create_app
from server.http.context import current_store
from tests.api.conftest import bearer, new_game, play, seat_header

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def views(game: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    """Every kept read of ``game``: the game (public, each seat's, an earlier move's), each
    seat's legal moves, the move log (whole and a page)."""
    path = f"/api/v1/games/{game['id']}"
    seats = [seat_header(game, seat) for seat in range(len(game["players"]))]
    return [
        (path, {}),
        *((path, seat) for seat in seats),
        (f"{path}?at=0", {}),
        *((f"{path}/legal-moves", seat) for seat in seats),
        (f"{path}/moves", {}),
        (f"{path}/moves?after=0&limit=1", {}),
    ]


def answers(app: Any, game: dict[str, Any], afresh: bool = False) -> list[tuple[Any, ...]]:
    """Each view's status, body, ETag and Link as ``app`` answers it (``afresh``: with nothing
    kept)."""
    client, seen = app.test_client(), []
    for path, headers in views(game):
        if afresh:
            app.extensions.pop("turnpost_answers", None)
        answer = client.get(path, headers=headers)
        seen.append((path, answer.status_code, answer.data, answer.headers.get("ETag")))
        seen.append(answer.headers.get("Link"))
    return seen


@pytest.fixture
def fresh(db_url: str) -> Any:
    """A second app on the test's database: a worker that has kept nothing."""
    return create_app({"TURNPOST_DB": db_url, "TESTING": True})


def in_store(app: Any, change: Callable[[Any], None]) -> None:
    """Make ``change`` to the app's store in one write, as a service does."""
    with app.app_context():
        store = current_store()
        with store.write():
            change(store)


def test_no_kept_answer_is_stale_after_any_change(app, client, fresh) -> None:
    game = new_game(client, seed=42)
    path, ann, bob = f"/api/v1/games/{game['id']}", seat_header(game, 0), seat_header(game, 1)
    until = (datetime.now(UTC) + timedelta(days=3)).isoformat()
    changes: list[tuple[str, Callable[[], Any]]] = [
        ("a move", lambda: play(client, game, 0, "enter a1 N")),
        ("a takeback offered", lambda: client.post(f"{path}/takeback", json={}, headers=ann)),
        (
            "a takeback taken",
            lambda: client.post(f"{path}/takeback", json={"accept": True}, headers=bob),
        ),
        ("another move", lambda: play(client, game, 0, "enter b1 N")),
        (
            "a table message",
            lambda: client.post(f"{path}/messages", json={"text": "hi"}, headers=bob),
        ),
        ("a vacation", lambda: client.post(f"{path}/vacation", json={"until": until}, headers=bob)),
        (
            "a seat renamed",
            lambda: in_store(app, lambda store: store.update_seat(game["id"], 1, {"name": "Bea"})),
        ),
        (
            "a clock set, the game's last change kept",
            lambda: in_store(
                app, lambda store: store.update_game(game["id"], {"turn_hours": 48.0})
            ),
        ),
        ("a move on the clock", lambda: play(client, game, 1, "enter e5 S")),
        ("a resignation", lambda: client.post(f"{path}/resign", json={}, headers=ann)),
    ]
    answers(app, game)  # every view kept
    for what, change in changes:
        answered = change()
        assert getattr(answered, "status_code", 200) < 300, (what, answered.get_json())
        kept = answers(app, game)
        assert kept == answers(app, game), what  # the second from the kept bytes
        assert kept == answers(fresh, game, afresh=True), f"stale after {what}"


def test_a_seats_kept_view_never_reaches_another_token(app, client, fresh) -> None:
    game = new_game(client, "king-of-siam", players=3, seed=7)
    path = f"/api/v1/games/{game['id']}"
    kept = answers(app, game)
    assert kept == answers(app, game)  # kept: the hands are in the seats' kept bodies
    etags = {
        seat: client.get(path, headers=seat_header(game, seat)).headers["ETag"] for seat in range(3)
    }
    for seat in range(3):
        view = client.get(path, headers=seat_header(game, seat)).get_json()
        assert view["you"] == seat
        for other in range(3):  # another seat's ETag is no 304 and its body not this one's
            asked = client.get(
                path, headers={**seat_header(game, seat), "If-None-Match": etags[other]}
            )
            assert asked.status_code == (304 if other == seat else 200)
            assert other == seat or asked.get_json() == view
    public = client.get(path, headers={"If-None-Match": etags[0]})
    assert public.status_code == 200 and public.get_json()["you"] is None
    for token in ("wrong", game["admin_token"]):
        for read in ("", "/legal-moves"):
            assert client.get(f"{path}{read}", headers=bearer(token)).status_code == 401
    assert client.get(f"{path}/legal-moves").status_code == 401
    reissued = client.post(f"{path}/seats/0/token", headers=bearer(game["admin_token"]))
    assert reissued.status_code == 200
    for read in ("", "/legal-moves"):  # the seat's old token: its kept views are no longer its
        assert client.get(f"{path}{read}", headers=seat_header(game, 0)).status_code == 401
    game["players"][0]["token"] = reissued.get_json()["token"]
    assert answers(app, game) == answers(fresh, game, afresh=True)


@pytest.mark.parametrize(
    ("encoding", "decode"), [("br", brotli.decompress), ("gzip", gzip.decompress)]
)
def test_a_kept_answer_is_compressed_once_and_never_stale(client, encoding, decode) -> None:
    game = new_game(client, "king-of-siam", players=2, seed=5)
    seat = game["to_move"][0]
    path, headers = f"/api/v1/games/{game['id']}", seat_header(game, seat)
    packed = {**headers, "Accept-Encoding": encoding}

    def both(read: str) -> tuple[Any, Any]:
        return client.get(f"{path}{read}", headers=headers), client.get(
            f"{path}{read}", headers=packed
        )

    for _ in range(2):  # built, then kept: the same bytes each time
        for read in ("", "/legal-moves"):
            plain, compressed = both(read)
            assert compressed.headers["Content-Encoding"] == encoding
            assert json.loads(decode(compressed.data)) == plain.get_json()
            assert compressed.headers["ETag"] == plain.headers["ETag"]
    before = client.get(f"{path}/legal-moves", headers=packed).data
    move = json.loads(decode(before))["moves"][0]
    body = {"move": {key: value for key, value in move.items() if key != "notation"}}
    assert client.post(f"{path}/moves", json=body, headers=headers).status_code == 201
    plain, compressed = both("")  # the copy of the new version, not the kept one
    assert json.loads(decode(compressed.data)) == plain.get_json()
    assert plain.get_json()["seq"] == 1
    others = [
        "/api/v1/engines/king-of-siam",
        "/api/v1/engines/siam",
        "/api/v1/engines/foreign-king",
    ]
    for other in others:  # answers that are not kept share no compressed copy
        plain = client.get(other)
        compressed = client.get(other, headers={"Accept-Encoding": encoding})
        assert compressed.headers["Content-Encoding"] == encoding, other
        assert json.loads(decode(compressed.data)) == plain.get_json(), other


def test_a_games_kept_answers_of_earlier_moves_are_dropped(app, client) -> None:
    """A move gives every read of the game a new ETag: the bodies of the earlier version (and
    their compressed copies) go when the new ones are kept, so a worker keeps one version a
    game, not the game's history until the cache's bound."""
    game, other = new_game(client, seed=3), new_game(client, seed=4)

    def keep_all(of: dict[str, Any]) -> list[str]:
        etags = []
        for path, headers in views(of):
            for encoding in ("identity", "br"):
                answer = client.get(path, headers={**headers, "Accept-Encoding": encoding})
                etags.append(answer.headers["ETag"])
        return sorted(set(etags))

    first, kept_other = keep_all(game), keep_all(other)
    cache = app.extensions["turnpost_answers"]
    assert all(cache.get(etag) is not None for etag in first + kept_other)
    copied = [etag for etag in first if cache.get(f"br;{etag}") is not None]
    assert copied, "no answer large enough to be compressed"
    for ply, notation in enumerate(("enter a1 N", "enter e5 S", "enter b1 N")):
        play(client, game, ply % 2, notation)
        now = keep_all(game)
        assert not set(now) & set(first)
        assert all(cache.get(etag) is None for etag in first), "an earlier version stayed"
        assert all(cache.get(f"br;{etag}") is None for etag in copied)
        assert all(cache.get(etag) is not None for etag in now + kept_other)
        first, copied = now, [etag for etag in now if cache.get(f"br;{etag}") is not None]
