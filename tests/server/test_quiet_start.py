"""``turnpost serve`` starts quietly: no warning of Turnpost's own (gevent patches ssl before
urllib3 imports it), and no gunicorn control socket in the home directory shared by every
gunicorn on the machine. The real command runs, as ``./run`` starts it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.support import ROOT, free_port

#: The console script ``turnpost`` as setup.cfg installs it (its name is what counts).
SCRIPT = "import sys\nfrom server.cli import main\nsys.exit(main())\n"


def test_turnpost_serve_starts_without_warnings_or_a_control_socket(tmp_path: Path) -> None:
    script = tmp_path / "turnpost"
    script.write_text(SCRIPT)
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "TURNPOST_DB": str(tmp_path / "quiet.db"),
        "HOME": str(tmp_path),
    }
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, str(script), "serve", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp_path,
        )
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).ok:
                        break
                except (requests.ConnectionError, requests.Timeout):  # workers still booting
                    time.sleep(0.2)
            assert requests.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 200
            time.sleep(1)  # both workers booted and patched
        finally:
            process.terminate()
            process.wait(timeout=30)
    text = log.read_text()
    assert "Booting worker" in text, text
    assert "Warning" not in text and "warn" not in text.lower(), text
    assert "Control socket" not in text and not (tmp_path / ".gunicorn").exists(), text
