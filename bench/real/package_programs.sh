#!/usr/bin/env bash
# Programs that Debian's packages ship ready to run, run as they are: no source of ours
# around them. Each run is checked, by the program itself where it checks its results
# (this script reads the verdict it prints), else here (UFO); a run that is not a pass
# exits 1 with "WRONG RESULT: ..." on stderr. The script prints the
# line scripts/real-programs-ab.sh reads, `loop_seconds`: the programs' wall time (they
# have no loop of their own to time).
#
#   bench/real/package_programs.sh clblast-tests   # package clblast-tests
#   bench/real/package_programs.sh clfft-client    # package clfft-client
#   bench/real/package_programs.sh ufo-fft         # packages libufo-bin, ufo-filters
#
# clblast-tests: CLBlast's own level-1 and level-2 correctness tests, which run every
# routine over many sizes, strides and offsets and compare each result with the
# reference BLAS: a few thousand small launches, each with buffers written and read.
# clfft-client: clFFT's benchmark client, 2000 out-of-place transforms of 1024 points
# enqueued back to back, each asking for an event, then one wait for all of them; it
# checks the last transform's output (out of place, so every transform must be right).
# ufo-fft: UFO's pipeline runner (ufo-launch, from the tomography framework's packages)
# on 64 frames of 512 x 512 floats read from TIFF files: a per-pixel expression
# (`calculate`, whose kernel UFO generates from it), a horizontal flip, a 2-D FFT and its
# inverse, written back; UFO runs each task of the pipeline on a thread of its own. UFO
# has no check of its own: the frames are small integers and UFO's inverse FFT is not
# normalized, so each output frame must be flip(2 * input + 1) times 512 * 512, which
# NumPy checks to 1e-3.
set -euo pipefail

wrong() {
  echo "WRONG RESULT: $*" >&2
  exit 1
}

# run NAME CMD...: runs the program with its output in $out, and stops on a failure.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
run() {
  local name=$1
  shift
  local status=0
  "$@" >"$out" 2>&1 || status=$?
  ((status == 0)) || { cat "$out" >&2; wrong "$name exited with status $status"; }
  # hostkernel's report (HOSTKERNEL_REPORT=1) goes where the A/B script reads it.
  if [[ -n ${HOSTKERNEL_REPORT-} ]]; then cat "$out" >&2; fi
}

start=$(date +%s%N)
case ${1-} in
  clblast-tests)
    for routine in xasum xnrm2 xamax xdot xaxpy xscal xcopy xswap xgemv xger; do
      run "clblast_test_$routine" "clblast_test_$routine"
      # Each precision ends with "N test(s) passed" and "N test(s) failed" (colours
      # around the counts); every failed count must be 0, and something must have run.
      plain=$(sed 's/\x1b\[[0-9;]*m//g' "$out")
      grep -qE '[1-9][0-9]* test\(s\) passed' <<<"$plain" ||
        wrong "clblast_test_$routine ran no test"
      if grep -qE '[1-9][0-9]* test\(s\) failed' <<<"$plain"; then
        grep -E 'test\(s\) failed|Starting tests' <<<"$plain" >&2
        wrong "clblast_test_$routine: a test failed"
      fi
    done
    ;;
  clfft-client)
    run clFFT-client clFFT-client --cpu --outPlace -x 1024 -p 2000
    grep -q 'Internal Client Test \*\*\*\*\*PASS\*\*\*\*\*' "$out" ||
      { cat "$out" >&2; wrong "clFFT-client's check did not pass"; }
    ;;
  ufo-fft)
    frames=$(mktemp -d)
    trap 'rm -f "$out"; rm -rf "$frames"' EXIT
    /usr/bin/python3 - "$frames" <<'PY'
import sys
import numpy as np
from PIL import Image
r = np.random.RandomState(1)
for i in range(64):
    frame = r.randint(0, 100, (512, 512)).astype(np.float32)
    Image.fromarray(frame, mode="F").save("%s/in-%03d.tif" % (sys.argv[1], i))
PY
    start=$(date +%s%N)  # the frames are made before the clock starts
    export UFO_DEVICE_TYPE=cpu  # UFO looks for GPUs only by default
    run ufo-launch ufo-launch read path="$frames/in-*.tif" ! calculate expression=2*v+1 ! \
      flip direction=horizontal ! fft dimensions=2 ! ifft dimensions=2 ! \
      write filename="$frames/out-%05i.tif"
    end=$(date +%s%N)
    /usr/bin/python3 - "$frames" <<'PY' || wrong "ufo-launch's frames are not flip(2 * input + 1)"
import sys
import numpy as np
from PIL import Image
d = sys.argv[1]
for i in range(64):
    frame = np.array(Image.open("%s/in-%03d.tif" % (d, i)), dtype=np.float64)
    got = np.array(Image.open("%s/out-%05d.tif" % (d, i)), dtype=np.float64) * 512 * 512
    error = np.abs(got - (2 * frame + 1)[:, ::-1]).max()
    if not error < 1e-3:
        print("frame %d: largest error %g" % (i, error), file=sys.stderr)
        sys.exit(1)
PY
    ;;
  *)
    echo "usage: $0 clblast-tests|clfft-client|ufo-fft" >&2
    exit 2
    ;;
esac
end=${end:-$(date +%s%N)}  # ufo-fft's ends before its check
awk -v ns=$((end - start)) 'BEGIN {printf "loop_seconds %.6f\n", ns / 1e9}'
