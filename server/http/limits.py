"""Rate limits (Flask-Limiter) and security headers on HTML pages.

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
    limit per client address, Flask-Limiter notation (default ``1200/minute``).
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
    reached, each worker counts in its memory meanwhile (Flask-Limiter's
    in-memory fallback) rather than failing requests.

Flask-Limiter's own keys apply too, e.g. ``RATELIMIT_ENABLED=False`` switches
limiting off. Behind a reverse proxy, set ``TURNPOST_PROXY_HOPS`` (see
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
from collections.abc import Callable
from typing import Any

from flask import Flask, Response, current_app, g, request
from flask_limiter import ApplicationLimit, Limiter, RateLimitExceeded
from limits import RateLimitItem
from limits.errors import StorageError

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
    """The token the request carries: a bearer token, else a seat cookie, else ``None``."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return next(
        (value for name, value in request.cookies.items() if name.startswith(SEAT_COOKIE_PREFIX)),
        None,
    )


def token_key() -> str:
    """The limiter key of the request's token (its hash: raw tokens are kept nowhere)."""
    return "token:" + hash_secret(request_token() or "")


def ip_key() -> str:
    """The limiter key of the client's address (an IPv6 client's ``/64``, see :mod:`.clients`)."""
    return f"ip:{current_client()}"


def has_no_token() -> bool:
    """True when the request carries no token (then only the per-IP limit applies)."""
    return request_token() is None


def request_cost(answer_bytes: int, cpu_seconds: float, cost_bytes: int = 32 * 1024) -> int:
    """How many requests an answer counts as: by its size or its CPU time, at least 1.

    >>> request_cost(2_000, 0.003), request_cost(3_400_000, 0.14), request_cost(100, 0.3)
    (1, 104, 15)
    """
    by_size = math.ceil(answer_bytes / cost_bytes)
    by_time = math.ceil(cpu_seconds / COST_CPU_SECONDS)
    return max(1, by_size, by_time)


def start_clock() -> None:
    """Note the CPU time of this thread when the request starts (for :func:`charge_cost`)."""
    g.cpu_started = time.thread_time()


def charge_stream(sent: int) -> None:
    """Count ``sent`` bytes a streamed answer sends at once (an event stream's replay) as its
    size: :func:`charge_cost` cannot measure a stream."""
    g.streamed_bytes = g.get("streamed_bytes", 0) + sent


def charge_cost(limiter: Limiter, response: Response) -> Response:
    """Charge a costly answer to every limit the request counted against (it counted once).

    A streamed answer costs the CPU time until it starts and the bytes noted
    with :func:`charge_stream`.
    """
    if "cpu_started" not in g:
        return response
    cpu = time.thread_time() - g.cpu_started
    if response.is_streamed:
        size = g.get("streamed_bytes", 0)
    else:
        size = response.calculate_content_length() or 0
    extra = request_cost(size, cpu, int(current_app.config["TURNPOST_COST_BYTES"])) - 1
    if extra > 0:
        try:
            for limit in limiter.current_limits:
                limiter.limiter.hit(limit.limit, *limit.request_args, cost=extra)
        except StorageError:  # the next request falls back to counting in memory
            logger.warning("the rate limits' storage is unreachable: a cost was not charged")
    return response


def rate_limited(error: RateLimitExceeded) -> Any:
    """``429 rate_limited`` in the contract's shape, with ``Retry-After`` in seconds."""
    key = (
        N_("Too many requests from this token (limit %(limit)s); slow down and retry.")
        if error.limit.key_func is token_key
        else N_("Too many requests from this address (limit %(limit)s); slow down and retry.")
    )
    response = error_response(
        TurnpostError("rate_limited", phrase(key, limit=limit_words(error.limit.limit))), 429
    )
    response.headers["Retry-After"] = str(error.limit.limit.get_expiry())
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


def init_protection(app: Flask) -> Limiter:
    """Install the rate limits, the ``429`` answer and the security headers on ``app``.

    Call it once the blueprints are registered (the creation limit wraps their views).
    """
    for key, default in DEFAULTS.items():
        app.config.setdefault(key, os.environ.get(key, default))
    storage = app.config["TURNPOST_RATELIMIT_STORAGE"]
    app.config.setdefault(
        "RATELIMIT_STORAGE_URI", storage if uses_redis(storage) else PROCESS_COUNTS
    )
    if uses_redis(storage):
        options = {"wrap_exceptions": True, **REDIS_OPTIONS}
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", options)
        app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    limiter = Limiter(
        ip_key,
        application_limits=[
            ApplicationLimit(
                lambda: app.config["TURNPOST_RATELIMIT_TOKEN"],
                key_function=token_key,
                scope="token",
                exempt_when=has_no_token,
            ),
            ApplicationLimit(
                lambda: app.config["TURNPOST_RATELIMIT_IP"],
                key_function=ip_key,
                scope="ip",
            ),
        ],
    )
    limiter.request_filter(lambda: request.endpoint in EXEMPT_ENDPOINTS)
    limiter.init_app(app)
    creation = limiter.shared_limit(
        lambda: app.config["TURNPOST_RATELIMIT_CREATE"],
        scope="create",
        key_func=ip_key,
        methods=["POST"],
    )
    for endpoint in CREATE_ENDPOINTS:
        app.view_functions[endpoint] = creation(app.view_functions[endpoint])
    hints = limiter.limit(
        lambda: app.config["TURNPOST_RATELIMIT_HINT"], scope="hint", key_func=token_key
    )
    app.view_functions[HINT_ENDPOINT] = hints(app.view_functions[HINT_ENDPOINT])
    app.before_request(start_clock)
    app.after_request(lambda response: charge_cost(limiter, response))
    app.register_error_handler(RateLimitExceeded, rate_limited)
    app.after_request(security_headers)
    return limiter
