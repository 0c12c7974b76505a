#!/bin/sh
# Builds clkit and runs its tests, printing a line as each test ends. Ends
# with the line "N passed, N failed" (", N skipped" when tests skipped)
# and exits non-zero if any test failed.
#
#   ./tools/test.sh          every test
#   ./tools/test.sh --quick  the quick tier: unit tests and every workload
#                            on ref and PoCL, small (meson's suite "quick")
#
#   BUILD_DIR        build directory (default: build)
#   MESON_ARGS       extra arguments for the first `meson setup`
#   MESON_TEST_ARGS  extra arguments for `meson test`
set -eu
cd "$(dirname "$0")/.."
tier=""
tier_name="every test"
case "${1:-}" in
  --quick)
    tier="--suite quick"
    tier_name="the quick tier"
    ;;
  "") ;;
  -h | --help)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "test.sh: unknown option '$1' (--quick, or none)" >&2
    exit 2
    ;;
esac
build=${BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086
  meson setup "$build" ${MESON_ARGS:-}
fi
ninja -C "$build"
# shellcheck disable=SC2086
count=$(meson test -C "$build" --list $tier 2>/dev/null | grep -c . || true)
echo "== $tier_name: $count tests, two at a time; a line as each ends"
status=0
# shellcheck disable=SC2086
meson test -C "$build" --print-errorlogs --num-processes 2 $tier \
  ${MESON_TEST_ARGS:-} || status=$?
python3 tools/test_summary.py "$build/meson-logs/testlog.json" || status=1
exit "$status"
