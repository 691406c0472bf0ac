"""sasmodels (Debian's python3-sasmodels, SasView's models) on PoCL, as a fit evaluates a
model: the polydisperse cylinder model's 1-D intensity I(q) at 200 q points, with 10
radii and 5 lengths in its polydispersity sum, for a new radius at each call (each call:
two new parameter buffers, one long launch of two work-groups, a read of the result).

  python3 sasmodels_fit.py [calls]

The check: the last call's I(q) against the same model built for the host in double
precision (sasmodels' DLL engine, compiled by gcc) to 1e-4 of its largest value."""
import os

import numpy as np

from pocl_context import steps_from_argv, timed, wrong

os.environ.setdefault("SAS_OPENCL", "portable")  # PoCL's platform, by its name
from sasmodels.core import load_model  # noqa: E402
from sasmodels.direct_model import call_kernel  # noqa: E402
import sasmodels.kernelcl as kernelcl  # noqa: E402

Q = np.logspace(-3, -0.5, 200)
PARS = dict(radius=20, length=300, radius_pd=0.1, radius_pd_n=10, length_pd=0.1,
            length_pd_n=5, scale=1, background=0.001, sld=4, sld_solvent=1)


def main():
    calls = steps_from_argv(30)
    model = load_model("cylinder", dtype="single", platform="ocl")
    context = kernelcl.environment().context[np.dtype("float32")]
    if "Portable Computing Language" not in context.devices[0].platform.name:
        raise SystemExit("sasmodels did not pick PoCL")
    kernel = model.make_kernel([Q])
    state = {"n": 0}

    def step():
        state["n"] += 1
        state["pars"] = dict(PARS, radius=20 + state["n"] % 7)
        state["iq"] = call_kernel(kernel, state["pars"])

    timed(step, calls)
    reference = load_model("cylinder", dtype="double", platform="dll")
    want = call_kernel(reference.make_kernel([Q]), state["pars"])
    error = np.abs(state["iq"] - want).max() / np.abs(want).max()
    if not error < 1e-4:
        wrong("I(q) differs from the double-precision model's by %g of its largest value" %
              error)


main()
