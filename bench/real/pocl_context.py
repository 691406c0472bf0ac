"""The PoCL CPU device's context and queue for the Python workloads, and their common
command line: `python3 WORKLOAD.py [steps]` runs one untimed iteration (it builds the
kernels), then `steps` timed ones (the default is sized for about a second on PoCL
alone), checks the result against NumPy, prints `loop_seconds <s>` and exits 1 with
`WRONG RESULT: ...` on stderr when the check fails."""
import sys
import time

import pyopencl as cl


def pocl_queue():
    """A context and an in-order queue on PoCL's CPU device."""
    for platform in cl.get_platforms():
        if "Portable Computing Language" in platform.name:
            devices = platform.get_devices(device_type=cl.device_type.CPU)
            if devices:
                context = cl.Context(devices[:1])
                return context, cl.CommandQueue(context)
    sys.exit("no PoCL CPU device (is pocl-opencl-icd installed?)")


def steps_from_argv(default):
    return int(sys.argv[1]) if len(sys.argv) > 1 else default


def wrong(message):
    print("WRONG RESULT: " + message, file=sys.stderr)
    sys.exit(1)


def timed(step, steps):
    """Runs step() once untimed, then `steps` times, and prints the time of the latter in
    the line the A/B script reads."""
    step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    print("loop_seconds %.6f" % (time.perf_counter() - start))
