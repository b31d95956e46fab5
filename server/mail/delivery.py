"""Deliver the outbox over SMTP, with retries and backoff.

``TURNPOST_SMTP_URL`` names the server:

- ``smtp://host:25`` plain SMTP (e.g. a local MTA),
- ``smtp+starttls://user:password@host:587`` STARTTLS, then AUTH,
- ``smtps://user:password@host:465`` SMTP over TLS.

Each row is claimed before it is sent (its next attempt moves one lease
ahead), so two workers never send the same row at once. A crash after the
SMTP server accepted a mail but before the row was marked sent resends that
mail once the lease ends, with the same Message-ID, so mail clients show it
once; no mail is lost. A row that cannot be built into a message (a poisoned
address or header), that fails to send for a reason other than the network or
the SMTP server, or whose recipient asked never to be mailed again, is marked
failed with its reason and never retried; it never holds up the rows behind it.

Every mail ends with a signed "never mail me again" link, also offered as a
one-click ``List-Unsubscribe`` header (RFC 8058). After
``TURNPOST_MAIL_RETENTION_DAYS`` a mail that is done (sent or failed) keeps
only its headers (:func:`forget_bodies`).

    >>> target = parse_smtp_url("smtp+starttls://ann:pw@mail.example.org")
    >>> target.port, target.security, target.username
    (587, 'starttls', 'ann')
"""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any
from urllib.parse import unquote, urlsplit

from server.games.clock import format_time, parse_time, utcnow
from server.mail.addresses import recipient_key, reply_address, unsubscribe_url
from server.mail.render import with_footer
from server.mail.settings import MailSettings
from server.store.sqlite import Store

#: Seconds a claimed row is left alone before another attempt may take it.
LEASE_SECONDS = 300
MAX_ATTEMPTS = 8
BATCH = 50
#: Headers given with :meth:`~email.message.Message.set_raw` go out unfolded (a long
#: ``List-Unsubscribe`` URL would otherwise be RFC 2047-encoded, which clients don't read).
OUTBOUND_POLICY = policy.default.clone(refold_source="none")
SCHEMES = {"smtp": ("plain", 25), "smtp+starttls": ("starttls", 587), "smtps": ("ssl", 465)}


@dataclass(frozen=True)
class SmtpTarget:
    """Where and how to connect for sending."""

    host: str
    port: int
    security: str
    username: str | None = None
    password: str | None = None


def parse_smtp_url(url: str) -> SmtpTarget:
    """An :class:`SmtpTarget` from ``smtp://``, ``smtp+starttls://`` or ``smtps://`` URLs."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise ValueError(f"unsupported SMTP URL {url!r}; use smtp://, smtp+starttls:// or smtps://")
    security, default_port = SCHEMES[parts.scheme]
    return SmtpTarget(
        host=parts.hostname,
        port=parts.port or default_port,
        security=security,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def backoff(attempts: int) -> timedelta:
    """Wait before the next attempt: 1, 2, 4... minutes, at most 6 hours."""
    return timedelta(seconds=min(60 * 2 ** max(attempts - 1, 0), 6 * 3600))


def build_message(
    row: dict[str, Any], settings: MailSettings, generation: int | None
) -> EmailMessage:
    """The multipart (text + HTML) message of an outbox row."""
    message = EmailMessage(policy=OUTBOUND_POLICY)
    message["From"] = settings.from_address
    message["To"] = row["to_addr"]
    message["Subject"] = row["subject"]
    message["Message-ID"] = row["message_id"]
    message["Date"] = format_datetime(parse_time(row["created_at"]))
    message["Auto-Submitted"] = "auto-generated"
    message.set_raw("List-Unsubscribe", f"<{unsubscribe_url(settings, row['to_addr'])}>")
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    if generation is not None:
        message["Reply-To"] = reply_address(settings, row["game_id"], row["seat"], generation)
    if row["in_reply_to"]:
        message["In-Reply-To"] = row["in_reply_to"]
        message["References"] = row["in_reply_to"]
    text, html = with_footer(settings, row["to_addr"], row["text"], row["html"])
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    return message


def connect(target: SmtpTarget, timeout: float = 30) -> smtplib.SMTP:
    """An SMTP connection, secured and logged in as ``target`` says."""
    if target.security == "ssl":
        smtp: smtplib.SMTP = smtplib.SMTP_SSL(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        smtp = smtplib.SMTP(target.host, target.port, timeout=timeout)
        if target.security == "starttls":
            smtp.starttls(context=ssl.create_default_context())
    if target.username:
        smtp.login(target.username, target.password or "")
    return smtp


def claim_due(store: Store, now: str) -> list[dict[str, Any]]:
    """Take the rows due at ``now`` for one lease; rows another worker took are skipped."""
    lease_end = format_time(parse_time(now) + timedelta(seconds=LEASE_SECONDS))
    return store.claim_due_mail(now, lease_end, BATCH)


def deliver_due(
    store: Store, settings: MailSettings, smtp_url: str, now: str | None = None
) -> tuple[int, int]:
    """Send every due outbox row; returns ``(sent, failed)``.

    Rows that failed for a network or SMTP reason are retried later; others never.
    """
    now = now or utcnow()
    rows = claim_due(store, now)
    if not rows:
        return 0, 0
    try:
        smtp = connect(parse_smtp_url(smtp_url))
    except (OSError, smtplib.SMTPException, ValueError) as error:
        for row in rows:
            _failed(store, row, now, f"connect: {error}")
        return 0, len(rows)
    with smtp:
        sent = sum(_send(store, settings, smtp, row, now) for row in rows)
    return sent, len(rows) - sent


def _send(
    store: Store, settings: MailSettings, smtp: smtplib.SMTP, row: dict[str, Any], now: str
) -> bool:
    """Send one claimed row; whether it was sent (a failure is recorded on the row)."""
    if store.mail_suppressed(recipient_key(row["to_addr"])):
        _failed(store, row, now, "the recipient asked never to be mailed again", retry=False)
        return False
    try:
        message = build_message(row, settings, _generation(store, row))
    except Exception as error:  # a poisoned row must not stop the rows behind it
        _failed(store, row, now, f"cannot build the message: {error!r}", retry=False)
        return False
    try:
        smtp.send_message(message)
    except (OSError, smtplib.SMTPException) as error:
        _failed(store, row, now, str(error))
        return False
    except Exception as error:  # e.g. an address smtplib cannot encode: retrying won't help
        _failed(store, row, now, f"cannot send the message: {error!r}", retry=False)
        return False
    store.mail_sent(row["id"], utcnow())
    return True


def _generation(store: Store, row: dict[str, Any]) -> int | None:
    """The seat's key generation for its reply address, or ``None`` for mail without a seat."""
    if row["seat"] is None:
        return None
    return store.mail_generation(row["game_id"], row["seat"])


def _failed(store: Store, row: dict[str, Any], now: str, error: str, retry: bool = True) -> None:
    """Record a failed attempt and when to try again (never after ``MAX_ATTEMPTS``)."""
    attempts = row["attempts"] + 1
    next_attempt = None
    if retry and attempts < MAX_ATTEMPTS:
        next_attempt = format_time(parse_time(now) + backoff(attempts))
    store.mail_failed(row["id"], error[:500], next_attempt)


def forget_bodies(store: Store, retention_days: float, now: str | None = None) -> int:
    """Empty the text and HTML of done mails created over ``retention_days`` ago; how many.

    A done mail was sent or will never be (failed for good); its headers stay
    (recipient, subject, Message-ID, In-Reply-To, dates), so replies to it
    still find their game and turn.
    """
    cutoff = format_time(parse_time(now or utcnow()) - timedelta(days=retention_days))
    return store.forget_mail_bodies(cutoff)
