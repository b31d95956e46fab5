"""Issue 20: "never mail me again" bypassed by another spelling of the same mailbox.

``"optout"@example.org`` and ``"opt\\out"@example.org`` are ``optout@example.org``
for every mail server, but were mailed again after its owner opted out, and
the limits per recipient counted each spelling apart; so are a domain written
in Unicode and its IDNA encoding. A real gunicorn server takes the games;
``turnpost send-mail`` delivers to a real SMTP server.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
from click.testing import CliRunner

from server.cli import main
from server.store import open_store
from tests.mail.conftest import DOMAIN, Sink
from tests.support import BackgroundServer, start_background

BASE_URL = "https://turnpost.example.org"
OPTED_OUT = "optout@example.org"
#: Other spellings of the same mailbox that creation refuses: not a plain local@domain.
REFUSED_SPELLINGS = [
    '"optout"@example.org',
    '"opt\\out"@example.org',
    '"optout+x"@EXAMPLE.org',
    "optout@[192.0.2.1]",
    "Opt Out <optout@example.org>",
]
#: Other spellings creation takes, stored as the envelope carries them.
TAKEN_SPELLINGS = {
    "OptOut@EXAMPLE.org": "OptOut@example.org",
    "optout+games@example.org": "optout+games@example.org",
    "optout@Example.ORG": "optout@example.org",
}

#: A mailbox of an international domain, as the SMTP envelope carries it (IDNA)...
IDNA_OPTED_OUT = "optout@xn--exmple-cua.org"
#: ... and other spellings of it that creation takes: the domain in Unicode, in capitals, a tag.
IDNA_SPELLINGS = [
    "optout@exämple.org",
    "OptOut@EXÄMPLE.org",
    "optout+games@Exämple.Org",
    "optout@XN--EXMPLE-CUA.ORG",
]


@pytest.fixture
def mail_server(tmp_path, smtp_sink: tuple[Sink, str]) -> Iterator[BackgroundServer]:
    """A gunicorn server whose games mail through the SMTP sink."""
    environment = {
        "TURNPOST_SMTP_URL": smtp_sink[1],
        "TURNPOST_MAIL_DOMAIN": DOMAIN,
        "TURNPOST_BASE_URL": BASE_URL,
    }
    server = start_background(str(tmp_path / "spellings.db"), environment=environment)
    yield server
    server.stop()


def send_mail(server: BackgroundServer, smtp_url: str) -> None:
    """Run ``turnpost send-mail`` on the server's database."""
    env = {
        "TURNPOST_DB": server.db_path,
        "TURNPOST_MAIL_DOMAIN": DOMAIN,
        "TURNPOST_SMTP_URL": smtp_url,
    }
    result = CliRunner().invoke(main, ["send-mail"], env={**env, "TURNPOST_BASE_URL": BASE_URL})
    assert result.exit_code == 0, result.output


def create(server: BackgroundServer, players: list[dict[str, str]]) -> requests.Response:
    """POST a Siam game with ``players``."""
    return requests.post(
        server.api("/games"), json={"engine": "siam", "players": players}, timeout=10
    )


def opt_out(server: BackgroundServer, sink: Sink, address: str = OPTED_OUT) -> None:
    """Follow the "never mail me again" link of the only mail (to ``address``), as a mail client
    does."""
    [mail] = sink.messages
    text = mail.get_body(("plain",)).get_content()
    link = text.split("Never mail me again (for any game): ", 1)[1].split()[0]
    answer = requests.post(
        server.url + link.removeprefix(BASE_URL),
        data="List-Unsubscribe=One-Click",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        timeout=10,
    )
    assert answer.status_code == 200 and address in answer.text


def test_no_spelling_of_an_opted_out_address_gets_mail_again(
    mail_server: BackgroundServer, smtp_sink: tuple[Sink, str]
) -> None:
    sink, smtp_url = smtp_sink
    assert create(mail_server, [{"name": "Ann", "email": OPTED_OUT}, {"name": "Bob"}]).ok
    send_mail(mail_server, smtp_url)
    assert sink.recipients == [[OPTED_OUT]]
    opt_out(mail_server, sink)

    for spelling in REFUSED_SPELLINGS:
        answer = create(mail_server, [{"name": "Eve", "email": spelling}, {"name": "Bob"}])
        assert answer.status_code == 422, spelling
        assert answer.json()["error"]["details"]["players"]["0"]["email"], spelling
    created = []
    for spelling in TAKEN_SPELLINGS:
        answer = create(mail_server, [{"name": "Eve", "email": spelling}, {"name": "Bob"}])
        assert answer.status_code == 201, answer.text
        created.append(answer.json()["id"])
    legacy = stored_before_the_fix(mail_server, '"opt\\out"@Example.org')
    send_mail(mail_server, smtp_url)

    assert sink.recipients == [[OPTED_OUT]], "another spelling was mailed again"
    store = open_store(mail_server.db_path)
    try:
        emails = [store.seats(game_id)[0].email for game_id in created]
        keys = {row["rcpt_key"] for row in store.db["outbox"].rows}
        assert store.game(legacy).seq == 1, "the move that would have mailed was played"
    finally:
        store.close()
    assert emails == list(TAKEN_SPELLINGS.values())
    assert keys == {OPTED_OUT}, "the limits count every spelling as one recipient"


def stored_before_the_fix(server: BackgroundServer, spelling: str) -> str:
    """A game whose second seat holds ``spelling`` (as creation took it before), now to move."""
    game = create(server, [{"name": "Ann"}, {"name": "Eve", "email": "placeholder@example.org"}])
    game_id = game.json()["id"]
    store = open_store(server.db_path)
    try:
        with store.write() as db:
            db.execute(
                "UPDATE seats SET email = ? WHERE game_id = ? AND seat = 1", [spelling, game_id]
            )
    finally:
        store.close()
    token = game.json()["players"][0]["token"]
    moved = requests.post(
        server.api(f"/games/{game_id}/moves"),
        json={"notation": "enter a1 N"},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert moved.status_code == 201, moved.text
    return game_id


def test_no_spelling_of_an_opted_out_address_with_an_international_domain_gets_mail_again(
    mail_server: BackgroundServer, smtp_sink: tuple[Sink, str]
) -> None:
    """The domain in Unicode or IDNA-encoded is one mailbox: opted out in one spelling, the
    others get no mail either."""
    sink, smtp_url = smtp_sink
    ann = {"name": "Ann", "email": "optout@exämple.org"}
    assert create(mail_server, [ann, {"name": "Bob"}]).status_code == 201
    send_mail(mail_server, smtp_url)
    assert sink.recipients == [[IDNA_OPTED_OUT]]
    opt_out(mail_server, sink, IDNA_OPTED_OUT)

    for spelling in IDNA_SPELLINGS:
        answer = create(mail_server, [{"name": "Eve", "email": spelling}, {"name": "Bob"}])
        assert answer.status_code == 201, answer.text
    legacy = stored_before_the_fix(mail_server, "OptOut@Exämple.org")
    send_mail(mail_server, smtp_url)

    assert sink.recipients == [[IDNA_OPTED_OUT]], "another spelling was mailed again"
    store = open_store(mail_server.db_path)
    try:
        keys = {row["rcpt_key"] for row in store.db["outbox"].rows}
        assert store.game(legacy).seq == 1, "the move that would have mailed was played"
    finally:
        store.close()
    assert keys == {IDNA_OPTED_OUT}, "the limits count every spelling as one recipient"
