"""The outbox: the mails a game change causes, queued in the same transaction as the change.

Mails are rows of the ``outbox`` table, written in the same transaction as
the move (or deadline, or refusal) that caused them, so a change and its
mails land together or not at all; :mod:`server.mail.delivery` sends them
later over SMTP. Each mail first passes the mail gate (:mod:`server.mail.gate`):
a mail it withholds is not recorded, and the change happens all the same.
"""

from __future__ import annotations

import logging
from typing import Any

from server.games.clock import utcnow
from server.games.game import Game, game_object, log_entry
from server.mail.addresses import new_message_id, recipient_key
from server.mail.gate import judge
from server.mail.render import Mail, compose
from server.mail.settings import MailSettings
from server.store.sqlite import Store

#: How many recent moves a mail shows.
RECENT_MOVES = 6

log = logging.getLogger(__name__)


class Notifier:
    """Queues in the outbox the mails a game change causes (call inside the change's write).

    The game service calls :meth:`game_changed` and :meth:`move_accepted`;
    the clock :meth:`reminder`, and inbound mail :meth:`refusal`.
    """

    def __init__(self, settings: MailSettings) -> None:
        self.settings = settings

    def game_changed(self, store: Store, game: Game) -> None:
        """ "Your turn" to each seat to move, or "game over" to every seat, with an email."""
        if not any(seat["email"] for seat in game.seats):
            return
        recent = recent_moves(store, game)
        mails = []
        for seat in game.seats:
            if not seat["email"]:
                continue
            view = game_object(game, seat["seat"])
            if view["status"] == "finished":
                kind = "game_over"
            elif seat["seat"] in view["to_move"]:
                kind = "turn"
            else:
                continue
            legal = game.engine.legal_moves(game.state, seat["seat"]) if kind == "turn" else []
            mails.append(compose(kind, self.settings, game.engine, view, seat, recent, legal))
        for mail in mails:
            self._record(store, game, mail)

    def move_accepted(
        self, store: Store, game: Game, seat: int, message_id: str, notation: str
    ) -> bool:
        """Confirm to ``seat`` the move it mailed (``message_id``); whether it was queued."""
        return self._queue(store, game, seat, "accepted", message_id, notation=notation)

    def reminder(self, store: Store, game: Game, seat: int, expired: bool) -> bool:
        """Remind ``seat`` that it is its turn (``expired``: its deadline has passed)."""
        return self._queue(store, game, seat, "reminder", None, expired=expired)

    def refusal(
        self,
        store: Store,
        game: Game,
        seat: int,
        message_id: str | None,
        notation: str,
        reason: str,
    ) -> bool:
        """Tell ``seat`` why the move it mailed was not played."""
        return self._queue(
            store, game, seat, "rejected", message_id, notation=notation, reason=reason
        )

    def _queue(
        self,
        store: Store,
        game: Game,
        seat: int,
        kind: str,
        in_reply_to: str | None,
        **extra: Any,
    ) -> bool:
        """Record one mail ``kind`` to ``seat`` if it has an email and may get it."""
        row = game.seats[seat]
        if not row["email"]:
            return False
        view = game_object(game, seat)
        recent = recent_moves(store, game)
        mail = compose(kind, self.settings, game.engine, view, row, recent, **extra)
        mail.in_reply_to = in_reply_to
        return self._record(store, game, mail)

    def _record(self, store: Store, game: Game, mail: Mail) -> bool:
        """Put ``mail`` in the outbox unless :mod:`server.mail.gate` withholds it."""
        now = utcnow()
        client = game.row["creator_client"]
        seat = game.seats[mail.seat]
        verdict = judge(store, self.settings, seat, mail.kind, client, now)
        if verdict.withheld:
            log.info("%s mail of game %s withheld: %s", mail.kind, game.id, verdict.withheld)
            return False
        store.queue_mail(
            {
                "game_id": game.id,
                "seat": mail.seat,
                "kind": mail.kind,
                "to_addr": mail.to,
                "subject": mail.subject,
                "text": mail.text,
                "html": mail.html,
                "message_id": new_message_id(self.settings, mail.kind, game.id),
                "in_reply_to": mail.in_reply_to,
                "seq": game.seq,
                "created_at": now,
                "next_attempt_at": now,
                "rcpt_key": recipient_key(mail.to),
                "client": client,
                "invitation": int(verdict.invitation),
            },
        )
        return True


def recent_moves(store: Store, game: Game) -> list[dict[str, Any]]:
    """The last few public log entries of ``game``, for mails."""
    return [log_entry(row) for row in store.moves(game.id, after=max(0, game.seq - RECENT_MOVES))]
