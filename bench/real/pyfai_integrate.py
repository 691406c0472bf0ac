"""pyFAI's azimuthal integration on PoCL through its OpenCL CSR integrator, as a
diffraction user runs it on each detector frame.

  python3 pyfai_integrate.py [steps]

A 512 x 512 detector 10 cm from the sample; each step integrates one frame into 500 bins
of 2-theta (pyFAI's "bbox", "csr", "opencl" method: a preprocessing kernel and a CSR
sparse-matrix integration kernel with compensated sums, and the frame's upload and the
result's read). Frames are small integers and differ from one step to the next; the last
one's result is checked against pyFAI's own CPU (Cython) integrator with the same CSR
matrix, so a stale or lost step shows."""
import sys

import numpy as np
import pyFAI
from pyFAI.azimuthalIntegrator import AzimuthalIntegrator

from pocl_context import steps_from_argv, timed, wrong

METHOD = ("bbox", "csr", "opencl")
BINS = 500


def main():
    steps = steps_from_argv(100)
    detector = pyFAI.detectors.Detector(pixel1=1e-4, pixel2=1e-4, max_shape=(512, 512))
    ai = AzimuthalIntegrator(dist=0.1, poni1=0.025, poni2=0.025, detector=detector)
    base = np.random.RandomState(0).randint(0, 1000, (512, 512)).astype(np.float32)
    state = {"n": 0, "result": None}

    def step():
        state["n"] += 1
        frame = base + np.float32(state["n"] % 7)
        state["result"] = ai.integrate1d(frame, BINS, method=METHOD, unit="2th_deg")

    timed(step, steps)
    got = state["result"]
    if "Portable Computing Language" not in str(got.method):
        sys.exit("pyFAI did not integrate on PoCL: %s" % (got.method,))
    frame = base + np.float32(state["n"] % 7)
    want = ai.integrate1d(frame, BINS, method=("bbox", "csr", "cython"), unit="2th_deg")
    scale = np.nanmax(np.abs(want.intensity))
    error = np.nanmax(np.abs(got.intensity - want.intensity)) / scale
    if not error < 1e-4:
        wrong("intensity differs from pyFAI's CPU integrator by %g of its largest value" % error)


main()
