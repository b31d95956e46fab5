"""The page side of Web Push: the service worker, and the browsers a player lets us notify.

- ``GET /push-worker.js``: the service worker (``static/push-worker.js``),
  served from the site's root so that it serves every page, as a script with
  a Content-Security-Policy of its own that lets it fetch nothing;
- ``POST /me/push``: the signed-in player's browser posts its subscription
  (``PushSubscription.toJSON()``, JSON, with the page's CSRF token in
  ``X-CSRFToken``); ``201`` ``{"id", "created_at"}``, ``422`` for an endpoint
  the rules refuse (:mod:`server.push.subscriptions`);
- ``POST /me/push/<id>/remove``: the player stops notifying one browser.

The player's page shows the "notify this browser" button and the browsers
notified (``templates/_push.html``, with ``static/push.js``).
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    jsonify,
    redirect,
    request,
    send_from_directory,
    url_for,
)
from marshmallow import ValidationError

from engines.phrases import phrase
from schemas.push import PushSubscriptionSchema
from server.errors import TurnpostError
from server.http.actor import signed_in_player
from server.http.context import current_store
from server.push.keys import public_key_text
from server.push.subscriptions import browsers, push_destinations, subscribe
from server.resources import static_dir

bp = Blueprint("push", __name__)

#: The service worker's own policy: it runs this script only and fetches nothing.
WORKER_CSP = "default-src 'none'"


@bp.app_context_processor
def push_helpers() -> dict[str, Any]:
    """What the player's page needs for its push panel: the public key and their browsers."""
    return {
        "push_key": lambda: public_key_text(current_app.config["SECRET_KEY"]),
        "push_browsers": lambda player_id: browsers(current_store(), player_id),
    }


@bp.route("/push-worker.js")
def worker() -> Response:
    """The service worker script (never cached for long: a new one must reach browsers)."""
    response = send_from_directory(static_dir(), "push-worker.js", max_age=0)
    response.headers["Content-Type"] = "text/javascript; charset=utf-8"
    response.headers["Content-Security-Policy"] = WORKER_CSP
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.route("/me/push", methods=["POST"])
def add_browser() -> tuple[Response, int]:
    """Record this browser's push subscription for the signed-in player."""
    player = signed_in_player()
    try:
        loaded = PushSubscriptionSchema().load(request.get_json(silent=True) or {})
    except ValidationError as error:
        raise TurnpostError(
            "invalid_request", phrase("This is not a push subscription."), error.messages_dict
        ) from None
    created = subscribe(current_store(), push_destinations(current_app.config), player.id, loaded)
    return jsonify(created), 201


@bp.route("/me/push/<int:subscription_id>/remove", methods=["POST"])
def remove_browser(subscription_id: int) -> Response:
    """Stop notifying one of the signed-in player's browsers."""
    player = signed_in_player()
    if not current_store().remove_push_subscription(subscription_id, player.id):
        raise TurnpostError("not_found", phrase("You have no such browser."))
    return redirect(url_for("accounts.me_page"), 303)
