"""What is wrong or risky in the settings of a deployment, in words.

``turnpost check`` reads the settings every process will use (its own
environment: run it with the services' environment file) and prints each
:class:`Finding` (a phrase) in the command's language; an error means something
is broken now (exit status 1), a warning something risky. The app server and the
worker log the findings that concern them when they start, in English
(:func:`warn_at_start`, one function for both).

What is checked: ``TURNPOST_BASE_URL`` left at its default, plain http, or
not answering; the mail domain and secret key against those the worker sent
mail with (:mod:`server.mail.identity`); mail waiting without
``TURNPOST_SMTP_URL`` or without a worker; requests that came through a
proxy while ``TURNPOST_PROXY_HOPS`` is unset (noted by the app server, see
:func:`note_proxied_request`); the database file's permissions; free disk.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import urllib.request
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from engines.phrases import N_, Words, english, phrase
from server.games.clock import parse_time, utcnow
from server.mail.identity import record_sender, sender_of_mail
from server.mail.settings import MailSettings, environment_config, settings_from_config
from server.phrases import render
from server.store import in_memory, scheme, sqlite_path
from server.store.base import Store

ERROR, WARNING = "error", "warning"
#: A finding's line, by its level.
LINES = {ERROR: N_("error: %(finding)s"), WARNING: N_("warning: %(finding)s")}
#: Where mail links point when ``TURNPOST_BASE_URL`` is not set.
DEFAULT_BASE_URL = MailSettings.base_url
#: The setting where the app server notes the first request that came through a proxy.
PROXIED_SETTING = "proxied_request"
#: Free disk below which the database may fail to write (error), or soon will (warning).
DISK_ERROR_BYTES, DISK_WARNING_BYTES = 100 * 2**20, 2**30
#: Mail waiting longer than this means no worker sends it.
MAIL_WAIT = timedelta(hours=1)
#: Seconds ``turnpost check`` waits for the base URL to answer.
REACH_SECONDS = 5
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Finding:
    """One thing wrong (``error``) or risky (``warning``), said in words (a phrase)."""

    level: str
    words: Words

    @property
    def text(self) -> str:
        """The finding in English."""
        return english(self.words)

    def line(self, language: str = "en") -> str:
        """The finding as one line in ``language``: ``error: ...`` or ``warning: ...``."""
        return render(phrase(LINES[self.level], finding=self.words), (), language)


@dataclass(frozen=True)
class Deployment:
    """The settings of one process, as the checks read them."""

    db_url: str
    mail: MailSettings
    proxy_hops: int
    #: Whether ``TURNPOST_SECRET_KEY`` is set (else the key is kept in the database).
    secret_set: bool

    @classmethod
    def from_environment(cls, db_url: str, secret: str) -> Deployment:
        """This process's settings: its environment, the database ``db_url`` and the secret
        key in use."""
        mail = settings_from_config({"SECRET_KEY": secret, **environment_config()})
        hops = int(os.environ.get("TURNPOST_PROXY_HOPS", "0"))
        return cls(db_url, mail, hops, bool(os.environ.get("TURNPOST_SECRET_KEY")))

    @property
    def db_file(self) -> Path | None:
        """The SQLite file, or ``None`` for an in-memory or server database."""
        if scheme(self.db_url) not in (None, "sqlite") or in_memory(self.db_url):
            return None
        return Path(sqlite_path(self.db_url))


def findings(store: Store, deployment: Deployment, process: str) -> list[Finding]:
    """Everything wrong or risky for ``process``: ``check`` (all, the base URL fetched),
    ``worker`` (all but fetching the base URL) or ``serve`` (what the app server uses)."""
    found = [
        *base_url_findings(deployment.mail, fetch=process == "check"),
        *identity_findings(store, deployment.mail),
        *proxy_findings(store, deployment),
        *disk_findings(deployment),
    ]
    if process != "serve":
        found += mail_findings(store, deployment.mail)
    return found


def base_url_findings(mail: MailSettings, fetch: bool) -> list[Finding]:
    """``TURNPOST_BASE_URL`` left at its default while mail is sent (without
    ``TURNPOST_SMTP_URL`` no mail, so no link, leaves: the two-command start stays quiet),
    plain http, or (``fetch``) not answering."""
    if mail.base_url == DEFAULT_BASE_URL:
        if not mail.smtp_url:
            return []
        return [
            Finding(
                ERROR,
                phrase(
                    "TURNPOST_BASE_URL is not set: every link in mails points at %(url)s, which"
                    " players cannot open; set it to the address players use"
                    " (https://turnpost.example.org)",
                    url=DEFAULT_BASE_URL,
                ),
            )
        ]
    found = []
    parts = urlsplit(mail.base_url)
    if parts.scheme != "https" and parts.hostname not in LOOPBACK_HOSTS:
        found.append(
            Finding(
                WARNING,
                phrase(
                    "TURNPOST_BASE_URL %(url)s is plain http: the links in mails carry seat"
                    " passes in the clear; serve https through a proxy (docs/deploy.md)",
                    url=mail.base_url,
                ),
            )
        )
    if fetch:
        problem = unreachable(f"{mail.base_url}/healthz")
        if problem:
            found.append(
                Finding(
                    WARNING,
                    phrase(
                        "TURNPOST_BASE_URL %(url)s does not answer (%(problem)s): links in mails"
                        " open only if players reach it (is the app server or the proxy down,"
                        " or the name wrong?)",
                        url=mail.base_url,
                        problem=problem,
                    ),
                )
            )
    return found


def unreachable(url: str) -> str | None:
    """Why ``url`` does not answer ``200``, or ``None`` when it does."""
    try:
        with urllib.request.urlopen(url, timeout=REACH_SECONDS) as answer:
            return None if answer.status == 200 else f"HTTP {answer.status}"
    except OSError as error:  # URLError, HTTPError, timeouts, refused connections
        return str(getattr(error, "reason", None) or error)


def identity_findings(store: Store, mail: MailSettings) -> list[Finding]:
    """The mail domain and secret key against those mail was last sent with."""
    sender = sender_of_mail(store)
    if sender is None:
        return []
    found = []
    if not sender.same_domain(mail):
        found.append(
            Finding(
                ERROR,
                phrase(
                    "TURNPOST_MAIL_DOMAIN is %(domain)s here, but the %(process)s that sent mail"
                    " (since %(since)s) has %(other)s: replies to its mails are dropped by a"
                    " receiver with another domain; give every process the same"
                    " TURNPOST_MAIL_DOMAIN",
                    domain=mail.domain,
                    process=sender.process,
                    since=sender.at,
                    other=sender.domain,
                ),
            )
        )
    if not sender.same_key(mail):
        found.append(
            Finding(
                ERROR,
                phrase(
                    "TURNPOST_SECRET_KEY differs from the one the %(process)s sent mail with"
                    " (since %(since)s): the links and reply addresses in its mails do not work"
                    " with this key; give every process the same TURNPOST_SECRET_KEY",
                    process=sender.process,
                    since=sender.at,
                ),
            )
        )
    return found


def mail_findings(store: Store, mail: MailSettings) -> list[Finding]:
    """Mail that cannot go (no ``TURNPOST_SMTP_URL`` while seats have addresses) or that has
    waited too long (no worker running)."""
    backlog = store.mail_backlog()
    if not mail.smtp_url:
        seats = store.addressed_seats()
        if seats:
            return [
                Finding(
                    ERROR,
                    phrase(
                        "TURNPOST_SMTP_URL is not set, but %(seats)s seats of forming or running"
                        " games have an email address: their mail (%(unsent)s now) waits in the"
                        " outbox; set it where the worker runs",
                        seats=seats,
                        unsent=backlog.unsent,
                    ),
                )
            ]
        return []
    if backlog.oldest_at and parse_time(backlog.oldest_at) < parse_time(utcnow()) - MAIL_WAIT:
        return [
            Finding(
                WARNING,
                phrase(
                    "%(unsent)s mails wait to be sent, the oldest since %(since)s: is `turnpost"
                    " worker` running, and can it reach the SMTP server?",
                    unsent=backlog.unsent,
                    since=backlog.oldest_at,
                ),
            )
        ]
    return []


def proxy_findings(store: Store, deployment: Deployment) -> list[Finding]:
    """Requests through a proxy that ``TURNPOST_PROXY_HOPS`` does not believe."""
    if deployment.proxy_hops:
        return []
    seen = store.setting(PROXIED_SETTING)
    if seen:
        return [
            Finding(
                WARNING,
                phrase(
                    "a request came through a proxy (with X-Forwarded-For, at %(seen)s), but"
                    " TURNPOST_PROXY_HOPS is not set: every visitor then has the proxy's address"
                    " and they share one rate limit and one creation limit; set"
                    " TURNPOST_PROXY_HOPS=1 behind one proxy (never without one)",
                    seen=seen,
                ),
            )
        ]
    parts = urlsplit(deployment.mail.base_url)
    if parts.scheme == "https" and parts.hostname not in LOOPBACK_HOSTS:
        return [
            Finding(
                WARNING,
                phrase(
                    "TURNPOST_BASE_URL is https, so a proxy likely terminates TLS in front, but"
                    " TURNPOST_PROXY_HOPS is not set: behind a proxy set it to 1, or every"
                    " visitor has the proxy's address (the app server notes a proxied request"
                    " when it sees one, and this check then says so)"
                ),
            )
        ]
    return []


def file_findings(deployment: Deployment) -> list[Finding]:
    """The database file readable by others, or its folder writable by others.

    Read before the database is opened: opening it takes away others' access
    to a file of this process's user.
    """
    path = deployment.db_file
    if path is None or not path.exists():
        return []
    found = []
    readable = [
        name
        for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm"))
        if name.exists() and name.stat().st_mode & stat.S_IROTH
    ]
    if readable:
        if deployment.secret_set:
            readable_file = phrase(
                "%(file)s is readable by every user of this machine, and it holds hands and"
                " addresses: chmod 600 it (Turnpost does when it opens a file of its own user)",
                file=str(readable[0]),
            )
        else:
            readable_file = phrase(
                "%(file)s is readable by every user of this machine, and it holds hands,"
                " addresses and the secret key: chmod 600 it (Turnpost does when it opens a file"
                " of its own user)",
                file=str(readable[0]),
            )
        found.append(Finding(WARNING if deployment.secret_set else ERROR, readable_file))
    if path.parent.stat().st_mode & stat.S_IWOTH and not path.parent.stat().st_mode & stat.S_ISVTX:
        found.append(
            Finding(
                ERROR,
                phrase(
                    "the folder %(folder)s is writable by every user of this machine: anyone can"
                    " replace the database; keep it in a folder of Turnpost's user (mode 700)",
                    folder=str(path.parent),
                ),
            )
        )
    return found


def disk_findings(deployment: Deployment) -> list[Finding]:
    """Little free space where the database is."""
    path = deployment.db_file
    if path is None:
        return []
    free = shutil.disk_usage(path.parent).free
    if free < DISK_WARNING_BYTES:
        return [
            Finding(
                ERROR if free < DISK_ERROR_BYTES else WARNING,
                phrase(
                    "only %(mib)s MiB are free where the database is (%(folder)s): moves fail"
                    " once the disk is full",
                    mib=free // 2**20,
                    folder=str(path.parent),
                ),
            )
        ]
    return []


def warn_at_start(store: Store, deployment: Deployment, process: str) -> list[Finding]:
    """Log what is wrong or risky for ``process`` (``serve`` or ``worker``) as it starts;
    the worker then records the mail domain and key it sends mail with."""
    found = findings(store, deployment, process)
    for finding in found:
        log.warning("%s", finding.line())
    if process == "worker" and deployment.mail.smtp_url:
        record_sender(store, deployment.mail, process, utcnow())
    return found


def note_proxied_request(store: Store) -> None:
    """Note that a request came through a proxy (the first one each app server process sees
    while ``TURNPOST_PROXY_HOPS`` is unset), for ``turnpost check``, and log it."""
    log.warning(
        "a request came with X-Forwarded-For but TURNPOST_PROXY_HOPS is not set: behind a"
        " proxy every visitor has its address (set TURNPOST_PROXY_HOPS=1); `turnpost check`"
    )
    store.set_setting(PROXIED_SETTING, utcnow())
