"""Error answers: the contract's JSON error body for the API and JSON requests, else a page.

The API (``/api/``) and a page's script posting JSON get the JSON body; a
browser's page request gets an HTML error page.

Every refusal (:class:`~server.errors.TurnpostError`), HTTP error, failed CSRF
check and unexpected exception leaves through :func:`error_response`, its
message in the reader's language (an HTTP error raised by Flask or Werkzeug is
said in Turnpost's words, :func:`http_words`, not in Werkzeug's English); an
unexpected one is logged and answered ``500 internal_error`` without details.
A database out of reach or busy past its wait
(:class:`~server.store.base.StoreUnavailable`) is logged and answered ``503
unavailable`` with ``Retry-After``, saying nothing of the database but that it
is unavailable.
"""

from __future__ import annotations

from flask import Flask, Response, current_app, jsonify, make_response, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from engines.phrases import N_, Phrase, phrase
from server.errors import TurnpostError
from server.i18n import LANGUAGE_COOKIE, best_language, known_language, server_language
from server.phrases import render
from server.store.base import StoreUnavailable

#: Seconds a client is asked to wait after ``503 unavailable``.
UNAVAILABLE_RETRY_SECONDS = 5
#: What an HTTP error raised by Flask or Werkzeug says, by status.
HTTP_REFUSALS = {
    400: N_("The server cannot read this request."),
    401: N_("This request needs a key or a signed-in player."),
    403: N_("This request is not allowed."),
    404: N_("There is nothing at this address."),
    405: N_("This address does not take %(method)s requests."),
    408: N_("The request's body did not arrive in time."),
    413: N_("The request is larger than this server takes."),
    415: N_("This address does not take this kind of content."),
    429: N_("Too many requests; slow down and retry."),
}
#: Why Flask-WTF refused a form (its English reasons), in Turnpost's words.
CSRF_REASONS = {
    "The CSRF token is missing.": N_("the form carries no CSRF token."),
    "The CSRF session token is missing.": N_("this browser's session holds no CSRF token."),
    "The CSRF token has expired.": N_("the form's CSRF token has expired: reload the page."),
    "The CSRF token is invalid.": N_("the form's CSRF token is not valid: reload the page."),
    "The CSRF tokens do not match.": N_("the form's CSRF token is not this session's."),
    "The referrer header is missing.": N_("the request does not say which page sent it."),
    "The referrer does not match the host.": N_("the request was sent from another site."),
}


def error_response(error: TurnpostError, status: int | None = None) -> Response:
    """The contract's error body (JSON) or, outside the API, an HTML error page; the message in
    the reader's language (:func:`error_language`), the code and details as they are."""
    status = status or error.status
    message = render(error.words, (), error_language())
    if request.path.startswith("/api/") or request.is_json:
        response = jsonify(error.body(message))
    else:
        response = make_response(render_template("error.html", error=error, message=message))
    response.status_code = status
    response.headers.update(error.headers)
    return response


def error_language() -> str:
    """The language of an error answer: the language picked with the page switch, else the
    request's ``Accept-Language``, else the server's (a refusal may come before the reader is
    known, so the signed-in player's choice is not looked up)."""
    picked = known_language(request.cookies.get(LANGUAGE_COOKIE))
    return picked or best_language(request.headers.get("Accept-Language", ""), server_language())


def http_words(error: HTTPException) -> Phrase:
    """What an HTTP error raised by Flask or Werkzeug says (:data:`HTTP_REFUSALS`)."""
    status = error.code or 500
    if status == 405:
        return phrase(HTTP_REFUSALS[status], method=request.method)
    if status in HTTP_REFUSALS:
        return phrase(HTTP_REFUSALS[status])
    return phrase("The server cannot answer this request (HTTP %(status)s).", status=status)


def register_error_handlers(app: Flask) -> None:
    """Answer refusals, failed CSRF checks and unexpected errors with :func:`error_response`."""
    app.register_error_handler(TurnpostError, error_response)
    app.register_error_handler(CSRFError, _csrf_error)
    app.register_error_handler(StoreUnavailable, _store_unavailable)
    app.register_error_handler(Exception, _unexpected_error)


def _csrf_error(error: CSRFError) -> Response:
    reason = error.description or ""
    why = phrase(CSRF_REASONS[reason]) if reason in CSRF_REASONS else reason
    return error_response(
        TurnpostError("bad_request", phrase("CSRF check failed: %(why)s", why=why))
    )


def _unexpected_error(error: Exception) -> Response:
    current_app.logger.exception("unexpected error")
    return error_response(
        TurnpostError("internal_error", phrase("Something went wrong on our side."))
    )


def _store_unavailable(error: StoreUnavailable) -> Response:
    current_app.logger.warning("database unavailable: %s", error)
    message = phrase(
        "The game database cannot be reached just now; please try again in %(seconds)s seconds.",
        seconds=UNAVAILABLE_RETRY_SECONDS,
    )
    retry = {"Retry-After": str(UNAVAILABLE_RETRY_SECONDS)}
    return error_response(TurnpostError("unavailable", message, headers=retry))
