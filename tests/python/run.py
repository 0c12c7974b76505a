#!/usr/bin/env python3
"""The Python package's tests (pytest) against the build tree.

Usage: run.py SANITIZE [PYTEST ARGS...]

SANITIZE is the build's b_sanitize. PYTHONPATH must name the build tree's
python/ directory, which holds the package beside its extension, and
CLKIT_EXE the built command. Skips (exit 77) without pytest or NumPy, and
in a sanitized build: a sanitizer's runtime must be the first library a
process loads, which a plain Python never arranges, so such an extension
does not load (.ci/run checks the pip-installed package instead).
"""
import os
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] not in ("", "none"):
        print(f"skipped: a build with -Db_sanitize={sys.argv[1]}: its "
              f"extension cannot load into a Python without the sanitizer")
        return 77
    for module in ("pytest", "numpy"):
        try:
            __import__(module)
        except ImportError:
            print(f"skipped: {module} is not installed for {sys.executable}")
            return 77
    import pytest

    here = os.path.dirname(os.path.abspath(__file__))
    return pytest.main([here, "-q", "-p", "no:cacheprovider",
                        "--rootdir", here, *sys.argv[2:]])


if __name__ == "__main__":
    sys.exit(main())
