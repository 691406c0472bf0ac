"""PyOpenCL reductions, each result fetched with .get(): sum, dot and max of 4096 floats,
after one element of the input was changed.

  python3 pyopencl_reductions.py [steps]

Inputs are small integers: every sum and product is exact in float, so each result must
equal NumPy's."""
import numpy as np
import pyopencl.array as cla

from pocl_context import pocl_queue, steps_from_argv, timed, wrong

N = 4096


def main():
    steps = steps_from_argv(3000)
    context, queue = pocl_queue()
    a_host = (np.arange(N) % 16).astype(np.float32)
    b_host = ((np.arange(N) * 5) % 11).astype(np.float32)
    a = cla.to_device(queue, a_host)
    b = cla.to_device(queue, b_host)
    results = []

    def step():
        # One element of a changes per step (a single-element write), so a reduction that
        # was lost or read a stale result shows.
        i = len(results)
        v = np.float32((i * 5) % 17)
        a[i % N] = v
        a_host[i % N] = v
        got = (cla.sum(a).get(), cla.dot(a, b).get(), cla.max(a).get())
        want = (a_host.sum(), np.dot(a_host, b_host), a_host.max())
        results.append((got, want))

    timed(step, steps)
    for i, (got, want) in enumerate(results):
        if tuple(float(v) for v in got) != tuple(float(v) for v in want):
            wrong("step %d: (sum, dot, max) = %r, want %r" % (i, got, want))


main()
