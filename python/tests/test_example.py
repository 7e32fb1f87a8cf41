"""examples/misere_dawson.py runs and finds the database and the quotient in agreement."""

import subprocess
import sys

from conftest import REPO


def test_misere_dawson_example(tmp_path):
    done = subprocess.run(
        [sys.executable, str(REPO / "examples" / "misere_dawson.py"), "--total", "18", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agree on 1,597 of 1,597 positions" in done.stdout
    for name in ("agreement.png", "two-heaps.png", "quotient.png", "dawson.sqlite"):
        assert (tmp_path / name).stat().st_size > 1000
