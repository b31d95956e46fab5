"""Takebacks by agreement through a real server: accepted, declined, refused, replayed."""

from __future__ import annotations

import re
from typing import Any

import requests

from server.games.records import game_record, import_record
from server.games.service import GameService
from server.store import open_store
from tests.server.test_api import auth, create_siam, submit
from tests.server.test_web import play_by_form, seat_session
from tests.support import BackgroundServer

#: The new store tables run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def takeback(server: BackgroundServer, game: dict[str, Any], seat: int | None, body: Any = None):
    """POST the takeback route as ``seat`` (``None``: without a token)."""
    headers = {} if seat is None else auth(game["players"][seat]["token"])
    return requests.post(
        server.api(f"/games/{game['id']}/takeback"), json=body, headers=headers, timeout=10
    )


def read(server: BackgroundServer, game: dict[str, Any], path: str = "") -> Any:
    """GET a route of the game as JSON."""
    answer = requests.get(server.api(f"/games/{game['id']}{path}"), timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_an_accepted_takeback_returns_to_the_earlier_position(
    live_server: BackgroundServer,
) -> None:
    game = create_siam(live_server, seed=4)
    assert submit(live_server, game, 0, {"notation": "enter a1 N"}).status_code == 201
    assert submit(live_server, game, 1, {"notation": "enter e5 S"}).status_code == 201
    after_one = read(live_server, game, "?at=1")["state"]

    offered = takeback(live_server, game, 1, {"expected_seq": 2})
    assert offered.status_code == 200, offered.text
    assert offered.json()["outcome"] == "offered"
    offer = read(live_server, game, "/takeback")["offer"]
    assert offer["seq"] == 2 and offer["seat"] == 1 and offer["waiting"] == [0]
    assert takeback(live_server, game, 1, {"accept": True}).json()["error"]["code"] == (
        "takeback_refused"
    )

    accepted = takeback(live_server, game, 0, {"accept": True})
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["outcome"] == "taken_back" and accepted.json()["offer"] is None
    now = read(live_server, game)
    assert now["seq"] == 3 and now["to_move"] == [1] and now["state"] == after_one
    last = read(live_server, game, "/moves")[-1]
    assert last["notation"] == "takeback 2" and last["seat"] == 1
    assert read(live_server, game, "?at=3")["state"] == after_one
    assert read(live_server, game, "?at=2")["state"] != after_one
    assert read(live_server, game, "/takeback")["offer"] is None

    again = submit(live_server, game, 1, {"notation": "enter d5 S", "expected_seq": 3})
    assert again.status_code == 201, again.text
    store = open_store(live_server.db_path)
    try:
        games = GameService(store)
        original = games.load(game["id"])
        assert games.replay(original) == original.state
        copy = games.load(import_record(games, game_record(games, original))["id"])
        assert copy.state == original.state and copy.seq == 4
    finally:
        store.close()


def test_a_declined_takeback_changes_nothing(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    assert submit(live_server, game, 0, {"notation": "enter b1 N"}).status_code == 201
    before = read(live_server, game)
    assert takeback(live_server, game, 0).json()["outcome"] == "offered"  # an empty body offers
    declined = takeback(live_server, game, 1, {"accept": False})
    assert declined.status_code == 200 and declined.json()["outcome"] == "declined"
    assert read(live_server, game, "/takeback")["offer"] is None
    after = read(live_server, game)
    assert (after["seq"], after["state"]) == (before["seq"], before["state"])
    assert takeback(live_server, game, 1, {"accept": True}).status_code == 409  # no offer now


def test_an_offer_ends_when_the_game_moves_on(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    assert submit(live_server, game, 0, {"notation": "enter b1 N"}).status_code == 201
    assert takeback(live_server, game, 0).status_code == 200
    assert submit(live_server, game, 1, {"notation": "enter e5 S"}).status_code == 201
    assert read(live_server, game, "/takeback")["offer"] is None
    late = takeback(live_server, game, 1, {"accept": True})
    assert late.status_code == 409 and late.json()["error"]["code"] == "takeback_refused"


def test_refused_takebacks(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    assert takeback(live_server, game, 0).json()["error"]["code"] == "takeback_refused"
    assert submit(live_server, game, 0, {"notation": "enter b1 N"}).status_code == 201
    others = takeback(live_server, game, 1)  # not Bob's move
    assert others.status_code == 409 and others.json()["error"]["code"] == "takeback_refused"
    assert takeback(live_server, game, None).status_code == 401
    assert takeback(live_server, game, 0, {"accept": "yes"}).status_code == 422
    assert takeback(live_server, game, 0, {"expected_seq": 0}).status_code == 409
    bad = requests.post(
        live_server.api(f"/games/{game['id']}/takeback"),
        data="not json",
        headers=auth(game["players"][0]["token"]),
        timeout=10,
    )
    assert bad.status_code == 400
    assert read(live_server, game)["seq"] == 1

    off = create_siam(live_server, takebacks=False)
    assert read(live_server, off)["takebacks"] is False
    assert submit(live_server, off, 0, {"notation": "enter b1 N"}).status_code == 201
    refused = takeback(live_server, off, 0)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"


def test_no_takeback_across_a_draw(live_server: BackgroundServer) -> None:
    body = {"engine": "bangkok-klongs", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = requests.post(live_server.api("/games"), json=body, timeout=10).json()
    seat = read(live_server, game)["to_move"][0]
    legal = requests.get(
        live_server.api(f"/games/{game['id']}/legal-moves"),
        headers=auth(game["players"][seat]["token"]),
        timeout=10,
    ).json()["moves"]
    played = submit(live_server, game, seat, {"notation": legal[0]["notation"]})
    assert played.status_code == 201, played.text
    refused = takeback(live_server, game, seat)
    assert refused.status_code == 409 and "hidden" in refused.json()["error"]["message"]
    assert read(live_server, game, "/takeback")["offer"] is None


def page_takeback(server: BackgroundServer, session: requests.Session, game: dict, answer: str):
    """Load the game page, then press its takeback button ``answer``."""
    page = session.get(f"{server.url}/games/{game['id']}", timeout=10).text
    form = page.partition('<section id="takeback">')[2].partition("</section>")[0]
    assert f'value="{answer}"' in form, page
    fields = dict(re.findall(r'name="(csrf_token|seat|expected_seq)" value="([^"]*)"', form))
    return session.post(
        f"{server.url}/games/{game['id']}/takeback", data={**fields, "answer": answer}, timeout=10
    )


def test_a_takeback_on_the_page(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    ann, bob = seat_session(live_server, game, 0), seat_session(live_server, game, 1)
    assert play_by_form(live_server, ann, game, "enter b1 N").status_code == 200
    page = bob.get(f"{live_server.url}/games/{game['id']}", timeout=10).text
    assert '<section id="takeback">' not in page  # Bob has nothing to take back or answer
    offered = page_takeback(live_server, ann, game, "offer")
    assert offered.status_code == 200 and "offers to take back move 1" in offered.text
    accepted = page_takeback(live_server, bob, game, "accept")
    assert accepted.status_code == 200
    now = read(live_server, game)
    assert (
        now["seq"] == 2
        and now["to_move"] == [0]
        and now["state"]["board"].keys()
        == {
            "b3",
            "c3",
            "d3",
        }
    )
    forged = ann.post(
        f"{live_server.url}/games/{game['id']}/takeback",
        data={"seat": "1", "answer": "offer"},
        timeout=10,
    )
    assert forged.status_code in (400, 403)
