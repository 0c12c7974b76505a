#!/usr/bin/env python3
"""clkit peak against clpeak on one OpenCL device.

Runs Debian's `clpeak` (package clpeak) and `clkit peak --json --refresh`
on the same device, alternately, --repeat times (default 3), and prints
the median of each measure and clkit's ratio to clpeak's:

- read bandwidth: clpeak's global memory bandwidth, the best of its
  widths (float to float16), against clkit's read;
- FP32 and FP64: clpeak's single- and double-precision compute, the best
  of its widths, against clkit's fp32_chain and fp64_chain, which run
  their multiply-adds as clpeak does (one dependent chain a work-item);
- each width of those, side by side;
- for information: clkit's fp32 and fp64 (independent accumulators, the
  peaks) against clpeak's compute: equal on GPUs, several times it on
  CPUs, whose cores wait on each link of clpeak's chains;
- for information: transfers (clpeak's blocking enqueueWriteBuffer and
  enqueueReadBuffer against h2d and d2h) and launch latency, whose
  definitions differ; clkit's copy and write, which clpeak does not
  measure.

The goal is a ratio within 15% of 1 on a CPU (PoCL) and within 10% on a
GPU, for read, fp32_chain and fp64_chain. clkit ocl:P.D is clpeak's -p P
-d D: both list platforms and devices in the ICD loader's order. With
--check, the exit status is 1 where a ratio misses the goal (--goal F
sets its tolerance). Usage:

    python3 bench/peak_vs_clpeak.py CLKIT [--device ocl:P.D] [--repeat N]
        [--clpeak PATH] [--out FILE] [--check] [--goal F]
"""
import argparse
import json
import re
import statistics
import subprocess
import sys

# clpeak's section titles, by the key used here.
SECTIONS = {
    "Global memory bandwidth": "read",
    "Single-precision compute": "fp32",
    "Double-precision compute": "fp64",
    "Transfer bandwidth": "transfer",
}
WIDTHS = ["1", "2", "4", "8", "16"]
# clpeak's width names, by the lanes they hold.
WIDTH_OF = {"float": "1", "double": "1"}
for lanes in WIDTHS[1:]:
    WIDTH_OF["float" + lanes] = lanes
    WIDTH_OF["double" + lanes] = lanes


def run_clpeak(clpeak, platform, device):
    """clpeak's figures: {"read": {"1": x, ...}, "fp32": ..., "fp64": ...,
    "transfer": {"enqueueWriteBuffer": x, ...}, "launch": us}."""
    command = [clpeak, "-p", str(platform), "-d", str(device),
               "--global-bandwidth", "--compute-sp", "--compute-dp",
               "--transfer-bandwidth", "--kernel-latency"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("clpeak failed: " + (done.stderr or done.stdout).strip())
    figures = {key: {} for key in SECTIONS.values()}
    section = None
    for line in done.stdout.splitlines():
        text = line.strip()
        title = next((key for title, key in SECTIONS.items()
                      if text.startswith(title)), None)
        if title:
            section = title
            continue
        latency = re.match(r"Kernel launch latency\s*:\s*([0-9.]+)", text)
        if latency:
            figures["launch"] = float(latency.group(1))
            continue
        pair = re.match(r"(.+?)\s*:\s*([0-9.]+)$", text)
        if not pair or not section:
            continue
        name = pair.group(1).strip()
        value = float(pair.group(2))
        if section == "transfer":
            figures["transfer"][name] = value
        elif name in WIDTH_OF:
            figures[section][WIDTH_OF[name]] = value
    return figures


def run_clkit(clkit, device):
    command = [clkit, "peak", "--device", device, "--json", "--refresh"]
    done = subprocess.run(command, capture_output=True, text=True)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit("clkit peak failed: " + done.stderr.strip())
    row = report["devices"][0]
    if row.get("error"):
        sys.exit("clkit peak failed on %s: %s" % (device, row["error"]))
    return row["metrics"]


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def text(value):
    return "-" if value is None else "%.2f" % value


def main():
    parser = argparse.ArgumentParser(
        description="clkit peak against clpeak on one OpenCL device")
    parser.add_argument("clkit")
    parser.add_argument("--device", help="an OpenCL device, ocl:P.D "
                        "(default: the first one listed)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clpeak", default="clpeak")
    parser.add_argument("--out")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 where a ratio misses the goal")
    parser.add_argument("--goal", type=float,
                        help="the tolerance of the ratios (default 0.15 "
                        "on CPUs, 0.10 on GPUs)")
    options = parser.parse_args()
    if options.repeat < 1:
        parser.error("--repeat must be at least 1")

    listed = json.loads(subprocess.run(
        [options.clkit, "devices", "--json"], capture_output=True, text=True,
        check=True).stdout)["devices"]
    opencl = [d for d in listed if d["id"].startswith("ocl:")]
    chosen = [d for d in opencl
              if options.device in (None, d["id"])][:1]
    if not chosen:
        sys.exit("no OpenCL device %s among %s" % (
            options.device or "", [d["id"] for d in listed]))
    device = chosen[0]
    platform, index = device["id"][4:].split(".")
    goal = 0.10 if device["kind"] == "gpu" else 0.15
    if options.goal is not None:
        if not 0 < options.goal < 1:
            parser.error("--goal must be between 0 and 1")
        goal = options.goal

    clpeak_runs, clkit_runs = [], []
    for _ in range(options.repeat):
        clpeak_runs.append(run_clpeak(options.clpeak, platform, index))
        clkit_runs.append(run_clkit(options.clkit, device["id"]))

    def clkit_value(metric, width=None):
        values = []
        for run in clkit_runs:
            entry = run[metric]
            if entry["state"] != "measured":
                values.append(None)
            elif width is None:
                values.append(entry["value"])
            else:
                values.append((entry["widths"] or {}).get(width))
        return median(values)

    def clpeak_value(section, width=None):
        values = []
        for run in clpeak_runs:
            figures = run.get(section) or {}
            if width is not None:
                values.append(figures.get(width))
            else:
                values.append(max(figures.values()) if figures else None)
        return median(values)

    lines = ["%s (%s), medians of %d alternating runs each; goal: within "
             "%d%%" % (device["id"], device["name"], options.repeat,
                       round(goal * 100)),
             "%-26s %10s %10s %8s %s" % ("measure", "clkit", "clpeak",
                                         "ratio", "within goal")]
    compared = (("read", "read", "GB/s"),
                ("fp32_chain", "fp32", "GFLOP/s"),
                ("fp64_chain", "fp64", "GFLOP/s"))
    missed = []
    for metric, section, unit in compared:
        ours, theirs = clkit_value(metric), clpeak_value(section)
        ratio = ours / theirs if ours and theirs else None
        within = ratio is not None and abs(ratio - 1) <= goal
        if not within:
            missed.append(metric)
        lines.append("%-26s %10s %10s %8s %s" % (
            "%s %s" % (metric, unit), text(ours), text(theirs), text(ratio),
            "yes" if within else "no"))
    lines.append("")
    lines.append("each width (lanes), clkit / clpeak:")
    for metric, section, _ in compared:
        cells = []
        for width in WIDTHS:
            ours, theirs = clkit_value(metric, width), clpeak_value(section,
                                                                    width)
            cells.append("%s: %s/%s" % (width, text(ours), text(theirs)))
        lines.append("  %-10s %s" % (metric, "  ".join(cells)))
    lines.append("")
    lines.append("for information (definitions differ, or clpeak has none):")
    for metric in ("fp32", "fp64"):
        ours, theirs = clkit_value(metric), clpeak_value(metric)
        lines.append("  %-28s %10s %10s  (ratio %s; independent "
                     "accumulators)" % (metric + " GFLOP/s", text(ours),
                                        text(theirs),
                                        text(ours / theirs if ours and theirs
                                             else None)))
    transfers = (("host_to_device", "enqueueWriteBuffer"),
                 ("device_to_host", "enqueueReadBuffer"))
    for metric, name in transfers:
        theirs = median([run["transfer"].get(name) for run in clpeak_runs])
        lines.append("  %-28s %10s %10s  (clpeak %s)" % (
            metric + " GB/s", text(clkit_value(metric)), text(theirs), name))
    lines.append("  %-28s %10s %10s" % (
        "launch us", text(clkit_value("launch")),
        text(median([run.get("launch") for run in clpeak_runs]))))
    for metric in ("write", "copy", "host_to_device_pinned",
                   "device_to_host_pinned"):
        lines.append("  %-28s %10s %10s" % (metric + " GB/s",
                                            text(clkit_value(metric)), "-"))
    report = "\n".join(lines)
    print(report)
    if options.out:
        with open(options.out, "w") as out:
            out.write(report + "\n")
    if options.check and missed:
        print("missed the goal: %s" % ", ".join(missed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
