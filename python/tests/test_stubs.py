"""The type stubs (nimdb/_nimdb.pyi) match the native module as built: mypy's stubtest
compares every name, signature and default with the runtime ones. Needs mypy (.ci/run
installs the version pinned there)."""

import subprocess
import sys


def test_stubs_match_the_runtime_module():
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "nimdb"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout
