"""What a game change tells the rest of the server: one :class:`Change`, one listener interface.

Every write of the game service (a game created, a move, a resignation or
forfeit, an abort) ends by handing a :class:`Change` to each of its
listeners, inside the same transaction: the mail notifier
(:class:`server.mail.outbox.Notifier`) queues turn mails, the webhook queue
(:class:`server.webhooks.queue.WebhookQueue`) queues deliveries (the app
wires the listeners: the game service knows none of them). Event streams
need no listener: they follow the committed log (:mod:`server.http.events`).
A message of the table talk (:mod:`server.games.talk`) is no game change and
queues nothing: streams follow the ``messages`` table too, and each mail tells
the messages posted since the seat's last one when it is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from server.games.game import Game
    from server.store.base import Store
    from server.store.records import LoggedMove


@dataclass(frozen=True)
class Change:
    """One change of a game, as its listeners see it.

    ``game`` is the game after the change; ``entry`` the log entry the
    change appended, with the game's ``result`` after it, or ``None`` for a
    change that logs nothing (a creation, an abort); ``mover`` the seat that
    moved; ``mail_message_id`` the mail a move came by (its mover gets a
    confirmation); ``waited`` the seats the game waited for before a move (``None``:
    a change that starts the game, or logs no move).
    """

    game: Game
    entry: LoggedMove | None = None
    mover: int | None = None
    mail_message_id: str | None = None
    waited: tuple[int, ...] | None = None


class Listener(Protocol):
    """Something that acts on every game change (called inside the change's write)."""

    def changed(self, store: Store, change: Change) -> None:
        """Record what ``change`` causes (mails, deliveries...) in ``store``."""
