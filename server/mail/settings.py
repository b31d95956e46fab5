"""Mail settings: where mail comes from, the limits of the mail gate, how long bodies are kept.

The app builds one :class:`MailSettings` from its config (``TURNPOST_MAIL_*``).

    >>> MailSettings(secret="s3cret", domain="play.example.org").from_address
    'Turnpost <turnpost@play.example.org>'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import limits

#: The :class:`MailSettings` fields holding a limit.
LIMITS = ("limit_address", "limit_client", "invites_address", "invites_client", "refusals_seat")
#: The fields an operator tunes, each with the config key (and variable) ``TURNPOST_MAIL_<NAME>``.
TUNABLE = (*LIMITS, "retention_days")


@dataclass(frozen=True)
class MailSettings:
    """What outbound mail needs to know about the installation."""

    secret: str
    domain: str = "turnpost.localhost"
    base_url: str = "http://127.0.0.1:8000"
    sender: str = ""
    #: Mails to one recipient, in Flask-Limiter notation (see :mod:`server.mail.gate`).
    limit_address: str = "200/day"
    #: Mails in the games created from one client address.
    limit_client: str = "500/day"
    #: Invitations (mails to a player who has not acted yet) to one recipient.
    invites_address: str = "10/day"
    #: Invitations in the games created from one client address.
    invites_client: str = "20/day"
    #: Refusals of emailed moves to one seat.
    refusals_seat: str = "5/hour"
    #: Days after which a sent mail keeps only its headers.
    retention_days: float = 30

    def __post_init__(self) -> None:
        """Refuse a malformed limit or a negative retention when the app starts."""
        for name in LIMITS:
            rate(getattr(self, name))
        if self.retention_days < 0:
            raise ValueError("TURNPOST_MAIL_RETENTION_DAYS must be 0 or more")

    @property
    def from_address(self) -> str:
        """The From header of every mail."""
        return self.sender or f"Turnpost <turnpost@{self.domain}>"


def tunable_defaults() -> dict[str, Any]:
    """The config keys of the :data:`TUNABLE` settings with their defaults.

    >>> tunable_defaults()["TURNPOST_MAIL_INVITES_ADDRESS"]
    '10/day'
    """
    defaults = {field.name: field.default for field in dataclasses.fields(MailSettings)}
    return {f"TURNPOST_MAIL_{name.upper()}": defaults[name] for name in TUNABLE}


def rate(text: str) -> tuple[int, int]:
    """``(count, seconds)`` of a limit in Flask-Limiter notation; ``ValueError`` if malformed.

    >>> rate("5/hour"), rate("200 per day")
    ((5, 3600), (200, 86400))
    """
    item = limits.parse(text)
    return item.amount, item.get_expiry()
