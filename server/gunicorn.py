"""Run the app under gunicorn from Python (used by ``turnpost serve`` and the tests)."""

from __future__ import annotations

import os
from typing import Any

from gunicorn.app.base import BaseApplication


class TurnpostServer(BaseApplication):
    """A gunicorn application serving :func:`server.create_app` with the given settings."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

    def load_config(self) -> None:
        """Copy the options into gunicorn's settings."""
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        """Build the WSGI app in each worker."""
        from server import create_app

        return create_app()


def run(db_path: str, host: str, port: int, workers: int = 2, threads: int = 16) -> None:
    """Serve ``db_path`` on ``host:port`` until stopped."""
    os.environ["TURNPOST_DB"] = db_path
    TurnpostServer(
        {
            "bind": f"{host}:{port}",
            "workers": workers,
            "threads": threads,
            "worker_class": "gthread",
            "timeout": 60,
            "graceful_timeout": 5,
            "accesslog": None,
        }
    ).run()
