"""``turnpost`` in the language of its environment (issue 24): its help (the installed command,
run as a program with this checkout first on its path), click's own messages when a command is
mistyped, and what the commands print."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from babel.messages.extract import extract_from_file
from click.testing import CliRunner

from server.cli import main
from server.cli_help import CLICK_MESSAGES
from server.i18n import catalog, command_language
from tests.catalog_english import english_left

#: This checkout, put first on the command's path (the virtualenv may hold another one).
ROOT = Path(__file__).resolve().parents[2]
#: The ``turnpost`` program of the virtualenv running the tests.
TURNPOST = Path(sys.executable).parent / "turnpost"
#: What says the language of a command: Turnpost's setting, then gettext's variables.
LANGUAGE_VARIABLES = ("TURNPOST_LANGUAGE", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def turnpost_help(env: dict[str, str], *command: str) -> str:
    """What ``turnpost COMMAND --help`` prints with ``env`` as the only language settings,
    its spaces squeezed (click wraps the lines)."""
    inherited = {
        name: value for name, value in os.environ.items() if name not in LANGUAGE_VARIABLES
    }
    result = subprocess.run(
        [str(TURNPOST), *command, "--help"],
        env={**inherited, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return " ".join(result.stdout.split())


def squeezed(text: str) -> str:
    """``text`` with its spaces squeezed as the help is read here (French's non-breaking space
    before a colon too)."""
    return " ".join(text.split())


def written(text: str) -> str:
    """``text`` without its spaces, to find a paragraph however click wrapped it."""
    return "".join(text.split())


@pytest.mark.parametrize(
    ("env", "language"),
    [({"LANG": "de_DE.UTF-8"}, "de"), ({"TURNPOST_LANGUAGE": "fr", "LANG": "de_DE.UTF-8"}, "fr")],
)
def test_help_speaks_the_language_of_the_environment(env: dict[str, str], language: str) -> None:
    words = catalog(language).gettext
    overview = turnpost_help(env)
    assert overview.startswith(f"{squeezed(words('Usage:'))} turnpost ")
    for title in ("Options", "Commands"):
        assert f"{words(title)}:" in overview
    assert words("Show this message and exit.") in overview
    assert written(words(main.help_id)) in written(overview)
    assert english_left(overview, language) == set()

    new_game = turnpost_help(env, "new-game")
    for text in (
        main.commands["new-game"].help_id,
        *(p.help for p in main.commands["new-game"].params),
    ):
        if text:
            assert written(words(text)) in written(new_game), text
    assert f"[{squeezed(words('default: %(default)s') % {'default': 'remind'})}]" in new_game
    assert f"[{words('required')}]" in new_game
    assert english_left(new_game, language) == set()


@pytest.mark.parametrize(
    "env", [{}, {"LANG": "es_ES.UTF-8"}, {"LC_ALL": "C.UTF-8", "LANG": "nl_NL.UTF-8"}]
)
def test_help_is_english_by_default(env: dict[str, str]) -> None:
    overview = turnpost_help(env)
    assert overview.startswith("Usage: turnpost [OPTIONS] COMMAND [ARGS]... ")
    assert "Options: --version Show the version and exit." in overview
    assert "Commands: backup Copy the whole database" in overview
    new_game = turnpost_help(env, "new-game")
    assert written(main.commands["new-game"].help_id) in written(new_game)
    assert "[default: remind]" in new_game and "[required]" in new_game


@pytest.mark.parametrize(
    ("env", "language"),
    [
        ({"TURNPOST_LANGUAGE": "nl", "LANGUAGE": "fr"}, "nl"),
        ({"TURNPOST_LANGUAGE": "xx", "LANGUAGE": "fr:de"}, "fr"),
        ({"LC_ALL": "de_AT.UTF-8", "LANG": "fr_FR.UTF-8"}, "de"),
        ({"LC_MESSAGES": "nl_BE.UTF-8", "LANG": "fr_FR.UTF-8"}, "nl"),
        ({"LANG": "fr_CA"}, "fr"),
        ({"LANG": "pt_BR.UTF-8"}, "en"),
        ({"LANG": "C"}, "en"),
        ({}, "en"),
    ],
)
def test_the_command_language_follows_gettexts_order(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], language: str
) -> None:
    for name in LANGUAGE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert command_language() == language


@pytest.mark.parametrize("language", ["nl", "de", "fr"])
def test_every_commands_help_is_translated(language: str) -> None:
    for command in ([], *([name] for name in sorted(main.commands))):
        result = CliRunner().invoke(main, [*command, "--help"], env={"TURNPOST_LANGUAGE": language})
        assert result.exit_code == 0, result.output
        shown = " ".join(result.output.split())
        assert english_left(shown, language) == set(), (command, shown)
        assert shown.startswith(squeezed(catalog(language).gettext("Usage:"))), shown


#: Mistakes and what click says of each, as click spells it (its placeholders filled).
MISTAKES = [
    (["--bogus"], "No such option {name!r}.", {"name": "--bogus"}),
    (["bogus"], "No such command {name!r}.", {"name": "bogus"}),
    (["replay"], "Missing argument", {}),
]


def said(language: str, text: str, **params: str) -> str:
    """Click's message ``text`` as the catalog of ``language`` says it, its placeholders filled."""
    return catalog(language).gettext(text).format(**params)


@pytest.mark.parametrize("language", ["en", "nl", "de", "fr"])
def test_clicks_own_messages_speak_the_commands_language(language: str) -> None:
    before = os.environ.get("LANGUAGE")
    for args, message, params in MISTAKES:
        result = CliRunner().invoke(
            main, args, env={"TURNPOST_LANGUAGE": language}, prog_name="turnpost"
        )
        assert result.exit_code == 2, result.output
        shown = " ".join(result.output.split())
        error = said(language, "Error: {message}", message=said(language, message, **params))
        assert squeezed(error) in shown, shown
        command = "turnpost replay" if args == ["replay"] else "turnpost"
        help_hint = "Try '{command} {option}' for help."
        assert squeezed(said(language, help_hint, command=command, option="--help")) in shown
        assert shown.startswith(f"{squeezed(said(language, 'Usage:'))} {command} ")
        if language != "en":
            assert english_left(shown, language) == set(), shown
            assert "Error" not in shown and "Try" not in shown, shown
    assert os.environ.get("LANGUAGE") == before  # gettext's language set for the command only
    assert "GAME_ID" in shown  # names stay the command's own


def test_clicks_messages_in_english_stay_as_click_says_them() -> None:
    result = CliRunner().invoke(
        main, ["--bogus"], env={"TURNPOST_LANGUAGE": "en"}, prog_name="turnpost"
    )
    assert result.output.splitlines()[-3:] == [
        "Try 'turnpost --help' for help.",
        "",
        "Error: No such option '--bogus'.",
    ]
    plural = CliRunner().invoke(
        main, ["new-game", "siam", "--player", "A", "--deadline-policy", "x"]
    )
    assert "'x' is not one of 'remind', 'skip', 'forfeit'." in plural.output


@pytest.mark.parametrize("language", ["nl", "de", "fr"])
def test_what_the_commands_print_speaks_the_commands_language(db_path: str, language: str) -> None:
    env = {"TURNPOST_DB": db_path, "TURNPOST_LANGUAGE": language}

    def words(message: str) -> str:
        return squeezed(catalog(language).gettext(message))

    results = [
        CliRunner().invoke(main, args, env=env)
        for args in (
            ["init-db"],
            ["new-game", "siam", "--player", "Ann", "--player", "Bob", "--email", "a@example.org"],
            ["replay", "nogame"],
            ["new-game", "siam", "--player", "Ann", "--deadline-policy", "x"],
        )
    ]
    made, created, unknown, refused = (" ".join(result.output.split()) for result in results)
    game_id = re.search(r"/games/(\w+)/seat/", created).group(1)
    played = " ".join(CliRunner().invoke(main, ["replay", game_id], env=env).output.split())
    for shown in (made, created, unknown, refused, played):
        assert english_left(shown, language) == set(), shown
    ready = words("Database ready: %(database)s (schema version %(version)s)")
    assert made.startswith(ready.partition("%(database)s")[0]), made
    assert words("play in the browser: %(link)s") % {"link": ""} in created
    assert words("OK: %(count)s moves replay to the snapshot") % {"count": 0} == played
    assert "'nogame'" in unknown and results[2].exit_code == 1
    assert words("%(name)s is mailed now") % {"name": "Ann"} in created
    choices = "'remind', 'skip', 'forfeit'"
    assert (
        catalog(language)
        .ngettext("{value!r} is not {choice}.", "{value!r} is not one of {choices}.", 3)
        .format(value="x", choices=choices)
        in refused
    )


@pytest.mark.parametrize("language", ["nl", "de", "fr"])
def test_check_says_its_findings_in_the_commands_language(db_path: str, language: str) -> None:
    env = {"TURNPOST_DB": db_path, "TURNPOST_LANGUAGE": language, "TURNPOST_SECRET_KEY": ""}
    assert CliRunner().invoke(main, ["init-db"], env=env).exit_code == 0
    Path(db_path).chmod(0o644)  # readable by every user: an error
    result = CliRunner().invoke(main, ["check"], env=env)
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    error = catalog(language).gettext("error: %(finding)s").partition("%(finding)s")[0]
    assert any(line.startswith(f"{error}{db_path} ") for line in lines), lines
    assert english_left(" ".join(result.output.split()), language) == set(), result.output


def test_the_catalogs_hold_click_messages_as_click_spells_them() -> None:
    spelled = set()
    for module in Path(click.__file__).parent.glob("*.py"):
        keywords = {"_": None, "ngettext": (1, 2)}
        for _, message, _, _ in extract_from_file("python", str(module), keywords=keywords):
            spelled.add(message[0] if isinstance(message, tuple) else message)
    marked = {words["key"] for words in CLICK_MESSAGES}
    assert marked <= spelled, marked - spelled  # a message click words otherwise is English again


@pytest.mark.parametrize("language", ["en", "nl", "de", "fr"])
def test_a_missing_file_is_named_in_the_commands_language(language: str) -> None:
    missing = "/nonexistent/turnpost.backup"
    result = CliRunner().invoke(main, ["restore", missing], env={"TURNPOST_LANGUAGE": language})
    assert result.exit_code == 2, result.output
    named = said(language, "file").title()
    problem = said(language, "{name} {filename!r} does not exist.", name=named, filename=missing)
    hint = said(
        language,
        "Invalid value for {param_hint}: {message}",
        param_hint="'SOURCE'",
        message=problem,
    )
    assert said(language, "Error: {message}", message=hint) in result.output, result.output
