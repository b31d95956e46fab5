"""Who is asking: the request's actor, resolved once per request, here only.

An actor may carry a bearer token (``Authorization: Bearer``: a seat token,
a game's admin token, or a player's personal API token, told apart by its
``tpp_`` prefix) and may be a signed-in player (a session cookie, or that
personal API token). Seat and admin tokens belong to one game: the game
service checks them against it (:meth:`GameService.load_as`).
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, g, request

from engines.phrases import phrase
from server.accounts.service import API_TOKEN_PREFIX, AccountService
from server.errors import TurnpostError
from server.http.context import current_store
from server.store.records import Player

#: The cookie of a signed-in player's session (HttpOnly, SameSite=Lax, Secure over https).
SESSION_COOKIE = "turnpost_player"


@dataclass(frozen=True)
class Actor:
    """The request's credentials: its bearer token, and the player they sign in, if any."""

    bearer: str | None
    player: Player | None
    #: The session token of the cookie that signed the player in (``None``: no session).
    session: str | None

    @property
    def personal_token(self) -> bool:
        """Whether the bearer token is a personal API token (not a seat's or admin's)."""
        return self.bearer is not None and self.bearer.startswith(API_TOKEN_PREFIX)


def accounts() -> AccountService:
    """The account service of the running app, on this context's store."""
    return AccountService(current_store(), current_app.config["SECRET_KEY"])


def bearer_token() -> str | None:
    """The token of an ``Authorization: Bearer`` header, or ``None``; ``401`` if malformed."""
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if not header:
        return None
    if scheme.lower() != "bearer" or not token.strip():
        raise TurnpostError("unauthorized", phrase("Use 'Authorization: Bearer <token>'."))
    return token.strip()


def current_actor() -> Actor:
    """The request's actor (resolved on first use, then kept for the request)."""
    if "actor" not in g:
        g.actor = _resolve()
    return g.actor


def _resolve() -> Actor:
    bearer = bearer_token()
    service = accounts()
    if bearer is not None and bearer.startswith(API_TOKEN_PREFIX):
        return Actor(bearer, service.api_token_player(bearer), None)
    session = request.cookies.get(SESSION_COOKIE)
    player = service.session_player(session) if session else None
    return Actor(bearer, player, session if player else None)


def signed_in_player() -> Player:
    """The signed-in player; ``401`` for a request without one."""
    player = current_actor().player
    if player is None:
        raise TurnpostError(
            "unauthorized", phrase("Sign in first (a personal API token, or the sign-in page).")
        )
    return player


def personal_player() -> Player:
    """The player of a personal API token or, without a bearer token, of the session cookie.

    ``401`` without either, and for a seat's or a game's admin token: those
    open one game, never a player's list.
    """
    actor = current_actor()
    if actor.bearer is not None and not actor.personal_token:
        raise TurnpostError(
            "unauthorized",
            phrase(
                "A seat or admin token opens one game only: use a personal API token (tpp_...)."
            ),
        )
    return signed_in_player()
