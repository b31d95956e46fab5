"""The REST API under ``/api/v1`` (contract section 2), built with flask-smorest."""

from __future__ import annotations

from typing import Any

import flask_smorest
from flask import Response, current_app, request
from marshmallow import Schema, ValidationError
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from engines import ENGINES
from schemas.api import (
    MAX_SEED,
    EngineSchema,
    ErrorResponseSchema,
    EventsQuerySchema,
    GameCreatedSchema,
    GameCreateSchema,
    GameQuerySchema,
    GameSchema,
    LegalMovesSchema,
    LoggedMoveSchema,
    MoveSubmitSchema,
    MoveSubmittedSchema,
    ResignSchema,
    VacationSchema,
    VacationSetSchema,
)
from server.app import current_service
from server.errors import CODE_BY_STATUS, TurnpostError
from server.games.clock import format_time
from server.games.deadlines import set_vacation
from server.games.game import Game
from server.games.service import GameService, MoveRequest
from server.http.cooperative import offload
from server.http.errors import error_response
from server.http.events import end_event, move_event
from server.http.jsontext import load_untrusted


class Api(flask_smorest.Api):
    """flask-smorest's Api answering every HTTP error in the contract's shape."""

    ERROR_SCHEMA = ErrorResponseSchema

    def handle_http_exception(self, error: HTTPException) -> Response:
        """``{"error": {...}}`` for API paths, a small HTML page elsewhere.

        The exception's own headers are kept (``Allow`` on a ``405``).
        """
        code = CODE_BY_STATUS.get(error.code or 500, "bad_request")
        response = error_response(TurnpostError(code, error.description or error.name), error.code)
        for name, value in error.get_headers():
            if name.lower() != "content-type":
                response.headers[name] = value
        return response


class ContractParser(FlaskParser):
    """Reads JSON bodies whatever the Content-Type and reports errors in the contract's shape."""

    def load_json(self, req: Any, schema: Schema) -> Any:
        """The body as a JSON object, or ``400 bad_request`` (see :mod:`server.http.jsontext`).

        A schema whose fields are all optional (``optional_body``) takes an empty body as ``{}``.
        """
        raw = req.get_data(cache=True)
        if not raw and getattr(schema, "optional_body", False):
            return {}
        data = load_untrusted(raw or b"null")
        if not isinstance(data, dict):
            raise TurnpostError("bad_request", "The body must be a JSON object.")
        return data

    def handle_error(self, error: ValidationError, req: Any, schema: Schema, **_: Any) -> Any:
        """Turn a schema failure into ``422`` with field-level ``details``."""
        messages = error.normalized_messages()
        if set(messages) <= {"json", "query", "headers"} and len(messages) == 1:
            messages = next(iter(messages.values()))
        codes = getattr(schema, "field_error_codes", {})
        code = next((codes[field] for field in messages if field in codes), "invalid_request")
        raise TurnpostError(code, "The request does not match its schema.", messages)


class Blueprint(flask_smorest.Blueprint):
    """A flask-smorest blueprint using :class:`ContractParser`."""

    ARGUMENTS_PARSER = ContractParser()


blp = Blueprint("api", __name__, url_prefix="/api/v1", description="Turnpost turn server")


def bearer_token() -> str | None:
    """The token of an ``Authorization: Bearer`` header, or ``None``."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if not header:
        return None
    if scheme.lower() != "bearer" or not token.strip():
        raise TurnpostError("unauthorized", "Use 'Authorization: Bearer <token>'.")
    return token.strip()


def seat_of(games: GameService, game: Game, needed_for: str) -> int:
    """The seat of the request's bearer token in ``game``; ``401`` without one or a wrong one."""
    seat = games.authenticate(game, bearer_token())
    if seat is None:
        raise TurnpostError("unauthorized", f"A seat token is needed {needed_for}.")
    return seat


MAX_IDEMPOTENCY_KEY = 200

#: Routes taking an optional or required ``Authorization: Bearer <token>``.
bearer = blp.doc(security=[{"bearer": []}, {}])
IDEMPOTENCY_HEADER = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": MAX_IDEMPOTENCY_KEY},
    "description": "A repeat with the same key returns the first answer and appends nothing.",
}


def errors(*statuses: int) -> Any:
    """Document the contract's error answers for ``statuses`` on a route."""

    def decorate(func: Any) -> Any:
        for status in statuses:
            func = blp.alt_response(status, schema=ErrorResponseSchema, description="Error")(func)
        return func

    return decorate


@blp.route("/engines")
@blp.response(200, EngineSchema(many=True))
def list_engines() -> list[dict[str, Any]]:
    """Every engine with its player counts and option defaults."""
    return [
        {
            "id": engine.id,
            "name": engine.name,
            "min_players": engine.min_players,
            "max_players": engine.max_players,
            "options": engine.default_options,
        }
        for engine in ENGINES.values()
    ]


@blp.route("/games", methods=["POST"])
@blp.arguments(GameCreateSchema)
@blp.response(201, GameCreatedSchema)
@errors(400, 404, 422)
def create_game(body: dict[str, Any]) -> dict[str, Any]:
    """Create a game; the answer shows each seat's token and the admin token once."""
    return current_service().create(
        body["engine"],
        body["players"],
        body["options"],
        seed=body["seed"],
        position=body["position"],
        turn_hours=body["turn_hours"],
        deadline_policy=body["deadline_policy"],
        client=request.remote_addr,
    )


@blp.route("/games/<game_id>")
@blp.arguments(GameQuerySchema, location="query")
@blp.response(200, GameSchema)
@errors(401, 404, 422)
@bearer
def read_game(query: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The game as the caller may see it; ``?at=N`` for the game after move N."""
    games = current_service()
    game = games.load(game_id)
    seat = games.authenticate(game, bearer_token())
    return offload(games.game_object, game, seat, query.get("at"))


@blp.route("/games/<game_id>/abort", methods=["POST"])
@blp.response(200, GameSchema)
@errors(401, 404, 409)
@bearer
def abort_game(game_id: str) -> dict[str, Any]:
    """End a running game as ``aborted`` (``Authorization: Bearer <admin token>``)."""
    return current_service().abort(game_id, bearer_token())


@blp.route("/games/<game_id>/resign", methods=["POST"])
@blp.arguments(ResignSchema)
@blp.response(200, MoveSubmittedSchema)
@errors(400, 401, 404, 409, 422)
@bearer
def resign(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Resign the caller's seat: it (with its partners) loses, the others win."""
    games = current_service()
    seat = seat_of(games, games.load(game_id), "to resign")
    return games.resign(game_id, seat, body["expected_seq"])


@blp.route("/games/<game_id>/moves")
@blp.response(200, LoggedMoveSchema(many=True))
@errors(404)
def list_moves(game_id: str) -> list[dict[str, Any]]:
    """The public move log in order."""
    games = current_service()
    return games.move_log(games.load(game_id))


@blp.route("/games/<game_id>/moves", methods=["POST"])
@blp.arguments(MoveSubmitSchema)
@blp.response(201, MoveSubmittedSchema)
@errors(400, 401, 404, 409, 422)
@bearer
@blp.doc(parameters=[IDEMPOTENCY_HEADER])
def submit_move(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Submit a move (JSON or notation); optional ``Idempotency-Key`` header."""
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY:
        raise TurnpostError(
            "invalid_request", f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} characters."
        )
    move_request = MoveRequest(
        game_id,
        token=bearer_token(),
        move=body.get("move"),
        notation=body.get("notation"),
        expected_seq=body["expected_seq"],
        idempotency_key=key,
    )
    return current_service().submit(move_request)


@blp.route("/games/<game_id>/legal-moves")
@blp.response(200, LegalMovesSchema)
@errors(401, 404)
@bearer
def legal_moves(game_id: str) -> dict[str, Any]:
    """Every legal move of the caller's seat now (empty when it is not their turn)."""
    games = current_service()
    game = games.load(game_id)
    return offload(games.legal_moves, game, seat_of(games, game, "for legal moves"))


@blp.route("/games/<game_id>/vacation", methods=["POST"])
@blp.arguments(VacationSchema)
@blp.response(200, VacationSetSchema)
@errors(400, 401, 404, 422)
@bearer
def vacation(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Pause the caller's turn clock in this game until ``until`` (yearly allowance applies)."""
    games = current_service()
    seat = seat_of(games, games.load(game_id), "to set a vacation")
    return set_vacation(games, game_id, seat, format_time(body["until"]))


@blp.route("/games/<game_id>/events")
@blp.arguments(EventsQuerySchema, location="query")
@blp.response(200, content_type="text/event-stream", description="Server-sent events")
@blp.alt_response(204, description="The game is over and the client has seen every event")
@errors(400, 404, 429)
def events(query: dict[str, Any], game_id: str) -> Response:
    """An event stream: a ``move`` event per appended move, a final ``end`` event when the game
    is over; resumes after ``Last-Event-ID`` (see :mod:`server.http.events`)."""
    games = current_service()
    game = games.load(game_id)
    last = last_event_id(query)
    if game.status != "active" and last >= game.seq:
        return Response(status=204)  # an EventSource stops reconnecting on 204
    client = request.remote_addr or "unknown"
    subscription = current_app.extensions["turnpost"].feed.subscribe(game.id, client, last)
    for entry in games.move_log(game, after=last):
        subscription.deliver_move(entry["seq"], move_event(entry))
    latest = games.load(game.id)  # it may have ended since it was loaded above
    if latest.status != "active":
        subscription.deliver_end(end_event(latest.row))
    response = Response(
        subscription.stream(),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
    response.call_on_close(subscription.close)
    return response


def last_event_id(query: dict[str, Any]) -> int:
    """The seq to resume after: the ``Last-Event-ID`` header, else ``?last_event_id``, else 0.

    The header wins: a browser reconnecting repeats the URL it was given and
    sends the id of the last event it saw. A header that is not an event id
    (ASCII digits up to the largest seq) is ``400 bad_request``.
    """
    header = request.headers.get("Last-Event-ID", "").strip()
    if not header:
        return query.get("last_event_id", 0)
    if not (header.isascii() and header.isdigit() and int(header) <= MAX_SEED):
        raise TurnpostError(
            "bad_request",
            "Last-Event-ID must be the id of an event: a move number (0 or more).",
            {"Last-Event-ID": [header[:40]]},
        )
    return int(header)
