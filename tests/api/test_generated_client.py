"""A Python client generated from ``/api/v1/openapi.json`` plays through the real server.

``openapi-python-client`` turns the served document into a package in a
temporary folder; the tests then play with that package only: its typed
models (``GameCreate``, ``SiamEnterMove``, ``MoveSubmit``...) and its
functions named by the operation ids (``create_game``, ``submit_move``...).
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import requests

from tests.server.test_api import WINNING_LINE
from tests.support import BackgroundServer

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

PACKAGE = "turnpost_generated_client"


@pytest.fixture(scope="module")
def generated(live_server: BackgroundServer, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The generated package, imported (its ``api.api`` functions and its ``models``)."""
    folder = tmp_path_factory.mktemp("client")
    document = folder / "openapi.json"
    document.write_bytes(requests.get(live_server.api("/openapi.json"), timeout=10).content)
    config = folder / "config.yaml"
    config.write_text("post_hooks: []\n")  # the generator would run ruff on its output
    tool = Path(sys.executable).with_name("openapi-python-client")
    command = [str(tool), "generate", "--path", str(document), "--meta", "none"]
    command += ["--output-path", str(folder / PACKAGE), "--config", str(config)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    sys.path.insert(0, str(folder))
    try:
        package = importlib.import_module(PACKAGE)
        yield Generated(package, live_server.url)
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.startswith(PACKAGE)]:
            del sys.modules[name]


class Generated:
    """The generated package's parts the tests use."""

    def __init__(self, package: ModuleType, url: str) -> None:
        self.package = package
        self.url = url
        self.models = importlib.import_module(f"{PACKAGE}.models")

    def operation(self, name: str) -> ModuleType:
        """The module of an operation, e.g. ``submit_move``."""
        return importlib.import_module(f"{PACKAGE}.api.api.{name}")

    def anonymous(self) -> Any:
        """A client without a token."""
        return self.package.Client(base_url=self.url, raise_on_unexpected_status=True)

    def seat(self, token: str) -> Any:
        """A client with a seat (or admin) token."""
        return self.package.AuthenticatedClient(
            base_url=self.url, token=token, raise_on_unexpected_status=True
        )


def create(generated: Generated, engine: str, names: list[str], seed: int) -> Any:
    """Create a game with the generated ``create_game`` and typed ``GameCreate``."""
    models = generated.models
    body = models.GameCreate(
        engine=engine, players=[models.PlayerIn(name=name) for name in names], seed=seed
    )
    created = generated.operation("create_game").sync(client=generated.anonymous(), body=body)
    assert isinstance(created, models.GameCreated), created
    return created


def submit(generated: Generated, created: Any, seat: int, move: Any, seq: int) -> Any:
    """Submit a typed move for ``seat``; the typed answer."""
    models = generated.models
    body = models.MoveSubmit(move=move, expected_seq=seq)
    client = generated.seat(created.players[seat].token)
    answer = generated.operation("submit_move").sync(game_id=created.id, client=client, body=body)
    assert isinstance(answer, models.MoveSubmitted), answer
    return answer


def listed(generated: Generated, created: Any, seat: int) -> Any:
    """The seat's legal moves as typed models."""
    client = generated.seat(created.players[seat].token)
    answer = generated.operation("get_legal_moves").sync(game_id=created.id, client=client)
    assert isinstance(answer, generated.models.LegalMoves), answer
    return answer


def test_a_whole_siam_game_with_the_generated_client(generated: Generated) -> None:
    models = generated.models
    created = create(generated, "siam", ["Ann", "Bob"], seed=42)
    first = models.SiamEnterMove(
        action=models.SiamEnterMoveAction.ENTER, to="b1", facing=models.SiamEnterMoveFacing.N
    )
    answer = submit(generated, created, 0, first, seq=0)
    assert answer.seq == 1 and answer.game.to_move == [1]
    assert isinstance(answer.game.state, models.SiamState)
    for seq, notation in enumerate(WINNING_LINE[1:], start=1):
        seat = seq % 2
        entries = listed(generated, created, seat).moves
        entry = next(entry for entry in entries if entry.notation == notation)
        answer = submit(generated, created, seat, entry, seq=seq)
    game = generated.operation("get_game").sync(game_id=created.id, client=generated.anonymous())
    assert isinstance(game, models.Game)
    assert game.status == models.GameStatus.FINISHED and game.seq == len(WINNING_LINE)
    assert game.result.winners == [0]
    log = generated.operation("list_moves").sync(game_id=created.id, client=generated.anonymous())
    assert [entry.notation for entry in log] == WINNING_LINE
    pages = generated.operation("list_moves")
    first = pages.sync_detailed(game_id=created.id, client=generated.anonymous(), limit=2)
    assert [entry.notation for entry in first.parsed] == WINNING_LINE[:2]
    assert (
        first.headers["Link"] == f'</api/v1/games/{created.id}/moves?after=2&limit=2>; rel="next"'
    )
    rest = pages.sync(game_id=created.id, client=generated.anonymous(), after=2)
    assert [entry.notation for entry in rest] == WINNING_LINE[2:]


def test_the_generated_events_call_returns_at_the_end_of_a_finished_game(generated) -> None:
    created = create(generated, "siam", ["Ann", "Bob"], seed=1)
    client = generated.seat(created.players[1].token)
    resign = generated.operation("resign_seat")
    resigned = resign.sync(game_id=created.id, client=client, body=generated.models.Resign())
    assert resigned.game.result.winners == [0]
    stream = generated.operation("stream_events")
    answer = stream.sync_detailed(game_id=created.id, client=generated.anonymous())
    assert answer.status_code == 200
    text = answer.content.decode()
    assert "event: move" in text and text.rstrip().endswith("}")
    assert "event: end" in text
    again = stream.sync_detailed(
        game_id=created.id, client=generated.anonymous(), last_event_id_header="1"
    )
    assert again.status_code == 204
    resumed = stream.sync_detailed(
        game_id=created.id, client=generated.anonymous(), last_event_id_query=1
    )
    assert resumed.status_code == 204


def test_a_split_king_of_siam_turn_card_then_take(generated: Generated) -> None:
    models = generated.models
    created = create(generated, "king-of-siam", ["Ann", "Bob"], seed=8)
    seat = created.to_move[0]
    cards = listed(generated, created, seat)
    card = next(entry for entry in cards.moves if isinstance(entry, models.KingOfSiamPlayMove))
    assert isinstance(card.card, models.KingOfSiamPlayMoveCard)
    assert card.to_dict().get("take") is None, "a card is listed without its take"
    answer = submit(generated, created, seat, card, seq=cards.seq)
    assert answer.game.to_move == [seat], "the take is still this seat's decision"
    takes = listed(generated, created, seat)
    assert takes.moves and all(isinstance(e, models.KingOfSiamTakeMove) for e in takes.moves)
    answer = submit(generated, created, seat, takes.moves[0], seq=takes.seq)
    assert answer.seq == 2 and answer.game.to_move != [seat]


def test_the_engine_board_is_a_typed_model(generated: Generated) -> None:
    models = generated.models
    detail = generated.operation("get_engine").sync(engine_id="siam", client=generated.anonymous())
    assert isinstance(detail, models.EngineDetail)
    assert isinstance(detail.board, models.SiamBoard)
    assert len(detail.board.squares) == 25 and detail.board.start_rocks == ["b3", "c3", "d3"]
