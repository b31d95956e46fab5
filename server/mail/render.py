"""Rendering mails: their subjects, and Jinja templates (``templates/email/``) to text and HTML.

Each mail is rendered when the change that causes it happens, and recorded
in the outbox (:mod:`server.mail.outbox`); the "never mail me again" footer
is added when it is sent (:mod:`server.mail.delivery`).

    >>> SUBJECTS["turn"].format(engine="Siam", game="a1b2", move=3)
    'Your turn: Siam a1b2 (move 3)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jinja2

from engines import Engine
from server.mail.addresses import unsubscribe_url
from server.mail.settings import MailSettings
from server.resources import templates_dir

#: The subject of each kind of mail (every subject Turnpost writes is here).
SUBJECTS = {
    "turn": "Your turn: {engine} {game} (move {move})",
    "game_over": "Game over: {engine} {game}",
    "accepted": "Move accepted: {engine} {game}",
    "rejected": "Move not played: {engine} {game}",
    "reminder": "Reminder, your turn: {engine} {game}",
}
#: How many legal moves a turn mail lists as examples.
EXAMPLE_MOVES = 12

environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(templates_dir()),
    autoescape=jinja2.select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


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


def compose(
    kind: str,
    settings: MailSettings,
    engine: Engine,
    view: dict[str, Any],
    seat: dict[str, Any],
    recent: list[dict[str, Any]],
    legal: list[dict[str, Any]] = (),
    **extra: Any,
) -> Mail:
    """The mail ``kind`` to one seat (a ``seats`` row) from its game object ``view``.

    ``recent`` are the last public log entries; ``legal`` the seat's legal moves
    (a turn mail lists a few as examples).
    """
    subject = SUBJECTS[kind].format(engine=engine.name, game=view["id"], move=view["seq"] + 1)
    text, html = render(
        kind,
        engine=engine,
        game=view,
        seat=seat,
        recent=recent,
        legal=[engine.format(move) for move in legal[:EXAMPLE_MOVES]],
        legal_count=len(legal),
        link=f"{settings.base_url}/games/{view['id']}",
        board_text=f"boards/{engine.id}.txt",
        board_html=f"boards/{engine.id}.html",
        **extra,
    )
    return Mail(seat["email"], subject, text, html, kind, seat["seat"])
