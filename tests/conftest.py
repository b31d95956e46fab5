"""Shared fixtures: an app on a real SQLite file, a real gunicorn server process, real
PostgreSQL, Redis and Dovecot (IMAP) servers (:mod:`tests.servers`), and the session's one
Playwright driver with Debian's Chromium (the browser tests and the mail tests that render mails
share it: two drivers cannot run in one thread). The order in which the test processes take
up modules, and ``--record-durations``, are :mod:`tests.scheduling`'s."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

from server import create_app
from server.store.postgres import close_pool
from tests.scheduling import (  # noqa: F401 (pytest's hooks, found here by their names)
    pytest_addoption,
    pytest_runtest_logreport,
    pytest_sessionfinish,
    pytest_xdist_make_scheduler,
)
from tests.servers import (
    DovecotServer,
    PostgresServer,
    RedisServer,
    running_dovecot,
    running_postgres,
    running_redis,
)
from tests.support import BackgroundServer, start_background
from tests.web.conftest import AXE, CHROMIUM, CHROMIUM_ARGS

#: The suite creates hundreds of games from 127.0.0.1, far past the default creation limit
#: per address (``10/hour``); the tests of that limit set their own in the app config.
TEST_CREATE_LIMIT = "100000/hour"


@pytest.fixture(autouse=True, scope="session")
def creation_limit_for_tests() -> Iterator[None]:
    """Raise the creation limit for every app and server process the tests start."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TURNPOST_RATELIMIT_CREATE", TEST_CREATE_LIMIT)
        yield


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    """A fresh SQLite file for one test."""
    return str(tmp_path / "turnpost.db")


#: The store's backends: every test that takes ``store_url`` runs on each.
BACKENDS = ("sqlite", "postgresql")


def new_database(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    """The ``TURNPOST_DB`` of a fresh, empty database of ``backend`` for one test: a SQLite
    file, or a database of the session's PostgreSQL server (skipped only if it cannot run)."""
    if backend == "sqlite":
        return str(tmp_path / "turnpost.db")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.create_database(f"test_{uuid.uuid4().hex[:16]}")
    request.addfinalizer(lambda: close_pool(url))  # else every test's pool stays connected
    return url


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database for one test, once on each backend (SQLite, PostgreSQL)."""
    return new_database(request, request.param, tmp_path)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run the tests of a module that sets ``ON_BOTH_BACKENDS = True`` once per backend:
    those whose app, server or database comes from the ``backend`` fixture; on SQLite alone
    those marked ``sqlite_only`` (long games whose other backend's part another test of the
    module covers)."""
    if "backend" in metafunc.fixturenames and getattr(metafunc.module, "ON_BOTH_BACKENDS", False):
        one = metafunc.definition.get_closest_marker("sqlite_only")
        backends = ("sqlite",) if one else BACKENDS
        metafunc.parametrize("backend", backends, indirect=True, scope="module")


@pytest.fixture(scope="module")
def backend(request: pytest.FixtureRequest) -> str:
    """The backend of the module's apps, servers and databases: each in turn in a module with
    ``ON_BOTH_BACKENDS``, else the module's ``BACKEND`` (a long browser module that plays
    on one backend what its twin plays on the other), else SQLite."""
    return getattr(request, "param", getattr(request.module, "BACKEND", "sqlite"))


@pytest.fixture
def db_url(request: pytest.FixtureRequest, backend: str, db_path: str, tmp_path: Path) -> str:
    """The ``TURNPOST_DB`` of one test's fresh database: ``db_path`` on SQLite."""
    return db_path if backend == "sqlite" else new_database(request, backend, tmp_path)


@pytest.fixture
def app(db_url: str):
    """The Flask app on a fresh database."""
    return create_app({"TURNPOST_DB": db_url, "TESTING": True})


@pytest.fixture
def client(app):
    """Flask's test client for ``app``."""
    return app.test_client()


@pytest.fixture(scope="module")
def live_server(
    request: pytest.FixtureRequest, backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackgroundServer]:
    """A real gunicorn server process shared by one test module, on its ``backend``, with
    the module's ``LIVE_SERVER_ENVIRONMENT`` (e.g. limits) if it has one."""
    environment = getattr(request.module, "LIVE_SERVER_ENVIRONMENT", None)
    database = new_database(request, backend, tmp_path_factory.mktemp("live"))
    server = start_background(database, environment=environment)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster for the test session (installed first if missing, else skipped)."""
    with running_postgres() as server:
        yield server


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """An empty Redis server for one test (installed first if missing, else skipped)."""
    with running_redis() as server:
        yield server


@pytest.fixture
def dovecot() -> Iterator[DovecotServer]:
    """Dovecot serving one mailbox over IMAP over TLS (installed first if missing, else
    skipped)."""
    with running_dovecot() as server:
        yield server


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    """The Playwright driver, once per test session."""
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script, for pages and mails (installed from npm first if it is missing)."""
    if not AXE.exists():
        subprocess.run([str(Path(__file__).parent / "web" / "ensure_axe.sh")], check=True)
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """Debian's Chromium, headless; installed with apt first if it is missing."""
    if not CHROMIUM.exists():
        script = Path(__file__).parent / "web" / "ensure_chromium.sh"
        subprocess.run([str(script)], check=True)
    chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield chromium
    chromium.close()
