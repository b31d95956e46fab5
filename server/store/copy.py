"""Copy a whole database to another, on either backend (``turnpost copy-db SOURCE TARGET``).

The copy is driven by the schema, not by a list of tables: every table the
source's schema has (:meth:`~server.store.base.TableCopying.tables`) is
copied, row for row, with every column both backends keep, into the table of
the same name on the target, tables referred to before those that refer to
them. Both databases must be at the same schema version (the target is
created or upgraded first). The source is read in one snapshot; the target is
written in one transaction, which ``verify`` (the games replayed, see
:func:`server.cli.copy_db`) runs inside of before it commits: a copy that
fails anywhere leaves the target as it was.

The target must be empty: no row in any table but ``settings``, whose rows
(the secret key a first start made) the source's replace.
"""

from __future__ import annotations

from collections.abc import Callable
from graphlib import TopologicalSorter

from server.store.base import Store, StoreError
from server.store.records import Table

#: Tables a new database may already hold rows of (a start keeps its secret key): the
#: source's rows replace the target's.
REPLACED_TABLES = frozenset({"settings"})


class CopyRefused(StoreError):
    """The databases cannot be copied one to the other (the message says why)."""


def copy_database(source: Store, target: Store, verify: Callable[[], None]) -> dict[str, int]:
    """Copy every row of ``source`` into the empty ``target``; the rows copied, by table.

    :class:`CopyRefused` when the target holds data, the source holds none, the schema
    versions differ or a table or column of the source has no place on the target.
    ``verify`` runs in the target's transaction after the rows are in (an exception
    from it undoes the copy).
    """
    target.init()
    _refuse_versions(source, target)
    _refuse_empty_source(source)
    _refuse_non_empty(target, target.tables())  # before locking: the same file would wait
    with source.snapshot(), target.write():
        tables = _matched(source.tables(), target.tables())
        _refuse_non_empty(target, tables)
        copied = {}
        for name in _referred_first(tables):
            if name in REPLACED_TABLES:
                target.empty_table(name)
            rows = source.table_rows(tables[name])
            target.insert_rows(name, tables[name].columns, rows)
            copied[name] = len(rows)
        target.after_copy()
        verify()
    return copied


def _refuse_versions(source: Store, target: Store) -> None:
    have, want = source.schema_version(), target.schema_version()
    if have != want:
        raise CopyRefused(
            f"The source has schema version {have}, the target {want}: upgrade the source"
            " first (turnpost init-db with TURNPOST_DB set to it), then copy."
        )


def _refuse_empty_source(source: Store) -> None:
    if not any(_counts(source, source.tables()).values()):
        raise CopyRefused("The source database holds no games, players or mail: nothing to copy.")


def _refuse_non_empty(target: Store, tables: dict[str, Table]) -> None:
    held = {name: count for name, count in _counts(target, tables).items() if count}
    if held:
        listed = ", ".join(f"{name} ({count} rows)" for name, count in sorted(held.items()))
        raise CopyRefused(
            f"The target database is not empty: it holds {listed}. copy-db copies into an"
            " empty database only, so that nothing there is mixed with or overwritten by the"
            " copy: give a new database (an empty one, or one made by turnpost init-db)."
        )


def _counts(store: Store, tables: dict[str, Table]) -> dict[str, int]:
    """The rows of each table but :data:`REPLACED_TABLES`."""
    return {name: store.count_rows(name) for name in tables if name not in REPLACED_TABLES}


def _matched(source: dict[str, Table], target: dict[str, Table]) -> dict[str, Table]:
    """The source's tables, once each has a table of its name on the target with each of its
    columns."""
    for name, table in source.items():
        if name not in target:
            raise CopyRefused(f"The target has no table {name!r}: it would not be copied.")
        missing = set(table.columns) - set(target[name].columns)
        if missing:
            raise CopyRefused(f"The target's table {name!r} has no column {sorted(missing)}.")
    return source


def _referred_first(tables: dict[str, Table]) -> list[str]:
    """The names of ``tables``, each after the tables it refers to.

    >>> table = lambda name, *refs: Table(name, (), (), frozenset(refs), frozenset())
    >>> _referred_first({t.name: t for t in [table("moves", "games"), table("games")]})
    ['games', 'moves']
    """
    graph = {name: sorted(table.references - {name}) for name, table in sorted(tables.items())}
    return list(TopologicalSorter(graph).static_order())
