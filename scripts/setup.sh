#!/usr/bin/env bash
# Installs the Debian 12 packages hostkernel needs to build, test and benchmark.
# Idempotent: does nothing when everything is already installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  pocl-opencl-icd libpocl-dev ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers
  libhwloc-dev libgtest-dev libbenchmark-dev
  clang-15 llvm-15-dev llvm-spirv-15 libllvmspirvlib-15-dev
  valgrind clinfo python3-pyopencl
  nlohmann-json3-dev linux-perf
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
