"""Deliver queued webhook events: signed POSTs, retries with backoff, refused destinations.

Each delivery is claimed before it is posted (its next attempt moves one
lease ahead), so two workers never post the same one at once. A ``2xx``
answer marks it delivered. A network error, a timeout, a ``5xx``, ``408``,
``425`` or ``429`` is retried after 30 s, 1, 2, 4... minutes (at most an
hour), :data:`MAX_ATTEMPTS` times in all; any other answer (the receiver
refuses it), a destination the rules refuse (:mod:`server.webhooks.destinations`)
or a removed webhook fails it for good. Redirects are not followed. A
receiver may see an event twice (a crash between its answer and the
record): ``Turnpost-Delivery`` identifies it.

**Signature.** Every request carries ``Turnpost-Signature: t=<unix time>,v1=<hex>``
where ``v1`` is the HMAC-SHA256, keyed with the webhook's secret, of
``"<t>.<body>"`` (the raw body bytes). A receiver recomputes it, compares in
constant time and refuses a ``t`` more than a few minutes old:

    >>> body = b'{"event": "move"}'
    >>> header = signature_header("whsec_test", body, 1700000000)
    >>> header.startswith("t=1700000000,v1=")
    True
    >>> verify("whsec_test", body, header, now=1700000100)
    True
    >>> verify("whsec_test", body + b" ", header, now=1700000100)
    False
"""

from __future__ import annotations

import hashlib
import hmac
import time
from datetime import timedelta
from typing import Any

import urllib3
from urllib3.exceptions import HTTPError

from server.games.clock import format_time, parse_time, utcnow
from server.store.sqlite import Store
from server.webhooks.destinations import Destinations, Refused, Target

#: Seconds a claimed delivery is left alone before another attempt may take it.
LEASE_SECONDS = 120
MAX_ATTEMPTS = 10
BATCH = 50
#: Seconds to connect, and to wait for the answer.
CONNECT_SECONDS = 5.0
READ_SECONDS = 10.0
#: Statuses worth trying again later; any other non-2xx is final.
RETRY_STATUSES = frozenset({408, 425, 429})
#: How old a signature a receiver should accept (what the docs advise).
SIGNATURE_TOLERANCE_SECONDS = 300
USER_AGENT = "Turnpost-Webhooks/1"


def webhook_secret(key: str, game_id: str, webhook_id: int) -> str:
    """The signing secret of a webhook, derived from the server's key (never stored).

    >>> webhook_secret("k", "g1", 1) == webhook_secret("k", "g1", 1) != webhook_secret("k", "g1", 2)
    True
    """
    digest = hmac.new(key.encode(), f"webhook:{game_id}:{webhook_id}".encode(), hashlib.sha256)
    return "whsec_" + digest.hexdigest()


def signature_header(secret: str, body: bytes, timestamp: int) -> str:
    """``t=<timestamp>,v1=<HMAC-SHA256 of "<timestamp>.<body>">``."""
    signed = f"{timestamp}.".encode() + body
    return f"t={timestamp},v1={hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()}"


def verify(secret: str, body: bytes, header: str, now: float | None = None) -> bool:
    """Whether ``header`` signs ``body`` with ``secret`` recently (what a receiver does)."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(fields["t"])
    except (KeyError, ValueError):
        return False
    if abs((now or time.time()) - timestamp) > SIGNATURE_TOLERANCE_SECONDS:
        return False
    expected = signature_header(secret, body, timestamp).rsplit("v1=", 1)[1]
    return hmac.compare_digest(expected, fields.get("v1", ""))


def backoff(attempts: int) -> timedelta:
    """Wait before the next attempt: 30 s, 1, 2, 4... minutes, at most an hour."""
    return timedelta(seconds=min(30 * 2 ** max(attempts - 1, 0), 3600))


def post(target: Target, body: bytes, headers: dict[str, str]) -> int:
    """POST ``body`` to the checked address of ``target``; the answer's status.

    The connection goes to ``target.address``; the host name is sent in
    ``Host`` and, over TLS, for SNI and the certificate check.
    """
    timeout = urllib3.Timeout(connect=CONNECT_SECONDS, read=READ_SECONDS)
    options: dict[str, Any] = {"timeout": timeout, "retries": False, "maxsize": 1}
    if target.scheme == "https":
        options.update(server_hostname=target.host, assert_hostname=target.host)
        pool: urllib3.HTTPConnectionPool = urllib3.HTTPSConnectionPool(
            target.address, target.port, cert_reqs="CERT_REQUIRED", **options
        )
    else:
        pool = urllib3.HTTPConnectionPool(target.address, target.port, **options)
    with pool:
        answer = pool.urlopen(
            "POST",
            target.path,
            body=body,
            headers={**headers, "Host": target.host_header},
            redirect=False,
            assert_same_host=False,
            preload_content=False,
        )
        answer.read(64 * 1024)  # enough to reuse nothing: the pool closes with the block
        answer.release_conn()
        return answer.status


def deliver_due(
    store: Store, key: str, destinations: Destinations, now: str | None = None
) -> tuple[int, int]:
    """Post every due delivery; ``(delivered, failed)`` (failed now, retried or not)."""
    now = now or utcnow()
    lease_end = format_time(parse_time(now) + timedelta(seconds=LEASE_SECONDS))
    rows = store.claim_due_webhooks(now, lease_end, BATCH)
    delivered = sum(_deliver(store, key, destinations, row, now) for row in rows)
    return delivered, len(rows) - delivered


def _deliver(
    store: Store, key: str, destinations: Destinations, row: dict[str, Any], now: str
) -> bool:
    """Post one claimed delivery; whether it was delivered (a failure is recorded on it)."""
    if row["removed_at"] is not None:
        _failed(store, row, now, "the webhook was removed", retry=False)
        return False
    try:
        target = destinations.resolve(row["url"])
    except Refused as error:
        _failed(store, row, now, f"refused: {error}", retry=False)
        return False
    body = row["body"].encode()
    secret = webhook_secret(key, row["game_id"], row["webhook_id"])
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Turnpost-Event": row["event"],
        "Turnpost-Delivery": str(row["id"]),
        "Turnpost-Signature": signature_header(secret, body, int(time.time())),
    }
    try:
        status = post(target, body, headers)
    except (HTTPError, OSError) as error:
        _failed(store, row, now, f"{type(error).__name__}: {error}")
        return False
    if 200 <= status < 300:
        store.webhook_delivered(row["id"], utcnow(), status)
        return True
    retry = status >= 500 or status in RETRY_STATUSES
    _failed(store, row, now, f"the receiver answered {status}", retry=retry, status=status)
    return False


def _failed(
    store: Store,
    row: dict[str, Any],
    now: str,
    error: str,
    retry: bool = True,
    status: int | None = None,
) -> None:
    """Record a failed attempt and when to try again (never after :data:`MAX_ATTEMPTS`)."""
    attempts = row["attempts"] + 1
    next_attempt = None
    if retry and attempts < MAX_ATTEMPTS:
        next_attempt = format_time(parse_time(now) + backoff(attempts))
    store.webhook_failed(row["id"], error[:500], next_attempt, status)
