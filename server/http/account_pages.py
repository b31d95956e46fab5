"""The pages of players: signing in by mailed link, signing out, the player's own page.

``/sign-in`` asks for an address and answers the same whether it belongs to a
player or not. ``/sign-in/<link>`` signs in: at once when the user opened the
link themselves (from their mail program: ``Sec-Fetch-Site: none``), after a
button otherwise, so that a link scanner never uses a link up. Signing in
opens a new session and starts a new Flask session (a new CSRF token): the
session cookie is rotated; it lands on the player's games
(:mod:`server.http.my_games`). ``/me`` is the player's page: name, time zone,
language, mail preference, chat pings (as ``/api/v1/me/pings``), personal API
tokens, and signing out here or everywhere.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from marshmallow import ValidationError

from engines.phrases import N_, phrase
from schemas.accounts import (
    LANGUAGES,
    MAIL_PREFERENCES,
    ApiTokenCreateSchema,
    ProfileSchema,
    SignInSchema,
)
from schemas.pings import PingCreateSchema
from server.errors import TurnpostError
from server.games.clock import parse_time, utcnow
from server.games.vacation_days import player_days_left
from server.http.actor import SESSION_COOKIE, accounts, current_actor, signed_in_player
from server.http.api import check_destination
from server.http.clients import current_client
from server.http.context import current_store
from server.http.pages import OWN_NAVIGATION
from server.i18n import (
    LANGUAGE_COOKIE,
    LANGUAGE_COOKIE_SECONDS,
    page_language,
    zone_choice,
    zone_choices,
)
from server.store.records import Player
from server.webhooks.pings import KINDS, add_player_ping

bp = Blueprint("accounts", __name__)

#: How long a session cookie lasts in the browser (the session itself lasts until signed out).
SESSION_DAYS = 90


@bp.app_context_processor
def signed_in() -> dict[str, Any]:
    """Every page may show who is signed in (``player``: a ``players`` row or ``None``)."""
    return {"player": current_actor().player}


@bp.route("/sign-in")
def sign_in_page() -> str:
    """The form asking for an address."""
    return render_template("sign_in.html", problem=None, email="")


@bp.route("/sign-in", methods=["POST"])
def ask_for_link() -> Response:
    """Mail a sign-in link; the same answer whether the address is a player's or not."""
    try:
        email = SignInSchema().load({"email": request.form.get("email", "")})["email"]
    except ValidationError as error:
        problem = " ".join(error.messages_dict.get("email", ["Not an address."]))
        page = render_template("sign_in.html", problem=problem, email=request.form.get("email"))
        return make_response(page, 422)
    accounts().request_link(email, current_client(), language=page_language())
    return make_response(render_template("sign_in_sent.html", email=email))


@bp.route("/sign-in/<link>", methods=["GET", "POST"])
def follow_link(link: str) -> Response:
    """Sign in with a mailed link (after a button, unless the user opened it themselves)."""
    if request.method == "GET" and request.headers.get("Sec-Fetch-Site") not in OWN_NAVIGATION:
        return make_response(render_template("sign_in_confirm.html"))
    player = accounts().sign_in(link)
    old = current_actor().session
    if old:
        accounts().sign_out(old)
    session.clear()  # a new Flask session: a new CSRF token for the signed-in browser
    response = redirect(url_for("my_games.games_page"), 303)
    response.set_cookie(
        SESSION_COOKIE,
        accounts().open_session(player.id),
        max_age=SESSION_DAYS * 24 * 3600,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure,
    )
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.route("/sign-out", methods=["POST"])
def sign_out() -> Response:
    """End this browser's session."""
    actor = current_actor()
    if actor.session:
        accounts().sign_out(actor.session)
    return _signed_out()


@bp.route("/sign-out-everywhere", methods=["POST"])
def sign_out_everywhere() -> Response:
    """End every session of the signed-in player (every browser signs in again)."""
    accounts().sign_out_everywhere(signed_in_player().id)
    return _signed_out()


def _signed_out() -> Response:
    session.clear()
    response = redirect(url_for("web.lobby"), 303)
    response.delete_cookie(SESSION_COOKIE)
    return response


@bp.route("/me")
def me_page() -> Response:
    """The player's own page: profile, mail preference, API tokens, signing out."""
    player = current_actor().player
    if player is None:
        return redirect(url_for("accounts.sign_in_page"), 303)
    return _render_me(player)


@bp.route("/me", methods=["POST"])
def update_me() -> Response:
    """Save the profile form."""
    player = signed_in_player()
    fields = ("name", "time_zone", "language", "mail_pref")
    try:
        profile = ProfileSchema().load({field: request.form.get(field, "") for field in fields})
    except ValidationError as error:
        return _render_me(player, problems=error.messages_dict, status=422)
    accounts().update_profile(player.id, profile)
    return redirect(url_for("accounts.me_page", saved=1), 303)


@bp.route("/language", methods=["POST"])
def switch_language() -> Response:
    """The language switch of every page: a signed-in player's choice is saved in their
    profile, an anonymous reader's in a cookie; then back to the page (its path only)."""
    language = request.form.get("language", "")
    if language not in LANGUAGES:
        message = N_("Pick a language from the list.")
        raise TurnpostError("invalid_request", phrase(message), {"language": [message]})
    response = redirect(own_path(request.form.get("next", "")), 303)
    player = current_actor().player
    if player is not None:
        accounts().update_profile(player.id, {"language": language})
    else:
        response.set_cookie(
            LANGUAGE_COOKIE,
            language,
            max_age=LANGUAGE_COOKIE_SECONDS,
            httponly=True,
            samesite="Lax",
            secure=request.is_secure,
        )
    return response


def own_path(path: str) -> str:
    """``path`` if it is a path of this site (``/...``, never ``//host`` or ``/\\host``),
    else the lobby's.

    >>> own_path("/games/ab12"), own_path("//evil.example/"), own_path("https://evil.example/")
    ('/games/ab12', '/', '/')
    """
    if path.startswith("/") and not path.startswith(("//", "/\\")):
        return path
    return "/"


@bp.route("/me/tokens", methods=["POST"])
def create_token() -> Response:
    """Create a personal API token, shown once on the page that answers."""
    player = signed_in_player()
    try:
        name = ApiTokenCreateSchema().load({"name": request.form.get("name", "")})["name"]
        created = accounts().create_api_token(player.id, name)
    except ValidationError as error:
        return _render_me(player, problems=error.messages_dict, status=422)
    except TurnpostError as error:
        return _render_me(player, problems=error.details, status=error.status)
    return _render_me(player, created=created)


@bp.route("/me/tokens/<int:token_id>/revoke", methods=["POST"])
def revoke_token(token_id: int) -> Response:
    """Revoke one of the player's personal API tokens."""
    player = signed_in_player()
    if not accounts().revoke_api_token(player.id, token_id):
        raise TurnpostError("not_found", phrase("You have no such token."))
    return redirect(url_for("accounts.me_page"), 303)


@bp.route("/me/pings", methods=["POST"])
def create_ping() -> Response:
    """Add a chat ping for every game of the player: the API's schema, destination rules
    and call (``POST /api/v1/me/pings``)."""
    player = signed_in_player()
    form = {
        "kind": request.form.get("kind", ""),
        "url": request.form.get("url", "").strip(),
        "mention": request.form.get("mention", "").strip() or None,
    }
    try:
        ping = PingCreateSchema().load(form)
        check_destination(ping["url"])
        add_player_ping(current_store(), player.id, ping["kind"], ping["url"], ping["mention"])
    except ValidationError as error:
        return _render_me(player, ping_problems=error.messages_dict, status=422)
    except TurnpostError as error:
        return _render_me(player, ping_problems=error.details, status=error.status)
    return redirect(url_for("accounts.me_page", _anchor="pings"), 303)


@bp.route("/me/pings/<int:ping_id>/remove", methods=["POST"])
def remove_ping(ping_id: int) -> Response:
    """Stop one of the player's chat pings, in every game."""
    player = signed_in_player()
    if not current_store().remove_player_ping(player.id, ping_id, utcnow()):
        raise TurnpostError("not_found", f"You have no chat ping {ping_id}.")
    return redirect(url_for("accounts.me_page", _anchor="pings"), 303)


def _render_me(
    player: Player,
    problems: dict[str, Any] | None = None,
    created: dict[str, Any] | None = None,
    status: int = 200,
    ping_problems: dict[str, Any] | None = None,
) -> Response:
    profile = {
        "name": player.name,
        "time_zone": player.time_zone,
        "language": player.language,
        "mail_pref": player.mail_pref,
    }
    form = {**profile, **request.form} if problems else profile
    language = page_language()
    page = render_template(
        "me.html",
        me=player,
        form=form,
        problems=problems or {},
        created=created,
        tokens=accounts().api_tokens(player.id),
        pings=current_store().player_pings(player.id),
        ping_kinds=KINDS,
        ping_form=request.form if ping_problems else {},
        ping_problems=ping_problems or {},
        time_zones=zone_choices(language),
        picked_zone=zone_choice(form["time_zone"], language),
        vacation_days_left=player_days_left(current_store(), player, parse_time(utcnow())),
        languages=LANGUAGES,
        mail_preferences=MAIL_PREFERENCES,
        saved=request.args.get("saved") == "1",
    )
    response = make_response(page, status)
    response.headers["Cache-Control"] = "no-store"
    return response
