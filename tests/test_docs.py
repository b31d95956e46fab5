"""The README against the code it describes (as Datasette's ``tests/test_docs.py`` does).

Each check fails when someone adds, renames or drops a command or an option
without telling the README, or the README promises what the code lacks.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from server.cli import main
from server.mail.settings import config_keys

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def section(title: str) -> str:
    """The text of the README section headed ``## title``."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", README, flags=re.M | re.S)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def readme_commands() -> dict[str, set[str]]:
    """``turnpost`` commands in the README's "Command line" block, with the options shown."""
    block = re.search(r"```sh\n(.*?)```", section("Command line"), flags=re.S)
    assert block, "the Command line section has no sh block"
    commands: dict[str, set[str]] = {}
    for line in block.group(1).splitlines():
        words = line.split("#", 1)[0].split()
        if words[:1] == ["turnpost"]:
            options = {word.strip("[]").split("=")[0] for word in words if "--" in word}
            commands.setdefault(words[1], set()).update(options)
    return commands


def our_commands() -> dict[str, click.Command]:
    """The commands ``server/cli.py`` defines (not those libraries add to the group)."""
    return {
        name: command
        for name, command in main.commands.items()
        if command.callback is not None and command.callback.__module__ == "server.cli"
    }


def test_the_readme_lists_every_command_and_only_real_ones() -> None:
    assert sorted(readme_commands()) == sorted(our_commands())


@pytest.mark.parametrize("name", sorted(readme_commands()))
def test_every_option_the_readme_shows_exists(name: str) -> None:
    command = our_commands()[name]
    known = {flag.split("/")[0] for param in command.params for flag in param.opts}
    known |= {flag for param in command.params for flag in param.secondary_opts}
    missing = readme_commands()[name] - known
    assert not missing, f"turnpost {name}: the README shows {sorted(missing)}, which it lacks"


def test_the_quick_start_is_two_commands_that_exist() -> None:
    block = re.search(r"```sh\n(.*?)```", section("Quick start"), flags=re.S)
    assert block
    commands = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    assert commands == ["./run", "./test"]
    root = Path(__file__).resolve().parent.parent
    assert all((root / command).stat().st_mode & 0o111 for command in commands)


def variables_in_code() -> set[str]:
    """Every ``TURNPOST_*`` variable the server reads (mail settings by their own list)."""
    root = Path(__file__).resolve().parent.parent / "server"
    named = {
        name
        for path in root.rglob("*.py")
        for name in re.findall(r"TURNPOST_[A-Z_]*[A-Z]\b", path.read_text())
    }
    return named | set(config_keys().values())


def test_the_readme_documents_every_setting_and_only_real_ones() -> None:
    documented = set(re.findall(r"`(TURNPOST_[A-Z_]+)`", section("Configuration and security")))
    assert documented == variables_in_code()


DEPLOY = (Path(__file__).resolve().parent.parent / "docs" / "deploy.md").read_text()


def test_the_deploy_guide_names_only_real_settings() -> None:
    named = set(re.findall(r"TURNPOST_[A-Z_]*[A-Z]", DEPLOY))
    assert named and named <= variables_in_code(), sorted(named - variables_in_code())


def test_the_deploy_guide_shows_only_real_commands_and_options() -> None:
    shown = re.findall(r"(?<![=\w])turnpost ([a-z][a-z-]*)([^`\n]*)", DEPLOY)
    assert shown
    for name, rest in shown:
        assert name in our_commands(), f"docs/deploy.md shows turnpost {name}, which is no command"
        command = our_commands()[name]
        known = {flag for param in command.params for flag in param.opts + param.secondary_opts}
        missing = set(re.findall(r"--[a-z-]+", rest)) - known
        assert not missing, f"turnpost {name}: docs/deploy.md shows {sorted(missing)}"
