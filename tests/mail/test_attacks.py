"""Issue 11, mail side: each hostile address, name or mail from the attack, with its exact input.

Everything runs on a real database (a SQLite file, and PostgreSQL), sends to a real SMTP
server (aiosmtpd) and receives through ``turnpost mail-in`` or the real LMTP listener.
"""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from click.testing import CliRunner

from server.cli import main
from server.games.clock import format_time, parse_time, utcnow
from server.games.service import GameService, MoveRequest
from server.mail.addresses import reply_address
from server.mail.delivery import LEASE_SECONDS
from server.mail.inbound import MAX_MESSAGE_BYTES, receive
from server.mail.settings import rate
from server.mail.smtpd import LISTENER_MAX_BYTES, InboundController, InboundHandler
from tests.mail.conftest import (
    DOMAIN,
    PLAYERS,
    Mailbox,
    Sink,
    log,
    mail_in,
    mail_in_outcomes,
    reply_to,
    send,
)
from tests.support import free_port, run_sql, table_rows

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True


def later(seconds: float) -> str:
    """A moment ``seconds`` from now, as stored."""
    return format_time(parse_time(utcnow()) + timedelta(seconds=seconds))


def set_header(raw: bytes, name: str, value: str) -> bytes:
    """``raw`` with its (single-line) header ``name`` replaced by ``value``, unencoded."""
    head, _, body = raw.partition(b"\n\n")
    prefix = name.lower().encode() + b":"
    lines = [line for line in head.split(b"\n") if not line.lower().startswith(prefix)]
    return b"\n".join([*lines, f"{name}: {value}".encode()]) + b"\n\n" + body


def body_of(message: EmailMessage) -> str:
    """The plain text part of a mail Turnpost sent, its lines joined (wrapped at 72 columns)."""
    return " ".join(message.get_body(("plain",)).get_content().split())


@pytest.fixture
def lmtp_port(games: GameService, db_url: str) -> Iterator[int]:
    """The port of a running ``turnpost smtpd --lmtp`` listener on the test database."""
    port = free_port()
    handler = InboundHandler(db_url, games.notifier.settings)
    controller = InboundController(handler, "127.0.0.1", port, lmtp=True)
    controller.start()
    yield port
    controller.stop()


# -- addresses and names at creation ---------------------------------------------
@pytest.mark.parametrize(
    "email",
    [
        '"e\u000bve"@example.org',
        "eve@example.org\r\nBcc: all@example.org",
        "\u00e8ve@example.org",
        "",
        "eve@",
    ],
)
def test_an_email_that_cannot_go_into_a_mail_header_is_refused_at_creation(
    client, email: str
) -> None:
    body = {"engine": "siam", "players": [{"name": "Ann", "email": email}, {"name": "Bob"}]}
    answer = client.post("/api/v1/games", json=body)
    assert answer.status_code == 422
    error = answer.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert error["details"]["players"]["0"]["email"], error
    assert client.get("/").status_code == 200
    assert "Ann" not in client.get("/").get_data(as_text=True), "a game was created"


@pytest.mark.parametrize(
    "name", ["Ann\nBcc: eve@example.org", "Ann\r", "A\u0000nn", "Ann\u2028Lee", "\u0007"]
)
def test_names_with_line_breaks_or_control_characters_are_refused(client, name: str) -> None:
    body = {"engine": "siam", "players": [{"name": name}, {"name": "Bob"}]}
    answer = client.post("/api/v1/games", json=body)
    assert answer.status_code == 422
    error = answer.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert "control characters or line breaks" in str(error["details"]["players"]["0"]["name"])


def test_a_name_with_a_lone_surrogate_is_not_text_so_the_body_is_refused(client) -> None:
    """A lone surrogate is no Unicode text: the JSON body parser refuses it before the schema."""
    body = {"engine": "siam", "players": [{"name": "\ud800"}, {"name": "Bob"}]}
    answer = client.post("/api/v1/games", json=body)
    assert answer.status_code == 400
    assert answer.get_json()["error"]["code"] == "bad_request"
    assert "Bob" not in client.get("/").get_data(as_text=True), "a game was created"


def test_the_command_line_refuses_the_same_names(db_url: str) -> None:
    result = CliRunner().invoke(
        main,
        ["new-game", "siam", "--player", "Ann\nLee", "--player", "Bob"],
        env={"TURNPOST_DB": db_url},
    )
    assert result.exit_code == 1
    assert "control characters or line breaks" in result.output
    assert "token" not in result.output


# -- outbound: a poisoned row fails alone ----------------------------------------
def test_poisoned_outbox_rows_fail_and_never_block_the_rows_behind_them(
    games: GameService, smtp_sink: tuple[Sink, str]
) -> None:
    sink, url = smtp_sink
    quiet = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {})
    now = utcnow()
    poisoned = [('"e\u000bve"@example.org', None), ("ann@example.org", "<a\r\nb@example.org>")]
    with games.store.write():
        for to_addr, in_reply_to in poisoned:
            games.store.queue_mail(
                {
                    "game_id": quiet["id"],
                    "seat": 0,
                    "kind": "turn",
                    "to_addr": to_addr,
                    "in_reply_to": in_reply_to,
                    "seq": 0,
                    "created_at": now,
                    "next_attempt_at": now,
                }
            )
    games.create("siam", PLAYERS, {})  # Ann's turn mail is queued behind the poisoned rows
    assert send(games) == (1, 2)
    assert [mail["To"] for mail in sink.messages] == ["ann@example.org"]
    failed = [row for row in table_rows(games.store, "outbox") if row["sent_at"] is None]
    assert [row["next_attempt_at"] for row in failed] == [None, None], "retried for ever"
    assert all("cannot build the message" in row["last_error"] for row in failed)
    assert send(games, later(LEASE_SECONDS * 10)) == (0, 0)


def test_an_encoded_message_id_with_a_line_break_is_not_kept_as_in_reply_to(
    games: GameService, mailbox: Mailbox, db_url: str, smtp_sink: tuple[Sink, str]
) -> None:
    games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    raw = set_header(reply_to(turn, "hop a1"), "Message-ID", "=?utf-8?q?<a=0D=0Ab@example.org>?=")
    outcome = mail_in(db_url, smtp_sink[1], raw)
    assert outcome["status"] == "rejected"
    [refusal] = [row for row in table_rows(games.store, "outbox") if row["kind"] == "rejected"]
    assert refusal["in_reply_to"] is None
    delivered = mailbox.latest("ann@example.org", "Move not played")
    assert delivered["In-Reply-To"] is None
    assert "unknown action" in body_of(delivered).lower()


# -- inbound: mail the parser chokes on ------------------------------------------
@pytest.mark.parametrize(
    "content_type",
    [
        'text/plain; charset="x-unknown-charset"',
        'text/plain; charset=""',
        'text/html; charset="x-unknown-charset"',
    ],
)
def test_unknown_or_empty_charsets_are_read_as_utf8(
    games: GameService,
    mailbox: Mailbox,
    db_url: str,
    smtp_sink: tuple[Sink, str],
    content_type: str,
) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    raw = set_header(reply_to(turn, "enter a1 N"), "Content-Type", content_type)
    outcome = mail_in(db_url, smtp_sink[1], raw)  # exit 0, no traceback
    assert outcome["status"] == "applied", outcome
    assert log(games, game["id"]) == ["enter a1 N"]


def deep_multipart(to: str, depth: int = 2000) -> bytes:
    """A mail to ``to`` whose move sits under ``depth`` nested multiparts."""
    head = f"From: ann@example.org\r\nTo: {to}\r\nSubject: deep\r\nMessage-ID: {make_msgid()}\r\n"
    opening = "".join(
        f'Content-Type: multipart/mixed; boundary="b{level}"\r\n\r\n--b{level}\r\n'
        for level in range(depth)
    )
    closing = "".join(f"--b{level}--\r\n" for level in reversed(range(depth)))
    return (head + opening + "Content-Type: text/plain\r\n\r\nenter a1 N\r\n" + closing).encode()


def test_a_2000_deep_multipart_gets_a_polite_refusal_through_mail_in(
    games: GameService, mailbox: Mailbox, db_url: str, smtp_sink: tuple[Sink, str]
) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    outcome = mail_in(db_url, smtp_sink[1], deep_multipart(turn["Reply-To"]))
    assert outcome["status"] == "rejected" and outcome["answered"] is True
    refusal = mailbox.latest("ann@example.org", "Move not played")
    assert "nested too deeply" in body_of(refusal)
    assert log(games, game["id"]) == []


def test_a_2000_deep_multipart_over_lmtp_is_answered_without_leaking_anything(
    games: GameService, mailbox: Mailbox, lmtp_port: int
) -> None:
    games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    with smtplib.LMTP("127.0.0.1", lmtp_port, timeout=10) as lmtp:
        lmtp.ehlo()
        lmtp.mail("ann@example.org")
        lmtp.rcpt(turn["Reply-To"])
        code, reply = lmtp.data(deep_multipart(turn["Reply-To"]))
    assert (code, reply) == (250, b"2.0.0 Handled")


def move_in_two_games(games: GameService) -> tuple[list[str], list[str], bytes]:
    """Two new games, Ann's reply addresses in them, and one mail moving in both."""
    ids = [games.create("siam", PLAYERS, {})["id"] for _ in range(2)]
    addresses = [reply_address(games.notifier.settings, game_id, 0, 0) for game_id in ids]
    message = EmailMessage()
    message["From"], message["To"] = "ann@example.org", ", ".join(addresses)
    message["Subject"], message["Message-ID"] = "my moves", make_msgid()
    message.set_content("enter a1 N")
    return ids, addresses, bytes(message)


def test_lmtp_answers_once_per_recipient(games: GameService, lmtp_port: int) -> None:
    ids, addresses, raw = move_in_two_games(games)
    with smtplib.LMTP("127.0.0.1", lmtp_port, timeout=10) as lmtp:
        lmtp.ehlo()
        lmtp.mail("ann@example.org")
        for address in addresses:
            assert lmtp.rcpt(address)[0] == 250
        replies = [lmtp.data(raw), lmtp.getreply()]
        assert lmtp.noop()[0] == 250, "the session is out of step"
    assert [code for code, _ in replies] == [250, 250]
    assert [log(games, game_id) for game_id in ids] == [["enter a1 N"]] * 2


def test_mail_in_moves_once_for_each_envelope_recipient(
    games: GameService, db_url: str, smtp_sink: tuple[Sink, str]
) -> None:
    ids, addresses, raw = move_in_two_games(games)
    outcomes = mail_in_outcomes(db_url, smtp_sink[1], raw, *addresses)
    assert [outcome["status"] for outcome in outcomes] == ["applied"] * 2
    assert [log(games, game_id) for game_id in ids] == [["enter a1 N"]] * 2


def test_lmtp_refuses_a_message_too_large_to_read_once_per_recipient(
    games: GameService, lmtp_port: int
) -> None:
    game = games.create("siam", PLAYERS, {})
    addresses = [reply_address(games.notifier.settings, game["id"], seat, 0) for seat in (0, 1)]
    huge = b"Subject: move: enter a1 N\r\n\r\n" + b"x" * 990 + b"\r\n"
    huge *= LISTENER_MAX_BYTES // 990 + 1
    with smtplib.LMTP("127.0.0.1", lmtp_port, timeout=10) as lmtp:
        lmtp.ehlo()
        lmtp.mail("ann@example.org")
        for address in addresses:
            lmtp.rcpt(address)
        replies = [lmtp.data(huge), lmtp.getreply()]
        assert lmtp.noop()[0] == 250, "the session is out of step"
    assert [code for code, _ in replies] == [552, 552]
    assert log(games, game["id"]) == []


def test_an_html_only_reply_is_read_as_a_mail_client_shows_it(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    message = EmailMessage()
    message["From"], message["To"] = "ann@example.org", turn["Reply-To"]
    message["Subject"], message["Message-ID"] = "Re: " + turn["Subject"], make_msgid()
    message["In-Reply-To"] = turn["Message-ID"]
    message.set_content(
        "<html><head><title>Re: Your turn</title><style>p { margin: 0 }</style></head>"
        "<body><p>enter&nbsp;a1&nbsp;N</p><div>On Monday, Turnpost wrote:</div>"
        "<blockquote><p>It is your turn &amp; more</p></blockquote></body></html>",
        subtype="html",
    )
    outcome = receive(bytes(message), games, games.notifier.settings)
    assert outcome.status == "applied", outcome
    assert log(games, game["id"]) == ["enter a1 N"]


def test_oversized_mail_gets_the_promised_explanation(
    games: GameService, mailbox: Mailbox, db_url: str, smtp_sink: tuple[Sink, str]
) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    huge = reply_to(turn, "enter a1 N\n" + "x" * MAX_MESSAGE_BYTES)
    outcome = mail_in(db_url, smtp_sink[1], huge)
    assert outcome["status"] == "rejected" and outcome["answered"] is True
    refusal = mailbox.latest("ann@example.org", "Move not played")
    assert "larger than 256 KiB" in body_of(refusal)
    assert log(games, game["id"]) == []


def test_one_seat_key_cannot_make_turnpost_send_unlimited_refusals(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    settings = games.notifier.settings
    outcomes = [receive(reply_to(turn, "hop a1"), games, settings) for _ in range(20)]
    allowed, _ = rate(settings.refusals_seat)
    assert [outcome.status for outcome in outcomes] == ["rejected"] * 20
    assert [outcome.answered for outcome in outcomes] == [True] * allowed + [False] * (20 - allowed)
    assert games.store.outbox_count(kind="rejected") == allowed
    assert log(games, game["id"]) == []


# -- retention ---------------------------------------------------------------------
def test_sent_mails_older_than_the_retention_keep_only_their_headers(
    games: GameService, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    sink, url = smtp_sink
    game = games.create("siam", PLAYERS, {})  # 1: Ann's turn
    games.player_acted(game["id"], 0)  # her reply arrived with her key
    mailed = MoveRequest(
        game["id"], seat=0, notation="enter a1 N", mail_message_id=f"<m1@{DOMAIN}>"
    )
    games.submit(mailed)  # 2: accepted (its facts: the notation), 3: Bob's turn
    send(games)
    games.create("siam", PLAYERS, {})  # 4: a mail still waiting for its next attempt
    old = format_time(parse_time(utcnow()) - timedelta(days=31))
    run_sql(db_url, "UPDATE outbox SET created_at = ? WHERE id IN (2, 4)", [old])
    run_sql(
        db_url, "UPDATE outbox SET next_attempt_at = ?, facts = '{}' WHERE id = 4", [later(3600)]
    )
    env = {
        "TURNPOST_DB": db_url,
        "TURNPOST_MAIL_DOMAIN": DOMAIN,
        "TURNPOST_SMTP_URL": url,
        "TURNPOST_MAIL_RETENTION_DAYS": "30",
    }
    result = CliRunner().invoke(main, ["send-mail"], env=env)
    assert result.exit_code == 0, result.output
    rows = {row["id"]: row for row in table_rows(games.store, "outbox")}
    assert rows[1]["superseded"] and rows[1]["sent_at"] is None, "nagged for a played turn"
    assert rows[2]["facts"] is None, "an old sent mail kept its facts"
    assert rows[2]["subject"].startswith("Move accepted") and rows[2]["message_id"]
    assert rows[2]["to_addr"] == "ann@example.org" and rows[2]["sent_at"]
    assert rows[4]["facts"] == "{}", "an unsent mail lost its facts"
    assert len(sink.messages) == 2
