"""The REST API through a real gunicorn process (contract section 2)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
import requests

from engines import ENGINES
from server.games.service import GameService
from server.http.events import KEEPALIVE_SECONDS
from server.store import open_store
from tests.support import BackgroundServer, database_text, start_background

#: The API runs on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

#: A short Siam game that the elephants (seat 0) win by pushing the b3 rock off b5.
WINNING_LINE = [
    "enter b1 N",
    "enter e1 N",
    "move b1 b2 N",
    "rotate e1 W",
    "move b2 b3 N",
    "rotate e1 N",
    "move b3 b4 N",
    "rotate e1 W",
    "move b4 b5 N",
]


def create_siam(server: BackgroundServer, **extra: Any) -> dict[str, Any]:
    """Create a two-player Siam game; the answer includes the tokens."""
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}], **extra}
    response = requests.post(server.api("/games"), json=body, timeout=10)
    assert response.status_code == 201, response.text
    return response.json()


def auth(token: str) -> dict[str, str]:
    """The Authorization header for a token."""
    return {"Authorization": f"Bearer {token}"}


def move_of(entry: dict[str, Any]) -> dict[str, Any]:
    """The move of a legal-moves entry: the entry without its ``notation``."""
    return {key: value for key, value in entry.items() if key != "notation"}


def submit(server: BackgroundServer, game: dict[str, Any], seat: int, body: Any, **headers: str):
    """POST a move body for ``seat``."""
    return requests.post(
        server.api(f"/games/{game['id']}/moves"),
        json=body,
        headers={**auth(game["players"][seat]["token"]), **headers},
        timeout=10,
    )


def error_code(response: requests.Response) -> str:
    """The contract error code of an error answer (and check its shape)."""
    error = response.json()["error"]
    assert set(error) == {"code", "message", "details"}
    assert error["message"]
    return error["code"]


def log_length(server: BackgroundServer, game: dict[str, Any]) -> int:
    """Number of moves in the public log."""
    return len(requests.get(server.api(f"/games/{game['id']}/moves"), timeout=10).json())


def test_engines_lists_siam_with_defaults(live_server: BackgroundServer) -> None:
    engines = requests.get(live_server.api("/engines"), timeout=10).json()
    siam = next(engine for engine in engines if engine["id"] == "siam")
    assert siam == {
        "id": "siam",
        "name": "Siam",
        "min_players": 2,
        "max_players": 2,
        "options": {"cross_rule": True, "exit_once": False},
    }


def test_create_returns_tokens_once_and_read_hides_them(live_server: BackgroundServer) -> None:
    game = create_siam(live_server, seed=42)
    assert [p["seat"] for p in game["players"]] == [0, 1]
    assert all(len(p["token"]) >= 20 for p in game["players"])
    assert game["admin_token"]
    assert game["status"] == "active" and game["seq"] == 0 and game["to_move"] == [0]
    public = requests.get(live_server.api(f"/games/{game['id']}"), timeout=10).json()
    assert public["you"] is None
    assert "token" not in json.dumps(public["players"])
    assert "admin_token" not in public
    assert "seed" not in json.dumps(public["state"]) and "rng" not in public["state"]
    seat = requests.get(
        live_server.api(f"/games/{game['id']}"),
        headers=auth(game["players"][1]["token"]),
        timeout=10,
    ).json()
    assert seat["you"] == 1


def test_tokens_are_stored_only_as_hashes(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    dump = database_text(live_server.db_path)
    for secret in [game["admin_token"], *(p["token"] for p in game["players"])]:
        assert secret not in dump


def test_demo_line_plays_to_a_finished_result(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    for seq, notation in enumerate(WINNING_LINE):
        response = submit(live_server, game, seq % 2, {"notation": notation, "expected_seq": seq})
        assert response.status_code == 201, response.text
        assert response.json()["seq"] == seq + 1
    final = response.json()["game"]
    assert final["status"] == "finished"
    assert final["to_move"] == []
    assert final["result"]["winners"] == [0]
    log = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert [entry["notation"] for entry in log] == WINNING_LINE
    assert [entry["seq"] for entry in log] == list(range(1, len(WINNING_LINE) + 1))
    after = submit(live_server, game, 1, {"notation": "rotate e1 N"})
    assert after.status_code == 409 and error_code(after) == "game_over"


def test_move_as_json_object(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    move = {"action": "enter", "to": "a1", "facing": "N"}
    response = submit(live_server, game, 0, {"move": move, "expected_seq": 0})
    assert response.status_code == 201
    assert response.json()["game"]["state"]["board"]["a1"] == {"kind": "elephant", "facing": "N"}
    log = requests.get(live_server.api(f"/games/{game['id']}/moves"), timeout=10).json()
    assert log[0]["move"] == move and log[0]["notation"] == "enter a1 N" and log[0]["seat"] == 0


def test_error_codes_leave_the_log_unchanged(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    gid = game["id"]
    cases = [
        (
            requests.post(
                live_server.api(f"/games/{gid}/moves"),
                data="{nope",
                headers=auth(game["players"][0]["token"]),
                timeout=10,
            ),
            400,
            "bad_request",
        ),
        (submit(live_server, game, 0, [1, 2]), 400, "bad_request"),
        (
            requests.post(
                live_server.api(f"/games/{gid}/moves"), json={"notation": "exit a1"}, timeout=10
            ),
            401,
            "unauthorized",
        ),
        (
            requests.post(
                live_server.api(f"/games/{gid}/moves"),
                json={"notation": "exit a1"},
                headers=auth("forged"),
                timeout=10,
            ),
            401,
            "unauthorized",
        ),
        (
            requests.post(
                live_server.api("/games/nosuchgame/moves"),
                json={"notation": "x"},
                headers=auth("x"),
                timeout=10,
            ),
            404,
            "not_found",
        ),
        (submit(live_server, game, 1, {"notation": "enter a5 S"}), 409, "not_your_turn"),
        (
            submit(live_server, game, 0, {"notation": "enter a1 N", "expected_seq": 3}),
            409,
            "stale_seq",
        ),
        (
            submit(live_server, game, 0, {"move": {"action": "enter", "to": "z9"}}),
            422,
            "invalid_move",
        ),
        (submit(live_server, game, 0, {"notation": "jump a1"}), 422, "invalid_move"),
        (submit(live_server, game, 0, {"notation": "enter c1 N"}), 422, "illegal_move"),
        (submit(live_server, game, 0, {"notation": "enter b2 N"}), 422, "illegal_move"),
        (
            submit(live_server, game, 0, {"move": {}, "notation": "enter a1 N"}),
            422,
            "invalid_request",
        ),
        (
            submit(live_server, game, 0, {"notation": "enter a1 N", "extra": 1}),
            422,
            "invalid_request",
        ),
    ]
    for response, status, code in cases:
        assert (response.status_code, error_code(response)) == (status, code), response.text
    assert log_length(live_server, game) == 0
    stale = submit(live_server, game, 0, {"notation": "enter a1 N", "expected_seq": 3})
    assert stale.json()["error"]["details"] == {"seq": 0}


def test_illegal_move_message_names_the_rule(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    response = submit(live_server, game, 0, {"notation": "enter c1 N"})
    assert "cross" in response.json()["error"]["message"].lower()


def test_create_errors(live_server: BackgroundServer) -> None:
    post = lambda body: requests.post(live_server.api("/games"), json=body, timeout=10)  # noqa: E731
    players = [{"name": "Ann"}, {"name": "Bob"}]
    assert error_code(post({"engine": "chess", "players": players})) == "not_found"
    assert error_code(post({"engine": "siam", "players": players[:1]})) == "invalid_request"
    assert error_code(post({"engine": "siam", "players": players, "options": {"x": 1}})) == (
        "invalid_request"
    )
    assert error_code(post({"engine": "siam", "players": players, "seed": "x"})) == (
        "invalid_request"
    )
    bad_position = {"board": {"a1": {"kind": "dragon"}}}
    response = post({"engine": "siam", "players": players, "position": bad_position})
    assert (response.status_code, error_code(response)) == (422, "invalid_position")
    response = post({"engine": "siam", "players": players, "position": [1]})
    assert (response.status_code, error_code(response)) == (422, "invalid_position")


def test_create_klongs_with_a_list_for_a_tile_id_is_invalid_position_not_a_500(
    live_server: BackgroundServer,
) -> None:
    # Issue 11 item 5: this exact request was a 500 (TypeError in the position check).
    body = {
        "engine": "bangkok-klongs",
        "players": [{"name": "Ann"}, {"name": "Bob"}],
        "position": {"board": {"r7c3": {"tile": ["t1"], "merchant": None}}},
    }
    response = requests.post(live_server.api("/games"), json=body, timeout=10)
    assert (response.status_code, error_code(response)) == (422, "invalid_position")
    assert "tile" in response.json()["error"]["message"]


def test_create_from_position(live_server: BackgroundServer) -> None:
    position = {
        "board": {
            "b3": {"kind": "rock"},
            "c3": {"kind": "rock"},
            "d3": {"kind": "rock"},
            "b2": {"kind": "elephant", "facing": "N"},
        },
        "to_move": 0,
    }
    game = create_siam(live_server, position=position)
    assert game["state"]["reserve"] == {"elephant": 4, "rhino": 5}
    response = submit(live_server, game, 0, {"notation": "move b2 b3 N"})
    assert response.status_code == 201, response.text
    assert response.json()["game"]["state"]["board"]["b4"] == {"kind": "rock"}


def test_idempotency_key_replays_first_answer_appends_once(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    body = {"notation": "enter a1 N", "expected_seq": 0}
    first = submit(live_server, game, 0, body, **{"Idempotency-Key": "k1"})
    second = submit(live_server, game, 0, body, **{"Idempotency-Key": "k1"})
    assert first.status_code == second.status_code == 201
    assert first.json() == second.json()
    assert log_length(live_server, game) == 1
    other = submit(live_server, game, 0, {"notation": "enter a2 N"}, **{"Idempotency-Key": "k1"})
    assert error_code(other) == "invalid_request"


def test_racing_submissions_exactly_one_lands(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    outcomes: list[requests.Response] = []
    barrier = threading.Barrier(8)

    def race(square: str) -> None:
        barrier.wait()
        outcomes.append(
            submit(live_server, game, 0, {"notation": f"enter {square} N", "expected_seq": 0})
        )

    squares = ["a1", "a2", "a3", "a4", "a5", "b1", "d1", "e1"]
    threads = [threading.Thread(target=race, args=(square,)) for square in squares]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    statuses = sorted(response.status_code for response in outcomes)
    assert statuses == [201] + [409] * 7
    assert {error_code(r) for r in outcomes if r.status_code == 409} == {"stale_seq"}
    assert log_length(live_server, game) == 1


def test_legal_moves_for_the_seat_to_move_only(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    url = live_server.api(f"/games/{game['id']}/legal-moves")
    mine = requests.get(url, headers=auth(game["players"][0]["token"]), timeout=10).json()
    theirs = requests.get(url, headers=auth(game["players"][1]["token"]), timeout=10).json()
    assert mine["seq"] == 0 and len(mine["moves"]) == 56
    assert theirs == {"seq": 0, "moves": []}
    assert requests.get(url, timeout=10).status_code == 401


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
def test_legal_moves_each_entry_carries_its_notation_which_parses_back_to_it(
    client, db_url: str, engine_id: str
) -> None:
    engine = ENGINES[engine_id]
    players = [{"name": f"P{i}"} for i in range(engine.min_players)]
    game = client.post("/api/v1/games", json={"engine": engine_id, "players": players, "seed": 5})
    game = game.get_json()
    url = f"/api/v1/games/{game['id']}"
    store = open_store(db_url)
    try:
        for ply in range(4):
            seat = client.get(url).get_json()["to_move"][0]
            headers = auth(game["players"][seat]["token"])
            answer = client.get(f"{url}/legal-moves", headers=headers).get_json()
            state = GameService(store).load(game["id"]).state
            assert answer["moves"], f"{engine_id}: seat {seat} to move has no listed move"
            for entry in answer["moves"]:
                assert engine.parse(entry["notation"], state) == move_of(entry), entry
            chosen = answer["moves"][(7 * ply) % len(answer["moves"])]
            # a listed entry may be posted back as it is, notation key and all, or as notation
            played = {"move": chosen} if ply % 2 else {"notation": chosen["notation"]}
            body = {**played, "expected_seq": answer["seq"]}
            posted = client.post(f"{url}/moves", json=body, headers=headers)
            assert posted.status_code == 201, posted.get_json()
    finally:
        store.close()


def test_history_at_n(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    for seq, notation in enumerate(WINNING_LINE[:3]):
        assert submit(live_server, game, seq % 2, {"notation": notation}).status_code == 201
    url = live_server.api(f"/games/{game['id']}")
    at1 = requests.get(url, params={"at": 1}, timeout=10).json()
    assert at1["seq"] == 1 and at1["to_move"] == [1]
    assert at1["state"]["board"]["b1"] == {"kind": "elephant", "facing": "N"}
    at0 = requests.get(url, params={"at": 0}, timeout=10).json()
    assert set(at0["state"]["board"]) == {"b3", "c3", "d3"}
    too_far = requests.get(url, params={"at": 99}, timeout=10)
    assert (too_far.status_code, error_code(too_far)) == (422, "invalid_request")
    assert error_code(requests.get(url, params={"at": "x"}, timeout=10)) == "invalid_request"


def test_event_stream_sends_each_move_and_resumes(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    for seq, notation in enumerate(WINNING_LINE[:2]):
        submit(live_server, game, seq % 2, {"notation": notation})
    url = live_server.api(f"/games/{game['id']}/events")
    with requests.get(url, headers={"Last-Event-ID": "1"}, stream=True, timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        lines = response.iter_lines(decode_unicode=True)
        event = read_event(lines)
        assert event["id"] == "2" and event["event"] == "move"
        assert json.loads(event["data"]) == {
            "seq": 2,
            "seat": 1,
            "move": {"action": "enter", "to": "e1", "facing": "N"},
            "notation": "enter e1 N",
            "description": "Bob enters a rhino on e1, facing north.",
            "to_move": [0],
            "status": "active",
            "result": None,
        }
        submit(live_server, game, 0, {"notation": WINNING_LINE[2]})
        event = read_event(lines)
        assert event["id"] == "3" and json.loads(event["data"])["notation"] == "move b1 b2 N"


def read_event(lines: Any) -> dict[str, str]:
    """The next SSE event (comments skipped) as a dict of its fields."""
    event: dict[str, str] = {}
    for line in lines:
        if line == "" and "data" in event:
            return event
        if line and not line.startswith(":"):
            name, _, value = line.partition(": ")
            event[name] = value
    raise AssertionError("stream ended")


def test_openapi_document_is_generated(live_server: BackgroundServer) -> None:
    spec = requests.get(live_server.api("/openapi.json"), timeout=10).json()
    assert spec["openapi"].startswith("3.")
    assert "/api/v1/games/{game_id}/moves" in spec["paths"]
    assert "MoveSubmit" in spec["components"]["schemas"]
    assert requests.get(f"{live_server.url}/api/docs", timeout=10).status_code == 200


def test_unknown_route_uses_error_shape(live_server: BackgroundServer) -> None:
    response = requests.get(live_server.api("/nothing"), timeout=10)
    assert (response.status_code, error_code(response)) == (404, "not_found")
    response = requests.delete(live_server.api("/engines"), timeout=10)
    assert response.status_code == 405 and error_code(response) == "method_not_allowed"


def test_abort_needs_the_admin_token(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    url = live_server.api(f"/games/{game['id']}/abort")
    seat_try = requests.post(url, headers=auth(game["players"][0]["token"]), timeout=10)
    assert error_code(seat_try) == "unauthorized"
    aborted = requests.post(url, headers=auth(game["admin_token"]), timeout=10).json()
    assert aborted["status"] == "aborted" and aborted["to_move"] == []
    assert error_code(submit(live_server, game, 0, {"notation": "enter a1 N"})) == "game_over"


def test_oversized_body_is_refused(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    response = submit(live_server, game, 0, {"notation": "x" * 100_000})
    assert (response.status_code, error_code(response)) == (413, "payload_too_large")
    assert log_length(live_server, game) == 0


def test_overlong_idempotency_key_is_refused(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    response = submit(
        live_server, game, 0, {"notation": "enter a1 N"}, **{"Idempotency-Key": "k" * 201}
    )
    assert error_code(response) == "invalid_request"
    assert log_length(live_server, game) == 0


def test_event_ids_beyond_sqlite_integers_are_refused(
    live_server: BackgroundServer,
) -> None:
    game = create_siam(live_server)
    submit(live_server, game, 0, {"notation": "enter a1 N"})
    requests.post(
        live_server.api(f"/games/{game['id']}/abort"), headers=auth(game["admin_token"]), timeout=10
    )
    url = live_server.api(f"/games/{game['id']}/events")
    too_big = requests.get(url, params={"last_event_id": 2**63}, timeout=10)
    assert (too_big.status_code, error_code(too_big)) == (422, "invalid_request")
    for too_long in (str(2**64), "1" + "0" * 18):  # what the document allows: 18 digits
        header = requests.get(url, headers={"Last-Event-ID": too_long}, timeout=10)
        assert (header.status_code, error_code(header)) == (400, "bad_request")
    assert requests.get(url, headers={"Last-Event-ID": "9" * 18}, timeout=10).status_code == 204
    stream = requests.get(url, headers={"Last-Event-ID": "0"}, timeout=10)
    assert stream.status_code == 200 and "id: 1\nevent: move" in stream.text


def test_open_event_streams_are_capped_per_worker(tmp_path) -> None:
    server = start_background(
        str(tmp_path / "streams.db"), workers=1, environment={"TURNPOST_MAX_STREAMS": "1"}
    )
    try:
        game = create_siam(server)
        url = server.api(f"/games/{game['id']}/events")
        with requests.get(url, stream=True, timeout=10) as first:
            assert first.status_code == 200
            second = requests.get(url, stream=True, timeout=10)
            assert (second.status_code, error_code(second)) == (429, "rate_limited")
            assert int(second.headers["Retry-After"]) > 0
        # the server notices a gone listener at its next write: a keep-alive at the latest
        deadline = time.monotonic() + KEEPALIVE_SECONDS + 10
        while (third := requests.get(url, stream=True, timeout=10)).status_code == 429:
            assert time.monotonic() < deadline, "a closed stream was never given back"
            time.sleep(0.2)
        assert third.status_code == 200
        third.close()
    finally:
        server.stop()


def test_a_finished_games_stream_ends_with_an_end_event(live_server: BackgroundServer) -> None:
    """Issue 11/16: the stream of a finished game ended without a word, and browsers
    reconnected every 2 s forever; now a final ``end`` event, then ``204`` on reconnect."""
    game = create_siam(live_server)
    url = live_server.api(f"/games/{game['id']}/events")
    with requests.get(url, stream=True, timeout=10) as response:
        lines = response.iter_lines(decode_unicode=True)
        for seq, notation in enumerate(WINNING_LINE):
            submit(live_server, game, seq % 2, {"notation": notation})
        events = [read_event(lines) for _ in WINNING_LINE]
        assert [int(e["id"]) for e in events] == list(range(1, len(WINNING_LINE) + 1))
        end = read_event(lines)
        assert end["event"] == "end" and end["id"] == str(len(WINNING_LINE))
        data = json.loads(end["data"])
        assert data["status"] == "finished" and data["result"]["winners"] == [0]
        assert list(lines) == [], "the stream closes after the end event"
    again = requests.get(url, headers={"Last-Event-ID": end["id"]}, timeout=10)
    assert again.status_code == 204, "an EventSource stops reconnecting on 204"
    late = requests.get(url, timeout=10)
    assert late.status_code == 200 and late.text.count("event: move") == len(WINNING_LINE)
    assert late.text.endswith(f"id: {len(WINNING_LINE)}\nevent: end\ndata: {end['data']}\n\n")


def test_an_aborted_games_stream_ends(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    url = live_server.api(f"/games/{game['id']}/events")
    with requests.get(url, stream=True, timeout=10) as response:
        lines = response.iter_lines(decode_unicode=True)
        abort = live_server.api(f"/games/{game['id']}/abort")
        requests.post(abort, headers=auth(game["admin_token"]), timeout=10).raise_for_status()
        end = read_event(lines)
        assert end["event"] == "end" and json.loads(end["data"])["status"] == "aborted"


def test_unknown_option_values_are_refused_not_500(live_server: BackgroundServer) -> None:
    cases = [
        ("king-of-siam", {"map": "king-of-saba"}),
        ("bangkok-klongs", {"board": "venice"}),
        ("siam", {"cross_rule": "yes"}),
    ]
    for engine, options in cases:
        body = {"engine": engine, "players": [{"name": "A"}, {"name": "B"}], "options": options}
        response = requests.post(live_server.api("/games"), json=body, timeout=10)
        assert (response.status_code, error_code(response)) == (422, "invalid_request"), engine
        assert "options" in response.json()["error"]["details"]


def test_the_move_log_says_each_move_in_a_sentence_of_the_game(client) -> None:
    """Each log entry carries the engine's sentence for the move, written when it was made."""
    body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
    game = client.post("/api/v1/games", json=body).get_json()
    url = f"/api/v1/games/{game['id']}/moves"
    for seat, notation in enumerate(["enter a1 N", "enter e5 S"]):
        headers = auth(game["players"][seat]["token"])
        assert client.post(url, json={"notation": notation}, headers=headers).status_code == 201
    log = client.get(url).get_json()
    assert [entry["description"] for entry in log] == [
        "Ann enters an elephant on a1, facing north.",
        "Bob enters a rhino on e5, facing south.",
    ]
