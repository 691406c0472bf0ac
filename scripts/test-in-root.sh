#!/usr/bin/env bash
# Builds this checkout (its working tree, committed or not) in a Debian root made by
# scripts/debian-root.sh, against that release's PoCL, and runs the whole ctest suite there.
#
#   sudo scripts/test-in-root.sh trixie                  # PoCL 6.0, LLVM 18
#   sudo scripts/test-in-root.sh sid -R unit.            # PoCL 7.1, LLVM 21; ctest arguments
#   sudo HK_DEBIAN_ROOTS=/srv/roots scripts/test-in-root.sh trixie
#
# The sources are copied to /root/hk-src inside the root with their modification times,
# so that the build in /root/hk-build stays incremental between runs. Mounting and
# unmounting is debian-root.sh's (every exit unmounts). The exit status is ctest's.
set -euo pipefail

[[ $# -ge 1 ]] || { echo "usage: $0 bookworm|trixie|sid [ctest arguments ...]" >&2; exit 2; }
name=$1
shift
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
roots=${HK_DEBIAN_ROOTS:-$repo/build-roots}
root=$roots/$name
src=/root/hk-src
build=/root/hk-build

# Makes the root (and installs the packages) before anything is copied into it.
bash "$repo/scripts/debian-root.sh" "$name"

mkdir -p "$root$src"
(cd "$repo" && git ls-files -co --exclude-standard -z |
   while IFS= read -r -d '' f; do [[ -e $f ]] && printf '%s\0' "$f"; done |
   tar --null -T - -cf -) | tar -C "$root$src" -xf -

bash "$repo/scripts/debian-root.sh" "$name" -- /bin/bash -c '
  set -e
  src=$1 build=$2
  shift 2
  cd "$src"
  nice -n 10 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  if ! nice -n 10 cmake --build "$build" -j2 >"$build/build.log" 2>&1; then
    grep -E -A3 "error|Error" "$build/build.log" | head -60
    exit 1
  fi
  cd "$build"
  nice -n 10 ctest -j2 --timeout 600 --output-on-failure "$@"
' test-in-root "$src" "$build" "$@"
