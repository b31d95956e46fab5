"""``turnpost smtpd``: an SMTP or LMTP listener (aiosmtpd) feeding :mod:`server.mail.inbound`.

Only ``play+...@<TURNPOST_MAIL_DOMAIN>`` recipients are accepted. The message
is handled once for each accepted recipient, and each gets ``250`` once it is
handled, whether the move was applied or refused (the refusal goes to the
seat by mail). LMTP answers the end of the data once per recipient (RFC 2033),
SMTP once for all. A database that is busy or unavailable
(:class:`~server.store.base.StoreUnavailable`) answers ``451`` (the sender
retries); an unexpected error ``554``, without its details.
Messages over :data:`LISTENER_MAX_BYTES` are refused with ``552`` while they
arrive; smaller ones over :data:`~server.mail.inbound.MAX_MESSAGE_BYTES` get a
refusal by mail.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any, AnyStr

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from server.games.changes import Listener
from server.games.service import GameService
from server.mail.inbound import MAX_MESSAGE_BYTES, describe, receive
from server.mail.outbox import Notifier
from server.mail.settings import MailSettings
from server.store import open_store
from server.store.base import StoreUnavailable

#: The largest message the listener reads at all.
LISTENER_MAX_BYTES = 4 * MAX_MESSAGE_BYTES
HANDLED = "250 2.0.0 Handled"
BUSY = "451 4.3.0 Turnpost is busy, please try again later"
FAILED = "554 5.3.0 Turnpost could not handle this message"

log = logging.getLogger(__name__)


class InboundHandler:
    """aiosmtpd handler: accept reply addresses, hand each message to :func:`receive`."""

    def __init__(
        self, db_url: str, settings: MailSettings, listeners: Sequence[Listener] = ()
    ) -> None:
        self.db_url = db_url
        self.settings = settings
        #: Who hears of the moves mailed in besides the mail notifier (the app's listeners).
        self.listeners = listeners

    async def handle_RCPT(  # noqa: N802 (aiosmtpd's hook name)
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]
    ) -> str:
        """Accept only ``play+`` addresses of our mail domain."""
        local, _, domain = address.lower().rpartition("@")
        if not local.startswith("play+"):
            return "550 5.1.1 No such Turnpost address"
        if domain != self.settings.domain.lower():
            log.warning(
                "refused a reply address for the mail domain %s: TURNPOST_MAIL_DOMAIN is %s"
                " here; give every process (the worker too) the same TURNPOST_MAIL_DOMAIN",
                domain[:100],
                self.settings.domain,
            )
            return "550 5.1.1 No such Turnpost address"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        """Handle the message for each recipient in a worker thread (the store is synchronous)."""
        replies = [
            await asyncio.to_thread(self.deliver, envelope.original_content, recipient)
            for recipient in envelope.rcpt_tos
        ]
        if isinstance(server, LMTP):
            return "\r\n".join(replies)
        return next((reply for reply in replies if reply != HANDLED), HANDLED)

    async def handle_exception(self, error: Exception) -> str:
        """Any other failure of the session: logged here, never shown to the client."""
        log.error("SMTP session failed", exc_info=error)
        return FAILED

    def deliver(self, raw: bytes, recipient: str) -> str:
        """Receive one message for one recipient on a fresh store connection; the SMTP reply."""
        try:
            store = open_store(self.db_url)
            try:
                games = GameService(store, Notifier(self.settings), self.listeners)
                outcome = receive(raw, games, self.settings, [recipient])
            finally:
                store.close()
        except StoreUnavailable:
            log.warning("inbound mail deferred: database unavailable", exc_info=True)
            return BUSY
        except Exception:
            log.exception("inbound mail failed")
            return FAILED
        log.info("inbound mail: %s", describe(outcome))
        return HANDLED


class PerRecipientLMTP(LMTP):
    """LMTP that answers the end of the data once per recipient (RFC 2033, section 4.2).

    The handler gives one line per recipient; a single line (aiosmtpd's own
    refusal of a message too large, or a failure) is repeated for each.
    """

    answers_due = 0

    async def push(self, status: AnyStr) -> None:
        """Send ``status``; the first answer after the data goes once per recipient."""
        if isinstance(status, str) and status.startswith("354"):
            self.answers_due = len(self.envelope.rcpt_tos)
        elif self.answers_due and isinstance(status, str):
            lines = status.split("\r\n")
            status = "\r\n".join(lines if len(lines) > 1 else lines * self.answers_due)
            self.answers_due = 0
        await super().push(status)


class InboundController(Controller):
    """An aiosmtpd controller speaking SMTP or LMTP."""

    def __init__(self, handler: InboundHandler, host: str, port: int, lmtp: bool = False) -> None:
        self.lmtp = lmtp
        super().__init__(handler, hostname=host, port=port, data_size_limit=LISTENER_MAX_BYTES)

    def factory(self) -> SMTP:
        """An LMTP or SMTP protocol instance."""
        protocol = PerRecipientLMTP if self.lmtp else SMTP
        return protocol(self.handler, **self.SMTP_kwargs)
