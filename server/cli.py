"""The ``turnpost`` command line (also reachable as ``flask --app server ...``).

turnpost init-db
turnpost serve --demo                 # gunicorn on http://127.0.0.1:8000
turnpost new-game siam --player Ann --player Bob
turnpost replay GAME_ID               # exit 1 if the log does not rebuild the snapshot
turnpost export GAME_ID               # the game and its full log as JSON
"""

from __future__ import annotations

import json
from typing import Any

import click
from flask import current_app
from flask.cli import FlaskGroup, with_appcontext

from server import create_app
from server.errors import TurnpostError
from server.store import dumps


def _service() -> Any:
    return current_app.extensions["turnpost"].service()


@click.group(cls=FlaskGroup, create_app=create_app, add_default_commands=False)
def main() -> None:
    """Turnpost: a play-by-email and REST turn server for board games."""


@main.command("init-db")
@with_appcontext
def init_db() -> None:
    """Create the database tables (the app does this on start too)."""
    click.echo(f"Database ready: {current_app.config['TURNPOST_DB']}")


@main.command("new-game")
@click.argument("engine")
@click.option(
    "--player", "names", multiple=True, required=True, help="A player name, in seat order."
)
@click.option("--email", "emails", multiple=True, help="Emails, in the same order as --player.")
@click.option("--seed", type=int, default=None, help="Seed of the game's PRNG (default: random).")
@click.option("--option", "options", multiple=True, help="An engine option as NAME=JSON.")
@click.option("--base-url", default="http://127.0.0.1:8000", show_default=True)
@with_appcontext
def new_game(
    engine: str,
    names: tuple[str, ...],
    emails: tuple[str, ...],
    seed: int | None,
    options: tuple[str, ...],
    base_url: str,
) -> None:
    """Create a game and print each seat's token and private link."""
    players = [
        {"name": name, "email": emails[i] if i < len(emails) else None}
        for i, name in enumerate(names)
    ]
    try:
        game = _service().create(engine, players, _parse_options(options), seed=seed)
    except TurnpostError as error:
        raise click.ClickException(error.message) from None
    print_game(game, base_url)


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
    """Print a new game's id, seat tokens and private links."""
    click.echo(f"Game {game['id']} ({game['engine']}): {base_url}/games/{game['id']}")
    for player in game["players"]:
        link = f"{base_url}/games/{game['id']}/seat/{player['token']}"
        click.echo(f"  seat {player['seat']} {player['name']}: token {player['token']}")
        click.echo(f"    play in the browser: {link}")
    click.echo(f"  admin token: {game['admin_token']}")


@main.command("replay")
@click.argument("game_id")
@with_appcontext
def replay(game_id: str) -> None:
    """Rebuild the state from the log and compare it with the snapshot (exit 1 on mismatch)."""
    games = _service()
    try:
        game = games.load(game_id)
    except TurnpostError as error:
        raise click.ClickException(error.message) from None
    rebuilt = games.replay(game)
    if dumps(rebuilt) != dumps(game.state):
        click.echo(f"MISMATCH: replaying {game.seq} moves does not give the snapshot", err=True)
        raise SystemExit(1)
    click.echo(f"OK: {game.seq} moves replay to the snapshot")


@main.command("export")
@click.argument("game_id")
@with_appcontext
def export(game_id: str) -> None:
    """Print the public game object and its move log as JSON."""
    games = _service()
    try:
        game = games.load(game_id)
    except TurnpostError as error:
        raise click.ClickException(error.message) from None
    document = {"game": games.game_object(game, seat=None), "moves": games.move_log(game)}
    click.echo(json.dumps(document, indent=2))


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True)
@click.option("--workers", default=2, show_default=True)
@click.option("--threads", default=16, show_default=True)
@click.option(
    "--demo/--no-demo", default=False, help="Create a demo Siam game and print its links."
)
@with_appcontext
def serve(host: str, port: int, workers: int, threads: int, demo: bool) -> None:
    """Serve the app with gunicorn (threaded workers, so event streams don't block moves)."""
    from server.gunicorn import run

    base_url = f"http://{host}:{port}"
    if demo:
        game = _service().create("siam", [{"name": "Ann"}, {"name": "Bob"}], {})
        click.echo("Demo Siam game ready:")
        print_game(game, base_url)
        click.echo(
            f"Try: curl -H 'Authorization: Bearer {game['players'][0]['token']}' "
            f'-d \'{{"notation": "enter a1 N"}}\' {base_url}/api/v1/games/{game["id"]}/moves'
        )
    click.echo(f"Serving {base_url} (API docs at {base_url}/api/docs); Ctrl-C stops.")
    run(current_app.config["TURNPOST_DB"], host, port, workers, threads)
