#!/usr/bin/env python3
"""Prints the names of the tests in a meson testlog.json that failed only
by a known, intermittent fault of the sanitizers' runtime, not of the
code under test. Exits 1, printing why, if any failed test does not fit, or
none failed. Usage:

    python3 .ci/runtime_faults.py BUILD/meson-logs/testlog.json

The fault: LeakSanitizer's own tracer crashed as the process exited,
while the test's checks all passed and nothing reported a leak or an
error. (PoCL 3.1's assertion in pocl_release_dlhandle_cache, once seen
here, is clkit's to avoid: src/runtime/queue_opencl.c gates its kernels.)
"""
import json
import re
import sys

PASSED = {"OK", "SKIP", "EXPECTEDFAIL"}
TRACER = ("Tracer caught signal", "LeakSanitizer has encountered a fatal error")
REAL = ("detected memory leaks", "ERROR: AddressSanitizer", "runtime error:")


def runtime_fault(text):
    """Whether a failed test's output shows the fault above."""
    if any(r in text for r in REAL):
        return False
    checks = re.findall(r"^\d+ checks, (\d+) failed$", text, re.M)
    return all(c in text for c in TRACER) and checks and checks[-1] == "0"


def main():
    names = []
    with open(sys.argv[1]) as log:
        for line in log:
            test = json.loads(line)
            if test["result"] in PASSED:
                continue
            text = (test.get("stdout") or "") + (test.get("stderr") or "")
            if runtime_fault(text):
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
