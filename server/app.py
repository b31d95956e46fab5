"""The app factory: configuration, the connection pool, the blueprints and their guards.

>>> app = create_app({"TURNPOST_DB": ":memory:", "TESTING": True})
>>> app.test_client().get("/api/v1/engines").status_code
200
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, current_app, g, request
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import URLSafeTimedSerializer
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.middleware.proxy_fix import ProxyFix

from server.checks import note_proxied_request
from server.games.changes import Listener
from server.games.service import GameService
from server.games.vacation_days import yearly_allowance
from server.http.clients import current_client
from server.http.context import csrf, current_store
from server.http.errors import register_error_handlers
from server.http.events import Feed
from server.http.stream_caps import MEMORY_STORAGE, open_stream_caps
from server.i18n import init_i18n
from server.logs import configure_logging, log_request
from server.mail.outbox import Notifier
from server.mail.settings import environment_config, settings_from_config
from server.push.queue import PushQueue
from server.resources import templates_dir
from server.store import in_memory, open_store, redacted
from server.store.base import Store
from server.store.records import SchemaChange
from server.webhooks.pings import ChatPingQueue
from server.webhooks.queue import WebhookQueue

MAX_BODY_BYTES = 64 * 1024
#: The database when ``TURNPOST_DB`` is not set.
DEFAULT_DB = "./turnpost.db"


class Turnpost:
    """The app's handle on its database and its event feed.

    Opening and closing a database connection per request costs more than a
    whole move (closing SQLite checkpoints the WAL), so connections
    (:func:`~server.store.open_store`) are kept open in a small pool: a request
    (or a command) borrows one on first use and gives it back when its app
    context ends. This works the same under gevent, where every request is a
    greenlet and ``threading.local`` would be per greenlet, as under threads.
    The pool holds as many connections as requests ever ran at once in this
    process. An in-memory database (doctests) is one shared connection.
    """

    def __init__(self, db_url: str, feed: Feed) -> None:
        self.db_url = db_url
        self.feed = feed
        self.notifier: Notifier | None = None
        #: Who else hears of every game change (:mod:`server.games.changes`): webhooks (and
        #: pushes and chat pings, once the app knows its language and address).
        self.listeners: list[Listener] = [WebhookQueue()]
        #: What opening the database did to its schema (see :meth:`Store.init`).
        self.schema: SchemaChange | None = None
        self._idle: list[Store] = []
        self._lock = threading.Lock()
        self._memory_store = open_store(db_url) if in_memory(db_url) else None

    def store(self) -> Store:
        """The store of the current app context, borrowed from the pool on first use."""
        if self._memory_store is not None:
            return self._memory_store
        if "turnpost_store" not in g:
            with self._lock:
                idle = self._idle.pop() if self._idle else None
            g.turnpost_store = idle or open_store(self.db_url)
        return g.turnpost_store

    def give_back(self, _error: BaseException | None = None) -> None:
        """Return the app context's store to the pool (at the end of every app context)."""
        store = g.pop("turnpost_store", None)
        if store is not None:
            with self._lock:
                self._idle.append(store)

    def service(self) -> GameService:
        """A game service on this context's store, recording mails and pushes."""
        return GameService(self.store(), self.notifier, self.listeners)


class TurnpostFlask(Flask):
    """Flask, asking once per function whether it is a coroutine function.

    Flask asks it of every request hook and view on every request (about 17
    ``inspect`` calls a request here, see ``docs/performance.md``); the
    answer never changes, so it is kept per function.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._synchronous: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """``func`` itself, or wrapped to be waited for if it is a coroutine function."""
        try:
            return self._synchronous[func]
        except KeyError:
            synchronous = self._synchronous[func] = super().ensure_sync(func)
            return synchronous
        except TypeError:  # an unhashable callable
            return super().ensure_sync(func)


class TlsAwareSessions(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, ``Secure`` whenever the request came over TLS.

    The session holds the CSRF token of the forms. Behind a TLS proxy the
    request is seen as secure only with ``TURNPOST_PROXY_HOPS`` set. The
    signing serializer is made once per set of keys, not for every request
    (Flask makes one anew for each, a token read or not).
    """

    def __init__(self) -> None:
        self._serializers: dict[tuple[Any, ...], URLSafeTimedSerializer | None] = {}

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        """Flask's serializer for the app's current secret key and fallbacks, kept."""
        keys = (app.secret_key, *(app.config["SECRET_KEY_FALLBACKS"] or ()))
        if keys not in self._serializers:
            self._serializers = {keys: super().get_signing_serializer(app)}
        return self._serializers[keys]

    def get_cookie_secure(self, app: Flask) -> bool:
        """``SESSION_COOKIE_SECURE``, or true for a request made over https."""
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure


#: The setting that keeps the secret key when ``TURNPOST_SECRET_KEY`` is not set.
SECRET_KEY_SETTING = "secret_key"


def load_secret_key(store: Store) -> str:
    """The signing secret: ``TURNPOST_SECRET_KEY``, else one made once and kept in the database.

    It signs cookies and CSRF tokens and derives the mail reply keys and the
    Web Push key pair, so every process and host of one server must share it:
    kept in the database (the ``settings`` table; the first process to start
    makes it), it is, but then a copy of the database lets its holder sign
    links for any seat. A production server sets ``TURNPOST_SECRET_KEY``
    (the same everywhere); the database then holds no secret: one an earlier
    start kept there is forgotten.
    """
    if os.environ.get("TURNPOST_SECRET_KEY"):
        store.forget_setting(SECRET_KEY_SETTING)
        return os.environ["TURNPOST_SECRET_KEY"]
    kept = store.setting(SECRET_KEY_SETTING)
    return kept or store.keep_setting(SECRET_KEY_SETTING, secrets.token_urlsafe(32))


def configured_db() -> str:
    """The database this process's ``TURNPOST_DB`` names (default: ``./turnpost.db``)."""
    return os.environ.get("TURNPOST_DB", DEFAULT_DB)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app; ``config`` overrides the environment (``TURNPOST_DB``)."""
    app = TurnpostFlask(__name__, template_folder=str(templates_dir()))
    app.config.update(
        TURNPOST_DB=configured_db(),
        **environment_config(),
        TURNPOST_MAX_STREAMS=int(os.environ.get("TURNPOST_MAX_STREAMS", "1000")),
        TURNPOST_MAX_STREAMS_PER_CLIENT=int(
            os.environ.get("TURNPOST_MAX_STREAMS_PER_CLIENT", "10")
        ),
        TURNPOST_RATELIMIT_STORAGE=os.environ.get("TURNPOST_RATELIMIT_STORAGE") or MEMORY_STORAGE,
        API_TITLE="Turnpost",
        API_VERSION="1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api",
        OPENAPI_JSON_PATH="v1/openapi.json",
        TURNPOST_PROXY_HOPS=int(os.environ.get("TURNPOST_PROXY_HOPS", "0")),
        TURNPOST_METRICS_TOKEN=os.environ.get("TURNPOST_METRICS_TOKEN", ""),
        TURNPOST_ADMIN_EMAILS=os.environ.get("TURNPOST_ADMIN_EMAILS", ""),
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        WTF_CSRF_TIME_LIMIT=None,
    )
    app.config.update(config or {})
    yearly_allowance()  # a malformed TURNPOST_AUTO_VACATION_DAYS stops the start, not a clock
    caps = open_stream_caps(
        app.config["TURNPOST_RATELIMIT_STORAGE"],
        app.config["TURNPOST_MAX_STREAMS"],
        app.config["TURNPOST_MAX_STREAMS_PER_CLIENT"],
    )
    feed = Feed(app.config["TURNPOST_DB"], caps)
    turnpost = Turnpost(app.config["TURNPOST_DB"], feed)
    app.extensions["turnpost"] = turnpost
    app.teardown_appcontext(turnpost.give_back)
    with app.app_context():
        turnpost.schema = turnpost.store().init()
        if not app.config.get("SECRET_KEY"):
            app.config["SECRET_KEY"] = load_secret_key(turnpost.store())
    log_schema_change(app.logger, turnpost.db_url, turnpost.schema)
    settings = settings_from_config(app.config)
    turnpost.notifier = Notifier(settings)
    turnpost.listeners += [
        PushQueue(settings.language),
        ChatPingQueue(settings.base_url, settings.language),
    ]
    init_i18n(app)

    # the blueprints import their request helpers from server.http.context, never this module
    from server.http import (
        account_pages,
        admin,
        api,
        correspondence,
        docs,
        mail_stop,
        my_games,
        pages,
        push,
        table_pages,
        talk,
    )
    from server.http.api_spec import init_api
    from server.http.api_web import init_web_conventions
    from server.http.limits import init_protection

    init_api(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(account_pages.bp)
    app.register_blueprint(table_pages.bp)
    app.register_blueprint(my_games.bp)
    app.register_blueprint(docs.bp)
    app.register_blueprint(mail_stop.bp)
    app.register_blueprint(talk.bp)
    app.register_blueprint(push.bp)
    app.register_blueprint(correspondence.bp)
    admin.init_admin(app)
    init_protection(app)
    init_web_conventions(app)
    csrf.exempt(api.blp)
    csrf.init_app(app)
    app.before_request(api.check_token_before_body)  # after the rate limits, before any body
    app.before_request(refuse_oversized_chunked_body)
    register_error_handlers(app)
    app.session_interface = TlsAwareSessions()
    trust_proxies(app, app.config["TURNPOST_PROXY_HOPS"])
    observe_requests(app)
    return app


def observe_requests(app: Flask) -> None:
    """Log one line per request (:mod:`server.logs`) and, with ``TURNPOST_METRICS_TOKEN``,
    count it and serve ``/metrics`` (:mod:`server.metrics`)."""
    configure_logging()
    metrics = None
    if app.config["TURNPOST_METRICS_TOKEN"]:
        from server.metrics import init_metrics  # prometheus_client loads only when asked

        metrics = init_metrics(app, app.config["TURNPOST_METRICS_TOKEN"])

    def start() -> None:
        g.turnpost_started = time.perf_counter()

    def answered(response: Response) -> Response:
        seconds = time.perf_counter() - g.get("turnpost_started", time.perf_counter())
        route = request.url_rule.rule if request.url_rule is not None else "(no route)"
        log_request(request.method, route, response.status_code, seconds, current_client())
        if metrics is not None:
            metrics.counted(request.method, route, response.status_code, seconds)
        return response

    app.before_request_funcs.setdefault(None, []).insert(0, start)  # before the rate limits
    app.after_request(answered)


def log_schema_change(logger: logging.Logger, db_url: str, change: SchemaChange) -> None:
    """Say that the database was created, or migrated (a warning: the operator should know)."""
    name = redacted(db_url)
    if change.created:
        logger.info("database %s created at schema version %d", name, change.after)
    elif change.after != change.before:
        logger.warning(
            "database %s migrated from schema version %d to %d", name, change.before, change.after
        )


def trust_proxies(app: Flask, hops: int) -> None:
    """Believe ``hops`` reverse proxies' ``X-Forwarded-For/-Proto/-Host/-Port`` headers.

    With ``TURNPOST_PROXY_HOPS=1`` behind nginx or Caddy, the client address
    (rate limits, stream caps) is the visitor's, not the proxy's, and a page
    served over https is secure (``Secure`` cookies). Never set it when
    clients reach the server directly: they could then choose their address.
    """
    if hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_port=hops)
    else:
        app.before_request(ProxyNotice().check)


class ProxyNotice:
    """Notes the first request of this process that came through a proxy unbelieved
    (``X-Forwarded-For`` without ``TURNPOST_PROXY_HOPS``), for ``turnpost check``."""

    def __init__(self) -> None:
        self.noted = False

    def check(self) -> None:
        """Note this request if it is the first one with ``X-Forwarded-For``."""
        if not self.noted and "X-Forwarded-For" in request.headers:
            self.noted = True
            note_proxied_request(current_store())


def refuse_oversized_chunked_body() -> None:
    """``413`` for a body without Content-Length that reaches the size limit.

    Werkzeug cuts such a body at ``MAX_CONTENT_LENGTH`` without a word, so a
    body that fills the limit is taken as one that went past it.
    """
    if not request.environ.get("HTTP_TRANSFER_ENCODING") or request.content_length is not None:
        return
    if len(request.get_data(cache=True)) >= current_app.config["MAX_CONTENT_LENGTH"]:
        raise RequestEntityTooLarge()
