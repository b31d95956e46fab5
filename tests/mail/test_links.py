"""The links in a mail: the seat's own page, stopping mail for one seat, and the settings of
the process that sends (``send-mail`` and ``worker`` started with their own environment)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from email.message import EmailMessage

import pytest
from click.testing import CliRunner

from server.cli import main
from server.games.service import GameService, MoveRequest
from server.mail.inbound import receive
from tests.mail.conftest import DOMAIN, PLAYERS, Mailbox, Sink, reply_to, send
from tests.mail.samples import text_of
from tests.support import BackgroundServer, forged, run_command, run_sql, start_background

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

SEAT_LINK = re.compile(r"^(https?://\S+/games/\w+/seat/\S+)$", re.M)
STOP_TEXT = "Stop mail for this game: "


def seat_link(mail: EmailMessage) -> str:
    """The seat's own link in a mail's text."""
    [link] = SEAT_LINK.findall(text_of(mail))
    return link


@pytest.fixture
def web(db_url: str, mail_app) -> Iterator[BackgroundServer]:
    """gunicorn serving the mail tests' database (and secret), as ``turnpost serve`` does."""
    server = start_background(db_url, workers=1)
    yield server
    server.stop()


def test_the_mails_link_lets_that_seat_move_in_a_fresh_browser_and_an_altered_one_does_not(
    games: GameService, mailbox: Mailbox, web: BackgroundServer, new_context
) -> None:
    game = games.create("siam", PLAYERS, {})
    link = seat_link(mailbox.latest("ann@example.org"))
    assert link.startswith(f"https://turnpost.example.org/games/{game['id']}/seat/0.")
    local = web.url + link.removeprefix("https://turnpost.example.org")
    key = local.rsplit(".", 1)[1]
    for position in (0, len(key) // 2, len(key) - 1):  # one character changed, anywhere
        changed = "0" if key[position] != "0" else "1"
        altered = (
            local[: len(local) - len(key) + position]
            + changed
            + local[len(local) - len(key) + position + 1 :]
        )
        page = new_context().new_page()
        answer = page.goto(altered)
        assert answer.status in (401, 404), altered
        page.goto(f"{web.url}/games/{game['id']}")
        assert page.locator("form#notation-form").count() == 0, "an altered link lets in"
    page = new_context().new_page()
    page.goto(local)
    assert page.url == f"{web.url}/games/{game['id']}", "the pass stays in the address bar"
    page.click("#notation-box summary")
    page.fill("#notation-form input[name=notation]", "enter a1 N")
    page.locator("form#notation-form button[type=submit]").click()
    page.wait_for_load_state("load")
    assert [m.notation for m in games.store.moves(game["id"])] == ["enter a1 N"]


def test_a_revoked_key_takes_the_link_with_it(
    games: GameService, mailbox: Mailbox, mail_app, db_url: str
) -> None:
    game = games.create("siam", PLAYERS, {})
    path = seat_link(mailbox.latest("ann@example.org")).removeprefix("https://turnpost.example.org")
    env = {"TURNPOST_DB": db_url, "TURNPOST_MAIL_DOMAIN": DOMAIN}
    assert (
        CliRunner().invoke(main, ["mail-key", game["id"], "0", "--revoke"], env=env).exit_code == 0
    )
    assert mail_app.test_client().get(path).status_code == 401


def test_list_unsubscribe_one_click_stops_mail_for_that_seat_which_still_plays_on_the_web(
    games: GameService, mailbox: Mailbox, mail_app
) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    assert turn["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link = turn["List-Unsubscribe"].strip("<>")
    assert dict(turn.raw_items())["List-Unsubscribe"] == f"<{link}>", "folded or encoded"
    assert f"{STOP_TEXT}{link}" in text_of(turn)
    browser = mail_app.test_client()
    path = link.removeprefix("https://turnpost.example.org")
    asked = browser.get(path).get_data(as_text=True)
    assert "Stop mail for this game?" in asked and "Siam with Bob" in asked
    assert browser.post(forged(path, count=3)).status_code == 404, "a forged link worked"
    one_click = browser.post(  # as a mail client posts it (RFC 8058): no CSRF token
        path, data="List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )
    assert one_click.status_code == 200 and "Mail stopped" in one_click.get_data(as_text=True)
    games.submit(MoveRequest(game["id"], token=game["players"][0]["token"], notation="enter a1 N"))
    games.submit(MoveRequest(game["id"], token=game["players"][1]["token"], notation="enter e5 S"))
    send(games)  # Bob's turn mail was stale by then; Ann's new one was never queued
    assert [m["To"] for m in mailbox.sink.messages] == ["ann@example.org"]
    assert games.store.outbox_count(game_id=game["id"], seat=0) == 1, "queued for a stopped seat"
    assert not games.store.mail_suppressed("ann@example.org"), "stopped every game"
    page = browser.get(
        f"/games/{game['id']}/seat/{game['players'][0]['token']}",
        headers={"Sec-Fetch-Site": "none"},  # opened by the player, from their mail program
    )
    assert page.status_code == 303
    assert "notation-form" in browser.get(f"/games/{game['id']}").get_data(as_text=True)
    other = games.create("siam", PLAYERS, {})
    assert games.store.outbox_count(game_id=other["id"], seat=0) == 1, "other games still mail"


def test_the_stop_page_speaks_the_seats_language_with_its_start_word(
    games: GameService, mailbox: Mailbox, mail_app
) -> None:
    french = [{**PLAYERS[0], "language": "fr"}, PLAYERS[1]]
    games.create("siam", french, {})
    link = mailbox.latest("ann@example.org", "Votre tour")["List-Unsubscribe"].strip("<>")
    path = link.removeprefix("https://turnpost.example.org")
    browser = mail_app.test_client()
    asked = browser.get(path).get_data(as_text=True)
    assert '<html lang="fr">' in asked
    assert "Ne plus recevoir de courriels pour cette partie\u00a0?" in asked
    assert "Siam avec Bob" in asked and "Stop mail" not in asked
    done = browser.post(
        path, data="List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    ).get_data(as_text=True)
    assert "Mails arrêtés" in done and "répondez <code>reprise</code>" in done


def test_start_by_reply_turns_a_stopped_seats_mail_on_again(
    games: GameService, mailbox: Mailbox
) -> None:
    game = games.create("siam", PLAYERS, {})
    turn = mailbox.latest("ann@example.org")
    settings = games.notifier.settings
    assert receive(reply_to(turn, "stop"), games, settings).status == "command"
    assert "Mail stopped" in mailbox.latest("ann@example.org", "Mail stopped")["Subject"]
    games.submit(MoveRequest(game["id"], seat=0, notation="enter a1 N"))
    games.submit(MoveRequest(game["id"], seat=1, notation="enter e5 S"))
    assert games.store.outbox_count(game_id=game["id"], seat=0, kind="turn") == 1
    assert receive(reply_to(turn, "start"), games, settings).status == "command"
    games.submit(MoveRequest(game["id"], seat=0, notation="enter a2 N"))
    games.submit(MoveRequest(game["id"], seat=1, notation="enter e4 S"))
    assert "(move 5)" in mailbox.latest("ann@example.org")["Subject"]


@pytest.mark.parametrize("command", [["send-mail"], ["worker", "--interval", "0.2"]])
def test_send_mail_and_worker_use_their_own_base_url_and_mail_domain(
    games: GameService, smtp_sink: tuple[Sink, str], db_url: str, command: list[str]
) -> None:
    sink, url = smtp_sink
    games.create("siam", PLAYERS, {})  # queued by a process with other settings
    env = {
        "TURNPOST_DB": db_url,
        "TURNPOST_SMTP_URL": url,
        "TURNPOST_BASE_URL": "https://play.example.net",
        "TURNPOST_MAIL_DOMAIN": "mail.example.net",
    }
    process = run_command(command, env)
    deadline = time.monotonic() + 30
    while not sink.messages and time.monotonic() < deadline:
        time.sleep(0.1)
    if command[0] == "worker":
        process.terminate()
    out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    [mail] = sink.messages
    assert mail["Message-ID"].endswith("@mail.example.net>")
    assert mail["Reply-To"].endswith("@mail.example.net")
    assert seat_link(mail).startswith("https://play.example.net/games/")
    assert mail["List-Unsubscribe"].startswith("<https://play.example.net/mail/stop/")
    assert "turnpost.example.org" not in text_of(mail) and "127.0.0.1:8000" not in text_of(mail)
    assert re.search(r"mail 1 \(turn, game \w+, seat 0\) sent: Your turn in Siam", out), out + err


def test_send_mail_prints_each_failure_and_exits_non_zero_when_one_is_for_good(
    games: GameService, db_url: str
) -> None:
    game = games.create("siam", PLAYERS, {})
    games.create("siam", [{"name": "Cy", "email": "cy@example.org"}, {"name": "Di"}], {})
    poisoned = "UPDATE outbox SET in_reply_to = '<a\r\nb@x>' WHERE game_id = ?"
    run_sql(db_url, poisoned, [game["id"]])  # a row that cannot go into a header

    class Refusing:
        async def handle_RCPT(self, server, session, envelope, address, options):  # noqa: N802
            return "550 5.1.1 No such user here"

    from aiosmtpd.controller import Controller

    from tests.support import free_port

    port = free_port()
    controller = Controller(Refusing(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        env = {"TURNPOST_DB": db_url, "TURNPOST_SMTP_URL": f"smtp://127.0.0.1:{port}"}
        process = run_command(["send-mail"], env)
        out, err = process.communicate(timeout=60)
    finally:
        controller.stop()
    assert process.returncode == 1, out + err
    assert "failed (for good): cannot build the message" in err
    assert "failed (for good): " in err and "No such user here" in err
    assert "mails sent 0, superseded 0, failed 2" in out
