"""Mail settings, read in one place from the environment of the process that uses them.

Every process that queues, renders, sends or receives mail (``serve``,
``worker``, ``send-mail``, ``mail-in``, ``smtpd``) builds its
:class:`MailSettings` the same way: :func:`environment_config` reads the
``TURNPOST_*`` variables into the app config when the app starts, and
:func:`settings_from_config` turns that config into settings. Mails are
rendered when they are sent, so the links and Message-IDs in a mail come
from the sending process's ``TURNPOST_BASE_URL`` and ``TURNPOST_MAIL_DOMAIN``.

    >>> MailSettings(secret="s3cret", domain="play.example.org").from_address
    'Turnpost <turnpost@play.example.org>'
    >>> config = {"SECRET_KEY": "s3cret", **environment_config({"TURNPOST_BASE_URL": "https://x/"})}
    >>> settings_from_config(config).base_url
    'https://x'
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

import limits

from schemas.api import LANGUAGES

#: The :class:`MailSettings` fields holding a limit.
LIMITS = (
    "limit_address",
    "limit_client",
    "invites_address",
    "invites_client",
    "refusals_seat",
    "answers_seat",
)
#: The fields an operator tunes, each with the config key (and variable) ``TURNPOST_MAIL_<NAME>``.
TUNABLE = (*LIMITS, "retention_days")
#: The other fields, each with its variable.
VARIABLES = {
    "base_url": "TURNPOST_BASE_URL",
    "domain": "TURNPOST_MAIL_DOMAIN",
    "sender": "TURNPOST_MAIL_FROM",
    "smtp_url": "TURNPOST_SMTP_URL",
    "imap_url": "TURNPOST_IMAP_URL",
    "language": "TURNPOST_LANGUAGE",
}
#: The scheme of ``TURNPOST_IMAP_URL`` (IMAP over TLS) and its port when none is given.
IMAP_SCHEME, IMAP_PORT = "imaps", 993


@dataclass(frozen=True)
class MailSettings:
    """What mail needs to know about the installation."""

    secret: str
    domain: str = "turnpost.localhost"
    base_url: str = "http://127.0.0.1:8000"
    sender: str = ""
    #: Where mail is sent (``smtp://``, ``smtp+starttls://``, ``smtps://``); empty: not sent.
    smtp_url: str = ""
    #: The mailbox replies are read from (``imaps://``, :func:`parse_imap_url`); empty: none.
    imap_url: str = ""
    #: Mails to one recipient, in ``limits``' notation (see :mod:`server.mail.gate`).
    limit_address: str = "200/day"
    #: Mails in the games created from one client address.
    limit_client: str = "500/day"
    #: Invitations (mails to a player who has not acted yet) to one recipient.
    invites_address: str = "5/day"
    #: Invitations in the games created from one client address.
    invites_client: str = "10/day"
    #: Refusals of emailed moves to one seat.
    refusals_seat: str = "5/hour"
    #: Answers to mail commands (``board``, ``help``...) to one seat.
    answers_seat: str = "10/hour"
    #: Days after which a sent mail keeps only its headers.
    retention_days: float = 30
    #: The language of pages and mails when the reader's is not known (``en``, ``nl``...).
    language: str = "en"

    def __post_init__(self) -> None:
        """Refuse a malformed limit or a negative retention when the app starts."""
        for name in LIMITS:
            rate(getattr(self, name))
        if self.retention_days < 0:
            raise ValueError("TURNPOST_MAIL_RETENTION_DAYS must be 0 or more")
        if self.imap_url:
            parse_imap_url(self.imap_url)
        if self.language not in LANGUAGES:
            raise ValueError(f"TURNPOST_LANGUAGE must be one of {', '.join(LANGUAGES)}")

    @property
    def from_address(self) -> str:
        """The From header of every mail."""
        return self.sender or f"Turnpost <turnpost@{self.domain}>"


def _defaults() -> dict[str, Any]:
    return {field.name: field.default for field in dataclasses.fields(MailSettings)}


def config_keys() -> dict[str, str]:
    """Each configurable field with its config key (the variable of the same name).

    >>> config_keys()["invites_address"], config_keys()["base_url"]
    ('TURNPOST_MAIL_INVITES_ADDRESS', 'TURNPOST_BASE_URL')
    """
    return {**VARIABLES, **{name: f"TURNPOST_MAIL_{name.upper()}" for name in TUNABLE}}


def environment_config(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The mail config keys from ``environ`` (default: this process's), with their defaults.

    >>> environment_config({})["TURNPOST_MAIL_INVITES_ADDRESS"]
    '5/day'
    """
    environ = os.environ if environ is None else environ
    defaults = _defaults()
    return {key: environ.get(key, defaults[name]) for name, key in config_keys().items()}


def settings_from_config(config: Mapping[str, Any]) -> MailSettings:
    """The :class:`MailSettings` of an app config (``SECRET_KEY`` and the mail keys)."""
    values = {name: config[key] for name, key in config_keys().items()}
    values["base_url"] = str(values["base_url"]).rstrip("/")
    values["retention_days"] = float(values["retention_days"])
    return MailSettings(secret=config["SECRET_KEY"], **values)


def rate(text: str) -> tuple[int, int]:
    """``(count, seconds)`` of a limit in ``limits``' notation; ``ValueError`` if malformed.

    >>> rate("5/hour"), rate("200 per day")
    ((5, 3600), (200, 86400))
    """
    item = limits.parse(text)
    return item.amount, item.get_expiry()


@dataclass(frozen=True)
class ImapTarget:
    """Where the replies' mailbox is and how to sign in to it."""

    host: str
    port: int
    username: str
    password: str = dataclasses.field(repr=False)
    mailbox: str = "INBOX"


def parse_imap_url(url: str) -> ImapTarget:
    """An :class:`ImapTarget` from ``imaps://USER:PASSWORD@HOST[:PORT][/MAILBOX]``; the user
    and password percent-encoded (``@`` is ``%40``); the mailbox ``INBOX`` when not given.

    >>> parse_imap_url("imaps://play%40club.example:s3cret@imap.example.org/Turnpost")
    ImapTarget(host='imap.example.org', port=993, username='play@club.example', mailbox='Turnpost')
    """
    parts = urlsplit(url)
    if parts.scheme != IMAP_SCHEME or not parts.hostname or not parts.username:
        raise ValueError(
            "TURNPOST_IMAP_URL: give imaps://USER:PASSWORD@HOST[:PORT][/MAILBOX]"
            " (IMAP over TLS; percent-encode an @ in the user name as %40)"
        )
    return ImapTarget(
        host=parts.hostname,
        port=parts.port or IMAP_PORT,
        username=unquote(parts.username),
        password=unquote(parts.password or ""),
        mailbox=unquote(parts.path.strip("/")) or "INBOX",
    )
