"""Outbound mail: the outbox written with each move, delivered to a real SMTP server."""

from __future__ import annotations

from datetime import timedelta

import pytest
from click.testing import CliRunner

from server.cli import main
from server.errors import TurnpostError
from server.games.clock import format_time, parse_time, utcnow
from server.games.service import GameService, MoveRequest
from server.mail.delivery import LEASE_SECONDS, build_envelope, claim_due
from tests.mail.conftest import DOMAIN, Sink, opened_links, send
from tests.server.test_api import WINNING_LINE
from tests.support import database_text, free_port, table_rows

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

PLAYERS = [{"name": "Ann", "email": "ann@example.org"}, {"name": "Bob", "email": "bob@example.org"}]


def later(seconds: float) -> str:
    """A moment ``seconds`` from now, as stored."""
    return format_time(parse_time(utcnow()) + timedelta(seconds=seconds))


def outbox(games: GameService) -> list[dict]:
    """Every row of the outbox, oldest first."""
    return table_rows(games.store, "outbox")


def parts(message) -> dict[str, str]:
    """The text and HTML bodies of a mail."""
    return {kind: message.get_body((kind,)).get_content() for kind in ("plain", "html")}


def test_turn_mail_headers_parts_and_links(games: GameService, smtp_sink: tuple[Sink, str]) -> None:
    sink, url = smtp_sink
    game = games.create("siam", PLAYERS, {})
    assert send(games) == (1, 0)
    [mail] = sink.messages
    assert mail["To"] == "ann@example.org"
    assert mail["Subject"] == "Your turn in Siam (move 1): enter an elephant", "an invitation"
    assert mail["Auto-Submitted"] == "auto-generated"
    assert mail["Message-ID"].endswith(f"@{DOMAIN}>")
    assert mail["Reply-To"].startswith(f"play+{game['id']}.0.")
    assert mail["Reply-To"].endswith(f"@{DOMAIN}")
    assert mail.get_content_type() == "multipart/alternative"
    bodies = parts(mail)
    link = f"https://turnpost.example.org/games/{game['id']}/seat/0."
    assert link in bodies["plain"] and f'href="{link}' in bodies["html"]
    assert "56 legal moves" in bodies["plain"]
    assert "Ann: elephants (ELE), 5 in reserve" in bodies["plain"]
    assert "<svg" not in bodies["html"] and 'src="cid:' in bodies["html"]
    assert "reply to this mail" in bodies["plain"].lower()


def test_each_move_queues_the_next_turn_mail_in_its_transaction(
    games: GameService, smtp_sink: tuple[Sink, str]
) -> None:
    sink, url = smtp_sink
    game = games.create("siam", PLAYERS, {})
    games.submit(MoveRequest(game["id"], token=game["players"][0]["token"], notation="enter a1 N"))
    rows = [{k: row[k] for k in ("seat", "kind", "seq")} for row in outbox(games)]
    assert rows == [{"seat": 0, "kind": "turn", "seq": 0}, {"seat": 1, "kind": "turn", "seq": 1}]
    assert send(games) == (1, 0), "Ann was nagged for the turn she played"
    [bob] = sink.messages
    assert bob["To"] == "bob@example.org"
    assert "1. Ann enters an elephant on a1, facing north." in parts(bob)["plain"]


def test_refused_move_records_no_mail(games: GameService) -> None:
    game = games.create("siam", PLAYERS, {})
    before = games.store.outbox_count()
    with pytest.raises(TurnpostError, match="ross"):
        games.submit(
            MoveRequest(game["id"], token=game["players"][0]["token"], notation="enter c1 N")
        )
    assert games.store.outbox_count() == before


def test_game_over_mail_to_every_player(games: GameService, smtp_sink: tuple[Sink, str]) -> None:
    sink, url = smtp_sink
    game = games.create("siam", PLAYERS, {})
    opened_links(games, game)
    tokens = [p["token"] for p in game["players"]]
    for ply, notation in enumerate(WINNING_LINE):
        games.submit(MoveRequest(game["id"], token=tokens[ply % 2], notation=notation))
    send(games)
    over = [m for m in sink.messages if m["Subject"].startswith("Game over")]
    assert sorted(m["To"] for m in over) == ["ann@example.org", "bob@example.org"]
    assert "Ann wins" in parts(over[0])["plain"]
    assert {m["Subject"].split(": ", 1)[1] for m in over} == {"you win", "Ann wins"}


def test_player_without_email_gets_no_mail(games: GameService) -> None:
    games.create("siam", [{"name": "Ann"}, {"name": "Bob", "email": "bob@example.org"}], {})
    assert games.store.outbox_count() == 0


def test_failed_delivery_is_retried_with_backoff(
    games: GameService, smtp_sink: tuple[Sink, str]
) -> None:
    sink, url = smtp_sink
    games.create("siam", PLAYERS, {})
    assert send(games, smtp_url=f"smtp://127.0.0.1:{free_port()}") == (0, 1)
    [row] = outbox(games)
    assert row["attempts"] == 1 and row["sent_at"] is None and "connect" in row["last_error"]
    assert send(games) == (0, 0), "retried before its backoff"
    assert send(games, now=later(120)) == (1, 0)
    assert len(sink.messages) == 1


def test_crash_after_claim_loses_no_mail_and_keeps_message_id(
    games: GameService, smtp_sink: tuple[Sink, str]
) -> None:
    sink, url = smtp_sink
    game = games.create("siam", PLAYERS, {})
    rows = claim_due(games.store, utcnow())
    # the worker renders the mail (which gives it its Message-ID), hands it to the SMTP
    # server and dies before marking the row sent
    built = build_envelope(
        games.store, games.notifier.settings, games.load(game["id"]), rows, utcnow()
    ).message
    assert send(games) == (0, 0), "a claimed row is left alone during its lease"
    assert send(games, now=later(LEASE_SECONDS + 1)) == (1, 0)
    assert sink.messages[0]["Message-ID"] == built["Message-ID"]
    assert send(games, now=later(LEASE_SECONDS * 10)) == (0, 0), "sent twice"


def test_no_secret_is_stored_in_the_outbox(games: GameService, db_url: str) -> None:
    game = games.create("siam", PLAYERS, {})
    dump = database_text(db_url)
    assert f"play+{game['id']}" not in dump
    assert all(p["token"] not in dump for p in game["players"])


def test_send_mail_command_delivers_the_outbox(
    games: GameService, smtp_sink: tuple[Sink, str], db_url: str
) -> None:
    sink, url = smtp_sink
    games.create("siam", PLAYERS, {})
    env = {"TURNPOST_DB": db_url, "TURNPOST_MAIL_DOMAIN": DOMAIN, "TURNPOST_SMTP_URL": url}
    result = CliRunner().invoke(main, ["send-mail"], env=env)
    assert result.exit_code == 0, result.output
    assert "mails sent 1, superseded 0, failed 0" in result.output
    assert [m["To"] for m in sink.messages] == ["ann@example.org"]
