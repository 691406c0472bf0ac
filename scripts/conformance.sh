#!/usr/bin/env bash
# Runs Khronos OpenCL-CTS suites, built beforehand from KhronosGroup/OpenCL-CTS
# (docs/conformance.md), once on PoCL alone and once through hostkernel's layer, and
# compares them subtest by subtest. Prints a table (suite, subtest, status per run) and
# the totals per suite and run (pass/fail/skip, wall time, launches and commands by path),
# and exits non-zero if any subtest's status differs from PoCL alone's.
#
#   scripts/conformance.sh --cts ~/cts/build                         # PoCL of this machine
#   scripts/conformance.sh --cts ~/cts/build --root trixie          # PoCL 6.0 (needs root)
#   scripts/conformance.sh --cts ~/cts/build --suites "test_api test_events" \
#       --modes pocl,layer,direct --timeout 3600 --out /tmp/cts-out
#
# --cts DIR     a CTS build directory (or an install's bin directory): each suite is the
#               first executable named after it below DIR, run in its own directory (the
#               compiler suite reads its include directories and SPIR-V files from there)
# --root NAME   run in the Debian root NAME (scripts/debian-root.sh; $HK_DEBIAN_ROOTS):
#               this checkout's layer is built there against that release's PoCL, the
#               suites are copied in, and the runs and the table happen inside the root
# --suites LIST the suites (default: the ones whose functions hostkernel intercepts)
# --modes LIST  comma-separated runs, the first is the reference: pocl (no layer), layer
#               (OPENCL_LAYERS, defaults), direct (layer with HOSTKERNEL_FIRST_LAUNCH=direct,
#               so that a kernel's first launch also runs directly); default pocl,layer
# --timeout S   per suite and run (default 3600); a suite that runs out is "timeout"
# --full        without wimpy mode (the CTS's reduced sizes for the suites that have it)
# --layer PATH  the layer to use (default: build/lib/libhostkernel-layer.so)
# --fresh-caches an empty PoCL kernel cache for every run (below)
# --out DIR     logs, per-run JSON results and summary.tsv (default: a new /tmp directory)
# --report-only no runs: the table from the logs and results already in --out (for
#               instance after adding a mode's files from another run)
#
# PoCL's kernel cache starts empty for each suite and is kept across its runs, so that
# only the first run pays PoCL's compiles (--fresh-caches: an empty one for every run, so
# that the runs' wall times compare, at the cost of compiling everything in each run).
# hostkernel's persistent cache starts empty in every run. Results come from the
# harness's JSON file (CL_CONFORMANCE_RESULTS_FILENAME); a run that crashed or timed out
# has none, and its subtests are read from the log: those started without a result are
# "crash" (or "timeout"), those never started "notrun". After a crash the suite starts
# again with the subtests not run yet, so one crash hides no later subtest.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

cts= root= out= layer= full=0 fresh=0 report_only=0 timeout_s=3600 modes=pocl,layer
source "$repo/scripts/lib/cts-suites.sh"
suites=$hk_cts_suites
while [[ $# -gt 0 ]]; do
  case $1 in
    --cts) cts=$2; shift 2 ;;
    --root) root=$2; shift 2 ;;
    --suites) suites=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --full) full=1; shift ;;
    --fresh-caches) fresh=1; shift ;;
    --report-only) report_only=1; shift ;;
    --layer) layer=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "conformance: unknown argument $1" >&2; usage ;;
  esac
done
if [[ $report_only == 1 ]]; then
  [[ -n $out && -d $out ]] || { echo "conformance: --report-only needs --out DIR" >&2; exit 2; }
  [[ -z $root ]] || { echo "conformance: --report-only runs outside the root" >&2; exit 2; }
else
  [[ -n $cts && -d $cts ]] || { echo "conformance: --cts DIR (a built OpenCL-CTS) is required" >&2; exit 2; }
  cts=$(cd "$cts" && pwd)
fi
suites=$(echo $suites)
IFS=, read -r -a mode_list <<<"$modes"
for m in "${mode_list[@]}"; do
  [[ $m == pocl || $m == layer || $m == direct ]] || { echo "conformance: unknown mode $m" >&2; exit 2; }
done

# --root: copy the sources and the suites into the root, build the layer there, and run
# this script inside it without --root. The build directory in the root is only this
# script's, and is wiped when the checkout or the root's packages changed (make trusts the
# copied modification times only while they come from one checkout).
if [[ -n $root ]]; then
  [[ $(id -u) == 0 ]] || { echo "conformance: --root needs root" >&2; exit 1; }
  roots=${HK_DEBIAN_ROOTS:-$repo/build-roots}
  base=/root/hk-conformance
  dir=$roots/$root
  [[ -d $dir/root ]] || { echo "conformance: no root at $dir (scripts/debian-root.sh $root)" >&2; exit 1; }
  rm -rf --one-file-system "${dir:?}$base/src" "${dir:?}$base/cts" "${dir:?}$base/out"
  mkdir -p "$dir$base/src" "$dir$base/cts"
  (cd "$repo" && git ls-files -co --exclude-standard -z |
     while IFS= read -r -d '' f; do [[ -e $f ]] && printf '%s\0' "$f"; done |
     tar --null -T - -cf -) | tar -C "$dir$base/src" -xf -
  for s in $suites; do
    exe=$(find "$cts" -name "$s" -type f -perm -u+x -print -quit)
    [[ -n $exe ]] || { echo "conformance: $s not found below $cts" >&2; continue; }
    d=$(dirname "$exe")
    mkdir -p "$dir$base/cts/$s"
    (cd "$d" && tar --exclude=CMakeFiles --exclude='*.o' --exclude=Makefile \
       --exclude=cmake_install.cmake -cf - .) | tar -C "$dir$base/cts/$s" -xf -
  done
  args=(--cts "$base/cts" --suites "$suites" --modes "$modes" --timeout "$timeout_s"
        --layer "$base/build/lib/libhostkernel-layer.so" --out "$base/out")
  [[ $full == 0 ]] || args+=(--full)
  [[ $fresh == 0 ]] || args+=(--fresh-caches)
  status=0
  HK_DEBIAN_ROOTS=$roots bash "$repo/scripts/debian-root.sh" "$root" -- /bin/bash -c '
    set -euo pipefail
    base=$1 origin=$2
    shift 2
    cd "$base/src"
    stamp=$({ echo "$origin"; find . -type f | LC_ALL=C sort
              dpkg-query -W -f="\${Package} \${Version}\n"; } | sha256sum)
    if [[ $(cat "$base/build/stamp" 2>/dev/null) != "$stamp" ]]; then rm -rf "$base/build"; fi
    mkdir -p "$base/build"
    echo "$stamp" >"$base/build/stamp"
    nice -n 10 cmake -S . -B "$base/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      >"$base/build/configure.log" 2>&1 || { cat "$base/build/configure.log"; exit 1; }
    nice -n 10 cmake --build "$base/build" -j2 --target hostkernel-layer \
      >"$base/build/build.log" 2>&1 || { tail -n 40 "$base/build/build.log"; exit 1; }
    exec bash scripts/conformance.sh "$@"
  ' conformance "$base" "$(hostname):$repo" "${args[@]}" || status=$?
  if [[ -n $out ]]; then
    mkdir -p "$out"
    cp -a "$dir$base/out/." "$out/"
  fi
  echo "conformance: logs in $dir$base/out" >&2
  exit "$status"
fi

[[ -n $layer ]] || layer=$repo/build/lib/libhostkernel-layer.so
[[ $report_only == 1 || -f $layer ]] || { echo "conformance: no layer at $layer (cmake --build build --target hostkernel-layer)" >&2; exit 1; }
layer=$(cd "$(dirname "$layer")" && pwd)/$(basename "$layer")
[[ -n $out ]] || out=$(mktemp -d /tmp/hk-conformance.XXXXXX)
mkdir -p "$out"
out=$(cd "$out" && pwd)

# A signal ends the suite that runs (timeout passes it on) before the script.
child=
trap '[[ -z $child ]] || kill -TERM "$child" 2>/dev/null; exit 143' TERM
trap '[[ -z $child ]] || kill -TERM "$child" 2>/dev/null; exit 130' INT

# One suite in one mode. A crash ends the CTS process, so the suite is started again with
# the subtests that had not run yet (each attempt: $run.N.log and $run.N.json); the
# subtest that crashed is "crash". "how seconds exit crashes" of the whole go to $run.time.
run_suite() {  # mode suite exe
  local mode=$1 suite=$2 exe=$3 run=$out/$1/$2
  local dir
  dir=$(dirname "$exe")
  mkdir -p "$out/$mode"
  local pocl_cache=$out/pocl-cache/$2
  [[ $fresh == 0 ]] || rm -rf "$pocl_cache"
  rm -rf "$run.hk-cache" "$run".*.json "$run".*.log "$run.time"
  mkdir -p "$pocl_cache" "$run.hk-cache"
  chmod 700 "$run.hk-cache"
  local env=(POCL_CACHE_DIR="$pocl_cache")
  case $mode in
    layer) env+=(OPENCL_LAYERS="$layer" HOSTKERNEL_REPORT=1 HOSTKERNEL_CACHE_DIR="$run.hk-cache") ;;
    direct) env+=(OPENCL_LAYERS="$layer" HOSTKERNEL_REPORT=1 HOSTKERNEL_CACHE_DIR="$run.hk-cache"
                  HOSTKERNEL_FIRST_LAUNCH=direct) ;;
  esac
  local common=()
  [[ $full == 1 ]] || common+=(--wimpy)
  local all
  all=$(cd "$dir" && "$exe" --list 2>/dev/null | sed -n 's/^\t\([A-Za-z0-9_]*\)$/\1/p')
  local attempt=0 selected=() how code secs=0 crashes=0 lead=()
  # test_non_uniform_work_group's own argument parser drops the program's name: its first
  # argument stands in for it, and without subtest names it runs none. It gets a first
  # argument to drop and every subtest by name.
  if [[ $suite == test_non_uniform_work_group && -n $all ]]; then
    lead=("$exe")
    selected=($all)
  fi
  while :; do
    attempt=$((attempt + 1))
    local start=$EPOCHREALTIME
    code=0
    (cd "$dir" && exec env "${env[@]}" CL_CONFORMANCE_RESULTS_FILENAME="$run.$attempt.json" \
       timeout --foreground --kill-after=30 "$timeout_s" "$exe" "${lead[@]}" "${common[@]}" "${selected[@]}") \
      >"$run.$attempt.log" 2>&1 </dev/null &
    child=$!
    wait "$child" || code=$?
    child=
    secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" -v s="$secs" 'BEGIN { printf "%.1f", s + b - a }')
    how=exited
    if [[ $code == 124 || $code == 137 ]]; then how=timeout
    elif [[ ! -s $run.$attempt.json ]]; then how=crash; fi
    [[ $how == crash ]] || break
    crashes=$((crashes + 1))
    # Every subtest with a result, and the one that crashed, is done.
    local done_names
    done_names=$(statuses "$mode" "$suite" | cut -d' ' -f1)
    local crashed
    crashed=$(statuses "$mode" "$suite" | awk '$2 == "crash"' | tail -n 1)
    [[ -n $crashed && -n $all ]] || break
    mapfile -t selected < <(comm -23 <(printf '%s\n' $all | LC_ALL=C sort) \
                                     <(printf '%s\n' $done_names | LC_ALL=C sort) |
                            awk 'NR == FNR { want[$1] = 1; next } want[$1]' - <(printf '%s\n' $all))
    [[ ${#selected[@]} -gt 0 ]] || break
    echo "conformance:   crashed in ${crashed%% *}; again with the ${#selected[@]} subtests not run yet" >&2
  done
  printf '%s %s %s %s\n' "$how" "$secs" "$code" "$crashes" >"$run.time"
  rm -rf "$run.hk-cache"
}

# "subtest status" lines of one run, attempt by attempt: each attempt's JSON file, or
# else what its log shows.
statuses() {  # mode suite
  local run=$out/$1/$2 n=1 how last
  last=$(ls "$run".*.log 2>/dev/null | wc -l)
  while [[ -e $run.$n.log ]]; do
    if [[ -s $run.$n.json ]]; then
      sed -n 's/^[[:space:]]*"\([^"]*\)": "\(pass\|fail\|skip\)",\{0,1\}$/\1 \2/p' "$run.$n.json"
    else
      how=crash
      [[ $n != "$last" || ! -e $run.time ]] || how=$(cut -d' ' -f1 "$run.time")
      [[ $how != exited ]] || how=crash
      awk -v how="$how" '
        / passed$/ { r[$1] = "pass"; next }
        / FAILED$/ { r[$1] = "fail"; next }
        / test not supported$/ || / skipped \(requires/ || / currently not implemented$/ { r[$1] = "skip"; next }
        /^[A-Za-z0-9_]+\.\.\.$/ { n = substr($0, 1, length($0) - 3); if (!(n in r)) { order[++k] = n; r[n] = "" } }
        END { for (i = 1; i <= k; ++i) print order[i], (r[order[i]] == "" ? how : r[order[i]]) }
      ' "$run.$n.log"
    fi
    n=$((n + 1))
  done
}

# Launches (inline, team, queue) and other commands (direct, queue) from the layer's report.
report_counts() {  # mode suite
  awk '
    /^  .* inline [0-9]+ +team [0-9]+ +queue [0-9]+ *$/ {
      for (i = 1; i < NF; ++i) { if ($i == "inline") a += $(i+1); if ($i == "team") b += $(i+1); if ($i == "queue") c += $(i+1) } }
    /^  command 0x[0-9a-f]+ +direct [0-9]+ +queue [0-9]+ *$/ { d += $4; e += $6 }
    END { printf "%d/%d/%d %d/%d", a, b, c, d, e }
  ' < <(cat "$out/$1/$2".*.log 2>/dev/null)
}

# The table's comment lines describe the runs: written when they start, read again by
# --report-only.
if [[ $report_only == 0 || ! -s $out/header ]]; then
  pocl_version=$(dpkg-query -W -f='${Version}' pocl-opencl-icd 2>/dev/null || echo unknown)
  {
    echo "# OpenCL-CTS through hostkernel's layer against PoCL alone: $(date -u +%Y-%m-%d), PoCL $pocl_version, $(uname -m)"
    echo "# modes: $modes ($([[ $full == 1 ]] && echo full || echo wimpy)); per-suite timeout ${timeout_s}s; PoCL cache $([[ $fresh == 1 ]] && echo "empty for every run" || echo "empty for each suite's first run, kept for its later runs")"
  } >"$out/header"
fi
[[ $report_only == 1 ]] || echo "conformance: suites in $cts, modes $modes, output in $out" >&2
for s in $suites; do
  [[ $report_only == 0 ]] || break
  exe=$(find "$cts" -name "$s" -type f -perm -u+x -print -quit)
  if [[ -z $exe ]]; then
    echo "conformance: $s not found below $cts" >&2
    for m in "${mode_list[@]}"; do mkdir -p "$out/$m"; echo "missing 0 - 0" >"$out/$m/$s.time"; done
    continue
  fi
  for m in "${mode_list[@]}"; do
    echo "conformance: $s ($m)" >&2
    run_suite "$m" "$s" "$exe"
    echo "conformance:   $(cat "$out/$m/$s.time")" >&2
  done
  rm -rf "$out/pocl-cache/$s"
done

# The table: one row per subtest seen in any run; a subtest missing from a run that
# finished is "notrun".
summary=$out/summary.tsv
ref=${mode_list[0]}
differ=0
{
  cat "$out/header"
  printf 'suite\tsubtest'; printf '\t%s' "${mode_list[@]}"; printf '\tsame\n'
  for s in $suites; do
    declare -A st=()
    names=()
    for m in "${mode_list[@]}"; do
      while read -r n r; do
        [[ -n $n ]] || continue
        [[ -v "st[_$n]" ]] || { names+=("$n"); st[_$n]=1; }
        st[$m:$n]=$r
      done < <(statuses "$m" "$s")
    done
    for n in "${names[@]}"; do
      row=() same=yes
      for m in "${mode_list[@]}"; do
        r=${st[$m:$n]-notrun}
        row+=("$r")
        [[ $r == "${st[$ref:$n]-notrun}" ]] || same=NO
      done
      [[ $same == yes ]] || differ=1
      printf '%s\t%s' "$s" "$n"; printf '\t%s' "${row[@]}"; printf '\t%s\n' "$same"
    done
    unset st
  done
  echo
  printf 'suite\tmode\tpass\tfail\tskip\tother\tseconds\tend\tcrashes\tlaunches inline/team/queue\tcommands direct/queue\n'
  for s in $suites; do
    for m in "${mode_list[@]}"; do
      read -r how secs code crashes <"$out/$m/$s.time"
      counts=$(statuses "$m" "$s" | awk '{ c[$2]++ } END { printf "%d\t%d\t%d\t%d", c["pass"], c["fail"], c["skip"], NR - c["pass"] - c["fail"] - c["skip"] }')
      launches="-	-"
      [[ $m == pocl ]] || launches=$(report_counts "$m" "$s" | tr ' ' '\t')
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$m" "$counts" "$secs" "$how $code" "${crashes:-0}" "$launches"
    done
  done
} >"$summary"
# On the terminal: the comment lines, then each table aligned on its own.
grep '^#' "$summary"
grep -v '^#' "$summary" | awk -v RS= -v dir="$out" '{ print > (dir "/table" NR ".tsv") }'
for t in "$out"/table*.tsv; do
  echo
  column -t -s $'\t' "$t" 2>/dev/null || cat "$t"
  rm -f "$t"
done
if [[ $differ != 0 ]]; then
  echo "conformance: DIFFERENCES (rows with same=NO); logs in $out" >&2
  exit 1
fi
echo "conformance: every subtest's status is the same in every run; logs in $out" >&2
