"""The seats of bots at a game's creation: their specs and their names.

A seat is a bot when created as ``{"bot": "random"}`` or
``{"bot": "mcts", "level": 1..5}``; :mod:`server.games.bots` plays it.
"""

from __future__ import annotations

from typing import Any

from engines.search import Mcts, make_bot
from server.errors import TurnpostError

#: What a bot's seat is called, by kind.
BOT_WORDS = {"random": "random moves", "mcts": "level {level}"}


def bot_spec(player: dict[str, Any]) -> dict[str, Any] | None:
    """The bot spec of a seat at creation (``None``: a person), checked by ``make_bot``;
    ``422 invalid_request`` in words for one that names no bot."""
    if player.get("bot") is None:
        return None
    spec = {"bot": player["bot"]}
    level = player.get("level")
    if level is not None or player["bot"] == "mcts":
        spec["level"] = Mcts().level if level is None else level
    try:
        make_bot(spec)
    except ValueError as error:
        raise TurnpostError("invalid_request", str(error), {"players": [str(error)]}) from None
    return spec


def bot_name(spec: dict[str, Any], number: int | None = None) -> str:
    """The name of a bot's seat; ``number`` tells several bots of a game apart.

    >>> bot_name({"bot": "mcts", "level": 3}), bot_name({"bot": "random"}, 2)
    ('Computer (level 3)', 'Computer 2 (random moves)')
    """
    words = BOT_WORDS[spec["bot"]].format(level=spec.get("level"))
    return f"Computer{'' if number is None else f' {number}'} ({words})"
