"""A wheel built from the repository works outside it (issue 13: installable).

The wheel is built with pip, installed into a fresh virtual environment in a
temporary folder (its dependencies come from pip's cache or the package
index), and started from there, far from the checkout: it must find its
templates and serve pages.
"""

from __future__ import annotations

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SMOKE = """
from server import create_app
app = create_app({"TURNPOST_DB": "smoke.db", "TESTING": True})
client = app.test_client()
body = {"engine": "siam", "players": [{"name": "Ann"}, {"name": "Bob"}]}
game = client.post("/api/v1/games", json=body).get_json()
page = client.get("/games/" + game["id"])
assert page.status_code == 200, page.status_code
assert "Ann" in page.get_data(as_text=True)
assert client.get("/").status_code == 200
assert b"font-family" in client.get("/assets/turnpost.css").data
import server
print("served from", server.__file__)
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of the repository as it stands."""
    folder = tmp_path_factory.mktemp("wheel")
    build = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(folder)]
    subprocess.run([*build, str(ROOT)], check=True, cwd=folder)
    return next(folder.glob("turnpost-*.whl"))


def test_the_wheel_carries_every_template_static_file_and_compiled_catalog(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        shipped = {
            name.split("/share/turnpost/", 1)[1]
            for name in archive.namelist()
            if "/share/turnpost/" in name
        }
    files = {
        str(path.relative_to(ROOT))
        for folder in ("templates", "static")
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
    }
    catalogs = {str(path.relative_to(ROOT)) for path in (ROOT / "translations").rglob("*.mo")}
    assert len(catalogs) == 4, "the catalogs are compiled before the wheel is built"
    assert files and files | catalogs == shipped


def test_the_installed_wheel_serves_pages_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    subprocess.run([python, "-m", "pip", "install", "--quiet", str(wheel)], check=True)
    smoke = subprocess.run(
        [python, "-c", SMOKE],
        cwd=tmp_path,
        env={"PATH": f"{environment / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert smoke.returncode == 0, smoke.stderr[-3000:]
    assert str(environment) in smoke.stdout, "the checkout's code was used, not the wheel's"
    init = subprocess.run(
        [environment / "bin" / "turnpost", "init-db"],
        cwd=tmp_path,
        env={"PATH": f"{environment / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
    )
    assert init.returncode == 0, init.stderr[-3000:]
    assert "Database ready" in init.stdout
