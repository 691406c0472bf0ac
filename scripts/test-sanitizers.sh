#!/usr/bin/env bash
# Sanitizer builds of the test suite, as CI runs them:
#   build-asan  -DHK_SANITIZE=address (ASan + UBSan): every test;
#   build-tsan  -DHK_SANITIZE=thread  (TSan): the tests whose names match
#               threads|team|concurrency (only their executables are built).
# Both use -O1 -g. Runtime options and suppressions (tests/sanitizers/) come from ctest's
# test environment (tests/sanitizers/sanitizers.cmake), so a plain `ctest` in either build
# directory runs the same way. Exits non-zero if any build or test fails.
#
# usage: scripts/test-sanitizers.sh [asan] [tsan]     (default: both)
# environment: JOBS (default: nproc), CTEST_TIMEOUT (per test, default 900 s),
#              TSAN_TESTS (default 'threads|team|concurrency|background')
set -uo pipefail
cd "$(dirname "$0")/.."

jobs=${JOBS:-$(nproc)}
timeout=${CTEST_TIMEOUT:-900}
tsan_tests=${TSAN_TESTS:-threads|team|concurrency|background}
variants=("$@")
[[ ${#variants[@]} -eq 0 ]] && variants=(asan tsan)

common=(-DCMAKE_BUILD_TYPE=RelWithDebInfo
        "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g"
        -DHK_BUILD_BENCH=OFF -DHK_BUILD_TESTS=ON)

failed=()
step() {  # name command...: runs the command, logs to $log, records a failure
  local name=$1; shift
  local start=$SECONDS
  echo "== $name"
  if "$@" >>"$log" 2>&1; then
    echo "   ok ($((SECONDS - start)) s)"
  else
    echo "   FAILED ($((SECONDS - start)) s); failed tests and checks in $log:"
    # The names first: a log's tail can be cut short where it is shown.
    sed -n '/^The following tests FAILED/,/^Errors while running/p' "$log" | sed 's/^/   | /'
    grep -E -e '\*\*\*(Failed|Timeout|Exception)|\[  FAILED  \]' \
         -e 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$log" | head -n 40 | sed 's/^/   | /'
    echo "   last lines of $log:"
    tail -n 40 "$log" | sed 's/^/   | /'
    failed+=("$name")
    return 1
  fi
}

# Executable targets behind the ctest tests matching a regex (tests are named
# <dir>.<target>, e.g. unit.team_test -> team_test).
targets_for() {
  (cd "$1" && ctest -N -R "$2") | sed -n 's/^ *Test *#[0-9]*: *[a-z]*\.\(.*\)$/\1/p' | sort -u
}

for v in "${variants[@]}"; do
  case $v in
    asan)
      mkdir -p build-asan; log=build-asan/test-sanitizers.log; : >"$log"
      step "asan: configure" cmake -S . -B build-asan -DHK_SANITIZE=address "${common[@]}" &&
      step "asan: build" cmake --build build-asan -j "$jobs" &&
      step "asan: ctest (all tests)" \
        bash -c "cd build-asan && ctest --output-on-failure --timeout $timeout -j $jobs"
      ;;
    tsan)
      mkdir -p build-tsan; log=build-tsan/test-sanitizers.log; : >"$log"
      if step "tsan: configure" cmake -S . -B build-tsan -DHK_SANITIZE=thread "${common[@]}"; then
        mapfile -t targets < <(targets_for build-tsan "$tsan_tests")
        if [[ ${#targets[@]} -eq 0 ]]; then
          echo "   no tests match '$tsan_tests'"; failed+=("tsan: no tests")
        else
          echo "   TSan tests: ${targets[*]}"
          step "tsan: build" cmake --build build-tsan -j "$jobs" --target "${targets[@]}" &&
          step "tsan: ctest (-R '$tsan_tests')" \
            bash -c "cd build-tsan && ctest --output-on-failure --timeout $timeout -j $jobs -R '$tsan_tests'"
        fi
      fi
      ;;
    *) echo "unknown variant '$v' (asan, tsan)" >&2; exit 2 ;;
  esac
done

if [[ ${#failed[@]} -ne 0 ]]; then
  echo "sanitizers: FAILED: ${failed[*]}"
  exit 1
fi
echo "sanitizers: all passed"
