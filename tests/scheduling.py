"""The order in which ``./test``'s processes take up test modules: the longest first.

``./test`` runs the suite with ``pytest-xdist --dist loadscope``: each module's
tests run in one process, so that the servers and browsers a module starts are
started once. xdist hands out modules with the most tests first, but a module's
time is not its count: a module of four whole games by mail takes minutes and
one of 200 schema checks seconds. Left to the end, the long modules kept one
process busy for minutes while the others had nothing left to do.

:class:`LongestFirst` hands out work units by their time in the last recorded
run (``tests/durations.json``), the longest first, and makes a module's
PostgreSQL half a unit of its own, so that the two halves of a long module that
runs on both backends can run side by side. ``--record-durations=PATH`` writes
the times of a run, per unit, for the next runs::

    ./test --record-durations=tests/durations.json
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from xdist.remote import Producer
from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import WorkerController

#: The recorded seconds of each work unit (see :func:`work_unit`).
DURATIONS = Path(__file__).with_name("durations.json")
#: The guess for a unit not in :data:`DURATIONS` (a new module), per test.
UNKNOWN_SECONDS_PER_TEST = 1.0


def work_unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its module, and its backend if PostgreSQL.

    >>> work_unit("tests/mail/test_inbound.py::test_full_game[postgresql-fr]")
    'tests/mail/test_inbound.py::postgresql'
    >>> work_unit("tests/mail/test_inbound.py::test_full_game[sqlite-fr]")
    'tests/mail/test_inbound.py'
    >>> work_unit("server/store/base.py::server.store.base.hash_secret")
    'server/store/base.py'
    """
    module, _, name = nodeid.partition("::")
    ids = name.partition("[")[2].rstrip("]").split("-")
    return f"{module}::postgresql" if "postgresql" in ids else module


class LongestFirst(LoadScopeScheduling):
    """xdist's ``loadscope`` scheduling, units of :func:`work_unit` handed out longest first."""

    def __init__(self, config: pytest.Config, log: Producer | None = None) -> None:
        super().__init__(config, log)
        self.recorded: dict[str, float] = (
            json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
        )
        self.ordered = False

    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid)

    def _assign_work_unit(self, node: WorkerController) -> None:
        if not self.ordered:
            units = sorted(self.workqueue.items(), key=lambda unit: -self.seconds(*unit))
            self.workqueue.clear()
            self.workqueue.update(units)
            self.ordered = True
        super()._assign_work_unit(node)

    def seconds(self, unit: str, tests: dict[str, bool]) -> float:
        """How long ``unit`` is expected to take: as recorded, else a guess from its count."""
        return self.recorded.get(unit, UNKNOWN_SECONDS_PER_TEST * len(tests))


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--record-durations=PATH``: write the run's seconds per work unit to ``PATH``."""
    parser.addoption(
        "--record-durations",
        metavar="PATH",
        help="write this run's seconds per work unit (module, PostgreSQL half) as JSON",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Producer) -> LongestFirst | None:
    """Schedule ``--dist loadscope`` runs with :class:`LongestFirst`."""
    return LongestFirst(config, log) if config.getvalue("dist") == "loadscope" else None


#: Seconds per work unit of this run, summed from the reports of every process.
_spent: defaultdict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add a test phase's time (setup, call, teardown) to its work unit's."""
    _spent[work_unit(report.nodeid)] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the times per work unit when asked, once, from the process that ran the session."""
    path = session.config.getoption("record_durations")
    if path and not hasattr(session.config, "workerinput") and _spent:
        times = {unit: round(seconds, 1) for unit, seconds in sorted(_spent.items())}
        Path(path).write_text(json.dumps(times, indent=1) + "\n")
