"""Deliver the outbox over SMTP: drop what is stale, render the rest, send with retries.

``TURNPOST_SMTP_URL`` names the server:

- ``smtp://host:25`` plain SMTP (e.g. a local MTA),
- ``smtp+starttls://user:password@host:587`` STARTTLS, then AUTH,
- ``smtps://user:password@host:465`` SMTP over TLS.

Each run claims the due rows (their next attempt moves one lease ahead, so
two workers never send the same row at once), then, seat by seat:

1. **No stale nagging.** A turn mail or reminder whose turn was played (or
   whose game ended) since it was queued is *superseded*: recorded with the
   reason and never sent; so is an invitation to a game that ended or was
   cancelled, or to a seat taken meanwhile (:mod:`server.mail.invitations`).
   So is a mail to an address that asked never to be mailed again, or
   (except answers to the player's own mails) to a seat that stopped its
   mail: the mail gate (:mod:`server.mail.gate`) runs again.
2. **One mail per seat and run.** The rows left for one seat are rendered
   together (:mod:`server.mail.render`) into one mail, a digest when there
   are several, with the game as it is now and this process's settings
   (base URL, mail domain), with the table talk the seat was not mailed yet
   (its cursor moves on once the mail is sent; a seat that has not acted gets
   none: those are other people's words). The mail's Message-ID is given to its last row
   when it is first sent and kept, so a crash after the SMTP server accepted
   a mail but before the row was marked sent resends it with the same
   Message-ID, and mail clients show it once; no mail is lost.

A row that cannot be rendered, that the SMTP server refuses for good (a 5xx
answer) or that fails for a reason other than the network or the server, is
marked failed with its reason and never retried; it never holds up the rows
behind it. Every mail carries a one-click ``List-Unsubscribe`` header
(RFC 8058) that stops mail for that seat. After
``TURNPOST_MAIL_RETENTION_DAYS`` a mail that is done keeps only its headers
(:func:`forget_bodies`).

    >>> target = parse_smtp_url("smtp+starttls://ann:pw@mail.example.org")
    >>> target.port, target.security, target.username
    (587, 'starttls', 'ann')
"""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass, field
from datetime import timedelta
from email import policy
from email.message import EmailMessage
from email.utils import format_datetime
from urllib.parse import unquote, urlsplit

from server.accounts.mail import account_message
from server.games.clock import format_time, parse_time, utcnow
from server.games.game import Game, log_entry
from server.games.service import GameService
from server.games.talk import TalkService
from server.i18n import recipient_language, recipient_zone
from server.logs import log_mail
from server.mail.addresses import new_message_id, recipient_key, reply_address, stop_url
from server.mail.gate import withheld_when_sent
from server.mail.invitations import invitation_letter, inviter_name
from server.mail.invitations import superseded as invitation_superseded
from server.mail.render import RECENT_MOVES as RECENT
from server.mail.render import Letter, compose
from server.mail.settings import MailSettings
from server.notify.digest import digest_message
from server.store.base import Store
from server.store.records import OutboxMail

#: Seconds a claimed row is left alone before another attempt may take it.
LEASE_SECONDS = 300
MAX_ATTEMPTS = 8
BATCH = 50
#: Headers given with :meth:`~email.message.Message.set_raw` go out unfolded (a long
#: ``List-Unsubscribe`` URL would otherwise be RFC 2047-encoded, which clients don't read),
#: and no header is folded under RFC 5322's line limit: the email package folds some
#: subjects ("... (move 4): ...") before their first word, which some readers keep as a space.
OUTBOUND_POLICY = policy.default.clone(refold_source="none", max_line_length=998)
#: Mails that only nag about a turn: stale once the turn is played.
NAGGING = frozenset({"turn", "reminder"})
SCHEMES = {"smtp": ("plain", 25), "smtp+starttls": ("starttls", 587), "smtps": ("ssl", 465)}


@dataclass(frozen=True)
class SmtpTarget:
    """Where and how to connect for sending."""

    host: str
    port: int
    security: str
    username: str | None = None
    password: str | None = None


def parse_smtp_url(url: str) -> SmtpTarget:
    """An :class:`SmtpTarget` from ``smtp://``, ``smtp+starttls://`` or ``smtps://`` URLs."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise ValueError(f"unsupported SMTP URL {url!r}; use smtp://, smtp+starttls:// or smtps://")
    security, default_port = SCHEMES[parts.scheme]
    return SmtpTarget(
        host=parts.hostname,
        port=parts.port or default_port,
        security=security,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def backoff(attempts: int) -> timedelta:
    """Wait before the next attempt: 1, 2, 4... minutes, at most 6 hours."""
    return timedelta(seconds=min(60 * 2 ** max(attempts - 1, 0), 6 * 3600))


@dataclass(frozen=True)
class Outcome:
    """What became of one outbox row in a delivery run."""

    row: OutboxMail
    status: str  # sent | superseded | failed
    reason: str = ""
    #: For a failure: whether it is for good (no retry).
    permanent: bool = False

    def line(self) -> str:
        """One line for the operator: "mail 12 (turn, game a1b2, seat 0) sent: Your turn..."."""
        row = self.row
        what = f"mail {row.id} ({row.kind}, game {row.game_id}, seat {row.seat})"
        if self.status == "failed":
            retry = "for good" if self.permanent else "will retry"
            return f"{what} failed ({retry}): {self.reason}"
        return f"{what} {self.status}: {self.reason}"


@dataclass
class Report:
    """Everything one delivery run did, row by row."""

    outcomes: list[Outcome] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        """Record what became of a row, and log its line (:func:`server.logs.log_mail`)."""
        self.outcomes.append(outcome)
        row = outcome.row
        log_mail(row.id, row.kind, row.game_id, row.seat, outcome.status, outcome.reason)

    def count(self, status: str) -> int:
        """How many rows ended with ``status``."""
        return sum(outcome.status == status for outcome in self.outcomes)

    @property
    def failed_for_good(self) -> list[Outcome]:
        """The failures that will not be retried."""
        return [o for o in self.outcomes if o.status == "failed" and o.permanent]


@dataclass
class Envelope:
    """One mail ready to go: its message and the rows it carries (the last one leads)."""

    message: EmailMessage
    rows: list[OutboxMail]
    #: The id of the last message of the table talk it tells (0: none).
    said_upto: int = 0


def claim_due(store: Store, now: str) -> list[OutboxMail]:
    """Take the rows due at ``now`` for one lease; rows another worker took are skipped."""
    lease_end = format_time(parse_time(now) + timedelta(seconds=LEASE_SECONDS))
    return store.claim_due_mail(now, lease_end, BATCH)


def deliver_due(store: Store, settings: MailSettings, now: str | None = None) -> Report:
    """Supersede, render and send every due outbox row, one mail per seat."""
    now = now or utcnow()
    report = Report()
    envelopes = [
        envelope
        for rows in _by_seat(claim_due(store, now))
        if (envelope := _prepare(store, settings, rows, now, report)) is not None
    ]
    if not envelopes:
        return report
    try:
        smtp = connect(parse_smtp_url(settings.smtp_url))
    except (OSError, smtplib.SMTPException, ValueError) as error:
        for envelope in envelopes:
            _failed(store, envelope.rows, now, f"connect: {error}", report)
        return report
    with smtp:
        for envelope in envelopes:
            _send(store, smtp, envelope, now, report)
    return report


def _by_seat(rows: list[OutboxMail]) -> list[list[OutboxMail]]:
    """``rows`` grouped by game, seat and address (account mails: by address and kind;
    invitations apart: they have their own mail), in the order of each group's first row."""
    groups: dict[tuple[str, int, str, str | None], list[OutboxMail]] = {}
    for row in rows:
        apart = row.game_id is None or row.kind == "invite"
        kind = row.kind if apart else None  # account mails: one per kind; invitations
        groups.setdefault((row.game_id, row.seat, row.to_addr, kind), []).append(row)
    return list(groups.values())


def superseded_reason(store: Store, game: Game, row: OutboxMail) -> str | None:
    """Why ``row`` must not be sent now (its turn was played, mail stopped), or ``None``."""
    seat = game.seats[row.seat]
    stopped = withheld_when_sent(store, seat, row.kind, recipient_key(row.to_addr))
    if stopped:
        return stopped
    if row.kind == "invite":
        return invitation_superseded(game, row)
    if not game.started:
        return "the table has not started: only invitations go out"
    if row.kind in NAGGING:
        if game.status != "active":
            return f"the game is {game.status}"
        if game.seq != row.seq or row.seat not in game.to_move:
            return f"the turn after move {row.seq} was already played"
    return None


def _prepare(
    store: Store, settings: MailSettings, rows: list[OutboxMail], now: str, report: Report
) -> Envelope | None:
    """The mail of one seat's rows, after dropping the stale ones; ``None`` if none is left."""
    if rows[0].game_id is None:
        return _prepare_account(store, settings, rows, now, report)
    try:
        game = GameService(store).load(rows[0].game_id)
        live = []
        for row in rows:
            reason = superseded_reason(store, game, row)
            if reason is None:
                live.append(row)
            else:
                _superseded(store, row, reason, report)
        if not live:
            return None
        return build_envelope(store, settings, game, live, now)
    except Exception as error:  # a poisoned row must not stop the rows behind it
        _failed(store, rows, now, f"cannot build the message: {error!r}", report, retry=False)
        return None


def _prepare_account(
    store: Store, settings: MailSettings, rows: list[OutboxMail], now: str, report: Report
) -> Envelope | None:
    """The newest account mail of a kind to one address (a sign-in link, a daily digest);
    older ones are superseded, and so is a digest when no game waits for its player any more."""
    *older, newest = rows
    for row in older:
        _superseded(store, row, "a newer mail of its kind went to the address", report)
    if store.mail_suppressed(recipient_key(newest.to_addr)):
        _superseded(store, newest, "the recipient asked never to be mailed again", report)
        return None
    try:
        if newest.kind != "digest":
            return Envelope(account_message(settings, newest), [newest])
        digest = digest_message(store, settings, newest, now)
    except Exception as error:  # a poisoned row must not stop the rows behind it
        _failed(store, [newest], now, f"cannot build the message: {error!r}", report, False)
        return None
    if digest is None:
        _superseded(store, newest, "no game waits for the player any more", report)
        return None
    return Envelope(digest, [newest])


def _superseded(store: Store, row: OutboxMail, reason: str, report: Report) -> None:
    """Record that ``row`` will never be sent, and why."""
    store.mail_superseded(row.id, reason)
    report.add(Outcome(row, "superseded", reason))


def build_envelope(
    store: Store, settings: MailSettings, game: Game, rows: list[OutboxMail], now: str
) -> Envelope:
    """The mail telling one seat the news of ``rows``, ready to go."""
    letter = render_letter(store, settings, game, rows, now)
    return Envelope(build_message(store, settings, game, rows, letter), rows, letter.said_upto)


def build_message(
    store: Store, settings: MailSettings, game: Game, rows: list[OutboxMail], letter: Letter
) -> EmailMessage:
    """The message of ``letter``, telling one seat the news of ``rows``: text, HTML and the
    board's PNG."""
    lead, seat = rows[-1], rows[-1].seat
    generation = store.mail_generation(game.id, seat) or 0
    message = EmailMessage(policy=OUTBOUND_POLICY)
    message["From"] = settings.from_address
    message["To"] = lead.to_addr
    message["Subject"] = letter.subject
    message["Message-ID"] = store.give_message_id(
        lead.id, new_message_id(settings, lead.kind, game.id)
    )
    message["Date"] = format_datetime(parse_time(lead.created_at))
    message["Auto-Submitted"] = "auto-generated"
    message.set_raw("List-Unsubscribe", f"<{stop_url(settings, game.id, seat)}>")
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message["Reply-To"] = reply_address(settings, game.id, seat, generation)
    answered = [row.in_reply_to for row in rows if row.in_reply_to]
    if answered:
        message["In-Reply-To"] = answered[-1]
        message["References"] = answered[-1]
    message.set_content(letter.text)
    message.add_alternative(letter.html, subtype="html")
    if letter.picture is not None:
        [_, html] = message.iter_parts()
        html.add_related(
            letter.picture.png,
            maintype="image",
            subtype="png",
            cid=f"<{letter.cid}>",
            disposition="inline",
            filename="board.png",
        )
    return message


def render_letter(
    store: Store, settings: MailSettings, game: Game, rows: list[OutboxMail], now: str
) -> Letter:
    """The mail telling ``rows``' seat their news (nothing is recorded): an invitation,
    or the news of the game with its board and the talk since the seat's last mail."""
    seat = rows[-1].seat
    generation = store.mail_generation(game.id, seat) or 0
    if rows[-1].kind == "invite":
        return invitation_letter(store, settings, game, seat, generation, now)
    language = recipient_language(store, game.seats[seat], settings.language)
    names = [row.name for row in game.seats]
    logged = store.moves(game.id, after=max(0, game.seq - RECENT))
    recent = [log_entry(row, names, language) for row in logged]
    acted = game.seats[seat].acted_at is not None
    said = TalkService(store).unmailed(game, seat) if acted else None
    inviter = inviter_name(store, game)
    zone = recipient_zone(store, game.seats[seat])
    return compose(
        settings, game, seat, rows, recent, generation, now, inviter, said, language, zone
    )


def preview(store: Store, settings: MailSettings, game_id: str, seat: int) -> Letter | None:
    """The mail that the unsent outbox rows of ``seat`` would make now (``None``: no rows)."""
    rows = store.unsent_mail(game_id, seat)
    return (
        render_letter(store, settings, GameService(store).load(game_id), rows, utcnow())
        if rows
        else None
    )


def connect(target: SmtpTarget, timeout: float = 30) -> smtplib.SMTP:
    """An SMTP connection, secured and logged in as ``target`` says."""
    if target.security == "ssl":
        smtp: smtplib.SMTP = smtplib.SMTP_SSL(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context()
        )
    else:
        smtp = smtplib.SMTP(target.host, target.port, timeout=timeout)
        if target.security == "starttls":
            smtp.starttls(context=ssl.create_default_context())
    if target.username:
        smtp.login(target.username, target.password or "")
    return smtp


def _send(store: Store, smtp: smtplib.SMTP, envelope: Envelope, now: str, report: Report) -> None:
    """Send one prepared mail and record it on its rows (a failure is recorded too)."""
    try:
        smtp.send_message(envelope.message)
    except (OSError, smtplib.SMTPException) as error:
        _failed(store, envelope.rows, now, str(error), report, retry=not refused_for_good(error))
        return
    except Exception as error:  # e.g. an address smtplib cannot encode: retrying won't help
        _failed(store, envelope.rows, now, f"cannot send the message: {error!r}", report, False)
        return
    *members, lead = envelope.rows
    subject = str(envelope.message["Subject"])
    store.mail_sent(lead.id, utcnow(), subject, [row.id for row in members])
    if envelope.said_upto:
        store.talk_mailed(lead.game_id, lead.seat, envelope.said_upto)
    for row in envelope.rows:
        told = subject if row is lead else f"in the digest of mail {lead.id}"
        report.add(Outcome(row, "sent", told))


def refused_for_good(error: Exception) -> bool:
    """Whether the SMTP server refused for good (a 5xx answer), so that retrying is useless."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in error.recipients.values())
    return isinstance(error, smtplib.SMTPResponseException) and error.smtp_code >= 500


def _failed(
    store: Store,
    rows: list[OutboxMail],
    now: str,
    error: str,
    report: Report,
    retry: bool = True,
) -> None:
    """Record a failed attempt on ``rows`` and when to try again (never after ``MAX_ATTEMPTS``)."""
    for row in rows:
        attempts = row.attempts + 1
        next_attempt = None
        if retry and attempts < MAX_ATTEMPTS:
            next_attempt = format_time(parse_time(now) + backoff(attempts))
        store.mail_failed(row.id, error[:500], next_attempt)
        report.add(Outcome(row, "failed", error[:500], next_attempt is None))


def forget_bodies(store: Store, retention_days: float, now: str | None = None) -> int:
    """Forget the facts of done mails created over ``retention_days`` ago; how many.

    A done mail was sent or will never be (superseded, or failed for good); its
    headers stay (recipient, subject, Message-ID, In-Reply-To, dates), so
    replies to it still find their game and turn. The text itself was never
    stored: only the facts it was written from (a mailed move, a reason).
    """
    cutoff = format_time(parse_time(now or utcnow()) - timedelta(days=retention_days))
    return store.forget_mail_bodies(cutoff)
