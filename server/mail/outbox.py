"""The outbox: the mails a game change causes, queued in the same transaction as the change.

Mails are rows of the ``outbox`` table, written in the same transaction as
the move (or deadline, refusal or mail command) that caused them, so a
change and its mails land together or not at all. A row says what kind of
mail, for which seat, about which game and seq, and the few ``facts`` its
words need (a mailed notation, a refusal's reason); the mail itself is
rendered when it is sent (:mod:`server.mail.delivery`), with the sending
process's settings and the game as it is then. Each mail first passes the
mail gate (:mod:`server.mail.gate`): a mail it withholds is not recorded, and
the change happens all the same. The seat that moved on the page and must
decide again (a split turn) gets its turn mail later, so that it is dropped
when the seat goes on playing (:mod:`server.notify.presence`).
"""

from __future__ import annotations

import logging
from typing import Any

from engines.phrases import Words
from server.games.changes import Change
from server.games.clock import utcnow
from server.games.game import Game
from server.mail.addresses import pass_seat, recipient_key
from server.mail.gate import judge
from server.mail.settings import MailSettings
from server.notify.presence import at_the_table, news_due
from server.store.base import Store

log = logging.getLogger(__name__)


class Notifier:
    """Queues in the outbox the mails a game change causes (call inside the change's write).

    It listens to the game service (:meth:`changed`: turn mails, results,
    confirmations of mailed moves), which also calls :meth:`invite`; the clock
    calls :meth:`reminder`, inbound mail :meth:`refusal` and :meth:`answer`.
    """

    def __init__(self, settings: MailSettings) -> None:
        self.settings = settings

    def changed(self, store: Store, change: Change) -> None:
        """Confirm a move that came by mail to its mover, then :meth:`game_changed`."""
        entry = change.entry
        if change.mail_message_id is not None and entry is not None and change.mover is not None:
            self.move_accepted(
                store, change.game, change.mover, change.mail_message_id, entry.notation
            )
        self.game_changed(store, change.game, at_the_table(change))

    def game_changed(self, store: Store, game: Game, at_table: int | None = None) -> None:
        """ "Your turn" to each seat to move, or "game over" to every seat, with an email.

        The turn mail of the seat ``at_table`` is due later (:mod:`server.notify.presence`).
        """
        finished = game.status == "finished"
        for seat in game.seats:
            if seat.email and (finished or seat.seat in game.to_move):
                kind = "game_over" if finished else "turn"
                self._queue(store, game, seat.seat, kind, at_table=at_table)

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
        reason: Words,
        commands: bool = False,
    ) -> bool:
        """Tell ``seat`` why the move it mailed was not played (``commands``: list them too)."""
        return self._queue(
            store,
            game,
            seat,
            "rejected",
            message_id,
            notation=notation,
            reason=reason,
            commands=commands,
        )

    def answer(
        self, store: Store, game: Game, seat: int, message_id: str | None, **facts: Any
    ) -> bool:
        """Answer the mail command ``seat`` sent (``facts``: the command and its outcome)."""
        return self._queue(store, game, seat, "answer", message_id, **facts)

    def invite(self, store: Store, game: Game, seat: int) -> str | None:
        """Invite ``seat`` to ``game``; why the gate withheld the mail, or ``None`` if queued."""
        return self._record(store, game, seat, "invite", None, {})

    def seat_of_pass(self, store: Store, game_id: str, text: str) -> int | None:
        """The seat whose signed pass (the key of a mail's seat link) ``text`` is, or ``None``."""
        return pass_seat(self.settings, game_id, text, store.seat)

    def _queue(
        self,
        store: Store,
        game: Game,
        seat: int,
        kind: str,
        in_reply_to: str | None = None,
        at_table: int | None = None,
        **facts: Any,
    ) -> bool:
        """Record one mail ``kind`` to ``seat`` if it has an email and the gate lets it through
        (due later if ``seat`` is the one ``at_table``)."""
        return self._record(store, game, seat, kind, in_reply_to, facts, at_table) is None

    def _record(
        self,
        store: Store,
        game: Game,
        seat: int,
        kind: str,
        in_reply_to: str | None,
        facts: dict[str, Any],
        at_table: int | None = None,
    ) -> str | None:
        """:meth:`_queue`: why the mail was not recorded, or ``None`` if it was."""
        row = game.seats[seat]
        if not row.email:
            return "the seat has no address"
        now = utcnow()
        client = game.row.creator_client
        verdict = judge(store, self.settings, row, kind, client, now)
        if verdict.withheld:
            log.info("%s mail of game %s withheld: %s", kind, game.id, verdict.withheld)
            return verdict.withheld
        store.queue_mail(
            {
                "game_id": game.id,
                "seat": seat,
                "kind": kind,
                "to_addr": row.email,
                "facts": facts or None,
                "in_reply_to": in_reply_to,
                "seq": game.seq,
                "created_at": now,
                "next_attempt_at": news_due(seat, at_table, now),
                "rcpt_key": recipient_key(row.email),
                "client": client,
                "invitation": verdict.invitation,
            },
        )
        return None
