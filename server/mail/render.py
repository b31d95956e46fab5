"""Rendering mails: Jinja templates (``templates/email/``) to text and HTML parts.

Each mail is rendered when the change that causes it happens, and recorded
in the outbox (:mod:`server.mail.outbox`); the "never mail me again" footer
is added when it is sent (:mod:`server.mail.delivery`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from server.mail.addresses import unsubscribe_url
from server.mail.settings import MailSettings

TEMPLATES = Path(__file__).resolve().parent.parent.parent / "templates"

environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(TEMPLATES),
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
