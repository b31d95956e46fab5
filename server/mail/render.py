"""Rendering a mail when it is sent: its subject, text and HTML parts, and the board picture.

One mail tells one seat the news of one or more outbox rows (several rows
for the same seat in one run make a digest) about the game as it is now,
and what was said at the table since its last mail ("Bob said: ...", see
:meth:`server.games.talk.TalkService.unmailed`).
Every mail shows the board twice: the text board (``boards/<id>.txt``) in
the plain-text part, and in the HTML part the PNG of the game's SVG board
(:mod:`server.mail.picture`) with the text board as its alt text. The HTML
is laid out with tables and attributes, without ``<style>``, SVG or scripts,
so that it reads the same in clients that strip them. No JSON anywhere.

    >>> SUBJECTS["turn"] % {"title": "Siam with Bob", "move": 3, "prompt": "enter an elephant"}
    'Your turn in Siam with Bob (move 3): enter an elephant'

A mail is written in its recipient's language (:func:`server.i18n.recipient_language`):
the subjects and the fixed words around the game's own are looked up in its catalog.
"""

from __future__ import annotations

import logging
import textwrap
from dataclasses import dataclass, field
from typing import Any

import jinja2

from engines import Engine
from engines.words import result_sentence
from server.boards import Board, last_touched, render_board
from server.games.clock import parse_time
from server.games.game import Game, game_object
from server.games.seat_clocks import clock_view
from server.games.talk import PARTNERS, Said
from server.i18n import N_, catalog, template_words
from server.mail import words
from server.mail.addresses import seat_link, stop_url, unsubscribe_url
from server.mail.picture import Picture, rasterise
from server.mail.settings import MailSettings
from server.phrases import render
from server.resources import templates_dir
from server.store.records import OutboxMail
from server.words import time_left_words

#: The subject of each kind of mail (every subject Turnpost writes is here), in English:
#: each is the message id of its translations.
SUBJECTS = {
    "turn": N_("Your turn in %(title)s (move %(move)s): %(prompt)s"),
    "reminder": N_("Reminder: your turn in %(title)s (move %(move)s)"),
    "reminder_by": N_("Reminder: your turn in %(title)s (move %(move)s), by %(deadline)s"),
    "expired": N_("Time is up: your turn in %(title)s (move %(move)s)"),
    "game_over": N_("Game over in %(title)s: %(outcome)s"),
    "ended": N_("Game over in %(title)s"),
    "accepted": N_("Move accepted in %(title)s (move %(seq)s): %(notation)s"),
    "rejected": N_("Move not played in %(title)s: %(notation)s"),
    "unread": N_("Move not played in %(title)s"),
    "board": N_("The board of %(title)s (move %(move)s)"),
    "moves": N_("Your legal moves in %(title)s (move %(move)s)"),
    "help": N_("Mail commands for %(title)s"),
    "resign": N_("You resigned in %(title)s"),
    "takeback": N_("Takeback in %(title)s"),
    "conditional": N_("Conditional moves in %(title)s"),
    "vacation": N_("Vacation in %(title)s until %(until)s"),
    "no_vacation": N_("No vacation in %(title)s"),
    "stop": N_("Mail stopped for %(title)s"),
    "start": N_("Mail on again for %(title)s"),
    "said": N_("Posted to the table of %(title)s"),
    "said_team": N_("Posted to your team in %(title)s"),
    "not_said": N_("Not posted to the table of %(title)s"),
}
#: What a mail to a player who has not acted yet says about the mails to come.
INVITATION = N_(
    "This is the only mail Turnpost sends you about this game until you open your page"
    " (the link above) or reply to this mail: that way nobody can use Turnpost to send"
    " mail to an address that does not play."
)
#: Which news gives a digest its subject: the first kind here that it holds.
PRIORITY = ("game_over", "turn", "reminder", "answer", "rejected", "accepted")
#: How many recent moves a mail shows.
RECENT_MOVES = 6
#: How many legal moves the answer to ``moves`` lists.
LISTED_MOVES = 100
#: The width of the plain-text part.
TEXT_WIDTH = 72

environment = jinja2.Environment(
    loader=jinja2.FileSystemLoader(templates_dir()),
    autoescape=jinja2.select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    extensions=["jinja2.ext.i18n"],
)
environment.newstyle_gettext = True  # type: ignore[attr-defined]  # the i18n extension's switch
environment.policies["ext.i18n.trimmed"] = True

log = logging.getLogger(__name__)


def wrap(text: str, indent: int = 0, first: int | None = None) -> str:
    """``text`` wrapped at 72 columns, indented by ``indent`` (the first line by ``first``).

    URLs and notation are never broken.

    >>> print(wrap("Ann enters an elephant on a1, facing north. " * 2, 4, 0))
    Ann enters an elephant on a1, facing north. Ann enters an elephant on
        a1, facing north.
    """
    return textwrap.fill(
        text,
        TEXT_WIDTH,
        initial_indent=" " * (indent if first is None else first),
        subsequent_indent=" " * indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


environment.filters["wrap"] = wrap


@dataclass
class Letter:
    """One mail, rendered: what :mod:`server.mail.delivery` puts into the message."""

    subject: str
    text: str
    html: str
    picture: Picture | None
    #: The Content-ID the HTML part shows the picture by (``cid:...``).
    cid: str
    #: The id of the last message of the table talk it tells (0: none).
    said_upto: int = 0


@dataclass
class News:
    """What the rows of one mail say, built up row by row."""

    #: The game as the subject names it: without the other players' names until the
    #: player acted (names are the creator's words, which must not make a mail's subject).
    title: str
    subject: str = ""
    paragraphs: list[str] = field(default_factory=list)
    #: The mail commands to list (``help``, or a mail that was neither a move nor a command).
    commands: bool = False
    #: Every legal move to list (the answer to ``moves``).
    all_moves: bool = False
    #: The language of the mail.
    language: str = "en"
    #: The time zone its moments are in (the recipient's).
    zone: str = "UTC"

    def say(self, message: str, **params: Any) -> str:
        """``message`` (a message id) in the mail's language, with ``params``."""
        return catalog(self.language).gettext(message) % params


def compose(
    settings: MailSettings,
    game: Game,
    seat: int,
    rows: list[OutboxMail],
    recent: list[dict[str, Any]],
    generation: int,
    now: str,
    inviter: str | None = None,
    said: Said | None = None,
    language: str = "en",
    zone: str = "UTC",
) -> Letter:
    """The mail to ``seat`` with the news of its outbox ``rows`` (oldest first).

    ``recent``: the last public log entries; ``generation``: the seat's key
    generation (its link); ``now``: the moment it is sent; ``inviter``: the
    name of the game's host, told (in the body) to a player who has not acted
    yet, for whom this mail is the invitation; ``said``: the messages of the
    table talk to tell; ``language`` and ``zone`` (the time zone of its moments): the
    recipient's.
    """
    said = said or Said()
    view = game_object(game, seat)
    names = [row.name for row in game.seats]
    engine, state = game.engine, game.state
    heading = words.title(engine, names, seat, language)
    playing = game.status == "active" and seat in game.to_move
    news = news_of(game, seat, rows, heading, now, recent, language, zone)
    if inviter and game.seats[seat].acted_at is None:
        invited = news.say(
            "%(name)s invited you to play %(game)s on Turnpost.", name=inviter, game=heading
        )
        news.paragraphs.insert(0, invited)
    legal = engine.legal_moves(state, seat) if playing else []
    turns = words.example_turns(engine, state, seat, legal)
    board = Board(last=last_touched(recent[-1]["move"]) if recent else frozenset())
    board_text = _text_board(view, board, language)
    cid = f"board.{game.id}.{game.seq}.{seat}@{settings.domain}"
    context = {
        "engine": engine,
        "game": view,
        "name": names[seat],
        "heading": heading,
        "news": news,
        "playing": playing,
        "prompt": render(engine.prompt(state, seat), names, language) if playing else "",
        "move": game.seq + 1,
        "deadline": words.when(game.row.deadline, now, language, zone) if game.row.deadline else "",
        **(_bank(game, seat, now, language, zone) if playing else {}),
        "examples": words.example_moves(engine, state, seat, turns, names, language),
        "legal_count": len(legal),
        "split": words.splits_turns(turns),
        "all_moves": _all_moves(game, seat, legal, names, language) if news.all_moves else [],
        "commands": words.command_list(language),
        "commands_line": words.commands_line(language),
        "board_text": board_text,
        "board_caption": news.say("The board after move %(move)s", move=game.seq)
        if game.seq
        else news.say("The board"),
        "cid": cid,
        "recent": [(entry["seq"], entry["description"]) for entry in recent[-RECENT_MOVES:]],
        "acted": game.seats[seat].acted_at is not None,
        "invitation": news.say(INVITATION),
        "language": language,
        **template_words(language),
        "link": seat_link(settings, game.id, seat, generation, milliseconds(now)),
        "stop": stop_url(settings, game.id, seat),
        "unsubscribe": unsubscribe_url(settings, game.seats[seat].email),
        "said": [_said(entry) for entry in said.entries],
        "said_earlier": _earlier(said.earlier, language) if said.earlier else "",
    }
    text = environment.get_template("email/mail.txt").render(**context)
    picture = _picture(view, board, language)
    html = environment.get_template("email/mail.html").render(picture=picture, **context)
    return Letter(news.subject, text, html, picture, cid, said.upto)


def _bank(game: Game, seat: int, now: str, language: str, zone: str) -> dict[str, str]:
    """The time ``seat`` has left in its bank at ``now`` in words (``bank_left``, as its game
    page says it) and when its move runs out (``bank_until``); nothing without a bank."""
    clock = clock_view(game.row, game.seats, now)
    if clock is None or clock["kind"] != "bank":
        return {}
    time = clock["seats"][seat]
    if time["runs_out_at"] is None:
        return {}
    return {
        "bank_left": time_left_words(time, language),
        "bank_until": words.when(time["runs_out_at"], now, language, zone),
    }


def _earlier(count: int, language: str) -> str:
    """ "3 earlier messages" in ``language``."""
    earlier = catalog(language).ngettext(
        "%(num)d earlier message", "%(num)d earlier messages", count
    )
    return earlier % {"num": count}


def _said(entry: dict[str, Any]) -> dict[str, Any]:
    """A message as a mail tells it: who said it (to whom) and its lines.

    >>> _said({"name": "Bob", "thread": "partners", "text": "go north\\nnow"})
    {'who': 'Bob said to your team', 'lines': ['go north', 'now']}
    """
    to_team = " to your team" if entry["thread"] == PARTNERS else ""
    return {"who": f"{entry['name']} said{to_team}", "lines": entry["text"].split("\n")}


def milliseconds(moment: str) -> int:
    """A stored moment as Unix time in milliseconds (when a mail's seat link was issued)."""
    return int(parse_time(moment).timestamp() * 1000)


def _text_board(view: dict[str, Any], board: Board, language: str) -> str:
    """The text board, or a pointer to the page for a game that has none yet (never JSON)."""
    try:
        return render_board("txt", view, board, language).rstrip()
    except jinja2.TemplateNotFound:
        return "(This game has no text board yet: your page shows the board.)"


def _picture(view: dict[str, Any], board: Board, language: str) -> Picture | None:
    """The board as a PNG, or ``None`` if it cannot be drawn (the mail then shows the text)."""
    try:
        return rasterise(render_board("svg", view, board, language))
    except jinja2.TemplateNotFound:
        return None
    except Exception:  # a board that cannot be drawn must not stop the mail
        log.exception("board picture of game %s failed", view["id"])
        return None


def _all_moves(
    game: Game, seat: int, legal: list[dict[str, Any]], names: list[str], language: str
) -> list[tuple[str, str]]:
    """The first :data:`LISTED_MOVES` legal moves as ``(notation, sentence)`` in ``language``."""
    engine = game.engine
    return [
        (engine.format(move), words.sentence(engine, game.state, seat, move, names, language))
        for move in legal[:LISTED_MOVES]
    ]


def news_of(
    game: Game,
    seat: int,
    rows: list[OutboxMail],
    heading: str,
    now: str,
    recent: list[dict[str, Any]],
    language: str = "en",
    zone: str = "UTC",
) -> News:
    """The subject and the paragraphs that tell ``seat`` the news of ``rows`` in ``language``,
    moments in the time ``zone``."""
    acted = game.seats[seat].acted_at is not None
    news = News(heading if acted else game.engine.name, language=language, zone=zone)
    lead = min(rows, key=lambda row: PRIORITY.index(row.kind))
    sentences = {entry["seq"]: entry["description"] for entry in recent}
    for row in rows:
        facts = {**(row.facts or {}), "seq": row.seq}
        facts["sentence"] = sentences.get(row.seq, "")
        subject, paragraphs = _tell(game, seat, row.kind, facts, heading, now, news)
        news.paragraphs += paragraphs
        if row is lead:
            news.subject = subject
    return news


def _tell(
    game: Game, seat: int, kind: str, facts: dict[str, Any], heading: str, now: str, news: News
) -> tuple[str, list[str]]:
    """The subject and paragraphs of one row (``kind`` with its ``facts``)."""
    move, names = game.seq + 1, [row.name for row in game.seats]
    language = news.language
    deadline = words.when(game.row.deadline, now, language, news.zone) if game.row.deadline else ""
    prompt = game.engine.prompt(game.state, seat) if seat in game.to_move else ""
    prompt = render(prompt, names, language)
    say = news.say
    if kind == "turn":
        subject = say(SUBJECTS["turn"], title=news.title, move=move, prompt=prompt)
        return subject, [
            say(
                "It is your turn in %(game)s, move %(move)s: %(prompt)s.",
                game=heading,
                move=move,
                prompt=prompt,
            )
        ]
    if kind == "reminder":
        if facts.get("expired"):
            subject = say(SUBJECTS["expired"], title=news.title, move=move)
            return subject, [
                say("Your time for move %(move)s is up. The game waits for your move.", move=move)
            ]
        subject = (
            say(SUBJECTS["reminder_by"], title=news.title, move=move, deadline=deadline)
            if deadline
            else say(SUBJECTS["reminder"], title=news.title, move=move)
        )
        return subject, [
            say(
                "Reminder: it is still your turn in %(game)s (move %(move)s).",
                game=heading,
                move=move,
            )
        ]
    if kind == "game_over":
        result = game.row.result
        if not result:
            return say(SUBJECTS["ended"], title=news.title), [say("The game was stopped.")]
        subject = say(SUBJECTS["ended"], title=news.title)
        if news.title == heading:  # the outcome names players: only once the player acted
            outcome = words.outcome(result, names, seat, language)
            subject = say(SUBJECTS["game_over"], title=heading, outcome=outcome)
        over = catalog(language).ngettext(
            "The game is over after %(num)d move.",
            "The game is over after %(num)d moves.",
            game.seq,
        ) % {"num": game.seq}
        told = [f"{over} " + result_words(game.engine, result, names, language)]
        return subject, told + [line for line in [words.scores(result, names, language)] if line]
    if kind == "accepted":
        return _accepted(facts, news)
    if kind == "rejected":
        return _rejected(facts, news)
    return _answer(game, facts, now, news)


def result_words(
    engine: Engine, result: dict[str, Any], names: list[str], language: str = "en"
) -> str:
    """The engine's sentence for ``result`` in ``language``; the shared words where the engine
    cannot say it (a result it did not make, such as a resignation or a forfeit)."""
    try:
        said = engine.describe_result(result, names)
    except Exception:  # the game's words must not stop the result from reaching the players
        log.exception("%s cannot describe the result %r", engine.id, result)
        said = result_sentence(result)
    return render(said, names, language)


def _accepted(facts: dict[str, Any], news: News) -> tuple[str, list[str]]:
    notation, seq = facts.get("notation", ""), facts["seq"]
    subject = news.say(SUBJECTS["accepted"], title=news.title, seq=seq, notation=notation)
    return subject, [
        (
            news.say(
                'Your move "%(notation)s" was played as move %(seq)s.', notation=notation, seq=seq
            )
            + f" {facts['sentence']}"
        ).strip()
    ]


def _rejected(facts: dict[str, Any], news: News) -> tuple[str, list[str]]:
    notation = facts.get("notation", "")
    reason = render(facts.get("reason") or "", (), news.language).rstrip(".")
    news.commands = news.commands or bool(facts.get("commands"))
    if not notation:
        return news.say(SUBJECTS["unread"], title=news.title), [
            news.say(
                "Turnpost could not read a move in your mail: %(reason)s. Nothing changed.",
                reason=reason,
            )
        ]
    subject = news.say(SUBJECTS["rejected"], title=news.title, notation=notation)
    told = news.say(
        'Your move "%(notation)s" was not played: %(reason)s. Nothing changed.',
        notation=notation,
        reason=reason,
    )
    if facts.get("commands"):
        told += " " + news.say('To talk to the table instead, write "say:" before your words.')
    return subject, [told]


def _answer(game: Game, facts: dict[str, Any], now: str, news: News) -> tuple[str, list[str]]:
    """The answer to a mail command (``facts["command"]``)."""
    command, move = facts.get("command", "help"), game.seq + 1
    say = news.say
    if command == "board":
        return say(SUBJECTS["board"], title=news.title, move=move), [
            say("Here is the board as it stands now.")
        ]
    if command == "moves":
        news.all_moves = game.status == "active"
        return say(SUBJECTS["moves"], title=news.title, move=move), [
            say("Your legal moves are listed below the board.")
            if news.all_moves
            else say("The game is over: there are no moves to make.")
        ]
    if command == "resign":
        said = (
            render(facts["said"], (), news.language) if facts.get("said") else say("You resigned.")
        )
        return say(SUBJECTS["resign"], title=news.title), [said]
    if command in ("takeback", "if"):
        subject = SUBJECTS["takeback" if command == "takeback" else "conditional"]
        return say(subject, title=news.title), [render(facts.get("said", ""), (), news.language)]
    if command == "vacation":
        return _vacation(facts, now, news)
    if command == "say":
        return _said_answer(facts, news)
    if command in ("stop", "start"):
        paragraph = (
            say(
                "Turnpost will send you no more turn mails, reminders or results for this game."
                ' You can still play on your page; reply "%(start)s" to get mail again.',
                start=words.command_word("start", news.language),
            )
            if command == "stop"
            else say(
                "Turnpost will mail you again about this game: your turns, reminders and results."
            )
        )
        return say(SUBJECTS[command], title=news.title), [paragraph]
    news.commands = True
    return say(SUBJECTS["help"], title=news.title), [
        say("Reply to any mail of this game with a move, or with one of these words:")
    ]


def _said_answer(facts: dict[str, Any], news: News) -> tuple[str, list[str]]:
    """The answer to words posted by mail to the table or the team (or why they were not)."""
    if facts.get("error"):
        error = render(facts["error"], (), news.language)
        return news.say(SUBJECTS["not_said"], title=news.title), [
            news.say("Your words were not posted to the table: %(error)s", error=error)
        ]
    team = facts.get("thread") == PARTNERS
    posted = (
        N_(
            "Your words were posted to your team: they are on the game's page, and in the next"
            " mail of the players who read them. To move, reply with a move; to talk, any"
            ' other words (or "say: ..." to be sure).'
        )
        if team
        else N_(
            "Your words were posted to the table: they are on the game's page, and in the next"
            " mail of the players who read them. To move, reply with a move; to talk, any"
            ' other words (or "say: ..." to be sure).'
        )
    )
    return news.say(SUBJECTS["said_team" if team else "said"], title=news.title), [news.say(posted)]


def _vacation(facts: dict[str, Any], now: str, news: News) -> tuple[str, list[str]]:
    if facts.get("error"):
        error = render(facts["error"], (), news.language)
        return news.say(SUBJECTS["no_vacation"], title=news.title), [
            news.say("Your vacation was not set: %(error)s", error=error)
        ]
    until = words.when(facts["until"], now, news.language, news.zone)
    days = int(facts["days_left"])
    left = catalog(news.language).ngettext(
        "Your vacation runs until %(until)s: your turn clock waits until then. You have"
        " %(num)d vacation day left this year.",
        "Your vacation runs until %(until)s: your turn clock waits until then. You have"
        " %(num)d vacation days left this year.",
        days,
    ) % {"until": until, "num": days}
    return news.say(SUBJECTS["vacation"], title=news.title, until=until), [left]
