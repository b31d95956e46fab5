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

    >>> SUBJECTS["turn"].format(title="Siam with Bob", move=3, prompt="enter an elephant")
    'Your turn in Siam with Bob (move 3): enter an elephant'
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
from server.games.talk import PARTNERS, Said
from server.mail import words
from server.mail.addresses import seat_link, stop_url, unsubscribe_url
from server.mail.picture import Picture, rasterise
from server.mail.settings import MailSettings
from server.resources import templates_dir
from server.store.records import OutboxMail

#: The subject of each kind of mail (every subject Turnpost writes is here).
SUBJECTS = {
    "turn": "Your turn in {title} (move {move}): {prompt}",
    "reminder": "Reminder: your turn in {title} (move {move}){by}",
    "expired": "Time is up: your turn in {title} (move {move})",
    "game_over": "Game over in {title}: {outcome}",
    "ended": "Game over in {title}",
    "accepted": "Move accepted in {title} (move {seq}): {notation}",
    "rejected": "Move not played in {title}: {notation}",
    "unread": "Move not played in {title}",
    "board": "The board of {title} (move {move})",
    "moves": "Your legal moves in {title} (move {move})",
    "help": "Mail commands for {title}",
    "resign": "You resigned in {title}",
    "takeback": "Takeback in {title}",
    "conditional": "Conditional moves in {title}",
    "vacation": "Vacation in {title} until {until}",
    "no_vacation": "No vacation in {title}",
    "stop": "Mail stopped for {title}",
    "start": "Mail on again for {title}",
    "said": "Posted to the table of {title}",
    "said_team": "Posted to your team in {title}",
    "not_said": "Not posted to the table of {title}",
}
#: What a mail to a player who has not acted yet says about the mails to come.
INVITATION = (
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
)

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
) -> Letter:
    """The mail to ``seat`` with the news of its outbox ``rows`` (oldest first).

    ``recent``: the last public log entries; ``generation``: the seat's key
    generation (its link); ``now``: the moment it is sent; ``inviter``: the
    name of the game's host, told (in the body) to a player who has not acted
    yet, for whom this mail is the invitation; ``said``: the messages of the
    table talk to tell.
    """
    said = said or Said()
    view = game_object(game, seat)
    names = [row.name for row in game.seats]
    engine, state = game.engine, game.state
    heading = words.title(engine, names, seat)
    playing = game.status == "active" and seat in game.to_move
    news = news_of(game, seat, rows, heading, now, recent)
    if inviter and game.seats[seat].acted_at is None:
        news.paragraphs.insert(0, f"{inviter} invited you to play {heading} on Turnpost.")
    legal = engine.legal_moves(state, seat) if playing else []
    turns = words.example_turns(engine, state, seat, legal)
    board = Board(last=last_touched(recent[-1]["move"]) if recent else frozenset())
    board_text = _text_board(view, board)
    cid = f"board.{game.id}.{game.seq}.{seat}@{settings.domain}"
    context = {
        "engine": engine,
        "game": view,
        "name": names[seat],
        "heading": heading,
        "news": news,
        "playing": playing,
        "prompt": engine.prompt(state, seat) if playing else "",
        "move": game.seq + 1,
        "deadline": words.when(game.row.deadline, now) if game.row.deadline else "",
        "examples": words.example_moves(engine, state, seat, turns, names),
        "legal_count": len(legal),
        "split": words.splits_turns(turns),
        "all_moves": _all_moves(game, seat, legal, names) if news.all_moves else [],
        "commands": words.command_list(),
        "commands_line": words.commands_line(),
        "board_text": board_text,
        "board_caption": f"The board after move {game.seq}" if game.seq else "The board",
        "cid": cid,
        "recent": [(entry["seq"], entry["description"]) for entry in recent[-RECENT_MOVES:]],
        "acted": game.seats[seat].acted_at is not None,
        "invitation": INVITATION,
        "link": seat_link(settings, game.id, seat, generation, milliseconds(now)),
        "stop": stop_url(settings, game.id, seat),
        "unsubscribe": unsubscribe_url(settings, game.seats[seat].email),
        "said": [_said(entry) for entry in said.entries],
        "said_earlier": words.plural(said.earlier, "earlier message") if said.earlier else "",
    }
    text = environment.get_template("email/mail.txt").render(**context)
    picture = _picture(view, board)
    html = environment.get_template("email/mail.html").render(picture=picture, **context)
    return Letter(news.subject, text, html, picture, cid, said.upto)


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


def _text_board(view: dict[str, Any], board: Board) -> str:
    """The text board, or a pointer to the page for a game that has none yet (never JSON)."""
    try:
        return render_board("txt", view, board).rstrip()
    except jinja2.TemplateNotFound:
        return "(This game has no text board yet: your page shows the board.)"


def _picture(view: dict[str, Any], board: Board) -> Picture | None:
    """The board as a PNG, or ``None`` if it cannot be drawn (the mail then shows the text)."""
    try:
        return rasterise(render_board("svg", view, board))
    except jinja2.TemplateNotFound:
        return None
    except Exception:  # a board that cannot be drawn must not stop the mail
        log.exception("board picture of game %s failed", view["id"])
        return None


def _all_moves(
    game: Game, seat: int, legal: list[dict[str, Any]], names: list[str]
) -> list[tuple[str, str]]:
    """The first :data:`LISTED_MOVES` legal moves as ``(notation, sentence)``."""
    engine = game.engine
    return [
        (engine.format(move), words.sentence(engine, game.state, seat, move, names))
        for move in legal[:LISTED_MOVES]
    ]


def news_of(
    game: Game,
    seat: int,
    rows: list[OutboxMail],
    heading: str,
    now: str,
    recent: list[dict[str, Any]],
) -> News:
    """The subject and the paragraphs that tell ``seat`` the news of ``rows``."""
    acted = game.seats[seat].acted_at is not None
    news = News(heading if acted else game.engine.name)
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
    deadline = words.when(game.row.deadline, now) if game.row.deadline else ""
    prompt = game.engine.prompt(game.state, seat) if seat in game.to_move else ""
    if kind == "turn":
        subject = SUBJECTS["turn"].format(title=news.title, move=move, prompt=prompt)
        return subject, [f"It is your turn in {heading}, move {move}: {prompt}."]
    if kind == "reminder":
        if facts.get("expired"):
            subject = SUBJECTS["expired"].format(title=news.title, move=move)
            return subject, [f"Your time for move {move} is up. The game waits for your move."]
        by = f", by {deadline}" if deadline else ""
        subject = SUBJECTS["reminder"].format(title=news.title, move=move, by=by)
        return subject, [f"Reminder: it is still your turn in {heading} (move {move})."]
    if kind == "game_over":
        result = game.row.result
        if not result:
            return SUBJECTS["ended"].format(title=news.title), ["The game was stopped."]
        subject = SUBJECTS["ended"].format(title=news.title)
        if news.title == heading:  # the outcome names players: only once the player acted
            outcome = words.outcome(result, names, seat)
            subject = SUBJECTS["game_over"].format(title=heading, outcome=outcome)
        told = [
            f"The game is over after {words.plural(game.seq, 'move')}. "
            + result_words(game.engine, result, names)
        ]
        return subject, told + [line for line in [words.scores(result, names)] if line]
    if kind == "accepted":
        return _accepted(facts, news)
    if kind == "rejected":
        return _rejected(facts, news)
    return _answer(game, facts, now, news)


def result_words(engine: Engine, result: dict[str, Any], names: list[str]) -> str:
    """The engine's sentence for ``result``; the shared words where the engine cannot say it
    (a result it did not make, such as a resignation or a forfeit)."""
    try:
        return engine.describe_result(result, names)
    except Exception:  # the game's words must not stop the result from reaching the players
        log.exception("%s cannot describe the result %r", engine.id, result)
        return result_sentence(result, names)


def _accepted(facts: dict[str, Any], news: News) -> tuple[str, list[str]]:
    notation, seq = facts.get("notation", ""), facts["seq"]
    subject = SUBJECTS["accepted"].format(title=news.title, seq=seq, notation=notation)
    return subject, [
        f'Your move "{notation}" was played as move {seq}. {facts["sentence"]}'.strip()
    ]


def _rejected(facts: dict[str, Any], news: News) -> tuple[str, list[str]]:
    notation, reason = facts.get("notation", ""), str(facts.get("reason", "")).rstrip(".")
    news.commands = news.commands or bool(facts.get("commands"))
    if not notation:
        return SUBJECTS["unread"].format(title=news.title), [
            f"Turnpost could not read a move in your mail: {reason}. Nothing changed."
        ]
    subject = SUBJECTS["rejected"].format(title=news.title, notation=notation)
    told = f'Your move "{notation}" was not played: {reason}. Nothing changed.'
    if facts.get("commands"):
        told += ' To talk to the table instead, write "say:" before your words.'
    return subject, [told]


def _answer(game: Game, facts: dict[str, Any], now: str, news: News) -> tuple[str, list[str]]:
    """The answer to a mail command (``facts["command"]``)."""
    command, move = facts.get("command", "help"), game.seq + 1
    if command == "board":
        return SUBJECTS["board"].format(title=news.title, move=move), [
            "Here is the board as it stands now."
        ]
    if command == "moves":
        news.all_moves = game.status == "active"
        return SUBJECTS["moves"].format(title=news.title, move=move), [
            "Your legal moves are listed below the board."
            if news.all_moves
            else "The game is over: there are no moves to make."
        ]
    if command == "resign":
        return SUBJECTS["resign"].format(title=news.title), [facts.get("said", "You resigned.")]
    if command in ("takeback", "if"):
        subject = SUBJECTS["takeback" if command == "takeback" else "conditional"]
        return subject.format(title=news.title), [facts.get("said", "")]
    if command == "vacation":
        return _vacation(facts, now, news)
    if command == "say":
        if facts.get("error"):
            return SUBJECTS["not_said"].format(title=news.title), [
                f"Your words were not posted to the table: {facts['error']}"
            ]
        team = facts.get("thread") == PARTNERS
        where = "to your team" if team else "to the table"
        return SUBJECTS["said_team" if team else "said"].format(title=news.title), [
            f"Your words were posted {where}: they are on the game's page, and in the next"
            " mail of the players who read them. To move, reply with a move; to talk, any"
            ' other words (or "say: ..." to be sure).'
        ]
    if command in ("stop", "start"):
        paragraph = (
            "Turnpost will send you no more turn mails, reminders or results for this game."
            ' You can still play on your page; reply "start" to get mail again.'
            if command == "stop"
            else "Turnpost will mail you again about this game: your turns, reminders and results."
        )
        return SUBJECTS[command].format(title=news.title), [paragraph]
    news.commands = True
    return SUBJECTS["help"].format(title=news.title), [
        "Reply to any mail of this game with a move, or with one of these words:"
    ]


def _vacation(facts: dict[str, Any], now: str, news: News) -> tuple[str, list[str]]:
    if facts.get("error"):
        return SUBJECTS["no_vacation"].format(title=news.title), [
            f"Your vacation was not set: {facts['error']}"
        ]
    until = words.when(facts["until"], now)
    left = words.plural(int(facts["days_left"]), "vacation day")
    return SUBJECTS["vacation"].format(title=news.title, until=until), [
        f"Your vacation runs until {until}: your turn clock waits until then."
        f" You have {left} left this year."
    ]
