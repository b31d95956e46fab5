"""Who Turnpost may mail, so that nobody can use it to mail strangers.

Anyone may create a game and give any address as a player's email, so every
mail passes these checks before it enters the outbox (in the transaction
that causes it), in this order:

1. **Never mail me again.** An address whose owner followed the link at the
   end of every mail gets nothing more, for any game.
2. **One mail until the player acts.** A seat that has not acted in its game
   yet (moved, or answered a mail with its key) gets one mail for that game:
   the invitation, which is its first turn mail. The next one waits until the
   player acts, so a player who only ever uses email plays from that mail on.
3. **Limits** over a sliding window, counted in the outbox (so they hold
   across processes): mails to one recipient, mails in the games created
   from one client address, invitations to one recipient, invitations in the
   games of one client, refusals of emailed moves to one seat. A recipient is
   counted by :func:`~server.mail.addresses.recipient_key` (case and ``+tag`` do not make
   a new one); games created from the command line have no client.

A mail that fails a check is not recorded; the move or event that caused it
happens all the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from server.games.clock import format_time, parse_time
from server.mail.addresses import recipient_key
from server.mail.settings import MailSettings, rate
from server.store.sqlite import Store


@dataclass(frozen=True)
class Verdict:
    """Whether a mail may be recorded, and whether it is an invitation."""

    withheld: str | None
    invitation: bool


def judge(
    store: Store,
    settings: MailSettings,
    seat: dict[str, Any],
    kind: str,
    client: str | None,
    now: str,
) -> Verdict:
    """May ``seat`` (a seats row with an email) get a mail ``kind`` now?

    ``client`` is the address that created the game (``None`` or empty: no limit per client).
    """
    key = recipient_key(seat["email"])
    if store.mail_suppressed(key):
        return Verdict("the recipient asked never to be mailed again", False)
    invitation = seat["acted_at"] is None
    if invitation and store.outbox_count(at_most=1, game_id=seat["game_id"], seat=seat["seat"]):
        return Verdict("the player has not acted since the invitation", True)
    rules: list[tuple[str, dict[str, Any]]] = [(settings.limit_address, {"rcpt_key": key})]
    if client:
        rules.append((settings.limit_client, {"client": client}))
    if invitation:
        rules.append((settings.invites_address, {"rcpt_key": key, "invitation": 1}))
        if client:
            rules.append((settings.invites_client, {"client": client, "invitation": 1}))
    if kind == "rejected":
        where = {"game_id": seat["game_id"], "seat": seat["seat"], "kind": "rejected"}
        rules.append((settings.refusals_seat, where))
    for limit, where in rules:
        count, seconds = rate(limit)
        since = format_time(parse_time(now) - timedelta(seconds=seconds))
        if store.outbox_count(since, at_most=count, **where) >= count:
            return Verdict(f"over the limit of {limit} for {', '.join(where)}", invitation)
    return Verdict(None, invitation)
