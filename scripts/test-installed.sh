#!/usr/bin/env bash
# Builds the installed examples (share/doc/hostkernel/examples) against an installed
# hostkernel, once with CMake (find_package) and once with pkg-config, and runs each build;
# then runs clinfo and the pkg-config build under the installed hostkernel-run.
#
#   scripts/test-installed.sh PREFIX [WORK_DIR]
#
# PREFIX is what was given to `cmake --install --prefix` (/usr for the Debian package).
# WORK_DIR (default: a temporary directory, removed at exit) holds the builds.
set -euo pipefail

prefix=$(readlink -f "${1:?usage: test-installed.sh PREFIX [WORK_DIR]}")
if [ $# -ge 2 ]; then
  work=$2
  rm -rf "$work"
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
examples=$prefix/share/doc/hostkernel/examples
run=$prefix/bin/hostkernel-run

step() { echo "== $*"; }

step "CMake: find_package(hostkernel CONFIG) from $prefix"
cmake -S "$examples" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >"$work/cmake.log" ||
  { cat "$work/cmake.log"; exit 1; }
cmake --build "$work/cmake" -j2 >>"$work/cmake.log" || { cat "$work/cmake.log"; exit 1; }
"$work/cmake/drop_in"
"$work/cmake/cpp_api"

step "pkg-config: hostkernel.pc from $prefix"
multiarch=$(cc -print-multiarch)
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/$multiarch/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
libdir=$(pkg-config --variable=libdir hostkernel)
read -r -a flags <<<"$(pkg-config --cflags --libs hostkernel)"
mkdir -p "$work/pc"
cc -std=c11 -include hostkernel/replace.h "$examples/drop_in.c" "${flags[@]}" \
   -Wl,-rpath,"$libdir" -o "$work/pc/drop_in"
c++ -std=c++20 "$examples/cpp_api.cpp" "${flags[@]}" -Wl,-rpath,"$libdir" -o "$work/pc/cpp_api"
"$work/pc/drop_in"
"$work/pc/cpp_api"

step "hostkernel-run: $run"
"$run" --report clinfo >"$work/clinfo.log" 2>&1 || { cat "$work/clinfo.log"; exit 1; }
grep -q "Portable Computing Language" "$work/clinfo.log"
grep -q "hostkernel report: launches by path" "$work/clinfo.log" ||
  { cat "$work/clinfo.log"; echo "hostkernel-run clinfo: the layer was not loaded" >&2; exit 1; }
echo "hostkernel-run --report clinfo: PoCL's platform listed, the layer loaded"
"$run" "$work/pc/drop_in"
echo "test-installed: all passed"
