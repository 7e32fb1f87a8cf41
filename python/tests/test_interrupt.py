"""Ctrl-C stops the long theory computations (with the GIL released) within moments, and
the next call works. Each runs in its own process, so the SIGINT reaches nothing else."""

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import os, signal, threading, time
    import nimdb

    # Python's own Ctrl-C handler, whatever this process inherited (a shell's background job
    # starts with SIGINT ignored, and Python then installs no handler).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    start = time.perf_counter()
    try:
        {call}
        print("finished")
    except KeyboardInterrupt:
        print(f"interrupted after {{time.perf_counter() - start:.2f}} s")
    print(nimdb.heap_values("kayles", 200).period)  # the next call works
    """
)


def run(call: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(call=call)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def seconds(out: str) -> float:
    line = out.splitlines()[0]
    assert line.startswith("interrupted after"), out
    return float(line.split()[2])


def test_ctrl_c_stops_a_quotient():
    # 0.35's open-ended quotient runs for minutes; Ctrl-C is heard within its walks.
    out = run('nimdb.quotient("octal:0.35", max_elements=8192)')
    assert seconds(out) < 5
    assert out.splitlines()[1] == "12"


def test_ctrl_c_stops_heap_values():
    # Grundy's game has no shortcut: two million heaps take seconds; stops between stretches.
    out = run('nimdb.heap_values("grundy", 2_000_000)')
    assert seconds(out) < 5
    assert out.splitlines()[1] == "12"
