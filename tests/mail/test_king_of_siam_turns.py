"""King of Siam turns by mail: a whole turn is one reply; a card alone leaves its take
pending, and the next turn mail asks the same seat for it."""

from __future__ import annotations

from typing import Any

import pytest

from server.games.service import GameService
from server.mail.inbound import receive
from tests.mail.conftest import Sink
from tests.mail.test_inbound import Mailbox, log, reply_to

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

PLAYERS = [{"name": n, "email": f"{n.lower()}@example.org"} for n in ("Ann", "Bob", "Cy")]


@pytest.fixture
def postbox(games: GameService, smtp_sink: tuple[Sink, str]) -> Mailbox:
    return Mailbox(games, *smtp_sink)


def start(games: GameService) -> tuple[str, int, dict[str, Any]]:
    """A new 3-player game: its id, the seat to move and a Maharacha play of that seat."""
    game = games.create("king-of-siam", PLAYERS, {}, seed=5)
    loaded = games.load(game["id"])
    seat = loaded.to_move[0]
    moves = loaded.engine.legal_moves(loaded.state, seat)
    return game["id"], seat, next(m for m in moves if m.get("card") == "maharacha")


def test_emailed_card_without_take_leaves_the_take_pending_and_asks_the_same_seat(
    games: GameService, postbox: Mailbox
) -> None:
    game_id, seat, card = start(games)
    engine = games.load(game_id).engine
    address = PLAYERS[seat]["email"]
    first_turn = postbox.latest(address)
    outcome = receive(reply_to(first_turn, engine.format(card)), games, games.notifier.settings)
    assert outcome.status == "applied"
    after = games.load(game_id)
    assert after.seq == 1 and after.to_move == [seat]
    assert after.state["pending"] == {"seat": seat, "kind": "take"}
    take_turn = postbox.latest(address)
    assert "(move 2)" in take_turn["Subject"]
    takes = [engine.format(move) for move in engine.legal_moves(after.state, seat)]
    assert takes and all(take.startswith("take ") for take in takes)
    assert takes[0] in take_turn.get_body(("plain",)).get_content()
    others = [m for m in postbox.sink.messages if m["To"] != address]
    assert not any("(move 2)" in m["Subject"] for m in others)
    outcome = receive(reply_to(take_turn, takes[0]), games, games.notifier.settings)
    assert outcome.status == "applied"
    done = games.load(game_id)
    assert done.seq == 2 and done.to_move == [(seat + 1) % 3] and done.state["pending"] is None
    assert log(games, game_id) == [engine.format(card), takes[0]]
    assert "(move 3)" in postbox.latest(PLAYERS[(seat + 1) % 3]["email"])["Subject"]


def test_emailed_card_with_its_take_is_one_reply_and_one_move(
    games: GameService, postbox: Mailbox
) -> None:
    game_id, seat, card = start(games)
    engine = games.load(game_id).engine
    take = engine.legal_moves(engine.apply(games.load(game_id).state, seat, card), seat)[0]
    whole = f"{engine.format(card)}; {engine.format(take)}"
    turn = postbox.latest(PLAYERS[seat]["email"])
    assert receive(reply_to(turn, whole), games, games.notifier.settings).status == "applied"
    after = games.load(game_id)
    assert after.seq == 1 and after.to_move == [(seat + 1) % 3]
    assert log(games, game_id) == [whole]
