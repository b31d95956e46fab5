"""The ``turnpost`` command's words in its environment's language: help, output, click's.

Issue 24: its help, what its commands print, and click's own messages.

Click writes a help page from each command's and option's ``help`` (message ids
of the catalogs, marked with ``N_``) and words of its own ("Usage:", "Options",
"Show this message and exit."): :class:`TranslatedCommand` says the help texts and
the options' lines through the catalog of :func:`~server.i18n.command_language`. A
command prints its sentences with :func:`say` and refuses with :class:`CommandError`,
in the same language. Click says its own words ("Usage:", "No such option", "Missing
argument", "Try ... for help.") through gettext's global functions, which read the
catalogs of the domain :func:`clicks_language` binds (ours, holding
:data:`CLICK_MESSAGES`) in the language the environment's ``LANGUAGE`` names.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from engines.phrases import Words, counted, phrase
from server.i18n import DOMAIN, N_, catalog, command_language
from server.phrases import render
from server.resources import translations_dir

#: Words of a help page that :func:`option_record` says (click words an option's help when
#: it makes the option, in English: at import, before any language is chosen).
HELP_WORDS = (
    N_("Show this message and exit."),
    N_("Show the version and exit."),
    N_("default: %(default)s"),
    N_("required"),
)


#: Click's own messages that a user of the command meets (errors, prompts), as click spells
#: them (its ``{name}`` placeholders), marked for the catalogs; click looks them up itself.
CLICK_MESSAGES = (
    phrase("Usage:"),
    phrase("Options"),
    phrase("Commands"),
    phrase("Error: {message}"),
    phrase("Try '{command} {option}' for help."),
    phrase("No such option {name!r}."),
    phrase("No such command {name!r}."),
    phrase("Missing command."),
    phrase("Missing argument"),
    phrase("Missing option"),
    phrase("Missing parameter"),
    phrase("Missing {param_type}"),
    phrase("Missing parameter: {param_name}"),
    phrase("Invalid value: {message}"),
    phrase("Invalid value for {param_hint}: {message}"),
    phrase("Option {name!r} does not take a value."),
    phrase("Argument {name!r} takes {nargs} values."),
    phrase("{value!r} is not a valid {number_type}."),
    phrase("{value} is not in the range {range}."),
    phrase("{value!r} is not a valid boolean. Recognized values: {states}"),
    phrase("{name} {filename!r} does not exist."),
    phrase("{name} {filename!r} is a file."),
    phrase("{name} {filename!r} is a directory."),
    phrase("{name} {filename!r} is not readable."),
    phrase("{name} {filename!r} is not writable."),
    phrase("Could not open file {filename!r}: {message}"),
    phrase("file"),
    phrase("directory"),
    phrase("path"),
    phrase("Aborted!"),
    counted("Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})", 1),
    counted("Did you mean {possibility}?", "(Did you mean one of: {possibilities}?)", 1),
    counted(
        "Option {name!r} requires an argument.", "Option {name!r} requires {nargs} arguments.", 1
    ),
    counted("{value!r} is not {choice}.", "{value!r} is not one of {choices}.", 1),
)


@contextmanager
def clicks_language(language: str) -> Iterator[None]:
    """Click's own messages in ``language`` while the block runs: gettext's global functions,
    which click calls, read our catalogs (bound as gettext's default domain, for the process),
    and ``LANGUAGE`` (which gettext reads first) names ``language`` until the block ends."""
    gettext.bindtextdomain(DOMAIN, str(translations_dir()))
    before = os.environ.get("LANGUAGE")
    os.environ["LANGUAGE"] = language
    try:
        yield
    finally:
        if before is None:
            del os.environ["LANGUAGE"]
        else:
            os.environ["LANGUAGE"] = before


def spoken(words: Words) -> str:
    """``words`` (a phrase, or a plain string kept as it is) in the command's language."""
    return render(words, (), command_language())


def say(message: str, *, err: bool = False, indent: int = 0, **params: Any) -> None:
    """Print the message id ``message`` in the command's language, its placeholders filled
    from ``params``, ``indent`` spaces in (on stderr with ``err``)."""
    click.echo(" " * indent + spoken(phrase(message, **params)), err=err)


class CommandError(click.ClickException):
    """A command's refusal, said in the command's language: a phrase (or a refusal's words,
    :attr:`~server.errors.TurnpostError.words`)."""

    def __init__(self, words: Words) -> None:
        super().__init__(spoken(words))


class TranslatedPath(click.Path):
    """Click's path type, naming what it takes ("file", "directory" or "path", as click set
    it when the command was made, before its language was known) in the command's language
    when a message names it."""

    name_id = "path"

    @property  # type: ignore[override]
    def name(self) -> str:
        """What the path is, in the command's language."""
        return words(self.name_id)

    @name.setter
    def name(self, message: str) -> None:
        self.name_id = message


def words(message: str) -> str:
    """``message`` in the command's language."""
    return catalog(command_language()).gettext(message)


def option_record(option: click.Option, ctx: click.Context) -> tuple[str, str]:
    """An option's line on a help page: its names, then its help and what click adds to it
    (``[default: 30.0]``, its range, ``[required]``) in the command's language."""
    extra = option.get_help_extra(ctx)
    notes = []
    if "default" in extra:
        notes.append(words("default: %(default)s") % {"default": extra["default"]})
    notes += [extra["range"]] if "range" in extra else []
    notes += [words("required")] if "required" in extra else []
    text = words(option.help) if option.help else ""
    if notes:
        text = f"{text}  [{'; '.join(notes)}]".lstrip()
    return option.get_help_spec(ctx), text


class TranslatedCommand(click.Command):
    """A command whose help page is in the command's language: its ``help`` is said in it
    (click shortens it for a group's list), and so are its options'."""

    #: The message id of the command's help.
    help_id: str | None = None

    @property
    def help(self) -> str | None:
        """The command's help in the command's language."""
        return words(self.help_id) if self.help_id else self.help_id

    @help.setter
    def help(self, message: str | None) -> None:
        self.help_id = message

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The options, each with its help in the command's language (:func:`option_record`)."""
        records = [
            option_record(param, ctx)
            for param in self.get_params(ctx)
            if isinstance(param, click.Option) and not param.hidden
        ]
        if records:
            with formatter.section(words("Options")):
                formatter.write_dl(records)
