#!/usr/bin/env bash
# Configures and builds hostkernel into build/ (libraries in build/lib, programs in
# build/bin). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build -j "$(nproc)" >> build.log 2>&1 || { tail -n 60 build.log; exit 1; }
