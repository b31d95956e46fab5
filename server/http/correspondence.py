"""Correspondence play over HTTP: game records, takebacks by agreement, conditional moves.

The API: ``GET /api/v1/games/{id}/record`` (the text record,
:mod:`server.games.records`). The pages: ``GET /games/{id}/record.gif``
(the animated board, :mod:`server.animation`), linked with the record from
the game page once the game is over.
"""

from __future__ import annotations

from flask import Blueprint, Response

from server.animation import game_gif
from server.games.records import game_record
from server.http.api import blp, operation
from server.http.context import current_service
from server.http.cooperative import offload

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
