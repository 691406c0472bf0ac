#!/usr/bin/env bash
# A/B of real OpenCL programs built only from Debian 12's packages, run unmodified on PoCL
# alone (A) and with hostkernel's OpenCL layer (B: OPENCL_LAYERS=<build>/lib/
# libhostkernel-layer.so). The workloads are in bench/real/; each checks its own result
# and exits 1 with "WRONG RESULT" when it is wrong, which stops this script with status 1;
# a workload already wrong on PoCL alone (its first run) is skipped and listed instead
# (clFFT's transforms on PoCL 7.1: bench/results/real-programs-packages-2026-12-07.md).
#
#   scripts/real-programs-ab.sh [--build DIR] [--pairs N] [--only REGEX] [--out FILE.tsv] [--list]
#
# Per workload: one untimed run of each kind (fills PoCL's and hostkernel's caches, and the
# layer's run counts where its launches went), then N pairs (default 3) alternating the
# order, A B, B A, A B, ..., so both kinds run at the same cache state and neither always
# runs first. Printed: the medians of the whole process's wall time (PoCL alone,
# hostkernel), ratio = PoCL alone / hostkernel (> 1: faster with hostkernel), the same for
# the workload's own timed loop, the layer's launches by path, and the geometric mean of
# the ratios; --out also writes them as tab-separated values (one header line, one line per
# workload). Packages missing are installed with apt-get (run as root).
# docs/benchmarks.md, "Real programs", tells how to read the output.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

build=build
pairs=3
only=.
list=0
out_file=
while (($#)); do
  case $1 in
    --build) build=$2; shift 2 ;;
    --pairs) pairs=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --out) out_file=$2; shift 2 ;;
    --list) list=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1 {sub(/^# ?/, ""); print}' "$0"; exit 0 ;;
    *) echo "real-programs-ab: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $pairs =~ ^[1-9][0-9]*$ ]] || { echo "real-programs-ab: --pairs wants a count >= 1" >&2; exit 2; }
build=$(cd "$build" 2>/dev/null && pwd) || { echo "real-programs-ab: no build directory" >&2; exit 2; }
layer=$build/lib/libhostkernel-layer.so

# name | command (run in bench/real; @ is the directory of the compiled C++ workloads).
# Default sizes take about a second each on PoCL alone on a 2-vCPU VM.
workloads=(
  "pyopencl-arrays-nopool|/usr/bin/python3 pyopencl_arrays.py nopool"
  "pyopencl-arrays-pool|/usr/bin/python3 pyopencl_arrays.py pool"
  "pyopencl-reductions|/usr/bin/python3 pyopencl_reductions.py"
  "viennacl-cg|@/viennacl-cg"
  "boost-compute|@/boost-compute"
  "boost-compute-openmp|@/boost-compute-openmp"
  "clblast-small|@/clblast-small"
  "clfft-small|@/clfft-small"
  "pyfai-integrate|/usr/bin/python3 pyfai_integrate.py"
  "gpyfft-fft|/usr/bin/python3 gpyfft_fft.py"
  "silx-filters|/usr/bin/python3 silx_filters.py"
  "openmm-md|/usr/bin/python3 openmm_md.py"
  "sasmodels-fit|/usr/bin/python3 sasmodels_fit.py"
  # Programs Debian ships ready to run (bench/real/package_programs.sh).
  "clblast-tests|bash package_programs.sh clblast-tests"
  "clfft-client|bash package_programs.sh clfft-client"
  "ufo-fft|bash package_programs.sh ufo-fft"
)
if ((list)); then
  for w in "${workloads[@]}"; do echo "${w%%|*}: ${w#*|}"; done
  exit 0
fi
[[ -f $layer ]] || { echo "real-programs-ab: $layer missing (build the hostkernel-layer target)" >&2; exit 2; }

# Debian's packages the workloads use; apt-get only when one is missing.
packages=(python3-pyopencl python3-numpy libviennacl-dev libboost-dev libclblast-dev
          libclfft-dev python3-pyfai python3-gpyfft python3-silx python3-scipy g++
          ocl-icd-opencl-dev pocl-opencl-icd clblast-tests clfft-client libufo-bin
          ufo-filters python3-pil gcc)
# Packages a release may not have under this name (OpenMM's Python module is
# python3-simtk in Debian 12): installed when there, else their workload fails on PoCL
# alone at its first run and is skipped.
optional=(python3-simtk libopenmm-plugins python3-sasmodels)
missing=() missing_optional=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing_optional+=("$p")
done
if ((${#missing[@]} + ${#missing_optional[@]})); then
  echo "installing ${missing[*]} ${missing_optional[*]}" >&2
  apt-get update -qq
  if ((${#missing[@]})); then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  fi
  for p in "${missing_optional[@]}"; do
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$p" >&2 ||
      echo "real-programs-ab: $p is not available here; its workload will be skipped" >&2
  done
fi

# The C++ workloads (source:libraries), rebuilt when their source or workload.hpp changed.
# The libraries' headers warn at any warning level (deprecated OpenCL 1.x calls): -w keeps
# the output to the results.
bin=$build/real-programs
real=$repo/bench/real
mkdir -p "$bin"
for entry in viennacl_cg boost_compute boost_compute_openmp:-fopenmp clblast_small:-lclblast \
             clfft_small:-lclFFT; do
  src=${entry%%:*} libs=
  [[ $entry == *:* ]] && libs=${entry#*:}
  out=$bin/${src//_/-}
  if [[ ! -x $out || $real/$src.cpp -nt $out || $real/workload.hpp -nt $out ]]; then
    echo "compiling $src.cpp" >&2
    g++ -std=c++17 -O2 -w -DCL_TARGET_OPENCL_VERSION=120 -o "$out" \
      "$real/$src.cpp" $libs -lOpenCL
  fi
done

# Both kinds share caches of their own, so a run of either finds what the other built.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export POCL_CACHE_DIR=$tmp/pocl-cache HOSTKERNEL_CACHE_DIR=$tmp/hostkernel-cache
unset OPENCL_LAYERS HOSTKERNEL_REPORT

# run KIND CMD: runs one workload (KIND base or layer) and prints "wall loop" in seconds.
# Any failure or wrong result ends the script.
run() {
  local kind=$1 cmd=${2//@/$bin} t0 t1 status=0
  local env=()
  [[ $kind == layer ]] && env=(OPENCL_LAYERS="$layer")
  [[ $kind == layer && -n ${report:-} ]] && env+=(HOSTKERNEL_REPORT=1)
  t0=$(date +%s%N)
  (cd "$real" && env "${env[@]}" $cmd) >"$tmp/out" 2>"$tmp/err" || status=$?
  t1=$(date +%s%N)
  if ((status)) || grep -q "WRONG RESULT" "$tmp/out" "$tmp/err"; then
    # PoCL alone wrong at the workload's first run: nothing to compare with (skipped).
    if [[ $kind == base && -n ${first_run:-} ]]; then
      echo "real-programs-ab: $name: wrong or failed on PoCL alone (exit status $status), skipped:" >&2
      grep -h "WRONG RESULT" "$tmp/out" "$tmp/err" >&2 || true
      return 3
    fi
    echo "real-programs-ab: FAILED: $name ($kind), exit status $status: $cmd" >&2
    cat "$tmp/out" "$tmp/err" >&2
    exit 1
  fi
  local loop
  loop=$(sed -n 's/^loop_seconds //p' "$tmp/out")
  [[ -n $loop ]] || { echo "real-programs-ab: $name ($kind) printed no loop_seconds" >&2; exit 1; }
  echo "$(( (t1 - t0) / 1000000 ))e-3 $loop"
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# "inline 123 team 0 queue 45 background 67 (reason x 45)" from a HOSTKERNEL_REPORT=1 report
# in $tmp/err.
launches() {
  sed -nE 's/.* inline ([0-9]+) +team ([0-9]+) +queue ([0-9]+) +background ([0-9]+) *$/\1 \2 \3 \4/p' \
    "$tmp/err" |
    awk '{i += $1; t += $2; q += $3; b += $4}
         END {printf "inline %d team %d queue %d background %d", i, t, q, b}'
  sed -nE 's/^ +queue: ([0-9]+) x (.*)$/\2|\1/p' "$tmp/err" |
    awk -F'|' '{n[$1] += $2} END {s = ""; for (r in n) s = s (s ? ", " : "") r " x " n[r]; if (s) printf " (%s)", s}'
}

printf '%-24s %10s %10s %7s   %10s %10s %7s   %s\n' workload "PoCL" hostkernel ratio \
  "loop PoCL" hostkernel ratio "layer's launches"
[[ -z $out_file ]] || printf 'workload\tpocl_s\thostkernel_s\tratio\tloop_pocl_s\tloop_hostkernel_s\tloop_ratio\tlayer_launches\n' >"$out_file"
ratios=() skipped=()
for w in "${workloads[@]}"; do
  name=${w%%|*} cmd=${w#*|}
  [[ $name =~ $only ]] || continue
  if ! first_run=1 run base "$cmd" >/dev/null; then
    skipped+=("$name")
    [[ -z $out_file ]] || printf '%s\tPoCL alone wrong\n' "$name" >>"$out_file"
    continue
  fi
  report=1 run layer "$cmd" >/dev/null
  where=$(launches)
  # The loader ignores a layer it cannot load without a word: no report, no launches.
  if ! grep -q "hostkernel report" "$tmp/err"; then
    echo "real-programs-ab: $name: no hostkernel report with OPENCL_LAYERS=$layer (not loaded?)" >&2
    exit 1
  fi
  bw=() bl=() lw=() ll=()
  for ((i = 0; i < pairs; i++)); do
    for kind in $( ((i % 2)) && echo layer base || echo base layer); do
      times=$(run "$kind" "$cmd")  # a failed run ends the script here (set -e)
      read -r wall loop <<<"$times"
      if [[ $kind == base ]]; then bw+=("$wall") bl+=("$loop"); else lw+=("$wall") ll+=("$loop"); fi
    done
  done
  mbw=$(median "${bw[@]}") mlw=$(median "${lw[@]}") mbl=$(median "${bl[@]}") mll=$(median "${ll[@]}")
  ratio=$(awk -v a="$mbw" -v b="$mlw" 'BEGIN {printf "%.2f", a / b}')
  ratios+=("$ratio")
  awk -v n="$name" -v a="$mbw" -v b="$mlw" -v c="$mbl" -v d="$mll" -v r="$ratio" -v w="$where" \
    'BEGIN {printf "%-24s %8.2f s %8.2f s %6.2fx   %8.3f s %8.3f s %6.2fx   %s\n", n, a, b, r, c, d, c / d, w}'
  [[ -z $out_file ]] || awk -v n="$name" -v a="$mbw" -v b="$mlw" -v c="$mbl" -v d="$mll" -v r="$ratio" -v w="$where" \
    'BEGIN {printf "%s\t%.3f\t%.3f\t%s\t%.3f\t%.3f\t%.2f\t%s\n", n, a, b, r, c, d, c / d, w}' >>"$out_file"
done
((${#skipped[@]} == 0)) ||
  echo "skipped, wrong or failed on PoCL alone: ${skipped[*]}"
((${#ratios[@]})) || { echo "real-programs-ab: no workload matches '$only' (or none ran)" >&2; exit 2; }
printf '%s\n' "${ratios[@]}" |
  awk '{s += log($1)} END {printf "geometric mean of the ratios (whole process, %d workloads): %.2fx\n", NR, exp(s / NR)}'
