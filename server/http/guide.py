"""The guided move form: one question at a time, built from the seat's legal moves.

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

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from flask import url_for

from server.games.game import Game

#: Prefix of the query parameters carrying the guided form's answers so far.
PICK = "m."
#: The value of a field a move does not have (a shorter path, no relocation): "none".
ABSENT = ""
FACING_ARROWS = {"N": "\u2191", "E": "\u2192", "S": "\u2193", "W": "\u2190"}


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


def read_picks(args: Mapping[str, str]) -> list[tuple[str, str]]:
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
