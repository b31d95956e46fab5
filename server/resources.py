"""Where Turnpost's files that are not Python live: the templates, in a checkout or a wheel.

In a checkout (and an editable install) the templates are the repository's
``templates/`` folder. A wheel installs them as data files under
``<prefix>/share/turnpost/templates`` (``[options.data_files]`` in
``setup.cfg``), since the design keeps ``templates/`` at the top level, outside
the Python packages.

    >>> (templates_dir() / "base.html").is_file()
    True
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

#: The templates folder of a checkout.
CHECKOUT_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
#: The templates folder of an installed wheel, relative to the installation prefix.
INSTALLED_TEMPLATES = Path("share") / "turnpost" / "templates"


@cache
def templates_dir() -> Path:
    """The folder holding Turnpost's Jinja templates (the checkout's, else the installed one)."""
    if CHECKOUT_TEMPLATES.is_dir():
        return CHECKOUT_TEMPLATES
    installed = Path(sys.prefix) / INSTALLED_TEMPLATES
    if installed.is_dir():
        return installed
    raise FileNotFoundError(
        f"Turnpost's templates are missing: neither {CHECKOUT_TEMPLATES} nor {installed} exists"
    )
