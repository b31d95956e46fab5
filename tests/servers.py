"""Real PostgreSQL and Redis servers for the tests, from Debian's packages.

:func:`running_postgres` makes a cluster with ``initdb`` from
``/usr/lib/postgresql/*/bin`` in a temporary directory and starts it with
``pg_ctl``, as an unprivileged user (as root: the ``postgres`` system user,
through ``runuser``, the directory given to it): trust authentication on
127.0.0.1 only, a free port, the socket in that directory.
:func:`running_redis` starts ``redis-server`` on a free port of 127.0.0.1,
keeping nothing on disk. Each installs its Debian package first when it is
missing (``tests/install_servers.sh``, which needs root, as CI has) and
skips the test, saying why, only when that is impossible.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from tests.support import free_port

#: Installs the servers' packages when missing (``.ci/run`` runs it too).
INSTALL_SCRIPT = Path(__file__).resolve().parent / "install_servers.sh"
#: Where Debian's ``postgresql`` package puts each major version's programs.
POSTGRES_ROOT = Path("/usr/lib/postgresql")
#: The cluster's superuser (trusted without a password, from 127.0.0.1 and the socket only).
POSTGRES_USER = "postgres"
#: Who may connect, and how: the cluster's socket and 127.0.0.1, nothing else.
POSTGRES_HBA = "local all all trust\nhost all all 127.0.0.1/32 trust\n"
#: Seconds a server has to start.
START_SECONDS = 60


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
        subprocess.run([*command, name], check=True, capture_output=True)
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
    return shutil.which(package) is not None


def require(package: str) -> None:
    """Install ``package`` (``postgresql`` or ``redis-server``) if it is missing; skip the
    test when that cannot be done."""
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
