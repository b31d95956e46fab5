"""What a request needs of the running app: its game service, its store, the CSRF guard.

A leaf module: the blueprints and commands import these helpers from here, and
the app factory (:mod:`server.app`) installs what they reach through
``current_app.extensions["turnpost"]``, so no module imports the factory but
the entry points (flaskr's ``db.py`` plays this part there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import current_app
from flask_wtf.csrf import CSRFProtect

if TYPE_CHECKING:
    from server.games.service import GameService
    from server.store.base import Store

#: The CSRF guard of every form (installed on the app by the factory).
csrf = CSRFProtect()


def current_service() -> GameService:
    """The game service of the running app (for views and commands)."""
    return current_app.extensions["turnpost"].service()


def current_store() -> Store:
    """The store of the running app context (for views and commands not about one game)."""
    return current_app.extensions["turnpost"].store()
