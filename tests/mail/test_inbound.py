"""Moves by email reply: through ``turnpost mail-in`` and through the SMTP listener."""

from __future__ import annotations

import random
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from click.testing import CliRunner

from engines.phrases import english
from server.cli import main
from server.games.service import GameService
from server.mail.addresses import reply_address
from server.mail.inbound import receive
from server.mail.smtpd import InboundController, InboundHandler
from tests.mail.conftest import DOMAIN, PLAYERS, Mailbox, Sink, log, mail_in, reply_to
from tests.server.test_api import WINNING_LINE
from tests.support import free_port, table_rows

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def test_full_siam_game_by_mail_in(
    games: GameService, mailbox: Mailbox, db_url: str, smtp_sink: tuple[Sink, str]
) -> None:
    game = games.create("siam", PLAYERS, {})
    emails = [p["email"] for p in PLAYERS]
    for ply, notation in enumerate(WINNING_LINE):
        turn = mailbox.latest(emails[ply % 2])
        outcome = mail_in(db_url, smtp_sink[1], reply_to(turn, notation))
        assert outcome["status"] == "applied", outcome
        assert outcome["seq"] == ply + 1
    assert log(games, game["id"]) == WINNING_LINE
    assert games.load(game["id"]).status == "finished"
    over = mailbox.latest("bob@example.org", "Game over")
    assert "Ann wins" in over.get_body(("plain",)).get_content()
    confirmation = mailbox.latest("ann@example.org", "Move accepted")
    assert confirmation["In-Reply-To"]


def test_full_siam_game_through_the_smtp_listener(
    games: GameService, mailbox: Mailbox, db_url: str
) -> None:
    game = games.create("siam", PLAYERS, {})
    port = free_port()
    controller = InboundController(
        InboundHandler(db_url, games.notifier.settings), "127.0.0.1", port
    )
    controller.start()
    try:
        emails = [p["email"] for p in PLAYERS]
        for ply, notation in enumerate(WINNING_LINE):
            turn = mailbox.latest(emails[ply % 2])
            with smtplib.SMTP("127.0.0.1", port) as smtp:
                raw = reply_to(turn, notation).replace(b"\n", b"\r\n")  # SMTP line ends
                smtp.sendmail(emails[ply % 2], [turn["Reply-To"]], raw)
        with smtplib.SMTP("127.0.0.1", port) as smtp, pytest.raises(smtplib.SMTPRecipientsRefused):
            smtp.sendmail("x@example.org", ["someone@example.org"], b"Subject: hi\n\nhi")
    finally:
        controller.stop()
    assert log(games, game["id"]) == WINNING_LINE
    assert games.load(game["id"]).status == "finished"


def test_move_in_subject(games: GameService, mailbox: Mailbox) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    raw = reply_to(turn, "see subject", Subject="Re: my turn, move: enter a2 E")
    outcome = receive(raw, games, games.notifier.settings)
    assert outcome.status == "applied"
    assert log(games, game["id"]) == ["enter a2 E"]


def test_stale_reply_to_an_old_turn_mail_is_refused(games: GameService, mailbox: Mailbox) -> None:
    game = games.create("siam", PLAYERS, {})
    old_turn = mailbox.latest("ann@example.org")
    assert receive(reply_to(old_turn, "enter a1 N"), games, games.notifier.settings).status == (
        "applied"
    )
    bob_turn = mailbox.latest("bob@example.org")
    receive(reply_to(bob_turn, "enter e5 S"), games, games.notifier.settings)
    outcome = receive(reply_to(old_turn, "enter a2 N"), games, games.notifier.settings)
    assert outcome.status == "rejected" and "moved on" in outcome.reason
    assert log(games, game["id"]) == ["enter a1 N", "enter e5 S"]
    digest = mailbox.latest("ann@example.org")  # the refusal and her turn, in one mail
    text = " ".join(digest.get_body(("plain",)).get_content().split())
    assert 'Your move "enter a2 N" was not played: the game moved on' in text
    assert "It is your turn in Siam with Bob, move 3" in text


def test_forged_key_is_dropped(games: GameService, mailbox: Mailbox) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    forged = turn["Reply-To"].rsplit(".", 2)[0] + ".0000000000@" + DOMAIN
    outcome = receive(reply_to(turn, "enter a1 N", To=forged), games, games.notifier.settings)
    assert outcome.status == "dropped"
    assert log(games, game["id"]) == []


def test_from_header_alone_is_not_trusted(games: GameService, mailbox: Mailbox) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    raw = reply_to(turn, "enter a1 N", To=f"turnpost@{DOMAIN}")
    assert receive(raw, games, games.notifier.settings).status == "dropped"
    assert log(games, game["id"]) == []


def test_revoked_key_stops_working(
    games: GameService, mailbox: Mailbox, db_url: str, smtp_sink: tuple[Sink, str]
) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    env = {"TURNPOST_DB": db_url, "TURNPOST_MAIL_DOMAIN": DOMAIN}
    revoked = CliRunner().invoke(main, ["mail-key", game["id"], "0", "--revoke"], env=env)
    assert revoked.exit_code == 0 and revoked.output.strip() != turn["Reply-To"]
    assert receive(reply_to(turn, "enter a1 N"), games, games.notifier.settings).status == (
        "dropped"
    )
    raw = reply_to(turn, "enter a1 N", To=revoked.output.strip())
    assert receive(raw, games, games.notifier.settings).status == "applied"


def test_duplicate_message_is_applied_once(games: GameService, mailbox: Mailbox) -> None:
    game = games.create("siam", PLAYERS, {})
    raw = reply_to(mailbox.latest("ann@example.org"), "enter a1 N")
    assert receive(raw, games, games.notifier.settings).status == "applied"
    assert receive(raw, games, games.notifier.settings).status == "duplicate"
    assert log(games, game["id"]) == ["enter a1 N"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Auto-Submitted": "auto-replied"},
        {"Precedence": "bulk"},
        {"Return-Path": "<>"},
        {"From": "MAILER-DAEMON@example.org"},
    ],
)
def test_bounces_and_auto_replies_are_dropped_silently(
    games: GameService, mailbox: Mailbox, headers: dict[str, str]
) -> None:
    game = games.create("siam", PLAYERS, {})
    raw = reply_to(mailbox.latest("ann@example.org"), "enter a1 N", **headers)
    before = games.store.outbox_count()
    assert receive(raw, games, games.notifier.settings).status == "dropped"
    assert log(games, game["id"]) == []
    assert games.store.outbox_count() == before, "answered an automatic mail"


def test_wrong_seat_bad_notation_and_illegal_move_get_a_reason(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("siam", PLAYERS, {})
    ann_turn = mailbox.latest("ann@example.org")
    bob_address = reply_address(games.notifier.settings, game["id"], 1, 0)
    cases = [
        (reply_to(ann_turn, "enter e5 S", To=bob_address), "not your turn: the game waits for Ann"),
        (reply_to(ann_turn, "hop a1"), "unknown action"),
        (reply_to(ann_turn, "enter c1 N"), "ross"),
        (reply_to(ann_turn, ""), "no move found"),
    ]
    for raw, reason in cases:
        outcome = receive(raw, games, games.notifier.settings)
        assert outcome.status == "rejected"
        assert reason.lower() in outcome.reason.lower(), outcome.reason
    assert log(games, game["id"]) == []
    refusals = [row for row in table_rows(games.store, "outbox") if row["kind"] == "rejected"]
    assert sorted({row["seat"] for row in refusals}) == [0, 1]


def test_attachments_are_refused(games: GameService, mailbox: Mailbox) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    message = EmailMessage()
    message["To"], message["From"] = turn["Reply-To"], "ann@example.org"
    message["Subject"], message["Message-ID"] = "move: enter a1 N", make_msgid()
    message.set_content("enter a1 N")
    message.add_attachment(b"\x89PNG....", maintype="image", subtype="png", filename="board.png")
    outcome = receive(bytes(message), games, games.notifier.settings)
    assert outcome.status == "rejected" and "attachment" in outcome.reason
    assert log(games, game["id"]) == []


@pytest.mark.sqlite_only  # the listener on PostgreSQL: the whole Siam game through it
def test_full_king_of_siam_game_by_mail_through_the_listener(
    games: GameService, mailbox: Mailbox, db_url: str
) -> None:
    players = [{"name": n, "email": f"{n.lower()}@example.org"} for n in ("Ann", "Bob", "Cy")]
    game = games.create("king-of-siam", players, {}, seed=5)
    engine = games.load(game["id"]).engine
    chooser = random.Random(5)
    port = free_port()
    controller = InboundController(
        InboundHandler(db_url, games.notifier.settings), "127.0.0.1", port
    )
    controller.start()
    try:
        for _ in range(400):
            current = games.load(game["id"])
            if current.status != "active":
                break
            seat = current.to_move[0]
            moves = engine.legal_moves(current.state, seat)
            notation = engine.format(chooser.choice(moves))
            turn = mailbox.latest(players[seat]["email"])
            assert f"(move {current.seq + 1})" in turn["Subject"]
            raw = reply_to(turn, notation).replace(b"\n", b"\r\n")
            with smtplib.SMTP("127.0.0.1", port) as smtp:
                smtp.sendmail(players[seat]["email"], [turn["Reply-To"]], raw)
            assert games.load(game["id"]).seq == current.seq + 1, notation
    finally:
        controller.stop()
    finished = games.game_object(games.load(game["id"]), None)
    assert finished["status"] == "finished" and finished["result"]["winners"]
    over = mailbox.latest("cy@example.org", "Game over")
    text = " ".join(over.get_body(("plain",)).get_content().split())
    names = ["Ann", "Bob", "Cy"]
    assert english(engine.describe_result(finished["result"], names), names) in text


def test_lmtp_listener_applies_a_reply(games: GameService, mailbox: Mailbox, db_url: str) -> None:
    game = games.create("siam", PLAYERS, {})
    port = free_port()
    handler = InboundHandler(db_url, games.notifier.settings)
    controller = InboundController(handler, "127.0.0.1", port, lmtp=True)
    controller.start()
    try:
        turn = mailbox.latest("ann@example.org")
        raw = reply_to(turn, "enter a1 N").replace(b"\n", b"\r\n")
        with smtplib.LMTP("127.0.0.1", port) as lmtp:
            lmtp.sendmail("ann@example.org", [turn["Reply-To"]], raw)
    finally:
        controller.stop()
    assert log(games, game["id"]) == ["enter a1 N"]


@pytest.mark.sqlite_only  # a reply's moves on PostgreSQL: the whole Siam games by mail
def test_klongs_split_turn_by_mail(games: GameService, mailbox: Mailbox) -> None:
    game = games.create("bangkok-klongs", PLAYERS, {}, seed=3)
    engine = games.load(game["id"]).engine
    emails = [p["email"] for p in PLAYERS]

    def reply(seat: int, notation: str) -> None:
        turn = mailbox.latest(emails[seat])
        outcome = receive(reply_to(turn, notation), games, games.notifier.settings)
        assert outcome.status == "applied", (notation, outcome)

    def listed(seat: int) -> list[dict]:
        return engine.legal_moves(games.load(game["id"]).state, seat)

    for seat in (0, 1):  # first boats, each with a merchant: whole turns, one reply each
        reply(seat, engine.format(next(m for m in listed(seat) if m["merchant"] == "new")))
    later = next(m for m in listed(0) if m.get("relocate") == {"when": "after"})
    reply(0, engine.format(later))
    turn = mailbox.latest(emails[0])
    assert "(move 4)" in turn["Subject"], "the next mail asks Ann for the rest of her turn"
    lines = [line.strip() for line in turn.get_body(("plain",)).get_content().splitlines()]
    assert "finish" in lines and any(line.startswith("relocate ") for line in lines)
    reply(0, "finish")
    state = games.load(game["id"]).state
    first = next(m for m in listed(1) if m["action"] == "relocate")
    after_card = engine.apply(state, 1, first)
    place = next(m for m in engine.legal_moves(after_card, 1) if m["action"] == "place")
    whole = {**place, "relocate": {"from": first["from"], "to": first["to"], "when": "before"}}
    reply(1, engine.format(whole))
    assert games.load(game["id"]).seq == 5 and games.load(game["id"]).to_move == [0]
