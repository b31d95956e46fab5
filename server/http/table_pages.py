"""The pages of tables: a table that forms, joining it, the host's panel, rematches.

``/tables/<id>`` shows a table that forms (or was cancelled before it
started): the game, its options and clock, who sits there, and a button to
join it for a signed-in player (:meth:`Tables.join`: the seat's token goes
into this browser's seat cookies, as a seat link does). Once the table is
full it is a game, and this page sends to the game's page.

The *host* (the signed-in player who created the game) sees a panel on the
table's page and on the game's page (``templates/host_panel.html``, from the
``table_controls`` helper every template may call): remove a player or
cancel the table, stop the game, set or lift the turn clock, hide the game
from the lobby, send a seat's invitation again or give it a new link. Each
is a CSRF-protected form; nobody else may use them (``403``). At the end of
a game, its players may ask for a rematch (``/games/<id>/rematch``), which
opens the new table's page of links (as creating a game from the lobby does).
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, Response, make_response, redirect, render_template, request, url_for

from engines.phrases import N_, phrase
from server.errors import TurnpostError
from server.games.game import Game
from server.games.service import time_control
from server.games.tables import DEADLINE_POLICIES, Tables
from server.http.actor import current_actor, signed_in_player
from server.http.clients import current_client
from server.http.context import current_service
from server.http.pages import (
    LOBBY_BANK,
    TURN_CLOCKS,
    _held_seats,
    _remember_seats,
    clock_words,
    form_clock,
    option_words,
    show_created,
    whole_number,
)
from server.i18n import catalog, page_language
from server.store.records import Seat

bp = Blueprint("tables", __name__)

#: What the page says after each of the host's actions (``?done=``).
DONE = {
    "removed": N_("The seat is open again."),
    "clock": N_("The turn clock is set."),
    "hidden": N_("The game is no longer listed in the lobby nor in the public list."),
    "listed": N_("The game is listed again."),
    "invited": N_("The invitation is on its way; the links of earlier mails no longer work."),
    "stopped": N_("Stopped."),
}
#: Where a seat stands, as the host's panel says it: of a forming table, of a game.
SEAT_STATES = {
    ("forming", True): N_("took their seat"),
    ("forming", False): N_("has not taken their seat yet"),
    ("playing", True): N_("opened their link"),
    ("playing", False): N_("has not opened their link yet"),
}


def tables() -> Tables:
    """The tables of the running app, on this request's game service."""
    return Tables(current_service())


@bp.app_context_processor
def table_helpers() -> dict[str, Any]:
    """Every template may ask for a game's host panel and rematch (``table_controls``)."""
    return {"table_controls": table_controls}


def table_controls(game: Game | str) -> dict[str, Any]:
    """What the host panel and the rematch section of a game's pages show this visitor (the
    game as loaded for the page, or its id)."""
    games = current_service()
    game = games.load(game) if isinstance(game, str) else game
    player = current_actor().player
    host = Tables(games).host_of(game, player)
    rematch = games.store.rematch_of(game.id)
    held = _held_seats(games, game)
    mine = player is not None and any(row.player_id == player.id for row in game.seats)
    hours = game.row.turn_hours
    return {
        "host": host,
        "seats": [_seat_words(game, row) for row in game.seats if row.name] if host else [],
        "running": game.status in ("forming", "active"),
        "forming": game.status == "forming",
        "hidden": game.row.hidden_at is not None,
        "turn_hours": hours,
        "control": clock_words(hours, game.row.clock) if game.row.clock else None,
        "policy": game.row.deadline_policy,
        "clocks": sorted(set(TURN_CLOCKS) | ({hours} if hours else set())),
        "policies": DEADLINE_POLICIES,
        "clock_words": clock_words,
        "bank": LOBBY_BANK,
        "rematch": rematch,
        "may_rematch": game.status == "finished" and not rematch and (host or mine or held),
        "signed_in": player is not None,
        "done": _done_words(request.args.get("done", "")),
    }


def _done_words(done: str) -> str | None:
    """What the host's last action did (``?done=``), in the page's language."""
    said = DONE.get(done)
    return catalog(page_language()).gettext(said) if said else None


def _seat_words(game: Game, row: Seat) -> dict[str, Any]:
    """A seat in the host panel: its name, where it stands (never its address)."""
    if game.status == "forming":
        state = SEAT_STATES["forming", bool(row.joined_at)]
    else:
        state = SEAT_STATES["playing", bool(row.private_at)]
    state = catalog(page_language()).gettext(state)
    return {"seat": row.seat, "name": row.name, "state": state, "mail": bool(row.email)}


# -- a table that forms -----------------------------------------------------------
@bp.route("/tables/<game_id>")
def table_page(game_id: str) -> Response:
    """A table that forms: who sits there, and a button to join; the game's page once full."""
    games = current_service()
    game = games.load(game_id)
    if game.started:
        return redirect(url_for("web.game_page", game_id=game_id), 303)
    player = current_actor().player
    mine = [] if player is None else [r for r in game.seats if r.player_id == player.id]
    view = games.game_object(game, None)
    page = render_template(
        "forming.html",
        game=game,
        view=view,
        options=option_words(view["options"]),
        clock=clock_words(game.row.turn_hours, game.row.clock),
        seated=any(row.joined_at for row in mine),
        kept=any(not row.joined_at for row in mine),
        free=sum(not row.name for row in game.seats),
    )
    response = make_response(page)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.route("/tables/<game_id>/join", methods=["POST"])
def join(game_id: str) -> Response:
    """Take a seat at a forming table (signed in): its token stays in this browser."""
    player = signed_in_player()
    games = current_service()
    taken = Tables(games).join(game_id, player)
    response = redirect(url_for("web.game_page", game_id=game_id), 303)
    held = _held_seats(games, games.load(game_id))
    kept = [token for seat, token in held.items() if seat != taken.seat]
    _remember_seats(response, game_id, kept, active=taken.token)
    return response


# -- the host's panel ---------------------------------------------------------------
def _done(game_id: str, what: str) -> Response:
    """Back to the game's page (or the table's), saying what was done."""
    return redirect(url_for("web.game_page", game_id=game_id, done=what, _anchor="host"), 303)


@bp.route("/games/<game_id>/host/stop", methods=["POST"])
def stop(game_id: str) -> Response:
    """The host cancels the table or stops the game (the form asks to be sure)."""
    host = signed_in_player()
    if request.form.get("sure") != "yes":
        raise TurnpostError("invalid_request", phrase("Tick the box to say you are sure."))
    tables().stop(game_id, host)
    return _done(game_id, "stopped")


@bp.route("/games/<game_id>/host/seats/<int:seat>/remove", methods=["POST"])
def remove(game_id: str, seat: int) -> Response:
    """The host frees a seat of a table that forms."""
    tables().remove(game_id, signed_in_player(), seat)
    return _done(game_id, "removed")


@bp.route("/games/<game_id>/host/clock", methods=["POST"])
def clock(game_id: str) -> Response:
    """The host sets the clock as the lobby form offers it (hours a move or the bank, quiet
    weekends), or lifts it (no hours), or keeps the game's time control (``keep``) and sets
    only what happens when time runs out."""
    host = signed_in_player()
    text = request.form.get("turn_hours", "")
    if text == "keep":
        tables().set_policy(game_id, host, request.form.get("deadline_policy", ""))
        return _done(game_id, "clock")
    if text not in ("", "bank") and whole_number(text) is None:
        raise TurnpostError(
            "invalid_request", phrase("The hours of a turn must be a whole number.")
        )
    control = time_control(form_clock(request.form), None)
    tables().set_clock(game_id, host, control, request.form.get("deadline_policy", ""))
    return _done(game_id, "clock")


@bp.route("/games/<game_id>/host/messages/<int:number>/delete", methods=["POST"])
def delete_message(game_id: str, number: int) -> Response:
    """The host deletes a message of the table: it stays listed as deleted, its text gone."""
    tables().delete_message(game_id, signed_in_player(), number)
    return redirect(url_for("web.game_page", game_id=game_id, _anchor="talk"), 303)


@bp.route("/games/<game_id>/host/hide", methods=["POST"])
def hide(game_id: str) -> Response:
    """The host hides the game from the lobby and the public list, or lists it again."""
    hidden = request.form.get("hidden") == "yes"
    tables().hide(game_id, signed_in_player(), hidden)
    return _done(game_id, "hidden" if hidden else "listed")


@bp.route("/games/<game_id>/host/seats/<int:seat>/invite", methods=["POST"])
def invite(game_id: str, seat: int) -> Response:
    """The host mails a seat its invitation again (the mail gate decides)."""
    tables().send_invitation(game_id, signed_in_player(), seat)
    return _done(game_id, "invited")


@bp.route("/games/<game_id>/host/seats/<int:seat>/replace", methods=["POST"])
def replace(game_id: str, seat: int) -> Response:
    """The host gives a seat a new link, shown once on the page that answers."""
    new = tables().replace_link(game_id, signed_in_player(), seat)
    link = url_for("web.claim_seat", game_id=game_id, token=new["token"], _external=True)
    page = render_template("replaced.html", game_id=game_id, name=new["name"], link=link)
    response = make_response(page)
    response.headers["Cache-Control"] = "no-store"
    return response


# -- rematches ---------------------------------------------------------------------
@bp.route("/games/<game_id>/rematch", methods=["POST"])
def rematch(game_id: str) -> Response:
    """Set up the rematch of a finished game and show its links (its page if it exists)."""
    player = signed_in_player()
    games = current_service()
    held = sorted(_held_seats(games, games.load(game_id)))
    key = secrets.token_bytes(32)
    made = Tables(games).rematch(game_id, player, held, current_client(), key)
    if made.existed:
        return redirect(url_for("web.game_page", game_id=made.id), 303)
    response = show_created(made.id, key)
    if made.tokens:
        _remember_seats(response, made.id, made.tokens, active=made.tokens[0])
    return response
