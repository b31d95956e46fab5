"""The database a benchmark fills: ``--db URL`` (default ``TURNPOST_DB``), else a new SQLite file.

Every benchmark that starts a server takes ``--db``: what ``TURNPOST_DB``
takes, an empty database (``postgresql://...`` to measure PostgreSQL, made with
``createdb``); without it, a new SQLite file in the benchmark's temporary folder.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def add_db_option(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` the ``--db`` option."""
    parser.add_argument(
        "--db",
        default=os.environ.get("TURNPOST_DB"),
        help="an empty database to fill (a TURNPOST_DB: postgresql://...; default: TURNPOST_DB,"
        " else a new SQLite file in a temporary folder)",
    )


def bench_database(given: str | None, folder: str, name: str) -> str:
    """The database to fill: ``given`` (``--db``), else the SQLite file ``name`` in ``folder``."""
    return given or str(Path(folder) / name)
