"""Sequences are numpy arrays of the smallest unsigned type that holds them, and a long one
costs about a byte a value (octal games), not a Python object per heap."""

import subprocess
import sys

import numpy as np

import nimdb


def test_sequences_take_the_smallest_integer_type():
    kayles = nimdb.heap_values("kayles", 1000)
    assert kayles.values.dtype == np.uint8 and int(kayles.values.max()) == 8
    nim = nimdb.heap_values("nim", 300)  # g(n) = n: past 255 it needs two bytes
    assert nim.values.dtype == np.uint16 and list(nim.values) == list(range(301))
    assert nimdb.heap_values("nim", 70_000).values.dtype == np.uint32
    # Misère values, genus and tameness are arrays of the heaps they were computed for (the
    # first misere_up_to + 1), not lists of up_to + 1 entries mostly None.
    assert kayles.misere_up_to == 30
    assert kayles.misere_values.dtype == np.uint8 and kayles.misere_values.shape == (31,)
    assert kayles.tame.dtype == np.bool_ and kayles.tame.shape == (31,)
    assert kayles.genus.shape == (31,) and kayles.genus[5] == "4^146"
    assert list(kayles.misere_values[:5]) == [1, 0, 2, 3, 0]
    none = nimdb.heap_values("kayles", 100, misere_up_to=0)
    assert none.misere_up_to == 0 and none.misere_values.shape == (1,)


def test_a_hundred_million_heaps_fit_in_two_hundred_megabytes():
    # Finding: heap_values('kayles', 10**8) took 7.6 GB (a u32 a value, then misère rows
    # padded to 10**8 and turned into Python lists). Now about one byte a value.
    #
    # The child's own peak is its VmHWM (the high-water mark of the memory its program
    # mapped after exec), not its ru_maxrss: on Linux ru_maxrss also takes in, at exec, the
    # high-water mark of the memory the process had before it (fs/exec.c: exec_mmap), and a
    # child that subprocess starts with vfork (or posix_spawn) has the parent's memory until
    # its exec. ru_maxrss so reported the pytest process's own peak whenever that was the
    # larger: 124 MiB when this file ran alone, 205 MB and then 256.1 MiB in CI, where the
    # whole suite had run in the same pytest process before it. Measured in the whole suite
    # (a probe just before this test): pytest's VmHWM 262,984 KB, the child's ru_maxrss
    # 262,984 KB (the same figure), the child's own VmHWM 126,584 KB. A parent that peaked
    # at 423,496 KB gives a child of 13.6 MB an ru_maxrss of 423,496 KB.
    script = (
        "import nimdb; h = nimdb.heap_values('kayles', 10**8); "
        "peak = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]; "
        "print(h.values.dtype, len(h.values), h.period, peak)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    dtype, n, period, peak_kb = done.stdout.split()
    assert (dtype, n, period) == ("uint8", str(10**8 + 1), "12")
    # About 125 MB (the array is 95 MiB, one byte a value).
    assert int(peak_kb) <= 200 * 1024, f"peak RSS {peak_kb} KB"
