"""Rate limits (Flask-Limiter) and security headers on HTML pages.

:func:`init_protection` installs both on an app. Two limits count every
request, whatever its route:

- **per seat token**: a request carrying a token (``Authorization: Bearer``,
  or a seat cookie of the web pages) counts against that token;
- **per IP**: a request without a known seat token (anonymous reads, game
  creation, the admin token, a wrong token) counts against the client's
  address, so that inventing tokens does not escape the limits.

Past a limit the answer is ``429`` with the contract's error body
``{"error": {"code": "rate_limited", ...}}`` (an HTML page outside the API)
and a ``Retry-After`` header. ``GET /healthz`` is never limited.

App config keys (each also read from an environment variable of the same
name when the config does not set it, so a gunicorn server can be tuned):

``TURNPOST_RATELIMIT_TOKEN``
    limit per seat token, Flask-Limiter notation (default ``600/minute``).
``TURNPOST_RATELIMIT_IP``
    limit per client address (default ``1200/minute``).

Flask-Limiter's own keys apply too, e.g. ``RATELIMIT_ENABLED=False`` switches
limiting off and ``RATELIMIT_STORAGE_URI`` picks the storage. The default is
in-memory storage: each gunicorn worker counts on its own, so with ``N``
workers a client may get up to ``N`` times a limit before every worker
refuses it. Point ``RATELIMIT_STORAGE_URI`` at Redis or Memcached for exact
limits across workers. Behind a reverse proxy, wrap the app in Werkzeug's
``ProxyFix`` so that the client address is not the proxy's.

    >>> from server import create_app
    >>> app = create_app({"TURNPOST_DB": ":memory:", "TURNPOST_RATELIMIT_IP": "1/minute"})
    >>> client = app.test_client()
    >>> [client.get("/api/v1/engines").status_code for _ in range(2)]
    [200, 429]
    >>> client.get("/api/v1/engines").get_json()["error"]["code"]
    'rate_limited'
"""

from __future__ import annotations

import os
from typing import Any

from flask import Flask, Response, current_app, request
from flask_limiter import ApplicationLimit, Limiter, RateLimitExceeded

from server import error_response
from server.errors import TurnpostError
from server.store import hash_secret

DEFAULTS = {"TURNPOST_RATELIMIT_TOKEN": "600/minute", "TURNPOST_RATELIMIT_IP": "1200/minute"}
#: Endpoints that are never limited (the liveness check).
EXEMPT_ENDPOINTS = frozenset({"web.health"})
#: The prefix of the cookies in which the web pages keep a seat token.
SEAT_COOKIE_PREFIX = "turnpost_seat_"

#: Content-Security-Policy of Turnpost's own pages: no scripts, inline styles and SVG only.
PAGE_CSP = (
    "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
#: The API docs page runs ReDoc from its CDN, which needs scripts, workers and fetching the spec.
DOCS_CSP = (
    "default-src 'none'; script-src {cdn}; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: https:; font-src https: data:; connect-src 'self'; "
    "worker-src blob:; frame-ancestors 'none'; base-uri 'none'"
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
    """The limiter key of the client's address."""
    return f"ip:{request.remote_addr or 'unknown'}"


def has_no_token() -> bool:
    """True when the request carries no token (then only the per-IP limit applies)."""
    return request_token() is None


def has_seat_token() -> bool:
    """True when the request carries the token of some seat (then it is limited per token)."""
    token = request_token()
    if token is None:
        return False
    store = current_app.extensions["turnpost"].store()
    found = store.db.execute(
        "SELECT 1 FROM seats WHERE token_hash = ? LIMIT 1", [hash_secret(token)]
    ).fetchone()
    return found is not None


def rate_limited(error: RateLimitExceeded) -> Any:
    """``429 rate_limited`` in the contract's shape, with ``Retry-After`` in seconds."""
    who = "this token" if error.limit.key_func is token_key else "this address"
    response = error_response(
        TurnpostError(
            "rate_limited",
            f"Too many requests from {who} (limit {error.limit.limit}); slow down and retry.",
        ),
        429,
    )
    response.headers["Retry-After"] = str(error.limit.limit.get_expiry())
    return response


def security_headers(response: Response) -> Response:
    """Add ``nosniff`` to every answer; framing, referrer and CSP rules to HTML pages."""
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if response.mimetype != "text/html":
        return response
    for name, value in HTML_HEADERS.items():
        response.headers.setdefault(name, value)
    policy = PAGE_CSP
    if request.path == "/api/docs":
        policy = DOCS_CSP.format(cdn=_origin(current_app.config["OPENAPI_REDOC_URL"]))
    response.headers.setdefault("Content-Security-Policy", policy)
    return response


def _origin(url: str) -> str:
    """The scheme and host of ``url``.

    >>> _origin("https://cdn.example.org/redoc.js")
    'https://cdn.example.org'
    """
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}"


def init_protection(app: Flask) -> Limiter:
    """Install the rate limits, the ``429`` answer and the security headers on ``app``."""
    for key, default in DEFAULTS.items():
        app.config.setdefault(key, os.environ.get(key, default))
    app.config.setdefault("RATELIMIT_STORAGE_URI", "memory://")
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
                exempt_when=has_seat_token,
            ),
        ],
    )
    limiter.request_filter(lambda: request.endpoint in EXEMPT_ENDPOINTS)
    limiter.init_app(app)
    app.register_error_handler(RateLimitExceeded, rate_limited)
    app.after_request(security_headers)
    return limiter
