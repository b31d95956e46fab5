"""PostgreSQL's migrations: the same steps as SQLite's, so a schema version means the same;
``init`` creates, then finds nothing to do; processes starting at once migrate once."""

from __future__ import annotations

import pytest

from server.store import open_store
from server.store.migrations import migrations as sqlite_migrations
from server.store.postgres_migrations import MIGRATIONS
from server.store.sqlite import SqliteStore
from tests.conftest import new_database
from tests.server.test_store import in_threads
from tests.support import run_command


def test_the_steps_are_sqlites_steps() -> None:
    sqlite = SqliteStore.open(":memory:")
    sqlite.init()
    applied = [step.name for step in sqlite_migrations.applied(sqlite.db)]
    assert [name for name, _ in MIGRATIONS] == applied


def test_init_creates_then_finds_nothing_to_do(request: pytest.FixtureRequest, tmp_path) -> None:
    store = open_store(new_database(request, "postgresql", tmp_path))
    assert store.schema_version() == 0
    created = store.init()
    assert (created.before, created.after, created.created) == (0, len(MIGRATIONS), True)
    again = store.init()
    assert (again.before, again.after, again.created) == (len(MIGRATIONS), len(MIGRATIONS), False)
    assert store.schema_version() == len(MIGRATIONS)


def test_processes_starting_at_once_migrate_once(request: pytest.FixtureRequest, tmp_path) -> None:
    url = new_database(request, "postgresql", tmp_path)
    changes = in_threads(4, lambda: open_store(url).init())
    assert sorted(change.created for change in changes) == [False, False, False, True], changes
    assert open_store(url).schema_version() == len(MIGRATIONS)


def test_the_commands_create_and_tell_the_version(request: pytest.FixtureRequest, tmp_path) -> None:
    url = new_database(request, "postgresql", tmp_path)
    made = run_command(["init-db"], {"TURNPOST_DB": url})
    out, err = made.communicate(timeout=60)
    assert made.returncode == 0, err
    assert f"schema version {len(MIGRATIONS)}" in out and url in out
    told = run_command(["db-version"], {"TURNPOST_DB": url})
    out, err = told.communicate(timeout=60)
    assert told.returncode == 0, err
    assert out.strip().endswith(f"postgresql, schema version {len(MIGRATIONS)}")
    assert open_store(url).schema_version() == len(MIGRATIONS)
