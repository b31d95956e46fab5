"""Helpers of the API tests: games made through the app's test client, and their seats."""

from __future__ import annotations

from typing import Any

import pytest


def bearer(token: str) -> dict[str, str]:
    """The ``Authorization`` header of a token."""
    return {"Authorization": f"Bearer {token}"}


def new_game(client: Any, engine: str = "siam", players: int = 2, **extra: Any) -> dict[str, Any]:
    """Create a game of ``engine`` with ``players`` named seats; the answer holds the tokens."""
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    body = {"engine": engine, "players": [{"name": name} for name in names], **extra}
    response = client.post("/api/v1/games", json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def seat_header(game: dict[str, Any], seat: int) -> dict[str, str]:
    """The ``Authorization`` header of ``seat`` in ``game``."""
    return bearer(game["players"][seat]["token"])


@pytest.fixture
def siam_game(client: Any) -> dict[str, Any]:
    """A new two-player Siam game (seed 42) with its tokens."""
    return new_game(client, seed=42)
