#!/usr/bin/env bash
# A Debian root with the packages hostkernel needs to build, test and benchmark against
# that release's PoCL: bookworm (PoCL 3.1), trixie (PoCL 6.0) or sid (PoCL 7.1).
#
#   sudo scripts/debian-root.sh trixie                   # make or update the root
#   sudo scripts/debian-root.sh sid -- clinfo -l         # then run a command inside it
#   sudo HK_DEBIAN_ROOTS=/srv/roots scripts/debian-root.sh bookworm
#
# The root is $HK_DEBIAN_ROOTS/NAME (default: build-roots/NAME in this checkout). An
# existing root is reused: only missing packages are installed. /proc, /sys, /dev and
# /dev/pts are bind-mounted for apt and for the command, and unmounted on every exit,
# error or signal: removing a root whose /dev is still mounted would delete the machine's
# device nodes (remove roots with hk_remove_root from scripts/lib/root-guard.sh). One run
# at a time holds NAME.lock; mounts and processes it finds in the root were left by a run
# that was killed outright, and it cleans them up.
# Needs root, debootstrap and network access to $HK_DEBIAN_MIRROR.
set -euo pipefail

usage() { echo "usage: $0 bookworm|trixie|sid [-- command ...]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
name=$1
shift
if [[ $# -gt 0 ]]; then
  [[ $1 == -- ]] || usage
  shift
fi

# The LLVM major version each release's PoCL is built with (Debian's pocl source package
# build-depends on exactly one llvm-N-dev). The translator and clang used for SPIR-V
# kernels and the LLVM that reads PoCL's program.bc must be the same version.
case $name in
  bookworm) llvm=15 ;;
  trixie) llvm=18 ;;
  sid) llvm=21 ;;
  *) usage ;;
esac

[[ $(id -u) == 0 ]] || { echo "$0: needs root (debootstrap, chroot, mount)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "$0: needs debootstrap" >&2; exit 1; }

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
roots=${HK_DEBIAN_ROOTS:-$repo/build-roots}
mirror=${HK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$roots/$name

packages=(
  build-essential cmake pkg-config git
  pocl-opencl-icd libpocl-dev ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers clinfo
  libhwloc-dev libgtest-dev libbenchmark-dev nlohmann-json3-dev valgrind clpeak
  "clang-$llvm" "llvm-$llvm-dev" "llvm-spirv-$llvm" "libllvmspirvlib-$llvm-dev"
)

source "$repo/scripts/lib/root-guard.sh"

mkdir -p "$roots"
exec {lock}>"$root.lock"
if ! flock -n "$lock"; then
  echo "debian-root: waiting for another run in $root" >&2
  flock "$lock"
fi
# While the lock is held the root is this run's: mounts and processes found in it now
# were left by a run killed with SIGKILL. The processes end now, the mounts at exit.
hk_kill_in_root "$root"
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  hk_stop_child
  hk_unmount_under "$root"
  exit "$status"
}
trap cleanup EXIT
# On a signal the command and whatever still runs inside the root end before unmounting.
on_signal() {
  hk_stop_child
  hk_kill_in_root "$root"
  exit "$1"
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

# A root is complete once dpkg has configured apt in it; debootstrap unpacks apt long
# before that, so a root left by an interrupted debootstrap is made again.
complete() {
  [[ -x $root/usr/bin/dpkg-query ]] &&
    chroot "$root" dpkg-query -W -f='${Status}' apt 2>/dev/null | grep -q "install ok installed"
}
if ! complete; then
  echo "debian-root: debootstrap $name into $root" >&2
  hk_unmount_under "$root"
  hk_run nice -n 19 debootstrap --variant=minbase "$name" "$root" "$mirror"
fi

# /dev/pts separately: a bind mount of /dev does not carry its sub-mounts, and apt's
# package scripts want a pseudo-terminal.
for fs in proc sys dev dev/pts; do
  mkdir -p "$root/$fs"
  mountpoint -q "$root/$fs" || mount --bind "/$fs" "$root/$fs"
done
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# sid's Release file as served by some mirrors and caches is past its Valid-Until date;
# apt refuses it unless told otherwise.
if [[ $name == sid ]]; then
  echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99hk-no-valid-until"
fi

# The lock stays with this script: a daemon started inside must not hold it.
in_root() { hk_run chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
  LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@" {lock}>&-; }

missing=()
for p in "${packages[@]}"; do
  in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "debian-root: installing ${missing[*]}" >&2
  in_root apt-get update -q
  in_root nice -n 19 apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

in_root dpkg-query -W -f='${Package} ${Version}\n' pocl-opencl-icd ocl-icd-libopencl1 \
  "clang-$llvm" "libllvmspirvlib-$llvm-dev" >&2

if [[ $# -gt 0 ]]; then
  in_root "$@"
fi
