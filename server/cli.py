"""The ``turnpost`` command line (also reachable as ``flask --app server ...``).

Every command (``turnpost COMMAND --help`` tells more)::

    turnpost init-db                  # create the database or migrate it to the latest schema
    turnpost check                    # what is wrong or risky in the settings; exit 1 on an error
    turnpost db-version               # the database's backend and schema version
    turnpost serve --demo             # gunicorn on http://127.0.0.1:8000 (see server.serving)
    turnpost new-game siam --player Ann --player bot:mcts:3 [--email ... --invite]
    turnpost replay GAME_ID           # exit 1 if the log does not rebuild the snapshot
    turnpost copy-db SOURCE TARGET    # copy a whole database (SQLite <-> PostgreSQL), verified
    turnpost export GAME_ID           # the game and its full log as JSON
    turnpost import-record FILE       # a game record (GET .../record) played into a new game
    turnpost send-mail                # once: deadlines and reminders, then deliver due mail
    turnpost worker                   # send-mail every 30 s; bots, webhooks, pushes, mailbox beside
    turnpost send-webhooks            # once: post due webhook deliveries, until none is due
    turnpost send-pushes              # once: send due Web Push messages, until none is due
    turnpost mail-in [RECIPIENT...]   # one reply on stdin (an MTA pipe); exit 75 to retry
    turnpost fetch-mail               # once: the replies in TURNPOST_IMAP_URL's mailbox
    turnpost smtpd [--lmtp]           # receive replies over SMTP or LMTP
    turnpost mail-key GAME_ID SEAT    # a seat's reply address; --revoke replaces it
    turnpost openapi                  # the OpenAPI document as JSON (to generate a client)
    turnpost backup DEST [--keep N]   # a consistent copy of the database while it runs
    turnpost restore SRC [--replace]  # put a backup back as the database TURNPOST_DB names

``turnpost --version`` prints Turnpost's version. The command lists only
Turnpost's own commands: Flask's plugins (such as Flask-Limiter's ``limiter`` where installed,
flask-smorest's ``openapi`` group) are not offered, and neither ``--help``
nor ``--version`` opens the database.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import click
from flask import Flask, current_app
from flask.cli import FlaskGroup, with_appcontext
from marshmallow import ValidationError

from engines.phrases import phrase
from schemas.api import PlayerInSchema
from schemas.clocks import ClockSchema
from server.app import SECRET_KEY_SETTING, configured_db, create_app
from server.checks import ERROR, Deployment, file_findings, findings, warn_at_start
from server.cli_help import (
    CommandError,
    TranslatedCommand,
    TranslatedPath,
    clicks_language,
    say,
    spoken,
)
from server.errors import TurnpostError
from server.games.analysis import WAIT_SECONDS as ANALYSIS_WAIT_SECONDS
from server.games.analysis import run_analyses
from server.games.bots import WAIT_SECONDS as BOT_WAIT_SECONDS
from server.games.bots import BotMover, bots_setting, run_bots
from server.games.clock import parse_time, utcnow
from server.games.deadlines import process_deadlines
from server.games.game import Game
from server.games.records import MAX_RECORD_BYTES, import_record
from server.games.service import GameService
from server.games.tables import DEADLINE_POLICIES, MAX_TURN_HOURS, MIN_TURN_HOURS, expire_tables
from server.http.api_spec import openapi_document
from server.http.context import current_service, current_store
from server.i18n import N_, command_language
from server.mail.addresses import reply_address
from server.mail.delivery import Report, deliver_due, forget_bodies
from server.mail.identity import record_sender
from server.mail.inbound import MAX_MESSAGE_BYTES, describe, receive
from server.mail.mailbox import MailboxError, fetch_replies
from server.mail.settings import MailSettings, parse_imap_url
from server.mail.smtpd import InboundController, InboundHandler
from server.notify.digest import queue_digests
from server.push.delivery import Sender, contact_of
from server.push.delivery import deliver_due as deliver_pushes_due
from server.push.keys import vapid_key
from server.push.subscriptions import push_destinations
from server.serving import WORKER_CONNECTIONS, run
from server.store import open_store, redacted
from server.store.base import Store, StoreError, StoreUnavailable, UnknownDatabase, canonical_json
from server.store.copy import copy_database
from server.webhooks.delivery import deliver_due as deliver_webhooks_due
from server.webhooks.destinations import configured

#: The exit status that asks the caller to try again later (sysexits' EX_TEMPFAIL; an MTA retries).
EX_TEMPFAIL = 75


def create_command_app() -> Flask:
    """The app of a command; a database it cannot use ends the command in words: exit
    :data:`EX_TEMPFAIL` if it is unavailable (locked, out of reach), 1 if ``TURNPOST_DB``
    names none."""
    try:
        return create_app()
    except StoreUnavailable as error:
        say("temporary failure: %(error)s", err=True, error=str(error))
        raise SystemExit(EX_TEMPFAIL) from None
    except UnknownDatabase as error:
        raise click.ClickException(str(error)) from None


class TurnpostGroup(TranslatedCommand, FlaskGroup):
    """Flask's command group (app loading, ``--app``-free) offering Turnpost's commands only,
    its help and theirs in the command's language (:mod:`server.cli_help`).

    Flask's own group also lists the commands of installed Flask plugins and
    of the app, loading the app (and so creating the database) just to
    print ``--help``; this one lists what is registered on it and nothing else,
    without Flask's ``--app``, ``--env-file`` and ``--debug`` options (the app
    is Turnpost's, configured by ``TURNPOST_*`` variables).
    """

    #: Flask's own options, which make no sense for Turnpost's command.
    FLASK_OPTIONS = frozenset({"app", "env_file", "debug"})
    command_class = TranslatedCommand

    def __init__(self, **extra: Any) -> None:
        super().__init__(**extra)
        self.params = [param for param in self.params if param.name not in self.FLASK_OPTIONS]

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the command with click's own messages in the command's language."""
        with clicks_language(command_language()):
            return super().main(*args, **kwargs)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        """The Turnpost command ``name``, without loading the app or plugins."""
        return click.Group.get_command(self, ctx, name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Turnpost's command names."""
        return click.Group.list_commands(self, ctx)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The options, then the commands (a group's help page)."""
        super().format_options(ctx, formatter)
        self.format_commands(ctx, formatter)


@click.group(
    cls=TurnpostGroup,
    create_app=create_command_app,
    add_default_commands=False,
    add_version_option=False,
    load_dotenv=False,
    help=N_("Turnpost: a play-by-email and REST turn server for board games."),
)
@click.version_option(package_name="turnpost", prog_name="Turnpost", message="%(prog)s %(version)s")
def main() -> None:
    """The ``turnpost`` command: its commands are registered on it."""


@main.command(
    "init-db",
    help=N_(
        "Create the database, or migrate it to the latest schema (the app does this on start too)."
    ),
)
@with_appcontext
def init_db() -> None:
    schema = current_store().init()
    say(
        "Database ready: %(database)s (schema version %(version)s)",
        database=_db_name(),
        version=schema.after,
    )


@main.command(
    "db-version",
    help=N_("Print the database's backend and schema version (the app upgrades it on start)."),
)
@with_appcontext
def db_version() -> None:
    store = current_store()
    version = store.schema_version()
    say(
        "%(database)s: %(backend)s, schema version %(version)s",
        database=_db_name(),
        backend=store.backend,
        version=version,
    )


def _db_name() -> str:
    """The database of this process (``TURNPOST_DB``) to show, without its password."""
    return _db_name_of(current_app)


def _db_name_of(app: Flask) -> str:
    """The database of ``app`` to show, without its password."""
    return redacted(app.config["TURNPOST_DB"])


@main.command(
    "new-game",
    help=N_(
        "Create a game and print each seat's token and private link.\n\n"
        "A player with an ``--email`` gets turn mails; with ``--invite``, an "
        "invitation at once (a player to move first: their first turn mail). "
        "The command says who was mailed. ``--turn-hours`` gives each turn a "
        "deadline, ``--clock`` a time control (a bank, quiet times). A "
        "``--player`` ``bot:random`` or ``bot:mcts:LEVEL`` is a seat the "
        "computer plays (``turnpost worker`` moves it)."
    ),
)
@click.argument("engine")
@click.option(
    "--player",
    "names",
    multiple=True,
    required=True,
    help=N_("A player name, in seat order; a bot is bot:random or bot:mcts:LEVEL (1 to 5)."),
)
@click.option("--email", "emails", multiple=True, help=N_("Emails, in the same order as --player."))
@click.option(
    "--invite", is_flag=True, help=N_("Mail each player with an email an invitation now.")
)
@click.option(
    "--seed", type=int, default=None, help=N_("Seed of the game's PRNG (default: random).")
)
@click.option("--option", "options", multiple=True, help=N_("An engine option as NAME=JSON."))
@click.option(
    "--turn-hours",
    type=click.FloatRange(MIN_TURN_HOURS, MAX_TURN_HOURS),
    default=None,
    help=N_("A turn clock: hours per move (default: no clock)."),
)
@click.option(
    "--clock",
    "clock_text",
    default=None,
    help=N_(
        'A time control as JSON instead of --turn-hours, e.g. \'{"kind": "bank",'
        ' "bank_hours": 240, "increment_hours": 36, "max_bank_hours": 480}\' (see docs/api.md).'
    ),
)
@click.option(
    "--deadline-policy",
    type=click.Choice(DEADLINE_POLICIES),
    default="remind",
    show_default=True,
    help=N_("What happens when a turn's time is up."),
)
@click.option(
    "--base-url", default=None, help=N_("Address in the links (default: TURNPOST_BASE_URL).")
)
@with_appcontext
def new_game(
    engine: str,
    names: tuple[str, ...],
    emails: tuple[str, ...],
    invite: bool,
    seed: int | None,
    options: tuple[str, ...],
    turn_hours: float | None,
    clock_text: str | None,
    deadline_policy: str,
    base_url: str | None,
) -> None:
    given = []
    for index, name in enumerate(names):
        email = emails[index] if index < len(emails) else None
        if name.startswith(BOT_PREFIX):
            given.append(_bot_player(name))
        else:
            given.append({"name": name, "email": email, "invite": invite and email is not None})
    try:
        players = PlayerInSchema(many=True).load(given)
        game = current_service().create(
            engine,
            players,
            _parse_options(options),
            seed=seed,
            turn_hours=turn_hours,
            deadline_policy=deadline_policy,
            clock=_parse_clock(clock_text),
        )
    except ValidationError as error:
        problems = str(error.messages)
        raise CommandError(
            phrase("Please check the players: %(problems)s", problems=problems)
        ) from None
    except TurnpostError as error:
        raise CommandError(error.words) from None
    print_game(game, base_url or _mail_settings().base_url)
    print_invitations(game, players)


def _parse_clock(text: str | None) -> dict[str, Any] | None:
    """The ``--clock`` JSON, checked by the API's schema; a usage error in words."""
    if text is None:
        return None
    try:
        return ClockSchema().load(json.loads(text))
    except (json.JSONDecodeError, ValidationError) as error:
        message = error.messages if isinstance(error, ValidationError) else str(error)
        raise CommandError(
            phrase("Please check --clock: %(problem)s", problem=str(message))
        ) from None


#: How ``--player`` names a bot: ``bot:random``, ``bot:mcts:3``.
BOT_PREFIX = "bot:"


def _bot_player(text: str) -> dict[str, Any]:
    """The player of a ``--player bot:KIND[:LEVEL]`` (checked with the other players).

    >>> _bot_player("bot:mcts:2"), _bot_player("bot:random")
    ({'bot': 'mcts', 'level': 2}, {'bot': 'random'})
    """
    kind, _, level = text.removeprefix(BOT_PREFIX).partition(":")
    if not level:
        return {"bot": kind}
    return {"bot": kind, "level": int(level) if level.isdigit() else level}


def print_invitations(game: dict[str, Any], players: list[dict[str, Any]]) -> None:
    """Say which players are mailed now (an invitation, or their first turn)."""
    mailed = current_store().mailed_seats(game["id"])
    for seat, player in enumerate(players):
        if player.get("email") and seat in mailed:
            say("%(name)s is mailed now", indent=2, name=player["name"])
    if mailed and not _mail_settings().smtp_url:
        say("TURNPOST_SMTP_URL is not set here: the worker that has it sends the mail.")


def _parse_options(pairs: tuple[str, ...]) -> dict[str, Any]:
    options = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        try:
            options[name] = json.loads(value)
        except ValueError:
            options[name] = value
    return options


def print_game(game: dict[str, Any], base_url: str) -> None:
    """Print a game's id, seat tokens and private links (and its admin token, if new)."""
    url = f"{base_url}/games/{game['id']}"
    say("Game %(game)s (%(engine)s): %(url)s", game=game["id"], engine=game["engine"], url=url)
    for player in game["players"]:
        seat = {"number": player["seat"], "name": player["name"]}
        if "token" not in player:
            say(
                "seat %(number)s %(name)s: played by the worker",
                indent=2,
                **seat,
            )
            continue
        link = f"{base_url}/games/{game['id']}/seat/{player['token']}"
        say(
            "seat %(number)s %(name)s: token %(token)s",
            indent=2,
            token=player["token"],
            **seat,
        )
        say("play in the browser: %(link)s", indent=4, link=link)
    if "admin_token" in game:
        say("admin token: %(token)s", indent=2, token=game["admin_token"])


#: The setting that names the demo game of ``serve --demo``.
DEMO_GAME_SETTING = "demo_game"


def demo_game(games: GameService) -> dict[str, Any]:
    """The demo Siam game of ``serve --demo``: the earlier one while it runs, else a new one.

    The demo game's id is kept in the database's settings (``demo_game``). A
    reused game gets new seat tokens, since tokens are stored hashed only:
    its old links stop working and the new ones are printed.
    """
    earlier_id = games.store.setting(DEMO_GAME_SETTING)
    if earlier_id is not None:
        try:
            earlier = games.load(earlier_id)
        except TurnpostError:
            earlier = None
        if earlier is not None and earlier.status == "active":
            say("Demo Siam game, as you left it (move %(move)s); new seat links:", move=earlier.seq)
            game = games.game_object(earlier, None)
            return {**game, "players": games.renew_seat_tokens(earlier.id)}
    game = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {})
    games.store.set_setting(DEMO_GAME_SETTING, game["id"])
    say("Demo Siam game ready:")
    return game


def _load(games: GameService, game_id: str) -> Game:
    """The game ``game_id``, or a command-line error."""
    try:
        return games.load(game_id)
    except TurnpostError as error:
        raise CommandError(error.words) from None


@main.command(
    "replay",
    help=N_(
        "Rebuild the state from the log and compare it with the snapshot (exit 1 on mismatch)."
    ),
)
@click.argument("game_id")
@with_appcontext
def replay(game_id: str) -> None:
    games = current_service()
    game = _load(games, game_id)
    if not game.started:
        say("OK: the table was never dealt, so there is nothing to replay")
        return
    problem = replay_problem(games, game)
    if problem is not None:
        say("MISMATCH: %(problem)s", err=True, problem=problem)
        raise SystemExit(1)
    say("OK: %(count)s moves replay to the snapshot", count=game.seq)


def replay_problem(games: GameService, game: Game) -> str | None:
    """Why replaying the log of ``game`` (a started one) does not give its snapshot, in the
    command's language, or ``None`` when it does."""
    try:
        rebuilt = games.replay(game)
    except TurnpostError as error:
        return spoken(error.words)
    if canonical_json(rebuilt) != canonical_json(game.state):
        return spoken(
            phrase("replaying %(count)s moves does not give the snapshot", count=game.seq)
        )
    return None


@main.command(
    "copy-db",
    help=N_(
        "Copy every row of database SOURCE into the empty database TARGET, in "
        "one transaction.\n\n"
        "Each is what TURNPOST_DB takes: a SQLite file (path or sqlite:///PATH) "
        "or postgresql://...; the target is created or upgraded first and must "
        "hold no data. Before the copy commits, every game on the target is "
        "replayed from its log and compared with its snapshot, and its snapshot "
        "and seats with the source's; any difference undoes the copy. Stop "
        "Turnpost's processes first: what they write after the copy began stays "
        "on the source only."
    ),
)
@click.argument("source")
@click.argument("target")
def copy_db(source: str, target: str) -> None:
    try:
        from_store, to_store = open_store(source), open_store(target)
        copied = copy_database(from_store, to_store, lambda: _verify_games(from_store, to_store))
    except StoreUnavailable as error:
        say("temporary failure: %(error)s", err=True, error=str(error))
        raise SystemExit(EX_TEMPFAIL) from None
    except (StoreError, CopyMismatch) as error:
        raise click.ClickException(str(error)) from None
    for table, rows in sorted(copied.items()):
        say("%(table)s: %(count)s rows", table=table, count=rows)
    say(
        "Copied %(source)s to %(target)s: %(count)s games replay to their snapshots, the same"
        " as the source's.",
        source=redacted(source),
        target=redacted(target),
        count=copied.get("games", 0),
    )


class CopyMismatch(Exception):
    """A game on the copy differs from the source's, or does not replay to its snapshot."""


def _verify_games(source: Store, target: Store) -> None:
    """Every game on ``target`` has the snapshot and seats of the game of its id on
    ``source``, and replays to it; :class:`CopyMismatch` otherwise."""
    if target.game_ids() != source.game_ids():
        raise CopyMismatch(spoken(phrase("The copy does not hold the source's games.")))
    old, new = GameService(source), GameService(target)
    for game_id in target.game_ids():
        original, copied = old.load(game_id), new.load(game_id)
        if (copied.row, copied.seats) != (original.row, original.seats):
            differs = phrase(
                "Game %(game)s: the copy's snapshot differs from the source's.", game=game_id
            )
            raise CopyMismatch(spoken(differs))
        problem = replay_problem(new, copied) if copied.started else None
        if problem is not None and problem == replay_problem(old, original):
            continue  # played under older rules: its snapshot is the source's, as it was
        if problem is not None:
            raise CopyMismatch(
                spoken(
                    phrase("Game %(game)s on the copy: %(problem)s.", game=game_id, problem=problem)
                )
            )


@main.command("export", help=N_("Print the public game object and its move log as JSON."))
@click.argument("game_id")
@with_appcontext
def export(game_id: str) -> None:
    games = current_service()
    game = _load(games, game_id)
    document = {"game": games.game_object(game, seat=None), "moves": games.move_log(game)}
    click.echo(json.dumps(document, indent=2))


@main.command(
    "import-record",
    help=N_(
        "Play the game record in PATH (``-``: standard input) into a new game, "
        "checking every move, and print the new game's seat tokens and links.\n\n"
        "A record is what ``GET /api/v1/games/{id}/record`` answers. One with a "
        "malformed line or an illegal move makes no game (exit 1, naming the "
        "entry)."
    ),
)
@click.argument("path", type=TranslatedPath(dir_okay=False, allow_dash=True, path_type=Path))
@click.option(
    "--base-url", default=None, help=N_("Address in the links (default: TURNPOST_BASE_URL).")
)
@with_appcontext
def import_record_command(path: Path, base_url: str | None) -> None:
    data = sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
    if len(data) > MAX_RECORD_BYTES:
        raise CommandError(phrase("A record is at most %(bytes)s bytes.", bytes=MAX_RECORD_BYTES))
    try:
        game = import_record(current_service(), data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CommandError(phrase("The record is not UTF-8 text.")) from None
    except TurnpostError as error:
        raise CommandError(error.words) from None
    print_game(game, base_url or _mail_settings().base_url)


#: What ``serve`` says about the bots, by ``TURNPOST_BOTS``.
BOTS_WORDS = {
    "worker": N_("The computer's seats are played by `turnpost worker` (TURNPOST_BOTS=worker)."),
    "server": N_("The computer's seats are played by this server (TURNPOST_BOTS=server)."),
    "off": N_("The computer's seats are played by nobody (TURNPOST_BOTS=off)."),
}


@main.command(
    "serve", help=N_("Serve the app with gunicorn's gevent workers (see ``server/serving.py``).")
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True)
@click.option("--workers", default=2, show_default=True, help=N_("gunicorn worker processes."))
@click.option(
    "--connections",
    default=WORKER_CONNECTIONS,
    show_default=True,
    help=N_("Connections each worker holds at once (event streams included)."),
)
@click.option(
    "--demo/--no-demo", default=False, help=N_("Create a demo Siam game and print its links.")
)
@with_appcontext
def serve(host: str, port: int, workers: int, connections: int, demo: bool) -> None:
    base_url = f"http://{host}:{port}"
    if demo:  # the quick start runs no worker: the server plays the bots
        os.environ.setdefault("TURNPOST_BOTS", "server")
    place = _bots_place()
    if demo:
        game = demo_game(current_service())
        print_game(game, base_url)
        command = (
            f"curl -H 'Authorization: Bearer {game['players'][0]['token']}' "
            f'-d \'{{"notation": "enter a1 N"}}\' {base_url}/api/v1/games/{game["id"]}/moves'
        )
        say("Try: %(command)s", command=command)
    say(
        "Serving %(url)s (API docs at %(docs)s); Ctrl-C stops.",
        url=base_url,
        docs=f"{base_url}/api/docs",
    )
    say(BOTS_WORDS[place])
    run(current_app.config["TURNPOST_DB"], host, port, workers, connections)


def _bots_place() -> str:
    """``TURNPOST_BOTS`` (:func:`bots_setting`), or a command-line error in words."""
    try:
        return bots_setting()
    except ValueError as error:
        raise click.ClickException(str(error)) from None


def _deployment() -> Deployment:
    """This process's settings as the checks read them."""
    config = current_app.config
    return Deployment.from_environment(config["TURNPOST_DB"], config["SECRET_KEY"])


@main.command(
    "check",
    with_appcontext=False,
    help=N_(
        "Say what is wrong or risky in the settings every process will use (run "
        "it with their environment); exit 1 on an error, 0 with warnings only."
    ),
)
def check() -> None:
    db_url = configured_db()
    secret = os.environ.get("TURNPOST_SECRET_KEY", "")
    before = Deployment.from_environment(db_url, secret)
    if before.db_file is not None and not before.db_file.exists():
        missing = phrase(
            "the database %(file)s does not exist: check TURNPOST_DB, or create it with"
            " `turnpost init-db`",
            file=str(before.db_file),
        )
        raise CommandError(missing)
    found = file_findings(before)  # before opening it, which makes the file private
    app = create_command_app()
    with app.app_context():
        found += findings(current_store(), _deployment(), "check")
    for finding in found:
        click.echo(finding.line(command_language()), err=finding.level == ERROR)
    errors = sum(finding.level == ERROR for finding in found)
    say(
        "%(errors)s errors, %(warnings)s warnings (%(database)s)",
        errors=errors,
        warnings=len(found) - errors,
        database=_db_name_of(app),
    )
    if errors:
        raise SystemExit(1)


def _mail_settings() -> MailSettings:
    """This process's mail settings (read from its environment when the app started)."""
    return current_app.extensions["turnpost"].notifier.settings


def run_clock_and_outbox(now: str | None = None) -> tuple[int, Report]:
    """Apply due deadlines, cancel tables that waited too long, queue due daily digests,
    forget old mail facts, send due mail: ``(actions, report)``."""
    settings = _mail_settings()
    actions = process_deadlines(current_service(), now)
    expire_tables(current_service(), now)
    queue_digests(current_store(), now or utcnow())
    forget_bodies(current_store(), settings.retention_days, now)
    if not settings.smtp_url:
        return len(actions), Report()
    return len(actions), deliver_due(current_store(), settings, now)


def echo_report(report: Report) -> None:
    """One line per mail sent or superseded (stdout) or failed (stderr, with its reason)."""
    for outcome in report.outcomes:
        click.echo(outcome.line(), err=outcome.status == "failed")


def say_round(actions: int, report: Report) -> None:
    """What a round of deadlines and mail did, in numbers."""
    say(
        "deadline actions %(actions)s, mails sent %(sent)s, superseded %(superseded)s,"
        " failed %(failed)s",
        actions=actions,
        sent=report.count("sent"),
        superseded=report.count("superseded"),
        failed=report.count("failed"),
    )


@main.command(
    "send-mail",
    help=N_(
        "Once (e.g. from cron): deadlines and reminders, daily digests, mail "
        "retention, then send due mail.\n\n"
        "Prints one line per mail and why a mail failed; exits 1 if a mail "
        "failed for good."
    ),
)
@with_appcontext
def send_mail() -> None:
    settings = _mail_settings()
    if not settings.smtp_url:
        say("TURNPOST_SMTP_URL is not set: mail stays in the outbox.", err=True)
    else:
        record_sender(current_store(), settings, "send-mail", utcnow())
    actions, report = run_clock_and_outbox()
    echo_report(report)
    say_round(actions, report)
    if report.failed_for_good:
        raise SystemExit(1)


def deliver_webhooks(stop: threading.Event | None = None) -> tuple[int, int]:
    """One round of due webhook deliveries (``stop`` cuts it short): ``(delivered, failed)``."""
    config = current_app.config
    return deliver_webhooks_due(
        current_store(), config["SECRET_KEY"], configured(config), stop=stop
    )


def deliver_pushes(stop: threading.Event | None = None) -> tuple[int, int]:
    """One round of due Web Push messages (``stop`` cuts it short): ``(sent, failed)``."""
    config = current_app.config
    contact = contact_of(_mail_settings().from_address)
    sender = Sender(vapid_key(config["SECRET_KEY"]), contact, push_destinations(config))
    return deliver_pushes_due(current_store(), sender, stop=stop)


def read_replies(stop: threading.Event | None = None) -> tuple[int, int]:
    """One round of replies read from the mailbox of ``TURNPOST_IMAP_URL`` (none without it),
    one JSON outcome line each: ``(handled, set aside)``. Raises
    :class:`~server.mail.mailbox.MailboxError` or ``StoreUnavailable``: try again later."""
    settings = _mail_settings()
    if not settings.imap_url:
        return 0, 0
    target = parse_imap_url(settings.imap_url)
    report = fetch_replies(target, lambda raw: receive(raw, current_service(), settings), stop)
    for outcome in report.outcomes:
        click.echo(json.dumps(describe(outcome)))
    return len(report.outcomes), report.set_aside


def read_replies_or_wait(stop: threading.Event | None = None) -> tuple[int, int]:
    """:func:`read_replies`, saying on stderr why the mailbox was not read this round (the
    worker's next round tries again)."""
    try:
        return read_replies(stop)
    except (MailboxError, StoreUnavailable) as error:
        say("replies not read this round: %(error)s", err=True, error=str(error))
        return 0, 0


#: What the worker sends from threads of its own: each round's function, and its line's words.
BACKGROUND = {
    "webhooks": (deliver_webhooks, N_("webhooks delivered %(done)s, failed %(failed)s")),
    "pushes": (deliver_pushes, N_("pushes sent %(done)s, failed %(failed)s")),
    "replies": (read_replies_or_wait, N_("replies read %(done)s, failed %(failed)s")),
}


def until_none_due(deliver: Callable[[], tuple[int, int]]) -> tuple[int, int]:
    """Rounds of ``deliver`` until one finds nothing due: ``(done, failed)`` in all.

    A failure is due again only after its backoff, so this ends.
    """
    done = failed = 0
    while True:
        round_done, round_failed = deliver()
        if not round_done + round_failed:
            return done, failed
        done, failed = done + round_done, failed + round_failed


@main.command(
    "send-webhooks",
    help=N_(
        "Once (e.g. from cron): post the due webhook deliveries, round after "
        "round until none is due."
    ),
)
@with_appcontext
def send_webhooks() -> None:
    delivered, failed = until_none_due(deliver_webhooks)
    say(BACKGROUND["webhooks"][1], done=delivered, failed=failed)


@main.command(
    "send-pushes",
    help=N_(
        "Once (e.g. from cron): send the due Web Push messages, round after "
        "round until none is due."
    ),
)
@with_appcontext
def send_pushes() -> None:
    sent, failed = until_none_due(deliver_pushes)
    say(BACKGROUND["pushes"][1], done=sent, failed=failed)


def background_rounds(app: Flask, stop: threading.Event, interval: float, what: str) -> None:
    """Deliver ``what`` (a :data:`BACKGROUND` name) until ``stop``: round after round while some
    are due, else every ``interval`` seconds (one of the worker's threads)."""
    deliver, words = BACKGROUND[what]
    with app.app_context():
        while not stop.is_set():
            done, failed = deliver(stop)
            if done or failed:
                say(words, done=done, failed=failed)
            else:
                stop.wait(interval)


def bot_rounds(app: Flask, stop: threading.Event) -> None:
    """Play the bots' turns until ``stop`` (one of the worker's threads)."""
    with app.app_context():
        run_bots(lambda: BotMover(current_service()), stop, BOT_WAIT_SECONDS)


def analysis_rounds(app: Flask, stop: threading.Event) -> None:
    """Analyse finished games until ``stop`` (one of the worker's threads)."""
    with app.app_context():
        run_analyses(current_service, stop, ANALYSIS_WAIT_SECONDS)


@main.command(
    "worker",
    help=N_(
        "Run ``send-mail`` every ``--interval`` seconds, with bots, webhooks, "
        "pushes and ``fetch-mail`` beside it, until stopped.\n\n"
        "Bots, after-game analyses (:mod:`server.games.analysis`), webhooks, "
        "pushes and the replies of ``TURNPOST_IMAP_URL``'s mailbox go from "
        "threads of their own, so a slow receiver or a long search never holds "
        "up deadlines and mail; the bots move as soon as it is their turn (see "
        ":mod:`server.games.bots`), and several workers may run at once. "
        "``SIGTERM`` or ``SIGINT`` (Ctrl-C) stops them all: the mail round "
        "under way ends first, so a mail being sent is recorded and its line "
        "printed; webhook deliveries and pushes under way are cut and tried "
        "again later, replies after the one being handled; a bot's search under "
        "way ends and its turn is played (or left to the next worker). It then "
        "exits 0."
    ),
)
@click.option("--interval", default=30.0, show_default=True, help=N_("Seconds between rounds."))
@click.option(
    "--bots/--no-bots",
    default=True,
    show_default=True,
    help=N_(
        "Play the bots' turns and analyse finished games here too (not with TURNPOST_BOTS=off)."
    ),
)
@with_appcontext
def worker(interval: float, bots: bool) -> None:
    bots = bots and _bots_place() != "off"
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    app = current_app._get_current_object()
    warn_at_start(current_store(), _deployment(), "worker")
    if bots:
        say("worker started; it plays the bots")
    else:
        say("worker started; other processes play the bots")
    with ThreadPoolExecutor(len(BACKGROUND) + 2, thread_name_prefix="background") as background:
        threads = [
            background.submit(background_rounds, app, stop, interval, what) for what in BACKGROUND
        ]
        if bots:
            threads.append(background.submit(bot_rounds, app, stop))
            threads.append(background.submit(analysis_rounds, app, stop))
        for thread in threads:  # a failing thread stops all
            thread.add_done_callback(lambda _: stop.set())
        try:
            while not stop.is_set():
                actions, report = run_clock_and_outbox()
                echo_report(report)
                if actions or report.outcomes:
                    say_round(actions, report)
                stop.wait(interval)
        finally:
            stop.set()
    for thread in threads:
        thread.result()  # raises what stopped a background thread, if anything did
    say("worker stopped")


@main.command(
    "mail-in",
    help=N_(
        "Read one RFC 5322 message on stdin and play the move it carries (for "
        "an MTA pipe).\n\n"
        "With envelope RECIPIENTS (Postfix: ``${recipient}``), the message is "
        "handled once for each, like the listener does; without, the reply "
        "address is taken from the header. Prints one JSON outcome per line. "
        "Exits 0 once the message is handled (applied, refused with a reply, or "
        "dropped), 75 (EX_TEMPFAIL: the MTA retries) if the database is "
        "unavailable (locked for longer than the store waits, or out of reach)."
    ),
)
@click.argument("recipients", nargs=-1)
@with_appcontext
def mail_in(recipients: tuple[str, ...]) -> None:
    raw = sys.stdin.buffer.read(MAX_MESSAGE_BYTES + 1)
    try:
        for envelope in [[recipient] for recipient in recipients] or [None]:
            outcome = receive(raw, current_service(), _mail_settings(), envelope)
            click.echo(json.dumps(describe(outcome)))
    except StoreUnavailable as error:
        say("temporary failure: %(error)s", err=True, error=str(error))
        raise SystemExit(EX_TEMPFAIL) from None


@main.command(
    "fetch-mail",
    help=N_(
        "Once (e.g. from cron; the worker does it every round): play the "
        "replies in the mailbox of ``TURNPOST_IMAP_URL``, one JSON outcome per "
        "line, and delete them from it.\n\n"
        "A reply that fails for a reason other than the database is flagged and "
        "left there. Exits 75 (EX_TEMPFAIL) if the mailbox or the database is "
        "out of reach."
    ),
)
@with_appcontext
def fetch_mail() -> None:
    if not _mail_settings().imap_url:
        raise CommandError(phrase("TURNPOST_IMAP_URL is not set: there is no mailbox to read."))
    try:
        handled, set_aside = read_replies()
    except (MailboxError, StoreUnavailable) as error:
        say("temporary failure: %(error)s", err=True, error=str(error))
        raise SystemExit(EX_TEMPFAIL) from None
    say(
        "replies read %(handled)s, set aside %(set_aside)s",
        err=True,
        handled=handled,
        set_aside=set_aside,
    )


@main.command("smtpd", help=N_("Receive replies over SMTP or LMTP until stopped."))
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8025, show_default=True)
@click.option(
    "--lmtp", is_flag=True, help=N_("Speak LMTP instead of SMTP (for Postfix or Dovecot).")
)
@with_appcontext
def smtpd(host: str, port: int, lmtp: bool) -> None:
    turnpost = current_app.extensions["turnpost"]
    handler = InboundHandler(turnpost.db_url, _mail_settings(), turnpost.listeners)
    controller = InboundController(handler, host, port, lmtp=lmtp)
    controller.start()
    protocol = "LMTP" if lmtp else "SMTP"
    say(
        "Listening for %(protocol)s on %(address)s; Ctrl-C stops.",
        protocol=protocol,
        address=f"{host}:{port}",
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        controller.stop()


@main.command(
    "openapi",
    help=N_("Print the OpenAPI document of the API (what ``/api/v1/openapi.json`` serves)."),
)
@with_appcontext
def openapi() -> None:
    click.echo(json.dumps(openapi_document(), indent=2))


@main.command(
    "mail-key", help=N_("Print a seat's reply address; ``--revoke`` replaces it with a new one.")
)
@click.argument("game_id")
@click.argument("seat", type=int)
@click.option("--revoke", is_flag=True, help=N_("Invalidate the current reply address first."))
@with_appcontext
def mail_key(game_id: str, seat: int, revoke: bool) -> None:
    store = current_store()
    if revoke:
        generation = store.revoke_mail_key(game_id, seat)
    else:
        generation = store.mail_generation(game_id, seat)
    if generation is None:
        raise CommandError(
            phrase("No seat %(seat)s in game %(game)s.", seat=seat, game=repr(game_id))
        )
    click.echo(reply_address(_mail_settings(), game_id, seat, generation))


#: How ``turnpost backup`` names a copy it makes in a folder (UTC time: names sort by age).
BACKUP_NAME = "turnpost-%Y%m%dT%H%M%SZ.backup"
#: The copies ``--keep`` counts and removes: the ones ``turnpost backup`` named.
BACKUP_GLOB = "turnpost-*.backup"


@main.command(
    "backup",
    help=N_(
        "Copy the whole database, with its settings, to DEST while the server "
        "runs.\n\n"
        "DEST is a file, or a folder where the copy gets a name of its own "
        "(``turnpost-YYYYMMDDTHHMMSSZ.backup``, UTC); ``--keep N`` then removes "
        "all but the newest N of those. The copy is readable by its owner only: "
        "it holds the games' hands and seeds, the players' addresses and, "
        "unless ``TURNPOST_SECRET_KEY`` is set, the secret key. On PostgreSQL "
        "it is ``pg_dump``'s (custom format; PostgreSQL's client programs must "
        "be installed)."
    ),
)
@click.argument("dest", type=TranslatedPath(path_type=Path))
@click.option(
    "--keep",
    type=click.IntRange(min=1),
    default=None,
    help=N_("With a folder as DEST: keep only the newest N backups in it."),
)
@with_appcontext
def backup(dest: Path, keep: int | None) -> None:
    folder = dest.is_dir()
    if keep is not None and not folder:
        raise CommandError(phrase("--keep counts the backups in a folder: give a folder as DEST."))
    target = dest / parse_time(utcnow()).strftime(BACKUP_NAME) if folder else dest
    try:
        current_store().backup(str(target))
    except StoreError as error:
        raise click.ClickException(str(error)) from None
    say("Backed up %(database)s to %(target)s", database=_db_name(), target=str(target))
    if current_store().setting(SECRET_KEY_SETTING) is None:
        say(
            "TURNPOST_SECRET_KEY is set, so the secret key is not in the backup: keep the"
            " environment file that sets it with your backups (without the same key, mail"
            " links, reply addresses and sign-in cookies stop working)."
        )
    if keep is not None:
        for old in sorted(dest.glob(BACKUP_GLOB), reverse=True)[keep:]:
            old.unlink()
            say("Removed the older backup %(file)s", file=str(old))


@main.command(
    "restore",
    with_appcontext=False,
    help=N_(
        "Put SOURCE, a copy made by ``turnpost backup``, back as the database "
        "TURNPOST_DB names.\n\n"
        "A database that already holds Turnpost's tables is overwritten only "
        "with ``--replace``: stop the server, the worker and the mail receiver "
        "first. The restored database is migrated to this version's schema."
    ),
)
@click.argument("source", type=TranslatedPath(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help=N_("Overwrite the database TURNPOST_DB holds now."))
def restore(source: Path, replace: bool) -> None:
    url = configured_db()
    try:
        store = open_store(url)
    except StoreError as error:
        raise click.ClickException(str(error)) from None
    try:
        version = store.schema_version()
        if version and not replace:
            held = phrase(
                "%(database)s already holds a Turnpost database (schema version %(version)s)."
                " Restoring replaces everything in it, its games and settings too. Stop the"
                " server, the worker and the mail receiver, then run this again with --replace.",
                database=redacted(url),
                version=version,
            )
            raise CommandError(held)
        store.restore(str(source))
        say(
            "Restored %(source)s into %(database)s (schema version %(version)s).",
            source=str(source),
            database=redacted(url),
            version=store.schema_version(),
        )
    except StoreError as error:
        raise click.ClickException(str(error)) from None
    finally:
        store.close()
