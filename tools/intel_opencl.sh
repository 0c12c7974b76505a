#!/bin/sh
# Installs Intel's OpenCL runtime for CPUs from PyPI (intel-opencl-rt,
# with intel-cmplr-lib-rt beside it) into a virtual environment, and
# registers it with the OpenCL ICD loader after the platforms already
# there, so that PoCL keeps ocl:0.0.
#
#   tools/intel_opencl.sh [--venv DIR] [--vendors DIR]
#
#   --venv DIR     the virtual environment (default:
#                  ~/.local/share/clkit/intel-opencl)
#   --vendors DIR  write the ICD files into DIR, a copy of the system's
#                  with Intel's added, and use it through
#                  OCL_ICD_VENDORS=DIR; without it the ICD file goes into
#                  /etc/OpenCL/vendors (as root)
#
# The ICD file is named zz-intel-cpu.icd: the loader lists platforms in
# the order of their files' names, so Intel's comes last.
set -eu
venv="${HOME}/.local/share/clkit/intel-opencl"
vendors=""
while [ $# -gt 0 ]; do
  case "$1" in
    --venv)
      [ $# -ge 2 ] || { echo "intel_opencl.sh: --venv needs a directory" >&2; exit 2; }
      venv=$2
      shift 2
      ;;
    --vendors)
      [ $# -ge 2 ] || { echo "intel_opencl.sh: --vendors needs a directory" >&2; exit 2; }
      vendors=$2
      shift 2
      ;;
    -h | --help)
      sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "intel_opencl.sh: unknown option '$1' (--venv DIR, --vendors DIR)" >&2
      exit 2
      ;;
  esac
done

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  intel-opencl-rt intel-cmplr-lib-rt
library=$(find "$(cd "$venv" && pwd)" -name libintelocl.so -print | head -n 1)
if [ -z "$library" ]; then
  echo "intel_opencl.sh: the wheel holds no libintelocl.so" >&2
  exit 1
fi

if [ -n "$vendors" ]; then
  mkdir -p "$vendors"
  for file in /etc/OpenCL/vendors/*.icd; do
    [ -e "$file" ] && cp "$file" "$vendors/"
  done
  target="$vendors/zz-intel-cpu.icd"
else
  mkdir -p /etc/OpenCL/vendors
  target=/etc/OpenCL/vendors/zz-intel-cpu.icd
fi
echo "$library" >"$target"
echo "registered $library in $target"
if [ -n "$vendors" ]; then
  echo "use it with: export OCL_ICD_VENDORS=$(cd "$vendors" && pwd)"
fi
