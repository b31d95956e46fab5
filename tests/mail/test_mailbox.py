"""Mail without a mail server: turn mails sent through an authenticated submission port
(aiosmtpd with AUTH, over STARTTLS or implicit TLS) and replies read from an ordinary
mailbox over IMAP over TLS (Debian's Dovecot), each by a real ``turnpost`` process that
trusts the servers' test certificate through ``SSL_CERT_FILE``.

A move mailed in is applied once even when its message is read twice (delivered again)
or when the connection drops while the message is being fetched.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any
from urllib.parse import quote

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from server.store import open_store
from tests.mail.conftest import BASE_URL, DOMAIN, reply_to
from tests.servers import DovecotServer
from tests.support import free_port, run_command

#: These tests run on SQLite and on PostgreSQL (tests/conftest.py).
ON_BOTH_BACKENDS = True

#: The submission account Turnpost signs in with.
SUBMISSION_USER, SUBMISSION_PASSWORD = "turnpost@club.example", "s3cret pass"
#: Bytes of server answers after which the cutting relay drops its first connection: past
#: TLS, sign-in, search, and well into the fetch of a reply of :data:`PADDED` bytes.
CUT_AFTER = 30_000
PADDED = 100_000


@dataclass
class Submission:
    """An aiosmtpd submission server's handler: each mail received, with who sent it and
    whether it came over TLS, and every sign-in tried."""

    messages: list[EmailMessage] = field(default_factory=list)
    senders: list[tuple[str, bool]] = field(default_factory=list)
    sign_ins: list[tuple[str, bool]] = field(default_factory=list)

    def authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any):
        """aiosmtpd's authenticator: only :data:`SUBMISSION_USER` with its password."""
        login, password = data.login.decode(), data.password.decode()
        self.sign_ins.append((login, encrypted(server)))
        ok = (login, password) == (SUBMISSION_USER, SUBMISSION_PASSWORD)
        return AuthResult(success=ok, handled=False, auth_data=data)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        """Keep the message, the account that sent it and whether the session was encrypted."""
        self.messages.append(BytesParser(policy=policy.default).parsebytes(envelope.content))
        login = session.auth_data.login.decode() if session.authenticated else ""
        self.senders.append((login, encrypted(server)))
        return "250 OK"


def encrypted(server: Any) -> bool:
    """Whether an aiosmtpd session runs over TLS now."""
    return server.transport.get_extra_info("ssl_object") is not None


def server_context(dovecot: DovecotServer) -> ssl.SSLContext:
    """A server TLS context with the test certificate (the one Dovecot has too)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(dovecot.certificate, dovecot.key)
    return context


def start_submission(dovecot: DovecotServer, implicit_tls: bool) -> tuple[Submission, str]:
    """An aiosmtpd submission server with AUTH (only over TLS): STARTTLS required, or TLS from
    the first byte; its handler and Turnpost's ``TURNPOST_SMTP_URL`` for it."""
    handler, port = Submission(), free_port()
    tls = {"ssl_context" if implicit_tls else "tls_context": server_context(dovecot)}
    controller = Controller(
        handler,
        hostname="127.0.0.1",
        port=port,
        authenticator=handler.authenticate,
        auth_require_tls=not implicit_tls,  # aiosmtpd sees implicit TLS as none: all is TLS
        auth_exclude_mechanism=["LOGIN"],
        require_starttls=not implicit_tls,
        **tls,
    )
    controller.start()
    scheme = "smtps" if implicit_tls else "smtp+starttls"
    user, password = (quote(SUBMISSION_USER), quote(SUBMISSION_PASSWORD))
    handler.stop = controller.stop
    return handler, f"{scheme}://{user}:{password}@127.0.0.1:{port}"


@pytest.fixture
def submission(dovecot: DovecotServer) -> Iterator[tuple[Submission, str]]:
    """A submission server speaking STARTTLS, and its URL."""
    handler, url = start_submission(dovecot, implicit_tls=False)
    yield handler, url
    handler.stop()


def environment(db_url: str, dovecot: DovecotServer, smtp_url: str, **more: str) -> dict:
    """The environment of every ``turnpost`` process of a test."""
    return {
        "TURNPOST_DB": db_url,
        "TURNPOST_MAIL_DOMAIN": DOMAIN,
        "TURNPOST_BASE_URL": BASE_URL,
        "TURNPOST_SMTP_URL": smtp_url,
        "TURNPOST_IMAP_URL": dovecot.url(),
        "SSL_CERT_FILE": str(dovecot.certificate),
        **more,
    }


def turnpost(command: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """Run ``turnpost COMMAND``: its exit status, stdout and stderr."""
    process = run_command(command, env)
    out, err = process.communicate(timeout=120)
    return process.returncode, out, err


def new_game(env: dict[str, str]) -> str:
    """A Siam game between Ann and Bob with their addresses, Ann mailed now; its id."""
    status, out, err = turnpost(
        ["new-game", "siam", "--player", "Ann", "--email", "ann@example.org"]
        + ["--player", "Bob", "--email", "bob@example.org", "--invite"],
        env,
    )
    assert status == 0, err
    return out.split()[1]


def moves(db_url: str, game_id: str) -> list[str]:
    """The notations of a game's log."""
    store = open_store(db_url)
    try:
        return [move.notation for move in store.moves(game_id)]
    finally:
        store.close()


def turn_mail(handler: Submission, address: str) -> EmailMessage:
    """The newest mail the submission server took for ``address``."""
    mails = [mail for mail in handler.messages if mail["To"] == address]
    assert mails, f"no mail to {address}"
    return mails[-1]


class CuttingRelay:
    """A TCP relay to ``port`` that drops its first connection once the server has sent
    ``cut_after`` bytes through it (TLS passes through untouched); later ones it relays whole."""

    def __init__(self, port: int, cut_after: int) -> None:
        self.target, self.cut_after = port, cut_after
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.cuts = 0
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        """Relay each connection in threads of its own."""
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target))
            limit = self.cut_after if self.cuts == 0 else None
            self.cuts += limit is not None
            threading.Thread(target=self.pipe, args=(client, server, None), daemon=True).start()
            threading.Thread(target=self.pipe, args=(server, client, limit), daemon=True).start()

    @staticmethod
    def pipe(source: socket.socket, sink: socket.socket, limit: int | None) -> None:
        """Copy ``source`` to ``sink``; past ``limit`` bytes, close both."""
        sent = 0
        try:
            while data := source.recv(4096):
                if limit is not None and sent + len(data) > limit:
                    break
                sink.sendall(data)
                sent += len(data)
        except OSError:
            pass
        for end in (source, sink):  # shut down first: it wakes the other direction's recv
            with suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def close(self) -> None:
        """Stop accepting."""
        self.listener.close()


def wait_until(condition: Any, seconds: float = 60) -> None:
    """Wait until ``condition()`` is true."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def test_a_turn_mail_goes_out_through_submission_and_its_reply_comes_back_from_the_mailbox(
    db_url: str, dovecot: DovecotServer, submission: tuple[Submission, str]
) -> None:
    handler, smtp_url = submission
    env = environment(db_url, dovecot, smtp_url)
    game_id = new_game(env)
    status, out, err = turnpost(["send-mail"], env)
    assert status == 0, err
    assert set(handler.senders) == {(SUBMISSION_USER, True)}  # signed in, over TLS only
    assert all(over_tls for _, over_tls in handler.sign_ins)
    turn = turn_mail(handler, "ann@example.org")
    reply = reply_to(turn, "enter b1 N")
    dovecot.deliver(reply)

    status, out, err = turnpost(["fetch-mail"], env)
    assert status == 0, err
    assert '"status": "applied"' in out
    assert moves(db_url, game_id) == ["enter b1 N"]
    assert dovecot.inbox() == []  # handled: deleted from the mailbox

    dovecot.deliver(reply)  # the same message again (a provider delivering it twice)
    status, out, err = turnpost(["fetch-mail"], env)
    assert status == 0, err
    assert '"status": "duplicate"' in out
    assert moves(db_url, game_id) == ["enter b1 N"]
    assert dovecot.inbox() == []


def test_a_connection_dropped_mid_fetch_loses_no_reply_and_applies_it_once(
    db_url: str, dovecot: DovecotServer, submission: tuple[Submission, str]
) -> None:
    handler, smtp_url = submission
    env = environment(db_url, dovecot, smtp_url)
    game_id = new_game(env)
    assert turnpost(["send-mail"], env)[0] == 0
    padding = "\n\n" + "a long letter to the table " * (PADDED // 27)
    dovecot.deliver(reply_to(turn_mail(handler, "ann@example.org"), "enter b1 N" + padding))

    relay = CuttingRelay(dovecot.port, CUT_AFTER)
    try:
        cut_env = {**env, "TURNPOST_IMAP_URL": dovecot.url(relay.port)}
        status, out, err = turnpost(["fetch-mail"], cut_env)
    finally:
        relay.close()
    assert status == 75, err  # EX_TEMPFAIL: try again later
    assert "temporary failure: IMAP" in err
    dropped = [line for line in dovecot.log.read_text().splitlines() if "Disconnected" in line]
    assert "FETCH" in dropped[-1]  # Dovecot saw the connection go while it sent the message
    assert moves(db_url, game_id) == []
    assert len(dovecot.inbox()) == 1  # still there for the next round

    worker = run_command(["worker", "--interval", "0.2"], env)
    try:
        wait_until(lambda: moves(db_url, game_id) == ["enter b1 N"] and not dovecot.inbox())
    finally:
        worker.terminate()
        out, err = worker.communicate(timeout=30)
    assert out.count('"status": "applied"') == 1, out + err
    assert moves(db_url, game_id) == ["enter b1 N"]


def test_implicit_tls_submission_signs_in_and_sends(db_url: str, dovecot: DovecotServer) -> None:
    handler, smtp_url = start_submission(dovecot, implicit_tls=True)
    try:
        env = environment(db_url, dovecot, smtp_url)
        new_game(env)
        status, out, err = turnpost(["send-mail"], env)
    finally:
        handler.stop()
    assert status == 0, err
    assert set(handler.senders) == {(SUBMISSION_USER, True)}, err
    assert turn_mail(handler, "ann@example.org")["Reply-To"].startswith("play+")


def test_a_wrong_submission_password_keeps_the_mail_for_a_retry(
    db_url: str, dovecot: DovecotServer, submission: tuple[Submission, str]
) -> None:
    handler, smtp_url = submission
    wrong = smtp_url.replace(quote(SUBMISSION_PASSWORD), "wrong")
    env = environment(db_url, dovecot, wrong)
    new_game(env)
    status, out, err = turnpost(["send-mail"], env)
    assert status == 0, err  # not failed for good: the operator fixes the password
    assert "failed (will retry)" in err and "535" in err
    assert "wrong" not in out + err  # the password is never printed
    assert handler.messages == []


def test_starttls_submission_never_signs_in_without_tls(db_url: str, dovecot: DovecotServer):
    handler, port = Submission(), free_port()
    controller = Controller(
        handler,
        hostname="127.0.0.1",
        port=port,
        authenticator=handler.authenticate,
        auth_exclude_mechanism=["LOGIN"],
    )
    controller.start()
    try:
        url = f"smtp+starttls://{quote(SUBMISSION_USER)}:{quote(SUBMISSION_PASSWORD)}"
        env = environment(db_url, dovecot, f"{url}@127.0.0.1:{port}")
        new_game(env)
        status, out, err = turnpost(["send-mail"], env)
    finally:
        controller.stop()
    assert status == 0, err
    assert "STARTTLS" in err and "will retry" in err
    assert handler.sign_ins == [] and handler.messages == []


def test_a_wrong_mailbox_password_is_a_temporary_failure_in_words(
    db_url: str, dovecot: DovecotServer
) -> None:
    url = dovecot.url().replace("correct%20horse", "wrong")
    env = environment(db_url, dovecot, "", TURNPOST_IMAP_URL=url)
    status, out, err = turnpost(["fetch-mail"], env)
    assert status == 75
    assert "temporary failure: IMAP 127.0.0.1" in err and "wrong" not in err
