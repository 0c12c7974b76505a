#!/usr/bin/env python3
"""backend_ifs_check - keeps the runtime's backend #ifs in backend files.

usage: backend_ifs_check.py SOURCE_ROOT

- src/runtime/exchange.c, the exchange's backend-neutral half, neither
  tests a build's libraries (#if CK_HAVE_...) nor names a backend
  (CK_BACKEND_...). Its transports' files do, each built only where its
  library is found.
- Elsewhere in src/runtime, only the files in ALLOWED hold a
  conditional on CK_HAVE_. A file listed that holds none fails too, so
  the list stays exact.
"""
import os
import re
import sys

# The runtime's files that may hold #if CK_HAVE_..., and why.
ALLOWED = {
    "backend.h": "declares the CUDA backend's table where it is built",
    "device.c": "lists CUDA devices where CUDA is built",
    "queue.c": "finds the CUDA backend's table where it is built",
    "runtime.h": "declares CUDA's helpers where it is built",
    "exchange_backend.h": "names the exchange's transports that are built",
}
NEUTRAL = "exchange.c"

CONDITIONAL = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef)\b")


def lines_of(path):
    with open(path, encoding="utf-8") as source:
        return source.read().splitlines()


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    runtime = os.path.join(sys.argv[1], "src", "runtime")
    failures = []
    holding = set()
    for name in sorted(os.listdir(runtime)):
        if not name.endswith((".c", ".h", ".cu")):
            continue
        path = os.path.join("src", "runtime", name)
        for number, line in enumerate(lines_of(os.path.join(runtime, name)),
                                      1):
            where = "%s:%d: %s" % (path, number, line.strip())
            if name == NEUTRAL and "CK_BACKEND_" in line:
                failures.append(where + "  (a backend named in the "
                                "exchange's neutral half)")
            if CONDITIONAL.match(line) and "CK_HAVE_" in line:
                holding.add(name)
                if name not in ALLOWED:
                    failures.append(where + "  (a backend #if outside the "
                                    "backend files)")
    for name in sorted(set(ALLOWED) - holding):
        failures.append("src/runtime/%s: listed in ALLOWED but holds no "
                        "#if on CK_HAVE_ (remove it from the list)" % name)
    for failure in failures:
        print("FAIL:", failure)
    if not failures:
        print("backend #ifs only in: " + ", ".join(sorted(holding)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
