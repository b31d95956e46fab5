"""Property tests through the API for every registered engine (real SQLite file).

Random legal games: every move the API accepts reaches a position one of
the seat's listed legal moves reaches (the list holds one move per outcome,
while ``apply`` also takes other forms of the same move), a refused move
changes nothing, and replaying the log from the seed gives the stored
snapshot exactly.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import ENGINES
from server import create_app
from server.games.service import GameService
from server.store import open_store
from server.store.base import canonical_json
from tests.server.test_api import move_of

MAX_PLIES = 120
#: State keys that record how the last move was made, not the position it left.
HOW_IT_WAS_MADE = frozenset({"last_push"})


def outcome(state: dict) -> str:
    """The position a state holds, as canonical JSON (without how the last move was made)."""
    return canonical_json({k: v for k, v in state.items() if k not in HOW_IT_WAS_MADE})


def full_state(db_path: str, game_id: str) -> dict:
    """The stored snapshot of a game (with its hidden parts)."""
    store = open_store(db_path)
    try:
        return GameService(store).load(game_id).state
    finally:
        store.close()


def api_game(client, engine_id: str, players: int, seed: int) -> dict:
    """Create a game through the API."""
    body = {
        "engine": engine_id,
        "players": [{"name": f"P{i}"} for i in range(players)],
        "seed": seed,
    }
    response = client.post("/api/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def near_miss(move: dict, legal: list[dict], data: st.DataObject) -> dict:
    """``move`` with one string field swapped for a value seen in another legal move (or junk)."""
    fields = sorted(k for k, v in move.items() if k != "action" and isinstance(v, str))
    if not fields:
        return {**move, "action": "no-such-action"}
    field = data.draw(st.sampled_from(fields), label="mutated field")
    seen = sorted({m[field] for m in legal if isinstance(m.get(field), str)} | {"zz"})
    return {**move, field: data.draw(st.sampled_from(seen), label="mutated value")}


@pytest.mark.parametrize("engine_id", sorted(ENGINES))
@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_random_api_games_accept_only_legal_moves_and_replay(
    tmp_path, engine_id: str, data: st.DataObject, seed: int
) -> None:
    engine = ENGINES[engine_id]
    db_path = str(tmp_path / f"{engine_id}-{seed}.db")
    # hundreds of legal-moves answers (megabytes in King of Siam): rate limits stay out of it
    config = {"TURNPOST_DB": db_path, "TESTING": True, "RATELIMIT_ENABLED": False}
    client = create_app(config).test_client()
    players = data.draw(st.integers(engine.min_players, engine.max_players), label="players")
    game = api_game(client, engine_id, players, seed)
    tokens = [p["token"] for p in game["players"]]
    url = f"/api/v1/games/{game['id']}"
    for _ in range(2 * MAX_PLIES):
        current = client.get(url).get_json()
        ply = current["seq"]
        if current["status"] != "active" or ply >= MAX_PLIES:
            break
        seat = current["to_move"][0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        entries = client.get(f"{url}/legal-moves", headers=auth).get_json()["moves"]
        legal = [move_of(entry) for entry in entries]
        assert legal, f"seat {seat} is to move but has no legal move"
        candidate = near_miss(data.draw(st.sampled_from(legal)), legal, data)
        before = full_state(db_path, game["id"])
        tried = client.post(f"{url}/moves", json={"move": candidate}, headers=auth)
        if tried.status_code == 201:
            reached = outcome(full_state(db_path, game["id"]))
            listed = {outcome(engine.apply(before, seat, move)) for move in legal}
            assert reached in listed, "the API accepted a move no listed move matches"
            continue
        assert tried.status_code in (409, 422), tried.get_json()
        assert client.get(url).get_json()["seq"] == ply, "a refused move changed the game"
        move = data.draw(st.sampled_from(legal), label=f"move {ply}")
        body = {"move": move} if ply % 2 else {"notation": engine.format(move)}
        response = client.post(f"{url}/moves", json={**body, "expected_seq": ply}, headers=auth)
        assert response.status_code == 201, response.get_json()
        assert response.get_json()["seq"] == ply + 1
    store = open_store(db_path)
    try:
        games = GameService(store)
        loaded = games.load(game["id"])
        assert canonical_json(games.replay(loaded)) == canonical_json(loaded.state)
        logged = [m.move for m in store.moves(game["id"])]
        assert len(logged) == loaded.seq
    finally:
        store.close()
