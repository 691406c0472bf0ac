"""gpyfft (clFFT for PyOpenCL) on PoCL: a batch of complex FFTs with the data moved in and
out every time, as a signal-processing loop runs it.

  python3 gpyfft_fft.py [steps]

Each step writes 16 rows of 1024 complex floats (one element changed from the step
before), runs gpyfft's forward transform along the rows (one plan, baked once) and reads
the result back. The last step's result is checked against NumPy's FFT of the same rows
within 1e-4 of its largest value, so a stale or lost step shows."""
import numpy as np
import pyopencl.array as cla
from gpyfft.fft import FFT

from pocl_context import pocl_queue, steps_from_argv, timed, wrong

ROWS, N = 16, 1024


def main():
    steps = steps_from_argv(3000)
    context, queue = pocl_queue()
    rng = np.random.RandomState(1)
    x = (rng.randint(0, 16, (ROWS, N)) + 1j * rng.randint(0, 16, (ROWS, N))).astype(np.complex64)
    x_dev = cla.to_device(queue, x)
    y_dev = cla.empty_like(x_dev)
    transform = FFT(context, queue, x_dev, y_dev, axes=(1,))
    state = {"n": 0, "y": None}

    def step():
        state["n"] += 1
        x[state["n"] % ROWS, state["n"] % N] += 1
        x_dev.set(x)
        transform.enqueue()
        state["y"] = y_dev.get()

    timed(step, steps)
    want = np.fft.fft(x.astype(np.complex128), axis=1)
    error = np.abs(state["y"] - want).max() / np.abs(want).max()
    if not error < 1e-4:
        wrong("FFT differs from NumPy's by %g of its largest value" % error)


main()
