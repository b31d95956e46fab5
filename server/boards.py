"""Board pictures and text boards: what every board template is given, and rendering them.

Each game has three templates in ``templates/boards/``: ``<id>.svg`` (the
picture, one standalone SVG document, also rasterised for mail),
``<id>.html`` (the page fragment around it) and ``<id>.txt`` (the text
board of plain-text mail, at most 72 columns). Every one gets the same
context (:func:`board_context`):

``game``
    the game object as the API answers it (``state`` is the viewer's view);
``names``, ``colors``
    player names and player colours by seat;
``board``
    a :class:`Board`: which elements may be clicked and where they lead,
    what is chosen so far, what the last move touched;
``data``
    the engine's static board (:meth:`~engines.base.Engine.board_data` for the
    game's options): the map, names of places, tracks, as the API serves it.

Outside a request (mails, tests) :func:`render_board` renders them with the
same autoescaping rules as the pages.

    >>> game = {"engine": "siam", "players": [{"seat": 0, "name": "Ann"}], "state": {}}
    >>> context = board_context(game, Board(last=last_touched({"action": "exit", "from": "a1"})))
    >>> context["names"], sorted(context["board"].last)
    (['Ann'], ['a1', 'exit'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from engines import ENGINES
from server.i18n import template_words
from server.resources import templates_dir

#: Player colours by seat: distinct from each other and from King of Siam's faction colours
#: (yellow Rama, red Lao, blue Malay), readable as text on white and on the boards' paper (4.5:1).
PLAYER_COLORS = ("#25704b", "#6b46c1", "#b83280", "#4a5568")


@dataclass(frozen=True)
class Board:
    """How a board is drawn: clickable targets, choices so far, the last move, a preview.

    ``targets`` maps an element's key (``a1``, ``korat``, ``r3c4``,
    ``khon_thai``...) to the URL that chooses it; only those elements are
    clickable, and only when ``interactive``.
    """

    interactive: bool = False
    targets: Mapping[str, str] = field(default_factory=dict)
    chosen: Sequence[str] = ()
    last: frozenset[str] = frozenset()
    preview: bool = False


def last_touched(public_move: Any) -> frozenset[str]:
    """Every string value in a (public) move: the keys of the elements it touched.

    >>> sorted(last_touched({"action": "move", "from": "b2", "to": "b3", "facing": "N"}))
    ['N', 'b2', 'b3', 'move']
    """
    if isinstance(public_move, str):
        return frozenset({public_move})
    if isinstance(public_move, Mapping):
        values: Any = public_move.values()
    elif isinstance(public_move, list | tuple):
        values = public_move
    else:
        return frozenset()
    return frozenset().union(*(last_touched(value) for value in values))


def board_context(game: dict[str, Any], board: Board | None = None) -> dict[str, Any]:
    """The context of every board template for ``game`` (a game object) drawn as ``board``."""
    engine = ENGINES.get(game["engine"])
    return {
        "game": game,
        "names": [player["name"] for player in game["players"]],
        "colors": PLAYER_COLORS,
        "board": board or Board(),
        "data": engine.board_data(game.get("options") or {}) if engine else {},
    }


@cache
def environment() -> Environment:
    """A Jinja environment on ``templates/`` like Flask's: escaping HTML, SVG and XML, with
    gettext's ``_`` (the words of a render's language, :func:`render_board`)."""
    jinja = Environment(
        loader=FileSystemLoader(templates_dir()),
        autoescape=select_autoescape(["html", "svg", "xml"]),
        extensions=["jinja2.ext.i18n"],
    )
    jinja.policies["ext.i18n.trimmed"] = True
    return jinja


def render_board(
    kind: str, game: dict[str, Any], board: Board | None = None, language: str = "en"
) -> str:
    """``templates/boards/<engine>.<kind>`` (``svg``, ``html`` or ``txt``) for ``game``, its
    words (the names read aloud for the board's elements too) in ``language``."""
    template = environment().get_template(f"boards/{game['engine']}.{kind}")
    return template.render({**board_context(game, board), **template_words(language)})
