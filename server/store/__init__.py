"""Storage: one interface (:mod:`server.store.base`), its backends, and :func:`open_store`.

``TURNPOST_DB`` names the database: a file path or ``sqlite:///PATH``
(SQLite), or ``postgresql://...`` (PostgreSQL; ``postgres://`` too).
:func:`open_store` is the one place that picks it; the app's connection
pool, the event feed, the mail receiver, the worker and the command line
all open their stores through it.

    >>> store = open_store("sqlite:///:memory:")
    >>> store.backend, store.init().after == store.schema_version()
    ('sqlite', True)
    >>> open_store("mysql://turnpost:secret@db/turnpost")
    Traceback (most recent call last):
    ...
    server.store.base.UnknownDatabase: TURNPOST_DB names a mysql:// database; Turnpost \
keeps its data in SQLite or PostgreSQL: give a file path, sqlite:///PATH or postgresql://...
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from server.store.base import Store, UnknownDatabase

#: How a URL starts (RFC 3986's scheme and ``://``); anything else is a file path.
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
#: The schemes of PostgreSQL URLs (libpq's).
POSTGRES_SCHEMES = ("postgresql", "postgres")
#: SQLite's in-memory database: one connection is the whole database.
MEMORY = ":memory:"


def scheme(url: str) -> str | None:
    """The scheme of ``url`` in lower case, or ``None`` for a file path.

    >>> scheme("sqlite:///turnpost.db"), scheme("PostgreSQL://db/turnpost"), scheme("a.db")
    ('sqlite', 'postgresql', None)
    """
    match = _SCHEME.match(url)
    return None if match is None else match.group(1).lower()


def sqlite_path(url: str) -> str:
    """The SQLite file of ``url``: a path as given, or the path of ``sqlite:///PATH``
    (SQLAlchemy's form: ``sqlite:///relative.db``, ``sqlite:////absolute.db``).

    >>> sqlite_path("sqlite:////var/lib/turnpost/turnpost.db"), sqlite_path("./turnpost.db")
    ('/var/lib/turnpost/turnpost.db', './turnpost.db')
    """
    if scheme(url) is None:
        return url
    path = url.split("://", 1)[1]
    if not path.startswith("/") or path == "/":
        raise UnknownDatabase(
            "TURNPOST_DB: a SQLite URL names its file after three slashes:"
            " sqlite:///relative/path.db or sqlite:////absolute/path.db."
        )
    return path[1:]


def open_store(url: str) -> Store:
    """A connection to the database ``url`` names (``TURNPOST_DB``), by its backend.

    :class:`~server.store.base.UnknownDatabase` for a scheme no backend
    serves (its message names the scheme only, never the rest of the URL,
    which may hold a password); :class:`~server.store.base.StoreUnavailable`
    if it cannot be reached.
    """
    if scheme(url) in POSTGRES_SCHEMES:
        from server.store.postgres import PostgresStore  # a backend's modules load when chosen

        return PostgresStore(url)
    if scheme(url) not in (None, "sqlite"):
        raise UnknownDatabase(
            f"TURNPOST_DB names a {scheme(url)}:// database; Turnpost keeps its data in SQLite"
            " or PostgreSQL: give a file path, sqlite:///PATH or postgresql://..."
        )
    from server.store.sqlite import SqliteStore

    return SqliteStore.open(sqlite_path(url))


def redacted(url: str) -> str:
    """``url`` to show (logs, the command line): its password, if any, left out.

    >>> redacted("postgresql://turnpost:s3cret@db.example/turnpost"), redacted("a.db")
    ('postgresql://turnpost:***@db.example/turnpost', 'a.db')
    """
    parts = urlsplit(url) if scheme(url) else None
    if parts is None or parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


def in_memory(url: str) -> bool:
    """Whether ``url`` names a database that lives in one connection (SQLite's ``:memory:``),
    which every user must then share."""
    return scheme(url) in (None, "sqlite") and sqlite_path(url) == MEMORY
