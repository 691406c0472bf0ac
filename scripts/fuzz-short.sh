#!/usr/bin/env bash
# Short fuzzing run for CI: builds the libFuzzer targets of fuzz/ with clang-15 into
# build-fuzz (-DHK_FUZZ=ON) and runs each for FUZZ_SECONDS (default 60) from its seed
# corpus (fuzz/corpus/<target>/, not modified: new inputs go to a temporary directory).
# Exits non-zero if a target cannot be built or finds a crash, leak, timeout or contract
# violation; the input that triggered it is kept in build-fuzz/artifacts/ (turn it into a
# regression test in tests/unit, e.g. tests/unit/fuzz_regressions_test.cpp).
#
# usage: scripts/fuzz-short.sh [target...]    (default: every target that was built)
# environment: FUZZ_SECONDS (per target), CC/CXX (default clang-15/clang++-15), JOBS
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

seconds=${FUZZ_SECONDS:-60}
jobs=${JOBS:-$(nproc)}
cc=${CC:-clang-15}
cxx=${CXX:-clang++-15}
command -v "$cxx" >/dev/null || { echo "fuzz-short: $cxx not found (apt-get install clang-15)" >&2; exit 2; }

mkdir -p build-fuzz
log=build-fuzz/fuzz-short.log
: >"$log"
if ! cmake -S . -B build-fuzz -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
     -DHK_FUZZ=ON -DHK_BUILD_TESTS=OFF -DHK_BUILD_BENCH=OFF >>"$log" 2>&1; then
  tail -n 40 "$log"; echo "fuzz-short: configure FAILED"; exit 1
fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  for t in poclbinary_fuzz spirv_structure_fuzz spirv_fuzz; do
    [[ -d fuzz/corpus/$t ]] && grep -q "hk_add_fuzzer($t " fuzz/CMakeLists.txt && targets+=("$t")
  done
  # SPIR-V targets exist only with src/program/spirv.hpp.
  [[ -f src/program/spirv.hpp ]] || targets=(poclbinary_fuzz)
fi
if ! cmake --build build-fuzz -j "$jobs" --target "${targets[@]}" >>"$log" 2>&1; then
  tail -n 40 "$log"; echo "fuzz-short: build FAILED"; exit 1
fi

mkdir -p build-fuzz/artifacts
work=$(mktemp -d "${TMPDIR:-/tmp}/hk-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=()
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  echo "== $t: ${seconds} s"
  # -fork/-jobs are not used: one process, so that CI's two cores are not oversubscribed.
  if (cd "$work" && "$repo/build-fuzz/bin/$t" "$work/$t" "$repo/fuzz/corpus/$t" \
        -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="$repo/build-fuzz/artifacts/$t-" >"$work/$t.log" 2>&1); then
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec)|^Done" "$work/$t.log" | sed 's/^/   /'
  else
    echo "   FAILED: last lines of its log:"
    tail -n 40 "$work/$t.log" | sed 's/^/   | /'
    failed+=("$t")
  fi
done
if [[ ${#failed[@]} -ne 0 ]]; then
  echo "fuzz-short: FAILED: ${failed[*]} (inputs in build-fuzz/artifacts/)"
  exit 1
fi
echo "fuzz-short: no findings"
