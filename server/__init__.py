"""Turnpost's server: the app factory (:mod:`server.app`) and its rooms.

- :mod:`server.http`: the HTTP face (API, pages, guided form, limits, events, docs);
- :mod:`server.games`: games as everyone plays them (the service, deadlines, time);
- :mod:`server.mail`: play by email (rendering, the gate, the outbox, delivery, inbound);
- :mod:`server.store`: the only place SQL runs, with its migrations;
- :mod:`server.cli`: the ``turnpost`` command; :mod:`server.serving`: gunicorn.

``create_app`` is importable from here for ``wsgi.py`` and ``flask --app server``.
"""

import sys

if sys.argv[1:2] == ["serve"] and sys.argv[0].endswith("turnpost"):  # pragma: no cover
    # ``turnpost serve`` runs gevent workers: gevent patches ssl before urllib3 and redis
    # import it (below), or each worker warns that it patched too late (MonkeyPatchWarning);
    # the workers patch the rest (threads included) once forked.
    from gevent import monkey

    monkey.patch_ssl()

from server.app import create_app  # noqa: E402

__all__ = ["create_app"]
