"""Helpers for looking at mails as a player does: their parts, their picture, saved copies.

Every mail a test saves lands in ``test-output/mail/`` (git-ignored) as the
message (``.eml``), its text part (``.txt``), its HTML part with the board
picture beside it (``.html`` and ``.png``) and, where a browser is given, a
screenshot of the HTML as Chromium shows it (``-shown.png``).
"""

from __future__ import annotations

import base64
import re
from email import policy
from email.message import EmailMessage
from pathlib import Path

from playwright.sync_api import Browser

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "test-output" / "mail"
#: Writes a received message's headers back as they came.
AS_RECEIVED = policy.default.clone(refold_source="none", max_line_length=998)
CID = re.compile(r'src="cid:([^"]+)"')


def text_of(message: EmailMessage) -> str:
    """The plain-text part."""
    return message.get_body(("plain",)).get_content().replace("\r\n", "\n")


def html_of(message: EmailMessage) -> str:
    """The HTML part."""
    return message.get_body(("html",)).get_content()


def images(message: EmailMessage) -> dict[str, bytes]:
    """The images of the message by Content-ID (without the angle brackets)."""
    return {
        str(part["Content-ID"]).strip("<>"): part.get_content()
        for part in message.walk()
        if part.get_content_maintype() == "image"
    }


def inlined(message: EmailMessage) -> str:
    """The HTML part with each ``cid:`` image replaced by its data, as a mail client shows it."""
    pictures = images(message)

    def data(match: re.Match) -> str:
        encoded = base64.b64encode(pictures[match[1]]).decode()
        return f'src="data:image/png;base64,{encoded}"'

    return CID.sub(data, html_of(message))


def save(message: EmailMessage, name: str, browser: Browser | None = None) -> Path:
    """Save ``message`` under ``test-output/mail/<name>.*``; with a browser, a screenshot."""
    SAMPLES.mkdir(parents=True, exist_ok=True)
    stem = SAMPLES / name
    stem.with_suffix(".eml").write_bytes(message.as_bytes(policy=AS_RECEIVED))
    stem.with_suffix(".txt").write_text(text_of(message))
    html = html_of(message)
    for cid, png in images(message).items():
        stem.with_suffix(".png").write_bytes(png)
        html = html.replace(f"cid:{cid}", f"{name}.png")
    stem.with_suffix(".html").write_text(html)
    if browser is not None:
        page = browser.new_page(viewport={"width": 700, "height": 900})
        page.set_content(inlined(message))
        page.wait_for_load_state("load")
        page.screenshot(path=str(SAMPLES / f"{name}-shown.png"), full_page=True)
        page.close()
    return stem
