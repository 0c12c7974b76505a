#!/usr/bin/env python3
"""workloads_check - every workload on ref and on an OpenCL device, small.

usage: workloads_check.py CLKIT [--devices SEL]

The quick tier's cover of the workloads: `clkit compare W --json` at a
small size for each workload that `clkit compare --help` lists, over ref
and the first OpenCL device (PoCL here), or over the devices SEL names
(one device a comma-separated term: "ref,pocl,intel"). Each run must
exit 0, every row must run (status CK_OK) and agree with ref. A
workload the help lists and this table lacks fails the check, so a new
one cannot go untested. Without an OpenCL device, ref's runs are checked
and the test skips (exit 77), saying so.
"""
import json
import os
import re
import subprocess
import sys

if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and
                                    sys.argv[2] != "--devices"):
    sys.exit(__doc__)
CLKIT = os.path.abspath(sys.argv[1])
SELECTOR = sys.argv[3] if len(sys.argv) == 4 else None
DATA = os.environ.get("CLKIT_TEST_DATA", "")

# Sizes that build and run in seconds on PoCL with a cold cache.
RUNS = {
    "selfcheck": ["--count", "100000"],
    "pso": ["--dim", "8", "--particles", "64", "--iters", "50"],
    "ga": ["--dim", "8", "--islands", "4", "--island-size", "16",
           "--gens", "30"],
    "aco": [os.path.join(DATA, "tsplib", "eil51.tsp"), "--iters", "5"],
    "nn": ["--epochs", "1"],
    "gas": ["--particles", "256", "--steps", "50"],
}


def clkit(*args):
    return subprocess.run([CLKIT, *args], capture_output=True, text=True,
                          timeout=300, check=False)


def listed_workloads():
    """The workloads `clkit compare --help` lists under "Workloads:"."""
    text = clkit("compare", "--help").stdout
    names = []
    listing = False
    for line in text.splitlines():
        if line.startswith("Workloads:"):
            listing = True
        elif listing:
            match = re.match(r"  ([a-z]+)\s", line)
            if match:
                names.append(match.group(1))
    return names


def opencl_device():
    """The first OpenCL device's id, or None."""
    done = clkit("devices", "--json")
    if done.returncode != 0:
        return None
    for device in json.loads(done.stdout).get("devices", []):
        if device["id"].startswith("ocl:"):
            return device["id"]
    return None


def main():
    failures = 0
    listed = listed_workloads()
    if not listed:
        print("FAIL: `clkit compare --help` lists no workload")
        return 1
    for name in listed:
        if name not in RUNS:
            print(f"FAIL: workload {name} has no run in workloads_check.py")
            failures += 1
    device = opencl_device()
    devices = SELECTOR or "ref" + ("," + device if device else "")
    for name in listed:
        if name not in RUNS:
            continue
        done = clkit("compare", name, *RUNS[name], "--device", devices,
                     "--json", "--quiet")
        if done.returncode != 0:
            print(f"FAIL: compare {name} exited {done.returncode}: "
                  f"{done.stderr.strip()}")
            failures += 1
            continue
        rows = json.loads(done.stdout)["results"]
        ran = [row["device"] for row in rows]
        if len(ran) != len(devices.split(",")) or ran[0] != "ref":
            print(f"FAIL: compare {name} ran on {ran}, not on {devices}")
            failures += 1
        for row in rows:
            if row.get("status", "CK_OK") != "CK_OK" or not row["agrees"]:
                print(f"FAIL: {name} on {row['device']}: status "
                      f"{row.get('status')}, agreement {row['agreement']}")
                failures += 1
        print(f"{name}: " + ", ".join(
            f"{row['device']} {row['best_name']} {row['best']:.9g}"
            for row in rows))
    if failures:
        print(f"{failures} failed")
        return 1
    if not device and not SELECTOR:
        print("SKIP: no OpenCL device: the workloads ran on ref alone")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
