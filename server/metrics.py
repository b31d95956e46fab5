"""Prometheus metrics at ``/metrics``, added up over every worker process of the app server.

``/metrics`` is on when ``TURNPOST_METRICS_TOKEN`` is set, for a scraper
that sends it as a bearer token (anyone else gets ``401``).

gunicorn runs several worker processes, and a scrape reaches one of them, so
the figures are kept with ``prometheus-client``'s multiprocess mode: each
process writes its counters to files in ``PROMETHEUS_MULTIPROC_DIR`` (set by
:func:`metrics_folder` before the workers start: a fresh folder in systemd's
``RUNTIME_DIRECTORY`` or the temporary folder) and a scrape adds them up.
What the database knows (mail waiting, failing webhooks) is read when
scraped, never on a request's path.

Counted per request: requests by method, route (the rule, never the path)
and status; rate-limit refusals (``429``) by route; the time of a move
request; moves by engine; open event streams.
"""

from __future__ import annotations

import hmac
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from flask import Flask, Response, request

from server.games.changes import Change
from server.games.clock import parse_time, utcnow
from server.store.base import Store

#: The folder of the processes' figures (read by ``prometheus-client`` when it is imported).
FOLDER_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
#: The routes of a move (the API's and the game page's form), timed by ``turnpost_move_seconds``.
MOVE_ROUTES = frozenset({"/api/v1/games/<game_id>/moves", "/games/<game_id>/moves"})


def metrics_folder() -> str:
    """The folder the processes keep their figures in: ``PROMETHEUS_MULTIPROC_DIR``, emptied,
    or a new one (in ``RUNTIME_DIRECTORY`` under systemd); set in the environment so that the
    workers started after share it. Call it before ``prometheus_client`` is imported."""
    folder = os.environ.get(FOLDER_VARIABLE)
    if folder:
        for stale in Path(folder).glob("*.db"):  # a previous server's figures
            stale.unlink()
    else:
        parent = os.environ.get("RUNTIME_DIRECTORY", "").split(":")[0] or None
        folder = tempfile.mkdtemp(prefix="turnpost-metrics-", dir=parent)
        os.environ[FOLDER_VARIABLE] = folder
    return folder


class Metrics:
    """The app server's metrics, and the ``/metrics`` answer that adds up every process's."""

    def __init__(self, token: str, store: Callable[[], Store]) -> None:
        os.environ.get(FOLDER_VARIABLE) or metrics_folder()
        from prometheus_client import Counter, Gauge, Histogram  # once the folder is known

        self.token = token
        self.store = store
        # registered nowhere: a scrape reads every process's files (see :meth:`answer`)
        self.requests = Counter(
            "turnpost_requests",
            "Requests answered, by route and status",
            ["method", "route", "status"],
            registry=None,
        )
        self.refusals = Counter(
            "turnpost_rate_limit_refusals",
            "Requests refused by a rate limit or a cap (429), by route",
            ["route"],
            registry=None,
        )
        self.move_seconds = Histogram(
            "turnpost_move_seconds",
            "Time to answer a move request (API or game page)",
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=None,
        )
        self.moves = Counter(
            "turnpost_moves", "Moves applied, by engine", ["engine"], registry=None
        )
        self.streams = Gauge(
            "turnpost_event_streams",
            "Event streams open now",
            multiprocess_mode="livesum",
            registry=None,
        )

    def counted(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count one answered request."""
        self.requests.labels(method, route, str(status)).inc()
        if status == 429:
            self.refusals.labels(route).inc()
        if route in MOVE_ROUTES and method == "POST":
            self.move_seconds.observe(seconds)

    def changed(self, store: Store, change: Change) -> None:
        """Count a move (a game change that logged an entry): the game service's listener."""
        if change.entry is not None:
            self.moves.labels(change.game.row.engine).inc()

    def stream_count(self, step: int) -> None:
        """An event stream opened (``+1``) or closed (``-1``)."""
        self.streams.inc(step)

    def answer(self) -> Response:
        """The ``/metrics`` page: every process's figures and the database's, for the bearer
        of the token only (``401`` for anyone else)."""
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {self.token}".encode()):
            return Response(
                "The metrics need their bearer token (TURNPOST_METRICS_TOKEN).\n",
                401,
                {"WWW-Authenticate": 'Bearer realm="metrics"'},
                mimetype="text/plain",
            )
        from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
        from prometheus_client.multiprocess import MultiProcessCollector

        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        registry.register(StoreFigures(self.store()))
        return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)


class StoreFigures:
    """What the database knows, read at each scrape: mail waiting, failing webhooks."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def collect(self) -> Iterator[Any]:
        """The gauges, read now."""
        from prometheus_client.core import GaugeMetricFamily

        backlog = self.store.mail_backlog()
        age = 0.0
        if backlog.oldest_at:
            age = (parse_time(utcnow()) - parse_time(backlog.oldest_at)).total_seconds()
        yield GaugeMetricFamily(
            "turnpost_outbox_unsent", "Mails neither sent nor superseded yet", backlog.unsent
        )
        yield GaugeMetricFamily(
            "turnpost_outbox_oldest_unsent_seconds", "Age of the oldest mail not sent yet", age
        )
        yield GaugeMetricFamily(
            "turnpost_webhook_deliveries_failing",
            "Webhook deliveries that failed and were not delivered since",
            self.store.failing_webhook_deliveries(),
        )


def init_metrics(app: Flask, token: str) -> Metrics:
    """Serve ``/metrics`` on ``app`` and count its moves and streams."""
    turnpost = app.extensions["turnpost"]
    metrics = Metrics(token, turnpost.store)
    turnpost.listeners.append(metrics)
    turnpost.feed.counted = metrics.stream_count
    app.add_url_rule("/metrics", "metrics", metrics.answer)
    return metrics


def forget_process(pid: int) -> None:
    """Drop the live figures of a worker process that ended (gunicorn's ``child_exit``)."""
    if os.environ.get(FOLDER_VARIABLE):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid)
