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
    script = (
        "import resource, nimdb; h = nimdb.heap_values('kayles', 10**8); "
        "print(h.values.dtype, len(h.values), h.period, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    dtype, n, period, peak_kb = done.stdout.split()
    assert (dtype, n, period) == ("uint8", str(10**8 + 1), "12")
    # About 125 MB here (the array is 95 MiB, one byte a value), also from the CI's own
    # manylinux wheel run alone or beside three busy loops; but one CI run saw 205 MB and
    # another (2026-11-28) 256.1 MiB, and neither could be reproduced. The bound asserted
    # leaves room for that while still catching the old 7.6 GB (see issue 35's note: the
    # peak seen in CI is still open).
    assert int(peak_kb) <= 320 * 1024, f"peak RSS {peak_kb} KB"
