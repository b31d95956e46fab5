"""The API docs page, served entirely from Turnpost's own origin.

``/api/docs`` shows the OpenAPI document with Swagger UI, whose files come
from the ``swagger-ui-bundle`` package (Apache-2.0) installed with Turnpost,
not from a CDN: the page works offline, and its Content-Security-Policy
(:data:`server.http.limits.DOCS_CSP`) allows scripts from this origin only.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template, send_from_directory
from swagger_ui_bundle import swagger_ui_path
from werkzeug.exceptions import NotFound

bp = Blueprint("docs", __name__, url_prefix="/api/docs")

#: The files of the bundle the page loads (nothing else of the package is served).
SWAGGER_FILES = frozenset({"swagger-ui.css", "swagger-ui-bundle.js"})


@bp.route("")
def page() -> str:
    """The docs page: Swagger UI reading ``/api/v1/openapi.json`` (no box to load another)."""
    return render_template("api_docs.html")


@bp.route("/init.js")
def start_script() -> Response:
    """The page's one script of our own (a file, so that the CSP needs no inline script)."""
    script = render_template("api_docs.js")
    return Response(script, mimetype="text/javascript")


@bp.route("/swagger/<name>")
def swagger_file(name: str) -> Response:
    """A file of the Swagger UI bundle."""
    if name not in SWAGGER_FILES:
        raise NotFound()
    return send_from_directory(swagger_ui_path, name, max_age=24 * 3600)
