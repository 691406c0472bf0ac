#!/usr/bin/env bash
# perf names hostkernel's kernels: runs one pocl-launch-bench case under
# `perf record -e cpu-clock` with HOSTKERNEL_PERF_MAP=1 and expects `perf report` to name
# a work-group function (_pocl_kernel_<name>_workgroup) among the samples. Exits 77
# (skipped) with the reason when perf is missing or cannot record here (e.g.
# kernel.perf_event_paranoid too high, or no perf events in a container).
#
# usage: perf_report.sh path/to/pocl-launch-bench [case]
set -uo pipefail
bench=$1
case_name=${2:-math/sin-f64}
command -v perf >/dev/null || { echo "SKIP: perf not installed (apt-get install linux-perf)"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/perf-report.XXXXXX")
trap 'rm -rf "$out"' EXIT
if ! perf record -q -e cpu-clock -o "$out/probe.data" -- true >"$out/probe.log" 2>&1; then
  echo "SKIP: perf cannot record here (perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)):"
  cat "$out/probe.log"
  exit 77
fi
HOSTKERNEL_PERF_MAP=1 perf record -q -e cpu-clock -o "$out/perf.data" -- \
  "$bench" --quick --filter "^${case_name}\$" --paths '^hostkernel$' >"$out/bench.log" 2>&1 ||
  { echo "FAIL: the case did not run:"; cat "$out/bench.log"; exit 1; }
perf report -i "$out/perf.data" --stdio --sort dso,sym 2>/dev/null >"$out/report.txt"
# The bench's map has been read: remove it (perf never does).
pid=$(perf report -i "$out/perf.data" --stdio --sort pid 2>/dev/null | grep -oE 'pocl-launch-ben[^ ]*:?[0-9]+|[0-9]+:pocl-launch-ben' | grep -oE '[0-9]+' | head -1)
[[ -n $pid ]] && rm -f "/tmp/perf-$pid.map"
grep -v '^#' "$out/report.txt" | grep -v '^$' | head -5
named='\[\.\] _pocl_kernel_[A-Za-z0-9_]+_workgroup'
if grep -E "$named" "$out/report.txt" | head -3 | grep -q .; then
  grep -E "$named" "$out/report.txt" | head -3
  echo "PASS: perf report names a work-group function"
  exit 0
fi
echo "FAIL: no _pocl_kernel_*_workgroup in perf report"
exit 1
