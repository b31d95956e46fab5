"""Serving: the app under gunicorn's gevent workers (``turnpost serve``, ``./run``).

The serving model: gunicorn with **gevent workers** (2 by default). Every
connection is a greenlet, not a thread, so a worker holds thousands of open
connections for the memory of a few: 1,000 event streams and hundreds of
slow clients take no thread away from moves and reads. gunicorn's gevent
worker reads each request's line and headers under a deadline of
``keepalive`` seconds (:data:`HEADER_SECONDS`): a client that sends one
header line every few seconds is cut off then, and never held a thread.
Each worker accepts up to :data:`WORKER_CONNECTIONS` connections and serves
at most ``TURNPOST_MAX_STREAMS`` event streams (``TURNPOST_MAX_STREAMS_PER_CLIENT``
per address), all fed by one poller per worker (:mod:`server.http.events`).

Slow request bodies and many connections (issue 20): :class:`TurnpostWorker`
gives a request's body :data:`BODY_SECONDS` from the end of its headers (a
body is at most 64 KiB); a body not in by then is answered ``408`` and its
connection closed. Each worker holds at most ``TURNPOST_MAX_CONNECTIONS_PER_CLIENT``
connections of one client (:func:`server.http.clients.client_key`: an IPv6
client by its ``/64``); further ones are closed at once, so a few addresses
cannot fill the worker's :data:`WORKER_CONNECTIONS` and starve everyone.
Behind a reverse proxy (``TURNPOST_PROXY_HOPS`` set) every connection comes
from the proxy, so this cap is left to the proxy (nginx ``limit_conn``).

A greenlet runs until it waits for I/O, so CPU-heavy work holds its worker's
loop: :func:`server.cooperative.offload` runs the heaviest (legal-move lists,
replays) in a real thread, and the rate limits charge large answers more
(:mod:`server.http.limits`). A SQLite write's ``COMMIT`` (its fsync) runs
there too, and its ``BEGIN IMMEDIATE`` waits for another worker's write in
gevent sleeps rather than in SQLite's busy handler
(:meth:`server.store.sqlite.SqliteStore.write`); its other statements take
microseconds, less than a hop to a thread (``docs/performance.md``).

Bots (``TURNPOST_BOTS=server``, :mod:`server.games.bots`): each worker, once
forked, plays the bots' turns in a greenlet of its own (:class:`ServerBots`),
never in the request that made the move before; their search runs in one of
gevent's real threads, so the worker's requests go on while a bot thinks.
Workers (and ``turnpost worker`` processes) claim each turn, so none is
played twice. ``SIGTERM`` stops the bots at once: a search under way is
abandoned (its turn is left to another process or the next start).
"""

from __future__ import annotations

import gc
import logging
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import gevent
from gunicorn.app.base import BaseApplication
from gunicorn.http.message import Request
from gunicorn.workers.ggevent import GeventWorker
from werkzeug.exceptions import RequestTimeout

from server.cooperative import Abandoned
from server.games.analysis import WAIT_SECONDS as ANALYSIS_WAIT_SECONDS
from server.games.analysis import run_analyses
from server.games.bots import WAIT_SECONDS as BOT_WAIT_SECONDS
from server.games.bots import BotMover, bots_setting, run_bots
from server.http.clients import client_key
from server.http.context import current_service
from server.store import redacted

logger = logging.getLogger(__name__)


class TurnpostServer(BaseApplication):
    """A gunicorn application serving :func:`server.create_app` with the given settings."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        """Copy the options into gunicorn's settings."""
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        """Build the WSGI app in each worker, then keep what it built out of the garbage
        collector's passes (:func:`settle`)."""
        from server import create_app

        app = create_app()
        settle()
        return app


def settle() -> None:
    """Move every object alive now out of the garbage collector's reach (``gc.freeze``): the
    app, its modules, the engines and Babel's locale data, some 120,000 objects that live as
    long as the worker. Else every full collection, one in a few hundred requests, walks
    them all again: the slowest 5 % of a page that lists hundreds of games waited for it."""
    gc.collect()
    gc.freeze()


#: Connections one worker holds at once: event streams, idle keep-alives, slow clients, requests.
WORKER_CONNECTIONS = 2000
#: Seconds a client has to send a request's line and headers (also the keep-alive idle time).
HEADER_SECONDS = 5
#: Seconds a client has to send a request's whole body (at most 64 KiB), once its headers are in.
BODY_SECONDS = 10
#: Connections one client may hold open in one worker (``TURNPOST_MAX_CONNECTIONS_PER_CLIENT``).
CONNECTIONS_PER_CLIENT = 100


class BodyTimeout(RequestTimeout):
    """``408``: the request's body did not arrive in time (the app answers it, then the
    connection is closed)."""

    description = f"The request body did not arrive within {BODY_SECONDS} seconds."


class BodyDeadline:
    """The reader of a request's body, done by a deadline or failing.

    It wraps the reader inside gunicorn's ``Body`` (what ``wsgi.input`` reads),
    so every read of the body, by the app or by gunicorn draining what the app
    left unread, waits at most until the deadline. Past it the connection is
    closed: while the app reads, the read raises :class:`BodyTimeout` (the app
    answers ``408``); once the app has answered, :class:`TimeoutError`, on which
    gunicorn stops draining.
    """

    def __init__(self, request: Request, seconds: float) -> None:
        self.request = request
        self.reader = request.body.reader
        self.deadline = time.monotonic() + seconds
        #: Set once the app has answered: what is left is gunicorn's to drain.
        self.answered = False
        request.body.reader = self

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of the body, if they arrive before the deadline."""
        if getattr(self.reader, "length", None) == 0:  # no (more) bytes to wait for: a GET's
            return self.reader.read(size)
        with gevent.Timeout(max(0.0, self.deadline - time.monotonic())) as timer:
            try:
                return self.reader.read(size)
            except gevent.Timeout as fired:
                if fired is not timer:
                    raise
        self.request.force_close()
        if self.answered:
            raise TimeoutError("the request body did not arrive in time")
        raise BodyTimeout()


#: Seconds the bots' greenlet has to end once told to stop, before it is killed.
BOTS_STOP_SECONDS = 2.0
#: Seconds before the bots look again after a round failed.
BOTS_RETRY_SECONDS = 1.0


class ServerBots:
    """The computer's work in one web worker (``TURNPOST_BOTS=server``): a greenlet that
    plays the bots' turns (:func:`server.games.bots.run_bots`) and one that analyses
    finished games (:func:`server.games.analysis.run_analyses`), until :meth:`end`."""

    def __init__(self, app: Any) -> None:
        self.stop = threading.Event()  # gevent's, once patched: set from a signal handler
        rounds = {"bots": self.bot_rounds, "analyses": self.analysis_rounds}
        self.greenlets = [gevent.spawn(self.play, app, what, run) for what, run in rounds.items()]

    def bot_rounds(self) -> None:
        """Play the bots' turns until :attr:`stop`."""
        run_bots(lambda: BotMover(current_service()), self.stop, BOT_WAIT_SECONDS)

    def analysis_rounds(self) -> None:
        """Analyse finished games until :attr:`stop`."""
        run_analyses(current_service, self.stop, ANALYSIS_WAIT_SECONDS)

    def play(self, app: Any, what: str, rounds: Callable[[], None]) -> None:
        """``rounds`` in an app context of ``app`` until :attr:`stop`; a failure is logged
        in one line and ``rounds`` started again a moment later."""
        with app.app_context():
            while not self.stop.is_set():
                try:
                    rounds()
                except Abandoned:
                    return
                except Exception as error:  # the bots must not die with one failed round
                    logger.error("the %s failed (%r); retrying", what, error)
                    time.sleep(BOTS_RETRY_SECONDS)

    def end(self) -> None:
        """Stop: a search under way is abandoned; a greenlet still busy after
        :data:`BOTS_STOP_SECONDS` is killed."""
        self.stop.set()
        gevent.joinall(self.greenlets, timeout=BOTS_STOP_SECONDS)
        gevent.killall(self.greenlets, block=True, timeout=BOTS_STOP_SECONDS)


class TurnpostWorker(GeventWorker):
    """gunicorn's gevent worker with a deadline for request bodies, a cap on the
    connections of one client and, with ``TURNPOST_BOTS=server``, the bots (see the
    module's docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        limit = os.environ.get("TURNPOST_MAX_CONNECTIONS_PER_CLIENT", str(CONNECTIONS_PER_CLIENT))
        self.max_per_client = int(limit)
        self.behind_proxy = int(os.environ.get("TURNPOST_PROXY_HOPS", "0")) > 0
        self.open_by_client: Counter[str] = Counter()
        self.bots: ServerBots | None = None

    def run(self) -> None:
        """Serve (and play the bots) until told to stop, then stop the bots and close this
        process's PostgreSQL pools."""
        if bots_setting() == "server":
            self.bots = ServerBots(self.wsgi)
        try:
            super().run()
        finally:
            if self.bots is not None:
                self.bots.end()
            from server.store.postgres import close_pools  # psycopg after gevent's patching

            close_pools()

    def handle_exit(self, sig: int, frame: Any) -> None:
        """``SIGTERM``: stop serving once the requests under way are answered, and the
        bots at once."""
        super().handle_exit(sig, frame)
        if self.bots is not None:
            self.bots.stop.set()

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        """Serve a connection, or close it at once when its client holds too many already."""
        key = client_key(addr[0] if isinstance(addr, tuple) else None)
        if not self.behind_proxy and self.open_by_client[key] >= self.max_per_client:
            self.log.debug("closed a connection from %s: %d open", key, self.max_per_client)
            client.close()
            return
        self.open_by_client[key] += 1
        try:
            super().handle(listener, client, addr)
        finally:
            self.open_by_client[key] -= 1
            if not self.open_by_client[key]:
                del self.open_by_client[key]

    def handle_request(self, listener_name: Any, req: Request, sock: Any, addr: Any) -> bool:
        """Serve one request, its body read under a :class:`BodyDeadline`."""
        body = BodyDeadline(req, BODY_SECONDS)
        try:
            return super().handle_request(listener_name, req, sock, addr)
        finally:
            body.answered = True


def prepare(db_url: str) -> None:
    """Create or migrate the database before the workers start, and log what is wrong or
    risky in the settings (:func:`server.checks.warn_at_start`).

    Run in a process of its own (:func:`prepare_apart`): the master that forks the
    workers must not load the database's driver, which picks its way of waiting on
    sockets when imported (psycopg chooses a blocking one before gevent patches
    ``select``, and every worker would inherit it, stalling its event loop)."""
    from server.app import load_secret_key, log_schema_change
    from server.checks import Deployment, warn_at_start
    from server.logs import NAMESPACE, configure_logging
    from server.store import open_store

    configure_logging()
    store = open_store(db_url)
    try:
        log_schema_change(logging.getLogger(f"{NAMESPACE}.database"), db_url, store.init())
        deployment = Deployment.from_environment(db_url, load_secret_key(store))
        warn_at_start(store, deployment, "serve")
    finally:
        store.close()


def prepare_apart(db_url: str) -> None:
    """:func:`prepare` in a fresh interpreter that ends before the server starts (no process
    of it stays a child of the master); the server does not start if it fails (that
    process prints why). The database is named by ``TURNPOST_DB`` in its environment,
    never on its command line, which every user of the machine can read."""
    environment = {
        **os.environ,
        "TURNPOST_DB": db_url,
        "PYTHONPATH": os.pathsep.join(filter(None, sys.path)),
    }
    code = "import os; from server.serving import prepare; prepare(os.environ['TURNPOST_DB'])"
    if subprocess.run([sys.executable, "-c", code], env=environment).returncode != 0:
        raise SystemExit(f"the database {redacted(db_url)} could not be prepared; see above")


def metrics_hooks() -> dict[str, Any]:
    """With ``TURNPOST_METRICS_TOKEN``: the folder every worker keeps its figures in, made
    before they start (:func:`server.metrics.metrics_folder`), and gunicorn's hook that drops
    the live figures of a worker that ended. Without: nothing."""
    if not os.environ.get("TURNPOST_METRICS_TOKEN"):
        return {}
    from server.metrics import forget_process, metrics_folder

    metrics_folder()
    return {"child_exit": lambda _arbiter, worker: forget_process(worker.pid)}


def run(
    db_url: str, host: str, port: int, workers: int = 2, connections: int = WORKER_CONNECTIONS
) -> None:
    """Serve the database ``db_url`` (``TURNPOST_DB``) on ``host:port`` with gevent workers
    until stopped, once the database is ready and what is risky in the settings is logged."""
    os.environ["TURNPOST_DB"] = db_url
    bots_setting()  # a wrong TURNPOST_BOTS stops the start here, in words
    prepare_apart(db_url)
    TurnpostServer(
        {
            **metrics_hooks(),
            "bind": f"{host}:{port}",
            "workers": workers,
            "worker_class": TurnpostWorker,
            "worker_connections": connections,
            "keepalive": HEADER_SECONDS,
            "timeout": 60,
            "graceful_timeout": 5,
            "accesslog": None,
            "control_socket_disable": True,  # else one in ~/.gunicorn, shared by every gunicorn
        }
    ).run()
