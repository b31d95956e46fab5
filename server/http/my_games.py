"""The signed-in player's games: ``/me/games``, where signing in lands.

Every game with a seat tied to the player (``seats.player_id``: a seat link
followed while signed in), across engines, in the order of
:mod:`server.accounts.games`: those waiting for the player first (with what
the game asks of them), then the others running (who moves now), then the
latest :data:`RECENT_OVER` over. Each shows the other players' names, the
deadline and the last move's sentence, moments in the player's time zone.
Each game's button (a CSRF-protected POST to ``/games/<id>/my-seat``,
:func:`server.http.pages.take_my_seat`) opens the player's seat in this
browser, minting a token of its own if the browser holds none: a player who
lost a seat's link gets the seat back here. A table the player sits at is
listed with the games running while it waits for its players (its open
seats counted among the others); its button opens the table's page.

Live: the page's script follows ``/me/games/events``, the player's event
stream (:class:`server.http.events.PlayerSubscription`: a ``change`` event
when one of the player's games moves, from the worker's one database poller,
so that an open page costs nothing while its games are quiet), and then
fetches ``/me/games/live``, the list alone, and swaps it in. The stream's
address carries the move log's cursor when the page was made, so a move
made before the stream opened is told as soon as it opens. Without the
script the page is the same, as of its last load.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote

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
from flask_wtf.csrf import generate_csrf

from engines import ENGINES, Engine
from engines.words import join, plural
from server.accounts.games import OVER, RUNNING, WAITING, MyGame, player_games, prompts
from server.games.clock import parse_time, utcnow
from server.http.actor import current_actor, signed_in_player
from server.http.clients import current_client
from server.http.context import current_store
from server.http.events import STREAM_HEADERS
from server.i18n import catalog, page_language
from server.phrases import render
from server.store.records import Message, Player
from server.words import waiting_words

bp = Blueprint("my_games", __name__)

#: Games over shown on the page (the latest); ``GET /api/v1/me/games`` lists them all.
RECENT_OVER = 20
#: A deadline closer than this is shown as near.
SOON_HOURS = 24
#: The most moves logged since the page was made that its stream looks through.
CATCH_UP_MOVES = 1000
#: Stands for a game id in an address built once for every game of the list.
ANY_GAME = "0game0"


@bp.route("/me/games")
def games_page() -> Response:
    """The player's games (a visitor not signed in is sent to sign in)."""
    player = current_actor().player
    if player is None:
        return redirect(url_for("accounts.sign_in_page"), 303)
    return _private(render_template("my_games.html", **_context(player)))


@bp.route("/me/games/live")
def games_live() -> Response:
    """The list alone, for the page's script to swap in after a change; ``401`` signed out."""
    return _private(render_template("my_games_list.html", **_context(signed_in_player())))


@bp.route("/me/games/events")
def games_events() -> Response:
    """The player's event stream: a ``change`` event when one of their games moves.

    ``?after=`` is the move log's cursor when the page was made: a move of
    the player's games since then (before the stream was open) is told at
    once; a cursor more than :data:`CATCH_UP_MOVES` behind (or not one)
    just tells the page to fetch the list again.
    """
    player = signed_in_player()
    feed = current_app.extensions["turnpost"].feed
    subscription = feed.subscribe_player(player.id, current_client())
    for game_id in _moved_since(player.id, request.args.get("after", "")):
        subscription.deliver_change(game_id)
    response = Response(subscription.stream(), mimetype="text/event-stream", headers=STREAM_HEADERS)
    response.call_on_close(subscription.close)
    return response


def _moved_since(player_id: str, after: str) -> list[str]:
    """The player's games that moved since the log's cursor ``after`` (see
    :func:`games_events`); ``[""]`` (something did) for a cursor too old or not one, none
    without one."""
    if not after:
        return []
    store = current_store()
    latest = store.last_move_cursor()
    cursor = int(after) if after.isascii() and after.isdigit() and len(after) < 19 else -1
    if cursor >= latest:
        return []
    if latest - cursor > CATCH_UP_MOVES or cursor < 0:
        return [""]
    return store.player_moved_since(player_id, cursor)


def _private(page: str) -> Response:
    response = make_response(page)
    response.headers["Cache-Control"] = "no-store"
    return response


def _context(player: Player) -> dict[str, Any]:
    """The page's and the list's context: the player's games in three parts, in words."""
    store = current_store()
    games = player_games(store, player.id)
    parts: dict[int, list[MyGame]] = {WAITING: [], RUNNING: [], OVER: []}
    for game in games:
        parts[game.part].append(game)
    language = page_language()
    asks = {
        game_id: render(prompt, (), language)
        for game_id, prompt in prompts(store, parts[WAITING]).items()
    }
    urls = {"page": _addresses("web.game_page"), "seat": _addresses("web.take_my_seat")}
    listed = [*parts[WAITING], *parts[RUNNING], *parts[OVER][:RECENT_OVER]]
    said = store.last_said([(game.row.id, game.row.you) for game in listed])

    def shown(part: int, limit: int | None = None) -> list[ShownGame]:
        return [
            _shown(game, asks.get(game.row.id, ""), urls, said.get(game.row.id))
            for game in parts[part][:limit]
        ]

    waiting = len(parts[WAITING])
    return {
        "zone": player.time_zone,
        "csrf": generate_csrf(),
        "parts": [
            Part("waiting", "Your turn", shown(WAITING), "No game waits for you."),
            Part("running", "Waiting for others", shown(RUNNING), "None."),
            Part(
                "over",
                "Finished lately",
                shown(OVER, RECENT_OVER),
                "",
                len(parts[OVER]) - RECENT_OVER,
            ),
        ],
        "any_games": bool(games),
        "after": store.last_move_cursor(),
        "title": f"({waiting}) My games" if waiting else "My games",
    }


@dataclass(frozen=True)
class Part:
    """A part of the list: its ``key`` (the ids of its elements), heading, games, the words
    when it has none (none: no heading either) and how many more it leaves out."""

    key: str
    title: str
    games: list[ShownGame]
    empty: str
    more: int = 0


def _addresses(endpoint: str) -> Callable[[str], str]:
    """A game's address at ``endpoint``, built once for the whole list (``url_for`` per game
    would cost a list of hundreds a good part of its time)."""
    address = url_for(endpoint, game_id=ANY_GAME)
    return lambda game_id: address.replace(ANY_GAME, quote(game_id, safe=""))


@dataclass(frozen=True, slots=True)
class ShownGame:
    """A game of the list as the page shows it (attributes, which a template reads faster
    than a dict's keys: a list shows hundreds)."""

    id: str
    page_url: str
    seat_url: str
    name: str
    others: str
    seat: int
    status: str
    forming: bool
    waiting: bool
    turn: str
    deadline: str | None
    soon: bool
    outcome: str | None
    moves: int
    last_move: str | None
    last_at: str | None
    started: str
    #: The last message said at its table (``None``: none), and who said it.
    said: Message | None
    said_by: str


def _shown(
    game: MyGame,
    prompt: str,
    urls: dict[str, Callable[[str], str]],
    said: Message | None,
) -> ShownGame:
    """A game of the list as the page shows it, with its ``urls`` and the last message ``said``
    at its table (or ``None``)."""
    row = game.row
    engine = ENGINES[row.engine]
    names = [seat.name for seat in row.players]
    others = [seat.name for seat in row.players if seat.name and seat.seat not in game.mine]
    free = names.count("")  # the open seats of a table that forms
    if free:
        others.append(plural(free, "open seat"))
    return ShownGame(
        id=row.id,
        page_url=urls["page"](row.id),
        seat_url=urls["seat"](row.id),
        name=engine.name,
        others=join(others),
        seat=row.you,
        status=row.status,
        forming=row.status == "forming",
        waiting=row.waiting,
        turn=_turn_words(game, engine, names, prompt),
        deadline=row.deadline if row.status == "active" else None,
        soon=_soon(row.deadline) if row.waiting else False,
        outcome=_outcome(game),
        moves=row.seq,
        last_move=render(row.last_description, names, page_language())
        if row.last_description
        else None,
        last_at=row.last_at,
        started=row.created_at,
        said=said,
        said_by="" if said is None else names[said.seat],
    )


def _soon(deadline: str | None) -> bool:
    """Whether a deadline is less than :data:`SOON_HOURS` away (or past)."""
    if deadline is None:
        return False
    return parse_time(deadline) - parse_time(utcnow()) < timedelta(hours=SOON_HOURS)


def _outcome(game: MyGame) -> str | None:
    """``won``, ``lost`` or ``drawn`` for the player in a finished game, else ``None``."""
    if game.row.status != "finished":
        return None
    winners = set(game.row.result.get("winners") or [])
    if not winners:
        return "drawn"
    return "won" if winners & set(game.mine) else "lost"


def _turn_words(game: MyGame, engine: Engine, names: list[str], prompt: str) -> str:
    """Whose turn it is, or how the game ended, in words: "Your turn: enter an elephant"."""
    row, language = game.row, page_language()
    words = catalog(language)
    if row.waiting:
        if prompt:
            return words.gettext("Your turn: %(prompt)s") % {"prompt": prompt}
        return words.gettext("Your turn.")
    if row.status == "finished":
        return render(engine.describe_result(row.result, names), names, language)
    if row.status == "aborted":
        return words.gettext("The game was stopped.")
    if row.to_move:
        return waiting_words(row.to_move, names, language)
    return words.gettext("The game waits for its players.")
