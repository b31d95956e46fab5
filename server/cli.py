"""The ``turnpost`` command line (also reachable as ``flask --app server ...``).

Every command (``turnpost COMMAND --help`` tells more)::

    turnpost init-db                  # create the database or migrate it to the latest schema
    turnpost serve --demo             # gunicorn on http://127.0.0.1:8000 (see server.serving)
    turnpost new-game siam --player Ann --player Bob [--email ... --invite]
    turnpost replay GAME_ID           # exit 1 if the log does not rebuild the snapshot
    turnpost export GAME_ID           # the game and its full log as JSON
    turnpost send-mail                # once: deadlines and reminders, then deliver due mail
    turnpost worker                   # send-mail every 30 s, webhooks and pushes beside it, forever
    turnpost send-webhooks            # once: post due webhook deliveries, until none is due
    turnpost send-pushes              # once: send due Web Push messages, until none is due
    turnpost mail-in [RECIPIENT...]   # one reply on stdin (an MTA pipe); exit 75 to retry
    turnpost smtpd [--lmtp]           # receive replies over SMTP or LMTP
    turnpost mail-key GAME_ID SEAT    # a seat's reply address; --revoke replaces it
    turnpost openapi                  # the OpenAPI document as JSON (to generate a client)

``turnpost --version`` prints Turnpost's version. The command lists only
Turnpost's own commands: Flask's plugins (Flask-Limiter's ``limiter``,
flask-smorest's ``openapi`` group) are not offered, and neither ``--help``
nor ``--version`` opens the database.
"""

from __future__ import annotations

import json
import signal
import sqlite3
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

from schemas.api import PlayerInSchema
from server.app import create_app
from server.errors import TurnpostError
from server.games.clock import utcnow
from server.games.deadlines import process_deadlines
from server.games.game import Game
from server.games.service import GameService
from server.games.tables import DEADLINE_POLICIES, MAX_TURN_HOURS, MIN_TURN_HOURS, expire_tables
from server.http.api_spec import openapi_document
from server.http.context import current_service, current_store
from server.mail.addresses import reply_address
from server.mail.delivery import Report, deliver_due, forget_bodies
from server.mail.inbound import MAX_MESSAGE_BYTES, describe, receive
from server.mail.settings import MailSettings
from server.mail.smtpd import InboundController, InboundHandler
from server.notify.digest import queue_digests
from server.push.delivery import Sender, contact_of
from server.push.delivery import deliver_due as deliver_pushes_due
from server.push.keys import vapid_key
from server.push.subscriptions import push_destinations
from server.serving import WORKER_CONNECTIONS, run
from server.store.sqlite import dumps
from server.webhooks.delivery import deliver_due as deliver_webhooks_due
from server.webhooks.destinations import configured


class TurnpostGroup(FlaskGroup):
    """Flask's command group (app loading, ``--app``-free) offering Turnpost's commands only.

    Flask's own group also lists the commands of installed Flask plugins and
    of the app, loading the app (and so creating the database) just to
    print ``--help``; this one lists what is registered on it and nothing else,
    without Flask's ``--app``, ``--env-file`` and ``--debug`` options (the app
    is Turnpost's, configured by ``TURNPOST_*`` variables).
    """

    #: Flask's own options, which make no sense for Turnpost's command.
    FLASK_OPTIONS = frozenset({"app", "env_file", "debug"})

    def __init__(self, **extra: Any) -> None:
        super().__init__(**extra)
        self.params = [param for param in self.params if param.name not in self.FLASK_OPTIONS]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        """The Turnpost command ``name``, without loading the app or plugins."""
        return click.Group.get_command(self, ctx, name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Turnpost's command names."""
        return click.Group.list_commands(self, ctx)


@click.group(
    cls=TurnpostGroup,
    create_app=create_app,
    add_default_commands=False,
    add_version_option=False,
    load_dotenv=False,
)
@click.version_option(package_name="turnpost", prog_name="Turnpost", message="%(prog)s %(version)s")
def main() -> None:
    """Turnpost: a play-by-email and REST turn server for board games."""


@main.command("init-db")
@with_appcontext
def init_db() -> None:
    """Create the database, or migrate it to the latest schema (the app does this on start too)."""
    schema = current_store().init()
    click.echo(
        f"Database ready: {current_app.config['TURNPOST_DB']} (schema version {schema.after})"
    )


@main.command("new-game")
@click.argument("engine")
@click.option(
    "--player", "names", multiple=True, required=True, help="A player name, in seat order."
)
@click.option("--email", "emails", multiple=True, help="Emails, in the same order as --player.")
@click.option("--invite", is_flag=True, help="Mail each player with an email an invitation now.")
@click.option("--seed", type=int, default=None, help="Seed of the game's PRNG (default: random).")
@click.option("--option", "options", multiple=True, help="An engine option as NAME=JSON.")
@click.option(
    "--turn-hours",
    type=click.FloatRange(MIN_TURN_HOURS, MAX_TURN_HOURS),
    default=None,
    help="A turn clock: hours per move (default: no clock).",
)
@click.option(
    "--deadline-policy",
    type=click.Choice(DEADLINE_POLICIES),
    default="remind",
    show_default=True,
    help="What happens when a turn's time is up.",
)
@click.option("--base-url", default=None, help="Address in the links (default: TURNPOST_BASE_URL).")
@with_appcontext
def new_game(
    engine: str,
    names: tuple[str, ...],
    emails: tuple[str, ...],
    invite: bool,
    seed: int | None,
    options: tuple[str, ...],
    turn_hours: float | None,
    deadline_policy: str,
    base_url: str | None,
) -> None:
    """Create a game and print each seat's token and private link.

    A player with an ``--email`` gets turn mails; with ``--invite``, an
    invitation at once (a player to move first: their first turn mail). The
    command says who was mailed. ``--turn-hours`` gives each turn a deadline.
    """
    given = []
    for index, name in enumerate(names):
        email = emails[index] if index < len(emails) else None
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
        )
    except ValidationError as error:
        raise click.ClickException(f"Please check the players: {error.messages}") from None
    except TurnpostError as error:
        raise click.ClickException(error.message) from None
    print_game(game, base_url or _mail_settings().base_url)
    print_invitations(game, players)


def print_invitations(game: dict[str, Any], players: list[dict[str, Any]]) -> None:
    """Say which players are mailed now (an invitation, or their first turn)."""
    mailed = current_store().mailed_seats(game["id"])
    for seat, player in enumerate(players):
        if player.get("email") and seat in mailed:
            click.echo(f"  {player['name']} is mailed now")
    if mailed and not _mail_settings().smtp_url:
        click.echo("TURNPOST_SMTP_URL is not set here: the worker that has it sends the mail.")


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
    click.echo(f"Game {game['id']} ({game['engine']}): {base_url}/games/{game['id']}")
    for player in game["players"]:
        link = f"{base_url}/games/{game['id']}/seat/{player['token']}"
        click.echo(f"  seat {player['seat']} {player['name']}: token {player['token']}")
        click.echo(f"    play in the browser: {link}")
    if "admin_token" in game:
        click.echo(f"  admin token: {game['admin_token']}")


def demo_game(games: GameService, db_path: str) -> dict[str, Any]:
    """The demo Siam game of ``serve --demo``: the earlier one while it runs, else a new one.

    The demo game's id is kept beside the database (``<db>.demo``). A reused
    game gets new seat tokens, since tokens are stored hashed only: its old
    links stop working and the new ones are printed.
    """
    marker = Path(f"{db_path}.demo")
    if marker.exists():
        try:
            earlier = games.load(marker.read_text().strip())
        except TurnpostError:
            earlier = None
        if earlier is not None and earlier.status == "active":
            click.echo(f"Demo Siam game, as you left it (move {earlier.seq}); new seat links:")
            game = games.game_object(earlier, None)
            return {**game, "players": games.renew_seat_tokens(earlier.id)}
    game = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {})
    marker.write_text(game["id"])
    click.echo("Demo Siam game ready:")
    return game


def _load(games: GameService, game_id: str) -> Game:
    """The game ``game_id``, or a command-line error."""
    try:
        return games.load(game_id)
    except TurnpostError as error:
        raise click.ClickException(error.message) from None


@main.command("replay")
@click.argument("game_id")
@with_appcontext
def replay(game_id: str) -> None:
    """Rebuild the state from the log and compare it with the snapshot (exit 1 on mismatch)."""
    games = current_service()
    game = _load(games, game_id)
    if not game.started:
        click.echo("OK: the table was never dealt, so there is nothing to replay")
        return
    try:
        rebuilt = games.replay(game)
    except TurnpostError as error:
        click.echo(f"MISMATCH: {error.message}", err=True)
        raise SystemExit(1) from None
    if dumps(rebuilt) != dumps(game.state):
        click.echo(f"MISMATCH: replaying {game.seq} moves does not give the snapshot", err=True)
        raise SystemExit(1)
    click.echo(f"OK: {game.seq} moves replay to the snapshot")


@main.command("export")
@click.argument("game_id")
@with_appcontext
def export(game_id: str) -> None:
    """Print the public game object and its move log as JSON."""
    games = current_service()
    game = _load(games, game_id)
    document = {"game": games.game_object(game, seat=None), "moves": games.move_log(game)}
    click.echo(json.dumps(document, indent=2))


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True)
@click.option("--workers", default=2, show_default=True, help="gunicorn worker processes.")
@click.option(
    "--connections",
    default=WORKER_CONNECTIONS,
    show_default=True,
    help="Connections each worker holds at once (event streams included).",
)
@click.option(
    "--demo/--no-demo", default=False, help="Create a demo Siam game and print its links."
)
@with_appcontext
def serve(host: str, port: int, workers: int, connections: int, demo: bool) -> None:
    """Serve the app with gunicorn's gevent workers (see ``server/serving.py``)."""
    base_url = f"http://{host}:{port}"
    if demo:
        game = demo_game(current_service(), current_app.config["TURNPOST_DB"])
        print_game(game, base_url)
        click.echo(
            f"Try: curl -H 'Authorization: Bearer {game['players'][0]['token']}' "
            f'-d \'{{"notation": "enter a1 N"}}\' {base_url}/api/v1/games/{game["id"]}/moves'
        )
    click.echo(f"Serving {base_url} (API docs at {base_url}/api/docs); Ctrl-C stops.")
    run(current_app.config["TURNPOST_DB"], host, port, workers, connections)


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


@main.command("send-mail")
@with_appcontext
def send_mail() -> None:
    """Once (e.g. from cron): deadlines and reminders, daily digests, mail retention, then send
    due mail.

    Prints one line per mail and why a mail failed; exits 1 if a mail failed for good.
    """
    if not _mail_settings().smtp_url:
        click.echo("TURNPOST_SMTP_URL is not set: mail stays in the outbox.", err=True)
    actions, report = run_clock_and_outbox()
    echo_report(report)
    click.echo(f"deadline actions {actions}, {report.summary()}")
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


#: What the worker sends from threads of its own: each round's function, and its line's words.
BACKGROUND = {
    "webhooks": (deliver_webhooks, "webhooks delivered"),
    "pushes": (deliver_pushes, "pushes sent"),
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


@main.command("send-webhooks")
@with_appcontext
def send_webhooks() -> None:
    """Once (e.g. from cron): post the due webhook deliveries, round after round until none is
    due."""
    delivered, failed = until_none_due(deliver_webhooks)
    click.echo(f"webhooks delivered {delivered}, failed {failed}")


@main.command("send-pushes")
@with_appcontext
def send_pushes() -> None:
    """Once (e.g. from cron): send the due Web Push messages, round after round until none is
    due."""
    sent, failed = until_none_due(deliver_pushes)
    click.echo(f"pushes sent {sent}, failed {failed}")


def background_rounds(app: Flask, stop: threading.Event, interval: float, what: str) -> None:
    """Deliver ``what`` (a :data:`BACKGROUND` name) until ``stop``: round after round while some
    are due, else every ``interval`` seconds (one of the worker's threads)."""
    deliver, words = BACKGROUND[what]
    with app.app_context():
        while not stop.is_set():
            done, failed = deliver(stop)
            if done or failed:
                click.echo(f"{words} {done}, failed {failed}")
            else:
                stop.wait(interval)


@main.command("worker")
@click.option("--interval", default=30.0, show_default=True, help="Seconds between rounds.")
@with_appcontext
def worker(interval: float) -> None:
    """Run ``send-mail`` every ``--interval`` seconds, with webhooks and pushes beside it, until
    stopped.

    Webhooks and pushes go out from threads of their own, so a slow receiver
    never holds up deadlines and mail. ``SIGTERM`` or ``SIGINT`` (Ctrl-C) stops
    them all: the mail round under way ends first, so a mail being sent is
    recorded and its line printed; webhook deliveries and pushes under way are
    cut and tried again later. It then exits 0.
    """
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    app = current_app._get_current_object()
    with ThreadPoolExecutor(len(BACKGROUND), thread_name_prefix="background") as background:
        threads = [
            background.submit(background_rounds, app, stop, interval, what) for what in BACKGROUND
        ]
        for thread in threads:  # a failing thread stops all
            thread.add_done_callback(lambda _: stop.set())
        try:
            while not stop.is_set():
                actions, report = run_clock_and_outbox()
                echo_report(report)
                if actions or report.outcomes:
                    click.echo(f"deadline actions {actions}, {report.summary()}")
                stop.wait(interval)
        finally:
            stop.set()
    for thread in threads:
        thread.result()  # raises what stopped a background thread, if anything did
    click.echo("worker stopped")


@main.command("mail-in")
@click.argument("recipients", nargs=-1)
@with_appcontext
def mail_in(recipients: tuple[str, ...]) -> None:
    """Read one RFC 5322 message on stdin and play the move it carries (for an MTA pipe).

    With envelope RECIPIENTS (Postfix: ``${recipient}``), the message is
    handled once for each, like the listener does; without, the reply address
    is taken from the header. Prints one JSON outcome per line. Exits 0 once
    the message is handled (applied, refused with a reply, or dropped), 75
    (EX_TEMPFAIL: the MTA retries) if the database is unavailable.
    """
    raw = sys.stdin.buffer.read(MAX_MESSAGE_BYTES + 1)
    try:
        for envelope in [[recipient] for recipient in recipients] or [None]:
            outcome = receive(raw, current_service(), _mail_settings(), envelope)
            click.echo(json.dumps(describe(outcome)))
    except sqlite3.OperationalError as error:
        click.echo(f"temporary failure: {error}", err=True)
        raise SystemExit(75) from None


@main.command("smtpd")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8025, show_default=True)
@click.option("--lmtp", is_flag=True, help="Speak LMTP instead of SMTP (for Postfix or Dovecot).")
@with_appcontext
def smtpd(host: str, port: int, lmtp: bool) -> None:
    """Receive replies over SMTP or LMTP until stopped."""
    turnpost = current_app.extensions["turnpost"]
    handler = InboundHandler(turnpost.db_path, _mail_settings(), turnpost.listeners)
    controller = InboundController(handler, host, port, lmtp=lmtp)
    controller.start()
    click.echo(f"Listening for {'LMTP' if lmtp else 'SMTP'} on {host}:{port}; Ctrl-C stops.")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        controller.stop()


@main.command("openapi")
@with_appcontext
def openapi() -> None:
    """Print the OpenAPI document of the API (what ``/api/v1/openapi.json`` serves)."""
    click.echo(json.dumps(openapi_document(), indent=2))


@main.command("mail-key")
@click.argument("game_id")
@click.argument("seat", type=int)
@click.option("--revoke", is_flag=True, help="Invalidate the current reply address first.")
@with_appcontext
def mail_key(game_id: str, seat: int, revoke: bool) -> None:
    """Print a seat's reply address; ``--revoke`` replaces it with a new one."""
    store = current_store()
    if revoke:
        generation = store.revoke_mail_key(game_id, seat)
    else:
        generation = store.mail_generation(game_id, seat)
    if generation is None:
        raise click.ClickException(f"No seat {seat} in game {game_id!r}.")
    click.echo(reply_address(_mail_settings(), game_id, seat, generation))
