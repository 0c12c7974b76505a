#!/usr/bin/env python3
"""Prints the names of the tests in a meson testlog.json that failed only
because LeakSanitizer's own tracer crashed as the process exited (a known,
intermittent fault of the sanitizer runtime, not of the code under test):
their checks all passed, and nothing reported a leak or an error. Exits 1,
printing why, if any failed test does not fit, or none failed. Usage:

    python3 .ci/lsan_tracer_crashes.py BUILD/meson-logs/testlog.json
"""
import json
import re
import sys

PASSED = {"OK", "SKIP", "EXPECTEDFAIL"}
CRASH = ("Tracer caught signal", "LeakSanitizer has encountered a fatal error")
REAL = ("detected memory leaks", "ERROR: AddressSanitizer", "runtime error:")


def main():
    names = []
    with open(sys.argv[1]) as log:
        for line in log:
            test = json.loads(line)
            if test["result"] in PASSED:
                continue
            text = (test.get("stdout") or "") + (test.get("stderr") or "")
            checks = re.findall(r"^\d+ checks, (\d+) failed$", text, re.M)
            if (all(c in text for c in CRASH) and
                    not any(r in text for r in REAL) and checks and
                    checks[-1] == "0"):
                names.append(test["name"])
            else:
                print(f"{test['name']}: failed on its own account",
                      file=sys.stderr)
                return 1
    if not names:
        print("no failed test", file=sys.stderr)
        return 1
    print(" ".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
