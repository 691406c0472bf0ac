#!/usr/bin/env bash
# The Debian package end to end, as root on Debian 12 (as CI runs it): builds
# build/hostkernel_<version>_amd64.deb (cpack -G DEB), installs it with apt-get, runs
# hostkernel-run clinfo and the installed examples (scripts/test-installed.sh /usr),
# removes it again and checks that none of its files is left. Idempotent: a hostkernel
# package left installed by an earlier run is removed first.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "test-package.sh: needs root (apt-get install, apt-get remove)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive

# Installed, or removed with its maintainer scripts still recorded (state "rc").
known() { dpkg-query -W -f='${db:Status-Abbrev}' hostkernel 2>/dev/null | grep -q '^[a-z][a-z]'; }
if known; then
  echo "== purging the hostkernel package left by an earlier run"
  apt-get purge -y -q hostkernel
fi

echo "== building the package"
bash scripts/setup.sh
bash scripts/build.sh
(cd build && cpack -G DEB) >build/cpack.log 2>&1 || { cat build/cpack.log; exit 1; }
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' build/CMakeCache.txt)
deb=build/hostkernel_${version}_amd64.deb
dpkg-deb -I "$deb"

echo "== installing $deb"
# Whatever fails from here on, the package does not stay installed.
trap 'if known; then apt-get purge -y -q hostkernel >/dev/null; fi' EXIT
apt-get install -y -q "./$deb"
mapfile -t files < <(dpkg -L hostkernel)

echo "== using the installed package"
hostkernel-run --report clinfo -l
bash scripts/test-installed.sh /usr

echo "== removing it"
apt-get remove -y -q hostkernel
left=()
for f in "${files[@]}"; do
  # A directory may stay if another package owns it too (/usr/lib, /usr/share/doc, ...).
  if [ -d "$f" ] && dpkg-query -S "$f" >/dev/null 2>&1; then continue; fi
  if [ -e "$f" ] || [ -L "$f" ]; then left+=("$f"); fi
done
if [ ${#left[@]} -gt 0 ]; then
  printf 'left after apt-get remove: %s\n' "${left[@]}" >&2
  exit 1
fi
# Only dpkg's record of the package's maintainer scripts is left: purge it too.
dpkg --purge hostkernel >/dev/null
if known; then
  echo "test-package: dpkg still knows the hostkernel package" >&2
  exit 1
fi
echo "test-package: ${#files[@]} paths installed, all removed again"
