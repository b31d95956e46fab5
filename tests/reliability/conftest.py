"""Shared helpers: gunicorn servers whose rate limits stay out of a load test's way."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import new_database
from tests.support import BackgroundServer, start_background

#: Rate and mail limits far above anything the reliability tests send from one address.
UNLIMITED = {
    "TURNPOST_RATELIMIT_TOKEN": "1000000/minute",
    "TURNPOST_RATELIMIT_IP": "1000000/minute",
    "TURNPOST_MAIL_LIMIT_ADDRESS": "1000000/day",
    "TURNPOST_MAIL_LIMIT_CLIENT": "1000000/day",
    "TURNPOST_MAX_STREAMS_PER_CLIENT": "100000",
    "TURNPOST_MAX_CONNECTIONS_PER_CLIENT": "100000",
}


def start_unlimited(db_url: str) -> BackgroundServer:
    """A gunicorn server on ``db_url`` with :data:`UNLIMITED` rate limits."""
    return start_background(db_url, environment=UNLIMITED)


@pytest.fixture(scope="module")
def load_server(
    request: pytest.FixtureRequest, backend: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BackgroundServer]:
    """A gunicorn server for one test module on its ``backend``, with :data:`UNLIMITED` rate
    limits."""
    server = start_unlimited(new_database(request, backend, tmp_path_factory.mktemp("load")))
    yield server
    server.stop()
