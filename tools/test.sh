#!/bin/sh
# Builds clkit and runs the whole test suite. Ends with the line
# "N passed, N failed" (", N skipped" when tests skipped) and exits
# non-zero if any test failed.
#
#   BUILD_DIR   build directory (default: build)
#   MESON_ARGS  extra arguments for the first `meson setup`
set -eu
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086
  meson setup "$build" ${MESON_ARGS:-}
fi
ninja -C "$build"
status=0
meson test -C "$build" --print-errorlogs --num-processes 2 ${MESON_TEST_ARGS:-} || status=$?
python3 tools/test_summary.py "$build/meson-logs/testlog.json" || status=1
exit "$status"
