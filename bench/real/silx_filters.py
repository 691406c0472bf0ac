"""silx's OpenCL image filters on PoCL, as a diffraction or tomography user runs them on
each detector frame: a 5 x 5 median filter (MedianFilter2D, long launches that fill the
team) and a separable 7-tap convolution (Convolution, short launches) of a 256 x 256
frame.

  python3 silx_filters.py [steps]

Each step filters one frame both ways; frames are small integers and differ from one step
to the next. The last frame's results are checked against SciPy's: the median exactly
(scipy.ndimage.median_filter, edges "nearest", which silx's kernel uses), the convolution
to 1e-4 of the largest value (scipy.ndimage.convolve1d along both axes, edges "reflect";
the sums are in another order)."""
import numpy as np
import scipy.ndimage as ndimage
from silx.opencl.convolution import Convolution
from silx.opencl.medfilt import MedianFilter2D

from pocl_context import steps_from_argv, timed, wrong

SHAPE = (256, 256)
TAPS = np.ones(7, np.float32) / 7
CONVOLUTIONS = 10  # per median filter: each a few hundred microseconds on PoCL


def main():
    steps = steps_from_argv(12)
    base = np.random.RandomState(0).randint(0, 100, SHAPE).astype(np.float32)
    median = MedianFilter2D(SHAPE, devicetype="cpu")
    convolution = Convolution(SHAPE, TAPS, devicetype="cpu")
    if "Portable Computing Language" not in median.ctx.devices[0].platform.name:
        raise SystemExit("silx did not pick PoCL's CPU device")
    state = {"n": 0}

    def step():
        state["n"] += 1
        frame = base + np.float32(state["n"] % 7)
        state["median"] = median.medfilt2d(frame, (5, 5))
        for _ in range(CONVOLUTIONS):
            state["convolved"] = convolution(frame)

    timed(step, steps)
    frame = base + np.float32(state["n"] % 7)
    if not np.array_equal(state["median"],
                          ndimage.median_filter(frame, size=(5, 5), mode="nearest")):
        wrong("the median filter differs from SciPy's")
    want = ndimage.convolve1d(ndimage.convolve1d(frame, TAPS, axis=0, mode="reflect"), TAPS,
                              axis=1, mode="reflect")
    got = np.asarray(state["convolved"])
    error = np.abs(got - want).max() / np.abs(want).max()
    if not error < 1e-4:
        wrong("the convolution differs from SciPy's by %g of its largest value" % error)


main()
