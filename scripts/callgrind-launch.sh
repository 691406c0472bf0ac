#!/usr/bin/env bash
# Instructions per steady-state launch of launch/trivial (1 work-item, launch + finish), or
# of the case CASE names, on each path of pocl-launch-bench, counted by callgrind.
#
# For each path, runs `pocl-launch-bench --callgrind-trivial PATH N --callgrind-warmup W`
# under `valgrind --tool=callgrind` twice, with N = N1 and N = N2. Setup, program build,
# warm-up and exit are the same in both runs, so
#     (total Ir with N2 - total Ir with N1) / (N2 - N1)
# is the instruction count of one launch in the steady state. Totals include every
# thread of the process (PoCL's worker threads for the queue path).
#
# usage: scripts/callgrind-launch.sh [path/to/pocl-launch-bench]
# environment: N1 (default 200), N2 (default 1200), WARMUP (default 200),
#              PATHS (default "hostkernel queue"), CASE (default launch/trivial),
#              KEEP=1 keeps the callgrind files.
# The last column counts the main thread alone (callgrind --separate-threads): the
# launching thread's own instructions, without PoCL's worker threads or a compile that
# another thread runs during one of the two runs only (tests/bench/instructions.cmake
# bounds it).
# A team case counts spinning (callgrind runs one thread at a time, so a spinning worker
# spins for as long as it is let): count it with HOSTKERNEL_SPIN_US=0, e.g.
#   CASE=launch/team-empty PATHS=hostkernel HOSTKERNEL_SPIN_US=0 scripts/callgrind-launch.sh
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench=${1:-${BENCH:-$repo/build/bin/pocl-launch-bench}}
n1=${N1:-200}
n2=${N2:-1200}
warmup=${WARMUP:-200}
paths=${PATHS:-hostkernel queue}
case_name=${CASE:-launch/trivial}

command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)" >&2; exit 2; }
[[ -x $bench ]] || { echo "no executable $bench (build target pocl-launch-bench)" >&2; exit 2; }
(( n2 > n1 )) || { echo "N2 ($n2) must be greater than N1 ($n1)" >&2; exit 2; }

# Both runs must do the same start-up work: without this, the first run would write
# hostkernel's program cache (docs/cache.md) and the second read it.
export HOSTKERNEL_CACHE_DIR=off

out=$(mktemp -d "${TMPDIR:-/tmp}/callgrind-launch.XXXXXX")
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$out"' EXIT; fi

# Total instructions (event Ir) of a callgrind output file: its "totals:" line, or
# "summary:" in files that have no totals line.
total_ir() {
  awk '/^totals:/ { t = $2 } /^summary:/ { s = $2 } END { if (t != "") print t; else if (s != "") print s; else exit 1 }' "$1"
}

run() {  # path n -> prints "total-Ir main-thread-Ir"
  local file=$out/callgrind.$1.$2.out
  if ! valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$file" \
      "$bench" --callgrind-case "$case_name" --callgrind-trivial "$1" "$2" \
      --callgrind-warmup "$warmup" \
      >"$out/log.$1.$2" 2>&1; then
    echo "callgrind run failed: path $1, N=$2 (log follows)" >&2
    tail -n 30 "$out/log.$1.$2" >&2
    exit 1
  fi
  local total=0 main="" f ir
  for f in "$file"-*; do
    ir=$(total_ir "$f") || { echo "no totals in $f" >&2; exit 1; }
    total=$((total + ir))
    [[ $f == "$file-01" ]] && main=$ir
  done
  [[ -n $main ]] || { echo "no main-thread file $file-01" >&2; exit 1; }
  echo "$total $main"
}

echo "$case_name under callgrind: warm-up $warmup, N1=$n1, N2=$n2 launches"
printf '%-12s %16s %16s %14s %14s\n' path "Ir(N1)" "Ir(N2)" "Ir/launch" "main/launch"
per_launch() {  # Ir(N1) Ir(N2)
  awk -v a="$1" -v b="$2" -v n1="$n1" -v n2="$n2" 'BEGIN { printf "%.1f", (b - a) / (n2 - n1) }'
}
for path in $paths; do
  read -r t1 m1 <<<"$(run "$path" "$n1")"
  read -r t2 m2 <<<"$(run "$path" "$n2")"
  printf '%-12s %16s %16s %14s %14s\n' "$path" "$t1" "$t2" "$(per_launch "$t1" "$t2")" \
    "$(per_launch "$m1" "$m2")"
done
if [[ ${KEEP:-0} == 1 ]]; then echo "callgrind files kept in $out"; fi
