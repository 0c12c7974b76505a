#!/usr/bin/env python3
"""The README's commands, run as a user types them, in order.

Usage: readme_check.py README.md BUILD_DIR SOURCE_DIR

The block under "Using the command line" runs line by line in an empty
directory that holds `build` (the build directory) and `examples` (the
repository's) beside each other, as the repository root does. Every
command must exit 0. Before any runs, every input a command names must
come with the repository or be written by a command before it. A file a
line's comment counts ("> rows.csv   # 5 rows") must hold that many rows,
and a prediction (--predict ROWS --out CLASSES) one class a row.
Skips (exit 77) where no PoCL device is listed: the block names one.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time


def commands(readme):
    """The lines of the first sh block after "## Using the command line"."""
    with open(readme, encoding="utf-8") as handle:
        text = handle.read()
    section = text.split("## Using the command line", 1)
    if len(section) != 2:
        sys.exit("README has no 'Using the command line' section")
    block = re.search(r"```sh\n(.*?)```", section[1], re.S)
    if not block:
        sys.exit("README's 'Using the command line' has no sh block")
    return [line for line in block.group(1).splitlines() if line.strip()]


def words(line):
    """The words of a command, its comment left out."""
    return shlex.split(line, comments=True)


# Options whose value is a file the command reads.
READS = {"--optima", "--train", "--test", "--load", "--predict", "--data",
         "--restart", "--xyz", "--objective"}
# Options and redirections whose value is a file the command writes.
WRITES = {"--out", "--coef", "--tour-out", "--save", "--rdf", "--png",
          "--checkpoint", "--traj", "--thermo", "--trace", "--svg", ">"}


def check_inputs(lines, source):
    """Every file a command reads exists in the repository or was written
    by an earlier command: a fresh clone has nothing else."""
    written = set()
    failures = []
    for number, line in enumerate(lines, 1):
        tokens = words(line)
        reads = []
        for i, token in enumerate(tokens[:-1]):
            if token in READS:
                reads.append(tokens[i + 1])
            if token in WRITES:
                written.add(tokens[i + 1])
        # Positional inputs: an instance, a tour, cut's file.
        reads += [t for t in tokens if re.search(r"\.(tsp|tour|data)$", t)]
        for path in reads:
            if path in written or path.startswith(("random:", "spirals:")):
                continue
            if not os.path.exists(os.path.join(source, path)):
                failures.append(f"line {number}: '{path}' is neither in the "
                                f"repository nor written before: {line}")
        written.update(t for t in tokens if t.endswith(".tour"))
    return failures


# A comment that counts the rows of what its line writes.
ROWS = re.compile(r"#.*?\b(\d+) rows?\b")


def lines_of(path):
    """A file's lines, or None where it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().splitlines()
    except OSError:
        return None


def check_counts(number, line, root, counted):
    """What a line that ran wrote: as many rows as its comment says (noted
    in counted, by file), and a class for each row it predicted."""
    failures = []
    tokens = words(line)
    said = ROWS.search(line)
    if said and ">" in tokens[:-1]:
        target = tokens[tokens.index(">") + 1]
        counted[target] = int(said.group(1))
        rows = lines_of(os.path.join(root, target)) or []
        blank = sum(1 for row in rows if not row.strip())
        if len(rows) != counted[target] or blank:
            failures.append(f"line {number}: {target} holds {len(rows)} "
                            f"lines, {blank} of them blank, not the "
                            f"{counted[target]} rows its comment says: "
                            f"{line}")
    if "--predict" in tokens[:-1] and "--out" in tokens[:-1]:
        source = tokens[tokens.index("--predict") + 1]
        out = tokens[tokens.index("--out") + 1]
        rows = [row for row in lines_of(os.path.join(root, source)) or []
                if row.strip()]
        want = counted.get(source, len(rows))
        classes = lines_of(os.path.join(root, out))
        if classes is None or len(classes) != want or want == 0:
            failures.append(f"line {number}: {out} holds "
                            f"{len(classes or [])} predictions for the "
                            f"{want} rows of {source}: {line}")
    return failures


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    readme, build, source = (os.path.abspath(a) for a in sys.argv[1:])
    lines = commands(readme)
    failures = check_inputs(lines, source)
    clkit = os.path.join(build, "tools", "clkit")
    listed = subprocess.run([clkit, "devices"], capture_output=True,
                            text=True, check=False)
    if "Portable Computing Language" not in listed.stdout:
        for failure in failures:
            print(failure, file=sys.stderr)
        print("SKIP: no PoCL device, which the README's commands name")
        return 1 if failures else 77
    with tempfile.TemporaryDirectory(prefix="clkit-readme-") as root:
        os.symlink(build, os.path.join(root, "build"))
        os.symlink(os.path.join(source, "examples"),
                   os.path.join(root, "examples"))
        counted = {}
        for number, line in enumerate(lines, 1):
            started = time.monotonic()
            run = subprocess.run(["bash", "-c", "set -o pipefail; " + line],
                                 cwd=root, capture_output=True, text=True,
                                 stdin=subprocess.DEVNULL, check=False)
            seconds = time.monotonic() - started
            print(f"{number:2d} exit {run.returncode} {seconds:6.1f} s  "
                  f"{line}")
            if run.returncode != 0:
                failures.append(f"line {number} exited {run.returncode}: "
                                f"{line}\n{run.stderr}")
            else:
                failures += check_counts(number, line, root, counted)
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
