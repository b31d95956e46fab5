"""``turnpost --help`` in the language of its environment (issue 24): the installed command,
run as a program with this checkout first on its path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from server.cli import main
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
