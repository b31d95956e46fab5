"""The REST API under ``/api/v1`` (contract section 2), built with flask-smorest."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import flask_smorest
from flask import Response, current_app, request, url_for
from marshmallow import Schema, ValidationError
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from engines import ENGINES, Engine, OptionError
from engines.phrases import N_, phrase
from schemas.accounts import MyGameListSchema, MyGamesQuerySchema
from schemas.api import (
    MAX_SEED,
    AnalysisSchema,
    EngineDetailSchema,
    EngineSchema,
    ErrorResponseSchema,
    EventsQuerySchema,
    GameCreatedSchema,
    GameCreateSchema,
    GameListQuerySchema,
    GameListSchema,
    GameQuerySchema,
    GameSchema,
    HintSchema,
    LegalMovesSchema,
    LoggedMoveSchema,
    MovesQuerySchema,
    MoveSubmitSchema,
    MoveSubmittedSchema,
    ResignSchema,
    SeatTokenSchema,
    VacationSchema,
    VacationSetSchema,
    WebhookCreatedSchema,
    WebhookCreateSchema,
    WebhookSchema,
)
from schemas.pings import PingCreatedSchema, PingCreateSchema, PingSchema, PlayerPingSchema
from server.accounts import games as my_games
from server.cooperative import offload
from server.errors import CODE_BY_STATUS, STATUS_BY_CODE, TurnpostError
from server.games.analysis import ANALYSIS_LEVEL, notes_of
from server.games.bots import hint
from server.games.clock import format_time, utcnow
from server.games.deadlines import set_vacation
from server.games.game import Game
from server.games.service import GameService, MoveRequest, Table
from server.games.talk import threads_of
from server.http.actor import current_actor, personal_player
from server.http.answers import answer, shaped_answer
from server.http.clients import current_client
from server.http.context import current_service, current_store
from server.http.errors import error_response, http_words
from server.http.events import (
    MORE_EVENTS,
    PREAMBLE,
    REPLAY_PAGE,
    STREAM_HEADERS,
    Reader,
    end_event,
    move_event,
)
from server.http.jsontext import load_untrusted
from server.http.limits import charge_stream
from server.i18n import page_language
from server.store.records import ChatPing, GameStamp, Player, PlayerPing, Webhook
from server.webhooks.delivery import webhook_secret
from server.webhooks.destinations import Refused, configured
from server.webhooks.pings import add_ping, add_player_ping


class Api(flask_smorest.Api):
    """flask-smorest's Api answering every HTTP error in the contract's shape."""

    ERROR_SCHEMA = ErrorResponseSchema

    def handle_http_exception(self, error: HTTPException) -> Response:
        """``{"error": {...}}`` for API paths, a small HTML page elsewhere.

        The exception's own headers are kept (``Allow`` on a ``405``).
        """
        code = CODE_BY_STATUS.get(error.code or 500, "bad_request")
        response = error_response(TurnpostError(code, http_words(error)), error.code)
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
            raise TurnpostError("bad_request", phrase("The body must be a JSON object."))
        return data

    def handle_error(self, error: ValidationError, req: Any, schema: Schema, **_: Any) -> Any:
        """Turn a schema failure into ``422`` with field-level ``details``."""
        messages = error.normalized_messages()
        if set(messages) <= {"json", "query", "headers"} and len(messages) == 1:
            messages = next(iter(messages.values()))
        codes = getattr(schema, "field_error_codes", {})
        code = next((codes[field] for field in messages if field in codes), "invalid_request")
        raise TurnpostError(code, phrase("The request does not match its schema."), messages)


class Blueprint(flask_smorest.Blueprint):
    """A flask-smorest blueprint using :class:`ContractParser`, whose ``doc(parameters=...)``
    (the headers) adds to the parameters its ``arguments`` document.

    Its ``doc`` and ``alt_response`` only document a view: flask-smorest's
    wrap it in a function that calls it through ``current_app`` (13 such
    layers around a move's view, each run on every request); these give the
    same documentation to the view itself.
    """

    ARGUMENTS_PARSER = ContractParser()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._prepare_doc_cbks.append(self._add_manual_parameters)

    @staticmethod
    def doc(**kwargs: Any) -> Callable[[Any], Any]:
        """flask-smorest's ``doc``, without its wrapper (see the class)."""
        return documenting(flask_smorest.Blueprint.doc(**kwargs))

    def alt_response(self, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
        """flask-smorest's ``alt_response``, without its wrapper (see the class)."""
        return documenting(super().alt_response(*args, **kwargs))

    @staticmethod
    def _add_manual_parameters(doc: dict[str, Any], doc_info: dict[str, Any], **_: Any) -> Any:
        """Append the parameters of ``doc(parameters=...)`` to the arguments' ones (a copy of
        the doc info: flask-smorest's later merge would replace the list)."""
        manual = doc_info.get("manual_doc", {}).pop("parameters", [])
        if manual:
            doc.setdefault("parameters", []).extend(manual)
        return doc


def documenting(decorator: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``decorator`` (one of flask-smorest's that only adds to a view's documentation, its
    ``_apidoc``) applied without the wrapper it makes: the view gets the wrapper's
    documentation and is returned itself."""

    def document(view: Any) -> Any:
        view._apidoc = decorator(view)._apidoc
        return view

    return document


blp = Blueprint("api", __name__, url_prefix="/api/v1", description="Turnpost turn server")
#: The schemas of the reads whose bodies are kept by ETag (:mod:`server.http.answers`).
GAME, LEGAL_MOVES, LOG_ENTRIES = GameSchema(), LegalMovesSchema(), LoggedMoveSchema(many=True)


def seated(games: GameService, game_id: str, refusal: str) -> tuple[Game, int]:
    """The game and the seat of the request's bearer token in it, in one read; ``404`` for
    no such game, ``401`` without a token or with a wrong one (the message id ``refusal``)."""
    game, seat = games.load_as(game_id, current_actor().bearer)
    if seat is None:
        raise TurnpostError("unauthorized", phrase(refusal))
    return game, seat


#: The operations of a seat, with the refusal when their token is missing: it is checked before
#: their body is read (see :func:`check_token_before_body`).
SEAT_OPERATIONS = {
    "api.submit_move": N_("A seat token is needed to move."),
    "api.resign": N_("A seat token is needed to resign."),
    "api.vacation": N_("A seat token is needed to set a vacation."),
    "api.post_api_message": N_("A seat token is needed to post a message."),
    "api.post_takeback": N_("A seat token is needed for a takeback."),
    "api.put_conditional": N_("A seat token is needed for conditional moves."),
    "api.create_ping": N_("A seat token is needed to add a chat ping."),
}


def check_token_before_body() -> None:
    """``401`` (or ``404``) for an operation without the token it needs, before its body is
    read: a seat's operation without a seat token of the game, a webhook's creation without
    the game's admin token, a player's chat ping without a personal API token.

    A body may come slowly (until the server's body deadline): a client
    without the token is answered at once, not waited for.
    """
    endpoint = request.endpoint or ""
    if endpoint == "api.create_webhook":
        current_service().check_admin(request.view_args["game_id"], current_actor().bearer)
    elif endpoint == "api.create_my_ping":
        _token_player()
    elif endpoint in SEAT_OPERATIONS:
        games, game_id, token = (
            current_service(),
            request.view_args["game_id"],
            current_actor().bearer,
        )
        if token is None or games.seat_of(game_id, token) is None:  # the words of the refusal
            seated(games, game_id, SEAT_OPERATIONS[endpoint])


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
IF_NONE_MATCH_HEADER = {
    "in": "header",
    "name": "If-None-Match",
    "required": False,
    "schema": {"type": "string"},
    "description": "The ETag of the copy the client holds: 304 Not Modified if it is current.",
}
#: The most digits of a ``Last-Event-ID``: every such number is a possible move number.
LAST_EVENT_ID_DIGITS = len(str(MAX_SEED)) - 1
LAST_EVENT_ID_HEADER = {
    "in": "header",
    "name": "Last-Event-ID",
    "required": False,
    "schema": {"type": "string", "pattern": f"^[0-9]{{0,{LAST_EVENT_ID_DIGITS}}}$"},
    "description": "Resume after this move number (what browsers send when they reconnect);"
    f" wins over ?last_event_id; empty means none. Anything else (letters, more than"
    f" {LAST_EVENT_ID_DIGITS} digits) is 400 bad_request.",
}
RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "schema": {"type": "integer", "minimum": 0},
    }
}
ETAG = {
    "ETag": {
        "description": "A weak validator of this answer for this caller (seat or public).",
        "schema": {"type": "string"},
    }
}
NEXT_PAGE = {
    "Link": {
        "description": "The next page, while there is one: `</api/v1/games/{id}/moves?after=500"
        '&limit=500>; rel="next"`.',
        "schema": {"type": "string"},
    }
}

#: Error codes every operation may answer with, and those of an operation with a body.
ALWAYS = ("method_not_allowed", "rate_limited", "unavailable")
#: The statuses whose answers carry ``Retry-After``.
RETRY_STATUSES = (429, 503)
WITH_BODY = ("bad_request", "request_timeout", "payload_too_large")


def operation(operation_id: str, *codes: str, body: bool = False) -> Any:
    """Name an operation and document its error answers: each status with the codes it carries.

    Every operation may answer ``405``, ``429`` and ``503`` (these two with
    ``Retry-After``); one with a JSON body also ``400``, ``408`` and ``413``.
    """
    by_status: dict[int, list[str]] = {}
    for code in (*codes, *(WITH_BODY if body else ()), *ALWAYS):
        by_status.setdefault(STATUS_BY_CODE[code], []).append(code)

    def decorate(func: Any) -> Any:
        for status, named in sorted(by_status.items()):
            func = blp.alt_response(
                status,
                schema=ErrorResponseSchema,
                description="Error: " + ", ".join(f"`{code}`" for code in named),
                headers=RETRY_AFTER if status in RETRY_STATUSES else None,
            )(func)
        return blp.doc(operationId=operation_id)(func)

    return decorate


def etag_of(*parts: Any) -> str:
    """The weak ETag of an answer made from ``parts``: they name everything it depends on
    (game, seq, viewer...)."""
    return f'W/"{hashlib.sha256(repr(parts).encode()).hexdigest()[:32]}"'


def conditional(*parts: Any) -> str | Response:
    """The ETag of an answer made from ``parts`` (:func:`etag_of`), or ``304`` if the client
    holds it already: a polling client gets its ``304`` before any work is done."""
    etag = etag_of(*parts)
    if request.if_none_match.contains_weak(etag[3:-1]):
        response = Response(status=304)
        response.headers["ETag"] = etag
        return response
    return etag


def game_version(stamp: GameStamp) -> tuple[Any, ...]:
    """What every view of a game changes with: its version, its time control, its seats (a
    name, a seat made private, a vacation, a clock) and a running clock's remaining time (each
    minute)."""
    minute = utcnow()[:16] if stamp.deadline else None
    seats = hashlib.blake2b(repr((stamp.seats, stamp.clock)).encode(), digest_size=8).hexdigest()
    version = (stamp.seq, stamp.status, stamp.updated_at, stamp.deadline, stamp.turn_hours)
    return (stamp.id, *version, minute, seats)


@blp.route("/engines")
@blp.response(200, EngineSchema(many=True))
@operation("listEngines")
def list_engines() -> list[dict[str, Any]]:
    """Every engine with its player counts and option defaults."""
    return [engine_entry(engine) for engine in ENGINES.values()]


def engine_entry(engine: Engine) -> dict[str, Any]:
    """An engine as ``GET /api/v1/engines`` lists it."""
    return {
        "id": engine.id,
        "name": engine.name,
        "min_players": engine.min_players,
        "max_players": engine.max_players,
        "options": engine.default_options,
    }


@blp.route("/engines/<engine_id>")
@blp.response(200, EngineDetailSchema)
@operation("getEngine", "not_found", "invalid_request")
@blp.doc(
    parameters=[
        {
            "in": "query",
            "name": "options",
            "required": False,
            "style": "form",
            "explode": True,
            "schema": {"type": "object", "additionalProperties": {"type": "string"}},
            "description": "Engine options as name=value (JSON values or plain text), e.g."
            " ?map=siam-1874; unknown names are 422.",
        }
    ]
)
def get_engine(engine_id: str) -> dict[str, Any]:
    """One engine and its static board or map (for the options given, else the defaults)."""
    engine = GameService.engine(engine_id)
    options = {name: option_value(text) for name, text in request.args.items()}
    try:
        merged = engine.options(options)
    except OptionError as error:
        raise TurnpostError("invalid_request", error.words, {"options": [error.message]}) from None
    return {**engine_entry(engine), "board": engine.board_data(merged)}


def option_value(text: str) -> Any:
    """An option value from a query string: a JSON scalar (``true``, ``3``) or else the text.

    Options are scalars, so text that would be a JSON array or object stays
    text (and is refused by the engine): nothing deep is ever parsed.

    >>> option_value("false"), option_value("siam-1874"), option_value("[[1]]")
    (False, 'siam-1874', '[[1]]')
    """
    if text.lstrip()[:1] in ("[", "{"):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


@blp.route("/games", methods=["POST"])
@blp.arguments(GameCreateSchema())
@blp.response(201, GameCreatedSchema)
@operation("createGame", "not_found", "invalid_request", "invalid_position", body=True)
def create_game(body: dict[str, Any]) -> dict[str, Any]:
    """Create a game; the answer shows each seat's token and the admin token, once.

    A seat with an ``email`` is invited by mail at once; a game with an open
    seat (``{"open": true}``) forms until every seat is taken. With a personal
    API token, its player is the game's host on the web.
    """
    actor = current_actor()
    return current_service().create(
        body["engine"],
        body["players"],
        body["options"],
        seed=body["seed"],
        position=body["position"],
        turn_hours=body["turn_hours"],
        deadline_policy=body["deadline_policy"],
        clock=body["clock"],
        client=current_client(),
        table=Table(actor.player.id if actor.personal_token else None, body["seating"]),
        hints=body["hints"],
        takebacks=body["takebacks"],
    )


@blp.route("/games")
@blp.arguments(GameListQuerySchema(), location="query")
@blp.response(200, GameListSchema)
@operation("listGames", "unauthorized", "invalid_request")
@bearer
def list_games(query: dict[str, Any]) -> dict[str, Any]:
    """Games, newest first, a page at a time: without a token the tables that form (a game
    that runs or is over is listed to its own seats only: with a seat token, its game);
    filters: engine, status, waiting for a seat."""
    filters = {name: query[name] for name in ("engine", "status", "waiting") if name in query}
    return current_service().list_games(
        filters, current_actor().bearer, query["limit"], query.get("cursor")
    )


@blp.route("/me/games")
@blp.arguments(MyGamesQuerySchema(), location="query")
@blp.response(200, MyGameListSchema)
@operation("listMyGames", "unauthorized", "invalid_request")
@blp.doc(security=[{"personalToken": []}, {"session": []}])
def list_my_games(query: dict[str, Any]) -> dict[str, Any]:
    """The signed-in player's games, those waiting for them first, a page at a time.

    With a personal API token (``Authorization: Bearer tpp_...``, made on the
    player's page) or the session cookie of a signed-in browser; a seat or
    admin token is ``401``. Then the others running (the latest change
    first), then those over (the latest first), in the order of the player's
    games page.
    """
    player = personal_player()
    games = my_games.player_games(current_store(), player.id)
    page, following = my_games.games_page(games, query["limit"], query.get("cursor"))
    language = page_language()
    return {"games": [my_games.summary(row, language) for row in page], "next_cursor": following}


@blp.route("/games/<game_id>")
@blp.arguments(GameQuerySchema(), location="query")
@blp.response(200, GameSchema, headers=ETAG)
@blp.alt_response(304, description="Not Modified: the If-None-Match ETag is current")
@operation("getGame", "unauthorized", "not_found", "invalid_request")
@bearer
@blp.doc(parameters=[IF_NONE_MATCH_HEADER])
def read_game(query: dict[str, Any], game_id: str) -> Any:
    """The game as the caller may see it (with ?at=N: as it was after entry N)."""
    games, token, at = current_service(), current_actor().bearer, query.get("at")
    stamp, seat = games.stamp_as(game_id, token)

    def version(stamp: GameStamp) -> tuple[Any, ...]:
        days_left = games.vacation_days_left(stamp, seat)  # changes with the player's other games
        return ("game", *game_version(stamp), seat, at, days_left)

    def build() -> tuple[str, dict[str, Any]]:
        game, _ = games.load_as(game_id, token)
        return etag_of(*version(game.stamp)), offload(games.game_object, game, seat, at)

    etag = conditional(*version(stamp))
    return etag if isinstance(etag, Response) else answer(etag, GAME, build, (game_id, stamp.seq))


@blp.route("/games/<game_id>/abort", methods=["POST"])
@blp.response(200, GameSchema)
@operation("abortGame", "unauthorized", "not_found", "game_over")
@bearer
def abort_game(game_id: str) -> dict[str, Any]:
    """End a running game as aborted (admin token)."""
    return current_service().abort(game_id, current_actor().bearer)


@blp.route("/games/<game_id>/seats/<int:seat>/token", methods=["POST"])
@blp.response(200, SeatTokenSchema)
@operation("reissueSeatToken", "unauthorized", "not_found")
@bearer
def reissue_seat_token(game_id: str, seat: int) -> dict[str, Any]:
    """A new token for a seat; every other way in stops working (admin token).

    For a player who lost their token or link: ``Authorization: Bearer <admin
    token>``. The seat's other tokens (the handed one, its player's browsers)
    and the links in its mails stop working at once; the game object then
    shows the seat's ``reissued_at`` to everyone. At most 5 a day per game
    (``429``).
    """
    return current_service().reissue_token(game_id, current_actor().bearer, seat)


@blp.route("/games/<game_id>/resign", methods=["POST"])
@blp.arguments(ResignSchema())
@blp.response(200, MoveSubmittedSchema)
@operation(
    "resignSeat",
    "unauthorized",
    "not_found",
    "stale_seq",
    "game_over",
    "invalid_request",
    body=True,
)
@bearer
def resign(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Resign the caller's seat: it (with its partners) loses, the others win."""
    games = current_service()
    _, seat = seated(games, game_id, N_("A seat token is needed to resign."))
    return games.resign(game_id, seat, body["expected_seq"])


@blp.route("/games/<game_id>/moves")
@blp.arguments(MovesQuerySchema(), location="query")
@blp.response(200, LoggedMoveSchema(many=True), headers={**ETAG, **NEXT_PAGE})
@blp.alt_response(304, description="Not Modified: the If-None-Match ETag is current")
@operation("listMoves", "not_found", "invalid_request")
@blp.doc(parameters=[IF_NONE_MATCH_HEADER])
def list_moves(query: dict[str, Any], game_id: str) -> Any:
    """The public move log in order (resignations and forfeits included), a page at a time:
    ``Link: <...>; rel="next"`` names the next page while there is one."""
    games = current_service()
    seq = games.seq_of(game_id)
    after, limit = query["after"], query["limit"]
    language = page_language()

    def build() -> tuple[str, list[dict[str, Any]]]:
        nonlocal seq
        game = games.load(game_id)
        seq = game.seq  # the page's end follows the log it was built from
        return etag_of("moves", game_id, seq, after, limit, language), games.move_log(
            game, after, limit, language
        )

    etag = conditional("moves", game_id, seq, after, limit, language)
    if isinstance(etag, Response):
        return etag
    response = answer(etag, LOG_ENTRIES, build, (game_id, seq))
    last = min(seq, after + limit)  # the page ends here: the log has no gaps
    if after < last < seq:
        following = url_for("api.list_moves", game_id=game_id, after=last, limit=limit)
        response.headers["Link"] = f'<{following}>; rel="next"'
    return response


@blp.route("/games/<game_id>/moves", methods=["POST"])
@blp.arguments(
    MoveSubmitSchema(),
    examples={
        "move": {
            "value": {"move": {"action": "enter", "to": "a1", "facing": "N"}, "expected_seq": 0}
        },
        "notation": {"value": {"notation": "enter a1 N", "expected_seq": 0}},
    },
)
@blp.response(201, MoveSubmittedSchema)
@operation(
    "submitMove",
    "unauthorized",
    "not_found",
    "not_your_turn",
    "stale_seq",
    "game_over",
    "invalid_move",
    "illegal_move",
    "invalid_request",
    body=True,
)
@bearer
@blp.doc(parameters=[IDEMPOTENCY_HEADER])
def submit_move(body: dict[str, Any], game_id: str) -> Response:
    """Submit a move, as JSON or as notation (seat token; optional Idempotency-Key)."""
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY:
        raise TurnpostError(
            "invalid_request",
            phrase("Idempotency-Key must be 1 to %(most)s characters.", most=MAX_IDEMPOTENCY_KEY),
        )
    move_request = MoveRequest(
        game_id,
        token=current_actor().bearer,
        move=body.get("move"),
        notation=body.get("notation"),
        expected_seq=body["expected_seq"],
        idempotency_key=key,
    )
    return shaped_answer(current_service().submit(move_request), 201)


@blp.route("/games/<game_id>/legal-moves")
@blp.response(200, LegalMovesSchema, headers=ETAG)
@blp.alt_response(304, description="Not Modified: the If-None-Match ETag is current")
@operation("getLegalMoves", "unauthorized", "not_found")
@bearer
@blp.doc(parameters=[IF_NONE_MATCH_HEADER])
def legal_moves(game_id: str) -> Any:
    """Every legal move of the caller's seat now (empty when it is not their turn)."""
    games, token = current_service(), current_actor().bearer
    stamp, seat = games.stamp_as(game_id, token)
    if seat is None:
        raise TurnpostError("unauthorized", phrase(N_("A seat token is needed for legal moves.")))

    def build() -> tuple[str, dict[str, Any]]:
        game, _ = games.load_as(game_id, token)
        etag = etag_of("legal-moves", *game_version(game.stamp), seat)
        return etag, offload(games.legal_moves, game, seat)

    etag = conditional("legal-moves", *game_version(stamp), seat)
    return (
        etag
        if isinstance(etag, Response)
        else answer(etag, LEGAL_MOVES, build, (game_id, stamp.seq))
    )


@blp.route("/games/<game_id>/hint")
@blp.response(200, HintSchema)
@operation("getHint", "unauthorized", "not_found", "forbidden", "not_your_turn", "game_over")
@bearer
def get_hint(game_id: str) -> dict[str, Any]:
    """A suggested turn for the caller's seat (seat token): what a level-1 bot would play.

    It reads only what the seat may know. Refused (403) in a game created with
    ``"hints": false``, 409 when it is not the seat's turn; limited per seat
    token (``TURNPOST_RATELIMIT_HINT``), since each hint is a search.
    """
    games = current_service()
    game, seat = seated(games, game_id, N_("A seat token is needed for a hint."))
    moves = offload(hint, game, seat)
    engine = game.engine
    return {"seq": game.seq, "moves": [{**move, "notation": engine.format(move)} for move in moves]}


@blp.route("/games/<game_id>/analysis")
@blp.response(200, AnalysisSchema)
@operation("getAnalysis", "unauthorized", "not_found")
@bearer
def get_analysis(game_id: str) -> dict[str, Any]:
    """Where a level-3 bot would have played differently, after the game's end.

    The worker analyses a finished game once (``status`` ``waiting`` until
    then). Each suggestion knows only what the seat knew; in a game that hides
    something, the caller (seat token) reads only its own seat's moves.
    """
    games = current_service()
    game, seat = games.load_as(game_id, current_actor().bearer)
    notes = offload(notes_of, games, game, seat, page_language())
    return {"status": notes.status, "level": ANALYSIS_LEVEL, "moves": notes.notes}


@blp.route("/games/<game_id>/vacation", methods=["POST"])
@blp.arguments(VacationSchema())
@blp.response(200, VacationSetSchema)
@operation("setVacation", "unauthorized", "not_found", "invalid_request", body=True)
@bearer
def vacation(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Pause the caller's turn clock in this game until a moment (30 days a year)."""
    games = current_service()
    _, seat = seated(games, game_id, N_("A seat token is needed to set a vacation."))
    return set_vacation(games, game_id, seat, format_time(body["until"]))


@blp.route("/games/<game_id>/webhooks", methods=["POST"])
@blp.arguments(WebhookCreateSchema())
@blp.response(201, WebhookCreatedSchema)
@operation("createWebhook", "unauthorized", "not_found", "invalid_request", body=True)
@bearer
def create_webhook(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Post this game's events to a URL (admin token)."""
    url = body["url"]
    check_destination(url)
    webhook = current_service().add_webhook(game_id, current_actor().bearer, url)
    secret = webhook_secret(current_app.config["SECRET_KEY"], game_id, webhook.id)
    created = {"id": webhook.id, "url": webhook.url, "created_at": webhook.created_at}
    return {**created, "secret": secret}


@blp.route("/games/<game_id>/pings", methods=["POST"])
@blp.arguments(PingCreateSchema)
@blp.response(201, PingCreatedSchema)
@operation("createPing", "unauthorized", "not_found", "invalid_request", body=True)
@bearer
def create_ping(body: dict[str, Any], game_id: str) -> dict[str, Any]:
    """Announce the caller's turns in a chat: Discord, Slack, Matrix or generic (seat token)."""
    games = current_service()
    _, seat = seated(games, game_id, N_("A seat token is needed to add a chat ping."))
    check_destination(body["url"])
    ping = add_ping(games.store, game_id, seat, body["kind"], body["url"], body["mention"])
    secret = webhook_secret(current_app.config["SECRET_KEY"], game_id, ping.id)
    return {**asdict(ping), "secret": secret}


@blp.route("/games/<game_id>/pings")
@blp.response(200, PingSchema(many=True))
@operation("listPings", "unauthorized", "not_found")
@bearer
def list_pings(game_id: str) -> list[ChatPing]:
    """The caller's chat pings in this game (seat token)."""
    games = current_service()
    _, seat = seated(games, game_id, N_("A seat token is needed to list chat pings."))
    return games.store.chat_pings(game_id, seat)


@blp.route("/games/<game_id>/pings/<int:ping_id>", methods=["DELETE"])
@blp.response(204)
@operation("deletePing", "unauthorized", "not_found")
@bearer
def delete_ping(game_id: str, ping_id: int) -> None:
    """Stop one of the caller's chat pings; its pending pings are dropped (seat token)."""
    games = current_service()
    _, seat = seated(games, game_id, N_("A seat token is needed to remove a chat ping."))
    if not games.store.remove_chat_ping(game_id, seat, ping_id, utcnow()):
        raise TurnpostError(
            "not_found", phrase("Your seat has no chat ping %(ping)s in this game.", ping=ping_id)
        )


@blp.route("/me/pings", methods=["POST"])
@blp.arguments(PingCreateSchema)
@blp.response(201, PlayerPingSchema)
@operation("createMyPing", "unauthorized", "invalid_request", body=True)
@blp.doc(security=[{"personalToken": []}])
def create_my_ping(body: dict[str, Any]) -> PlayerPing:
    """Announce the signed-in player's turns in every game of theirs in a chat (personal
    API token)."""
    player = _token_player()
    check_destination(body["url"])
    return add_player_ping(current_store(), player.id, body["kind"], body["url"], body["mention"])


@blp.route("/me/pings")
@blp.response(200, PlayerPingSchema(many=True))
@operation("listMyPings", "unauthorized")
@blp.doc(security=[{"personalToken": []}, {"session": []}])
def list_my_pings() -> list[PlayerPing]:
    """The signed-in player's chat pings."""
    return current_store().player_pings(personal_player().id)


@blp.route("/me/pings/<int:ping_id>", methods=["DELETE"])
@blp.response(204)
@operation("deleteMyPing", "unauthorized", "not_found")
@blp.doc(security=[{"personalToken": []}])
def delete_my_ping(ping_id: int) -> None:
    """Stop one of the player's chat pings, in every game (personal API token)."""
    if not current_store().remove_player_ping(_token_player().id, ping_id, utcnow()):
        raise TurnpostError("not_found", phrase("You have no chat ping %(ping)s.", ping=ping_id))


def _token_player() -> Player:
    """The player of a personal API token; ``401`` otherwise (a browser's cookie does not
    change where the player's turns are posted: no cross-site request can)."""
    if not current_actor().personal_token:
        raise TurnpostError(
            "unauthorized", phrase("A personal API token (tpp_...) is needed here.")
        )
    return personal_player()


def check_destination(url: str) -> None:
    """``422`` for a URL the webhook destination rules refuse."""
    try:
        configured(current_app.config).check_url(url)
    except Refused as error:
        raise TurnpostError("invalid_request", error.words, {"url": [str(error)]}) from None


@blp.route("/games/<game_id>/webhooks")
@blp.response(200, WebhookSchema(many=True))
@operation("listWebhooks", "unauthorized", "not_found")
@bearer
def list_webhooks(game_id: str) -> list[Webhook]:
    """The game's webhooks, without their secrets (admin token)."""
    return current_service().webhooks(game_id, current_actor().bearer)


@blp.route("/games/<game_id>/webhooks/<int:webhook_id>", methods=["DELETE"])
@blp.response(204)
@operation("deleteWebhook", "unauthorized", "not_found")
@bearer
def delete_webhook(game_id: str, webhook_id: int) -> None:
    """Stop a webhook; its pending deliveries are dropped (admin token)."""
    current_service().remove_webhook(game_id, current_actor().bearer, webhook_id)


#: The statuses of a game whose event stream stays open: a table forming, a game running.
LIVE = ("forming", "active")
#: The stream's schema: left open (no ``type``), so that generated clients read the answer as
#: text and validators take each event as it comes; the description and example show its events.
SSE_STREAM = {
    "description": "Server-sent events (text). Each event has `event` (`move`, `end` or"
    " `message`) and `data`, a JSON object: for `move` {seq, seat, move, notation,"
    " description, to_move, status, result}, for `end` {seq, status, result}, for `message`"
    " a Message {thread, number, seat, name, text, deleted, at}. `move` and `end` have `id`"
    " (the entry's seq); `message` has none.",
}
EVENT_STREAM_EXAMPLE = (
    "retry: 2000\n: connected\n\n"
    'id: 1\nevent: move\ndata: {"seq": 1, "seat": 0, "move": {"action": "enter", "to": "a1",'
    ' "facing": "N"}, "notation": "enter a1 N", "description": "Ann enters an elephant on a1,'
    ' facing north.", "to_move": [1], "status": "active", "result": null}\n\n'
    'event: message\ndata: {"thread": "table", "number": 1, "seat": 1, "name": "Bob", "text":'
    ' "Good game!", "deleted": false, "at": "2026-11-25T21:00:00.000000Z"}\n\n'
    'id: 9\nevent: end\ndata: {"seq": 9, "status": "finished", "result": {"winners": [0],'
    ' "scores": {}, "reason": "..."}}\n\n'
)


@blp.route("/games/<game_id>/events")
@blp.arguments(EventsQuerySchema(), location="query")
@blp.doc(
    responses={
        "200": {
            "description": "Server-sent events: `move` per logged entry (id = its seq), a final"
            " `end` when the game is over, `message` per message of the table talk posted"
            " while the stream is open (no id; with a seat token, the seat's partner thread"
            " too), comments as keep-alives. A client more than"
            f" {REPLAY_PAGE} moves behind gets {REPLAY_PAGE} and the stream ends: reconnect"
            " with `Last-Event-ID` for the next ones (an EventSource does).",
            "content": {
                "text/event-stream": {
                    "schema": SSE_STREAM,
                    "example": EVENT_STREAM_EXAMPLE,
                }
            },
        }
    },
    parameters=[LAST_EVENT_ID_HEADER],
)
@blp.alt_response(204, description="The game is over and the client has seen every event")
@operation("streamEvents", "bad_request", "unauthorized", "not_found", "invalid_request")
@bearer
def events(query: dict[str, Any], game_id: str) -> Response:
    """Server-sent events: a move event per log entry, a final end event when the game is over,
    a message event per message of the table talk.

    Resumes after ``Last-Event-ID`` (the header) or ``?last_event_id``; a game
    that is over and whose events the client has all seen answers ``204``
    (unless ``?talk=true``). A client more than :data:`REPLAY_PAGE` moves
    behind gets that many and the stream ends: it reconnects with the last id
    for the next page. With a seat token, the stream also carries the seat's
    partner thread, and leaves out the messages of the seats it muted.
    """
    games = current_service()
    game, seat = games.load_as(game_id, current_actor().bearer)
    return event_stream(
        games, game, last_event_id(query), stream_reader(games, game, seat, query["talk"])
    )


def stream_reader(games: GameService, game: Game, seat: int | None, talk: bool) -> Reader:
    """Who reads a stream of ``game``: ``seat`` (``None``: anyone), following the talk after
    the end or not."""
    if seat is None:
        return Reader(talk=talk, language=page_language())
    return Reader(
        frozenset(threads_of(game, seat)),
        frozenset(games.store.muted_seats(game.id, seat)),
        talk,
        page_language(),
    )


def event_stream(games: GameService, game: Game, last: int, reader: Reader) -> Response:
    """The event stream of ``game`` after move ``last`` for ``reader`` (the API's, the page's)."""
    if game.status not in LIVE and last >= game.seq and not reader.talk:
        return Response(status=204)  # an EventSource stops reconnecting on 204
    subscription = current_app.extensions["turnpost"].feed.subscribe(
        game.id, current_client(), last, reader
    )
    page = games.move_log(game, after=last, limit=REPLAY_PAGE, language=page_language())
    latest = games.load(game.id)  # it may have moved on or ended since it was loaded above
    replayed = [move_event(entry) for entry in page]
    if page and page[-1]["seq"] < latest.seq:  # far behind: this page, then reconnect
        subscription.close()
        body = [PREAMBLE, *replayed, MORE_EVENTS]
        return Response(body, mimetype="text/event-stream", headers=STREAM_HEADERS)
    charge_stream(sum(len(event) for event in replayed))  # ASCII: one byte per character
    for entry, event in zip(page, replayed, strict=True):
        subscription.deliver_move(entry["seq"], event)
    if latest.status not in LIVE:
        if game.status in LIVE or last < latest.seq:  # it ended since, or news came before
            subscription.deliver_end(end_event(latest.row))
        else:  # a talk stream of a game whose every event the client saw
            subscription.skip_end()
    response = Response(subscription.stream(), mimetype="text/event-stream", headers=STREAM_HEADERS)
    response.call_on_close(subscription.close)
    return response


def last_event_id(query: dict[str, Any]) -> int:
    """The seq to resume after: the ``Last-Event-ID`` header, else ``?last_event_id``, else 0.

    The header wins: a browser reconnecting repeats the URL it was given and
    sends the id of the last event it saw. A header that is not an event id
    (ASCII digits, at most :data:`LAST_EVENT_ID_DIGITS`) is ``400 bad_request``.
    """
    header = request.headers.get("Last-Event-ID", "").strip()
    if not header:
        return query.get("last_event_id", 0)
    if not (header.isascii() and header.isdigit() and len(header) <= LAST_EVENT_ID_DIGITS):
        raise TurnpostError(
            "bad_request",
            phrase(
                "Last-Event-ID must be the id of an event: a move number (0 or more,"
                " at most %(digits)s digits).",
                digits=LAST_EVENT_ID_DIGITS,
            ),
            {"Last-Event-ID": [header[:40]]},
        )
    return int(header)
