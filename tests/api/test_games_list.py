"""``GET /api/v1/games``: filters, cursor pagination, and the seat a token plays."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import bearer, new_game, seat_header

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def listed(client: Any, headers: dict[str, str] | None = None, **query: Any) -> Any:
    """The answer to ``GET /api/v1/games`` with ``query``."""
    return client.get("/api/v1/games", query_string=query, headers=headers or {})


def every_page(client: Any, **query: Any) -> list[list[str]]:
    """The ids of every page, following ``next_cursor`` to the end."""
    pages, cursor = [], None
    while True:
        page = listed(client, **query, **({"cursor": cursor} if cursor else {})).get_json()
        pages.append([game["id"] for game in page["games"]])
        cursor = page["next_cursor"]
        if cursor is None:
            return pages


def test_pages_walk_every_game_once_newest_first(client) -> None:
    made = [new_game(client)["id"] for _ in range(7)]
    pages = every_page(client, limit=3)
    assert [len(page) for page in pages] == [3, 3, 1]
    assert [game for page in pages for game in page] == made[::-1]


def test_a_page_is_stable_while_games_move(client) -> None:
    games = [new_game(client) for _ in range(4)]
    first = listed(client, limit=2).get_json()
    moved = client.post(
        f"/api/v1/games/{games[0]['id']}/moves",
        json={"notation": "enter a1 N"},
        headers=seat_header(games[0], 0),
    )
    assert moved.status_code == 201
    second = listed(client, limit=2, cursor=first["next_cursor"]).get_json()
    assert [g["id"] for g in first["games"] + second["games"]] == [g["id"] for g in games][::-1]


def test_filters_by_engine_and_status(client) -> None:
    siam = new_game(client)
    kos = new_game(client, "king-of-siam", players=3)
    over = new_game(client)
    client.post(f"/api/v1/games/{over['id']}/resign", headers=seat_header(over, 0))
    by_engine = listed(client, engine="king-of-siam").get_json()["games"]
    assert [game["id"] for game in by_engine] == [kos["id"]]
    assert by_engine[0]["players"] == [
        {"seat": seat, "name": name, "private": False, "reissued_at": None, "bot": None}
        for seat, name in enumerate(["Ann", "Bob", "Cy"])
    ]
    finished = listed(client, status="finished").get_json()["games"]
    assert [game["id"] for game in finished] == [over["id"]]
    assert finished[0]["result"]["winners"] == [1]
    active = {game["id"] for game in listed(client, status="active").get_json()["games"]}
    assert active == {siam["id"], kos["id"]}
    assert listed(client, engine="chess").get_json() == {"games": [], "next_cursor": None}


def test_a_summary_is_the_game_without_its_state(client, siam_game) -> None:
    summary = listed(client).get_json()["games"][0]
    game = client.get(f"/api/v1/games/{siam_game['id']}").get_json()
    assert "state" not in summary and "options" not in summary
    assert summary == {key: game[key] for key in summary}


def test_waiting_lists_the_tokens_game_only_while_it_waits_for_that_seat(client) -> None:
    game = new_game(client)
    new_game(client)
    mover, waiter = seat_header(game, 0), seat_header(game, 1)
    waiting = listed(client, mover, waiting="true").get_json()["games"]
    assert [(g["id"], g["you"]) for g in waiting] == [(game["id"], 0)]
    assert listed(client, waiter, waiting="true").get_json()["games"] == []
    assert [g["id"] for g in listed(client, waiter, waiting="false").get_json()["games"]] == [
        game["id"]
    ]
    mine = listed(client, waiter).get_json()["games"]
    assert {g["id"]: g["you"] for g in mine}[game["id"]] == 1


def test_refusals(client, siam_game) -> None:
    assert listed(client, waiting="true").status_code == 401
    assert listed(client, bearer("nobody"), waiting="true").status_code == 401
    for query in ({"cursor": "abc"}, {"limit": 0}, {"limit": 10_000}, {"status": "won"}):
        answer = listed(client, **query)
        assert answer.status_code == 422, query
        assert answer.get_json()["error"]["code"] == "invalid_request"
