"""Moves by email: read one RFC 5322 message and play the move it carries.

A seat replies to ``play+<game>.<seat>.<key>@<domain>`` (the Reply-To of its
turn mails). The move is the Subject after ``move:``, else the first line of
the text body that is not quoted (``>``), not the line introducing a quote,
not empty and not in the signature. The
``In-Reply-To`` of a reply to a turn mail gives ``expected_seq``, so a late
answer to an old turn mail is refused as stale rather than applied.

The From header is never trusted: only the secret key in the address says who
moves, and answers go to the seat's registered email. Bounces and
auto-replies are dropped without an answer (no mail loops); oversized mail
and mail with attachments are refused with an explanation.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses
from typing import Any

from server.errors import TurnpostError
from server.mail import MailSettings, parse_reply_address
from server.service import GameService

MAX_MESSAGE_BYTES = 256 * 1024
TEXT_TYPES = {"text/plain", "text/html"}
AUTOMATIC_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
SUBJECT_MOVE = re.compile(r"\bmove:\s*(?P<move>.+)$", re.IGNORECASE)
TAG = re.compile(r"<[^>]+>")


@dataclass
class Outcome:
    """What became of one incoming message."""

    status: str  # applied | rejected | dropped | duplicate
    reason: str
    game_id: str | None = None
    seat: int | None = None
    seq: int | None = None


def receive(
    raw: bytes,
    games: GameService,
    settings: MailSettings,
    recipients: list[str] | None = None,
) -> Outcome:
    """Apply the move in ``raw`` (``recipients``: the envelope's, if known) or explain why not."""
    if len(raw) > MAX_MESSAGE_BYTES:
        return Outcome("dropped", f"message over {MAX_MESSAGE_BYTES} bytes")
    message = BytesParser(policy=policy.default).parsebytes(raw)
    automatic = automatic_reason(message)
    if automatic:
        return Outcome("dropped", automatic)
    target = find_seat(message, games, settings, recipients)
    if target is None:
        return Outcome("dropped", "no valid Turnpost reply address (unknown or revoked key)")
    game_id, seat = target
    message_id = str(message.get("Message-ID", "")).strip() or None
    if message_id and _already_answered(games, message_id):
        return Outcome("duplicate", "this message was already handled", game_id, seat)
    problem, notation = read_move_text(message)
    if problem:
        return _reject(games, game_id, seat, message_id, "", problem)
    try:
        answer = games.submit_as(
            game_id,
            seat,
            notation=notation,
            expected_seq=expected_seq(games, game_id, message),
            idempotency_key=_idempotency_key(message_id),
            mail_message_id=message_id or "",
        )
    except TurnpostError as error:
        if error.code == "not_found":
            return Outcome("dropped", error.message, game_id, seat)
        return _reject(games, game_id, seat, message_id, notation, error.message)
    return Outcome("applied", notation, game_id, seat, answer["seq"])


def automatic_reason(message: EmailMessage) -> str | None:
    """Why ``message`` is a bounce or an auto-reply (never answered), or ``None``."""
    auto = str(message.get("Auto-Submitted", "no")).strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = str(message.get("Precedence", "")).strip().lower()
    if precedence in AUTOMATIC_PRECEDENCE:
        return f"Precedence: {precedence}"
    if str(message.get("Return-Path", "")).strip() == "<>":
        return "bounce (empty Return-Path)"
    if message.get_content_type() == "multipart/report":
        return "delivery report"
    sender = str(message.get("From", "")).lower()
    if "mailer-daemon@" in sender or "postmaster@" in sender:
        return "bounce (mailer daemon)"
    return None


def find_seat(
    message: EmailMessage,
    games: GameService,
    settings: MailSettings,
    recipients: list[str] | None,
) -> tuple[str, int] | None:
    """The ``(game, seat)`` whose valid key is in a recipient address."""
    headers = ("Delivered-To", "X-Original-To", "To", "Cc")
    candidates = list(recipients or [])
    candidates += [
        address
        for _, address in getaddresses(
            [str(value) for name in headers for value in message.get_all(name, [])]
        )
    ]
    for address in candidates:
        found = parse_reply_address(settings, address, games.store.mail_generation)
        if found is not None:
            return found
    return None


def read_move_text(message: EmailMessage) -> tuple[str | None, str]:
    """``(problem, notation)``: the move from the Subject or the body, or why there is none."""
    for part in message.walk():
        if not part.is_multipart() and part.get_content_type() not in TEXT_TYPES:
            return f"attachments ({part.get_content_type()}) are not accepted", ""
    match = SUBJECT_MOVE.search(str(message.get("Subject", "")))
    if match:
        return None, match["move"].strip()
    body = message.get_body(preferencelist=("plain", "html"))
    text = "" if body is None else body.get_content()
    if body is not None and body.get_content_type() == "text/html":
        text = TAG.sub("\n", text)
    lines = [line.strip() for line in text.splitlines()]
    for number, line in enumerate(lines):
        if line == "--":
            break
        if line and not line.startswith(">") and not _attribution(line, lines[number + 1 :]):
            return None, line[:500]
    return "no move found: write it on the first line of your reply", ""


def _attribution(line: str, rest: list[str]) -> bool:
    """Whether ``line`` introduces a quote ("On Monday, Turnpost wrote:")."""
    following = next((other for other in rest if other), "")
    return line.endswith(":") and following.startswith(">")


def expected_seq(games: GameService, game_id: str, message: EmailMessage) -> int | None:
    """The seq of the turn mail this message answers, if it answers one of this game's."""
    in_reply_to = str(message.get("In-Reply-To", "")).strip()
    if not in_reply_to:
        return None
    row = games.store.outbox_by_message_id(in_reply_to)
    if row is None or row["game_id"] != game_id:
        return None
    return row["seq"]


def _idempotency_key(message_id: str | None) -> str | None:
    if not message_id:
        return None
    return "mail:" + hashlib.sha256(message_id.encode()).hexdigest()


def _already_answered(games: GameService, message_id: str) -> bool:
    """Whether a confirmation or refusal of ``message_id`` is already in the outbox."""
    return games.store.outbox_replies_to(message_id) > 0


def _reject(
    games: GameService,
    game_id: str,
    seat: int,
    message_id: str | None,
    notation: str,
    reason: str,
) -> Outcome:
    """Answer the seat with the reason; nothing is applied."""
    game = games.load(game_id)
    with games.store.write():
        games.queue_mail(game, seat, "rejected", message_id, notation=notation, reason=reason)
    return Outcome("rejected", reason, game_id, seat)


def describe(outcome: Outcome) -> dict[str, Any]:
    """The outcome as a plain dict (for the CLI and logs)."""
    return {key: value for key, value in vars(outcome).items() if value is not None}
