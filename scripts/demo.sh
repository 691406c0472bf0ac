#!/usr/bin/env bash
# Fresh Debian 12 machine -> the benchmark demo: hostkernel and PoCL's queue side by side.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
exec build/bin/pocl-launch-bench --quick "$@"
