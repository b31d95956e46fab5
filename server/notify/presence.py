"""A player at the table: told of the next decision of their turn only if they leave it.

Some turns take several decisions of the same seat (a King of Siam card, then
its take; Foreign King citizens moved step by step: the README's "Turns in
several decisions"). Each decision is a move, after which the game waits for
the same seat again. A seat that made such a move on a page (or with its
token, over the API) is taking the next decision right now: a "your turn"
mail or push for it would only nag. So its news is queued to go out
:data:`AT_THE_TABLE` later, and the worker drops it as stale once the seat
moves (the turn was played, :mod:`server.mail.delivery`); a player who left
the table in the middle of a turn still hears of it then. A move that came
by mail is answered at once: a player who mails is not at the table.
"""

from __future__ import annotations

from datetime import timedelta

from server.games.changes import Change
from server.games.clock import format_time, parse_time

#: How long the news of the next decision waits for a seat that is at the table.
AT_THE_TABLE = timedelta(minutes=30)


def at_the_table(change: Change) -> int | None:
    """The seat that made ``change`` off mail and must decide again now, or ``None``."""
    game, mover = change.game, change.mover
    if mover is None or change.entry is None or change.mail_message_id is not None:
        return None
    return mover if game.status == "active" and mover in game.to_move else None


def news_due(seat: int, at_table: int | None, now: str) -> str:
    """When news of the turn for ``seat`` may go out: ``now``, or later if it is ``at_table``."""
    return format_time(parse_time(now) + AT_THE_TABLE) if seat == at_table else now
