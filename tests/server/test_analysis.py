"""After a game, where a level-3 bot would have played differently (issue 25, analysis).

Games are played through the API and ended by a resignation; the worker's own
round (:func:`analyse_due`) analyses them; the API and the game's page show it.
"""

from __future__ import annotations

import random
import threading
from typing import Any

from flask.testing import FlaskClient
from markupsafe import escape

from server.games.analysis import analyse, analyse_due
from server.http.context import current_service
from tests.server.test_api import auth, move_of

ON_BOTH_BACKENDS = True
#: Moves each seat plays before the second resigns (each costs a level-3 search).
MOVES = 3


def played_game(client: FlaskClient, engine: str, seed: int) -> dict[str, Any]:
    """A two-player game of ``engine``: random legal moves, then the second seat resigns."""
    body = {"engine": engine, "players": [{"name": "Ann"}, {"name": "Bob"}], "seed": seed}
    game = client.post("/api/v1/games", json=body).get_json()
    rnd = random.Random(seed)
    url = f"/api/v1/games/{game['id']}"
    for _ in range(2 * MOVES):
        seat = client.get(url).get_json()["to_move"][0]
        headers = auth(game["players"][seat]["token"])
        legal = client.get(f"{url}/legal-moves", headers=headers).get_json()
        move = {"move": move_of(rnd.choice(legal["moves"])), "expected_seq": legal["seq"]}
        assert client.post(f"{url}/moves", json=move, headers=headers).status_code == 201
    resigned = client.post(f"{url}/resign", json={}, headers=auth(game["players"][1]["token"]))
    assert resigned.status_code == 200, resigned.get_json()
    return game


def analysis(client: FlaskClient, game: dict[str, Any], seat: int | None = None) -> dict:
    """The game's analysis through the API, as ``seat`` (``None``: anyone)."""
    headers = auth(game["players"][seat]["token"]) if seat is not None else {}
    answer = client.get(f"/api/v1/games/{game['id']}/analysis", headers=headers)
    assert answer.status_code == 200, answer.get_json()
    return answer.get_json()


def run_worker_round(app) -> int:
    """The worker's analysis round, once; how many games it analysed."""
    with app.app_context():
        return analyse_due(current_service(), "test-worker", threading.Event())


def test_a_finished_game_is_analysed_once_by_the_worker_with_legal_suggestions(
    app, client: FlaskClient
) -> None:
    game = played_game(client, "siam", seed=3)
    assert analysis(client, game) == {"status": "waiting", "level": 3, "moves": []}
    assert run_worker_round(app) == 1
    assert run_worker_round(app) == 0, "a game is analysed once"
    answer = analysis(client, game)
    assert answer["status"] == "ready"
    log = {entry["seq"]: entry for entry in client.get(f"/api/v1/games/{game['id']}/moves").json}
    with app.app_context():
        games = current_service()
        again = analyse(games, games.load(game["id"]))
        for note, difference in zip(answer["moves"], again.differences, strict=True):
            logged = log[note["seq"]]
            assert (note["seat"], note["played"]) == (logged["seat"], logged["notation"])
            assert note["suggested"] != note["played"]
            assert difference.seq == note["seq"], "the same analysis when made again"
            played = games.load(game["id"])
            before = games.replay(played, upto=note["seq"] - 1)
            played.engine.apply(before, note["seat"], difference.suggested)  # legal there


def test_a_game_with_a_takeback_is_analysed_from_the_positions_it_went_back_to(
    app, client: FlaskClient
) -> None:
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}], "seed": 4}
    game = client.post("/api/v1/games", json=body).get_json()
    url, tokens = f"/api/v1/games/{game['id']}", [p["token"] for p in game["players"]]
    for notation in ("enter a1 N", "enter e5 S"):
        seat = client.get(url).get_json()["to_move"][0]
        played = client.post(
            f"{url}/moves", json={"notation": notation}, headers=auth(tokens[seat])
        )
        assert played.status_code == 201, played.get_json()
    offered = client.post(f"{url}/takeback", json={}, headers=auth(tokens[1]))
    assert offered.status_code == 200, offered.get_json()
    accepted = client.post(f"{url}/takeback", json={"accept": True}, headers=auth(tokens[0]))
    assert accepted.get_json()["outcome"] == "taken_back", accepted.get_json()
    move = {"notation": "enter d5 S"}
    assert client.post(f"{url}/moves", json=move, headers=auth(tokens[1])).status_code == 201
    assert client.post(f"{url}/resign", json={}, headers=auth(tokens[0])).status_code == 200
    assert run_worker_round(app) == 1
    answer = analysis(client, game)
    assert answer["status"] == "ready", "a game with a takeback replays for the analysis"
    assert {note["played"] for note in answer["moves"]} <= {
        "enter a1 N",
        "enter e5 S",
        "enter d5 S",
    }


def test_a_running_game_has_no_analysis_and_its_page_no_section(client: FlaskClient) -> None:
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = client.post("/api/v1/games", json=body).get_json()
    assert analysis(client, game)["status"] == "not_over"
    page = client.get(f"/games/{game['id']}").get_data(as_text=True)
    assert 'id="analysis"' not in page


def test_the_page_of_a_finished_game_shows_the_computers_view(app, client: FlaskClient) -> None:
    game = played_game(client, "siam", seed=3)
    page = client.get(f"/games/{game['id']}").get_data(as_text=True)
    assert "The computer is going through the game" in page
    run_worker_round(app)
    notes = analysis(client, game)["moves"]
    page = client.get(f"/games/{game['id']}").get_data(as_text=True)
    assert "The computer's view" in page
    for note in notes:
        assert f"at={note['seq'] - 1}" in page and str(escape(note["suggested_words"])) in page
    if not notes:
        assert "would have played every move as it was played" in page


def test_in_a_game_that_hides_cards_each_seat_reads_only_its_own_notes(
    app, client: FlaskClient
) -> None:
    game = played_game(client, "king-of-siam", seed=11)
    run_worker_round(app)
    everyone = analysis(client, game)
    assert everyone["status"] == "ready" and everyone["moves"] == []
    for seat in (0, 1):
        assert {note["seat"] for note in analysis(client, game, seat)["moves"]} <= {seat}
    page = client.get(f"/games/{game['id']}").get_data(as_text=True)
    assert "each player sees the computer's notes on their own moves only" in page


def test_a_game_only_bots_played_is_not_analysed(app, client: FlaskClient) -> None:
    body = {"engine": "siam", "players": [{"bot": "random"}, {"bot": "random"}], "seed": 1}
    game = client.post("/api/v1/games", json=body).get_json()
    with app.app_context():
        current_service().resign(game["id"], 0, 0)
    assert client.get(f"/api/v1/games/{game['id']}").get_json()["status"] == "finished"
    assert run_worker_round(app) == 0
    assert analysis(client, game)["status"] == "none"
