#!/usr/bin/env python3
"""aco_quality - time to quality of the ACO on TSPLIB instances.

Runs `clkit run aco --instance FILE --time T --trace TRACE --json` on
each instance, with the defaults unless OPTIONS are given, and reads the
trace (time_s, iteration, best_length). Prints a Markdown table of the
seconds each run took to come within 2%, 1%, 0.5% and 0.25% of the
instance's optimum (from the optima file), and writes an SVG plot of the
gap against time, with the published anchors drawn as points.

    python3 bench/aco_quality.py CLKIT --device SEL --time T
        --optima DATA/optima.txt [--reference FILE] [--traces DIR]
        [--replay DIR] [--out TABLE.md] [--svg PLOT.svg]
        FILE.tsp|random:N [...] [-- OPTIONS...]

An instance without a known optimum (random:N) is measured against a
reference length from --reference (`name : length` lines, such as the
lengths of LKH's tours kept in bench/aco_reference.txt); its row says so.
--traces keeps each run's trace as DIR/NAME.csv with its result as
DIR/NAME.json; --replay reads them back instead of running clkit.

The anchors are the figures the sources report, not runs made here:
ACOTSP (MMAS with 3-opt, one CPU core), Focused ACO (Skinderowicz 2022,
8 cores) and LKH (one core).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

GAPS = (2.0, 1.0, 0.5, 0.25)

# (instance, seconds, gap in percent, who): figures from the sources.
ANCHORS = [
    ("pr2392", 16.7, 1.0, "ACOTSP, 1 core"),
    ("pr2392", 83.0, 0.0, "LKH, 1 core"),
    ("d15112", 74.0, 0.47, "Focused ACO, 8 cores"),
    ("d15112", 85.0, 0.04, "LKH, 1 core"),
]


def optima_of(path):
    """NAME : LENGTH lines; other lines are skipped."""
    found = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            name, _, rest = line.partition(":")
            words = rest.split()
            if words and words[0].isdigit():
                found[name.strip()] = int(words[0])
    return found


def read_trace(path):
    with open(path, encoding="utf-8") as handle:
        return [(float(row["time_s"]), int(row["best_length"]))
                for row in csv.DictReader(handle)]


def run(clkit, device, seconds, instance, extra, traces=None, name=None):
    with tempfile.TemporaryDirectory() as scratch:
        trace = os.path.join(scratch, "trace.csv")
        command = [clkit, "run", "aco", "--instance", instance, "--device",
                   device, "--time", str(seconds), "--trace", trace,
                   "--json", "--quiet"] + extra
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n"
                     f"{done.stderr}")
        result = json.loads([line for line in done.stdout.splitlines()
                             if line.startswith("{")][-1])
        points = read_trace(trace)
        if traces:
            os.makedirs(traces, exist_ok=True)
            with open(os.path.join(traces, name + ".csv"), "w",
                      encoding="utf-8") as handle, open(trace,
                                                        encoding="utf-8") as src:
                handle.write(src.read())
            with open(os.path.join(traces, name + ".json"), "w",
                      encoding="utf-8") as handle:
                json.dump(result, handle)
                handle.write("\n")
    return result, points


def first_within(points, optimum, gap):
    for seconds, length in points:
        if (length - optimum) / optimum * 100 <= gap + 1e-12:
            return seconds
    return None


def svg_plot(series, anchors, path):
    """Gap (log scale) against time (log scale), one line a run."""
    width, height, left, bottom, top, right = 720, 440, 70, 50, 20, 190
    times = [t for _, points in series for t, _ in points] + \
        [t for _, t, _, _ in anchors]
    gaps = [g for _, points in series for _, g in points if g > 0] + \
        [g for _, _, g, _ in anchors if g > 0]
    t0, t1 = math.log10(min(times)), math.log10(max(times))
    g0, g1 = math.log10(max(min(gaps), 0.01)), math.log10(max(gaps))
    t1, g1 = max(t1, t0 + 1), max(g1, g0 + 1)

    def x(seconds):
        return left + (math.log10(seconds) - t0) / (t1 - t0) * \
            (width - left - right)

    def y(gap):
        gap = max(gap, 10 ** g0)
        return top + (g1 - math.log10(gap)) / (g1 - g0) * \
            (height - top - bottom)

    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
             f'height="{height}" font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>']
    for k in range(math.floor(t0), math.ceil(t1) + 1):
        if t0 <= k <= t1:
            parts.append(f'<line x1="{x(10 ** k):.1f}" y1="{top}" '
                         f'x2="{x(10 ** k):.1f}" y2="{height - bottom}" '
                         f'stroke="#ddd"/><text x="{x(10 ** k):.1f}" '
                         f'y="{height - bottom + 16}" text-anchor="middle">'
                         f'{10 ** k:g}</text>')
    for k in range(math.floor(g0), math.ceil(g1) + 1):
        if g0 <= k <= g1:
            parts.append(f'<line x1="{left}" y1="{y(10 ** k):.1f}" '
                         f'x2="{width - right}" y2="{y(10 ** k):.1f}" '
                         f'stroke="#ddd"/><text x="{left - 6}" '
                         f'y="{y(10 ** k) + 4:.1f}" text-anchor="end">'
                         f'{10 ** k:g}%</text>')
    parts.append(f'<text x="{(left + width - right) / 2}" '
                 f'y="{height - 12}" text-anchor="middle">seconds</text>')
    parts.append(f'<text x="16" y="{(top + height - bottom) / 2}" '
                 f'transform="rotate(-90 16 {(top + height - bottom) / 2})" '
                 f'text-anchor="middle">gap to the optimum</text>')
    legend = top + 10
    for i, (label, points) in enumerate(series):
        colour = colours[i % len(colours)]
        path_points = " ".join(f"{x(t):.1f},{y(g):.1f}" for t, g in points)
        parts.append(f'<polyline points="{path_points}" fill="none" '
                     f'stroke="{colour}" stroke-width="1.5"/>')
        parts.append(f'<text x="{width - right + 10}" y="{legend}" '
                     f'fill="{colour}">{label}</text>')
        legend += 16
    for name, seconds, gap, who in anchors:
        parts.append(f'<circle cx="{x(seconds):.1f}" cy="{y(gap):.1f}" '
                     f'r="4" fill="black"/><text x="{x(seconds) + 6:.1f}" '
                     f'y="{y(gap) - 6:.1f}">{name}: {who}</text>')
    parts.append("</svg>")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(parts) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("clkit")
    parser.add_argument("instances", nargs="+")
    parser.add_argument("--device", required=True)
    parser.add_argument("--time", type=float, required=True)
    parser.add_argument("--optima", required=True)
    parser.add_argument("--reference")
    parser.add_argument("--traces")
    parser.add_argument("--replay")
    parser.add_argument("--out")
    parser.add_argument("--svg")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    extra = argv[cut + 1:]
    optima = optima_of(args.optima)
    references = optima_of(args.reference) if args.reference else {}
    rows, series, names = [], [], set()
    for instance in args.instances:
        if instance.startswith("random:"):
            name = "random" + instance[7:]
        else:
            name = os.path.splitext(os.path.basename(instance))[0]
        if name in optima:
            optimum, shown = optima[name], f"{optima[name]}"
        elif name in references:
            optimum = references[name]
            shown = f"{optimum} (reference)"
        else:
            sys.exit(f"{args.optima}: no optimum for {name}"
                     f"{'' if args.reference else ' (and no --reference)'}")
        if args.replay:
            with open(os.path.join(args.replay, name + ".json"),
                      encoding="utf-8") as handle:
                result = json.load(handle)
            points = read_trace(os.path.join(args.replay, name + ".csv"))
        else:
            result, points = run(args.clkit, args.device, args.time, instance,
                                 extra, args.traces, name)
        reached = [first_within(points, optimum, gap) for gap in GAPS]
        final = (result["best"] - optimum) / optimum * 100
        rows.append([name, shown, f"{result['best']:.0f}",
                     f"{final:.3f}%", str(result.get("iterations", "-"))] +
                    [f"{s:.2f}" if s is not None else "-" for s in reached])
        series.append((f"{name} on {args.device}",
                       [(t, (length - optimum) / optimum * 100)
                        for t, length in points]))
        names.add(name)
        print(rows[-1], flush=True)
    header = ["instance", "optimum", "length", "gap", "iterations"] + \
        [f"s to {gap:g}%" for gap in GAPS]
    lines = [f"# aco on {args.device}, --time {args.time:g}"
             f"{' ' + ' '.join(extra) if extra else ''}",
             "| " + " | ".join(header) + " |",
             "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")
    if args.svg:
        svg_plot(series, [a for a in ANCHORS if a[0] in names], args.svg)


if __name__ == "__main__":
    main()
