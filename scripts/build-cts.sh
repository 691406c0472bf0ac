#!/usr/bin/env bash
# Builds the Khronos OpenCL-CTS suites that scripts/conformance.sh compares, from the
# Khronos repositories, outside this checkout (docs/conformance.md says why each setting).
#
#   scripts/build-cts.sh                                  # ~/cts: sources and build/
#   scripts/build-cts.sh --dir /tmp/cts --suites "test_basic test_vectors"
#   scripts/build-cts.sh --from /srv/mirrors              # clone <dir>/OpenCL-CTS etc.
#   scripts/conformance.sh --cts ~/cts/build               # then compare
#
# --dir DIR     where the three checkouts and build/ go (default ~/cts); a checkout that
#               is already there is used as it is (its commit is printed)
# --from URL    where to clone from: URL/OpenCL-CTS, URL/OpenCL-Headers, URL/SPIRV-Headers
#               (default https://github.com/KhronosGroup); a local directory of clones or
#               bare repositories works too
# --commits C   the commits to check out, "CTS HEADERS SPIRV" (default: those the results
#               in bench/results/conformance-*.tsv were made with; "" for each remote's
#               newest)
# --suites LIST the suites to build (default: conformance.sh's default list); each is a
#               CMake target of its own name, and only those are built
# --jobs N      parallel compiles (default: nproc)
#
# Installs what the build needs from Debian (cmake, g++, python3, spirv-tools, the ICD
# loader's development files) unless it is there. The OpenCL headers are the Khronos
# checkout's (Debian 12's 2023.02 headers lack enums the CTS harness names); the programs
# link Debian's ICD loader, so they run Debian's PoCL, here and in the Debian roots.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

dir=$HOME/cts from=https://github.com/KhronosGroup jobs=$(nproc)
commits="b8f8906c 15b536b 0d25db9"
source "$repo/scripts/lib/cts-suites.sh"
suites=$hk_cts_suites
while [[ $# -gt 0 ]]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    --commits) commits=$2; shift 2 ;;
    --suites) suites=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "build-cts: unknown argument $1" >&2; usage ;;
  esac
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "build-cts: --jobs wants a positive number" >&2; exit 2; }
read -r -a commit_list <<<"$commits"

packages=(cmake g++ git python3 spirv-tools ocl-icd-opencl-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  sudo=; [[ $(id -u) == 0 ]] || sudo=sudo
  echo "build-cts: installing ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# checkout NAME COMMIT: $dir/NAME, cloned from $from/NAME unless it exists; COMMIT checked
# out if given.
checkout() {
  local name=$1 commit=${2:-}
  [[ -d $dir/$name ]] || git clone -q "$from/$name" "$dir/$name"
  if [[ -n $commit ]]; then
    git -C "$dir/$name" checkout -q "$commit" ||
      { echo "build-cts: $name has no commit $commit (--commits)" >&2; exit 1; }
  fi
  echo "build-cts: $name at $(git -C "$dir/$name" log -1 --format='%h (%cs)')"
}
checkout OpenCL-CTS "${commit_list[0]:-}"
checkout OpenCL-Headers "${commit_list[1]:-}"
checkout SPIRV-Headers "${commit_list[2]:-}"

libdir=$(dirname "$(find /usr/lib -name libOpenCL.so -print -quit)")
[[ -n $libdir && $libdir != . ]] ||
  { echo "build-cts: no libOpenCL.so (ocl-icd-opencl-dev)" >&2; exit 1; }
cmake -S "$dir/OpenCL-CTS" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release \
  -DCL_INCLUDE_DIR="$dir/OpenCL-Headers" -DCL_LIB_DIR="$libdir" -DOPENCL_LIBRARIES=OpenCL \
  -DSPIRV_INCLUDE_DIR="$dir/SPIRV-Headers" -DSPIRV_TOOLS_DIR=/usr/bin \
  >"$dir/build-configure.log" 2>&1 ||
  { tail -n 40 "$dir/build-configure.log"; exit 1; }
for s in $suites; do
  echo "build-cts: $s"
  cmake --build "$dir/build" -j "$jobs" --target "$s" >"$dir/build-$s.log" 2>&1 ||
    { tail -n 40 "$dir/build-$s.log"; exit 1; }
done
echo "build-cts: done; compare with: $repo/scripts/conformance.sh --cts $dir/build"
