"""Replies read from an ordinary mailbox over IMAP over TLS (``TURNPOST_IMAP_URL``).

A club without a mail server of its own gives Turnpost a mailbox at any
provider that receives the reply addresses (``play+...@TURNPOST_MAIL_DOMAIN``:
a ``play@`` account with sub-addressing, or a catch-all). The worker polls it
every round (``turnpost fetch-mail`` once): it reads each message not yet
handled, hands it to :func:`server.mail.inbound.receive` as the SMTP receiver
does, then deletes it from the mailbox. Give Turnpost a mailbox of its own.

Each message is handled at most once even when it is read again: a move is
known by the reply's Message-ID (its idempotency key), a command, refusal
or message by the Message-ID claimed before it runs. So a connection that
drops after a move was applied but before the message was deleted, or a
provider that delivers a message twice, applies nothing twice; the message
read again is answered ``duplicate`` and deleted. A message the database
cannot take now (busy, out of reach) stays for the next round; one that fails
for another reason is flagged (``\\Flagged``), left in the mailbox for the
operator, and skipped from then on. Only the first
:data:`~server.mail.inbound.MAX_MESSAGE_BYTES` (and a byte) of a message are
read: a larger one is refused by mail, unread.

The mailbox is named by ``TURNPOST_IMAP_URL``
(:func:`server.mail.settings.parse_imap_url`).
"""

from __future__ import annotations

import imaplib
import logging
import re
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from server.mail.inbound import MAX_MESSAGE_BYTES, Outcome
from server.mail.settings import ImapTarget
from server.store.base import StoreUnavailable

#: Seconds a connection waits for the IMAP server before it counts as lost.
TIMEOUT = 60
#: The messages one round reads at most (the next round reads on).
BATCH = 100
#: Messages still to handle: not handled (deleted) and not set aside (flagged) yet.
TO_HANDLE = "UNDELETED UNFLAGGED"
#: What one round reads of a message: its start, one byte past what Turnpost reads.
PART = f"(BODY.PEEK[]<0.{MAX_MESSAGE_BYTES + 1}>)"
#: The message number in a FETCH answer line.
FETCHED = re.compile(rb"^\d+ \(.*BODY\[\]")

log = logging.getLogger(__name__)


class MailboxError(Exception):
    """The mailbox could not be read this round (its message says why; try again later)."""


@dataclass
class FetchReport:
    """What one round did: each message's outcome, and how many were set aside."""

    outcomes: list[Outcome] = field(default_factory=list)
    set_aside: int = 0


def fetch_replies(
    target: ImapTarget,
    handle: Callable[[bytes], Outcome],
    stop: threading.Event | None = None,
) -> FetchReport:
    """Read the messages still to handle in the mailbox, ``handle`` each, delete the handled
    ones; :class:`MailboxError` if the mailbox cannot be reached or read (what was handled
    before stays handled). ``stop`` ends the round between two messages."""
    report = FetchReport()
    try:
        with imaplib.IMAP4_SSL(
            target.host, target.port, ssl_context=ssl.create_default_context(), timeout=TIMEOUT
        ) as imap:
            imap.login(target.username, target.password)
            _ok(imap.select(_quoted(target.mailbox)), f"mailbox {target.mailbox}")
            for uid in _to_handle(imap)[:BATCH]:
                if stop is not None and stop.is_set():
                    break
                _handle_one(imap, uid, handle, report)
            imap.expunge()
    except (imaplib.IMAP4.error, OSError) as error:  # ssl.SSLError is an OSError
        raise MailboxError(f"IMAP {target.host}:{target.port}: {error}") from error
    return report


def _to_handle(imap: imaplib.IMAP4) -> list[bytes]:
    """The UIDs of the messages still to handle, oldest first."""
    status, data = imap.uid("SEARCH", None, TO_HANDLE)
    _ok((status, data), "search")
    return data[0].split() if data and data[0] else []


def _handle_one(
    imap: imaplib.IMAP4, uid: bytes, handle: Callable[[bytes], Outcome], report: FetchReport
) -> None:
    """Fetch, handle and delete one message (a message the database cannot take now stays,
    one that fails otherwise is flagged)."""
    status, data = imap.uid("FETCH", uid, PART)
    _ok((status, data), "fetch")
    raw = _body(data)
    if raw is None:
        return  # gone meanwhile (another client deleted it)
    try:
        outcome = handle(raw)
    except StoreUnavailable:
        raise
    except Exception:
        log.exception("a reply in the mailbox could not be handled; it is flagged")
        imap.uid("STORE", uid, "+FLAGS.SILENT", r"(\Flagged)")
        report.set_aside += 1
        return
    imap.uid("STORE", uid, "+FLAGS.SILENT", r"(\Seen \Deleted)")
    report.outcomes.append(outcome)


def _body(data: list) -> bytes | None:
    """The message bytes of a FETCH answer, or ``None`` if it has none."""
    for item in data:
        if isinstance(item, tuple) and FETCHED.match(item[0]):
            return item[1]
    return None


def _ok(answer: tuple[str, list], what: str) -> None:
    """Raise :class:`imaplib.IMAP4.error` unless the server answered ``OK``."""
    status, data = answer
    if status != "OK":
        raise imaplib.IMAP4.error(f"{what}: {status} {data!r}")


def _quoted(mailbox: str) -> str:
    """A mailbox name as an IMAP quoted string."""
    return '"' + mailbox.replace("\\", "\\\\").replace('"', '\\"') + '"'
