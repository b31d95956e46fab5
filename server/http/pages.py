"""The web pages: the lobby with its create-game form, a page per game, and the move forms.

A seat's private link ``/games/<id>/seat/<token>`` stores the token in an
HttpOnly, SameSite cookie and redirects to the plain game page, so the token
does not stay in the address bar or in the history.

Every mail ends with a signed link ``/mail/unsubscribe/<token>``: a GET asks
for confirmation, a POST stops all mail to that address (RFC 8058 one-click,
so mail clients post it without a CSRF token; the signature is the proof).

The seat to move gets the guided form of :mod:`server.http.guide`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from marshmallow import ValidationError

from engines import ENGINES
from schemas.api import GameCreateSchema
from server.app import csrf, current_service, current_store
from server.errors import TurnpostError
from server.games.clock import utcnow
from server.games.game import Game
from server.games.service import GameService, MoveRequest
from server.http.cooperative import offload
from server.http.guide import build_guide, read_picks
from server.http.jsontext import load_untrusted
from server.mail.addresses import unsubscribed

bp = Blueprint("web", __name__)

SEAT_COOKIE_DAYS = 365
#: How many of the remaining legal moves the page lists in notation.
LISTED_MOVES = 60
#: Player rows of the create-game form (the most seats any engine takes).
FORM_SEATS = max(engine.max_players for engine in ENGINES.values())
#: ``Sec-Fetch-Site`` values of a navigation started by another site.
FOREIGN_SITES = frozenset({"cross-site", "same-site"})


def seat_cookie(game_id: str) -> str:
    """The cookie name holding a seat token for one game."""
    return f"turnpost_seat_{game_id}"


# -- lobby ----------------------------------------------------------------
@bp.route("/")
def lobby() -> str:
    """The engines, the open and recent games, and the create-game form."""
    return _render_lobby()


@bp.route("/games", methods=["POST"])
def create_game() -> Any:
    """Create a game from the lobby form and show each seat's private link, once."""
    games = current_service()
    try:
        body = _creation_body(request.form)
        created = games.create(
            body["engine"], body["players"], body["options"], client=request.remote_addr
        )
    except TurnpostError as error:
        return _render_lobby(error=error, form=request.form), error.status
    links = [
        {
            **player,
            "link": url_for(
                "web.claim_seat", game_id=created["id"], token=player["token"], _external=True
            ),
        }
        for player in created["players"]
    ]
    page = render_template("created.html", game=created, links=links)
    response = make_response(page, 201)
    response.headers["Cache-Control"] = "no-store"
    return response


def _render_lobby(error: TurnpostError | None = None, form: Mapping[str, str] | None = None) -> str:
    recent = current_store().recent_games()
    return render_template(
        "lobby.html",
        engines=list(ENGINES.values()),
        engine_names={engine.id: engine.name for engine in ENGINES.values()},
        hidden={engine.id: engine.hidden_information for engine in ENGINES.values()},
        open_games=[row for row in recent if row["status"] == "active"],
        closed_games=[row for row in recent if row["status"] != "active"],
        seats=range(FORM_SEATS),
        error=error,
        form=form or {},
        dumps=json.dumps,
    )


def _creation_body(form: Mapping[str, str]) -> dict[str, Any]:
    """The create-game request from the lobby form, checked by the API's schema."""
    players = []
    for seat in range(FORM_SEATS):
        name = form.get(f"name{seat}", "").strip()
        email = form.get(f"email{seat}", "").strip()
        if name or email:
            players.append({"name": name, "email": email or None})
    try:
        options = load_untrusted(form.get("options", "").strip() or "{}")
    except TurnpostError:
        raise TurnpostError(
            "invalid_request", 'Options must be a JSON object, e.g. {"cross_rule": false}.'
        ) from None
    body = {"engine": form.get("engine", ""), "players": players, "options": options}
    try:
        return GameCreateSchema().load(body)
    except ValidationError as error:
        problems = "; ".join(_field_errors(error.messages))
        raise TurnpostError("invalid_request", f"Please check: {problems}.") from None


def whole_number(text: str) -> int | None:
    """``text`` as a non-negative whole number, or ``None``.

    >>> whole_number("42"), whole_number(""), whole_number("\u00b2"), whole_number("-1")
    (42, None, None, None)
    """
    try:
        number = int(text)
    except ValueError:
        return None
    return number if number >= 0 and text.isascii() else None


def _field_errors(messages: Any, where: str = "") -> Iterator[str]:
    """``"players 1 email: Not a valid email address."`` lines from marshmallow messages.

    >>> list(_field_errors({"players": {0: {"name": ["Too short."]}}}))
    ['players 1 name: Too short.']
    """
    if isinstance(messages, dict):
        for key, value in messages.items():
            label = str(key + 1) if isinstance(key, int) else str(key)
            yield from _field_errors(value, f"{where} {label}".strip())
    elif isinstance(messages, list):
        yield f"{where}: {' '.join(str(message) for message in messages)}"
    else:
        yield f"{where}: {messages}"


# -- never mail me again ----------------------------------------------------
@bp.route("/mail/unsubscribe/<token>")
def unsubscribe_page(token: str) -> Response:
    """Ask whether to stop all mail to the address the link was signed for."""
    return _unsubscribe_response(token, done=False)


@bp.route("/mail/unsubscribe/<token>", methods=["POST"])
@csrf.exempt
def unsubscribe(token: str) -> Response:
    """Stop all mail to the address the link was signed for (one click, RFC 8058)."""
    return _unsubscribe_response(token, done=True)


def _unsubscribe_response(token: str, done: bool) -> Response:
    address = unsubscribed(current_app.extensions["turnpost"].notifier.settings, token)
    if address is None:
        raise TurnpostError("not_found", "This link is not valid; copy it whole from the mail.")
    if done:
        current_store().suppress_mail(address, utcnow())
    response = make_response(render_template("unsubscribe.html", address=address, done=done))
    response.headers["Cache-Control"] = "no-store"
    return response


# -- seats and games --------------------------------------------------------
@bp.route("/healthz")
def health() -> Response:
    """A trivial liveness check (also the benchmark's ceiling route)."""
    return Response("ok\n", mimetype="text/plain")


@bp.route("/games/<game_id>/seat/<token>", methods=["GET", "POST"])
def claim_seat(game_id: str, token: str) -> Response:
    """Remember a seat token in a cookie, then show the game without the token in the URL.

    A link opened from another site (``Sec-Fetch-Site: cross-site`` or
    ``same-site``), or one that would replace the seat this browser already
    plays in this game, only shows a page asking to confirm with a
    CSRF-protected button: a hostile page cannot silently make a visitor play
    for someone else's seat (login CSRF). Links opened from a mail program,
    typed or pasted (``none``) take effect at once.
    """
    games = current_service()
    game = games.load(game_id)
    seat = games.authenticate(game, token)
    held = request.cookies.get(seat_cookie(game_id))
    foreign = request.headers.get("Sec-Fetch-Site") in FOREIGN_SITES
    if request.method == "GET" and held != token and (foreign or held is not None):
        current = _seat_or_none(games, game, held)
        page = render_template(
            "claim.html",
            game=game,
            name=game.seats[seat]["name"],
            current=None if current is None else game.seats[current]["name"],
        )
        return make_response(page)
    response = redirect(url_for("web.game_page", game_id=game_id), 303)
    response.set_cookie(
        seat_cookie(game_id),
        token,
        max_age=SEAT_COOKIE_DAYS * 24 * 3600,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure,
        path=f"/games/{game_id}",
    )
    return response


@bp.route("/games/<game_id>")
def game_page(game_id: str) -> str:
    """The board, whose turn, the move list and, for the seat to move, the move forms."""
    return _render_game(current_service(), game_id)


@bp.route("/games/<game_id>/moves", methods=["POST"])
def post_move(game_id: str) -> Any:
    """Submit a move in notation from a form; show the engine's reason if it is refused."""
    games = current_service()
    notation = request.form.get("notation", "").strip()
    expected = request.form.get("expected_seq", "")
    try:
        if not notation:
            raise TurnpostError("invalid_move", "Write a move in notation, or use the guided form.")
        token = request.cookies.get(seat_cookie(game_id))
        games.submit(
            MoveRequest(
                game_id, token=token, notation=notation, expected_seq=whole_number(expected)
            )
        )
    except TurnpostError as error:
        if error.code == "not_found":
            raise
        return _render_game(games, game_id, error=error, notation=notation), error.status
    return redirect(url_for("web.game_page", game_id=game_id))


def _render_game(
    games: GameService, game_id: str, error: TurnpostError | None = None, notation: str = ""
) -> str:
    game = games.load(game_id)
    seat = _seat_or_none(games, game, request.cookies.get(seat_cookie(game.id)))
    at = request.args.get("at", type=int)
    view = offload(games.game_object, game, seat, at)
    playing = seat is not None and at is None and seat in view["to_move"]
    guide = None
    if playing:
        legal = offload(games.legal_moves, game, seat)["moves"]
        guide = build_guide(game, legal, read_picks(request.args), view["state"])
    return render_template(
        "game.html",
        game=view,
        engine=game.engine,
        moves=games.move_log(game),
        seat=seat,
        at=at,
        playing=playing,
        guide=guide,
        error=error,
        notation=notation,
        listed=LISTED_MOVES,
        board_template=f"boards/{game.engine.id}.html",
    )


def _seat_or_none(games: GameService, game: Game, token: str | None) -> int | None:
    """The seat of ``token`` in ``game``; ``None`` without a token or for a wrong one."""
    try:
        return games.authenticate(game, token)
    except TurnpostError:
        return None
