#!/usr/bin/env bash
# Fresh Debian 12 machine -> every test, through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
cd build
exec ctest --output-on-failure --timeout 600 -j 2 "$@"
