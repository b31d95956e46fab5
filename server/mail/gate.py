"""Who Turnpost may mail, so that nobody can use it to mail strangers.

Anyone may create a game and give any address as a player's email, so every
mail passes these checks before it enters the outbox (in the transaction
that causes it), in this order:

1. **Never mail me again.** An address whose owner followed the link at the
   end of every mail gets nothing more, for any game.
2. **Mail stopped for a seat.** A seat whose player stopped its mail (the
   one-click ``List-Unsubscribe`` of its mails, or the ``stop`` command) gets
   only the answers to mails it sends (confirmations, refusals, answers to
   commands), until it sends ``start``; it still plays on the web. A seat
   tied to a player follows the player's mail preference too
   (:mod:`server.notify.preferences`: a daily digest instead of turn mails, or
   no mail but those answers).
3. **One mail until the player acts.** A seat whose player has not acted in
   its game yet gets one mail for that game: the invitation, which is its
   first turn mail. The next one waits until the player acts, so a player who
   only ever uses email plays from that mail on. Only what proves the player
   reads the mailbox counts as acting: a reply carrying the seat's key, or the
   seat link of a mail opened in a browser. A move made with a seat token does
   not: the game's creator was handed every seat's token, and could otherwise
   play a stranger's seat to have Turnpost mail them every turn.
4. **Limits** over a sliding window, counted in the outbox (so they hold
   across processes): mails to one recipient, mails in the games created
   from one client address, invitations to one recipient, invitations in the
   games of one client, refusals of emailed moves to one seat, answers to
   mail commands to one seat. A recipient is
   counted by :func:`~server.mail.addresses.recipient_key` (case, ``+tag``, quotes and
   an IDNA domain do not make a new one); a client by
   :func:`~server.http.clients.client_key` (an IPv6 client by its ``/64``); games created
   from the command line have no client.

A mail that fails a check is not recorded; the move or event that caused it
happens all the same. :func:`withheld_when_sent` checks the first two again
when a queued mail is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from server.games.clock import format_time, parse_time
from server.mail.addresses import recipient_key
from server.mail.settings import MailSettings, rate
from server.notify.preferences import withheld_by_preference
from server.store.base import Store
from server.store.records import Seat

#: Mails that answer a mail the player sent: they go out even when the seat stopped its mail.
ANSWERS = frozenset({"accepted", "rejected", "answer"})
#: Why a seat whose player has not acted gets no second mail of a game.
UNANSWERED = "the player has not acted since the invitation"


@dataclass(frozen=True)
class Verdict:
    """Whether a mail may be recorded, and whether it is an invitation."""

    withheld: str | None
    invitation: bool


def judge(
    store: Store,
    settings: MailSettings,
    seat: Seat,
    kind: str,
    client: str | None,
    now: str,
) -> Verdict:
    """May ``seat`` (a seats row with an email) get a mail ``kind`` now?

    ``client`` is the address that created the game (``None`` or empty: no limit per client).
    """
    key = recipient_key(seat.email)
    stopped = withheld_when_sent(store, seat, kind, key)
    if stopped:
        return Verdict(stopped, False)
    invitation = seat.acted_at is None
    if invitation and store.outbox_count(at_most=1, game_id=seat.game_id, seat=seat.seat):
        return Verdict(UNANSWERED, True)
    rules: list[tuple[str, dict[str, Any]]] = [(settings.limit_address, {"rcpt_key": key})]
    if client:
        rules.append((settings.limit_client, {"client": client}))
    if invitation:
        rules.append((settings.invites_address, {"rcpt_key": key, "invitation": 1}))
        if client:
            rules.append((settings.invites_client, {"client": client, "invitation": 1}))
    for limited, limit in (("rejected", settings.refusals_seat), ("answer", settings.answers_seat)):
        if kind == limited:
            rules.append((limit, {"game_id": seat.game_id, "seat": seat.seat, "kind": kind}))
    for limit, where in rules:
        count, seconds = rate(limit)
        since = format_time(parse_time(now) - timedelta(seconds=seconds))
        if store.outbox_count(since, at_most=count, **where) >= count:
            return Verdict(f"over the limit of {limit} for {', '.join(where)}", invitation)
    return Verdict(None, invitation)


def withheld_when_sent(store: Store, seat: Seat, kind: str, key: str) -> str | None:
    """Why a mail ``kind`` to ``seat`` (recipient ``key``) must not go out now, or ``None``."""
    if store.mail_suppressed(key):
        return "the recipient asked never to be mailed again"
    if kind in ANSWERS:
        return None
    if seat.mail_stopped_at:
        return "the player stopped mail for this game"
    return withheld_by_preference(store, seat, kind)
