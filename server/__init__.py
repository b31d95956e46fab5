"""Turnpost's server: the app factory (:mod:`server.app`) and its rooms.

- :mod:`server.http`: the HTTP face (API, pages, guided form, limits, events, docs);
- :mod:`server.games`: games as everyone plays them (the service, deadlines, time);
- :mod:`server.mail`: play by email (rendering, the gate, the outbox, delivery, inbound);
- :mod:`server.store`: the only place SQL runs, with its migrations;
- :mod:`server.cli`: the ``turnpost`` command; :mod:`server.serving`: gunicorn.

``create_app`` is importable from here for ``wsgi.py`` and ``flask --app server``.
"""

from server.app import create_app

__all__ = ["create_app"]
