"""Game records: the text record exported, imported and replayed equal; the animated GIF."""

from __future__ import annotations

import io
import random
import re

import pytest
import requests
from click.testing import CliRunner
from PIL import Image

from server.cli import main
from server.games.records import game_record, import_record
from server.games.service import GameService, MoveRequest
from server.store import open_store
from tests.server.test_api import WINNING_LINE, create_siam, submit
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


@pytest.fixture
def games(db_path: str) -> GameService:
    """A service on a fresh SQLite database."""
    store = open_store(db_path)
    store.init()
    yield GameService(store)
    store.close()


def play_randomly(games: GameService, engine: str, players: int, moves: int, seed: int) -> str:
    """A game of ``engine`` with ``moves`` random legal moves, then resigned by seat 0."""
    created = games.create(engine, [{"name": f"P{n}"} for n in range(players)], {}, seed=seed)
    chooser = random.Random(seed)
    for _ in range(moves):
        game = games.load(created["id"])
        if game.status != "active":
            break
        seat = game.to_move[0]
        move = chooser.choice(game.engine.legal_moves(game.state, seat))
        games.submit(MoveRequest(game.id, seat=seat, move=move))
    if games.load(created["id"]).status == "active":
        games.resign(created["id"], 0)
    return created["id"]


def entries(record: str) -> list[str]:
    """The entry lines of a record."""
    return [line for line in record.splitlines() if re.match(r"^\d+\. ", line)]


@pytest.mark.parametrize(("engine", "players"), [("king-of-siam", 3), ("foreign-king", 2)])
def test_a_record_imports_and_replays_equal(games: GameService, engine: str, players: int) -> None:
    game_id = play_randomly(games, engine, players, moves=25, seed=11)
    original = games.load(game_id)
    record = game_record(games, original)
    assert '[Seed "11"]' in record and f'[Engine "{engine}"]' in record
    assert "[Result " in record and '[Status "finished"]' in record

    created = import_record(games, record)
    copy = games.load(created["id"])
    assert copy.seq == original.seq and copy.status == "finished"
    assert copy.state == original.state and copy.row.result == original.row.result
    assert games.replay(copy) == copy.state
    assert entries(game_record(games, copy)) == entries(record)


def test_a_running_game_of_chance_is_recorded_without_its_seed(games: GameService) -> None:
    created = games.create("king-of-siam", [{"name": "A"}, {"name": "B"}], {}, seed=5)
    record = game_record(games, games.load(created["id"]))
    assert "Seed" not in record
    with pytest.raises(Exception, match="no Seed") as refused:
        games_before = games.store.game_ids()
        import_record(games, record + "1. (0) pass\n")
    assert getattr(refused.value, "code", None) == "invalid_request"
    assert games.store.game_ids() == games_before


def test_a_record_with_an_illegal_move_makes_no_game(games: GameService) -> None:
    created = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {}, seed=3)
    games.submit(MoveRequest(created["id"], seat=0, notation="enter a1 N"))
    record = game_record(games, games.load(created["id"]))
    before = games.store.game_ids()
    for bad, words in [
        (record + "2. (1) exit a1\n", "Entry 2"),
        (record + "3. (1) enter e5 S\n", "entry 3 follows entry 1"),
        (record.replace('"siam"', '"chess"'), "names no game"),
        (record + "what is this\n", "neither a header nor an entry"),
        (record + "2. (7) enter e5 S\n", "no seat 7"),
    ]:
        with pytest.raises(Exception, match=words):
            import_record(games, bad)
    assert games.store.game_ids() == before


def test_import_record_command(db_path: str, games: GameService, tmp_path) -> None:
    created = games.create("siam", [{"name": "Ann"}, {"name": 'Bob "B"'}], {}, seed=3)
    for seat, notation in enumerate(WINNING_LINE):
        games.submit(MoveRequest(created["id"], seat=seat % 2, notation=notation))
    record = game_record(games, games.load(created["id"]))
    path = tmp_path / "game.txt"
    path.write_text(record)
    result = CliRunner().invoke(main, ["import-record", str(path)], env={"TURNPOST_DB": db_path})
    assert result.exit_code == 0, result.output
    new_id = re.search(r"Game (\w+) \(siam\)", result.output)[1]
    copy = games.load(new_id)
    assert [seat.name for seat in copy.seats] == ["Ann", 'Bob "B"']
    assert copy.status == "finished" and copy.row.result["winners"] == [0]
    path.write_text(record.replace("move b4 b5 N", "move b4 b5 S"))
    refused = CliRunner().invoke(main, ["import-record", str(path)], env={"TURNPOST_DB": db_path})
    assert refused.exit_code == 1 and "Entry 9" in refused.output


def test_record_and_gif_from_a_real_server(live_server: BackgroundServer) -> None:
    game = create_siam(live_server)
    for seq, notation in enumerate(WINNING_LINE):
        answer = submit(live_server, game, seq % 2, {"notation": notation, "expected_seq": seq})
        assert answer.status_code == 201, answer.text
    record = requests.get(live_server.api(f"/games/{game['id']}/record"), timeout=10)
    assert record.status_code == 200 and record.headers["Content-Type"].startswith("text/plain")
    assert entries(record.text) == [
        f"{seq}. ({(seq - 1) % 2}) {notation}" for seq, notation in enumerate(WINNING_LINE, 1)
    ]
    assert '[Seat1 "Bob"]' in record.text and '[Winners "0"]' in record.text

    gif = requests.get(live_server.url + (f"/games/{game['id']}/record.gif"), timeout=60)
    assert gif.status_code == 200 and gif.headers["Content-Type"] == "image/gif"
    picture = Image.open(io.BytesIO(gif.content))
    assert picture.n_frames == len(WINNING_LINE) + 1  # the start, then one per move

    page = requests.get(live_server.url + (f"/games/{game['id']}"), timeout=10)
    assert f"/api/v1/games/{game['id']}/record" in page.text
    assert f"/games/{game['id']}/record.gif" in page.text
    for path in ("/api/v1/games/nope/record", "/games/nope/record.gif"):
        assert requests.get(live_server.url + path, timeout=10).status_code == 404


def test_a_game_from_a_position_is_recorded_with_it(games: GameService) -> None:
    position = {
        "board": {
            **{square: {"kind": "rock"} for square in ("b3", "c3", "d3")},
            "c2": {"kind": "elephant", "facing": "N"},
        },
        "reserve": {"elephant": 4, "rhino": 5},
        "to_move": 1,
    }
    created = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {}, position=position)
    games.submit(MoveRequest(created["id"], seat=1, notation="enter a1 E"))
    original = games.load(created["id"])
    record = game_record(games, original)
    assert "[Position " in record
    copy = games.load(import_record(games, record)["id"])
    assert copy.row.position == original.row.position and copy.state == original.state
