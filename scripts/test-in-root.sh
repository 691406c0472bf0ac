#!/usr/bin/env bash
# Builds this checkout (its working tree, committed or not) in a Debian root made by
# scripts/debian-root.sh, against that release's PoCL, and runs the whole ctest suite there.
#
#   sudo scripts/test-in-root.sh trixie                  # PoCL 6.0, LLVM 18
#   sudo scripts/test-in-root.sh sid -R unit.            # PoCL 7.1, LLVM 21; ctest arguments
#   sudo scripts/test-in-root.sh --clean trixie          # rebuild from nothing (CI does)
#   sudo HK_DEBIAN_ROOTS=/srv/roots scripts/test-in-root.sh trixie
#
# The sources are copied afresh to /root/hk-src inside the root with their modification
# times, so that the build in /root/hk-build stays incremental between runs. make trusts
# those times, which is only safe while they come from one checkout: the build directory
# is wiped whenever the checkout, the file list, the configure arguments or any package
# in the root (compilers, CMake, PoCL, LLVM) differs from the last build's. --clean
# always wipes it. Mounting and unmounting is debian-root.sh's (every exit unmounts).
# The exit status is ctest's.
set -euo pipefail

usage() { echo "usage: $0 [--clean] bookworm|trixie|sid [ctest arguments ...]" >&2; exit 2; }
clean=0
if [[ ${1-} == --clean ]]; then clean=1; shift; fi
[[ $# -ge 1 ]] || usage
name=$1
shift
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
roots=${HK_DEBIAN_ROOTS:-$repo/build-roots}
root=$roots/$name
src=/root/hk-src
build=/root/hk-build

source "$repo/scripts/lib/root-guard.sh"
trap 'hk_stop_child; exit 130' INT
trap 'hk_stop_child; exit 143' TERM

# Makes the root (and installs the packages) before anything is copied into it.
hk_run bash "$repo/scripts/debian-root.sh" "$name"

# Files deleted from the checkout must not stay behind in the copy.
rm -rf --one-file-system "${root:?}$src"
mkdir -p "$root$src"
(cd "$repo" && git ls-files -co --exclude-standard -z |
   while IFS= read -r -d '' f; do [[ -e $f ]] && printf '%s\0' "$f"; done |
   tar --null -T - -cf -) | tar -C "$root$src" -xf -

exec bash "$repo/scripts/debian-root.sh" "$name" -- /bin/bash -c '
  set -euo pipefail
  src=$1 build=$2 origin=$3 clean=$4
  shift 4
  configure=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
  cd "$src"
  stamp=$({ echo "$origin ${configure[*]}"; find . -type f | LC_ALL=C sort
            dpkg-query -W -f="\${Package} \${Version}\n"; } | sha256sum)
  if [[ -d $build && $clean == 0 && $(cat "$build/hk-build-stamp" 2>/dev/null) != "$stamp" ]]
  then
    echo "test-in-root: the build inputs changed since the last build: building from nothing"
    clean=1
  fi
  [[ $clean == 0 ]] || rm -rf "$build"
  mkdir -p "$build"
  echo "$stamp" >"$build/hk-build-stamp"
  nice -n 10 cmake -S . -B "$build" "${configure[@]}" >"$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; exit 1; }
  if ! nice -n 10 cmake --build "$build" -j2 >"$build/build.log" 2>&1; then
    grep -E -A3 "error|Error" "$build/build.log" | head -60
    exit 1
  fi
  cd "$build"
  nice -n 10 ctest -j2 --timeout 600 --output-on-failure "$@"
' test-in-root "$src" "$build" "$(hostname):$repo" "$clean" "$@"
