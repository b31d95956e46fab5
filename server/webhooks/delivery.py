"""Deliver queued webhook events: signed POSTs, several at once, each within a deadline.

**Rounds.** :func:`deliver_due` claims at most :data:`BATCH` due deliveries,
fairly: the oldest of each webhook only (so a webhook's events go out one at
a time, in order), none of a webhook resting after a failure, and games take
turns (every game's oldest due delivery first, then every game's second...),
so a game with a flood of events cannot keep another game's waiting. It
posts them at once from :data:`POOL_SIZE` threads and records each outcome.
A claimed delivery's next attempt moves one lease ahead, so two workers never
post the same one at once.

**Deadline.** A delivery has :data:`DEADLINE_SECONDS` in all, by the wall
clock: resolving the host name, connecting, the TLS handshake, sending, the
answer's status and headers, and at most :data:`MAX_ANSWER_BYTES` of its
body. At the deadline its connection is cut in whatever step it is (a
receiver that drops the connection's first packets, never answers the
handshake, or answers a byte at a time cannot hold it longer): without a
status the delivery fails, to be tried again like a network error; with one,
the status decides. A stop (the worker's ``SIGTERM``) cuts every connection
under way at once, in every step. The system resolver cannot be interrupted,
so a name is looked up in a thread of its own that nobody waits for past the
deadline or a stop.

**Outcomes.** A ``2xx`` answer marks it delivered. A network error, a
deadline passed, a ``5xx``, ``408``, ``425`` or ``429`` is retried after 30 s,
1, 2, 4... minutes (at most an hour), :data:`MAX_ATTEMPTS` times in all, and
its webhook rests until then: its other deliveries wait behind it, so a slow
or failing receiver costs one attempt per backoff rather than one per event.
Any other answer (the receiver refuses it), a destination the rules refuse
(:mod:`server.webhooks.destinations`) or a removed webhook fails it for good.
Redirects are not followed.

**Backlog.** A webhook keeps at most :data:`MAX_PENDING` deliveries pending
(neither delivered nor failed for good). When one more event comes for a
webhook that has that many, its pending ``move`` events are dropped (``end``
events never are), and the new event's body carries ``"missed": {"from_seq":
A, "to_seq": B}``: the ``move`` events with seqs from A to B may not all
reach this webhook (those already posted, or under way, still may); the
receiver reads them from ``GET /api/v1/games/{id}/moves``. A dropped event
that itself carried ``missed`` passes its range on.

**Signature and duplicates.** Every request carries ``Turnpost-Delivery``
(the delivery's id, the same on each retry of it) and
``Turnpost-Signature: t=<unix time>,v2=<hex>``, where ``v2`` is the
HMAC-SHA256, keyed with the webhook's secret, of ``"<t>.<delivery id>.<body>"``
(the raw body bytes). A receiver recomputes it, compares in constant time,
refuses a ``t`` more than a few minutes old, and does its work once per
delivery id (a receiver may see a delivery twice: a crash between its answer
and the record, or an answer later than the deadline):

    >>> body = b'{"event": "move"}'
    >>> header = signature_header("whsec_test", "42", body, 1700000000)
    >>> header.startswith("t=1700000000,v2=")
    True
    >>> verify("whsec_test", "42", body, header, now=1700000100)
    True
    >>> verify("whsec_test", "43", body, header, now=1700000100)
    False
    >>> verify("whsec_test", "42", body + b" ", header, now=1700000100)
    False
"""

from __future__ import annotations

import hashlib
import hmac
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import timedelta
from functools import cache, partial
from http.client import HTTPConnection, HTTPException
from queue import Empty, SimpleQueue
from typing import TypeVar

from server.games.clock import format_time, parse_time, utcnow
from server.store.base import Store, canonical_json
from server.store.records import ClaimedDelivery, WebhookDelivery
from server.webhooks.destinations import Destinations, Refused, Target

#: Seconds a claimed delivery is left alone before another attempt may take it.
LEASE_SECONDS = 120
MAX_ATTEMPTS = 10
#: Deliveries posted at once; a round claims as many, so it lasts one deadline at most.
POOL_SIZE = 8
BATCH = POOL_SIZE
#: Deliveries of one webhook claimed in one round: one, so a webhook's events go in order.
PER_WEBHOOK = 1
#: Deliveries a webhook keeps pending before its oldest ``move`` events are dropped.
MAX_PENDING = 50
#: Seconds a delivery may take in all (lookup, connection, TLS, request, answer).
DEADLINE_SECONDS = 10.0
#: The most of an answer's body read (its status decides).
MAX_ANSWER_BYTES = 64 * 1024
#: How often a round looks for connections past their deadline, and for a stop.
WATCH_SECONDS = 0.2
#: Statuses worth trying again later; any other non-2xx is final.
RETRY_STATUSES = frozenset({408, 425, 429})
#: How old a signature a receiver should accept (what the docs advise).
SIGNATURE_TOLERANCE_SECONDS = 300
USER_AGENT = "Turnpost-Webhooks/1"
#: A claimed row to post (a webhook delivery, a push).
Claimed = TypeVar("Claimed")


def webhook_secret(key: str, game_id: str, webhook_id: int) -> str:
    """The signing secret of a webhook, derived from the server's key (never stored).

    >>> webhook_secret("k", "g1", 1) == webhook_secret("k", "g1", 1) != webhook_secret("k", "g1", 2)
    True
    """
    digest = hmac.new(key.encode(), f"webhook:{game_id}:{webhook_id}".encode(), hashlib.sha256)
    return "whsec_" + digest.hexdigest()


def signature_header(secret: str, delivery: str, body: bytes, timestamp: int) -> str:
    """``t=<timestamp>,v2=<HMAC-SHA256 of "<timestamp>.<delivery>.<body>">``."""
    signed = f"{timestamp}.{delivery}.".encode() + body
    return f"t={timestamp},v2={hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()}"


def verify(secret: str, delivery: str, body: bytes, header: str, now: float | None = None) -> bool:
    """Whether ``header`` signs ``delivery`` and ``body`` with ``secret`` recently (a receiver's
    check)."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(fields["t"])
    except (KeyError, ValueError):
        return False
    if abs((now or time.time()) - timestamp) > SIGNATURE_TOLERANCE_SECONDS:
        return False
    expected = signature_header(secret, delivery, body, timestamp).rsplit("v2=", 1)[1]
    return hmac.compare_digest(expected, fields.get("v2", ""))


def backoff(attempts: int) -> timedelta:
    """Wait before the next attempt: 30 s, 1, 2, 4... minutes, at most an hour."""
    return timedelta(seconds=min(30 * 2 ** max(attempts - 1, 0), 3600))


def wire_body(row: WebhookDelivery) -> bytes:
    """The body posted for a delivery (canonical JSON): its event, with ``missed`` if events
    were dropped."""
    if row.missed_from_seq is None:
        return canonical_json(row.body).encode()
    missed = {"from_seq": row.missed_from_seq, "to_seq": row.missed_to_seq}
    return canonical_json({**row.body, "missed": missed}).encode()


class Connections:
    """The connections of a round's deliveries: cut at their deadline, or all on a stop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: dict[socket.socket, float] = {}
        #: Whether the round was stopped (its cut connections failed for that reason).
        self.stopped = False

    @contextmanager
    def watched(self, sock: socket.socket, deadline: float) -> Iterator[None]:
        """Let :meth:`cut` shut ``sock`` at ``deadline`` (``time.monotonic()``) in this block,
        in every step: connecting, the TLS handshake, the request and the answer.

        A duplicate of ``sock`` is watched: wrapping it in TLS leaves that one open.
        """
        handle = sock.dup()
        with self._lock:
            self._open[handle] = deadline
        try:
            yield
        finally:
            with self._lock:
                del self._open[handle]
            handle.close()

    def cut(self, stop: bool = False) -> None:
        """Shut the connections past their deadline, or every one if ``stop``."""
        now = time.monotonic()
        with self._lock:
            self.stopped = self.stopped or stop
            for handle, deadline in self._open.items():
                if stop or now >= deadline:
                    # wakes a blocked connect (its SYNs unanswered), handshake or read
                    with suppress(OSError):
                        handle.shutdown(socket.SHUT_RDWR)

    def resolved(self, destinations: Destinations, url: str, deadline: float) -> Target:
        """``destinations.resolve(url)`` before ``deadline`` and any stop; :class:`Refused`,
        or :class:`TimeoutError` when the lookup was not waited for any longer.

        The system resolver cannot be interrupted: the lookup runs in a daemon thread of its
        own, left to end by itself once nobody waits for it.
        """
        answer: SimpleQueue[Target | Refused] = SimpleQueue()

        def look_up() -> None:
            try:
                answer.put(destinations.resolve(url))
            except Refused as refused:
                answer.put(refused)

        threading.Thread(target=look_up, name="resolve", daemon=True).start()
        while not self.stopped and (left := deadline - time.monotonic()) > 0:
            with suppress(Empty):
                found = answer.get(timeout=min(left, WATCH_SECONDS))
                if isinstance(found, Refused):
                    raise found
                return found
        raise TimeoutError("the host name was not resolved in time")

    def failure(self, error: Exception, deadline: float) -> Outcome:
        """What an attempt that raised ``error`` (a network error, or cut) comes to: tried
        again, saying whether the round stopped, the deadline passed, or what went wrong."""
        if self.stopped:
            return Outcome(error="the worker stopped during the delivery")
        if time.monotonic() >= deadline:
            return Outcome(error=f"no answer within {DEADLINE_SECONDS:g} s")
        return Outcome(error=f"{type(error).__name__}: {error}")


@cache
def tls_context() -> ssl.SSLContext:
    """How an ``https`` receiver is checked: the system's trusted certificates and the host
    name (``SSL_CERT_FILE`` names others)."""
    return ssl.create_default_context()


def post(
    target: Target, body: bytes, headers: dict[str, str], deadline: float, watch: Connections
) -> int:
    """POST ``body`` to the checked address of ``target`` before ``deadline``; the status.

    The connection goes to ``target.address``; the host name is sent in
    ``Host`` and, over TLS, for SNI and the certificate check.
    """
    family = socket.AF_INET6 if ":" in target.address else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock, watch.watched(sock, deadline):
        sock.settimeout(max(deadline - time.monotonic(), 0.001))  # the watch cuts it on time
        sock.connect((target.address, target.port))
        conn = HTTPConnection(target.address, target.port)
        conn.sock = sock  # connected here, so the watch can cut the connecting too
        try:
            if target.scheme == "https":
                conn.sock = tls_context().wrap_socket(sock, server_hostname=target.host)
            conn.request("POST", target.path, body, {**headers, "Host": target.host_header})
            answer = conn.getresponse()
            with suppress(HTTPException, OSError):  # the status decides
                answer.read(MAX_ANSWER_BYTES)
            return answer.status
        finally:
            conn.close()


@dataclass(frozen=True)
class Outcome:
    """What one attempt came to: the receiver's status, or why it failed (and if for good)."""

    status: int | None = None
    error: str | None = None
    retry: bool = True


def attempt(
    key: str, destinations: Destinations, row: ClaimedDelivery, watch: Connections
) -> Outcome:
    """Post one claimed delivery (in a pool thread: no store here); its outcome."""
    deadline = time.monotonic() + DEADLINE_SECONDS
    if row.removed_at is not None:
        return Outcome(error="the webhook was removed", retry=False)
    try:
        target = watch.resolved(destinations, row.url, deadline)
    except Refused as error:
        return Outcome(error=f"refused: {error}", retry=False)
    except TimeoutError as error:
        return watch.failure(error, deadline)
    body = wire_body(row)
    delivery = str(row.id)
    secret = webhook_secret(key, row.game_id, row.webhook_id)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Turnpost-Event": row.event,
        "Turnpost-Delivery": delivery,
        "Turnpost-Signature": signature_header(secret, delivery, body, int(time.time())),
    }
    return send(target, body, headers, deadline, watch)


def send(
    target: Target, body: bytes, headers: dict[str, str], deadline: float, watch: Connections
) -> Outcome:
    """:func:`post`, and what its answer means: a ``2xx`` is done; a network error, the
    deadline passed, a ``5xx``, ``408``, ``425`` or ``429`` are worth retrying; any other
    answer refuses it for good."""
    try:
        status = post(target, body, headers, deadline, watch)
    except (HTTPException, OSError) as error:
        return watch.failure(error, deadline)
    if 200 <= status < 300:
        return Outcome(status)
    retry = status >= 500 or status in RETRY_STATUSES
    return Outcome(status, f"the receiver answered {status}", retry)


def deliver_due(
    store: Store,
    key: str,
    destinations: Destinations,
    now: str | None = None,
    stop: threading.Event | None = None,
) -> tuple[int, int]:
    """One round: claim the due deliveries fairly and post them at once; ``(delivered, failed)``.

    ``stop``, once set, cuts the deliveries under way; the round then ends at once.
    """
    now = now or utcnow()
    lease_end = format_time(parse_time(now) + timedelta(seconds=LEASE_SECONDS))
    rows = store.claim_due_webhooks(now, lease_end, BATCH, PER_WEBHOOK)
    if not rows:
        return 0, 0
    delivered = 0
    for row, outcome in attempt_all(rows, partial(attempt, key, destinations), stop):
        delivered += record(store, row, outcome, now)
    return delivered, len(rows) - delivered


def attempt_all(
    rows: list[Claimed],
    attempt: Callable[[Claimed, Connections], Outcome],
    stop: threading.Event | None = None,
) -> Iterator[tuple[Claimed, Outcome]]:
    """Run ``attempt`` on every row at once, from :data:`POOL_SIZE` threads; each row with
    its outcome as soon as it is known.

    Connections past their deadline are cut; once ``stop`` is set, every one is.
    """
    watch = Connections()
    with ThreadPoolExecutor(POOL_SIZE, thread_name_prefix="post") as pool:
        claimed = {pool.submit(attempt, row, watch): row for row in rows}
        pending = set(claimed)
        while pending:
            done, pending = wait(pending, timeout=WATCH_SECONDS)
            watch.cut(stop=stop is not None and stop.is_set())
            for future in done:
                yield claimed[future], future.result()


def record(store: Store, row: ClaimedDelivery, outcome: Outcome, now: str) -> bool:
    """Record an attempt's outcome; whether it was delivered.

    A failure is tried again after :func:`backoff`, never after :data:`MAX_ATTEMPTS`.
    """
    if outcome.status is not None and 200 <= outcome.status < 300:
        store.webhook_delivered(row.id, utcnow(), outcome.status)
        return True
    attempts = row.attempts + 1
    next_attempt = None
    if outcome.retry and attempts < MAX_ATTEMPTS:
        next_attempt = format_time(parse_time(now) + backoff(attempts))
    store.webhook_failed(row.id, (outcome.error or "")[:500], next_attempt, outcome.status)
    return False
