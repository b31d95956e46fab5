"""Moves by email: read one RFC 5322 message and play the move it carries.

A seat replies to ``play+<game>.<seat>.<key>@<domain>`` (the Reply-To of its
turn mails). The move is the Subject after ``move:``, else the first line of
the text body that is not quoted (``>``), not the line introducing a quote,
not empty and not in the signature; an HTML-only reply is read as the text a
mail client shows (no head, style or title, entities decoded, blockquotes
quoted). The ``In-Reply-To`` of a reply to a turn mail gives
``expected_seq``, so a late answer to an old turn mail is refused as stale
rather than applied. A first line that is a mail command (``board``,
``moves``, ``resign``, ``vacation 7``, ``stop``, ``start``, ``help``: see
:mod:`server.mail.commands`) is carried out and answered instead. A reply
that is table talk (``say: ...``, or words that are neither a move nor a
command and do not look like a move: see :mod:`server.mail.talk`) is posted
to the game's table, and the answer says so.

The From header is never trusted: only the secret key in the address says who
moves, and answers go to the seat's registered email. Bounces and
auto-replies are dropped without an answer (no mail loops). Mail over
:data:`MAX_MESSAGE_BYTES`, with attachments, or that the email parser cannot
read (nested too deeply, broken structure) is refused with an explanation
(an image shown inline, such as the quoted board picture, is not an attachment);
text in an unknown or empty character set is read as UTF-8. Refusals to one
seat are limited (:mod:`server.mail.gate`), so a seat key cannot make Turnpost
send mail without end.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser, BytesParser
from email.utils import getaddresses
from html.parser import HTMLParser
from typing import Any

from engines.phrases import N_, Phrase, Words, english, phrase
from server.errors import TurnpostError
from server.games.clock import utcnow
from server.games.game import Game
from server.games.service import GameService, MoveRequest
from server.games.talk import TalkService
from server.i18n import recipient_language
from server.mail.addresses import parse_reply_address, plain_message_id, reply_domain
from server.mail.commands import parse_command, run_command
from server.mail.identity import sender_of_mail
from server.mail.settings import MailSettings
from server.mail.talk import spoken

MAX_MESSAGE_BYTES = 256 * 1024
TEXT_TYPES = {"text/plain", "text/html"}
AUTOMATIC_PRECEDENCE = {"bulk", "junk", "list", "auto_reply"}
SUBJECT_MOVE = re.compile(r"\bmove:\s*(?P<move>.+)$", re.IGNORECASE)
ADDRESS_HEADERS = ("Delivered-To", "X-Original-To", "To", "Cc")
#: Lines that end what a reply says: the quote separators of mail programs that do not
#: quote with ``>``, and phones' signatures.
QUOTE_START = re.compile(
    r"^(-{2,} ?original message ?-{2,}|_{8,}|from: .+|sent from my .+|get outlook for .+)$",
    re.IGNORECASE,
)
#: Why a mail was not read, said to its seat in its language (:func:`unread`).
UNREAD = {
    "large": N_(
        "your mail is larger than %(size)s KiB, so Turnpost did not read it; please reply in"
        " plain text with your move on the first line, without attachments"
    ),
    "nested": N_(
        "your mail is nested too deeply to read; please reply in plain text with your move on"
        " the first line"
    ),
    "unreadable": N_(
        "Turnpost could not read your mail; please reply in plain text with your move on the"
        " first line"
    ),
    "attachment": N_("attachments (%(kind)s) are not accepted"),
    "empty": N_("no move found: write it on the first line of your reply"),
}
#: The outcome of a mail delivered again (same Message-ID) after it was handled.
DUPLICATE = "this message was already handled"

log = logging.getLogger(__name__)


@dataclass
class Outcome:
    """What became of one incoming message."""

    status: str  # applied | command | said | rejected | dropped | duplicate
    reason: str
    game_id: str | None = None
    seat: int | None = None
    seq: int | None = None
    #: For a refusal or a command: whether the seat was mailed the answer (they are limited).
    answered: bool | None = None


@dataclass
class Headers:
    """What Turnpost reads from a message's header, before its body."""

    subject: str = ""
    message_id: str | None = None
    in_reply_to: str | None = None
    automatic: str | None = None
    addresses: list[str] = field(default_factory=list)


def receive(
    raw: bytes,
    games: GameService,
    settings: MailSettings,
    recipients: list[str] | None = None,
) -> Outcome:
    """Apply the move in ``raw`` (``recipients``: the envelope's, if known) or explain why not."""
    headers = read_headers(raw)
    if headers is None:
        return Outcome("dropped", "the header cannot be parsed")
    if headers.automatic:
        return Outcome("dropped", headers.automatic)
    target = find_seat(headers.addresses, games, settings, recipients)
    if target is None:
        return Outcome("dropped", why_no_seat(headers.addresses, games, settings, recipients))
    game_id, seat = target
    games.player_acted(game_id, seat)  # a mail carrying the seat's key: the player reads it
    message_id = headers.message_id
    if len(raw) > MAX_MESSAGE_BYTES:
        problem, reply = unread("large", size=MAX_MESSAGE_BYTES // 1024), Reply()
    else:
        problem, reply = read_move(raw, headers.subject)
    if problem:
        return _reject(games, game_id, seat, message_id, "", problem)
    game = games.load(game_id)
    language = recipient_language(games.store, game.seats[seat], settings.language)
    command = parse_command(reply.first, language)
    # the seat's language's words for the notation's words ("draai b2 Z") read as notation
    notation = reply.first if command else game.engine.in_notation(reply.first, language)
    talk = None if command else spoken(game.engine, game.state, notation, reply.words)
    if talk is not None:
        return _say(games, game, seat, message_id, *talk)
    if command is not None:
        if not _first_delivery(games, message_id, game_id, seat):
            return Outcome("duplicate", DUPLICATE, game_id, seat)
        answered = run_command(games, game_id, seat, message_id, command)
        return Outcome("command", command.name, game_id, seat, answered=answered)
    key = _idempotency_key(message_id)
    if key and games.store.idempotent_response(game_id, seat, key):
        return Outcome("duplicate", DUPLICATE, game_id, seat)
    try:
        answer = games.submit(
            MoveRequest(
                game_id,
                seat=seat,
                notation=notation,
                expected_seq=expected_seq(games, game_id, headers.in_reply_to),
                idempotency_key=key,
                mail_message_id=message_id or "",
            )
        )
    except TurnpostError as error:
        if error.code == "not_found":
            return Outcome("dropped", error.message, game_id, seat)
        return _reject(games, game_id, seat, message_id, reply.first, error)
    return Outcome("applied", notation, game_id, seat, answer["seq"])


def read_headers(raw: bytes) -> Headers | None:
    """The :class:`Headers` of ``raw``, or ``None`` if the email parser fails on them."""
    try:
        message = BytesHeaderParser(policy=policy.default).parsebytes(raw)
        values = [str(value) for name in ADDRESS_HEADERS for value in message.get_all(name, [])]
        return Headers(
            subject=str(message.get("Subject", "")),
            message_id=plain_message_id(message.get("Message-ID")),
            in_reply_to=plain_message_id(message.get("In-Reply-To")),
            automatic=automatic_reason(message),
            addresses=[address for _, address in getaddresses(values)],
        )
    except Exception:  # the email package fails on hostile input in many ways
        log.warning("unreadable mail header", exc_info=True)
        return None


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
    addresses: list[str],
    games: GameService,
    settings: MailSettings,
    recipients: list[str] | None,
) -> tuple[str, int] | None:
    """The ``(game, seat)`` whose valid key is in an envelope recipient or a header address."""
    for address in [*(recipients or []), *addresses]:
        found = parse_reply_address(settings, address, games.store.mail_generation)
        if found is not None:
            return found
    return None


#: Characters of a foreign domain quoted in an outcome (it comes from the message).
QUOTED_DOMAIN = 100


def why_no_seat(
    addresses: list[str],
    games: GameService,
    settings: MailSettings,
    recipients: list[str] | None,
) -> str:
    """Why no address of a message is a seat's, naming the setting to fix when the reply
    address was made with another mail domain or secret key than this process has.

    The envelope's recipients come first: the header's addresses are the sender's to choose.
    """
    domains = [
        domain
        for address in [*(recipients or []), *addresses]
        if (domain := reply_domain(address)) is not None
    ]
    if not domains:
        return "no Turnpost reply address (play+...) among the recipients"
    sender = sender_of_mail(games.store)
    senders = f" (the {sender.process} that sends mail has {sender.domain})" if sender else ""
    if settings.domain.lower() not in domains:
        return (
            f"the reply address is for the mail domain {domains[0][:QUOTED_DOMAIN]}, but"
            f" TURNPOST_MAIL_DOMAIN is {settings.domain} here{senders}: give every process the"
            " same TURNPOST_MAIL_DOMAIN"
        )
    if sender is not None and not sender.same_key(settings):
        return (
            f"the reply key was not made with this process's TURNPOST_SECRET_KEY, which differs"
            f" from the one the {sender.process} sends mail with: give every process the same"
            " TURNPOST_SECRET_KEY"
        )
    return "no valid Turnpost reply address (unknown or revoked key)"


@dataclass(frozen=True)
class Reply:
    """What a reply says: its ``first`` line (a move or a command) and all its ``words``."""

    first: str = ""
    words: str = ""


def unread(why: str, **args: str | int) -> Phrase:
    """Why a mail was not read (a key of :data:`UNREAD`), a phrase said in its seat's language.

    >>> english(unread("attachment", kind="application/pdf"))
    'attachments (application/pdf) are not accepted'
    """
    return phrase(UNREAD[why], **args)


def read_move(raw: bytes, subject: str) -> tuple[Phrase | None, Reply]:
    """``(problem, reply)`` of the whole message ``raw``; a parser failure is a problem."""
    try:
        message = BytesParser(policy=policy.default).parsebytes(raw)
        return read_move_text(message, subject)
    except RecursionError:
        return unread("nested"), Reply()
    except Exception:  # the email package fails on hostile input in many ways
        log.warning("unreadable mail body", exc_info=True)
        return unread("unreadable"), Reply()


def read_move_text(message: EmailMessage, subject: str) -> tuple[Phrase | None, Reply]:
    """``(problem, reply)``: the move from the Subject or the body, or why there is none."""
    for part in message.walk():
        if part.is_multipart() or part.get_content_type() in TEXT_TYPES:
            continue
        if part.get_content_disposition() == "attachment" or not _inline_image(part):
            return unread("attachment", kind=part.get_content_type()), Reply()
    match = SUBJECT_MOVE.search(subject)
    if match:
        return None, Reply(match["move"].strip(), match["move"].strip())
    body = message.get_body(preferencelist=("plain", "html"))
    text = "" if body is None else part_text(body)
    if body is not None and body.get_content_type() == "text/html":
        text = html_text(text)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    for number, line in enumerate(lines):
        if line == "--":
            break
        if line and not line.startswith(">") and not _attribution(line, lines[number + 1 :]):
            return None, Reply(line[:500], reply_words(lines[number:]))
    return unread("empty"), Reply()


def reply_words(lines: list[str]) -> str:
    """What a reply says from its first line on: up to the quoted mail or the signature
    (blank lines kept, one at a time).

    >>> reply_words(["gg!", "", "", "Ann", "", "On Monday, Turnpost wrote:", "> Your turn"])
    'gg!\\n\\nAnn'
    >>> reply_words(["Well played", "Sent from my phone", "", "From: Turnpost"])
    'Well played'
    """
    words: list[str] = []
    for number, line in enumerate(lines):
        if line == "--" or line.startswith(">") or QUOTE_START.match(line):
            break
        if _attribution(line, lines[number + 1 :]):
            break
        if line or (words and words[-1]):
            words.append(line)
    return "\n".join(words).strip()


def _inline_image(part: EmailMessage) -> bool:
    """Whether ``part`` is an image shown in the text (a reply quoting the board picture)."""
    return part.get_content_maintype() == "image" and part.get_content_disposition() != "attachment"


def part_text(part: EmailMessage) -> str:
    """The text of a text part; an unknown or empty character set is read as UTF-8."""
    try:
        return part.get_content()
    except LookupError:
        return (part.get_payload(decode=True) or b"").decode("utf-8", "replace")


class _VisibleText(HTMLParser):
    """Collects the text a mail client shows of an HTML body, quotes marked with ``>``."""

    HIDDEN = frozenset({"head", "title", "style", "script", "template"})
    BREAKS = frozenset(
        {"br", "p", "div", "li", "tr", "blockquote", "pre", "table", "h1", "h2", "h3", "h4"}
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0
        self.quoted = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._enter(tag, 1)

    def handle_endtag(self, tag: str) -> None:
        self._enter(tag, -1)

    def _enter(self, tag: str, step: int) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(self.hidden + step, 0)
        elif tag == "blockquote":
            self.quoted = max(self.quoted + step, 0)
        if tag in self.BREAKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        if self.quoted:
            data = "\n> " + data.replace("\n", "\n> ")
        self.parts.append(data)


def html_text(html: str) -> str:
    """The visible text of an HTML mail body, line by line.

    >>> mail = "<head><title>Re: turn</title><style>p {}</style></head><body><p>enter&nbsp;a1"
    >>> html_text(mail + "&nbsp;N</p><blockquote>old</blockquote></body>").split()
    ['enter', 'a1', 'N', '>', 'old']
    """
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def _attribution(line: str, rest: list[str]) -> bool:
    """Whether ``line`` introduces a quote ("On Monday, Turnpost wrote:")."""
    following = next((other for other in rest if other), "")
    return line.endswith(":") and following.startswith(">")


def expected_seq(games: GameService, game_id: str, in_reply_to: str | None) -> int | None:
    """The seq of the turn mail ``in_reply_to`` names, if it is one of this game's."""
    if not in_reply_to:
        return None
    row = games.store.outbox_by_message_id(in_reply_to)
    if row is None or row.game_id != game_id:
        return None
    return row.seq


def _idempotency_key(message_id: str | None) -> str | None:
    if not message_id:
        return None
    return "mail:" + hashlib.sha256(message_id.encode()).hexdigest()


def _reject(
    games: GameService,
    game_id: str,
    seat: int,
    message_id: str | None,
    notation: str,
    problem: Words | TurnpostError,
) -> Outcome:
    """Answer the seat with the reason (within its refusal limit); nothing is applied.

    Text that is not notation is answered with the mail commands too.
    """
    if not _first_delivery(games, message_id, game_id, seat):
        return Outcome("duplicate", DUPLICATE, game_id, seat)
    with games.store.write():
        game = games.load(game_id)
        if isinstance(problem, TurnpostError):
            reason = refusal_words(problem, game, seat)
        else:
            reason = problem
        notifier = games.notifier
        unknown = isinstance(problem, TurnpostError) and problem.code == "invalid_move"
        answered = notifier is not None and notifier.refusal(
            games.store, game, seat, message_id, notation, reason, commands=unknown
        )
    return Outcome("rejected", english(reason), game_id, seat, answered=answered)


def _say(
    games: GameService, game: Game, seat: int, message_id: str | None, thread: str, words: str
) -> Outcome:
    """Post ``words`` to ``thread`` as ``seat`` and answer that they were (or why not)."""
    if not _first_delivery(games, message_id, game.id, seat):
        return Outcome("duplicate", DUPLICATE, game.id, seat)
    facts: dict[str, Any] = {"command": "say", "thread": thread}
    try:
        TalkService(games.store).post(game, seat, words, thread, via="mail")
    except TurnpostError as error:
        facts["error"] = error.words
    with games.store.write():
        notifier = games.notifier
        answered = notifier is not None and notifier.answer(
            games.store, games.load(game.id), seat, message_id, **facts
        )
    if "error" in facts:
        return Outcome("rejected", english(facts["error"]), game.id, seat, answered=answered)
    return Outcome("said", thread, game.id, seat, answered=answered)


def _first_delivery(games: GameService, message_id: str | None, game_id: str, seat: int) -> bool:
    """Claim a mail by reply as handled (by its Message-ID); ``False`` if it was before.

    Commands and refusals are claimed before they run, so a mail delivered
    twice never runs its command twice (a move is known by its idempotency
    key, kept with the move). A mail without a Message-ID cannot be told apart.
    """
    if not message_id:
        return True
    with games.store.write():
        return games.store.claim_inbound(message_id, game_id, seat, utcnow())


def refusal_words(error: TurnpostError, game: Game, seat: int) -> Words:
    """Why a mailed move was refused, said to the player (the service speaks to programs): a
    phrase, read in the recipient's language when the answer is written."""
    if error.code == "stale_seq":
        return phrase(
            "the game moved on since the mail you answered; it is at move %(move)s now, so"
            " reply to the newest mail",
            move=game.seq + 1,
        )
    if error.code == "not_your_turn":
        waiting = [game.seats[s].name for s in game.to_move]
        return phrase("it is not your turn: the game waits for %(seats)s", seats=waiting)
    if error.code == "game_over":
        return phrase("the game is over")
    return error.words


def describe(outcome: Outcome) -> dict[str, Any]:
    """The outcome as a plain dict (for the CLI and logs)."""
    return {key: value for key, value in vars(outcome).items() if value is not None}
