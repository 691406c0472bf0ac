"""The PoCL CPU device's context and queue for the Python workloads, and their common
command line: `python3 WORKLOAD.py [steps]` runs `steps` iterations (the default is sized
for about a second on PoCL alone), checks the result against NumPy, prints
`loop_seconds <s>` and exits 1 with `WRONG RESULT: ...` on stderr when the check fails."""
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


def timed(loop):
    """Runs loop() and prints its time in the line the A/B script reads."""
    start = time.perf_counter()
    loop()
    print("loop_seconds %.6f" % (time.perf_counter() - start))
