"""Correspondence play over HTTP: game records, takebacks by agreement, conditional moves.

The API: ``GET /api/v1/games/{id}/record`` (the text record,
:mod:`server.games.records`); ``GET`` and ``POST /api/v1/games/{id}/takeback``
(:mod:`server.games.takebacks`); ``GET`` and ``PUT
/api/v1/games/{id}/conditional`` a seat's conditional moves
(:mod:`server.games.conditional`). The pages: ``GET /games/{id}/record.gif``
(the animated board, :mod:`server.animation`), linked with the record from
the game page once the game is over; ``POST /games/{id}/takeback`` the
page's takeback buttons and ``POST /games/{id}/conditional`` its conditional moves.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, redirect, request

from engines.phrases import N_, phrase
from schemas.correspondence import (
    ConditionalLinesSchema,
    TakebackAnsweredSchema,
    TakebackRequestSchema,
    TakebackStatusSchema,
)
from server.animation import game_gif
from server.cooperative import offload
from server.errors import TurnpostError
from server.games.clock import utcnow
from server.games.conditional import checked_lines, read_lines_text
from server.games.records import game_record
from server.games.takebacks import answer_takeback, offer_takeback, takeback_status
from server.http.api import bearer, blp, operation, seated
from server.http.context import current_service
from server.http.pages import _held_seats, _table_url, whole_number

bp = Blueprint("correspondence", __name__)

#: A record's example in the OpenAPI document.
RECORD_EXAMPLE = (
    '[Game "3f9a0c1b2d4e"]\n[Engine "siam"]\n[Seat0 "Ann"]\n[Seat1 "Bob"]\n'
    '[Options "{\\"cross_rule\\": true, \\"exit_once\\": false}"]\n[Seed "42"]\n'
    '[Created "2026-11-26T10:00:00.000000Z"]\n[Status "active"]\n\n'
    "1. (0) enter a1 N\n2. (1) enter e5 S {conditional}\n"
)


@blp.route("/games/<game_id>/record")
@blp.doc(
    responses={
        "200": {
            "description": 'The game record as text: PGN-like headers (`[Name "value"]`, the'
            " value a JSON string: Game, Engine, Seat0..., Options, Seed and Position only"
            " once the game is over or where nothing is left to chance, Created, Status,"
            " Ended, Result, Winners), a blank line, then one line per log entry:"
            " `seq. (seat) notation`, a `{comment}` saying how it was played."
            " `turnpost import-record FILE` plays one into a new game.",
            "content": {"text/plain": {"schema": {"type": "string"}, "example": RECORD_EXAMPLE}},
        }
    }
)
@operation("getGameRecord", "not_found")
def game_record_text(game_id: str) -> Response:
    """The game record as text (public: no hidden part, the seed only where it reveals nothing)."""
    games = current_service()
    record = game_record(games, games.load(game_id))
    return Response(record, mimetype="text/plain", headers=_attachment(game_id, "txt"))


@bp.route("/games/<game_id>/record.gif")
def record_gif(game_id: str) -> Response:
    """The game as an animated GIF: the start, then one frame per log entry."""
    games = current_service()
    picture = offload(game_gif, games, games.load(game_id))
    headers = {**_attachment(game_id, "gif", inline=True), "Cache-Control": "no-cache"}
    return Response(picture, mimetype="image/gif", headers=headers)


def _attachment(game_id: str, extension: str, inline: bool = False) -> dict[str, str]:
    """The ``Content-Disposition`` naming a game's download ``turnpost-<id>.<extension>``."""
    kind = "inline" if inline else "attachment"
    return {"Content-Disposition": f'{kind}; filename="turnpost-{game_id}.{extension}"'}


@blp.route("/games/<game_id>/takeback")
@blp.response(200, TakebackStatusSchema)
@operation("getTakeback", "not_found")
def get_takeback(game_id: str) -> dict[str, Any]:
    """The game's open takeback offer (``null`` when there is none)."""
    return takeback_status(current_service(), game_id)


@blp.route("/games/<game_id>/takeback", methods=["POST"])
@blp.arguments(TakebackRequestSchema)
@blp.response(200, TakebackAnsweredSchema)
@operation(
    "takeBack",
    "unauthorized",
    "forbidden",
    "not_found",
    "stale_seq",
    "game_over",
    "takeback_refused",
    "invalid_request",
    body=True,
)
@bearer
def post_takeback(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Offer to take back the caller's last move (no ``accept``), or answer the open offer
    (``{"accept": true}`` or ``false``); seat token."""
    games = current_service()
    _, seat = seated(games, game_id, N_("A seat token is needed for a takeback."))
    if body["accept"] is None:
        return offer_takeback(games, game_id, seat, body["expected_seq"])
    return answer_takeback(games, game_id, seat, body["accept"], body["expected_seq"])


#: The page's takeback buttons: what each ``answer`` does.
PAGE_ANSWERS = {"offer": None, "accept": True, "decline": False}


@bp.route("/games/<game_id>/takeback", methods=["POST"])
def page_takeback(game_id: str) -> Response:
    """The game page's takeback buttons, as a seat the browser holds; back to the page."""
    games = current_service()
    game = games.load(game_id)
    seat = whole_number(request.form.get("seat", ""))
    answer = request.form.get("answer", "")
    if seat not in _held_seats(games, game) or answer not in PAGE_ANSWERS:
        raise TurnpostError("forbidden", phrase("This browser holds no such seat of this game."))
    expected = whole_number(request.form.get("expected_seq", ""))
    if PAGE_ANSWERS[answer] is None:
        offer_takeback(games, game_id, seat, expected)
    else:
        answer_takeback(games, game_id, seat, PAGE_ANSWERS[answer], expected)
    return redirect(_table_url(game_id, as_seat=seat), 303)


@blp.route("/games/<game_id>/conditional")
@blp.response(200, ConditionalLinesSchema)
@operation("getConditionalMoves", "unauthorized", "not_found")
@bearer
def get_conditional(game_id: str) -> dict[str, Any]:
    """The caller's conditional moves in this game (seat token; nobody else sees them)."""
    games = current_service()
    _, seat = seated(games, game_id, N_("A seat token is needed for conditional moves."))
    return {"lines": games.store.conditional_lines(game_id).get(seat, [])}


@blp.route("/games/<game_id>/conditional", methods=["PUT"])
@blp.arguments(ConditionalLinesSchema)
@blp.response(200, ConditionalLinesSchema)
@operation(
    "setConditionalMoves", "unauthorized", "not_found", "game_over", "invalid_request", body=True
)
@bearer
def put_conditional(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Store the caller's conditional moves, replacing earlier ones (seat token): each line
    alternates another seat's move and the answer played at once when that move comes."""
    games = current_service()
    with games.store.write():
        game, seat = seated(games, game_id, N_("A seat token is needed for conditional moves."))
        lines = checked_lines(game, seat, body["lines"])
        games.store.set_conditional_lines(game.id, seat, lines, utcnow())
    return {"lines": lines}


@bp.route("/games/<game_id>/conditional", methods=["POST"])
def page_conditional(game_id: str) -> Response:
    """The game page's conditional moves, as a seat the browser holds: the lines written one a
    row replace the seat's earlier ones; back to the page."""
    games = current_service()
    seat = whole_number(request.form.get("seat", ""))
    with games.store.write():
        game = games.load(game_id)
        if seat not in _held_seats(games, game):
            raise TurnpostError(
                "forbidden", phrase("This browser holds no such seat of this game.")
            )
        lines = checked_lines(game, seat, read_lines_text(request.form.get("lines", "")[:20000]))
        games.store.set_conditional_lines(game.id, seat, lines, utcnow())
    return redirect(_table_url(game_id, as_seat=seat), 303)
