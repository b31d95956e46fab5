"""Rate limits (``limits``' fixed windows) and security headers on HTML pages.

:func:`init_protection` installs both on an app. Limits that count every
request, whatever its route:

- **per IP**: every request counts against the client's address (an IPv6
  client's ``/64``, see :mod:`server.http.clients`), with or without a
  token (a token is no way around it: tokens cost one game creation each,
  and creation has its own limit);
- **per seat token**: a request carrying a token (``Authorization: Bearer``,
  or a seat cookie of the web pages) also counts against that token, so one
  player's runaway client cannot use up the address of a whole household.

**Cost, not only counts.** A request counts once, and more if its answer is
large or its work heavy: it costs ``max(answer bytes / 32 KiB, CPU time /
20 ms)`` requests, rounded up (see :func:`request_cost`), charged to every
limit it counted against once it is answered. An event stream is charged
for the events it replays (:func:`charge_stream`) and the CPU time it took
to start. An answer of 3.4 MB (what a
King of Siam ``legal-moves`` answer was before turns were split into
decisions) costs about 100 requests, so a client that spends its budget on
large answers is refused (cheaply, before any work) until the window turns
over, while other tokens and addresses are served as before.

**Game creation** has its own, stricter limit per address
(``TURNPOST_RATELIMIT_CREATE``), for the API, the lobby form and rematches together:
each game hands out tokens and may send mail.

**Hints** (``GET /api/v1/games/{id}/hint``, a search of up to 0.15 s of CPU
run off the request's loop) have their own limit per seat token
(``TURNPOST_RATELIMIT_HINT``), on top of the others.

Past a limit the answer is ``429`` with the contract's error body
``{"error": {"code": "rate_limited", ...}}`` (an HTML page outside the API)
and a ``Retry-After`` header. ``GET /healthz`` is never limited.

App config keys (each also read from an environment variable of the same
name when the config does not set it, so a gunicorn server can be tuned):

``TURNPOST_RATELIMIT_IP``
    limit per client address, ``limits``' notation (default ``1200/minute``).
``TURNPOST_RATELIMIT_TOKEN``
    limit per seat token (default ``600/minute``).
``TURNPOST_RATELIMIT_CREATE``
    game creations per client address (default ``10/hour``).
``TURNPOST_RATELIMIT_HINT``
    hints per seat token (default ``30/hour``).
``TURNPOST_COST_BYTES``
    answer bytes that cost one request (default ``32768``).

``TURNPOST_RATELIMIT_STORAGE``
    where the counts live (read by :func:`server.create_app`, which counts
    the event streams there too: :mod:`server.http.stream_caps`). The
    default, ``memory://``, counts in each worker's memory (without a timer
    thread: :mod:`server.http.counts`): with ``N``
    workers a client may get up to ``N`` times a limit before every worker
    refuses it. ``redis://host:6379/0`` counts in that Redis, so that the
    limits hold across every worker of every host; while it cannot be
    reached, each worker counts in its memory meanwhile (and tries the Redis
    again after 1, 2, 4 ... 64 seconds) rather than failing requests.

``RATELIMIT_ENABLED=False`` switches limiting off (tests, benchmarks). Each
limit is parsed once when the app is made and a request's counts are two
``limits`` calls (``docs/performance.md``). Behind a reverse proxy, set ``TURNPOST_PROXY_HOPS`` (see
:mod:`server.app`) so that the client address is not the proxy's.

    >>> from server import create_app
    >>> app = create_app({"TURNPOST_DB": ":memory:", "TURNPOST_RATELIMIT_IP": "1/minute"})
    >>> client = app.test_client()
    >>> [client.get("/api/v1/engines").status_code for _ in range(2)]
    [200, 429]
    >>> client.get("/api/v1/engines").get_json()["error"]["code"]
    'rate_limited'
"""

from __future__ import annotations

import logging
import math
import os
import secrets
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import wraps
from typing import Any

from flask import Flask, Response, g, request
from limits import RateLimitItem, parse
from limits.errors import StorageError
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter

from engines.phrases import N_, Phrase, counted, phrase
from server.errors import TurnpostError
from server.http.clients import current_client
from server.http.counts import PROCESS_COUNTS
from server.http.errors import error_response
from server.http.stream_caps import REDIS_OPTIONS, uses_redis
from server.store.base import hash_secret

logger = logging.getLogger(__name__)

DEFAULTS = {
    "TURNPOST_RATELIMIT_TOKEN": "600/minute",
    "TURNPOST_RATELIMIT_IP": "1200/minute",
    "TURNPOST_RATELIMIT_CREATE": "10/hour",
    "TURNPOST_RATELIMIT_HINT": "30/hour",
    "TURNPOST_COST_BYTES": str(32 * 1024),
}
#: Endpoints that are never limited (the liveness check).
EXEMPT_ENDPOINTS = frozenset({"web.health"})
#: The views that create a game (the API's, the lobby form's, a rematch), under one limit.
CREATE_ENDPOINTS = ("api.create_game", "web.create_game", "tables.rematch")
#: The view of a hint (a search): limited per seat token on its own.
HINT_ENDPOINT = "api.get_hint"
#: Views whose answers hold a token although the request carries none (in a header or cookie).
PRIVATE_ENDPOINTS = frozenset({*CREATE_ENDPOINTS, "web.claim_seat", "web.take_my_seat"})
#: An answer costs one request per started slice of this much CPU time, or per started
#: block of ``TURNPOST_COST_BYTES`` bytes, whichever is more.
COST_CPU_SECONDS = 0.02
#: Seconds at most between two tries of an unreachable Redis (the counts are in memory meanwhile).
MAX_BACKOFF_SECONDS = 64
#: Where a request keeps its token (:func:`request_token`) and the limits it counted against.
TOKEN_KEY = "turnpost.token"
COUNTED_KEY = "turnpost.counted"
#: The prefix of the cookies in which the web pages keep a seat token.
SEAT_COOKIE_PREFIX = "turnpost_seat_"

#: Content-Security-Policy of Turnpost's own pages: only the script tags carrying this
#: answer's nonce run (the pages' own script, from this origin), which may fetch from here
#: only and register a service worker from here only (Web Push, ``/push-worker.js``); the
#: board templates' inline styles and SVG are allowed, no plugin, frame or base.
PAGE_CSP = (
    "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; worker-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
#: The API docs page runs Swagger UI from this origin (:mod:`server.http.docs`): scripts from here
#: only, and it fetches the OpenAPI document (and "try it out" requests) from here only.
DOCS_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
HTML_HEADERS = {
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


def request_token() -> str | None:
    """The token the request carries: a bearer token, else a seat cookie, else ``None``
    (found once per request: the limits and the headers ask it again)."""
    environ = request.environ
    if TOKEN_KEY not in environ:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            environ[TOKEN_KEY] = token.strip()
        else:
            cookies = request.cookies.items()
            environ[TOKEN_KEY] = next(
                (value for name, value in cookies if name.startswith(SEAT_COOKIE_PREFIX)), None
            )
    return environ[TOKEN_KEY]


def token_key() -> str:
    """The limits' key of the request's token (its hash: raw tokens are kept nowhere)."""
    return "token:" + hash_secret(request_token() or "")


def ip_key() -> str:
    """The limits' key of the client's address (an IPv6 client's ``/64``, see :mod:`.clients`)."""
    return f"ip:{current_client()}"


def request_cost(answer_bytes: int, cpu_seconds: float, cost_bytes: int = 32 * 1024) -> int:
    """How many requests an answer counts as: by its size or its CPU time, at least 1.

    >>> request_cost(2_000, 0.003), request_cost(3_400_000, 0.14), request_cost(100, 0.3)
    (1, 104, 15)
    """
    by_size = math.ceil(answer_bytes / cost_bytes)
    by_time = math.ceil(cpu_seconds / COST_CPU_SECONDS)
    return max(1, by_size, by_time)


@dataclass(frozen=True)
class Limit:
    """One limit, parsed once: how many requests per window, and what it counts by."""

    item: RateLimitItem
    #: ``token``, ``ip``, ``create`` or ``hint`` (part of the count's key).
    scope: str
    #: True if counted per seat token, else per client address.
    by_token: bool

    def key(self) -> str:
        """The request's count key under this limit (its token's hash, or its address)."""
        return token_key() if self.by_token else ip_key()


def counted_endpoint(endpoint: str | None) -> bool:
    """Whether requests of ``endpoint`` count: not those of no route (a ``404``), of static
    files (a page's styles and pictures) or of :data:`EXEMPT_ENDPOINTS`.

    >>> counted_endpoint("api.read_game"), counted_endpoint("static"), counted_endpoint(None)
    (True, False, False)
    """
    if not endpoint or endpoint in EXEMPT_ENDPOINTS:
        return False
    return endpoint.rpartition(".")[2] != "static"


class RateLimited(Exception):
    """A request past ``limit`` (answered ``429``, see :func:`rate_limited`)."""

    def __init__(self, limit: Limit) -> None:
        super().__init__(str(limit.item))
        self.limit = limit


class RequestLimits:
    """The app's limits, each parsed once, counted with ``limits``' fixed windows.

    Every request (but :data:`EXEMPT_ENDPOINTS`) counts once against the
    token's limit when it carries one, then the address's (:meth:`check`, a
    ``before_request``); the creation and hint views count against theirs
    too (:meth:`guard`); a costly answer is charged its extra cost to each
    (:meth:`charge`). The counts live in ``TURNPOST_RATELIMIT_STORAGE``: this
    process's memory (:mod:`server.http.counts`), or a Redis; while the Redis
    cannot be reached, in memory, the Redis tried again after 1, 2, 4 ... 64
    seconds. ``RATELIMIT_ENABLED=False`` counts nothing.
    """

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.enabled = bool(config.get("RATELIMIT_ENABLED", True))
        self.token = Limit(parse(config["TURNPOST_RATELIMIT_TOKEN"]), "token", True)
        self.ip = Limit(parse(config["TURNPOST_RATELIMIT_IP"]), "ip", False)
        self.create = Limit(parse(config["TURNPOST_RATELIMIT_CREATE"]), "create", False)
        self.hint = Limit(parse(config["TURNPOST_RATELIMIT_HINT"]), "hint", True)
        self.cost_bytes = int(config["TURNPOST_COST_BYTES"])
        storage = config["TURNPOST_RATELIMIT_STORAGE"]
        self.memory = FixedWindowRateLimiter(storage_from_string(PROCESS_COUNTS))
        self.shared = (
            FixedWindowRateLimiter(
                storage_from_string(storage, wrap_exceptions=True, **REDIS_OPTIONS)
            )
            if uses_redis(storage)
            else None
        )
        #: While the shared storage is unreachable: when to try it again, and the wait after.
        self.retry_at: float | None = None
        self.backoff = 1.0

    def check(self) -> None:
        """Count the request once against its token's limit and its address's
        (a ``before_request``); :class:`RateLimited` at the first one past."""
        g.cpu_started = time.thread_time()
        if not self.enabled or not counted_endpoint(request.endpoint):
            return
        limits = [self.token, self.ip] if request_token() is not None else [self.ip]
        self.count(limits)

    def guard(self, limit: Limit, view: Callable[..., Any], methods: Collection[str]) -> Any:
        """``view``, counting each request of ``methods`` against ``limit`` first."""

        @wraps(view)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            if self.enabled and request.method in methods:
                self.count([limit])
            return view(*args, **kwargs)

        return guarded

    def count(self, limits: list[Limit]) -> None:
        """Count the request against each of ``limits`` in turn (noted for :meth:`charge`);
        :class:`RateLimited` at the first one past (the later ones uncounted)."""
        counted = request.environ.setdefault(COUNTED_KEY, [])
        for limit in limits:
            key = limit.key()
            counted.append((limit, key))
            if not self.hit(limit, key, 1):
                raise RateLimited(limit)

    def charge(self, response: Response) -> Response:
        """Charge a costly answer to every limit the request counted against (it counted
        once; an ``after_request``). A streamed answer costs the CPU time until it starts
        and the bytes noted with :func:`charge_stream`."""
        counted = request.environ.get(COUNTED_KEY)
        if not counted or "cpu_started" not in g:
            return response
        cpu = time.thread_time() - g.cpu_started
        if response.is_streamed:
            size = g.get("streamed_bytes", 0)
        else:
            size = response.calculate_content_length() or 0
        extra = request_cost(size, cpu, self.cost_bytes) - 1
        for limit, key in counted if extra > 0 else ():
            self.hit(limit, key, extra)
        return response

    def hit(self, limit: Limit, key: str, cost: int) -> bool:
        """Add ``cost`` to ``key``'s count under ``limit``; whether it is still within it."""
        if self.shared is not None and self.shared_reachable():
            try:
                return self.shared.hit(limit.item, key, limit.scope, cost=cost)
            except StorageError:
                logger.warning("the rate limits' storage is unreachable: counting in memory")
                self.retry_at = time.monotonic() + self.backoff
                self.backoff = min(self.backoff * 2, MAX_BACKOFF_SECONDS)
        return self.memory.hit(limit.item, key, limit.scope, cost=cost)

    def shared_reachable(self) -> bool:
        """Whether to count in the shared storage: yes unless it failed lately and still
        does not answer."""
        if self.retry_at is None:
            return True
        if time.monotonic() < self.retry_at:
            return False
        assert self.shared is not None
        if self.shared.storage.check():
            self.retry_at, self.backoff = None, 1.0
            return True
        self.retry_at = time.monotonic() + self.backoff
        self.backoff = min(self.backoff * 2, MAX_BACKOFF_SECONDS)
        return False


def charge_stream(sent: int) -> None:
    """Count ``sent`` bytes a streamed answer sends at once (an event stream's replay) as its
    size: :meth:`RequestLimits.charge` cannot measure a stream."""
    g.streamed_bytes = g.get("streamed_bytes", 0) + sent


def rate_limited(error: RateLimited) -> Any:
    """``429 rate_limited`` in the contract's shape, with ``Retry-After`` in seconds."""
    key = (
        N_("Too many requests from this token (limit %(limit)s); slow down and retry.")
        if error.limit.by_token
        else N_("Too many requests from this address (limit %(limit)s); slow down and retry.")
    )
    item = error.limit.item
    response = error_response(
        TurnpostError("rate_limited", phrase(key, limit=limit_words(item))), 429
    )
    response.headers["Retry-After"] = str(item.get_expiry())
    return response


#: A limit's unit in words ("per hour"), and a span of several units ("per 2 hours").
UNITS = {
    "second": N_("second"),
    "minute": N_("minute"),
    "hour": N_("hour"),
    "day": N_("day"),
    "month": N_("month"),
    "year": N_("year"),
}
SPANS: dict[str, Callable[[int], Phrase]] = {
    "second": lambda count: counted("%(count)s second", "%(count)s seconds", count),
    "minute": lambda count: counted("%(count)s minute", "%(count)s minutes", count),
    "hour": lambda count: counted("%(count)s hour", "%(count)s hours", count),
    "day": lambda count: counted("%(count)s day", "%(count)s days", count),
    "month": lambda count: counted("%(count)s month", "%(count)s months", count),
    "year": lambda count: counted("%(count)s year", "%(count)s years", count),
}


def limit_words(limit: RateLimitItem) -> Phrase:
    """A limit in words, said per unit or per span: "10 per hour", "1200 per 2 minutes".

    >>> from engines.phrases import english
    >>> from limits import parse
    >>> english(limit_words(parse("10/hour"))), english(limit_words(parse("1200 per 2 minutes")))
    ('10 per hour', '1200 per 2 minutes')
    """
    unit = limit.GRANULARITY.name
    span = phrase(UNITS[unit]) if limit.multiples == 1 else SPANS[unit](limit.multiples)
    return phrase("%(amount)s per %(span)s", amount=limit.amount, span=span)


def security_headers(response: Response) -> Response:
    """Add ``nosniff`` to every answer; framing, referrer and CSP rules to HTML pages.

    An answer to a request that carries a token (a seat's view with its hand,
    its legal moves, a seat link's page) or that creates a game (the tokens)
    is ``Cache-Control: no-store``: no browser or proxy cache keeps it (see
    :data:`PRIVATE_ENDPOINTS`).
    """
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if request_token() is not None or request.endpoint in PRIVATE_ENDPOINTS:
        response.headers["Cache-Control"] = "no-store"
    if response.mimetype != "text/html":
        return response
    for name, value in HTML_HEADERS.items():
        response.headers.setdefault(name, value)
    if request.blueprint == "docs":
        policy = DOCS_CSP
    else:  # a page that printed no script tag has a nonce nobody knows
        policy = PAGE_CSP.format(nonce=g.get("csp_nonce") or secrets.token_urlsafe(16))
    response.headers.setdefault("Content-Security-Policy", policy)
    return response


def init_protection(app: Flask) -> RequestLimits:
    """Install the rate limits, the ``429`` answer and the security headers on ``app``.

    Call it once the blueprints are registered (the creation limit wraps their views).
    """
    for key, default in DEFAULTS.items():
        app.config.setdefault(key, os.environ.get(key, default))
    limits = RequestLimits(app.config)
    for endpoint in CREATE_ENDPOINTS:
        view = app.view_functions[endpoint]
        app.view_functions[endpoint] = limits.guard(limits.create, view, ("POST",))
    hint = app.view_functions[HINT_ENDPOINT]
    app.view_functions[HINT_ENDPOINT] = limits.guard(limits.hint, hint, ("GET", "HEAD"))
    app.before_request(limits.check)
    app.after_request(limits.charge)
    app.register_error_handler(RateLimited, rate_limited)
    app.after_request(security_headers)
    app.extensions["turnpost_limits"] = limits
    return limits
