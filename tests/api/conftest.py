"""Helpers of the API tests: games made through the app's test client, their seats, moves and
webhooks, and the local webhook receivers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from server import create_app
from tests.api.receivers import LOOPBACK, Blackhole, Mute, Receiver, Trickler


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


def register(client: Any, game: dict[str, Any], url: str) -> Any:
    """POST a webhook with the game's admin token."""
    return client.post(
        f"/api/v1/games/{game['id']}/webhooks",
        json={"url": url},
        headers=bearer(game["admin_token"]),
    )


def play(client: Any, game: dict[str, Any], seat: int, notation: str) -> None:
    """Play a move that must be accepted."""
    answer = client.post(
        f"/api/v1/games/{game['id']}/moves",
        json={"notation": notation},
        headers=seat_header(game, seat),
    )
    assert answer.status_code == 201, answer.get_json()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A running local receiver."""
    running = Receiver()
    yield running
    running.server.shutdown()


@pytest.fixture
def trickler() -> Iterator[Trickler]:
    """A running receiver that answers a byte a second to its first connection."""
    running = Trickler()
    yield running
    running.stop()


@pytest.fixture(params=["mute", "blackhole"])
def stalling(request: pytest.FixtureRequest) -> Iterator[Mute | Blackhole]:
    """A receiver a delivery stalls on before its request is sent: one that never answers the
    TLS handshake, and one that drops the packets opening a connection."""
    running = Mute() if request.param == "mute" else Blackhole()
    yield running
    running.stop()


@pytest.fixture
def allowed_app(db_path: str):
    """An app whose operator allows webhooks to loopback (the local receivers)."""
    return create_app(
        {"TURNPOST_DB": db_path, "TESTING": True, "TURNPOST_WEBHOOK_NETWORKS": LOOPBACK}
    )
