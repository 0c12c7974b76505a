#!/bin/sh
# Installs what clkit needs on Debian or Ubuntu (when missing), builds it
# in ./build, runs `clkit demo` on the default device, and says where the
# manual is (`man clkit` finds it only once installed).
set -eu
cd "$(dirname "$0")/.."
packages="meson ninja-build pkg-config gcc python3 ocl-icd-opencl-dev \
opencl-c-headers pocl-opencl-icd clinfo zlib1g-dev libpng-dev"
missing=""
for package in $packages; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" ||
    missing="$missing $package"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi
if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release
fi
ninja -C build
status=0
./build/tools/clkit demo || status=$?
echo "The manual: man build/tools/clkit.1 (man clkit after meson install -C build)"
exit "$status"
