"""The outbox: the mails a game change causes, queued in the same transaction as the change.

Mails are rows of the ``outbox`` table, written in the same transaction as
the move that caused them; :mod:`server.mail.delivery` sends them later over SMTP.
"""

from __future__ import annotations

from typing import Any

from engines import Engine
from server.mail.render import Mail, render
from server.mail.settings import MailSettings

#: How many legal moves a turn mail lists as examples.
EXAMPLE_MOVES = 12


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
