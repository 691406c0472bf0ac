#!/usr/bin/env bash
# Checks the locking rules written as annotations (src/base/thread_safety.hpp): every
# source file of src/ compiled by clang with -Wthread-safety as an error, syntax only
# (nothing is built). Uses the compile commands of a clang configuration in
# build-thread-safety/ (made here), so the flags are the build's own.
#
#   scripts/check-thread-safety.sh        # exit 0: every rule holds
#
# environment: CXX (default clang++-15), JOBS (default the CPU count)
set -euo pipefail
cd "$(dirname "$0")/.."
cxx=${CXX:-clang++-15}
command -v "$cxx" >/dev/null ||
  { echo "check-thread-safety: $cxx not found (apt-get install clang-15)" >&2; exit 2; }
dir=build-thread-safety
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCMAKE_BUILD_TYPE=Debug -DHK_BUILD_TESTS=OFF -DHK_BUILD_BENCH=OFF >"$log" 2>&1 ||
  { cat "$log"; echo "check-thread-safety: cmake failed" >&2; exit 1; }
# One line per source of src/: "directory<TAB>command", the output file dropped.
/usr/bin/python3 - "$dir/compile_commands.json" "$PWD/src/" >"$dir/thread-safety-commands" <<'PY'
import json, shlex, sys
seen = set()
for c in json.load(open(sys.argv[1])):
    if not c["file"].startswith(sys.argv[2]) or c["file"] in seen:
        continue
    seen.add(c["file"])
    args = c["arguments"] if "arguments" in c else shlex.split(c["command"])
    out = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        # GCC's TLS dialect flag (clang before 19 does not know it); no effect on checks.
        if a in ("-MD", "-MMD", "-c") or a.startswith("-mtls-dialect="):
            continue
        out.append(a)
    out += ["-fsyntax-only", "-Wthread-safety", "-Werror=thread-safety"]
    print(c["directory"] + "\t" + shlex.join(out))
PY
count=$(wc -l <"$dir/thread-safety-commands")
((count > 0)) || { echo "check-thread-safety: no sources of src/ in the compile commands" >&2; exit 1; }
failed=0
while IFS=$'\t' read -r directory command; do
  echo "cd $(printf '%q' "$directory") && $command"
done <"$dir/thread-safety-commands" |
  xargs -P "${JOBS:-$(nproc)}" -I{} bash -c '{}' >"$log" 2>&1 || failed=1
if ((failed)); then
  grep -E -A3 "error: " "$log" | head -60
  echo "check-thread-safety: the locking rules do not hold (above)" >&2
  exit 1
fi
echo "check-thread-safety: $count sources of src/, every locking rule holds"
