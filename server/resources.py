"""Where Turnpost's files that are not Python live: templates and static files, checkout or wheel.

In a checkout (and an editable install) they are the repository's
``templates/``, ``translations/`` and ``static/`` folders (the pages' stylesheet and script). A
wheel installs them as data files under ``<prefix>/share/turnpost/``
(``[options.data_files]`` in ``setup.cfg``), since the design keeps them at
the top level, outside the Python packages.

    >>> (templates_dir() / "base.html").is_file(), (static_dir() / "turnpost.css").is_file()
    (True, True)
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

#: The repository's root in a checkout.
CHECKOUT = Path(__file__).resolve().parent.parent
#: Where a wheel installs the folders, relative to the installation prefix.
INSTALLED = Path("share") / "turnpost"


def shipped(name: str) -> Path:
    """The folder ``name`` (``templates``, ``static``): the checkout's, else the installed one."""
    checkout = CHECKOUT / name
    if checkout.is_dir():
        return checkout
    installed = Path(sys.prefix) / INSTALLED / name
    if installed.is_dir():
        return installed
    raise FileNotFoundError(
        f"Turnpost's {name} are missing: neither {checkout} nor {installed} exists"
    )


@cache
def templates_dir() -> Path:
    """The folder holding Turnpost's Jinja templates."""
    return shipped("templates")


@cache
def translations_dir() -> Path:
    """The folder holding the gettext catalogs (``<language>/LC_MESSAGES/messages.mo``)."""
    return shipped("translations")


@cache
def static_dir() -> Path:
    """The folder holding the pages' stylesheet and script, served under ``/assets/``."""
    return shipped("static")
