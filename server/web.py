"""HTML pages: the lobby with its create-game form, a page per game, and the move forms.

A seat's private link ``/games/<id>/seat/<token>`` stores the token in an
HttpOnly, SameSite cookie and redirects to the plain game page, so the token
does not stay in the address bar or in the history.

Every mail ends with a signed link ``/mail/unsubscribe/<token>``: a GET asks
for confirmation, a POST stops all mail to that address (RFC 8058 one-click,
so mail clients post it without a CSRF token; the signature is the proof).

The seat to move gets a *guided form* built from its legal moves, so that
nobody needs to know the notation: every move is flattened into its fields
(``action``, then e.g. ``from``, ``to``, ``facing``) and the page asks for one
field at a time, offering the values the remaining legal moves have there.
The answers so far travel as query parameters (``?m.action=move&m.from=b2``),
so each step is a plain link and the page needs no JavaScript. Fields on
which all remaining moves agree are not asked. Once one legal move is left,
a POST form (with its CSRF token) submits its notation, exactly like the
notation box that stays for experts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import (
    Blueprint,
    Response,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from marshmallow import ValidationError

from engines import ENGINES
from schemas.api import GameCreateSchema
from server import csrf, current_service
from server.clock import utcnow
from server.cooperative import offload
from server.errors import TurnpostError
from server.jsontext import load_untrusted
from server.mail import unsubscribed
from server.service import Game, GameService

bp = Blueprint("web", __name__)

SEAT_COOKIE_DAYS = 365
#: Prefix of the query parameters carrying the guided form's answers so far.
PICK = "m."
#: The value of a field a move does not have (a shorter path, no relocation): "none".
ABSENT = ""
#: How many of the remaining legal moves the page lists in notation.
LISTED_MOVES = 60
#: Player rows of the create-game form (the most seats any engine takes).
FORM_SEATS = max(engine.max_players for engine in ENGINES.values())
FACING_ARROWS = {"N": "\u2191", "E": "\u2192", "S": "\u2193", "W": "\u2190"}
#: ``Sec-Fetch-Site`` values of a navigation started by another site.
FOREIGN_SITES = frozenset({"cross-site", "same-site"})


def seat_cookie(game_id: str) -> str:
    """The cookie name holding a seat token for one game."""
    return f"turnpost_seat_{game_id}"


# -- lobby ----------------------------------------------------------------
@bp.route("/")
def lobby() -> str:
    """The engines, the open and recent games, and the create-game form."""
    return _render_lobby(current_service())


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
        return _render_lobby(games, error=error, form=request.form), error.status
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


def _render_lobby(
    games: GameService, error: TurnpostError | None = None, form: Mapping[str, str] | None = None
) -> str:
    recent = games.store.recent_games()
    for row in recent:
        row["players"] = [seat["name"] for seat in games.store.seats(row["id"])]
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
    games = current_service()
    address = unsubscribed(games.notifier.settings, token)
    if address is None:
        raise TurnpostError("not_found", "This link is not valid; copy it whole from the mail.")
    if done:
        games.store.suppress_mail(address, utcnow())
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
        games.submit(
            game_id,
            request.cookies.get(seat_cookie(game_id)),
            notation=notation,
            expected_seq=whole_number(expected),
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
        guide = build_guide(game, legal, _picks(request.args), view["state"])
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


# -- the guided move form -------------------------------------------------------
@dataclass
class Choice:
    """One answer the guided form offers: its text, its value and the link choosing it."""

    label: str
    value: str
    url: str


@dataclass
class Guide:
    """Where the guided form stands: the answers so far and the next question or the move."""

    picks: list[tuple[str, str]]
    back: str
    key: str | None = None
    question: str | None = None
    choices: list[Choice] = field(default_factory=list)
    move: dict[str, Any] | None = None
    matching: list[dict[str, Any]] = field(default_factory=list)


def flatten(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """The fields of a move as ``(dotted key, text)`` pairs, in the move's own order.

    >>> list(flatten({"action": "king", "path": ["namur", "liege"]}))
    [('action', 'king'), ('path.0', 'namur'), ('path.1', 'liege')]
    >>> list(flatten({"action": "deactivate", "factory": None, "swap": []}))
    [('action', 'deactivate'), ('factory', 'none'), ('swap', 'none')]
    """
    if isinstance(value, dict) and value:
        for name, inner in value.items():
            yield from flatten(inner, f"{key}.{name}" if key else name)
    elif isinstance(value, list) and value:
        for index, inner in enumerate(value):
            yield from flatten(inner, f"{key}.{index}")
    elif value is None or value in ([], {}):
        yield key, "none"
    elif isinstance(value, bool):
        yield key, "yes" if value else "no"
    else:
        yield key, str(value)


def field_label(key: str) -> str:
    """A readable name of a flattened field.

    >>> field_label("paths.0.1"), field_label("take.province"), field_label("copy.kind")
    ('paths #1.2', 'take province', 'copy kind')
    """
    words = [part.replace("_", " ") for part in key.split(".") if not part.isdigit()]
    numbers = [str(int(part) + 1) for part in key.split(".") if part.isdigit()]
    label = " ".join(words)
    return f"{label} #{'.'.join(numbers)}" if numbers else label


def value_label(key: str, value: str, state: dict[str, Any]) -> str:
    """A readable answer: arrows for facings, tile contents for tile ids.

    >>> value_label("facing", "N", {}), value_label("path.1", ABSENT, {})
    ('N \u2191', 'none (stop here)')
    >>> value_label("tile", "t5", {"tiles": {"t5": {"good": "shrimp", "baskets": 2}}})
    't5 (shrimp, 2 baskets)'
    """
    if value == ABSENT:
        return "none (stop here)"
    if key.rsplit(".", 1)[-1] == "facing" and value in FACING_ARROWS:
        return f"{value} {FACING_ARROWS[value]}"
    tiles = state.get("tiles")
    if isinstance(tiles, dict) and isinstance(tiles.get(value), dict):
        tile = tiles[value]
        what = tile.get("special") or f"{tile.get('good')}, {tile.get('baskets')} baskets"
        return f"{value} ({what})"
    return value


def _picks(args: Mapping[str, str]) -> list[tuple[str, str]]:
    """The guided form's answers so far, from the query string, in order."""
    return [(key[len(PICK) :], value) for key, value in args.items() if key.startswith(PICK)]


def build_guide(
    game: Game,
    legal: list[dict[str, Any]],
    picks: list[tuple[str, str]],
    state: dict[str, Any],
) -> Guide:
    """The next step of the guided form for the legal moves ``legal`` and the answers ``picks``."""
    chosen = dict(picks)
    fields = [(move, dict(flatten(_move_fields(move)))) for move in legal]
    remaining = [
        (move, flat)
        for move, flat in fields
        if all(flat.get(key, ABSENT) == value for key, value in chosen.items())
    ]
    guide = Guide(
        picks=[(field_label(key), value_label(key, value, state)) for key, value in picks],
        back=_guide_url(game, picks[:-1]),
        matching=[move for move, _ in remaining],
    )
    asked: set[str] = set(chosen)
    for _, flat in remaining:
        for key in flat:
            if key in asked:
                continue
            asked.add(key)
            values = list(dict.fromkeys(other.get(key, ABSENT) for _, other in remaining))
            if len(values) > 1:
                values.sort(key=lambda value: value == ABSENT)
                guide.key, guide.question = key, field_label(key)
                guide.choices = [
                    Choice(
                        value_label(key, value, state),
                        value,
                        _guide_url(game, [*picks, (key, value)]),
                    )
                    for value in values
                ]
                return guide
    if remaining:
        guide.move = remaining[0][0]
    return guide


def _move_fields(entry: dict[str, Any]) -> dict[str, Any]:
    """A legal-moves entry without its ``notation``: the fields the form asks about."""
    return {key: value for key, value in entry.items() if key != "notation"}


def _guide_url(game: Game, picks: list[tuple[str, str]]) -> str:
    """The game page with the guided form's answers ``picks``."""
    return url_for("web.game_page", game_id=game.id, **{PICK + key: value for key, value in picks})
