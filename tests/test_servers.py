"""The test servers of :mod:`tests.servers`: real PostgreSQL, Redis and Dovecot from Debian's
packages."""

from __future__ import annotations

import imaplib
import os
import ssl
import stat
import subprocess

import pytest

from tests.servers import (
    IMAP_USER,
    POSTGRES_USER,
    DovecotServer,
    PostgresServer,
    RedisServer,
    postgres_bin,
)


def psql(server: PostgresServer, url: str, query: str) -> str:
    """One query's answer through ``psql`` (unaligned, tuples only)."""
    command = [str(postgres_bin() / "psql"), url, "-XAtc", query]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def test_postgres_runs_unprivileged_on_loopback_with_its_socket_in_its_directory(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.url
    assert psql(postgres_server, url, "SHOW listen_addresses") == "127.0.0.1"
    assert psql(postgres_server, url, "SHOW unix_socket_directories") == str(
        postgres_server.socket_dir
    )
    assert (postgres_server.socket_dir / f".s.PGSQL.{postgres_server.port}").exists()
    pid = int((postgres_server.socket_dir / "data" / "postmaster.pid").read_text().split()[0])
    assert os.stat(f"/proc/{pid}").st_uid != 0, "the server does not run as root"
    assert stat.S_IMODE(os.stat(postgres_server.socket_dir / "data").st_mode) == 0o700
    assert psql(postgres_server, url, "SELECT current_user") == POSTGRES_USER


def test_postgres_makes_fresh_databases(postgres_server: PostgresServer) -> None:
    url = postgres_server.create_database("fresh_one")
    assert url.endswith("/fresh_one")
    assert psql(postgres_server, url, "SELECT current_database()") == "fresh_one"


def test_redis_keeps_nothing_on_disk(redis_server: RedisServer) -> None:
    with redis_server.client() as client:
        client.set("k", "v")
        assert client.get("k") == b"v"
        config = client.config_get("*")
    assert (config["save"], config["appendonly"], config["bind"]) == ("", "no", "127.0.0.1")


def test_dovecot_speaks_imap_over_tls_only_and_checks_the_password(dovecot: DovecotServer):
    with pytest.raises((imaplib.IMAP4.abort, OSError)):  # no IMAP without TLS on its port
        imaplib.IMAP4("127.0.0.1", dovecot.port, timeout=5)
    with dovecot.client() as imap:  # the test certificate, trusted; the right password
        assert imap.select("INBOX")[0] == "OK"
    context = ssl.create_default_context(cafile=str(dovecot.certificate))
    imap = imaplib.IMAP4_SSL("127.0.0.1", dovecot.port, ssl_context=context, timeout=10)
    with imap, pytest.raises(imaplib.IMAP4.error, match="AUTHENTICATIONFAILED"):
        imap.login(IMAP_USER, "wrong")
