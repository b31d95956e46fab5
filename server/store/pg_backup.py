"""Backups of a PostgreSQL database with the database server's own tools.

``turnpost backup`` runs ``pg_dump --format=custom``: one snapshot of the
whole database while the server goes on writing. ``turnpost restore`` turns
such a file back into SQL with ``pg_restore`` and runs it with ``psql`` in one
transaction that first drops Turnpost's tables and functions, so the database
is the backup's or, on any error, unchanged.

The password never appears on a command line (every user of the machine can
read those): the programs get the connection's parameters in ``PG*``
environment variables, as libpq reads them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from contextlib import suppress

from psycopg.conninfo import conninfo_to_dict

from server.store.base import StoreError
from server.store.sqlite import private_file

#: libpq's environment variable for each connection parameter a URL may carry.
PARAMETERS = {
    "host": "PGHOST",
    "hostaddr": "PGHOSTADDR",
    "port": "PGPORT",
    "dbname": "PGDATABASE",
    "user": "PGUSER",
    "password": "PGPASSWORD",
    "sslmode": "PGSSLMODE",
    "sslrootcert": "PGSSLROOTCERT",
    "sslcert": "PGSSLCERT",
    "sslkey": "PGSSLKEY",
    "connect_timeout": "PGCONNECT_TIMEOUT",
    "application_name": "PGAPPNAME",
    "options": "PGOPTIONS",
}
#: Empties the schema of everything a Turnpost database has (tables with their
#: triggers, indexes and sequences; the trigger functions) before the backup's script.
EMPTY_SCHEMA = """
DO $$
DECLARE item record;
BEGIN
  FOR item IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() LOOP
    EXECUTE format('DROP TABLE %I CASCADE', item.tablename);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p
      JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = current_schema() LOOP
    EXECUTE format('DROP FUNCTION %s CASCADE', item.name);
  END LOOP;
END $$;
"""


def client_environment(url: str) -> dict[str, str]:
    """This process's environment with ``url``'s parameters as libpq's ``PG*`` variables."""
    try:
        parameters = conninfo_to_dict(url)
    except Exception as error:  # psycopg.ProgrammingError on a malformed URL
        raise StoreError(f"the database URL cannot be read: {error}") from error
    unknown = sorted(set(parameters) - set(PARAMETERS))
    if unknown:
        raise StoreError(f"the backup tools cannot take these URL parameters: {unknown}")
    return {**os.environ, **{PARAMETERS[key]: str(value) for key, value in parameters.items()}}


def run_client(program: str, arguments: list[str], url: str, stdin: bytes | None = None) -> bytes:
    """Run the PostgreSQL client ``program`` on ``url``'s database; its standard output.

    Raises :class:`StoreError` with the program's own words when it is missing or fails.
    """
    path = shutil.which(program)
    if path is None:
        raise StoreError(
            f"{program} is not installed: install PostgreSQL's client programs"
            " (Debian: postgresql-client) in the same major version as the server or newer"
        )
    done = subprocess.run(
        [path, *arguments], input=stdin, capture_output=True, env=client_environment(url)
    )
    if done.returncode != 0:
        words = done.stderr.decode(errors="replace").strip()
        raise StoreError(f"{program} failed: {words or f'exit status {done.returncode}'}")
    return done.stdout


def backup(url: str, path: str) -> None:
    """Dump ``url``'s database to ``path`` (custom format, readable by its owner only),
    named ``path`` only when whole and readable by ``pg_restore``."""
    partial = f"{path}.partial"
    with suppress(FileNotFoundError):
        os.remove(partial)
    try:
        private_file(partial)
        run_client("pg_dump", ["--format=custom", "--no-owner", f"--file={partial}"], url)
        run_client("pg_restore", ["--list", partial], url)
        os.replace(partial, path)
    except (OSError, StoreError) as error:
        with suppress(FileNotFoundError):
            os.remove(partial)
        raise StoreError(f"the backup to {path} failed: {error}") from error


def restore(url: str, path: str) -> None:
    """Replace everything in ``url``'s database by the dump ``path``, in one transaction."""
    try:
        script = run_client("pg_restore", ["--no-owner", "--no-privileges", "--file=-", path], url)
    except StoreError as error:
        raise StoreError(f"{path} is not a Turnpost backup: {error}") from error
    if b"CREATE TABLE public.moves" not in script:
        raise StoreError(f"{path} is not a Turnpost backup: it has no move log")
    arguments = ["--no-psqlrc", "--quiet", "--single-transaction", "--set=ON_ERROR_STOP=1"]
    run_client("psql", [*arguments, f"--command={EMPTY_SCHEMA}", "--file=-"], url, script)
