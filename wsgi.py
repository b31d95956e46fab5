"""The WSGI entry point: ``gunicorn wsgi:app`` (database from ``TURNPOST_DB``)."""

from server import create_app

app = create_app()
