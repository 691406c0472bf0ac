"""PyOpenCL reductions, each result fetched with .get(): sum, dot and max of 4096 floats.

  python3 pyopencl_reductions.py [steps]

Inputs are small integers: every sum and product is exact in float, so each result must
equal NumPy's."""
import numpy as np
import pyopencl.array as cla

from pocl_context import pocl_queue, steps_from_argv, timed, wrong

N = 4096


def main():
    steps = steps_from_argv(5000)
    context, queue = pocl_queue()
    a_host = (np.arange(N) % 16).astype(np.float32)
    b_host = ((np.arange(N) * 5) % 11).astype(np.float32)
    a = cla.to_device(queue, a_host)
    b = cla.to_device(queue, b_host)
    results = []

    def step():
        s = cla.sum(a).get()
        d = cla.dot(a, b).get()
        m = cla.max(b).get()
        results.append((s, d, m))

    timed(step, steps)
    want = (a_host.sum(), np.dot(a_host, b_host), b_host.max())
    for i, got in enumerate(results):
        if tuple(float(v) for v in got) != tuple(float(v) for v in want):
            wrong("step %d: (sum, dot, max) = %r, want %r" % (i, got, want))


main()
