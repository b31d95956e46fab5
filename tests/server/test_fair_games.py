"""Fair games (issue 11): whoever chose a game's seed or starting position can know
what it hides, so the game says so, and players of hidden-information games are warned.

Before, the lobby form offered a seed, and nothing showed the other players
that the creator had chosen one: a chosen seed reproduces every shuffle offline.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from engines import ENGINES
from server import create_app
from server.mail.delivery import preview

WARNING = re.compile(r"Fair play: the person who created this game [^.]*, so they can know")


@pytest.fixture
def client(db_path: str):
    """A test client on a real SQLite file (mail recorded in its outbox)."""
    return create_app({"TURNPOST_DB": db_path, "TESTING": True}).test_client()


def create(client, engine_id: str, **extra: Any) -> dict[str, Any]:
    """Create a 2-player game over the API; both have an email (turn mails)."""
    players = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "b@x.org"}]
    response = client.post("/api/v1/games", json={"engine": engine_id, "players": players, **extra})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def mails(client, game_id: str) -> list[tuple[str, str]]:
    """The text and HTML of the mail each seat's queued rows make (mails are rendered when sent)."""
    turnpost = client.application.extensions["turnpost"]
    with client.application.app_context():
        store = turnpost.store()
        letters = [
            preview(store, turnpost.notifier.settings, game_id, seat)
            for seat in range(len(store.seats(game_id)))
        ]
    # the text part is wrapped at 72 columns: its words, one space apart
    return [(" ".join(letter.text.split()), letter.html) for letter in letters if letter]


def test_the_game_object_says_whether_seed_or_position_was_chosen(client) -> None:
    chosen = create(client, "siam", seed=42)
    drawn = create(client, "siam")
    placed = create(client, "king-of-siam", position={"players": [{}, {}]})
    flags = [(g["seeded"], g["from_position"]) for g in (chosen, drawn, placed)]
    assert flags == [(True, False), (False, False), (False, True)]
    read = client.get(f"/api/v1/games/{chosen['id']}").get_json()
    assert (read["seeded"], read["from_position"]) == (True, False)


def test_the_api_still_accepts_a_chosen_seed_and_reproduces_the_shuffle(client) -> None:
    hands = []
    for _ in range(2):
        game = create(client, "bangkok-klongs", seed=11)
        token = game["players"][0]["token"]
        view = client.get(
            f"/api/v1/games/{game['id']}", headers={"Authorization": f"Bearer {token}"}
        )
        hands.append(view.get_json()["state"]["hand"])
    assert hands[0] == hands[1]


@pytest.mark.parametrize("engine_id", ["king-of-siam", "bangkok-klongs"])
def test_a_chosen_seed_in_a_hidden_information_game_is_shown_everywhere(
    client, engine_id: str
) -> None:
    game = create(client, engine_id, seed=3)
    page = client.get(f"/games/{game['id']}").get_data(as_text=True)
    assert WARNING.search(page) and "chose how it was shuffled" in page
    table = {"engine": engine_id, "players": [{"name": "Ann"}, {"open": True}], "seed": 3}
    forming = client.post("/api/v1/games", json=table).get_json()
    lobby = client.get("/").get_data(as_text=True)  # the lobby lists tables to join only
    row = re.search(rf"/tables/{forming['id']}\">(.*?)</td>", lobby, re.S).group(1)
    assert "shuffled by its creator" in row
    turn_mails = mails(client, game["id"])
    assert turn_mails, "a seat with an email is to move"
    for text, html in turn_mails:
        assert WARNING.search(text) and WARNING.search(html)


def test_a_chosen_position_is_warned_about_too(client) -> None:
    game = create(client, "king-of-siam", position={"players": [{}, {}]})
    page = client.get(f"/games/{game['id']}").get_data(as_text=True)
    assert "set up its starting position, so they can know every player's action cards" in page


@pytest.mark.parametrize(
    ("engine_id", "extra"),
    [("bangkok-klongs", {}), ("siam", {"seed": 3}), ("foreign-king", {"seed": 3})],
    ids=["drawn by the server", "siam hides nothing", "foreign king hides nothing"],
)
def test_no_warning_where_nothing_can_be_known(client, engine_id: str, extra: dict) -> None:
    game = create(client, engine_id, **extra)
    assert not WARNING.search(client.get(f"/games/{game['id']}").get_data(as_text=True))
    assert all(not WARNING.search(text) for text, _ in mails(client, game["id"]))


def test_only_the_games_with_hidden_parts_say_what_they_hide() -> None:
    hiding = {engine.id for engine in ENGINES.values() if engine.hidden_information}
    assert hiding == {"king-of-siam", "bangkok-klongs"}


def test_the_lobby_form_offers_no_seed_and_ignores_one(client) -> None:
    client.application.config["WTF_CSRF_ENABLED"] = False
    lobby = client.get("/").get_data(as_text=True)
    assert 'name="seed"' not in lobby
    form = {"engine": "bangkok-klongs", "name0": "Ann", "name1": "Bob", "seed": "7"}
    created = client.post("/games", data=form)
    assert created.status_code == 303
    game_id = re.search(r"/games/(\w+)/", created.headers["Location"]).group(1)
    assert client.get(f"/api/v1/games/{game_id}").get_json()["seeded"] is False
