"""The pushes a game change queues: "your turn" to the browsers of each player it waits for.

A seat tied to a player (``seats.player_id``) that the game now waits for
gets one push per browser its player allowed, saying whose turn it is in the
game's words, in the seat's language (its player's, else the seat's, else the server's),
and linking to the game. A newer push for the same seat and
game replaces one still queued. The seat that moved on the page and must
decide again (a split turn) is at the table: its push waits, and is dropped
when it goes on playing (:mod:`server.notify.presence`). The worker drops
any push whose turn was played before it went out (:mod:`server.push.delivery`).
"""

from __future__ import annotations

from typing import Any

from server.games.changes import Change
from server.games.clock import utcnow
from server.games.game import Game
from server.i18n import catalog, recipient_language
from server.mail.words import title
from server.notify.presence import at_the_table, news_due
from server.phrases import render
from server.store.base import Store
from server.store.records import NewPush


def turn_message(game: Game, seat: int, language: str = "en") -> dict[str, Any]:
    """What a push tells ``seat`` whose turn it is, in ``language``: title, body, the game's
    path and a tag (a browser shows one notification per game: a newer one replaces it)."""
    names = [row.name for row in game.seats]
    translations = catalog(language)
    heading = title(game.engine, names, seat, language)
    prompt = render(game.engine.prompt(game.state, seat), names, language)
    return {
        "title": translations.gettext("Your turn in %(title)s") % {"title": heading},
        "body": translations.gettext("Move %(move)s: %(prompt)s.")
        % {"move": game.seq + 1, "prompt": prompt},
        "url": f"/games/{game.id}",
        "tag": f"turnpost-{game.id}",
    }


class PushQueue:
    """The game service's listener that queues pushes in the change's transaction, each in
    its seat's language (``language``: the server's, for a seat that has none)."""

    def __init__(self, language: str = "en") -> None:
        self.language = language

    def changed(self, store: Store, change: Change) -> None:
        """Queue "your turn" to the browsers of each tied seat the game now waits for."""
        game = change.game
        if game.status != "active":
            return
        at_table, now = at_the_table(change), utcnow()
        for seat in game.seats:
            if seat.player_id is None or seat.seat not in game.to_move:
                continue
            push: NewPush = {
                "game_id": game.id,
                "seat": seat.seat,
                "seq": game.seq,
                "payload": turn_message(
                    game, seat.seat, recipient_language(store, seat, self.language)
                ),
                "created_at": now,
                "next_attempt_at": news_due(seat.seat, at_table, now),
            }
            store.queue_pushes(seat.player_id, push)
