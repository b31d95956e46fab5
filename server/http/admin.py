"""The operator's pages, ``/admin``: games, the mail queue, webhook failures, refusals.

Who may open them: a player signed in in this browser (a session, not a
personal API token) whose address is in ``TURNPOST_ADMIN_EMAILS``
(comma-separated; compared as mailboxes, so case and ``+tags`` aside).
Anyone else gets ``404``, as for a page that does not exist. Every change is
a form posted with the page's CSRF token (``400`` without it) and answered
by a redirect back with a notice in words.

- **Games**: find a game by the start of its id, its engine or a player's
  name; abort a running game or a forming table; hide a game from the lobby
  and the public list, or show it again.
- **Mail**: the unsent mails whose sending failed (tried again later, or
  failed for good) with the reason, each with a button to try again now; the
  mails that will never be sent and why (the turn was played, the player
  stopped their mail, asked never to be mailed again...); how many addresses
  asked never to be mailed again, and a form to lift that for one address
  (only a hash of each is kept, so they cannot be listed).
- **Webhooks**: the deliveries whose last attempt failed.
- **Refusals**: requests refused with ``429`` (rate limits, stream caps), by
  client address. They are counted in the memory of each server process since
  it started (:class:`Refusals`): with several workers, each page load shows
  one worker's, and a restart forgets them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.exceptions import NotFound

from engines import ENGINES
from engines.phrases import phrase
from server.errors import TurnpostError
from server.games.clock import utcnow
from server.http.actor import current_actor
from server.http.clients import current_client
from server.http.context import current_service, current_store
from server.mail.addresses import recipient_key

bp = Blueprint("admin", __name__, url_prefix="/admin")

#: Rows one list shows at most.
LIST_LIMIT = 50
#: Client addresses the refusal counts keep at most (the least recent is forgotten first).
REFUSAL_CLIENTS = 1000
#: A game's status in words.
STATUS_WORDS = {
    "forming": "waiting for players",
    "active": "being played",
    "finished": "over",
    "aborted": "aborted",
}
#: A mail's kind in words.
KIND_WORDS = {
    "turn": "your turn",
    "reminder": "reminder",
    "invite": "invitation",
    "accepted": "move confirmed",
    "rejected": "move refused",
    "answer": "answer to a mail command",
    "game_over": "game over",
    "move": "a move was played",
    "digest": "daily digest",
    "sign_in": "sign-in link",
}


@dataclass
class Refused:
    """The refusals of one client address: how many, and the latest one's time and path."""

    count: int
    last_at: str
    last_path: str


class Refusals:
    """Requests this process refused with ``429``, by client address, in its memory only."""

    def __init__(self, keep: int = REFUSAL_CLIENTS) -> None:
        self.keep = keep
        self._by_client: OrderedDict[str, Refused] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, client: str, path: str, at: str) -> None:
        """Count one refusal of ``client`` at ``at``."""
        with self._lock:
            earlier = self._by_client.pop(client, None)
            self._by_client[client] = Refused((earlier.count if earlier else 0) + 1, at, path)
            if len(self._by_client) > self.keep:
                self._by_client.popitem(last=False)

    def latest(self, limit: int) -> list[tuple[str, Refused]]:
        """Up to ``limit`` client addresses, the latest refused first."""
        with self._lock:
            return list(reversed(self._by_client.items()))[:limit]


def init_admin(app: Flask) -> None:
    """Register the operator's pages and the count of refusals on ``app``."""
    app.extensions["turnpost_refusals"] = Refusals()
    app.after_request(count_refusal)
    app.register_blueprint(bp)


def count_refusal(response: Response) -> Response:
    """Count an answer ``429`` for the operator's page."""
    if response.status_code == 429:
        current_app.extensions["turnpost_refusals"].record(current_client(), request.path, utcnow())
    return response


def operator_keys() -> set[str]:
    """The mailboxes of ``TURNPOST_ADMIN_EMAILS``."""
    addresses = current_app.config["TURNPOST_ADMIN_EMAILS"].split(",")
    return {recipient_key(address) for address in addresses if address.strip()}


@bp.before_request
def operators_only() -> None:
    """``404`` unless a signed-in operator asks (the pages do not exist for anyone else)."""
    actor = current_actor()
    player = actor.player
    if actor.session is None or player is None or player.email_key not in operator_keys():
        raise NotFound()


@bp.after_request
def never_cached(response: Response) -> Response:
    """The operator's pages show addresses and errors: no cache keeps them."""
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.app_template_filter("status_words")
def status_words(status: str) -> str:
    """A game's status in words."""
    return STATUS_WORDS.get(status, status)


@bp.app_template_filter("kind_words")
def kind_words(kind: str) -> str:
    """A mail's kind in words."""
    return KIND_WORDS.get(kind, kind.replace("_", " "))


@bp.app_template_filter("engine_name")
def engine_name(engine: str) -> str:
    """An engine's name ("King of Siam"), or its id if it has none any more."""
    return ENGINES[engine].name if engine in ENGINES else engine


# -- games -------------------------------------------------------------------------
@bp.route("")
def games_page() -> str:
    """Find games (all of them, hidden ones too) and act on them."""
    text = request.args.get("q", "").strip()[:100]
    games = current_store().find_games(text, LIST_LIMIT)
    return render_template("admin_games.html", games=games, q=text, section="games")


@bp.route("/games/<game_id>/abort", methods=["POST"])
def abort_game(game_id: str) -> Response:
    """Abort a running game or a forming table."""
    try:
        current_service().stop(game_id)
    except TurnpostError as error:
        if error.code == "not_found":
            raise
        flash(f"Game {game_id} was not aborted: {error.message}")
    else:
        flash(f"Game {game_id} is aborted.")
    return _back_to_games()


@bp.route("/games/<game_id>/hide", methods=["POST"])
def hide_game(game_id: str) -> Response:
    """Take a game out of the lobby and the public list."""
    _set_hidden(game_id, utcnow())
    flash(f"Game {game_id} is hidden from the lobby and the public list.")
    return _back_to_games()


@bp.route("/games/<game_id>/show", methods=["POST"])
def show_game(game_id: str) -> Response:
    """List a hidden game again."""
    _set_hidden(game_id, None)
    flash(f"Game {game_id} is listed again.")
    return _back_to_games()


def _set_hidden(game_id: str, at: str | None) -> None:
    """Hide a game from ``at`` on (``None``: list it again); ``404`` for no such game."""
    store = current_store()
    with store.write():
        if not store.game_exists(game_id):
            raise TurnpostError("not_found", phrase("No game %(game)r.", game=game_id))
        store.update_game(game_id, {"hidden_at": at})


def _back_to_games() -> Response:
    """Back to the games page, with the search the form came from."""
    return redirect(url_for("admin.games_page", q=request.form.get("q") or None), 303)


# -- mail --------------------------------------------------------------------------
@bp.route("/mail")
def mail_page() -> str:
    """The mails that failed, those never sent, and the addresses that asked for no mail."""
    store = current_store()
    return render_template(
        "admin_mail.html",
        problems=store.mail_problems(LIST_LIMIT),
        withheld=store.withheld_mail(LIST_LIMIT),
        suppressed=store.suppression_count(),
        section="mail",
    )


@bp.route("/mail/<int:mail_id>/retry", methods=["POST"])
def retry_mail(mail_id: int) -> Response:
    """Try an unsent mail again at the worker's next round."""
    if current_store().retry_mail(mail_id, utcnow()):
        flash(f"Mail {mail_id} goes out again at the worker's next round.")
    else:
        flash(f"Mail {mail_id} is not waiting to be sent: it was sent, or will never be.")
    return redirect(url_for("admin.mail_page"), 303)


@bp.route("/mail/lift", methods=["POST"])
def lift_suppression() -> Response:
    """Let an address that asked never to be mailed again be mailed again."""
    address = request.form.get("email", "").strip()[:320]
    if "@" not in address:
        flash("Give the whole address, such as ann@example.org.")
    elif current_store().lift_suppression(recipient_key(address)):
        flash(f"{address} may be mailed again.")
    else:
        flash(f"{address} had not asked never to be mailed again.")
    return redirect(url_for("admin.mail_page"), 303)


# -- webhooks and refusals ---------------------------------------------------------
@bp.route("/webhooks")
def webhooks_page() -> str:
    """The webhook deliveries whose last attempt failed."""
    failing = current_store().failing_webhooks(LIST_LIMIT)
    return render_template("admin_webhooks.html", failing=failing, section="webhooks")


@bp.route("/refusals")
def refusals_page() -> str:
    """Requests refused for coming too often, by client address (this process's memory)."""
    refusals: Refusals = current_app.extensions["turnpost_refusals"]
    return render_template(
        "admin_refusals.html", refusals=refusals.latest(LIST_LIMIT), section="refusals"
    )
