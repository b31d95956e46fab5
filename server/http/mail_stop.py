"""The one-click links at the foot of every mail: stop this game's mail, or all mail.

Every mail to a seat carries two signed links:

``/mail/stop/<token>`` (:func:`server.mail.addresses.stop_url`)
    also its ``List-Unsubscribe`` header: stops the mail of that seat in that
    game. The seat still plays on the web, and a reply ``start`` turns its
    mail on again.
``/mail/unsubscribe/<token>`` (:func:`server.mail.addresses.unsubscribe_url`)
    "never mail me again": stops all mail to the address, for any game.

A GET asks for confirmation; a POST does it (RFC 8058 one-click: mail clients
post it without a CSRF token, the signature is the proof).
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, make_response, render_template

from engines.phrases import N_, phrase
from server.errors import TurnpostError
from server.games.clock import utcnow
from server.http.context import csrf, current_service, current_store
from server.i18n import page_language, read_as_seat
from server.mail.addresses import recipient_key, stopped_seat, unsubscribed
from server.mail.settings import MailSettings
from server.mail.words import command_word, title

bp = Blueprint("mail_stop", __name__)

#: The answer to a link that is not one of ours (forged, cut short, or of a game now gone).
NOT_VALID = N_("This link is not valid; copy it whole from the mail.")


@bp.route("/mail/stop/<token>")
def stop_page(token: str) -> Response:
    """Ask whether to stop mail for the seat the link was signed for."""
    return _stop_response(token, done=False)


@bp.route("/mail/stop/<token>", methods=["POST"])
@csrf.exempt
def stop(token: str) -> Response:
    """Stop mail for the seat the link was signed for (one click, RFC 8058)."""
    return _stop_response(token, done=True)


@bp.route("/mail/unsubscribe/<token>")
def unsubscribe_page(token: str) -> Response:
    """Ask whether to stop all mail to the address the link was signed for."""
    return _unsubscribe_response(token, done=False)


@bp.route("/mail/unsubscribe/<token>", methods=["POST"])
@csrf.exempt
def unsubscribe(token: str) -> Response:
    """Stop all mail to the address the link was signed for (one click, RFC 8058)."""
    return _unsubscribe_response(token, done=True)


def _stop_response(token: str, done: bool) -> Response:
    signed = stopped_seat(_settings(), token)
    games = current_service()
    if signed is None or not games.store.game_exists(signed[0]):
        raise TurnpostError("not_found", phrase(NOT_VALID))
    game_id, seat = signed
    game = games.load(game_id)
    if seat >= len(game.seats):
        raise TurnpostError("not_found", phrase(NOT_VALID))
    if done:
        with games.store.write():
            games.store.stop_mail(game_id, seat, utcnow())
    read_as_seat(game.seats[seat].language)
    names, language = [row.name for row in game.seats], page_language()
    return _private_page(
        "email/stop.html",
        done=done,
        name=game.seats[seat].name,
        game_words=title(game.engine, names, seat, language),
        start=command_word("start", language),
    )


def _unsubscribe_response(token: str, done: bool) -> Response:
    address = unsubscribed(_settings(), token)
    if address is None:
        raise TurnpostError("not_found", phrase(NOT_VALID))
    if done:  # a link mailed before keys were normalised as now carries an older form of it
        current_store().suppress_mail(recipient_key(address), utcnow())
    return _private_page("unsubscribe.html", address=address, done=done)


def _settings() -> MailSettings:
    """The mail settings the links were signed with."""
    return current_app.extensions["turnpost"].notifier.settings


def _private_page(template: str, **context: object) -> Response:
    """``template`` as a page no cache keeps (it names a player or an address)."""
    response = make_response(render_template(template, **context))
    response.headers["Cache-Control"] = "no-store"
    return response
