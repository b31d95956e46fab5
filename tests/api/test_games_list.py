"""``GET /api/v1/games``: who sees which games, filters, cursor pagination, and the seat a token
plays. Everyone sees the tables that form (to join them); a game that runs or is over is
listed only to its own seats (issue 21: no list of every game to strangers)."""

from __future__ import annotations

from typing import Any

from tests.api.conftest import bearer, new_game, seat_header

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def listed(client: Any, headers: dict[str, str] | None = None, **query: Any) -> Any:
    """The answer to ``GET /api/v1/games`` with ``query``."""
    return client.get("/api/v1/games", query_string=query, headers=headers or {})


def new_table(client: Any, engine: str = "siam", seats: int = 2) -> dict[str, Any]:
    """A table that forms: Ann's seat taken, the others open."""
    players = [{"name": "Ann"}, *({"open": True} for _ in range(1, seats))]
    response = client.post("/api/v1/games", json={"engine": engine, "players": players})
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["status"] == "forming"
    return response.get_json()


def every_page(client: Any, **query: Any) -> list[list[str]]:
    """The ids of every page, following ``next_cursor`` to the end."""
    pages, cursor = [], None
    while True:
        page = listed(client, **query, **({"cursor": cursor} if cursor else {})).get_json()
        pages.append([game["id"] for game in page["games"]])
        cursor = page["next_cursor"]
        if cursor is None:
            return pages


def test_pages_walk_every_table_once_newest_first(client) -> None:
    made = []
    for _ in range(7):
        made.append(new_table(client)["id"])
        new_game(client)  # running: never in a stranger's list
    pages = every_page(client, limit=3)
    assert [len(page) for page in pages] == [3, 3, 1]
    assert [game for page in pages for game in page] == made[::-1]


def test_a_page_is_stable_while_tables_are_set_up(client) -> None:
    tables = [new_table(client) for _ in range(4)]
    first = listed(client, limit=2).get_json()
    new_table(client)
    second = listed(client, limit=2, cursor=first["next_cursor"]).get_json()
    assert [g["id"] for g in first["games"] + second["games"]] == [g["id"] for g in tables][::-1]


def test_a_stranger_is_shown_no_game_that_runs_or_is_over(client) -> None:
    running, over = new_game(client), new_game(client)
    client.post(f"/api/v1/games/{over['id']}/resign", headers=seat_header(over, 0))
    table = new_table(client)
    assert [game["id"] for game in listed(client).get_json()["games"]] == [table["id"]]
    assert [game["id"] for game in listed(client, status="forming").get_json()["games"]] == [
        table["id"]
    ]
    for status in ("active", "finished", "aborted"):
        refused = listed(client, status=status)
        assert refused.status_code == 401, status
        assert "tables that form" in refused.get_json()["error"]["message"]
    text = listed(client, limit=200).get_data(as_text=True)
    assert running["id"] not in text and over["id"] not in text


def test_filters_by_engine(client) -> None:
    siam = new_table(client)
    kos = new_table(client, "king-of-siam", seats=3)
    by_engine = listed(client, engine="king-of-siam").get_json()["games"]
    assert [game["id"] for game in by_engine] == [kos["id"]]
    assert by_engine[0]["players"] == [  # the seats taken
        {"seat": 0, "name": "Ann", "private": False, "reissued_at": None, "bot": None}
    ]
    assert by_engine[0]["open_seats"] == 2
    assert [game["id"] for game in listed(client, engine="siam").get_json()["games"]] == [
        siam["id"]
    ]
    assert listed(client, engine="chess").get_json() == {"games": [], "next_cursor": None}


def test_a_summary_is_the_game_without_its_state(client) -> None:
    table = new_table(client)
    summary = listed(client).get_json()["games"][0]
    game = client.get(f"/api/v1/games/{table['id']}").get_json()
    assert "state" not in summary and "options" not in summary
    assert summary == {key: game[key] for key in summary}


def test_a_seat_token_lists_its_own_game_whatever_its_status(client) -> None:
    game, other = new_game(client), new_game(client)
    client.post(f"/api/v1/games/{game['id']}/resign", headers=seat_header(game, 0))
    new_table(client)
    mine = listed(client, seat_header(game, 1)).get_json()["games"]
    assert [(entry["id"], entry["you"], entry["status"]) for entry in mine] == [
        (game["id"], 1, "finished")
    ]
    assert listed(client, seat_header(game, 1), status="active").get_json()["games"] == []
    assert other["id"] not in listed(client, seat_header(game, 1)).get_data(as_text=True)


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
    assert [(g["id"], g["you"]) for g in mine] == [(game["id"], 1)]  # its own game only


def test_refusals(client, siam_game) -> None:
    assert listed(client, waiting="true").status_code == 401
    assert listed(client, bearer("nobody"), waiting="true").status_code == 401
    for query in ({"cursor": "abc"}, {"limit": 0}, {"limit": 10_000}, {"status": "won"}):
        answer = listed(client, **query)
        assert answer.status_code == 422, query
        assert answer.get_json()["error"]["code"] == "invalid_request"
