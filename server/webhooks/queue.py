"""The webhook deliveries a game change queues: ``move`` per logged entry, then ``end``."""

from __future__ import annotations

from server.games.changes import Change
from server.games.game import log_entry
from server.store.base import Store
from server.webhooks.delivery import MAX_PENDING


class WebhookQueue:
    """The game service's listener that queues webhook events in the change's transaction."""

    def changed(self, store: Store, change: Change) -> None:
        """Queue ``move`` for a logged entry, and ``end`` once the game is over (or aborted)."""
        game = change.game
        if not game.hooks_stored:
            return
        if change.entry is not None:
            entry = log_entry(change.entry, [row.name for row in game.seats])
            body = {"event": "move", "game_id": game.id, **entry}
            store.queue_webhooks(game.id, "move", entry["seq"], body, entry["at"], MAX_PENDING)
        if game.status not in ("forming", "active"):
            body = {
                "event": "end",
                "game_id": game.id,
                "seq": game.seq,
                "status": game.status,
                "result": game.row.result,
            }
            at = game.row.updated_at
            store.queue_webhooks(game.id, "end", game.seq, body, at, MAX_PENDING)
