"""Signing players in by mailed link, their sessions, profiles and personal API tokens.

A player enters an address; Turnpost mails a link good for
:data:`LINK_MINUTES` minutes and one use. The answer is the same whether the
address belongs to a player or not; requests are limited per address
(silently: nothing more is mailed) and per client (``429``). Following the
link signs in: the player is created on first sign-in, and a new session
(a random token in an HttpOnly cookie, only its hash stored) is opened.

The link's secret is never stored: it is an HMAC of the link's id under the
server's key (like the links in turn mails), computed when the mail is sent,
so a copy of the database alone signs nobody in.

    >>> key = "s3cret"
    >>> text = link_text(key, "a1b2")
    >>> link_id(key, text), link_id(key, text[:-1] + "x")
    ('a1b2', None)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Any

from engines.phrases import english, phrase
from schemas.accounts import MAX_NAME
from server.errors import TurnpostError
from server.games.clock import format_time, parse_time, utcnow
from server.mail.addresses import recipient_key
from server.mail.settings import rate
from server.store.base import Store, hash_secret
from server.store.records import ApiToken, Player, PlayerUpdate, SignInLink

#: How long a sign-in link works.
LINK_MINUTES = 15
#: Sign-in links mailed to one address, and asked for from one client address.
LINKS_PER_ADDRESS = "5/hour"
LINKS_PER_CLIENT = "20/hour"
#: The start of every personal API token (so that a request's token is told apart at once).
API_TOKEN_PREFIX = "tpp_"
#: Personal API tokens one player may hold at once.
MAX_API_TOKENS = 20


def link_text(key: str, link: str) -> str:
    """The secret text of sign-in link ``link``: ``<id>.<HMAC of the id under key>``."""
    digest = hmac.new(key.encode(), f"sign-in.{link}".encode(), hashlib.sha256).hexdigest()
    return f"{link}.{digest[:32]}"


def link_id(key: str, text: str) -> str | None:
    """The id of a sign-in link's text if it is genuine, else ``None`` (constant time)."""
    link, _, _ = text.partition(".")
    if not link or not link.isalnum() or len(text) > 100:
        return None
    return link if hmac.compare_digest(link_text(key, link), text) else None


class AccountService:
    """Players on one :class:`Store`, with the server's signing ``key``."""

    def __init__(self, store: Store, key: str) -> None:
        self.store = store
        self.key = key

    # -- signing in ---------------------------------------------------------------
    def request_link(
        self, email: str, client: str | None, now: str | None = None, language: str = "en"
    ) -> bool:
        """Queue a sign-in mail to ``email`` (a plain address), written in ``language`` (the
        page's it was asked from); whether one was queued.

        ``429`` past the limit per client; past the limit per address, or to an
        address that asked never to be mailed, nothing is queued and nothing
        says so (the answer must not tell whether an address is known).
        """
        now = now or utcnow()
        key = recipient_key(email)
        if client and self._over(LINKS_PER_CLIENT, now, client=client):
            raise TurnpostError(
                "rate_limited",
                phrase("Too many sign-in links were asked for from this address; try again later."),
                headers={"Retry-After": "3600"},
            )
        if self._over(LINKS_PER_ADDRESS, now, email_key=key) or self.store.mail_suppressed(key):
            self._record_link(email, key, client, now, None)
            return False
        self._record_link(email, key, client, now, language)
        return True

    def _over(self, limit: str, now: str, **where: str) -> bool:
        count, seconds = rate(limit)
        since = format_time(parse_time(now) - timedelta(seconds=seconds))
        return self.store.sign_in_links_since(since, **where) >= count

    def _record_link(
        self, email: str, key: str, client: str | None, now: str, language: str | None
    ) -> None:
        """Record the request (it counts against the limits) and, with a ``language``, its mail
        in that language."""
        mailed = language is not None
        link = secrets.token_hex(16)
        expires = format_time(parse_time(now) + timedelta(minutes=LINK_MINUTES))
        with self.store.write():
            self.store.add_sign_in_link(
                SignInLink(link, email, key, client, now, expires if mailed else now)
            )
            if mailed:
                self.store.queue_mail(
                    {
                        "kind": "sign_in",
                        "to_addr": email,
                        "facts": {"link": link, "expires_at": expires, "language": language},
                        "created_at": now,
                        "next_attempt_at": now,
                        "rcpt_key": key,
                        "client": client,
                    }
                )

    def sign_in(self, text: str, now: str | None = None) -> Player:
        """Use a sign-in link's text: the player (made on first sign-in); ``401`` in words."""
        now = now or utcnow()
        link = link_id(self.key, text)
        with self.store.write():
            row = None if link is None else self.store.use_sign_in_link(link, now)
            if row is None:
                raise TurnpostError(
                    "unauthorized",
                    phrase(
                        "This sign-in link is not valid any more: each link works once, for"
                        " %(minutes)s minutes. Ask for a new one.",
                        minutes=LINK_MINUTES,
                    ),
                )
            player = self.store.player_by_email_key(row.email_key)
            if player is None:
                player = Player(
                    id=secrets.token_hex(8),
                    email=row.email,
                    email_key=row.email_key,
                    name=row.email.split("@", 1)[0][:MAX_NAME],  # until they choose
                    time_zone="UTC",
                    language="en",
                    mail_pref="turn",
                    created_at=now,
                )
                self.store.add_player(player)
        return player

    # -- sessions -------------------------------------------------------------------
    def open_session(self, player_id: str) -> str:
        """A new session of ``player_id``: its token (for the cookie; only the hash is kept)."""
        token = secrets.token_urlsafe(32)
        self.store.add_session(hash_secret(token), player_id, utcnow())
        return token

    def session_player(self, token: str) -> Player | None:
        """The player of a live session token, or ``None``."""
        return self.store.session_player(hash_secret(token))

    def sign_out(self, token: str) -> None:
        """End one session."""
        self.store.end_sessions(utcnow(), token_hash=hash_secret(token))

    def sign_out_everywhere(self, player_id: str) -> None:
        """End every session of ``player_id`` (every browser signs in again)."""
        self.store.end_sessions(utcnow(), player_id=player_id)

    # -- profile --------------------------------------------------------------------
    def update_profile(self, player_id: str, profile: PlayerUpdate) -> None:
        """Change a player's name, time zone, language and mail preference.

        ``profile`` is loaded by :class:`schemas.accounts.ProfileSchema`.
        """
        self.store.update_player(player_id, profile)

    # -- personal API tokens ----------------------------------------------------------
    def create_api_token(self, player_id: str, name: str) -> dict[str, Any]:
        """A new personal API token: ``{"id", "name", "token"}`` (the token shown only here).

        ``name`` is loaded by :class:`schemas.accounts.ApiTokenCreateSchema`.
        """
        if len(self.store.api_tokens(player_id)) >= MAX_API_TOKENS:
            words = phrase("At most %(most)s tokens; revoke one first.", most=MAX_API_TOKENS)
            raise TurnpostError("invalid_request", words, {"name": [english(words)]})
        token = API_TOKEN_PREFIX + secrets.token_urlsafe(24)
        token_id = self.store.add_api_token(hash_secret(token), player_id, name, utcnow())
        return {"id": token_id, "name": name, "token": token}

    def api_tokens(self, player_id: str) -> list[ApiToken]:
        """A player's live personal API tokens."""
        return self.store.api_tokens(player_id)

    def revoke_api_token(self, player_id: str, token_id: int) -> bool:
        """Revoke one of a player's personal API tokens; whether it was theirs and live."""
        return self.store.revoke_api_token(player_id, token_id, utcnow())

    def api_token_player(self, token: str) -> Player | None:
        """The player of a live personal API token, or ``None``."""
        return self.store.api_token_player(hash_secret(token))
