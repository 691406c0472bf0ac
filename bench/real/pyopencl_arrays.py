"""PyOpenCL array expressions on 4096 floats, as a NumPy user writes them.

  python3 pyopencl_arrays.py nopool [steps]   every result is a new buffer
  python3 pyopencl_arrays.py pool [steps]     results come from a pyopencl.tools.MemoryPool

Each step evaluates y = (2 * y + x) * 0.5 - x * 0.5 + 1 through temporaries (one kernel
and, without the pool, one new buffer per operator: six). Inputs are small integers and
every operation is exact in float, so after n steps y is its start + n, bit for bit: a
step lost or run twice shows."""
import sys

import numpy as np
import pyopencl.array as cla
import pyopencl.tools as cltools

from pocl_context import pocl_queue, steps_from_argv, timed, wrong

N = 4096


def main():
    mode = sys.argv.pop(1) if len(sys.argv) > 1 else "nopool"
    if mode not in ("nopool", "pool"):
        sys.exit("usage: pyopencl_arrays.py nopool|pool [steps]")
    steps = steps_from_argv(4000)
    context, queue = pocl_queue()
    allocator = None
    if mode == "pool":
        allocator = cltools.MemoryPool(cltools.ImmediateAllocator(queue))
    x_host = (np.arange(N) % 16).astype(np.float32)
    y_host = (np.arange(N) % 7).astype(np.float32)
    x = cla.to_device(queue, x_host, allocator=allocator)
    y = cla.to_device(queue, y_host, allocator=allocator)
    state = {"y": y}

    def step():
        state["y"] = (2 * state["y"] + x) * 0.5 - x * 0.5 + 1

    timed(step, steps)
    got = state["y"].get()
    want = y_host + np.float32(steps + 1)
    if not np.array_equal(got, want):
        bad = int(np.flatnonzero(got != want)[0])
        wrong("y[%d] = %r, want %r" % (bad, got[bad], want[bad]))


main()
