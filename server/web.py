"""HTML pages: the lobby, a page per game, and the move form.

A seat's private link ``/games/<id>/seat/<token>`` stores the token in an
HttpOnly, SameSite cookie and redirects to the plain game page, so the token
does not stay in the address bar or in the history.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)

from engines import ENGINES
from server.errors import TurnpostError
from server.service import Game, GameService

bp = Blueprint("web", __name__)

SEAT_COOKIE_DAYS = 365


def service() -> GameService:
    """The request's game service."""
    return current_app.extensions["turnpost"].service()


def seat_cookie(game_id: str) -> str:
    """The cookie name holding a seat token for one game."""
    return f"turnpost_seat_{game_id}"


@bp.route("/")
def lobby() -> str:
    """The engines and the recent games."""
    games = service().store.recent_games()
    return render_template("lobby.html", engines=ENGINES.values(), games=games)


@bp.route("/healthz")
def health() -> Response:
    """A trivial liveness check (also the benchmark's ceiling route)."""
    return Response("ok\n", mimetype="text/plain")


@bp.route("/games/<game_id>/seat/<token>")
def claim_seat(game_id: str, token: str) -> Response:
    """Remember a seat token in a cookie, then show the game without the token in the URL."""
    games = service()
    game = games.load(game_id)
    games.authenticate(game, token)
    response = redirect(url_for("web.game_page", game_id=game_id))
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
    """The board, whose turn, the move list and, for the seat to move, the move form."""
    return _render_game(service(), game_id)


@bp.route("/games/<game_id>/moves", methods=["POST"])
def post_move(game_id: str) -> Any:
    """Submit a move in notation from the form; show the engine's reason if it is refused."""
    games = service()
    notation = request.form.get("notation", "").strip()
    expected = request.form.get("expected_seq", "")
    try:
        if not notation:
            raise TurnpostError("invalid_move", "Write a move in notation, e.g. one listed below.")
        games.submit(
            game_id,
            request.cookies.get(seat_cookie(game_id)),
            notation=notation,
            expected_seq=int(expected) if expected.isdigit() else None,
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
    seat = _seat_from_cookie(games, game)
    at = request.args.get("at", type=int)
    view = games.game_object(game, seat, at=at)
    return render_template(
        "game.html",
        game=view,
        moves=games.move_log(game),
        seat=seat,
        legal=games.legal_moves(game, seat)["moves"] if seat is not None and at is None else [],
        format_move=game.engine.format,
        error=error,
        notation=notation,
        board_template=f"boards/{game.engine.id}.html",
    )


def _seat_from_cookie(games: GameService, game: Game) -> int | None:
    token = request.cookies.get(seat_cookie(game.id))
    if token is None:
        return None
    try:
        return games.authenticate(game, token)
    except TurnpostError:
        return None
