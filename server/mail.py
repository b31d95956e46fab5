"""Outbound mail: Jinja-rendered turn mails recorded in the outbox, and per-seat reply keys.

Mails are rows of the ``outbox`` table, written in the same transaction as
the move that caused them; ``server.delivery`` sends them later over SMTP.
Nothing secret is stored in a row: the reply address of a seat,
``play+<game>.<seat>.<key>@<domain>``, is derived when the mail is sent from
the app secret and the seat's key generation (revoking a key bumps it), and
so is the signed "never mail me again" link that ends every mail.

    >>> settings = MailSettings(secret="s3cret", domain="example.org")
    >>> address = reply_address(settings, "a1b2", 0, generation=0)
    >>> parse_reply_address(settings, address, lambda game, seat: 0)
    ('a1b2', 0)
    >>> parse_reply_address(settings, "play+a1b2.0.forged@example.org", lambda g, s: 0) is None
    True
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import limits
from itsdangerous import BadSignature, URLSafeSerializer

from engines import Engine

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
KEY_LENGTH = 20
#: How many legal moves a turn mail lists as examples.
EXAMPLE_MOVES = 12

environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
    autoescape=jinja2.select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


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
    #: Mails to one recipient, in Flask-Limiter notation (see :mod:`server.mailgate`).
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


def recipient_key(address: str) -> str:
    """The mailbox an address reaches, as limits and "never mail me again" count it.

    Lower case and without a ``+tag``, so that ``Ann+1@...`` and ``ann+2@...``
    count as one recipient.

    >>> recipient_key("Ann.Lee+games@Example.ORG")
    'ann.lee@example.org'
    """
    local, _, domain = address.strip().lower().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}"


def _unsubscribe_signer(settings: MailSettings) -> URLSafeSerializer:
    return URLSafeSerializer(settings.secret, salt="turnpost.unsubscribe")


def unsubscribe_url(settings: MailSettings, address: str) -> str:
    """The signed one-click "never mail me again" link for ``address``.

    >>> settings = MailSettings(secret="s3cret", base_url="https://tp.example")
    >>> url = unsubscribe_url(settings, "Ann+x@example.org")
    >>> url.startswith("https://tp.example/mail/unsubscribe/")
    True
    >>> unsubscribed(settings, url.rsplit("/", 1)[1]), unsubscribed(settings, "forged")
    ('ann@example.org', None)
    """
    token = _unsubscribe_signer(settings).dumps(recipient_key(address))
    return f"{settings.base_url}/mail/unsubscribe/{token}"


def unsubscribed(settings: MailSettings, token: str) -> str | None:
    """The recipient key an unsubscribe token was signed for, or ``None`` if forged."""
    try:
        key = _unsubscribe_signer(settings).loads(token)
    except BadSignature:
        return None
    return key if isinstance(key, str) else None


MESSAGE_ID = re.compile(r"<[^<>@\s]+@[^<>@\s]+>")


def plain_message_id(value: object) -> str | None:
    """``value`` as a msg-id (``<left@right>``, printable ASCII) or ``None``.

    >>> plain_message_id(" <a.1@example.org> "), plain_message_id("<a\\r\\nb@x>")
    ('<a.1@example.org>', None)
    """
    text = str(value or "").strip()
    plain = len(text) <= 250 and text.isascii() and text.isprintable()
    return text if plain and MESSAGE_ID.fullmatch(text) else None


def mail_key(settings: MailSettings, game_id: str, seat: int, generation: int) -> str:
    """The secret reply key of a seat (HMAC of the app secret; changes with ``generation``)."""
    message = f"{game_id}.{seat}.{generation}".encode()
    digest = hmac.new(settings.secret.encode(), message, hashlib.sha256).hexdigest()
    return digest[:KEY_LENGTH]


def reply_address(settings: MailSettings, game_id: str, seat: int, generation: int) -> str:
    """The address a seat replies to with its move."""
    key = mail_key(settings, game_id, seat, generation)
    return f"play+{game_id}.{seat}.{key}@{settings.domain}"


ADDRESS = re.compile(
    r"^play\+(?P<game>[0-9a-f]+)\.(?P<seat>\d{1,2})\.(?P<key>[0-9a-z]+)@(?P<domain>.+)$"
)


def parse_reply_address(
    settings: MailSettings, address: str, generation_of: Callable[[str, int], int | None]
) -> tuple[str, int] | None:
    """``(game, seat)`` if ``address`` carries that seat's current key, else ``None``.

    ``generation_of(game, seat)`` returns the seat's key generation (``None``
    for no such seat). Keys are compared in constant time.
    """
    match = ADDRESS.match(address.strip().lower())
    if match is None or match["domain"] != settings.domain.lower():
        return None
    game_id, seat = match["game"], int(match["seat"])
    generation = generation_of(game_id, seat)
    if generation is None:
        return None
    expected = mail_key(settings, game_id, seat, generation)
    if not hmac.compare_digest(expected, match["key"]):
        return None
    return game_id, seat


def new_message_id(settings: MailSettings, kind: str, game_id: str) -> str:
    """A fresh, unique Message-ID for an outbox row."""
    return f"<{kind}.{game_id}.{secrets.token_hex(8)}@{settings.domain}>"


@dataclass
class Mail:
    """One rendered mail before it goes into the outbox."""

    to: str
    subject: str
    text: str
    html: str
    kind: str
    seat: int | None = None
    in_reply_to: str | None = None


def render(kind: str, **context: Any) -> tuple[str, str]:
    """The text and HTML parts of the mail ``kind`` (templates ``email/<kind>.txt|html``)."""
    text = environment.get_template(f"email/{kind}.txt").render(**context)
    html = environment.get_template(f"email/{kind}.html").render(**context)
    return text, html


def with_footer(settings: MailSettings, address: str, text: str, html: str) -> tuple[str, str]:
    """``text`` and ``html`` ending with the "never mail me again" link for ``address``."""
    footer_text, footer_html = render("footer", unsubscribe=unsubscribe_url(settings, address))
    before, end, after = html.rpartition("</body>")
    html = before + footer_html + end + after if end else html + footer_html
    return text + footer_text, html


class Notifier:
    """Decides which mails a game event causes and renders them for the outbox."""

    def __init__(self, settings: MailSettings) -> None:
        self.settings = settings

    def turn_mails(
        self,
        engine: Engine,
        state: dict[str, Any],
        seats: list[dict[str, Any]],
        views: dict[int, dict[str, Any]],
        recent: list[dict[str, Any]],
    ) -> list[Mail]:
        """ "Your turn" to each seat to move, or "game over" to every seat, with an email.

        ``views`` maps each seat with an email to its game object.
        """
        mails = []
        for seat in seats:
            view = views.get(seat["seat"])
            if view is None:
                continue
            if view["status"] == "finished":
                kind, subject = "game_over", f"Game over: {engine.name} {view['id']}"
            elif seat["seat"] in view["to_move"]:
                kind = "turn"
                subject = f"Your turn: {engine.name} {view['id']} (move {view['seq'] + 1})"
            else:
                continue
            legal = engine.legal_moves(state, seat["seat"]) if kind == "turn" else []
            mails.append(self.mail(kind, subject, engine, view, seat, recent, legal=legal))
        return mails

    def mail(
        self,
        kind: str,
        subject: str,
        engine: Engine,
        view: dict[str, Any],
        seat: dict[str, Any],
        recent: list[dict[str, Any]],
        legal: list[dict[str, Any]] = (),
        **extra: Any,
    ) -> Mail:
        """Render the mail ``kind`` for one seat from its game object ``view``."""
        text, html = render(
            kind,
            engine=engine,
            game=view,
            seat=seat,
            recent=recent,
            legal=[engine.format(move) for move in legal[:EXAMPLE_MOVES]],
            legal_count=len(legal),
            link=f"{self.settings.base_url}/games/{view['id']}",
            board_text=f"boards/{engine.id}.txt",
            board_html=f"boards/{engine.id}.html",
            **extra,
        )
        return Mail(seat["email"], subject, text, html, kind, seat["seat"])
