"""Addresses and keys: reply addresses, seat links, unsubscribe links, Message-IDs.

Nothing secret is stored in the database: the reply address of a seat,
``play+<game>.<seat>.<key>@<domain>``, is derived when the mail is sent from
the app secret and the seat's key generation (revoking a key bumps it), and
so are the seat's own link to its page (:func:`seat_link`: the seat link
route takes this signed *seat pass* in place of the seat's token), the link
that stops mail for that seat (:func:`stop_url`) and the signed "never mail
me again" link (:func:`unsubscribe_url`) that end every mail.

    >>> settings = MailSettings(secret="s3cret", domain="example.org")
    >>> address = reply_address(settings, "a1b2", 0, generation=0)
    >>> parse_reply_address(settings, address, lambda game, seat: 0)
    ('a1b2', 0)
    >>> parse_reply_address(settings, "play+a1b2.0.forged@example.org", lambda g, s: 0) is None
    True
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable

from email_validator import EmailNotValidError, validate_email
from itsdangerous import BadSignature, URLSafeSerializer

from server.games.clock import parse_time
from server.mail.settings import MailSettings
from server.store.records import Seat

KEY_LENGTH = 20
#: Hex digits of the key in a seat pass (128 bits).
PASS_KEY_LENGTH = 32


def recipient_key(address: str) -> str:
    """The mailbox an address reaches, as limits and "never mail me again" count it.

    The address as the SMTP envelope carries it (as email-validator normalises
    it, like :func:`schemas.api.plain_address`: a quoted local part unquoted,
    the domain IDNA-encoded), in lower case and without a ``+tag``, so that
    ``Ann+1@...``, ``ann+2@...`` and ``"a\\nn"@...`` count as one recipient.
    Spellings that creation refuses now, but that games made before may hold,
    are read too; an address email-validator cannot read at all counts as written.

    >>> recipient_key("Ann.Lee+games@Example.ORG")
    'ann.lee@example.org'
    >>> recipient_key('"opt\\\\out"@Exämple.org'), recipient_key("a..b@[192.0.2.1]")
    ('optout@xn--exmple-cua.org', 'a..b@[192.0.2.1]')
    """
    try:
        checked = validate_email(
            address.strip(),
            check_deliverability=False,
            globally_deliverable=False,
            allow_quoted_local=True,
            allow_domain_literal=True,
            allow_smtputf8=True,
        )
        local, domain = checked.local_part, checked.ascii_domain
    except EmailNotValidError:
        local, _, domain = address.strip().rpartition("@")
    return f"{local.split('+', 1)[0]}@{domain}".lower()


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


def seat_pass(
    settings: MailSettings, game_id: str, seat: int, generation: int, issued_ms: int
) -> str:
    """The signed pass that opens a seat's page from a mail: ``<seat>.<issued>.<key>``.

    ``issued_ms`` is when the mail was sent (Unix time in milliseconds): a pass
    is good for :data:`PASS_DAYS` days, and not at all once the seat was
    reissued after it (see :func:`pass_seat`).

    >>> settings = MailSettings(secret="s3cret")
    >>> text = seat_pass(settings, "a1b2", 1, generation=0, issued_ms=1_700_000_000_000)
    >>> from types import SimpleNamespace
    >>> seat = SimpleNamespace(mail_generation=0, passes_revoked_at=None)
    >>> pass_seat(settings, "a1b2", text, lambda game, s: seat, now_ms=1_700_000_000_000)
    1
    >>> [pass_seat(settings, game, forged, lambda g, s: seat, now_ms=1_700_000_000_000) for
    ...     game, forged in [("a1b2", text[:-1] + "0"), ("a1b3", text), ("a1b2", "0" + text[1:])]]
    [None, None, None]
    >>> month = 31 * 24 * 3600 * 1000
    >>> pass_seat(settings, "a1b2", text, lambda g, s: seat, now_ms=1_700_000_000_000 + month)
    """
    message = f"seat-link.{game_id}.{seat}.{generation}.{issued_ms}".encode()
    digest = hmac.new(settings.secret.encode(), message, hashlib.sha256).hexdigest()
    return f"{seat}.{issued_ms}.{digest[:PASS_KEY_LENGTH]}"


PASS = re.compile(rf"(?P<seat>\d{{1,2}})\.(?P<issued>\d{{1,15}})\.[0-9a-f]{{{PASS_KEY_LENGTH}}}")
#: How long the seat link of a mail opens the seat's page.
PASS_DAYS = 30
#: How far in the future a pass's moment may lie (clocks of several processes differ).
PASS_SKEW_MS = 5 * 60 * 1000


def pass_seat(
    settings: MailSettings,
    game_id: str,
    text: str,
    seat_row: Callable[[str, int], Seat | None],
    now_ms: int | None = None,
) -> int | None:
    """The seat whose valid :func:`seat_pass` ``text`` is, or ``None`` (constant-time check).

    ``seat_row`` gives the seat's ``mail_generation`` and ``passes_revoked_at``
    (the store's ``seat``). A pass is valid for :data:`PASS_DAYS` days from
    the mail, with the seat's current key generation, if the seat was not
    reissued after the mail was sent.
    """
    match = PASS.fullmatch(text)
    if match is None:
        return None
    seat, issued = int(match["seat"]), int(match["issued"])
    row = seat_row(game_id, seat)
    if row is None:
        return None
    expected = seat_pass(settings, game_id, seat, row.mail_generation, issued)
    if not hmac.compare_digest(expected, text):
        return None
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    revoked = row.passes_revoked_at
    if revoked is not None and issued <= parse_time(revoked).timestamp() * 1000:
        return None
    if not now_ms - PASS_DAYS * 24 * 3600 * 1000 <= issued <= now_ms + PASS_SKEW_MS:
        return None
    return seat


def seat_link(
    settings: MailSettings, game_id: str, seat: int, generation: int, issued_ms: int
) -> str:
    """The seat's own link to its game page, in a mail sent at ``issued_ms``.

    >>> seat_link(MailSettings(secret="s", base_url="https://tp.example"), "a1b2", 0, 0, 5)[:39]
    'https://tp.example/games/a1b2/seat/0.5.'
    """
    text = seat_pass(settings, game_id, seat, generation, issued_ms)
    return f"{settings.base_url}/games/{game_id}/seat/{text}"


def _stop_signer(settings: MailSettings) -> URLSafeSerializer:
    return URLSafeSerializer(settings.secret, salt="turnpost.stop-seat")


def stop_url(settings: MailSettings, game_id: str, seat: int) -> str:
    """The signed one-click link that stops mail to one seat of one game.

    >>> settings = MailSettings(secret="s3cret", base_url="https://tp.example")
    >>> url = stop_url(settings, "a1b2", 1)
    >>> url.startswith("https://tp.example/mail/stop/")
    True
    >>> stopped_seat(settings, url.rsplit("/", 1)[1]), stopped_seat(settings, "forged")
    (('a1b2', 1), None)
    """
    return f"{settings.base_url}/mail/stop/{_stop_signer(settings).dumps([game_id, seat])}"


def stopped_seat(settings: MailSettings, token: str) -> tuple[str, int] | None:
    """The ``(game, seat)`` a stop token was signed for, or ``None`` if forged."""
    try:
        game_id, seat = _stop_signer(settings).loads(token)
    except (BadSignature, TypeError, ValueError):
        return None
    if not isinstance(game_id, str) or not isinstance(seat, int):
        return None
    return game_id, seat


def reply_address(settings: MailSettings, game_id: str, seat: int, generation: int) -> str:
    """The address a seat replies to with its move."""
    key = mail_key(settings, game_id, seat, generation)
    return f"play+{game_id}.{seat}.{key}@{settings.domain}"


ADDRESS = re.compile(
    r"^play\+(?P<game>[0-9a-f]+)\.(?P<seat>\d{1,2})\.(?P<key>[0-9a-z]+)@(?P<domain>.+)$"
)


def reply_domain(address: str) -> str | None:
    """The domain of a reply address (``play+<game>.<seat>.<key>@<domain>``, whatever its key
    and domain), lower case; ``None`` for any other address.

    >>> reply_domain("Play+ab12.0.k3y@Play.Example.org"), reply_domain("ann@example.org")
    ('play.example.org', None)
    """
    match = ADDRESS.match(address.strip().lower())
    return None if match is None else match["domain"]


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
