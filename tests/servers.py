"""Real PostgreSQL, Redis, nginx and Dovecot (IMAP) servers for the tests, from Debian's packages.

:func:`running_postgres` makes a cluster with ``initdb`` from
``/usr/lib/postgresql/*/bin`` in a temporary directory and starts it with
``pg_ctl``, as an unprivileged user (as root: the ``postgres`` system user,
through ``runuser``, the directory given to it): trust authentication on
127.0.0.1 only, a free port, the socket in that directory.
:func:`running_redis` starts ``redis-server`` on a free port of 127.0.0.1,
keeping nothing on disk. :func:`running_nginx` runs ``nginx`` in the foreground with a
test's configuration in a temporary directory. :func:`running_dovecot` starts Dovecot serving
IMAP over TLS only (a self-signed test certificate for 127.0.0.1, which a client trusts through
``SSL_CERT_FILE``) on a free port of 127.0.0.1, for one user with a password, its mail in the
temporary directory. Each installs its Debian package first when it is missing
(``tests/install_servers.sh``, which needs root, as CI has) and skips the test, saying why, only
when that is impossible.
"""

from __future__ import annotations

import imaplib
import os
import pwd
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from tests.mail.push_service import self_signed
from tests.support import free_port

#: Installs the servers' packages when missing (``.ci/run`` runs it too).
INSTALL_SCRIPT = Path(__file__).resolve().parent / "install_servers.sh"
#: Where Debian's ``postgresql`` package puts each major version's programs.
POSTGRES_ROOT = Path("/usr/lib/postgresql")
#: The cluster's superuser (trusted without a password, from 127.0.0.1 and the socket only).
POSTGRES_USER = "postgres"
#: Who may connect, and how: the cluster's socket and 127.0.0.1, nothing else.
POSTGRES_HBA = "local all all trust\nhost all all 127.0.0.1/32 trust\n"
#: Where the servers' programs are looked for (nginx is in /usr/sbin, off a user's PATH).
SERVER_PATH = f"{os.environ.get('PATH', '')}:/usr/sbin"
#: Seconds a server has to start.
START_SECONDS = 60
#: Debian's Dovecot, and the folder of its helper programs (``imap``, ``imap-login``...).
DOVECOT, DOVECOT_LIBEXEC = Path("/usr/sbin/dovecot"), Path("/usr/lib/dovecot")
#: The one IMAP user of a test Dovecot, and its password.
IMAP_USER, IMAP_PASSWORD = "play@club.example", "correct horse"
#: A Dovecot serving IMAP over TLS only, on 127.0.0.1; ``{...}`` filled by :func:`running_dovecot`.
DOVECOT_CONFIG = """\
protocols = imap
listen = 127.0.0.1
base_dir = {home}/run
state_dir = {home}/state
log_path = {home}/dovecot.log
ssl = required
ssl_cert = <{cert}
ssl_key = <{key}
ssl_min_protocol = TLSv1.2
auth_mechanisms = plain
disable_plaintext_auth = yes
default_internal_user = {internal}
default_internal_group = {internal_group}
default_login_user = {login}
first_valid_uid = 0
mail_location = maildir:{home}/mail/%u
passdb {{
  driver = passwd-file
  args = scheme=PLAIN {home}/passwd
}}
userdb {{
  driver = static
  args = uid={mail_user} gid={mail_group} home={home}/mail/%u
}}
service imap-login {{
  inet_listener imap {{
    port = 0
  }}
  inet_listener imaps {{
    port = {port}
    ssl = yes
  }}
}}
service anvil {{
  chroot =
}}
service imap-login {{
  chroot =
}}
"""


@dataclass(frozen=True)
class PostgresServer:
    """A running PostgreSQL cluster: its superuser's URL to the ``postgres`` database."""

    url: str
    port: int
    socket_dir: Path

    def create_database(self, name: str) -> str:
        """Create an empty database ``name`` and return its URL."""
        createdb = postgres_bin() / "createdb"
        command = [str(createdb), "-h", "127.0.0.1", "-p", str(self.port), "-U", POSTGRES_USER]
        made = subprocess.run([*command, name], capture_output=True, text=True)
        if made.returncode != 0:
            raise RuntimeError(f"createdb {name} failed: {made.stderr.strip()}")
        return f"postgresql://{POSTGRES_USER}@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        """Stop the cluster at once (``pg_ctl stop -m immediate``: as if it died)."""
        subprocess.run(pg_ctl(self.socket_dir, "-m", "immediate", "stop"), capture_output=True)

    def start(self) -> None:
        """Start the cluster (again); raise with its log if it does not start."""
        log = self.socket_dir / "postgres.log"
        timeout = ["-l", str(log), "-w", "-t", str(START_SECONDS)]
        started = subprocess.run(pg_ctl(self.socket_dir, *timeout, "start"), capture_output=True)
        if started.returncode != 0:
            raise RuntimeError(
                f"PostgreSQL did not start: {log.read_text(errors='replace')[-2000:]}"
            )


@dataclass(frozen=True)
class DovecotServer:
    """A running Dovecot: IMAP over TLS on ``port``, its test certificate (to trust) and key."""

    port: int
    certificate: Path
    key: Path
    log: Path

    def url(self, port: int | None = None) -> str:
        """Turnpost's ``TURNPOST_IMAP_URL`` for the user's inbox (through ``port`` if given)."""
        user = IMAP_USER.replace("@", "%40")
        return f"imaps://{user}:{IMAP_PASSWORD.replace(' ', '%20')}@127.0.0.1:{port or self.port}"

    def client(self) -> imaplib.IMAP4_SSL:
        """A client signed in as the user, its inbox selected (the certificate trusted)."""
        context = ssl.create_default_context(cafile=str(self.certificate))
        imap = imaplib.IMAP4_SSL("127.0.0.1", self.port, ssl_context=context, timeout=30)
        imap.login(IMAP_USER, IMAP_PASSWORD)
        imap.select("INBOX")
        return imap

    def deliver(self, raw: bytes) -> None:
        """Put a message into the user's inbox (as the provider does with mail it receives)."""
        with self.client() as imap:
            status, data = imap.append("INBOX", None, None, raw)
            assert status == "OK", data

    def inbox(self) -> list[bytes]:
        """The messages in the user's inbox that are not deleted."""
        with self.client() as imap:
            _, data = imap.search(None, "UNDELETED")
            return [imap.fetch(number, "(BODY.PEEK[])")[1][0][1] for number in data[0].split()]


@dataclass(frozen=True)
class RedisServer:
    """A running ``redis-server`` process and its URL."""

    url: str
    process: subprocess.Popen

    def client(self) -> redis.Redis:
        """A client of this server."""
        return redis.Redis.from_url(self.url)


def postgres_bin() -> Path:
    """The programs' folder of the newest PostgreSQL installed (raises if there is none)."""
    folders = [path.parent for path in POSTGRES_ROOT.glob("*/bin/postgres")]
    if not folders:
        raise FileNotFoundError(f"no PostgreSQL under {POSTGRES_ROOT}")
    return max(folders, key=lambda folder: int(folder.parent.name))


def installed(package: str) -> bool:
    """Whether the server of a package of :data:`INSTALL_SCRIPT` is installed."""
    if package == "postgresql":
        return any(POSTGRES_ROOT.glob("*/bin/postgres"))
    if package == "dovecot-imapd":
        return DOVECOT.exists() and (DOVECOT_LIBEXEC / "imap").exists()
    return shutil.which(package, path=SERVER_PATH) is not None


def require(package: str) -> None:
    """Install ``package`` (``postgresql``, ``redis-server``, ``nginx`` or ``dovecot-imapd``) if
    it is missing; skip the test when that cannot be done."""
    if installed(package):
        return
    if os.geteuid() != 0:
        pytest.skip(f"{package} is not installed, and installing it needs root")
    done = subprocess.run([str(INSTALL_SCRIPT), package], capture_output=True, text=True)
    if done.returncode != 0 or not installed(package):
        pytest.skip(f"{package} could not be installed: {done.stderr.strip()[-1000:]}")


def as_postgres_user(command: list[str]) -> list[str]:
    """``command`` run as an unprivileged user: as root, the ``postgres`` system user."""
    return ["runuser", "-u", POSTGRES_USER, "--", *command] if os.geteuid() == 0 else command


def pg_ctl(home: Path, *arguments: str) -> list[str]:
    """The command running ``pg_ctl`` on the cluster in ``home`` with ``arguments``."""
    return as_postgres_user([str(postgres_bin() / "pg_ctl"), "-D", str(home / "data"), *arguments])


@contextmanager
def running_postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster in a temporary directory, stopped and removed afterwards."""
    require("postgresql")
    programs = postgres_bin()
    home = Path(tempfile.mkdtemp(prefix="turnpost-postgres-"))
    if os.geteuid() == 0:
        shutil.chown(home, POSTGRES_USER, POSTGRES_USER)
    data, port = home / "data", free_port()
    initdb = [str(programs / "initdb"), "-D", str(data), "-U", POSTGRES_USER]
    try:
        subprocess.run(
            as_postgres_user(
                [*initdb, "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"]
            ),
            check=True,
            capture_output=True,
        )
        (data / "pg_hba.conf").write_text(POSTGRES_HBA)
        with (data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"listen_addresses = '127.0.0.1'\nport = {port}\n"
                f"unix_socket_directories = '{home}'\nfsync = off\n"
            )
        server = PostgresServer(
            f"postgresql://{POSTGRES_USER}@127.0.0.1:{port}/postgres", port, home
        )
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(home, ignore_errors=True)


@contextmanager
def running_redis() -> Iterator[RedisServer]:
    """A ``redis-server`` on a free port, keeping nothing on disk, stopped afterwards."""
    require("redis-server")
    home = Path(tempfile.mkdtemp(prefix="turnpost-redis-"))
    port = free_port()
    options = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    with (home / "redis.log").open("wb") as log:
        process = subprocess.Popen(
            ["redis-server", *options, "--dir", str(home)], stdout=log, stderr=log
        )
    server = RedisServer(f"redis://127.0.0.1:{port}/0", process)
    try:
        wait_for_redis(server, home / "redis.log")
        yield server
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(home, ignore_errors=True)


def wait_for_redis(server: RedisServer, log: Path) -> None:
    """Wait until ``server`` answers ``PING``; raise with its log if it never does."""
    deadline = time.monotonic() + START_SECONDS
    while server.process.poll() is None and time.monotonic() < deadline:
        try:
            with server.client() as client:
                client.ping()
            return
        except redis.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError(f"redis-server did not start: {log.read_text(errors='replace')[-2000:]}")


@contextmanager
def running_nginx(site: str, port: int) -> Iterator[Path]:
    """``nginx`` serving ``site`` (a ``server`` and ``upstream`` configuration, included in its
    ``http`` block) until the context ends; yields its directory (``error.log`` is there).

    ``port`` is one the site listens on: the context waits until it accepts connections.
    """
    require("nginx")
    home = Path(tempfile.mkdtemp(prefix="turnpost-nginx-"))
    (home / "site.conf").write_text(site)
    (home / "nginx.conf").write_text(
        f"daemon off;\nmaster_process on;\nworker_processes 1;\npid {home}/nginx.pid;\n"
        f"error_log {home}/error.log info;\nevents {{ worker_connections 256; }}\n"
        f"http {{\n  access_log off;\n"
        + "".join(
            f"  {kind}_temp_path {home}/{kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        + f"  include {home}/site.conf;\n}}\n"
    )
    nginx = shutil.which("nginx", path=SERVER_PATH)
    command = [str(nginx), "-p", str(home), "-c", str(home / "nginx.conf")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True)
    if checked.returncode != 0:
        shutil.rmtree(home, ignore_errors=True)
        raise RuntimeError(f"nginx refused the configuration: {checked.stderr}")
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process, home / "error.log")
        yield home
    finally:
        process.terminate()
        process.wait(timeout=10)
        shutil.rmtree(home, ignore_errors=True)


def wait_for_port(port: int, process: subprocess.Popen, log: Path) -> None:
    """Wait until ``127.0.0.1:port`` accepts connections; raise with ``log`` if it never does."""
    deadline = time.monotonic() + START_SECONDS
    while process.poll() is None and time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    text = log.read_text(errors="replace") if log.exists() else ""
    raise RuntimeError(f"the server did not listen on port {port}: {text[-2000:]}")


@contextmanager
def running_dovecot() -> Iterator[DovecotServer]:
    """Dovecot serving IMAP over TLS for :data:`IMAP_USER` in a temporary directory, stopped
    and removed afterwards. As root, its mail belongs to ``nobody`` and its helpers run as
    Debian's ``dovecot`` and ``dovenull`` users; else everything runs as the current user."""
    require("dovecot-imapd")
    home = Path(tempfile.mkdtemp(prefix="turnpost-dovecot-"))
    home.chmod(0o755)
    cert, key = self_signed(home)
    port = free_port()
    me = pwd.getpwuid(os.getuid()).pw_name
    root = os.geteuid() == 0
    mail_user = pwd.getpwnam("nobody") if root else pwd.getpwuid(os.getuid())
    (home / "mail").mkdir()
    os.chown(home / "mail", mail_user.pw_uid, mail_user.pw_gid)
    (home / "passwd").write_text(f"{IMAP_USER}:{{PLAIN}}{IMAP_PASSWORD}\n")
    config = home / "dovecot.conf"
    config.write_text(
        DOVECOT_CONFIG.format(
            home=home,
            cert=cert,
            key=key,
            port=port,
            internal="dovecot" if root else me,
            internal_group="dovecot" if root else me,
            login="dovenull" if root else me,
            mail_user=mail_user.pw_uid,
            mail_group=mail_user.pw_gid,
        )
    )
    log = home / "dovecot.log"
    with (home / "dovecot.out").open("wb") as out:  # -F: in the foreground, a child of ours
        process = subprocess.Popen([str(DOVECOT), "-F", "-c", str(config)], stdout=out, stderr=out)
    server = DovecotServer(port, cert, key, log)
    try:
        wait_for_imap(server, process)
        yield server
    finally:
        process.terminate()
        process.wait(timeout=30)
        shutil.rmtree(home, ignore_errors=True)


def wait_for_imap(server: DovecotServer, process: subprocess.Popen) -> None:
    """Wait until ``server`` lets its user in; raise with its log if it never does."""
    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            server.client().logout()
            return
        except (OSError, imaplib.IMAP4.error):
            if process.poll() is not None or time.monotonic() > deadline:
                logs = [server.log, server.log.with_suffix(".out")]
                text = "".join(path.read_text(errors="replace") for path in logs if path.exists())
                raise RuntimeError(f"Dovecot did not start: {text[-2000:]}") from None
            time.sleep(0.1)
