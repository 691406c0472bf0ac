"""A PyOpenCL program: axpy launched ten times on PoCL's CPU device, results checked.

Run under hostkernel-run --report, the report printed at exit says where the launches went.
Prints a line naming the missing module and exits with 77 when PyOpenCL is not installed.
"""
import sys

try:
    import numpy as np
    import pyopencl as cl
except ImportError as e:
    print(f"pyopencl_axpy: skipped: {e.name} is not installed (Debian: python3-pyopencl)")
    sys.exit(77)

LAUNCHES = 10
N = 4096

platform = next(p for p in cl.get_platforms() if "Portable Computing Language" in p.name)
context = cl.Context(platform.get_devices(device_type=cl.device_type.CPU)[:1])
queue = cl.CommandQueue(context)
program = cl.Program(context, """
    kernel void axpy(float a, global const float *x, global float *y) {
      size_t i = get_global_id(0);
      y[i] = a * x[i] + y[i];
    }""").build()
axpy = program.axpy

x = np.arange(N, dtype=np.float32)
y = np.ones(N, dtype=np.float32)
mf = cl.mem_flags
xb = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
yb = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
for _ in range(LAUNCHES):
    axpy(queue, (N,), (64,), np.float32(2.0), xb, yb)
cl.enqueue_copy(queue, y, yb)
queue.finish()

expected = 1.0 + LAUNCHES * 2.0 * x
if not np.array_equal(y, expected):
    print(f"pyopencl_axpy: {np.count_nonzero(y != expected)} of {N} results wrong")
    sys.exit(1)
print(f"pyopencl_axpy: {LAUNCHES} launches, results correct")
