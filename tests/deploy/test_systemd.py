"""The systemd units of ``deploy/systemd`` as systemd reads them (``systemd-analyze verify``)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

UNITS = sorted((ROOT / "deploy" / "systemd").glob("*.service"))
#: Where the units expect Turnpost's command (a virtualenv in /srv/turnpost).
INSTALLED = "/srv/turnpost/.venv/bin/turnpost"


def test_there_is_a_unit_per_process() -> None:
    commands = {
        unit.name: re.search(r"^ExecStart=\S+ (\w[\w-]*)", unit.read_text(), re.M).group(1)
        for unit in UNITS
    }
    assert commands == {
        "turnpost-smtpd.service": "smtpd",
        "turnpost-web.service": "serve",
        "turnpost-worker.service": "worker",
    }


@pytest.mark.skipif(
    shutil.which("systemd-analyze") is None,
    reason="systemd-analyze is missing (Debian's systemd package has it)",
)
@pytest.mark.parametrize("unit", UNITS, ids=lambda unit: unit.name)
def test_systemd_accepts_the_unit(unit: Path, tmp_path: Path) -> None:
    """Every key known, every value valid; the command is this checkout's ``turnpost``."""
    turnpost = Path(sys.executable).parent / "turnpost"
    text = unit.read_text()
    assert INSTALLED in text
    copy = tmp_path / unit.name
    copy.write_text(text.replace(INSTALLED, str(turnpost)))
    checked = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True
    )
    assert checked.returncode == 0 and not checked.stderr.strip(), checked.stderr
