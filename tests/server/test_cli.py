"""The ``turnpost`` command line."""

from __future__ import annotations

import json
import re
from importlib import metadata

from click.testing import CliRunner

import server.cli
from server.cli import main
from server.games.clock import parse_time
from server.games.service import GameService, MoveRequest
from server.store import open_store


def run(db_path: str, *args: str):
    """Invoke ``turnpost`` on ``db_path``."""
    return CliRunner().invoke(main, list(args), env={"TURNPOST_DB": db_path})


def test_new_game_prints_tokens_and_links(db_path: str) -> None:
    result = run(db_path, "new-game", "siam", "--player", "Ann", "--player", "Bob")
    assert result.exit_code == 0, result.output
    assert re.search(r"seat 0 Ann: token \S{20,}", result.output)
    assert "/seat/" in result.output


def test_new_game_with_a_turn_clock_sets_a_deadline(db_path: str) -> None:
    result = run(
        db_path, "new-game", "siam", "--player", "Ann", "--player", "Bob", "--turn-hours", "48"
    )
    assert result.exit_code == 0, result.output
    store = open_store(db_path)
    [listed] = store.games_page(None, None, None, None, 1)
    game = store.game(listed.id)
    store.close()
    waited = parse_time(game.deadline) - parse_time(game.created_at)
    assert waited.total_seconds() == 48 * 3600
    refused = run(
        db_path, "new-game", "siam", "--player", "Ann", "--player", "Bob", "--turn-hours", "0"
    )
    assert refused.exit_code != 0 and "turn-hours" in refused.output


def test_new_game_with_a_bank_clock(db_path: str) -> None:
    bank = '{"kind": "bank", "bank_hours": 240, "increment_hours": 36, "max_bank_hours": 480}'
    players = ("--player", "Ann", "--player", "Bob")
    result = run(db_path, "new-game", "siam", *players, "--clock", bank)
    assert result.exit_code == 0, result.output
    store = open_store(db_path)
    [listed] = store.games_page(None, None, None, None, 1)
    game = store.game(listed.id)
    store.close()
    assert game.clock["kind"] == "bank" and game.clock["increment_hours"] == 36
    waited = parse_time(game.deadline) - parse_time(game.created_at)
    assert waited.total_seconds() == 240 * 3600
    for bad in ('{"kind": "bank", "hours": 3}', "ten days"):
        refused = run(db_path, "new-game", "siam", *players, "--clock", bad)
        assert refused.exit_code != 0 and "--clock" in refused.output


def test_new_game_unknown_engine_fails(db_path: str) -> None:
    result = run(db_path, "new-game", "chess", "--player", "Ann")
    assert result.exit_code != 0 and "No engine" in result.output


def play_two_moves(db_path: str) -> str:
    store = open_store(db_path)
    store.init()
    games = GameService(store)
    game = games.create("siam", [{"name": "Ann"}, {"name": "Bob"}], {}, seed=7)
    games.submit(MoveRequest(game["id"], token=game["players"][0]["token"], notation="enter a1 N"))
    games.submit(MoveRequest(game["id"], token=game["players"][1]["token"], notation="enter e5 S"))
    store.close()
    return game["id"]


def test_replay_matches_snapshot(db_path: str) -> None:
    game_id = play_two_moves(db_path)
    result = run(db_path, "replay", game_id)
    assert result.exit_code == 0 and "OK: 2 moves" in result.output


def test_replay_detects_a_tampered_snapshot(db_path: str) -> None:
    game_id = play_two_moves(db_path)
    store = open_store(db_path)
    state = store.game(game_id).state
    state["board"]["c2"] = {"kind": "rock"}
    store.db["games"].update(game_id, {"state": json.dumps(state)})
    store.close()
    result = run(db_path, "replay", game_id)
    assert result.exit_code == 1


def test_export_has_game_and_log(db_path: str) -> None:
    game_id = play_two_moves(db_path)
    result = run(db_path, "export", game_id)
    document = json.loads(result.output)
    assert document["game"]["id"] == game_id
    assert [m["notation"] for m in document["moves"]] == ["enter a1 N", "enter e5 S"]


def test_the_cli_docstring_lists_every_command() -> None:
    listed = re.findall(r"^\s+turnpost ([a-z-]+)", server.cli.__doc__, flags=re.M)
    ours = [
        name
        for name, command in main.commands.items()
        if command.callback.__module__ == "server.cli"
    ]
    assert len(ours) >= 10
    assert sorted(listed) == sorted(ours), "server/cli.py's docstring is out of date"


def test_version_is_turnposts() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"Turnpost {metadata.version('turnpost')}"
    assert "Flask" not in result.output and "Werkzeug" not in result.output


def test_help_lists_turnposts_commands_only_and_opens_no_database(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TURNPOST_DB", raising=False)
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    listed = re.findall(r"^  ([a-z-]+)  ", result.output.split("Commands:")[1], flags=re.M)
    assert sorted(listed) == sorted(main.commands)
    assert "limiter" not in listed and "routes" not in listed and "--app" not in result.output
    assert list(tmp_path.iterdir()) == [], "--help must not create ./turnpost.db"


def test_openapi_prints_the_served_document(db_path: str, client) -> None:
    result = run(db_path, "openapi")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == client.get("/api/v1/openapi.json").get_json()


def test_serve_demo_reuses_its_running_demo_game_with_new_links(db_path: str) -> None:
    """``./run`` starts ``serve --demo``: a restart continues the demo game, not a new one."""
    store = open_store(db_path)
    store.init()
    games = GameService(store)
    first = server.cli.demo_game(games)
    ann = first["players"][0]["token"]
    games.submit(MoveRequest(first["id"], token=ann, notation="enter a1 N"))
    again = server.cli.demo_game(games)
    assert again["id"] == first["id"] and again["seq"] == 1
    assert "admin_token" not in again, "the admin token is shown when the game is made only"
    assert games.load_as(first["id"], again["players"][0]["token"])[1] == 0
    assert store.seat_by_token(first["id"], ann) is None, "the old link stopped working"
    games.resign(first["id"], 1)
    fresh = server.cli.demo_game(games)
    assert fresh["id"] != first["id"] and fresh["seq"] == 0 and "admin_token" in fresh
    store.close()


def test_new_game_links_use_the_configured_base_url(db_path: str) -> None:
    environment = {"TURNPOST_DB": db_path, "TURNPOST_BASE_URL": "https://play.example.org"}
    result = CliRunner().invoke(
        main, ["new-game", "siam", "--player", "Ann", "--player", "Bob"], env=environment
    )
    assert result.exit_code == 0, result.output
    assert "https://play.example.org/games/" in result.output


def test_new_game_invites_players_with_an_address_when_asked(db_path: str) -> None:
    players = ["--player", "Ann", "--email", "ann@example.org", "--player", "Bob"]
    players += ["--email", "bob@example.org"]
    plain = run(db_path, "new-game", "siam", *players)
    assert plain.exit_code == 0, plain.output
    assert "Ann is mailed now" in plain.output and "Bob is mailed" not in plain.output
    invited = run(db_path, "new-game", "siam", *players, "--invite")
    assert "Ann is mailed now" in invited.output and "Bob is mailed now" in invited.output
    game_id = re.search(r"Game (\w+)", invited.output).group(1)
    store = open_store(db_path)
    kinds = [row["kind"] for row in store.db["outbox"].rows_where("game_id = ?", [game_id])]
    store.close()
    assert sorted(kinds) == ["invite", "turn"]
    assert "ann@example.org" not in invited.output + plain.output


def test_replay_of_a_table_never_dealt_says_so(db_path: str) -> None:
    store = open_store(db_path)
    store.init()
    table = GameService(store).create("siam", [{"name": "Ann"}, {"open": True}], {})
    store.close()
    result = run(db_path, "replay", table["id"])
    assert result.exit_code == 0 and "never dealt" in result.output
