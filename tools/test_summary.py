#!/usr/bin/env python3
"""Prints 'N passed, N failed[, N skipped]' from meson's test log.

usage: test_summary.py BUILD_DIR/meson-logs/testlog.json
Exits 1 when any test failed (or none ran), 0 otherwise.
"""
import json
import sys

PASSED = {"OK", "EXPECTEDFAIL"}
SKIPPED = {"SKIP"}


def main() -> int:
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    passed = failed = skipped = 0
    try:
        with open(sys.argv[1], encoding="utf-8") as log:
            for line in log:
                line = line.strip()
                if not line:
                    continue
                result = json.loads(line).get("result", "ERROR")
                if result in PASSED:
                    passed += 1
                elif result in SKIPPED:
                    skipped += 1
                else:
                    failed += 1
    except OSError as error:
        sys.stderr.write("test_summary: %s\n" % error)
        failed += 1
    summary = "%d passed, %d failed" % (passed, failed)
    if skipped:
        summary += ", %d skipped" % skipped
    print(summary)
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
