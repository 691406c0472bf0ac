#!/usr/bin/env bash
# clpeak's kernel launch latency on PoCL alone and through libhostkernel-layer.so.
#
# clpeak --kernel-latency launches one kernel 20 000 times on a CL_QUEUE_PROFILING_ENABLE
# queue and reports the mean of CL_PROFILING_COMMAND_START - CL_PROFILING_COMMAND_QUEUED
# (in whole µs per launch, so values below 1 µs are the fraction of launches whose two
# timestamps fall in different microseconds). Each configuration runs RUNS times,
# alternating, and the median is reported. Installs Debian's clpeak if it is missing.
#
# usage: scripts/clpeak-latency.sh [path/to/libhostkernel-layer.so]
# environment: RUNS (default 3); the layer defaults to build/lib/libhostkernel-layer.so
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
layer=${1:-${LAYER:-$repo/build/lib/libhostkernel-layer.so}}
runs=${RUNS:-3}

[[ -f $layer ]] || { echo "no layer at $layer (build target hostkernel-layer)" >&2; exit 2; }
layer=$(cd "$(dirname "$layer")" && pwd)/$(basename "$layer")

if ! command -v clpeak >/dev/null; then
  echo "installing clpeak (Debian package)" >&2
  if [[ $(id -u) == 0 ]]; then apt-get install -y clpeak >&2
  else sudo apt-get install -y clpeak >&2; fi
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/clpeak-latency.XXXXXX")
trap 'rm -rf "$out"' EXIT

# Runs clpeak's latency test; prints the latency in µs. $1: log file; rest: environment.
latency() {
  local log=$1
  shift
  env "$@" clpeak --kernel-latency >"$log" 2>&1 || { cat "$log" >&2; return 1; }
  awk '/Kernel launch latency/ { print $(NF - 1); found = 1 } END { exit !found }' "$log" ||
    { echo "no latency in clpeak's output:" >&2; cat "$log" >&2; return 1; }
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "clpeak --kernel-latency, $runs runs each; $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
plain=() layered=()
for ((i = 1; i <= runs; ++i)); do
  plain+=("$(latency "$out/plain.$i" OPENCL_LAYERS=)")
  layered+=("$(latency "$out/layer.$i" OPENCL_LAYERS="$layer" HOSTKERNEL_REPORT=1)")
  echo "run $i: PoCL ${plain[-1]} us, through the layer ${layered[-1]} us"
done
mp=$(printf '%s\n' "${plain[@]}" | median)
ml=$(printf '%s\n' "${layered[@]}" | median)
echo "median: PoCL $mp us, through the layer $ml us"
awk -v p="$mp" -v l="$ml" 'BEGIN { if (l > 0) printf "ratio: %.0fx lower through the layer\n", p / l;
                                   else print "ratio: the layer'"'"'s latency rounds to 0 us" }'
echo "where the layer's launches went (HOSTKERNEL_REPORT=1, last run):"
sed -n '/^hostkernel report/,$p' "$out/layer.$runs"
