"""The table talk over HTTP: the game page's talk panel and its stream, and the API's messages.

The game page (:mod:`server.http.pages`) shows the talk panel
(``templates/talk.html``) of the seat it shows, or of a signed-in player's
seat in the game. Its forms post here, CSRF-protected: a message
(``POST /games/<id>/talk``) and a mute (``POST /games/<id>/talk/mute``),
each as a seat the browser holds (its cookies) or the signed-in player's; a
refused message shows the page again with the reason and the words written.
``GET /games/<id>/talk`` is the panel alone, for the page's script to swap
in when a message comes, and ``GET /games/<id>/events`` the game's event
stream (:func:`server.http.api.event_stream`) read as that seat: its
partner thread too, not the seats it muted, open after the game's end.

The API: ``GET /api/v1/games/{id}/messages`` (the table for anyone; the
partner thread with a seat token), ``POST`` (a seat token) and
``DELETE /api/v1/games/{id}/messages/{number}`` (the admin token: the host).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from flask import Blueprint, Response, redirect, render_template, request, url_for

from engines.phrases import N_, phrase
from schemas.api import MAX_SEED
from schemas.talk import MessageCreateSchema, MessageSchema, MessagesQuerySchema
from server.errors import TurnpostError
from server.games.game import Game
from server.games.service import GameService
from server.games.talk import TalkService, check_started, talk_seat
from server.http.actor import current_actor
from server.http.api import (
    bearer,
    blp,
    event_stream,
    last_event_id,
    operation,
    seated,
    stream_reader,
)
from server.http.context import current_service
from server.http.pages import (
    _chosen_seat,
    _held_seats,
    _table,
    _table_url,
    talk_view,
    whole_number,
)

bp = Blueprint("talk", __name__)

#: The ``Link`` header of a page of messages that has a next one.
NEXT_MESSAGES = {
    "Link": {
        "description": "The next page, while there may be one: `</api/v1/games/{id}/messages"
        '?thread=table&after=200&limit=200>; rel="next"`.',
        "schema": {"type": "string"},
    }
}


# -- the game page --------------------------------------------------------------
def page_seats(games: GameService, game: Game) -> set[int]:
    """The seats this browser may talk as: those its cookies hold, and the signed-in player's."""
    player = current_actor().player
    tied = {row.seat for row in game.seats if player and row.player_id == player.id}
    return set(_held_seats(games, game)) | tied


def page_seat(games: GameService, game: Game) -> int | None:
    """The seat the page shows (``?as=``, the cookie's), else the signed-in player's, else none."""
    return talk_seat(game, _chosen_seat(game, _held_seats(games, game)), current_actor().player)


def _speaker(games: GameService, game: Game) -> int:
    """The seat a form speaks as (its ``seat`` field); ``403`` unless this browser holds it."""
    seat = whole_number(request.form.get("seat", ""))
    if seat is None or seat not in page_seats(games, game):
        raise TurnpostError(
            "forbidden", phrase("Only the players of this game may talk at its table.")
        )
    return seat


def _back(games: GameService, game: Game, seat: int) -> Response:
    """To the talk panel of the game page, as ``seat`` when the browser holds several."""
    shown = seat if len(page_seats(games, game)) > 1 else None
    return redirect(_table_url(game.id, as_seat=shown, _anchor="talk"), 303)


@bp.route("/games/<game_id>/talk", methods=["POST"])
def post_message(game_id: str) -> Any:
    """Post a message from the talk panel; a refusal shows the page with why, text kept."""
    games = current_service()
    game = games.load(game_id)
    seat = _speaker(games, game)
    text, thread = request.form.get("text", ""), request.form.get("thread", "table")
    try:
        TalkService(games.store).post(game, seat, text, thread, via="web")
    except TurnpostError as error:
        if error.code in ("not_found", "unauthorized", "not_started"):
            raise  # a table still forming has no game page to show the refusal on
        context = _table(games, games.load(game_id))
        context["talk"] = replace(
            context["talk"], error=error.message, draft=text, draft_thread=thread
        )
        return render_template("game.html", **context), error.status, error.headers
    return _back(games, game, seat)


@bp.route("/games/<game_id>/talk/mute", methods=["POST"])
def mute(game_id: str) -> Response:
    """Mute (``muted=1``) or unmute (``muted=0``) another player's messages for this seat."""
    games = current_service()
    game = games.load(game_id)
    seat = _speaker(games, game)
    other = whole_number(request.form.get("other", ""))
    if other is None:
        raise TurnpostError("invalid_request", phrase("Pick a player of this game to mute."))
    TalkService(games.store).set_muted(game, seat, other, request.form.get("muted") == "1")
    return _back(games, game, seat)


@bp.route("/games/<game_id>/talk")
def talk_panel(game_id: str) -> Response:
    """The talk panel alone, for the page's script to swap in when a message comes."""
    games = current_service()
    game = games.load(game_id)
    check_started(game)
    talk = talk_view(games, game, _chosen_seat(game, _held_seats(games, game)))
    page = render_template("talk.html", talk=talk, game={"id": game.id})
    return Response(page, headers={"Cache-Control": "no-store"})


@bp.route("/games/<game_id>/events")
def page_events(game_id: str) -> Response:
    """The game's event stream as the seat the page shows: its partner thread too, not the
    seats it muted, and open after the end (the talk goes on)."""
    games = current_service()
    game = games.load(game_id)
    after = min(request.args.get("last_event_id", 0, type=int), MAX_SEED)
    last = last_event_id({"last_event_id": max(after, 0)})
    return event_stream(games, game, last, stream_reader(games, game, page_seat(games, game), True))


# -- the API --------------------------------------------------------------------
@blp.route("/games/<game_id>/messages")
@blp.arguments(MessagesQuerySchema(), location="query")
@blp.response(200, MessageSchema(many=True), headers=NEXT_MESSAGES)
@operation("listMessages", "unauthorized", "not_found", "invalid_request")
@bearer
def list_messages(query: dict[str, Any], game_id: str) -> Any:
    """The messages of a thread in order, a page at a time: the table's (no token needed), or
    with a seat token the seat's partner thread; the seats it muted are left out."""
    games = current_service()
    game, seat = games.load_as(game_id, current_actor().bearer)
    thread, limit = query["thread"], query["limit"]
    entries = TalkService(games.store).read(game, seat, thread, query["after"], limit)
    headers = {}
    if len(entries) == limit:
        following = url_for(
            "api.list_messages",
            game_id=game.id,
            thread=thread,
            after=entries[-1]["number"],
            limit=limit,
        )
        headers["Link"] = f'<{following}>; rel="next"'
    return entries, 200, headers


@blp.route("/games/<game_id>/messages", methods=["POST"])
@blp.arguments(MessageCreateSchema())
@blp.response(201, MessageSchema)
@operation("postMessage", "unauthorized", "not_found", "not_started", "invalid_request", body=True)
@bearer
def post_api_message(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Post a message as the caller's seat, to the table or its partner thread (seat token).

    A seat may post 10 messages a minute and 100 a day (``429`` with ``Retry-After``).
    """
    games = current_service()
    game, seat = seated(games, game_id, N_("A seat token is needed to post a message."))
    return TalkService(games.store).post(game, seat, body["text"], body["thread"], via="api")


@blp.route("/games/<game_id>/messages/<int:number>", methods=["DELETE"])
@blp.response(204)
@operation("deleteMessage", "unauthorized", "not_found")
@bearer
def delete_message(game_id: str, number: int) -> None:
    """Delete a message of the table (admin token: the host); its text is gone for good."""
    games = current_service()
    game = games.load(game_id)
    games._check_admin(game, current_actor().bearer)
    TalkService(games.store).delete(game, number, by="host")
