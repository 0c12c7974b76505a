#!/usr/bin/env python3
"""aco_methods - the gap of ACO runs at given times, by device and method.

Reads the traces that `bench/aco_quality.py --traces DIR` keeps (NAME.csv
and NAME.json a run) from directories named DEVICE-CONFIG-sSEED, and
prints a Markdown table: for each instance, device and configuration, the
mean gap to the optimum at each time over the seeds, with the smallest
and largest. This is how `--method auto`'s bounds are chosen.

    python3 bench/aco_methods.py --optima DATA/optima.txt --at 10,30,60
        DIR [DIR ...]

A trace that ends before a time has no gap there (shown as "-").
"""
import argparse
import csv
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aco_quality import optima_of, read_trace  # noqa: E402


def gap_at(points, optimum, seconds, ran):
    """The best tour's gap in percent at `seconds`, or None past the run."""
    if seconds > ran + 1e-9:
        return None
    seen = [length for t, length in points if t <= seconds]
    return (min(seen) - optimum) / optimum * 100 if seen else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--optima", required=True)
    parser.add_argument("--at", required=True,
                        help="comma-separated seconds, such as 10,30,60")
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    times = [float(word) for word in args.at.split(",")]
    optima = optima_of(args.optima)
    gaps = {}  # (instance, device, config) -> [[gap at each time], ...]
    for folder in args.dirs:
        match = re.fullmatch(r"([^-]+)-(.+)-s(\d+)",
                             os.path.basename(os.path.normpath(folder)))
        if not match:
            sys.exit(f"{folder}: not named DEVICE-CONFIG-sSEED")
        device, config = match.group(1), match.group(2)
        for entry in sorted(os.listdir(folder)):
            if not entry.endswith(".csv"):
                continue
            name = entry[:-4]
            if name not in optima:
                sys.exit(f"{args.optima}: no optimum for {name}")
            with open(os.path.join(folder, name + ".json"),
                      encoding="utf-8") as handle:
                ran = json.load(handle)["options"]["time"]
            points = read_trace(os.path.join(folder, entry))
            gaps.setdefault((name, device, config), []).append(
                [gap_at(points, optima[name], t, ran) for t in times])
    header = ["instance", "device", "configuration", "runs"] + \
        [f"gap at {t:g} s" for t in times]
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join("---" for _ in header) + " |"]
    for (name, device, config), runs in sorted(
            gaps.items(), key=lambda item: (optima[item[0][0]], item[0])):
        cells = [name, device, config, str(len(runs))]
        for column in range(len(times)):
            values = [run[column] for run in runs if run[column] is not None]
            if len(values) < len(runs) or not values:
                cells.append("-")
            elif len(values) == 1:
                cells.append(f"{values[0]:.3f}%")
            else:
                cells.append(f"{statistics.mean(values):.3f}% "
                             f"({min(values):.3f}-{max(values):.3f})")
        lines.append("| " + " | ".join(cells) + " |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
