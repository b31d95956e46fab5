"""The web pages: the lobby, a new game's seat links, the game table, the rules.

Seats in a browser
    A seat's private link ``/games/<id>/seat/<credential>`` (a token handed
    out at creation or by a reissue, or a mail's signed pass) mints a token
    that only this browser holds, stores it in HttpOnly, SameSite cookies and
    redirects to the plain game page, so nothing secret stays in the address
    bar or the history. The first such link of a seat replaces the handed
    token: the seat is then *private*, and whoever was handed its link (the
    game's creator) can no longer play it or see its hand. A browser may hold
    several seats of a game (hot-seat play at one table):
    ``turnpost_seat_<id>`` holds the seat it plays now and
    ``turnpost_seats_<id>`` every seat it holds; ``?as=<seat>`` shows the
    page as another held seat. In a game that hides nothing, the page shows
    the held seat whose turn it is.

A new game
    Creating a game from the lobby redirects (post/redirect/get) to
    ``/games/<id>/created``, which shows each seat's link with a copy button
    and a "play as" button. The seat tokens are derived from a key kept in a
    cookie sent to that page only; the server keeps the key's hash for a day
    (until "forget"): nobody else can open the page, no token travels with
    other requests, and reloading it creates nothing.

The game table
    :func:`game_page` shows the board, whose turn, the move list and, for the
    seat to move, the engine's questions one at a time (:mod:`server.http.guide`):
    the answers are links on the board picture and buttons. With one move
    left, the page previews the board after it with the move's sentence and
    a confirm button (a CSRF-protected POST). ``/games/<id>/live`` is the
    same table alone: the page's script (``static/turnpost.js``) fetches it
    when the game's event stream tells of a move, and swaps it in.

Tables that form before they start, their host's panel and rematches have
their pages in :mod:`server.http.table_pages`; the links at the foot of every
mail are in :mod:`server.http.mail_stop`.
"""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from babel.dates import get_day_names
from babel.numbers import format_decimal
from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    make_response,
    redirect,
    render_template,
    request,
    send_from_directory,
    url_for,
)
from flask_wtf.csrf import generate_csrf
from jinja2 import TemplateNotFound
from markupsafe import Markup, escape
from marshmallow import ValidationError

from engines import ENGINES, Engine
from engines.phrases import phrase
from engines.search import LEVELS
from engines.words import plural
from schemas.api import GameCreateSchema
from server.boards import PLAYER_COLORS, Board, board_context, last_touched
from server.cooperative import offload
from server.errors import TurnpostError
from server.games.analysis import notes_of
from server.games.clock import format_time, parse_time, utcnow
from server.games.conditional import conditional_panel
from server.games.game import Game
from server.games.service import GameService, MoveRequest, Table, handed_tokens
from server.games.tables import Tables
from server.games.takebacks import takeback_panel
from server.games.talk import SHOWN as TALK_SHOWN
from server.games.talk import TABLE, TalkService, TalkView, talk_seat
from server.http.actor import current_actor, signed_in_player
from server.http.clients import current_client
from server.http.context import current_service, current_store
from server.http.guide import (
    HAND_END,
    HAND_START,
    NO_ANSWER,
    Guide,
    Picks,
    build_guide,
    pick_params,
    read_picks,
)
from server.http.page_parts import found_part, kept_part, part_key
from server.http.turn import MAX_STEPS, STEP, TurnSoFar, WholeTurn, read_turn, whole_turn
from server.i18n import (
    N_,
    catalog,
    listing,
    page_language,
    read_as_seat,
    reader_zone,
    zone_label,
)
from server.phrases import read_questions, render
from server.resources import static_dir
from server.store.base import hash_secret
from server.store.records import LobbyGame, OpenTable, Player, Seat
from server.words import moment_words, refusal_words, time_left_words, waiting_words

bp = Blueprint("web", __name__, static_folder=str(static_dir()), static_url_path="/assets")

SEAT_COOKIE_DAYS = 365
#: Player rows of the create-game form (the most seats any engine takes).
FORM_SEATS = max(engine.max_players for engine in ENGINES.values())
#: ``Sec-Fetch-Site`` values of a navigation the user started themselves (typed, a bookmark,
#: a link in a mail program) or from one of our pages; any other, or none, may be another
#: site's doing (older browsers and link scanners send none).
OWN_NAVIGATION = frozenset({"none", "same-origin"})
#: The most seat tokens of one game a browser's cookie is read for.
MAX_HELD = 8
#: Between the tokens in the cookie of held seats: in neither a seat token nor a mail's pass.
HELD_SEPARATOR = "~"
#: How long the created page keeps showing a new game's links to its creator (seconds).
CREATED_SECONDS = 24 * 3600
#: The cookie of a new game's page (its path is that page): the key its links derive from.
CREATED_COOKIE = "turnpost_created"


def seat_cookie(game_id: str) -> str:
    """The cookie holding the token of the seat this browser plays now in one game."""
    return f"turnpost_seat_{game_id}"


def seats_cookie(game_id: str) -> str:
    """The cookie holding the tokens of every seat this browser holds in one game."""
    return f"turnpost_seats_{game_id}"


@bp.app_context_processor
def page_helpers() -> dict[str, Any]:
    """What every page template may use: the script nonce and moments in words (in the
    reader's time zone and language, measured from one "now")."""
    moments = Moments(parse_time(utcnow()), reader_zone(), page_language())
    return {"csp_nonce": csp_nonce, "moment": moments, "plural": plural}


def csp_nonce() -> str:
    """This answer's script nonce (the Content-Security-Policy names it)."""
    if "csp_nonce" not in g:
        g.csp_nonce = secrets.token_urlsafe(16)
    return g.csp_nonce


@dataclass(frozen=True)
class Moments:
    """A page's stored moments as ``<time>`` elements in words, all measured from ``now``
    (one for every moment of a page: a list shows hundreds), in ``language``."""

    now: datetime
    #: The signed-in reader's time zone, or ``None``.
    zone: str | None
    language: str

    def __call__(self, stamp: str | None, zone: str | None = None) -> Markup:
        """``stamp`` in ``zone``, by default the reader's, in which the script rewrites it;
        for a visitor not signed in, in UTC, which the script rewrites in the browser's
        time zone."""
        if not stamp:
            return Markup("")
        zone = zone or self.zone
        moment = parse_time(stamp)
        words = escape(moment_words(moment, self.now, zone or "UTC", self.language))
        iso = moment.replace(microsecond=0, tzinfo=None).isoformat() + "Z"
        zoned = ""
        if zone is not None:
            label = zone_label(zone, self.language)
            zoned = f' data-zone="{escape(zone)}" data-zone-label="{escape(label)}"'
        return Markup(f'<time datetime="{iso}"{zoned}>{words}</time>')


# -- lobby ----------------------------------------------------------------
@bp.route("/")
def lobby() -> str:
    """The games, the signed-in player's games, the tables to join, the create-game form.

    No running game is listed to strangers: a game is seen by its players and
    by whoever has its link.
    """
    return _render_lobby()


@bp.route("/games", methods=["POST"])
def create_game() -> Any:
    """Create a game from the lobby form, then show its seat links (post/redirect/get).

    A signed-in player who creates a game is its host (see :mod:`server.games.tables`).
    """
    games = current_service()
    key = secrets.token_bytes(32)
    player = current_actor().player
    try:
        body = _creation_body(request.form)
        created = games.create(
            body["engine"],
            body["players"],
            body["options"],
            turn_hours=body["turn_hours"],
            clock=body["clock"],
            client=current_client(),
            handed_key=key,
            table=Table(None if player is None else player.id, body["seating"]),
        )
    except TurnpostError as error:
        return _render_lobby(error=error, form=request.form), error.status
    return show_created(created["id"], key)


def show_created(game_id: str, key: bytes) -> Response:
    """Redirect to the new game's page of links, kept for this browser (the key) for a day."""
    now = utcnow()
    until = format_time(parse_time(now) + timedelta(seconds=CREATED_SECONDS))
    current_store().add_created_page(hash_secret(_key_text(key)), game_id, until, now)
    response = redirect(url_for("web.created_page", game_id=game_id), 303)
    response.set_cookie(
        CREATED_COOKIE,
        _key_text(key),
        max_age=CREATED_SECONDS,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure,
        path=url_for("web.created_page", game_id=game_id),
    )
    return response


def _key_text(key: bytes) -> str:
    return base64.urlsafe_b64encode(key).decode()


def _created(game: Game) -> tuple[list[str], str]:
    """The handed seat tokens and admin token of a game this browser created; ``403`` otherwise.

    The browser's cookie (sent to the new game's page only) holds a key the
    tokens are derived from; the server keeps the key's hash for a day, until
    "forget".
    """
    text = request.cookies.get(CREATED_COOKIE, "")
    try:
        key = base64.urlsafe_b64decode(text.encode()) if text.isascii() else b""
    except ValueError:
        key = b""
    if len(key) != 32 or not current_store().created_page(hash_secret(text), game.id, utcnow()):
        raise TurnpostError(
            "forbidden",
            phrase(
                "A new game's private links are shown only in the browser that created it, "
                "for a day. Ask the game's creator for your link."
            ),
        )
    return handed_tokens(key, len(game.seats))


@bp.route("/games/<game_id>/created")
def created_page(game_id: str) -> Response:
    """Each seat's private link, a copy button and a "play as" button, for the creator only.

    A seat whose link was opened shows that instead: its link no longer works.
    """
    games = current_service()
    game = games.load(game_id)
    tokens, admin = _created(game)
    mailed = current_store().mailed_seats(game_id)
    links = [
        {
            "seat": seat.seat,
            "name": seat.name,
            "state": _link_state(games, game, seat, token),
            "link": url_for("web.claim_seat", game_id=game_id, token=token, _external=True),
            "claim": url_for("web.claim_seat", game_id=game_id, token=token),
            "address": bool(seat.email),
            "mailed": seat.seat in mailed,
        }
        for seat, token in zip(game.seats, tokens, strict=True)
        if seat.name and seat.bot is None
    ]
    page = render_template(
        "created.html",
        game=game,
        links=links,
        admin_token=admin,
        open_seats=sum(not seat.name for seat in game.seats),
        sends_mail=bool(current_app.config.get("TURNPOST_SMTP_URL")),
    )
    response = make_response(page)
    response.headers["Cache-Control"] = "no-store"
    return response


def _link_state(games: GameService, game: Game, seat: Seat, token: str) -> str:
    """Where a new game's seat stands for its creator's page: ``link`` (its handed link
    works), ``opened`` (someone opened it), ``kept`` (kept for its player: no link was
    handed) or ``seated`` (that player took it)."""
    if games.store.seat_token(game.id, token) is None:
        return "seated" if seat.joined_at else "kept"
    return "link" if games.seat_of(game.id, token) is not None else "opened"


@bp.route("/games/<game_id>/created/forget", methods=["POST"])
def forget_created(game_id: str) -> Response:
    """Stop showing a new game's links in this browser (and on the server: the key is void)."""
    text = request.cookies.get(CREATED_COOKIE)
    if text:
        current_store().forget_created_page(hash_secret(text))
    response = redirect(url_for("web.game_page", game_id=game_id), 303)
    response.delete_cookie(CREATED_COOKIE, path=url_for("web.created_page", game_id=game_id))
    return response


@bp.route("/games/<game_id>/created/hot-seat", methods=["POST"])
def hot_seat(game_id: str) -> Response:
    """Hold every seat of a new game in this browser: the players share this device.

    Seats whose link was already opened elsewhere are left to that browser.
    """
    games = current_service()
    game = games.load(game_id)
    tokens = [token for token in _created(game)[0] if games.seat_of(game_id, token) is not None]
    response = redirect(url_for("web.game_page", game_id=game_id), 303)
    if tokens:
        _remember_seats(response, game_id, tokens, active=tokens[0])
    return response


#: The bots the lobby form offers for a seat, by the form's value: the bot and its words.
BOT_CHOICES: dict[str, tuple[dict[str, Any], str]] = {
    "random": ({"bot": "random"}, N_("random moves")),
    **{f"mcts{n}": ({"bot": "mcts", "level": n}, N_("level %(level)s")) for n in LEVELS},
}

#: How many open tables, and how many of the player's own games, the lobby lists.
LOBBY_TABLES = 50
LOBBY_OWN_GAMES = 20
#: The turn clocks the lobby form offers (hours; none: no clock).
TURN_CLOCKS = (24, 48, 72, 168)
#: The bank clock the lobby form offers (as Little Golem's): 10 days, 1.5 more a move, up to 20.
LOBBY_BANK = {"kind": "bank", "bank_hours": 240, "increment_hours": 36, "max_bank_hours": 480}
#: The quiet times the lobby form offers: weekends.
WEEKENDS = {"weekdays": ["sat", "sun"]}


#: Stand-ins for a kept page's per-request parts, the script nonce and the CSRF token:
#: random per process and never sent (each request's own are put in their place).
NONCE_MARK = f"nonce{secrets.token_hex(16)}"
CSRF_MARK = f"csrf{secrets.token_hex(16)}"


def kept_page(key: str, template: str, **context: Any) -> str:
    """``template`` kept per worker under ``key`` (:func:`server.http.page_parts.kept_part`),
    rendered with stand-ins for the script nonce and the CSRF token, which are this
    request's own in the page answered (the token only where the page has a form)."""
    page = kept_part(
        key,
        lambda: render_template(
            template, csp_nonce=lambda: NONCE_MARK, csrf_token=lambda: CSRF_MARK, **context
        ),
    )
    return _answered(page)


def found_page(key: str) -> str | None:
    """The page kept under ``key`` (:func:`kept_page`) with this request's nonce and CSRF
    token, if this worker keeps one."""
    page = found_part(key)
    return None if page is None else _answered(page)


def _answered(page: str) -> str:
    """A kept page with this request's script nonce and CSRF token in their stand-ins' place."""
    page = page.replace(NONCE_MARK, csp_nonce())
    return page.replace(CSRF_MARK, generate_csrf()) if CSRF_MARK in page else page


def _render_lobby(error: TurnpostError | None = None, form: Mapping[str, str] | None = None) -> str:
    """The lobby; a visitor's (not signed in, no form sent back) is kept per worker for its
    open tables and language (the same page for every visitor but for the nonce and the
    CSRF token); a signed-in player's lists their own games and is rendered each time."""
    store, player = current_store(), current_actor().player
    tables = store.open_tables(utcnow(), LOBBY_TABLES)
    mine = [] if player is None else store.lobby_games(player.id, LOBBY_OWN_GAMES)
    context = {
        "engines": list(ENGINES.values()),
        "engine_names": {engine.id: engine.name for engine in ENGINES.values()},
        "hidden": {engine.id: engine.hidden_information for engine in ENGINES.values()},
        "open_tables": [table_entry(row) for row in tables],
        "own_games": [own_entry(row, player) for row in mine],
        "seats": range(FORM_SEATS),
        "bot_choices": BOT_CHOICES,
        "clocks": TURN_CLOCKS,
        "bank": LOBBY_BANK,
        "error": error,
        "form": form or {},
        "option_fields": option_fields,
        "choice_words": choice_words,
        "clock_words": clock_words,
    }
    if player is not None or error is not None or form:
        return render_template("lobby.html", **context)
    return kept_page(part_key("lobby", tables, page_language()), "lobby.html", **context)


def table_entry(row: OpenTable) -> dict[str, Any]:
    """A forming table as the lobby lists it: its game, options in words, who sits there."""
    named = [seat for seat in row.players if seat.name]
    return {
        "id": row.id,
        "engine": ENGINES[row.engine],
        "options": option_words(row.options),
        "seeded": row.seeded,
        "turn_hours": row.turn_hours,
        "clock": row.clock,
        "seated": [seat.name for seat in named if seat.joined_at],
        "waiting": [seat.name for seat in named if not seat.joined_at],
        "open": len(row.players) - len(named),
    }


def own_entry(row: LobbyGame, player: Player) -> dict[str, Any]:
    """One of the signed-in player's games as the lobby lists it, with its state in words."""
    names = [seat.name for seat in row.players if seat.name]
    mine = {seat.seat for seat in row.players if seat.player_id == player.id}
    words = catalog(page_language())
    turn = row.status == "active" and bool(mine & set(row.to_move))
    if row.status == "forming":
        free = sum(not seat.name for seat in row.players)
        said = (
            words.ngettext(
                "waiting for players (%(num)d open seat)",
                "waiting for players (%(num)d open seats)",
                free,
            )
            % {"num": free}
            if free
            else words.gettext("waiting for players")
        )
    elif row.status == "active":
        said = waiting_words(row.to_move, [seat.name for seat in row.players], page_language())
    else:
        said = words.gettext(ENDED[row.status])
    return {
        "id": row.id,
        "engine": ENGINES[row.engine],
        "names": names,
        "words": said,
        "your_turn": turn,
        "updated_at": row.updated_at,
    }


#: How a game that is over stands in the lobby's list of the player's games.
ENDED = {"finished": N_("game over"), "aborted": N_("stopped")}


def option_words(options: Mapping[str, Any]) -> list[str]:
    """A game's options as words, in the page's language: "Cross rule: on", "Map: Siam 1874".

    >>> option_words({"cross_rule": True, "map": "siam-1874"})
    ['Cross rule: on', 'Map: Siam 1874']
    """
    words = catalog(page_language())
    said = []
    for name, value in options.items():
        shown = words.gettext(ON_OFF[value]) if isinstance(value, bool) else choice_words(value)
        option = words.gettext(OPTION_NAMES.get(name, words_of(name)))
        said.append(words.gettext("%(option)s: %(value)s") % {"option": option, "value": shown})
    return said


#: The options' names as the lobby's list of tables says them (each engine's label).
OPTION_NAMES = {
    name: label for engine in ENGINES.values() for name, (label, _) in engine.option_words.items()
}
#: An option's value when it is on or off.
ON_OFF = {True: N_("on"), False: N_("off")}
#: The options' choices that are words rather than names (a map's name stays as it is).
CHOICE_WORDS = {"standard": N_("Standard")}


def choice_words(choice: Any) -> str:
    """An option's choice in the page's language: "Standard", or a name such as "Siam 1874"."""
    said = CHOICE_WORDS.get(str(choice))
    return catalog(page_language()).gettext(said) if said else words_of(str(choice))


def clock_words(hours: float | None, clock: dict[str, Any] | None = None) -> str:
    """A game's clock in words, in the page's language: its ``turn_hours``, or its time
    control (``clock``).

    >>> clock_words(None), clock_words(48), clock_words(168), clock_words(1.5)
    ('no clock', '2 days a move', '7 days a move', '1.5 hours a move')
    >>> clock_words(None, {**LOBBY_BANK, "pause": {**WEEKENDS, "nightly": None}})
    '10 days, 1.5 days more a move (at most 20 days); no clock on Sat and Sun'
    """
    language = page_language()
    words = catalog(language)
    if clock is None:
        if not hours:
            return words.gettext("no clock")
        return words.gettext("%(time)s a move") % {"time": _hours_words(hours, language)}
    if clock["kind"] == "per_move":
        said = words.gettext("%(time)s a move") % {"time": _hours_words(clock["hours"], language)}
    else:
        said = words.gettext("%(bank)s, %(more)s more a move") % {
            "bank": _hours_words(clock["bank_hours"], language),
            "more": _hours_words(clock["increment_hours"], language),
        }
        if clock.get("max_bank_hours"):
            said += " " + words.gettext("(at most %(time)s)") % {
                "time": _hours_words(clock["max_bank_hours"], language)
            }
    pause = clock.get("pause") or {}
    if pause.get("weekdays"):
        days = get_day_names("abbreviated", locale=language)
        named = [days[WEEKDAYS.index(day)] for day in pause["weekdays"]]
        said += "; " + words.gettext("no clock on %(days)s") % {"days": listing(named, language)}
    if pause.get("nightly"):
        said += "; " + words.gettext("no clock from %(start)s to %(end)s") % {
            "start": pause["nightly"]["from"],
            "end": pause["nightly"]["to"],
        }
    return said


#: The weekdays as a clock's pause names them, Monday first (Babel's day numbers).
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _hours_words(hours: float, language: str) -> str:
    """Hours in days where whole (or half) days: "2 days", "1.5 days", "5 hours"."""
    words = catalog(language)
    if hours >= 24 and hours % 12 == 0:
        days = hours / 24
        if days == int(days):
            return words.ngettext("%(num)d day", "%(num)d days", int(days)) % {"num": int(days)}
        return words.gettext("%(num)s days") % {"num": format_decimal(days, locale=language)}
    if hours == int(hours):
        return words.ngettext("%(num)d hour", "%(num)d hours", int(hours)) % {"num": int(hours)}
    return words.gettext("%(num)s hours") % {"num": format_decimal(hours, locale=language)}


@dataclass(frozen=True)
class OptionField:
    """One option of an engine as a form field: its name, words, kind and choices."""

    engine: str
    name: str
    label: str
    default: Any
    choices: tuple[str, ...] = ()
    explanation: str = ""

    @property
    def field(self) -> str:
        """The form field's name."""
        return f"option.{self.engine}.{self.name}"

    @property
    def kind(self) -> str:
        """``checkbox``, ``select``, ``number`` or ``text``."""
        if self.choices:
            return "select"
        if isinstance(self.default, bool):
            return "checkbox"
        return "number" if isinstance(self.default, int | float) else "text"


def words_of(identifier: str) -> str:
    """An option's or a choice's identifier as words: ``cross_rule`` -> "Cross rule".

    >>> words_of("cross_rule"), words_of("siam-1874")
    ('Cross rule', 'Siam 1874')
    """
    text = identifier.replace("_", " ").replace("-", " ").strip()
    return text[:1].upper() + text[1:]


def option_fields(engine: Engine) -> list[OptionField]:
    """The create form's fields for ``engine``'s options, in the page's language."""
    words = catalog(page_language())
    fields = []
    for name, default in engine.default_options.items():
        label, explanation = engine.option_words.get(name, (words_of(name), ""))
        choices = tuple(sorted(engine.option_choices.get(name, ())))
        explained = words.gettext(explanation) if explanation else ""
        fields.append(
            OptionField(engine.id, name, words.gettext(label), default, choices, explained)
        )
    return fields


def _form_options(engine: Engine | None, form: Mapping[str, str]) -> dict[str, Any]:
    """The options the lobby form sets for ``engine`` (a checkbox left empty is "off")."""
    if engine is None:
        return {}
    options: dict[str, Any] = {}
    for option in option_fields(engine):
        value = form.get(option.field)
        if option.kind == "checkbox":
            options[option.name] = value is not None
        elif value not in (None, ""):
            options[option.name] = _typed(option, value)
    return options


def _typed(option: OptionField, value: str) -> Any:
    """A form value as the option's type; a clear error for a number that is not one."""
    if option.kind != "number":
        return value
    try:
        return type(option.default)(value)
    except ValueError:
        words = phrase(
            "%(option)s must be a number, not %(value)r.",
            option=phrase(option.label),
            value=value[:20],
        )
        raise TurnpostError("invalid_request", words) from None


def _creation_body(form: Mapping[str, str]) -> dict[str, Any]:
    """The create-game request from the lobby form, checked by the API's schema.

    A row with a bot chosen is the computer's seat; a row marked open is an
    open seat (the game is then a table that forms); a row with an address is
    invited at once; the seating order and the turn clock come from their own
    fields.
    """
    players: list[dict[str, Any]] = []
    for seat in range(FORM_SEATS):
        name = form.get(f"name{seat}", "").strip()
        email = form.get(f"email{seat}", "").strip()
        bot = BOT_CHOICES.get(form.get(f"bot{seat}", ""))
        if bot is not None:
            players.append(dict(bot[0]))
        elif form.get(f"open{seat}"):
            players.append({"open": True})
        elif name or email:
            players.append({"name": name, "email": email or None, "invite": bool(email)})
    engine = ENGINES.get(form.get("engine", ""))
    body = {
        "engine": form.get("engine", ""),
        "players": players,
        "options": _form_options(engine, form),
        "turn_hours": None,
        "clock": form_clock(form),
        "seating": form.get("seating", "drawn"),
    }
    try:
        return GameCreateSchema().load(body)
    except ValidationError as error:
        problems = "; ".join(_field_errors(error.messages))
        raise TurnpostError("invalid_request", f"Please check: {problems}.") from None


def form_clock(form: Mapping[str, str]) -> dict[str, Any] | None:
    """The clock the lobby form (or the host panel) asks for: hours per move or the bank
    (``turn_hours``), weekends without a clock (``pause_weekends``, in each seat's time zone)."""
    choice = form.get("turn_hours") or ""
    if not choice:
        return None
    clock = dict(LOBBY_BANK) if choice == "bank" else {"kind": "per_move", "hours": choice}
    if form.get("pause_weekends"):
        player = current_actor().player
        clock["pause"] = {**WEEKENDS, "time_zone": player.time_zone if player else "UTC"}
    return clock


def _field_errors(messages: Any, where: str = "") -> Iterator[str]:
    """``"player 1 email: Not a valid email address."`` lines from marshmallow messages.

    >>> list(_field_errors({"players": {0: {"name": ["Too short."]}}}))
    ['player 1 name: Too short.']
    """
    if isinstance(messages, dict):
        for key, value in messages.items():
            label = str(key + 1) if isinstance(key, int) else str(key).rstrip("s")
            yield from _field_errors(value, f"{where} {label}".strip())
    elif isinstance(messages, list):
        yield f"{where}: {' '.join(str(message) for message in messages)}"
    else:
        yield f"{where}: {messages}"


# -- rules ----------------------------------------------------------------
@bp.route("/favicon.ico")
def favicon() -> Response:
    """The site's icon where browsers look for it first (``static/favicon.svg`` as an ICO)."""
    return send_from_directory(static_dir(), "favicon.ico", max_age=7 * 24 * 3600)


@bp.route("/rules/<engine_id>")
def rules_page(engine_id: str) -> str:
    """A game's rules for players (``templates/rules/<id>.html``), or a short general page."""
    engine = ENGINES.get(engine_id)
    if engine is None:
        raise TurnpostError("not_found", phrase("There is no such game here."))
    try:
        return render_template(f"rules/{engine.id}.html", engine=engine)
    except TemplateNotFound:
        return render_template("rules_missing.html", engine=engine)


@bp.route("/healthz")
def health() -> Response:
    """A trivial liveness check (also the benchmark's ceiling route)."""
    return Response("ok\n", mimetype="text/plain")


# -- seats ------------------------------------------------------------------
def _cookie_tokens(game_id: str) -> list[str]:
    """The seat tokens this browser's cookies hold for a game: the one it plays first."""
    active = request.cookies.get(seat_cookie(game_id))
    listed = request.cookies.get(seats_cookie(game_id), "").split(HELD_SEPARATOR)
    tokens = [token for token in [active, *listed] if token]
    return list(dict.fromkeys(tokens))[:MAX_HELD]


def _held_seats(games: GameService, game: Game) -> dict[int, str]:
    """The seats this browser holds in ``game`` (seat -> token); wrong tokens are ignored."""
    held: dict[int, str] = {}
    for token in _cookie_tokens(game.id):
        seat = games.seat_of(game.id, token)
        if seat is not None:
            held.setdefault(seat, token)
    return held


def _stale_seat_words(games: GameService, game: Game) -> str:
    """What happened to the seat this browser held in ``game`` and what to do, when none of
    its seat keys works any more ("" when it holds none)."""
    tokens = _cookie_tokens(game.id)
    if not tokens:
        return ""
    return render(games.dead_token_words(game, tokens[0]), (), page_language())


def _remember_seats(response: Response, game_id: str, tokens: list[str], active: str) -> None:
    """Set the seat cookies: the seat played now and every seat held."""
    settings = {
        "max_age": SEAT_COOKIE_DAYS * 24 * 3600,
        "httponly": True,
        "samesite": "Lax",
        "secure": request.is_secure,
        "path": f"/games/{game_id}",
    }
    response.set_cookie(seat_cookie(game_id), active, **settings)
    held = list(dict.fromkeys([active, *tokens]))[:MAX_HELD]
    response.set_cookie(seats_cookie(game_id), HELD_SEPARATOR.join(held), **settings)


@bp.route("/games/<game_id>/seat/<token>", methods=["GET", "POST"])
def claim_seat(game_id: str, token: str) -> Response:
    """Open a seat link: keep a token of the seat in this browser's cookies, show the game.

    The link carries a handed seat token or a mail's pass; opening it mints a
    token only this browser holds, which replaces the handed one
    (:meth:`GameService.take_seat`): whoever else was handed the link can no
    longer play the seat or see its hand.

    A link not plainly opened by the user (``Sec-Fetch-Site`` other than
    ``none`` or ``same-origin``, or missing, as from older browsers and link
    scanners), or one that would add a seat to a browser already playing
    another seat of this game, only shows a page asking to confirm with a
    CSRF-protected button: a hostile page cannot silently make a visitor play
    for someone else's seat (login CSRF), and a scanner cannot use up a link.
    """
    games = current_service()
    game = games.load(game_id)
    seat = games.link_seat(game_id, token)
    held = _held_seats(games, game)
    foreign = request.headers.get("Sec-Fetch-Site") not in OWN_NAVIGATION
    other = [s for s in held if s != seat]
    if request.method == "GET" and seat not in held and (foreign or other):
        current = request.cookies.get(seat_cookie(game_id))
        playing = games.seat_of(game_id, current) if current else None
        page = render_template(
            "claim.html",
            game=game,
            name=game.seats[seat].name,
            current=None if playing is None else game.seats[playing].name,
        )
        return make_response(page)
    player = current_actor().player
    taken = games.take_seat(game_id, token, None if player is None else player.id)
    response = redirect(_table_url(game_id, as_seat=seat if held else None), 303)
    kept = [held_token for held_seat, held_token in held.items() if held_seat != taken.seat]
    _remember_seats(response, game_id, kept, active=taken.token)
    return response


@bp.route("/games/<game_id>/my-seat", methods=["POST"])
def take_my_seat(game_id: str) -> Response:
    """Open the signed-in player's seat in this browser, from their games page (a button).

    A browser already holding the seat plays it; any other gets a token of its
    own (:meth:`GameService.take_own_seat`): a player who lost the seat's link
    needs none. ``401`` signed out, ``403`` for a seat that is not theirs.
    """
    player = signed_in_player()
    seat = whole_number(request.form.get("seat", ""))
    if seat is None:
        raise TurnpostError("invalid_request", phrase("Which seat? Open it from your games page."))
    games = current_service()
    held = _held_seats(games, games.load(game_id))
    taken = games.take_own_seat(game_id, seat, player.id, held.get(seat))
    shown = taken.seat if len(held) > 1 else None
    response = redirect(_table_url(game_id, as_seat=shown), 303)
    _remember_seats(response, game_id, list(held.values()), active=taken.token)
    return response


def _chosen_seat(game: Game, held: Mapping[int, str]) -> int | None:
    """Which held seat the page shows: ``?as=``, else the one played now, else none.

    In a game that hides nothing, a held seat whose turn it is is shown
    rather than one that waits: players sharing a device need not pass it on.
    """
    asked = request.args.get("as", type=int)
    current = request.cookies.get(seat_cookie(game.id))
    seat = next((s for s, token in held.items() if token == current), None)
    if asked in held:
        seat = asked
    elif seat is None and held:
        seat = min(held)
    if seat is not None and seat not in game.to_move and not game.engine.hidden_information:
        seat = next((s for s in sorted(held) if s in game.to_move), seat)
    return seat


# -- the game table -----------------------------------------------------------
def _table_url(
    game_id: str,
    picks: Picks = (),
    as_seat: int | None = None,
    steps: Sequence[str] = (),
    **params: Any,
) -> str:
    """The game page as seat ``as_seat`` (of several held), with the decisions ``steps`` of the
    turn taken so far and the guided answers ``picks`` (the last answer last in the address)."""
    shown = {} if as_seat is None else {"as": as_seat}
    taken = {STEP: list(steps)} if steps else {}
    return url_for(
        "web.game_page", game_id=game_id, **shown, **taken, **pick_params(list(picks)), **params
    )


@bp.route("/games/<game_id>")
def game_page(game_id: str) -> Any:
    """The game table: board, whose turn, the move list, the guided form for the seat to move.

    A table that was never dealt (it forms, or was cancelled) has its own page.
    """
    return _table_page(game_id, "game.html")


@bp.route("/games/<game_id>/live")
def live_table(game_id: str) -> Response:
    """The game table alone, for the page's script to swap in after a move."""
    response = make_response(_table_page(game_id, "table.html"))
    response.headers["Cache-Control"] = "no-store"
    return response


def _table_page(game_id: str, template: str) -> Any:
    """The game table as ``template`` draws it (the page, or the table alone), or the way to
    a table never dealt. A watcher's is kept per worker (:func:`_watcher_key`): a kept one
    is answered without loading the game."""
    key = _watcher_key(game_id, template)
    kept = None if key is None else found_page(key)
    if kept is not None:
        return kept
    games = current_service()
    game = games.load(game_id)
    if not game.started:
        return redirect(url_for("tables.table_page", game_id=game_id), 303)
    context = _table(games, game)
    watcher = context["seat"] is None and not context["held"] and not context["stale_seat"]
    if key is None or not watcher:
        return render_template(template, **context)
    return kept_page(key, template, **context)


def _watcher_key(game_id: str, template: str) -> str | None:
    """The key a watcher's game table (drawn by ``template``) is kept under
    (:func:`kept_page`): a digest of all it is drawn from: its address, language and time
    zone, this second (which its moments and clocks are measured from) and the version of
    every row of the game it shows (:meth:`~server.store.base.GameStore.page_version`),
    read without loading the game. ``None`` (rendered each time) for a signed-in reader
    (whose own parts it shows), a browser holding a seat key of the game (a seat's page, or
    one whose key died), or no such game."""
    if current_actor().player is not None or _cookie_tokens(game_id):
        return None
    version = current_store().page_version(game_id, TABLE, TALK_SHOWN + 1)
    if version is None:
        return None
    address, zone = request.full_path, reader_zone()
    return part_key("watcher", template, address, page_language(), zone, utcnow()[:19], version)


@bp.route("/games/<game_id>/moves", methods=["POST"])
def post_move(game_id: str) -> Any:
    """Send a move (notation) from a form; show the reason in words if it is refused."""
    games = current_service()
    notation = request.form.get("notation", "").strip()
    expected = request.form.get("expected_seq", "")
    seat = whole_number(request.form.get("seat", ""))
    game = games.load(game_id)
    held = _held_seats(games, game)
    token = held.get(seat) if seat is not None else None
    token = token or request.cookies.get(seat_cookie(game_id))
    try:
        if not notation:
            raise TurnpostError(
                "invalid_move", phrase("Write a move in notation, or use the guided form.")
            )
        games.submit(
            MoveRequest(
                game_id, token=token, notation=notation, expected_seq=whole_number(expected)
            )
        )
    except TurnpostError as error:
        if error.code in ("not_found", "not_started"):
            raise
        page = render_template("game.html", **_table(games, games.load(game_id), error, notation))
        return page, error.status
    # players sharing a device: a game that hides something stays with the mover's view
    keep = seat in held and len(held) > 1 and game.engine.hidden_information
    return redirect(_table_url(game_id, as_seat=seat if keep else None), 303)


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


@dataclass
class Preview:
    """The turn left at the end of the guided form: the one move sending it (its notation),
    its sentence, the board after it and, when the turn stops before its end, why."""

    notation: str
    sentence: str
    board_html: Markup
    pause: str = ""


@dataclass
class TurnStep:
    """A decision of the turn taken so far, in words, with the link that changes it."""

    sentence: str
    change: str


#: How many log entries the game page lists at once; earlier ones are a link away.
MOVES_SHOWN = 50


@dataclass
class MoveList:
    """One page of the game page's move list: its entries (oldest first) as HTML, the
    ``upto`` its address asked for (``None``: the default page) and the pages around it,
    each named by the ``upto`` of its address (``None``: no such page)."""

    html: Markup
    asked: int | None
    earlier: int | None
    later: int | None


def _version(game: Game) -> list[Any]:
    """All a game's log entries in words are rendered from but the page of them: the game,
    its version (a move, a takeback, the end) and its players' names."""
    return [game.id, game.seq, game.status, game.row.updated_at, [s.name for s in game.seats]]


def _move_list(games: GameService, game: Game, at: int | None, shown: int | None) -> MoveList:
    """The page of at most :data:`MOVES_SHOWN` entries ending with move ``?upto=N``; without
    it, the page ending with the latest move, or the one around the replayed move ``at``;
    its links as seat ``shown``. Kept per game version, page, seat shown and language."""
    latest = game.seq
    asked = request.args.get("upto", type=int)
    around = latest if at is None else min(latest, max(at + MOVES_SHOWN // 2, MOVES_SHOWN))
    upto = min(max(around if asked is None else asked, 0), latest)
    first = max(upto - MOVES_SHOWN, 0)
    language = page_language()

    def render_list() -> str:
        return render_template(
            "moves.html",
            entries=games.move_log(game, after=first, limit=upto - first, language=language),
            at=at,
            latest_seq=latest,
            table_url=lambda as_seat=shown, **params: _table_url(game.id, (), as_seat, **params),
        )

    key = part_key("moves", _version(game), first, upto, at, shown, language)
    return MoveList(
        Markup(kept_part(key, render_list)),
        asked,
        earlier=first or None,
        later=min(upto + MOVES_SHOWN, latest) if upto < latest else None,
    )


def _last_move(games: GameService, game: Game, at: int | None) -> dict[str, Any] | None:
    """The log entry that led to the position shown (move ``at``, else the latest), if any
    (kept per game version, move and language)."""
    seq = game.seq if at is None else at
    if not seq:
        return None
    language = page_language()

    def entry() -> str:
        return json.dumps(games.move_log(game, after=seq - 1, limit=1, language=language)[0])

    return json.loads(kept_part(part_key("last move", _version(game), seq, language), entry))


def _table(
    games: GameService, game: Game, error: TurnpostError | None = None, notation: str = ""
) -> dict[str, Any]:
    """The context of the game table (the page and its live fragment) of ``game``, loaded."""
    engine = game.engine
    held = _held_seats(games, game)
    seat = _chosen_seat(game, held)
    read_as_seat(game.seats[seat].language if seat is not None else None)
    at = _replay_at(game)
    view = offload(games.game_object, game, seat, at)
    last = _last_move(games, game, at)
    names = [player["name"] for player in view["players"]]
    board = Board(last=last_touched(last["move"]) if last else frozenset())
    playing = seat is not None and at is None and view["status"] == "active"
    playing = playing and seat in view["to_move"]
    shown = seat if len(held) > 1 else None
    guide = preview = None
    steps: list[TurnStep] = []
    drawn, now = view, game.state
    if playing:
        turn, guide, preview = _turn_form(game, seat, view, names, shown)
        steps, now = _turn_steps(game.id, turn, shown), turn.state
        if preview is None:
            targets = {c.value: c.url for c in guide.choices if c.value != NO_ANSWER}
            board = replace(board, interactive=True, targets=targets, chosen=guide.chosen)
            if turn.moves:
                drawn = _view_after(game, seat, view, turn.state, turn.moves[-1], seat)
                board = replace(board, last=drawn.pop("touched"))
    board_html = render_board_html(drawn, board)
    if guide is not None:
        hand = board_html.partition(HAND_START)[2].partition(HAND_END)[0]
        for choice in guide.choices:
            link = f'href="{escape(choice.url)}"'
            choice.on_board, choice.in_hand = link in board_html, link in hand
    return {
        "game": view,
        "latest": game,
        "engine": engine,
        "names": names,
        "colors": PLAYER_COLORS,
        "move_list": _move_list(games, game, at, shown),
        "seat": seat,
        "held": sorted(held),
        "at": at,
        "replayed": last["description"] if at and last else "",
        "playing": playing,
        "guide": guide,
        "preview": preview,
        "turn_steps": steps,
        "start_over": _table_url(game.id, (), shown, _anchor="turn"),
        "prompt": render(engine.prompt(now, seat), names, page_language()) if playing else "",
        "waiting": waiting_words(view["to_move"], names, page_language()),
        "time_left_words": lambda time: time_left_words(time, page_language()),
        "result_words": _result_words(engine, view["result"], names),
        "board_html": board_html,
        "fairness": _fairness(engine, view),
        "error": error,
        "error_words": refusal_words(error, page_language()) if error else "",
        "stale_seat": "" if held else _stale_seat_words(games, game),
        "notation": notation,
        "table_url": lambda as_seat=shown, **params: _table_url(game.id, (), as_seat, **params),
        "hot_seat_turn": _hot_seat_turn(game, held, seat),
        "scores": _scores(view["result"]),
        "title": _title(engine, view, seat, playing, names),
        "talk": talk_view(games, game, seat),
        "analysis": offload(notes_of, games, game, seat, page_language()) if at is None else None,
        "takeback": takeback_panel(games, game, seat if at is None else None),
        "conditional": conditional_panel(games, game, seat if at is None else None),
    }


def _fairness(engine: Engine, view: dict[str, Any]) -> Markup:
    """The fair-play notice of the table (``fairness.html``), kept per worker for all it
    says: the engine, the players (whose links were opened, or given anew), the setup."""
    said = [engine.id, view["players"], view["from_position"], view["seeded"], page_language()]
    notice = kept_part(
        part_key("fairness", *said),
        lambda: render_template("fairness.html", engine=engine, game=view),
    )
    return Markup(notice)


def _result_words(engine: Engine, result: dict[str, Any] | None, names: list[str]) -> str:
    """The engine's sentence for a finished game's ``result`` in the page's language."""
    return render(engine.describe_result(result, names), names, page_language()) if result else ""


def talk_view(games: GameService, game: Game, seat: int | None) -> TalkView:
    """The talk panel as ``seat`` (or the signed-in player's seat), with the host's buttons."""
    player = current_actor().player
    host = Tables(games).host_of(game, player)
    return TalkService(games.store).view(game, talk_seat(game, seat, player), host)


def _replay_at(game: Game) -> int | None:
    """``?at=N`` when it is a move number before the latest (else the latest position)."""
    at = request.args.get("at", type=int)
    return at if at is not None and 0 <= at < game.seq else None


def _turn_form(
    game: Game, seat: int, view: dict[str, Any], names: list[str], shown: int | None
) -> tuple[TurnSoFar, Guide, Preview | None]:
    """The seat's turn so far (decisions in the address), the guided form's question for its
    next decision, and once the turn is over its preview.

    A decision the answers leave alone is taken at once and the form goes on
    with the next one while the turn goes on (:mod:`server.http.turn`).
    """
    engine = game.engine
    turn = offload(read_turn, engine, game.state, seat, request.args.getlist(STEP), names)
    picks = read_picks(request.args)
    for _ in range(MAX_STEPS):
        guide = _guide(game, seat, turn, picks, shown)
        guide.moved_on |= turn.moved_on
        if guide.move is None:
            break
        move = _bare(guide.move)
        after = offload(engine.apply, turn.state, seat, move)
        if not engine.turn_goes_on(after, seat, move):
            whole = offload(whole_turn, engine, game.state, seat, turn, guide.move, names)
            return turn, guide, _preview(game, seat, whole, view)
        turn.then(engine, seat, guide.move, after, names)
        picks = []
    return turn, guide, None


def _turn_steps(game_id: str, turn: TurnSoFar, shown: int | None) -> list[TurnStep]:
    """The decisions taken so far, each with the link going back to before it."""
    notations = turn.notations
    return [
        TurnStep(
            render(sentence, turn.names, page_language()),
            _table_url(game_id, (), shown, notations[:index], _anchor="turn"),
        )
        for index, sentence in enumerate(turn.sentences)
    ]


def _guide(game: Game, seat: int, turn: TurnSoFar, picks: Picks, shown: int | None) -> Guide:
    """The guided form's question for the next decision of the turn, from the answers ``picks``."""
    engine, state = game.engine, turn.state
    legal = [{**m, "notation": engine.format(m)} for m in offload(engine.legal_moves, state, seat)]
    names = [row.name for row in game.seats]

    def sentence(entry: dict[str, Any]) -> str:
        move = _bare(entry)
        after = engine.apply(state, seat, move)
        return render(engine.describe(state, after, seat, move, names), names, page_language())

    return build_guide(
        read_questions(engine.questions(state, seat), names, page_language()),
        legal,
        picks,
        lambda answers: _table_url(game.id, answers, shown, turn.notations, _anchor="turn"),
        engine.view(state, seat),
        sentence,
        page_language(),
    )


def _bare(entry: dict[str, Any]) -> dict[str, Any]:
    """A legal-moves entry without its ``notation``: the move itself."""
    return {key: value for key, value in entry.items() if key != "notation"}


def _preview(game: Game, seat: int, whole: WholeTurn, view: dict[str, Any]) -> Preview:
    """The board after the whole turn ``whole`` (not sent yet) and its sentence.

    In a game that hides something the preview shows the public view after
    the turn: a draw the turn makes must not be seen before it is sent.
    """
    engine = game.engine
    viewer = None if engine.hidden_information else seat
    shown = _view_after(game, seat, view, whole.after, whole.move, viewer, game.state)
    board = Board(preview=True, last=shown.pop("touched"))
    names, language = [row.name for row in game.seats], page_language()
    return Preview(
        whole.notation,
        render(whole.sentence, names, language),
        render_board_html(shown, board),
        render(whole.pause, names, language),
    )


def _view_after(
    game: Game,
    seat: int,
    view: dict[str, Any],
    after: dict[str, Any],
    move: dict[str, Any],
    viewer: int | None,
    before: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The game object as ``viewer`` would see it at ``after`` (not sent yet), with
    ``touched``: the places the last ``move`` (played from ``before``) touched."""
    engine = game.engine
    result = engine.result(after)
    public = engine.public_move(before or after, after, seat, _bare(move))
    return {
        **view,
        "state": engine.view(after, viewer),
        "to_move": engine.to_move(after),
        "result": result,
        "status": "active" if result is None else "finished",
        "seq": view["seq"] + 1,
        "touched": last_touched(public),
    }


#: What a board fragment is given of the game object: all it is drawn from (with the board,
#: the engine's static board for the options, and the language), so all its cache key holds.
BOARD_FIELDS = ("engine", "players", "options", "state", "to_move", "status", "result", "you")


def render_board_html(view: dict[str, Any], board: Board) -> Markup:
    """The game's board fragment (``boards/<id>.html``, else the generic one) as drawn: kept
    per worker under a digest of all it is drawn from (:mod:`server.http.page_parts`)."""
    drawn = {field: view[field] for field in BOARD_FIELDS}
    templates = [f"boards/{view['engine']}.html", "boards/default.html"]
    key = part_key("board", drawn, board, page_language())
    return Markup(kept_part(key, lambda: render_template(templates, **board_context(drawn, board))))


def _scores(result: dict[str, Any] | None) -> dict[int, Any]:
    """The final scores by seat worth showing: none when they only say who won (1 and 0).

    >>> _scores({"scores": {"0": 1, "1": 0}}), _scores({"scores": {"0": 12, "1": 9}})
    ({}, {0: 12, 1: 9})
    """
    scores = (result or {}).get("scores") or {}
    if set(scores.values()) <= {0, 1}:
        return {}
    return {int(seat): score for seat, score in scores.items()}


def _hot_seat_turn(game: Game, held: Mapping[int, str], seat: int | None) -> list[int]:
    """Other held seats whose turn it is, when the page shows a seat that waits."""
    if game.status != "active" or seat in game.to_move:
        return []
    return [s for s in sorted(held) if s in game.to_move and s != seat]


def _title(
    engine: Engine, view: dict[str, Any], seat: int | None, playing: bool, names: list[str]
) -> str:
    """The tab's title, in the page's language: says when it is your turn."""
    words = catalog(page_language())
    if playing:
        turn = words.gettext("Your turn, %(name)s") % {"name": names[seat]}
        return f"\u25b6 {turn} \u00b7 {engine.name} \u00b7 Turnpost"
    if view["status"] == "finished":
        over = words.gettext("%(game)s: game over") % {"game": engine.name}
        return f"{over} \u00b7 Turnpost"
    return f"{engine.name} \u00b7 Turnpost"
