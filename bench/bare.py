"""A bare Flask app: the ratio base of ``bench/load.py``, served the same way as Turnpost.

.venv/bin/gunicorn -k gevent -w 2 bench.bare:app
"""

from flask import Flask

app = Flask(__name__)


@app.route("/")
def hello() -> str:
    """The cheapest answer Flask gives."""
    return "ok\n"
