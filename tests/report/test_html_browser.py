"""The HTML report in a real browser: headless Chromium loads it, shows the witness, logs nothing.

Chromium is the Debian package (``apt-get install -y chromium``; ``.ci/run``
installs it where apt-get can).  The test is skipped, saying why, only when
no Chromium binary can be found; ``FAIER_CHROMIUM`` names one explicitly.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from faier.cli.main import app

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def chromium() -> str | None:
    given = os.environ.get("FAIER_CHROMIUM")
    if given:
        return given
    return next((found for name in NAMES if (found := shutil.which(name))), None)


BROWSER = chromium()
pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium found (install the Debian package: apt-get install -y chromium, "
    "or set FAIER_CHROMIUM to a Chromium/Chrome binary)",
)

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND",  # no network: a remote resource would fail
    "--enable-logging=stderr",
    "--v=0",
]


def browse(page: Path, *extra: str, home: Path) -> subprocess.CompletedProcess[str]:
    assert BROWSER is not None
    return subprocess.run(
        [BROWSER, *FLAGS, f"--user-data-dir={home}", *extra, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "HOME": str(home)},
    )


def console_messages(stderr: str) -> list[str]:
    """What the page wrote to its console (errors, uncaught exceptions, failed loads)."""
    return [line for line in stderr.splitlines() if re.search(r":CONSOLE[:(]", line)]


def test_the_report_loads_in_chromium_and_shows_the_witness(tmp_path: Path) -> None:
    page = tmp_path / "r.html"
    args = ["verify", "noisy-max", "--set", "n=3", "-e", "ln(2)", "--report", str(page)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    home = tmp_path / "profile"
    home.mkdir()

    dom = browse(page, "--dump-dom", home=home)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert console_messages(dom.stderr) == []
    text = re.sub(r"\s+", " ", dom.stdout)
    assert "violated" in text and "Counterexample" in text
    assert "[1, 1, 1]" in text and "[0, 2, 2]" in text and "index 1" in text
    assert "7/72" in text and "<svg" in text

    shot = tmp_path / "r.png"
    picture = browse(page, f"--screenshot={shot}", "--window-size=1200,1600", home=home)
    assert picture.returncode == 0, picture.stderr[-2000:]
    assert console_messages(picture.stderr) == []
    assert shot.stat().st_size > 20_000  # a blank page compresses to a few kB
    image = pytest.importorskip("matplotlib.image").imread(shot)
    top = image[: image.shape[0] // 2]
    assert (top[..., :3] < 0.5).any(), "the upper half of the screenshot is blank"
    # the figure is drawn: matplotlib's first two colours (the bars of both inputs) are on screen
    for colour in ((31, 119, 180), (255, 127, 14)):
        near = (abs(image[..., :3] * 255 - colour) < 12).all(axis=-1)
        assert near.sum() > 500, f"no figure in the colour {colour} on the screenshot"


def test_console_errors_would_be_seen(tmp_path: Path) -> None:
    """The check above is not vacuous: a page that logs an error is caught."""
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><p>x</p><script>console.error('boom')</script>")
    home = tmp_path / "profile"
    home.mkdir()
    messages = console_messages(browse(page, "--dump-dom", home=home).stderr)
    assert any("boom" in m for m in messages)
