#!/usr/bin/env python3
"""scaling - a spread run's strong and weak scaling, in process and by MPI.

usage: scaling.py CLKIT --workload W --size-option NAME --size N
                  --devices A,B[,...] [--mpirun MPIRUN] [--repeat R]
                  [--out FILE] [--equal-shares] [-- OPTIONS...]

For k = 1, 2, 4, ... up to the number of devices given, runs W:
  - weak scaling: size k x N over the first k devices;
  - strong scaling: size K x N (K the device count) over the first k;
in process (`clkit run W --device A,B --spread`, and the one-device
run `--device A` without --spread as the base) and, with --mpirun, over
k processes (`mpirun -np k clkit run W --device SEL --spread`, each
process taking the GPU of its local rank). OPTIONS go to every run.
Each figure is the median throughput of R runs (default 3) after one
untimed run, as clkit reports it (the workload's own unit). Efficiency
is throughput over k times the one-device throughput (weak), or over k
times that of the same problem on one device (strong).
"""
import argparse
import json
import shlex
import statistics
import subprocess
import sys


TIMEOUT = None


def run(command):
    done = subprocess.run(command, capture_output=True, text=True,
                          timeout=TIMEOUT)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n"
                 f"{done.stderr}")
    lines = [line for line in done.stdout.splitlines()
             if line.startswith("{")]
    return json.loads(lines[-1])


def measure(command, repeat):
    run(command)
    results = [run(command) for _ in range(repeat)]
    best = statistics.median(r["throughput"] for r in results)
    return best, results[-1]


def main():
    parser = argparse.ArgumentParser(add_help=True)
    parser.add_argument("clkit")
    parser.add_argument("--workload", required=True)
    parser.add_argument("--size-option", required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--devices", required=True)
    parser.add_argument("--mpirun")
    parser.add_argument("--mpi-device", default=None,
                        help="the selector each process filters by "
                        "(default: the backend of the first device)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--equal-shares", action="store_true",
                        help="deal equal shares (--shares 1,1,...) rather "
                        "than by a probe of each device's speed")
    parser.add_argument("--out")
    parser.add_argument("--run-timeout", type=float, default=300,
                        help="seconds a run may take before it counts as "
                        "failed (default 300)")
    args, extra = parser.parse_known_args()
    if extra and extra[0] == "--":
        extra = extra[1:]
    global TIMEOUT
    TIMEOUT = args.run_timeout
    devices = args.devices.split(",")
    counts = [k for k in (1, 2, 4, 8, 16) if k <= len(devices)]
    mpi_device = args.mpi_device or devices[0].split(":")[0]
    base = [args.clkit, "run", args.workload, "--json", "--quiet"] + extra
    rows = []

    def size(n):
        return [f"--{args.size_option}", str(n)]

    single = {}
    for k in sorted({1, counts[-1]}):
        throughput, first = measure(base + size(k * args.size) +
                                ["--device", devices[0]], args.repeat)
        single[k] = throughput
        rows.append(("one device", "-", 1, k * args.size, throughput, 1.0, ""))
        print(rows[-1], flush=True)
    for mode in ["process"] + (["mpi"] if args.mpirun else []):
        for scaling in ("weak", "strong"):
            for k in counts:
                if k == 1 and scaling == "strong" and counts[-1] == 1:
                    continue
                n = k * args.size if scaling == "weak" else \
                    counts[-1] * args.size
                if mode == "process":
                    command = base + size(n) + [
                        "--device", ",".join(devices[:k]), "--spread"]
                else:
                    # One process alone takes every device it selects.
                    command = shlex.split(args.mpirun) + [
                        "--allow-run-as-root", "-np", str(k)] + base + size(n) + [
                        "--device", mpi_device if k > 1 else devices[0],
                        "--spread"]
                if args.equal_shares:
                    command += ["--shares", ",".join(["1"] * k)]
                try:
                    throughput, result = measure(command, args.repeat)
                except subprocess.TimeoutExpired:
                    rows.append((mode, scaling, k, n, 0.0, 0.0,
                                 f"over {TIMEOUT:g} s: not measured"))
                    print(rows[-1], flush=True)
                    continue
                reference = single[1] if scaling == "weak" else \
                    single[counts[-1]]
                efficiency = throughput / (k * reference)
                members = result.get("members", [])
                exchange = max((m["exchange_s"] for m in members),
                               default=0.0)
                compute = [m["compute_s"] for m in members] or [0.0]
                shares = "/".join(f"{m['share'] * 100:.0f}" for m in members)
                # Where the wall time went: the members' compute (its
                # spread shows imbalance), the exchange, and the rest.
                rows.append((mode, scaling, k, n, throughput, efficiency,
                             f"shares {shares}%, compute "
                             f"{min(compute):.3f}-{max(compute):.3f} s, "
                             f"exchange {exchange:.3f} s of "
                             f"{result['wall_s']:.3f} s"))
                print(rows[-1], flush=True)
    unit = first.get("throughput_unit", "")
    lines = [f"# {args.workload}: {' '.join(extra)}; "
             f"{args.size_option} {args.size} a device",
             f"| run | scaling | devices | {args.size_option} | "
             f"throughput ({unit}) | efficiency | notes |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for mode, scaling, k, n, throughput, efficiency, notes in rows:
        lines.append(f"| {mode} | {scaling} | {k} | {n} | {throughput:.4g} "
                     f"| {efficiency * 100:.1f}% | {notes} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        with open(args.out, "a", encoding="utf-8") as handle:
            handle.write(text + "\n")


if __name__ == "__main__":
    main()
