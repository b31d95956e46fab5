"""A King of Siam game by mail with one reply per turn, written with the names as the cards
and the map print them ("Khon Thai", "1 vs 1", "Chiang Mai"): each reply plays the whole
turn (the card, its swaps or placements and the take) through the real SMTP listener, the
log keeps the canonical notation, and a misspelled name is refused with the closest spelling.
"""

from __future__ import annotations

import random
import re
import smtplib

from engines import Engine
from engines.base import Move, State
from engines.king_of_siam.board import FACTION_NAMES, MAPS
from engines.king_of_siam.cards import CARD_TITLES
from server.games.service import GameService
from server.mail.inbound import receive
from server.mail.smtpd import InboundController, InboundHandler
from tests.mail.conftest import Mailbox, log, reply_to
from tests.support import free_port

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

PLAYERS = [{"name": n, "email": f"{n.lower()}@example.org"} for n in ("Ann", "Bob", "Cy")]
#: Every name a player reads on the cards and the map, by its notation word.
PRINTED = {
    **CARD_TITLES,
    **FACTION_NAMES,
    **{p: name for game_map in MAPS.values() for p, name in game_map["names"].items()},
}


def printed(notation: str, rnd: random.Random) -> str:
    """``notation`` as a player types it from the cards and the map: printed names, in a
    random case, e.g. ``"1 VS 1 rama Chiang Mai with Lao korat; take lao KEDAH"``."""
    words = sorted(PRINTED, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, words)) + r")(?![\w-])")
    shout = (str.lower, str.upper, str) if rnd.random() < 0.3 else (str,)
    return pattern.sub(lambda match: rnd.choice(shout)(PRINTED[match[1]]), notation)


def random_turn(engine: Engine, state: State, seat: int, rnd: random.Random) -> Move:
    """A whole turn of random decisions of ``seat``, joined into its one move."""
    steps, now = [], state
    while not steps or engine.turn_goes_on(now, seat, steps[-1]):
        steps.append(rnd.choice(engine.legal_moves(now, seat)))
        now = engine.apply(now, seat, steps[-1])
    return engine.join_turn(state, seat, steps)


def test_a_king_of_siam_game_by_mail_is_one_reply_per_turn_in_printed_names(
    games: GameService, mailbox: Mailbox, db_url: str
) -> None:
    game = games.create("king-of-siam", PLAYERS, {}, seed=11)
    engine = games.load(game["id"]).engine
    rnd = random.Random(11)
    port = free_port()
    controller = InboundController(
        InboundHandler(db_url, games.notifier.settings), "127.0.0.1", port
    )
    controller.start()
    sent, split_cards = [], set()
    try:
        while (current := games.load(game["id"])).status == "active":
            seat = current.to_move[0]
            turn = mailbox.latest(PLAYERS[seat]["email"])
            body = " ".join(turn.get_body(("plain",)).get_content().split())
            assert "; take " in body and "one by one" in body, "examples are not whole turns"
            move = random_turn(engine, current.state, seat, rnd)
            split_cards.add(move.get("card"))
            notation = engine.format(move)
            raw = reply_to(turn, printed(notation, rnd)).replace(b"\n", b"\r\n")
            with smtplib.SMTP("127.0.0.1", port) as smtp:
                smtp.sendmail(PLAYERS[seat]["email"], [turn["Reply-To"]], raw)
            assert games.load(game["id"]).seq == current.seq + 1, notation
            sent.append(notation)
    finally:
        controller.stop()
    assert log(games, game["id"]) == sent, "the log keeps the canonical notation"
    assert {"khon_thai", "one_vs_one", "two_vs_one"} <= split_cards, "no turn of several steps"
    assert games.load(game["id"]).status == "finished"


def test_a_misspelled_name_is_refused_with_the_closest_spelling(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("king-of-siam", PLAYERS, {}, seed=11)
    seat = games.load(game["id"]).to_move[0]
    turn = mailbox.latest(PLAYERS[seat]["email"])
    for typed, closest in (
        ("Khon Tai rama korat lao korat malay korat", "khon_thai"),
        ("Rama Sukotai Sukhothai", "sukhothai"),
        ("Maharacha swap korat kedah king korat; take lau korat", "lao"),
    ):
        outcome = receive(reply_to(turn, typed), games, games.notifier.settings)
        assert outcome.status == "rejected"
        assert f"Did you mean '{closest}'?" in outcome.reason, outcome.reason
    assert log(games, game["id"]) == []
