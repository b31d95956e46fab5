"""The mail domain and secret key that mail was sent with, kept in the database for the others.

A reply address (``play+<game>.<seat>.<key>@<domain>``) is made by the
process that sends the mail (the worker, or ``send-mail``) from its
``TURNPOST_MAIL_DOMAIN`` and ``TURNPOST_SECRET_KEY``, and checked by the one
that receives the reply (``smtpd``, ``mail-in``) with its own; the links in
mails are checked by the app server with its key. When they differ, replies
are dropped and links refused, so the sender records what it used
(:func:`record_sender`) and the others compare (:func:`sender_of_mail`): the
domain as it is, the key as a fingerprint that does not give it away.

    >>> fingerprint("s3cret") == fingerprint("s3cret") != fingerprint("other")
    True
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

from server.mail.settings import MailSettings
from server.store.base import SettingsStore

#: The setting that holds the last sender's :class:`Sender`, as JSON.
SENDER_SETTING = "mail_sender"


def fingerprint(secret: str) -> str:
    """A short fingerprint of a secret key: equal keys, equal fingerprints; the key is not
    found from it (an HMAC of a fixed text under the key)."""
    return hmac.new(secret.encode(), b"turnpost secret key", hashlib.sha256).hexdigest()[:16]


@dataclass(frozen=True)
class Sender:
    """What the process that last sent mail used: its mail domain, its key's fingerprint,
    its command (``worker``, ``send-mail``) and when it started."""

    domain: str
    key: str
    process: str
    at: str

    def same_domain(self, settings: MailSettings) -> bool:
        """Whether ``settings`` make reply addresses for this sender's domain."""
        return self.domain.lower() == settings.domain.lower()

    def same_key(self, settings: MailSettings) -> bool:
        """Whether ``settings`` hold this sender's secret key."""
        return hmac.compare_digest(self.key, fingerprint(settings.secret))


def record_sender(store: SettingsStore, settings: MailSettings, process: str, at: str) -> None:
    """Record that ``process`` sends mail with ``settings`` (from now on)."""
    sender = Sender(settings.domain, fingerprint(settings.secret), process, at)
    store.set_setting(SENDER_SETTING, json.dumps(vars(sender), sort_keys=True))


def sender_of_mail(store: SettingsStore) -> Sender | None:
    """What the last process that sent mail recorded, or ``None`` if none did."""
    text = store.setting(SENDER_SETTING)
    return None if text is None else Sender(**json.loads(text))
