"""The link that stops mail for one seat: the one-click ``List-Unsubscribe`` of every mail.

Every mail to a seat carries a signed link ``/mail/stop/<token>``
(:func:`server.mail.addresses.stop_url`) in its ``List-Unsubscribe`` header
and its footer. A GET asks for confirmation; a POST stops the mail of that
seat in that game (RFC 8058 one-click: mail clients post it without a CSRF
token, the signature is the proof). The seat still plays on the web, and a
reply ``start`` turns its mail on again. The footer's other link, "never mail
me again" (:mod:`server.http.pages`), stops all mail to the address.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, make_response, render_template

from server.app import csrf, current_service
from server.errors import TurnpostError
from server.games.clock import utcnow
from server.mail.addresses import stopped_seat

bp = Blueprint("mail_stop", __name__)


@bp.route("/mail/stop/<token>")
def stop_page(token: str) -> Response:
    """Ask whether to stop mail for the seat the link was signed for."""
    return _stop_response(token, done=False)


@bp.route("/mail/stop/<token>", methods=["POST"])
@csrf.exempt
def stop(token: str) -> Response:
    """Stop mail for the seat the link was signed for (one click, RFC 8058)."""
    return _stop_response(token, done=True)


def _stop_response(token: str, done: bool) -> Response:
    signed = stopped_seat(current_app.extensions["turnpost"].notifier.settings, token)
    games = current_service()
    if signed is None or not games.store.game_exists(signed[0]):
        raise TurnpostError("not_found", "This link is not valid; copy it whole from the mail.")
    game_id, seat = signed
    game = games.load(game_id)
    if seat >= len(game.seats):
        raise TurnpostError("not_found", "This link is not valid; copy it whole from the mail.")
    if done:
        with games.store.write():
            games.store.stop_mail(game_id, seat, utcnow())
    page = render_template(
        "email/stop.html",
        done=done,
        name=game.seats[seat]["name"],
        engine=game.engine,
        names=[row["name"] for row in game.seats if row["seat"] != seat],
    )
    response = make_response(page)
    response.headers["Cache-Control"] = "no-store"
    return response
