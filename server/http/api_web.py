"""Web conventions of the API: CORS for browser clients on other sites, compressed JSON.

**CORS** (flask-cors) applies to ``/api/v1/...`` only, never to the HTML
pages or the docs page. ``TURNPOST_CORS_ORIGINS`` lists the origins whose
pages may call the API from a browser, separated by commas
(``https://a.example,https://b.example``), or ``*`` for any (the default:
the API authenticates with bearer tokens, so another site's page can do
nothing a visitor's own script could not), or nothing to allow none.
Credentials (cookies) are never allowed, so the one route that also reads a
signed-in player's session cookie (``GET /api/v1/me/games``) answers no
other site's page; the ``Authorization``,
``Idempotency-Key``, ``If-None-Match`` and ``Last-Event-ID`` request headers
are; ``ETag`` and ``Retry-After`` can be read by the page.

**Compression** (flask-compress): JSON answers of the API of 500 bytes or
more are sent with brotli or gzip when the client accepts it
(``Accept-Encoding``); the event stream and the HTML pages never are.
Validators stay weak ETags, which hold for every encoding. A kept read's
answer (:mod:`server.http.answers`) is compressed once per encoding and kept.

    >>> from server import create_app
    >>> app = create_app({"TURNPOST_DB": ":memory:", "TURNPOST_CORS_ORIGINS": "https://a.example"})
    >>> answer = app.test_client().get("/api/v1/engines", headers={"Origin": "https://a.example"})
    >>> answer.headers["Access-Control-Allow-Origin"]
    'https://a.example'
"""

from __future__ import annotations

import os

from flask import Flask, Response, request
from flask_compress import Compress
from flask_cors import CORS

from server.http.answers import CompressedAnswers, compressed_key

#: The API's paths (CORS and compression apply to these only).
API_PATHS = r"/api/v1/.*"
ALLOWED_HEADERS = [
    "Authorization",
    "Content-Type",
    "Idempotency-Key",
    "If-None-Match",
    "Last-Event-ID",
]
EXPOSED_HEADERS = ["ETag", "Retry-After", "Allow"]
#: Seconds a browser may keep a preflight answer.
PREFLIGHT_MAX_AGE = 600


def allowed_origins(setting: str) -> str | list[str]:
    """``TURNPOST_CORS_ORIGINS`` as flask-cors takes it: ``*``, or a list of origins.

    >>> allowed_origins(" https://a.example, https://b.example ")
    ['https://a.example', 'https://b.example']
    >>> allowed_origins("*"), allowed_origins("")
    ('*', [])
    """
    if setting.strip() == "*":
        return "*"
    return [origin.strip() for origin in setting.split(",") if origin.strip()]


def init_web_conventions(app: Flask) -> None:
    """Install CORS on the API's paths and compression of its JSON answers."""
    app.config.setdefault("TURNPOST_CORS_ORIGINS", os.environ.get("TURNPOST_CORS_ORIGINS", "*"))
    origins = allowed_origins(app.config["TURNPOST_CORS_ORIGINS"])
    CORS(
        app,
        resources={API_PATHS: {"origins": origins}},
        send_wildcard=origins == "*",
        methods=["GET", "POST", "DELETE"],
        supports_credentials=False,
        allow_headers=ALLOWED_HEADERS,
        expose_headers=EXPOSED_HEADERS,
        max_age=PREFLIGHT_MAX_AGE,
    )
    app.config.update(
        COMPRESS_REGISTER=False,
        COMPRESS_MIMETYPES=["application/json"],
        COMPRESS_ALGORITHM=["br", "gzip"],
        COMPRESS_STREAMS=False,
        COMPRESS_CACHE_BACKEND=CompressedAnswers,
        COMPRESS_CACHE_KEY=compressed_key,
    )
    compress = Compress(app)

    @app.after_request
    def compress_api_json(response: Response) -> Response:
        """Compress a JSON answer of the API (flask-compress decides by size and encoding)."""
        if request.path.startswith("/api/v1/") and not response.is_streamed:
            return compress.after_request(response)
        return response
