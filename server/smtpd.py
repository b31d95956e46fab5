"""``turnpost smtpd``: an SMTP or LMTP listener (aiosmtpd) feeding :mod:`server.inbound`.

Only ``play+...@<TURNPOST_MAIL_DOMAIN>`` recipients are accepted; every
accepted message is answered ``250`` once it is handled, whether the move
was applied or refused (the refusal goes to the seat by mail).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from server.inbound import MAX_MESSAGE_BYTES, describe, receive
from server.mail import MailSettings, Notifier
from server.service import GameService
from server.store import Store

log = logging.getLogger(__name__)


class InboundHandler:
    """aiosmtpd handler: accept reply addresses, hand each message to :func:`receive`."""

    def __init__(self, db_path: str, settings: MailSettings) -> None:
        self.db_path = db_path
        self.settings = settings

    async def handle_RCPT(  # noqa: N802 (aiosmtpd's hook name)
        self, server: Any, session: Any, envelope: Any, address: str, rcpt_options: list[str]
    ) -> str:
        """Accept only ``play+`` addresses of our mail domain."""
        local, _, domain = address.lower().rpartition("@")
        if not local.startswith("play+") or domain != self.settings.domain.lower():
            return "550 5.1.1 No such Turnpost address"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        """Handle the message in a worker thread (the store is synchronous)."""
        outcome = await asyncio.to_thread(
            self.deliver, envelope.original_content, list(envelope.rcpt_tos)
        )
        log.info("inbound mail: %s", describe(outcome))
        return "250 2.0.0 Handled"

    def deliver(self, raw: bytes, recipients: list[str]) -> Any:
        """Receive one message on a fresh store connection."""
        store = Store.open(self.db_path)
        try:
            return receive(
                raw, GameService(store, Notifier(self.settings)), self.settings, recipients
            )
        finally:
            store.close()


class InboundController(Controller):
    """An aiosmtpd controller speaking SMTP or LMTP."""

    def __init__(self, handler: InboundHandler, host: str, port: int, lmtp: bool = False) -> None:
        self.lmtp = lmtp
        super().__init__(handler, hostname=host, port=port, data_size_limit=MAX_MESSAGE_BYTES)

    def factory(self) -> SMTP:
        """An LMTP or SMTP protocol instance."""
        protocol = LMTP if self.lmtp else SMTP
        return protocol(self.handler, **self.SMTP_kwargs)
