"""The server's layout keeps its promises: every room says its job, SQL runs in the store only."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[2] / "server"
MODULES = sorted(SERVER.rglob("*.py"))
#: What running SQL looks like: a cursor call, a sqlite-utils table, the raw connection.
SQL_CALL = re.compile(r"\.(execute|executescript|query)\(|\bdb\[|\.db\.|\.conn\.")


def name(path: Path) -> str:
    return str(path.relative_to(SERVER.parent))


@pytest.mark.parametrize("path", MODULES, ids=name)
def test_every_module_and_package_says_its_job_in_its_first_line(path: Path) -> None:
    docstring = ast.get_docstring(ast.parse(path.read_text()))
    assert docstring, f"{name(path)} has no docstring"
    first = docstring.splitlines()[0]
    assert first.endswith(".") and len(first) <= 100, f"{name(path)}: {first!r}"


@pytest.mark.parametrize("path", [p for p in MODULES if "store" not in p.parts], ids=name)
def test_sql_runs_in_the_store_only(path: Path) -> None:
    code = ast.unparse(ast.parse(path.read_text()))  # without comments and docstrings' layout
    tree = ast.parse(code)
    strings = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }
    calls = [line for line in code.splitlines() if SQL_CALL.search(line)]
    assert not calls, f"{name(path)} runs SQL: {calls}"
    # a statement: the keyword and more ("DELETE" alone is an HTTP method of a route)
    assert not [s for s in strings if re.match(r"\s*(SELECT|INSERT|UPDATE|DELETE)\s+\S", s)]
