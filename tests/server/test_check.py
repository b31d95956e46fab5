"""``turnpost check`` on a good configuration and on each broken one, the same warnings from
the app server and the worker as they start, and the receiver naming the setting to fix.

The commands run with only the settings given (:data:`SETTINGS` others unset,
as a service with its environment file would); the app server is a real
gunicorn process and the worker a child process.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import select
import signal
import subprocess
import time
import urllib.request
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest
from click.testing import CliRunner

from server.checks import Deployment, disk_findings
from server.cli import main
from server.mail.settings import MailSettings
from server.mail.smtpd import InboundHandler
from tests.support import BackgroundServer, free_port, run_command, start_background

SECRET = "s3cret-of-the-club"
DOMAIN = "play.example.org"

T = TypeVar("T")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    """A running app server, the base URL a good configuration names."""
    server = start_background(str(tmp_path_factory.mktemp("check") / "other.db"), workers=1)
    yield server
    server.stop()


def good(db_path: str, live: BackgroundServer) -> dict[str, str]:
    """A configuration with nothing wrong: a base URL that answers, SMTP, a set secret."""
    return {
        "TURNPOST_DB": db_path,
        "TURNPOST_SECRET_KEY": SECRET,
        "TURNPOST_BASE_URL": live.url,
        "TURNPOST_MAIL_DOMAIN": DOMAIN,
        "TURNPOST_SMTP_URL": f"smtp://127.0.0.1:{free_port()}",
    }


#: The settings a test may give; those it does not give are unset.
SETTINGS = (
    "TURNPOST_DB",
    "TURNPOST_SECRET_KEY",
    "TURNPOST_BASE_URL",
    "TURNPOST_MAIL_DOMAIN",
    "TURNPOST_SMTP_URL",
    "TURNPOST_PROXY_HOPS",
)


def turnpost(env: dict[str, str], *command: str, stdin: str | None = None) -> tuple[int, str]:
    """Run ``turnpost COMMAND`` with the settings ``env``: its exit status and all it wrote
    (standard output first)."""
    settings: dict[str, str | None] = {name: None for name in SETTINGS}
    result = CliRunner().invoke(main, list(command), input=stdin, env={**settings, **env})
    return result.exit_code, result.stdout + result.stderr


def check(env: dict[str, str]) -> tuple[int, list[str]]:
    """Run ``turnpost check``: its exit status and its ``error:`` and ``warning:`` lines."""
    status, output = turnpost(env, "check")
    return status, re.findall(r"^(?:error|warning): .*$", output, flags=re.M)


@pytest.fixture
def database(db_path: str) -> str:
    """An initialised database file."""
    assert turnpost({"TURNPOST_DB": db_path}, "init-db")[0] == 0
    return db_path


def test_a_good_configuration_has_nothing_to_say(database: str, live: BackgroundServer) -> None:
    assert check(good(database, live)) == (0, [])


def test_a_missing_database_is_an_error_and_is_not_created(db_path: str) -> None:
    status, output = turnpost({"TURNPOST_DB": db_path}, "check")
    assert status == 1 and "does not exist" in output and "TURNPOST_DB" in output
    assert not Path(db_path).exists()


def test_the_default_base_url_with_smtp_is_an_error(database: str, live: BackgroundServer) -> None:
    env = good(database, live)
    del env["TURNPOST_BASE_URL"]
    status, lines = check(env)
    assert status == 1
    assert lines == [f"error: {lines[0].split(': ', 1)[1]}"]
    assert "TURNPOST_BASE_URL is not set" in lines[0] and "http://127.0.0.1:8000" in lines[0]


def test_a_base_url_that_does_not_answer_is_a_warning(
    database: str, live: BackgroundServer
) -> None:
    env = {**good(database, live), "TURNPOST_BASE_URL": f"http://127.0.0.1:{free_port()}"}
    status, lines = check(env)
    assert status == 0
    assert len(lines) == 1 and lines[0].startswith("warning: TURNPOST_BASE_URL")
    assert "does not answer" in lines[0]


def test_a_plain_http_base_url_is_a_warning(database: str, live: BackgroundServer) -> None:
    env = {**good(database, live), "TURNPOST_BASE_URL": "http://turnpost.invalid"}
    status, lines = check(env)
    assert status == 0
    assert any("plain http" in line for line in lines), lines


def test_a_mail_domain_or_key_other_than_the_senders_is_an_error(
    database: str, live: BackgroundServer
) -> None:
    env = good(database, live)
    assert turnpost(env, "send-mail")[0] == 0  # records the domain and key it sends with
    assert check(env) == (0, [])
    status, lines = check({**env, "TURNPOST_MAIL_DOMAIN": "other.example.org"})
    assert status == 1 and len(lines) == 1
    assert "TURNPOST_MAIL_DOMAIN is other.example.org here" in lines[0]
    assert f"has {DOMAIN}" in lines[0] and "send-mail" in lines[0]
    status, lines = check({**env, "TURNPOST_SECRET_KEY": "another-secret"})
    assert status == 1 and len(lines) == 1 and "TURNPOST_SECRET_KEY differs" in lines[0]
    assert SECRET not in lines[0] and "another-secret" not in lines[0]


def test_no_smtp_while_seats_have_addresses_is_an_error(
    database: str, live: BackgroundServer
) -> None:
    env = good(database, live)
    del env["TURNPOST_SMTP_URL"]
    assert check(env) == (0, [])
    command = ["new-game", "siam", "--player", "Ann", "--player", "Bob", "--email", "a@b.org"]
    assert turnpost(env, *command)[0] == 0
    status, lines = check(env)
    assert status == 1 and len(lines) == 1
    assert "TURNPOST_SMTP_URL is not set" in lines[0] and "1 seats" in lines[0]


def test_a_proxied_request_without_proxy_hops_is_a_warning(database: str) -> None:
    server = start_background(database, workers=1)
    try:
        env = {**good(database, server), "TURNPOST_BASE_URL": server.url}
        assert check(env) == (0, [])
        request = urllib.request.Request(
            f"{server.url}/api/v1/engines", headers={"X-Forwarded-For": "203.0.113.7"}
        )
        urllib.request.urlopen(request, timeout=10).close()
        status, lines = check(env)
        assert status == 0 and len(lines) == 1
        assert "came through a proxy" in lines[0] and "TURNPOST_PROXY_HOPS=1" in lines[0]
        assert check({**env, "TURNPOST_PROXY_HOPS": "1"}) == (0, [])
        assert "X-Forwarded-For" in server.log() and "TURNPOST_PROXY_HOPS" in server.log()
    finally:
        server.stop()


def test_an_https_base_url_without_proxy_hops_says_how_to_tell(database: str) -> None:
    env = {"TURNPOST_DB": database, "TURNPOST_BASE_URL": "https://127.0.0.2.nip.invalid"}
    lines = check(env)[1]
    assert any("TURNPOST_PROXY_HOPS is not set" in line for line in lines), lines


@pytest.mark.parametrize("secret_set", [False, True])
def test_a_database_readable_by_all_is_said(
    database: str, live: BackgroundServer, secret_set: bool
) -> None:
    env = good(database, live)
    if not secret_set:
        del env["TURNPOST_SECRET_KEY"]
    os.chmod(database, 0o644)
    status, lines = check(env)
    assert len(lines) == 1 and "readable by every user" in lines[0]
    assert lines[0].startswith("warning:" if secret_set else "error:")
    assert status == (0 if secret_set else 1)
    assert "secret key" in lines[0] or secret_set
    assert os.stat(database).st_mode & 0o777 == 0o600  # opening it made it private
    assert check(env) == (0, [])


def test_little_free_disk_is_said(database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    deployment = Deployment.from_environment(database, SECRET)
    monkeypatch.setattr("server.checks.DISK_WARNING_BYTES", 2**62)
    [finding] = disk_findings(deployment)
    assert "MiB are free" in finding.text and finding.level in ("warning", "error")


def test_the_app_server_and_the_worker_warn_alike_at_start(database: str) -> None:
    env = {"TURNPOST_DB": database, "TURNPOST_SMTP_URL": f"smtp://127.0.0.1:{free_port()}"}
    server = start_background(database, workers=1, environment=env)
    server.stop()
    warning = "TURNPOST_BASE_URL is not set: every link in mails points at"
    worker = run_command(["worker", "--interval", "60"], env)
    try:
        said = first_line_with(worker, warning, seconds=60)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.communicate(timeout=30)
    assert said.startswith("error: ") and said in server.log()
    served = [line for line in server.log().splitlines() if warning in line]
    assert len(served) == 1  # once, not once per worker


def first_line_with(process: subprocess.Popen, words: str, seconds: float) -> str:
    """The first line of ``process``'s stderr holding ``words`` (within ``seconds``), or ``""``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], deadline - time.monotonic())
        line = process.stderr.readline() if ready else ""
        if words in line:
            return line.strip()
        if ready and not line:  # the process ended
            return ""
    return ""


def reply(address: str) -> str:
    """A reply carrying a move to ``address``."""
    return (
        f"From: ann@example.org\r\nTo: {address}\r\nSubject: Re: your turn\r\n"
        "Message-ID: <r1@example.org>\r\n\r\nenter a1 N\r\n"
    )


def test_mail_in_names_the_setting_when_the_domain_or_key_differs(
    database: str, live: BackgroundServer
) -> None:
    env = good(database, live)
    command = ["new-game", "siam", "--player", "Ann", "--player", "Bob", "--email", "a@b.org"]
    game_id = re.search(r"Game (\w+)", turnpost(env, *command)[1]).group(1)
    address = turnpost(env, "mail-key", game_id, "0")[1].strip()
    assert address.endswith(f"@{DOMAIN}")
    assert turnpost(env, "send-mail")[0] == 0  # the sender's domain and key are recorded
    status, output = turnpost(
        {**env, "TURNPOST_MAIL_DOMAIN": "other.example.org"}, "mail-in", stdin=reply(address)
    )
    outcome = json.loads(output)
    assert status == 0 and outcome["status"] == "dropped"
    assert f"for the mail domain {DOMAIN}" in outcome["reason"]
    assert "TURNPOST_MAIL_DOMAIN is other.example.org here" in outcome["reason"]
    status, output = turnpost(
        {**env, "TURNPOST_SECRET_KEY": "another"}, "mail-in", stdin=reply(address)
    )
    outcome = json.loads(output)
    assert outcome["status"] == "dropped" and "TURNPOST_SECRET_KEY" in outcome["reason"]
    status, output = turnpost(env, "mail-in", stdin=reply(address))
    assert json.loads(output)["status"] == "applied"


def apart(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` on an event loop of its own thread (a test before may have left
    a loop running in this one, as Playwright's sync API does)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def test_the_smtp_receiver_logs_the_setting_for_another_domain(
    db_path: str, caplog: pytest.LogCaptureFixture
) -> None:
    handler = InboundHandler(db_path, MailSettings(secret=SECRET, domain=DOMAIN))
    envelope = SimpleNamespace(rcpt_tos=[])
    address = "play+ab12.0.k3y@other.example.org"
    answer = apart(handler.handle_RCPT(None, None, envelope, address, []))
    assert answer.startswith("550") and envelope.rcpt_tos == []
    assert "for the mail domain other.example.org" in caplog.text
    assert f"TURNPOST_MAIL_DOMAIN is {DOMAIN} here" in caplog.text
    mine = f"play+ab12.0.k3y@{DOMAIN}"
    assert apart(handler.handle_RCPT(None, None, envelope, mine, [])) == "250 OK"
