"""Send the queued pushes: encrypted for the browser, signed with VAPID, within a deadline.

Each round claims at most :data:`BATCH` due pushes (their next attempt moves
one lease ahead, so two workers never send the same one at once) and:

1. **drops the stale ones**: a push whose game moved on or ended since it was
   queued says nothing true any more;
2. **posts the rest at once**, like webhooks (:mod:`server.webhooks.delivery`):
   to the checked address of the endpoint (its host resolved now, every
   address allowed by :func:`~server.push.subscriptions.push_destinations`),
   each within the webhooks' deadline, the message encrypted for the browser's
   keys (RFC 8291, ``aes128gcm``, with ``http_ece``) and signed with the
   server's VAPID key (RFC 8292: a JWT for the endpoint's origin, valid
   :data:`JWT_HOURS` hours); the push service keeps it :data:`TTL_SECONDS`
   for a browser that is offline;
3. **records the outcome**: a ``2xx`` is done; ``404`` or ``410`` means the
   browser's subscription is gone, so it is removed (with its pushes); a
   network error, the deadline, a ``5xx``, ``408``, ``425`` or ``429`` is tried
   again after 30 s, 1, 2, 4... minutes, :data:`MAX_ATTEMPTS` times in all;
   anything else gives it up. A push done or given up is forgotten.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from email.utils import parseaddr
from functools import partial

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

from schemas.push import unpadded
from server.games.clock import format_time, parse_time, utcnow
from server.push.subscriptions import check_endpoint
from server.store.base import Store, canonical_json
from server.store.records import ClaimedPush
from server.webhooks.delivery import (
    DEADLINE_SECONDS,
    Connections,
    Outcome,
    attempt_all,
    backoff,
    send,
)
from server.webhooks.destinations import Destinations, Refused

#: Seconds a claimed push is left alone before another attempt may take it.
LEASE_SECONDS = 120
MAX_ATTEMPTS = 5
#: Pushes claimed in a round.
BATCH = 8
#: How long the push service keeps a push for a browser that is offline.
TTL_SECONDS = 24 * 3600
#: How long the VAPID signature of a push is valid (RFC 8292 allows at most 24 hours).
JWT_HOURS = 12
#: Answers saying the browser's subscription is gone for good.
GONE = frozenset({404, 410})
USER_AGENT = "Turnpost-Push/1"


@dataclass(frozen=True)
class Sender:
    """What a push is signed and checked with: the VAPID key, a contact, the destination rules."""

    vapid: Vapid02
    #: Who runs this server, for push services (``mailto:`` the mail sender).
    contact: str
    destinations: Destinations


def contact_of(from_address: str) -> str:
    """The VAPID ``sub`` claim: a ``mailto:`` URL of the server's mail sender.

    >>> contact_of("Turnpost <turnpost@play.example.org>")
    'mailto:turnpost@play.example.org'
    """
    return f"mailto:{parseaddr(from_address)[1]}"


def encrypted(message: bytes, p256dh: str, auth: str) -> bytes:
    """``message`` encrypted for a browser's keys (RFC 8291, ``aes128gcm``, with ``http_ece``)
    under a key pair made for this push only."""
    return http_ece.encrypt(
        message,
        private_key=ec.generate_private_key(ec.SECP256R1()),
        dh=unpadded(p256dh),
        auth_secret=unpadded(auth),
        version="aes128gcm",
    )


def attempt(sender: Sender, row: ClaimedPush, watch: Connections) -> Outcome:
    """Encrypt, sign and post one claimed push (in a pool thread: no store here)."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    try:
        check_endpoint(sender.destinations, row.endpoint)
        target = watch.resolved(sender.destinations, row.endpoint, deadline)
    except Refused as error:
        return Outcome(error=f"refused: {error}", retry=False)
    except TimeoutError as error:
        return watch.failure(error, deadline)
    body = encrypted(canonical_json(row.payload).encode(), row.p256dh, row.auth)
    claims = {
        "aud": f"{target.scheme}://{target.host_header}",
        "sub": sender.contact,
        "exp": int(time.time()) + JWT_HOURS * 3600,
    }
    headers = {
        **sender.vapid.sign(claims),
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": str(TTL_SECONDS),
        "Urgency": "normal",
        "User-Agent": USER_AGENT,
    }
    return send(target, body, headers, deadline, watch)


def stale(store: Store, row: ClaimedPush) -> bool:
    """Whether the turn ``row`` tells of was played (or the game ended) since it was queued."""
    game = store.game(row.game_id)
    return (
        game is None
        or game.status != "active"
        or game.seq != row.seq
        or row.seat not in game.to_move
    )


def deliver_due(
    store: Store, sender: Sender, now: str | None = None, stop: threading.Event | None = None
) -> tuple[int, int]:
    """One round: drop the stale due pushes, post the others at once; ``(sent, failed)``.

    ``stop``, once set, cuts the pushes under way; the round then ends at once.
    """
    now = now or utcnow()
    lease_end = format_time(parse_time(now) + timedelta(seconds=LEASE_SECONDS))
    rows = []
    for row in store.claim_due_pushes(now, lease_end, BATCH):
        if stale(store, row):
            store.push_retry(row.id, None)
        else:
            rows.append(row)
    sent = 0
    for row, outcome in attempt_all(rows, partial(attempt, sender), stop):
        sent += record(store, row, outcome, now)
    return sent, len(rows) - sent


def record(store: Store, row: ClaimedPush, outcome: Outcome, now: str) -> bool:
    """Record an attempt's outcome (see the module docstring); whether the push was sent."""
    if outcome.status is not None and 200 <= outcome.status < 300:
        store.push_retry(row.id, None)
        return True
    if outcome.status in GONE:
        store.remove_push_subscription(row.subscription_id)
        return False
    attempts = row.attempts + 1
    retry = outcome.retry and attempts < MAX_ATTEMPTS
    store.push_retry(row.id, format_time(parse_time(now) + backoff(attempts)) if retry else None)
    return False
