#!/usr/bin/env bash
# perf names hostkernel's kernels: runs one pocl-launch-bench case under
# `perf record -e cpu-clock` with HOSTKERNEL_PERF_MAP=1 and expects the process's perf map
# to list a work-group function (_pocl_kernel_<name>_workgroup) and `perf report` to name
# samples with the map's functions. Which function of the library the samples land in
# depends on the kernel and the sampling (sin-f64 spends nearly all its time in the
# builtin _Z7_cl_sind that the work-group function calls), so any named one passes. Exits 77
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
# The bench's map has been read: keep what it lists, then remove it (perf never does).
pid=$(perf report -i "$out/perf.data" --stdio --sort pid 2>/dev/null | grep -oE 'pocl-launch-ben[^ ]*:?[0-9]+|[0-9]+:pocl-launch-ben' | grep -oE '[0-9]+' | head -1)
[[ -n $pid && -f /tmp/perf-$pid.map ]] && { cp "/tmp/perf-$pid.map" "$out/perf.map"; rm -f "/tmp/perf-$pid.map"; }
grep -v '^#' "$out/report.txt" | grep -v '^$' | head -5
[[ -s $out/perf.map ]] || { echo "FAIL: the bench (pid ${pid:-unknown}) wrote no /tmp/perf-<pid>.map"; exit 1; }
grep -qE ' _pocl_kernel_[A-Za-z0-9_]+_workgroup$' "$out/perf.map" ||
  { echo "FAIL: the perf map lists no _pocl_kernel_*_workgroup:"; head -5 "$out/perf.map"; exit 1; }
# A sample named by the map: "[JIT] tid N  [.] name" with a name the map lists.
while read -r sym; do
  if grep -qF " $sym" "$out/perf.map"; then
    echo "perf report names $sym from the map; the map lists $(grep -cE '_workgroup$' "$out/perf.map") work-group functions"
    echo "PASS: perf report names hostkernel's kernel code"
    exit 0
  fi
done < <(grep -E '\[JIT\]' "$out/report.txt" | grep -oE '\[\.\] [^ ]+' | cut -c5-)
echo "FAIL: no sample of perf report is named by the perf map"
exit 1
