#!/usr/bin/env python3
"""Each workload's large configuration on the CUDA device, the NVIDIA
OpenCL device and PoCL, in one table.

Runs `clkit run WORKLOAD ... --device D --json` for every device and
workload, then prints wall and kernel seconds, the workload's result and
throughput, and CUDA's speed-up over OpenCL on the same GPU (by
throughput). Each configuration first runs once untimed on each device,
so that no row pays for compiling kernels (PoCL compiles a kernel at its
first launch, inside the run) or for the GPU raising its clocks; then it
runs --repeat times (default 3) and the run of median throughput is
kept (PoCL runs, slow and steady, are made --cpu-repeat times, default
1). The configurations run long enough (tenths of a second on the GPUs)
that fixed costs per run weigh little. Usage:

    python3 bench/backends.py CLKIT [--data DIR] [--out FILE]
        [--devices cuda:0,NVIDIA,pocl] [--only pso,ga,...] [--repeat N]
        [--cpu-repeat N]

DIR holds the TSPLIB instances and the Fashion-MNIST .gz files; the table
also goes to FILE when given.
"""
import argparse
import json
import subprocess
import sys


def configurations(data):
    return [
        ("pso", ["--fn", "rastrigin", "--dim", "30", "--particles", "16384",
                 "--iters", "10000"]),
        ("ga", ["--fn", "rastrigin", "--dim", "32", "--islands", "4096",
                "--island-size", "256", "--gens", "1000"]),
        # Islands past the 48 KB of local memory NVIDIA's OpenCL offers:
        # resident only on CUDA, in dynamic shared memory.
        ("ga-1024", ["--fn", "rastrigin", "--dim", "32", "--islands", "1024",
                     "--island-size", "1024", "--gens", "1000"]),
        ("aco", ["--instance", f"{data}/pr2392.tsp", "--iters", "20"]),
        ("nn", ["--train", f"{data}/train-images-idx3-ubyte.gz",
                "--test", f"{data}/t10k-images-idx3-ubyte.gz",
                "--layers", "784,1024,1024,10", "--batch", "1024",
                "--epochs", "3"]),
        ("gas", ["--particles", "1000000", "--steps", "1000"]),
    ]


def run(clkit, label, options, device):
    """A configuration's label is its workload, or the workload, a hyphen
    and what sets this configuration apart."""
    command = [clkit, "run", label.split("-")[0], *options, "--device",
               device, "--json", "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True)
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line), None
    return None, (done.stderr.strip().splitlines() or ["no output"])[-1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("clkit")
    parser.add_argument("--data", default=".")
    parser.add_argument("--out")
    parser.add_argument("--devices", default="cuda:0,NVIDIA CUDA,pocl")
    parser.add_argument("--only")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu-repeat", type=int, default=1)
    args = parser.parse_args()
    lines = []

    def say(text):
        print(text, flush=True)
        lines.append(text)

    say(f"{'workload':9} {'device':9} {'wall_s':>8} {'kernel_s':>9} "
        f"{'throughput':>12} {'unit':22} {'result':>14} {'cuda/ocl':>8}")
    for workload, options in configurations(args.data):
        if args.only and workload.split("-")[0] not in args.only.split(","):
            continue
        rates = {}
        for device in args.devices.split(","):
            repeat = args.cpu_repeat if "pocl" in device.lower() else args.repeat
            # The warm-up run, then the measured ones.
            result, error = run(args.clkit, workload, options, device)
            runs = []
            for _ in range(max(1, repeat) if result else 0):
                again, error = run(args.clkit, workload, options, device)
                if again is None:
                    runs = []
                    break
                runs.append(again)
            runs.sort(key=lambda r: r["throughput"])
            result = runs[(len(runs) - 1) // 2] if runs else None
            if result is None:
                say(f"{workload:9} {device:9} failed: {error}")
                continue
            backend = "cuda" if result["device"].startswith("cuda") else (
                "gpu" if "NVIDIA" in result["device_name"] else "cpu")
            rates[backend] = result["throughput"]
            ratio = ""
            if backend == "cuda":
                ratio = "-"
            elif backend == "gpu" and "cuda" in rates and rates["gpu"] > 0:
                ratio = f"{rates['cuda'] / rates['gpu']:.2f}x"
            say(f"{workload:9} {result['device']:9} {result['wall_s']:8.3f} "
                f"{result['kernel_s']:9.3f} {result['throughput']:12.4g} "
                f"{result['throughput_unit']:22} {result['best']:14.8g} "
                f"{ratio:>8}")
    if args.out:
        with open(args.out, "w") as out:
            out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
