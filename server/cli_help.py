"""The ``turnpost`` command's help in the language of its environment (issue 24).

Click writes a help page from each command's and option's ``help`` (message ids
of the catalogs, marked with ``N_``) and words of its own ("Usage:", "Options",
"Show this message and exit.", in English: Turnpost ships no catalog of click's
gettext domain). The classes here write both through the catalog of
:func:`~server.i18n.command_language`. Click's error messages stay English.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import click

from server.i18n import N_, catalog, command_language

#: Click's own words on a help page, as click says them (the catalogs translate them).
CLICK_WORDS = (
    N_("Usage:"),
    N_("Options"),
    N_("Commands"),
    N_("Show this message and exit."),
    N_("Show the version and exit."),
    N_("default: %(default)s"),
    N_("required"),
)


def words(message: str) -> str:
    """``message`` in the command's language."""
    return catalog(command_language()).gettext(message)


class HelpFormatter(click.HelpFormatter):
    """Click's formatter, writing the usage line's prefix and the sections' titles in the
    command's language."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        """The usage line, "Usage:" in the command's language."""
        super().write_usage(prog, args, f"{words('Usage:')} " if prefix is None else prefix)

    def section(self, name: str) -> AbstractContextManager[None]:
        """A section titled ``name`` (one of :data:`CLICK_WORDS`) in the command's language."""
        return super().section(words(name))


class HelpContext(click.Context):
    """Click's context, formatting help with :class:`HelpFormatter`."""

    formatter_class = HelpFormatter


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

    context_class = HelpContext
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
            with formatter.section("Options"):
                formatter.write_dl(records)
