"""A bare Flask app: the ratio base of the benchmarks, served the same way as Turnpost.

.venv/bin/gunicorn -k gevent -w 2 bench.bare:app
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests
from flask import Flask

from tests.support import free_port

app = Flask(__name__)


@app.route("/")
def hello() -> str:
    """The cheapest answer Flask gives."""
    return "ok\n"


@contextmanager
def served(workers: int) -> Iterator[str]:
    """Serve this app under gunicorn's gevent workers, as Turnpost is served; yield its URL."""
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", str(workers)]
    command += ["-b", f"127.0.0.1:{port}", "--keep-alive", "5", "bench.bare:app"]
    root = Path(__file__).resolve().parent.parent
    process = subprocess.Popen(command, cwd=root, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(100):
            try:
                requests.get(url, timeout=1)
                break
            except (requests.ConnectionError, requests.Timeout):  # not up yet, or a busy machine
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)
