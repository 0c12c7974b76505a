#!/usr/bin/env python3
"""mlp_scaling - the MLP's weak scaling over GPUs, clkit beside PyTorch DDP.

usage: mlp_scaling.py BUILD OUT [--gpus N] [--data FILE] [--epochs E]
                      [--batch B] [--repeat R] [--math fp32|tf32]
                      [--layers 784,1024,1024,10] [--mpirun MPIRUN]

BUILD is a clkit build directory (BUILD/tools/clkit, BUILD/bench/...);
OUT a directory for the results, made if missing. For k = 1, 2 and 4
GPUs (up to --gpus, default every CUDA device clkit lists), each with
--batch rows a GPU (default 1024):

  - one-device: `clkit run nn` on cuda:0, the base of every efficiency;
  - process: one process, `--device cuda:0,..,cuda:k-1 --spread` with
    equal shares (each member on a host thread of its own);
  - process-in-turn: the same with CLKIT_SPREAD_THREADS=0 (one thread
    drives every member);
  - mpi: `mpirun -np k clkit run nn --device cuda --spread`, a GPU a rank
    (where mpirun is found; clkit refuses it where built without MPI);
  - ddp: bench/torch_ddp.py on k GPUs through torchrun (where torch is
    importable and sees GPUs), against its own one-GPU run.

Every clkit figure is the median throughput of R runs (default 3) after
an untimed one, as clkit reports it (samples a second over the epochs'
training time); efficiency is throughput over k times the one-device
throughput. The data is --data (an IDX or CSV file clkit reads, such as
Fashion-MNIST's train-images-idx3-ubyte.gz), or else 60,000 rows of
random 28 x 28 bytes written to OUT. bench_allreduce, where built, then
times NCCL's all-reduce at the MLP's sizes, in one process and over k
ranks.

Writes OUT/machine.txt, OUT/mlp_scaling.csv, OUT/mlp_scaling.md,
OUT/allreduce.csv (bench_allreduce's rows) and every run's output under
OUT/raw/. NCCL_NVLS_ENABLE=0 is set for every run unless set already:
NVLink multicast stays off.
"""
import argparse
import csv
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 900
ENV = dict(os.environ)
ENV.setdefault("NCCL_NVLS_ENABLE", "0")


class Runs:
    """Every command run, its output kept under OUT/raw/."""

    def __init__(self, out):
        self.raw = os.path.join(out, "raw")
        os.makedirs(self.raw, exist_ok=True)
        self.count = 0

    def run(self, command, env=None, name="run"):
        self.count += 1
        try:
            done = subprocess.run(command, capture_output=True, text=True,
                                  timeout=TIMEOUT, env=env or ENV)
            code, out, err = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired:
            code, out, err = -1, "", f"over {TIMEOUT} s"
        except OSError as error:
            code, out, err = -1, "", str(error)
        path = os.path.join(self.raw, f"{self.count:03d}-{name}.txt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(f"$ {' '.join(command)}\nexit {code}\n--- stdout\n"
                         f"{out}\n--- stderr\n{err}\n")
        return code, out, err


def clkit_result(runs, command, env, name):
    code, out, err = runs.run(command, env, name)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if code != 0 or not lines:
        print(f"  failed ({code}): {err.strip()[-300:]}", flush=True)
        return None
    return json.loads(lines[-1])


def measure(runs, command, repeat, env=None, name="run"):
    """The median throughput of repeat runs after an untimed one, and the
    last run's result."""
    if clkit_result(runs, command, env, name + "-warm") is None:
        return None, None
    results = [clkit_result(runs, command, env, name) for _ in range(repeat)]
    results = [r for r in results if r]
    if not results:
        return None, None
    return statistics.median(r["throughput"] for r in results), results[-1]


def synthetic_data(out):
    """60,000 rows of random 28 x 28 bytes and random labels, as IDX."""
    images = os.path.join(out, "synthetic-images-idx3-ubyte")
    labels = os.path.join(out, "synthetic-labels-idx1-ubyte")
    rows = 60000
    if not os.path.exists(images) or not os.path.exists(labels):
        rng = random.Random(1)
        with open(images, "wb") as handle:
            handle.write((0x803).to_bytes(4, "big") + rows.to_bytes(4, "big") +
                         (28).to_bytes(4, "big") + (28).to_bytes(4, "big"))
            handle.write(rng.randbytes(rows * 784))
        with open(labels, "wb") as handle:
            handle.write((0x801).to_bytes(4, "big") + rows.to_bytes(4, "big"))
            handle.write(bytes(rng.randrange(10) for _ in range(rows)))
    return images


def mpirun_command(mpirun, ranks):
    command = [mpirun]
    version = subprocess.run([mpirun, "--version"], capture_output=True,
                             text=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        # A rank's threads (NCCL's among them) not bound to one core.
        command += ["--bind-to", "none"]
        if os.geteuid() == 0:
            command += ["--allow-run-as-root"]
    return command + ["-np", str(ranks)]


def cuda_devices(clkit):
    done = subprocess.run([clkit, "devices", "--json"], capture_output=True,
                          text=True, env=ENV)
    if done.returncode != 0:
        return []
    return [d["id"] for d in json.loads(done.stdout)["devices"]
            if d["id"].startswith("cuda:")]


def machine(out, clkit, runs):
    lines = []
    for command in (["nvidia-smi", "-L"], ["nvidia-smi", "topo", "-m"],
                    [clkit, "devices"], ["mpirun", "--version"],
                    ["nproc"]):
        code, text, err = runs.run(command, name="machine")
        lines.append(f"$ {' '.join(command)}\n{text}{err}")
    lines.append("NCCL_* " + " ".join(f"{k}={v}" for k, v in ENV.items()
                                       if k.startswith("NCCL_")))
    with open(os.path.join(out, "machine.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def notes(result):
    members = result.get("members", [])
    if not members:
        return "", "", ""
    compute = [m["compute_s"] for m in members]
    exchange = max(m["exchange_s"] for m in members)
    return (f"{min(compute):.3f}-{max(compute):.3f}", f"{exchange:.3f}",
            "/".join(str(m["units"]) for m in members))


def ddp(runs, gpus, batch, tf32):
    """torch_ddp.py's samples a second on gpus GPUs, or None."""
    script = os.path.join(HERE, "torch_ddp.py")
    extra = ["--batch", str(batch)] + (["--tf32"] if tf32 else [])
    if gpus == 1:
        command = [sys.executable, script] + extra
    else:
        command = [sys.executable, "-m", "torch.distributed.run",
                   "--standalone", f"--nproc_per_node={gpus}", script] + extra
    code, out, err = runs.run(command, name=f"ddp-{gpus}")
    found = re.search(r"([0-9.e+]+) samples/s", out)
    if code != 0 or not found:
        print(f"  ddp on {gpus} GPUs failed ({code}): {err.strip()[-300:]}")
        return None
    return float(found.group(1))


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("out")
    parser.add_argument("--gpus", type=int, default=0)
    parser.add_argument("--data")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--math", choices=["fp32", "tf32"], default="fp32")
    parser.add_argument("--layers", default="784,1024,1024,10")
    parser.add_argument("--mpirun", default=shutil.which("mpirun"))
    parser.add_argument("--devices", help="the devices in place of every "
                        "CUDA device (A,B,...; each rank under MPI selects "
                        "the first's backend)")
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    clkit = os.path.join(os.path.abspath(args.build), "tools", "clkit")
    runs = Runs(out)
    machine(out, clkit, runs)
    devices = args.devices.split(",") if args.devices else \
        cuda_devices(clkit)
    if not devices:
        sys.exit("mlp_scaling: clkit lists no CUDA device")
    backend = devices[0].split(":")[0]
    most = min(args.gpus or len(devices), len(devices))
    counts = [k for k in (1, 2, 4) if k <= most]
    data = args.data or synthetic_data(out)
    base = [clkit, "run", "nn", "--train", data, "--layers", args.layers,
            "--epochs", str(args.epochs), "--math", args.math, "--json",
            "--quiet"]
    rows = []

    def add(runner, mode, k, throughput, reference, result=None):
        efficiency = throughput / (k * reference) if throughput and \
            reference else None
        compute, exchange, units = notes(result or {})
        rows.append({"runner": runner, "mode": mode, "gpus": k,
                     "batch_per_gpu": args.batch,
                     "global_batch": k * args.batch, "math": args.math,
                     "throughput": throughput, "efficiency": efficiency,
                     "member_rows": units, "compute_s": compute,
                     "exchange_s": exchange,
                     "wall_s": f"{result['wall_s']:.3f}" if result else ""})
        shown = f"{efficiency * 100:.1f}%" if efficiency else "-"
        print(f"{runner:6} {mode:16} {k} GPU(s): "
              f"{throughput or 0:.4g} samples/s, {shown}", flush=True)

    single, result = measure(runs, base + ["--batch", str(args.batch),
                                           "--device", devices[0]],
                             args.repeat, name="one-device")
    add("clkit", "one-device", 1, single, single, result)
    for k in counts:
        spread = ["--batch", str(k * args.batch), "--spread", "--shares",
                  ",".join(["1"] * k)]
        picked = ["--device", ",".join(devices[:k])]
        throughput, result = measure(runs, base + spread + picked,
                                     args.repeat, name=f"process-{k}")
        add("clkit", "process", k, throughput, single, result)
        if k > 1:
            env = dict(ENV, CLKIT_SPREAD_THREADS="0")
            throughput, result = measure(runs, base + spread + picked,
                                         args.repeat, env,
                                         name=f"in-turn-{k}")
            add("clkit", "process-in-turn", k, throughput, single, result)
        if args.mpirun:
            # One rank alone takes every device it selects: cuda:0 then.
            command = mpirun_command(args.mpirun, k) + base + spread + [
                "--device", backend if k > 1 else devices[0]]
            throughput, result = measure(runs, command, args.repeat,
                                         name=f"mpi-{k}")
            add("clkit", "mpi", k, throughput, single, result)
    code, _, _ = runs.run([sys.executable, "-c",
                           "import torch; assert torch.cuda.is_available()"],
                          name="torch")
    if code == 0:
        alone = ddp(runs, 1, args.batch, args.math == "tf32")
        for k in counts:
            add("torch", "ddp", k, alone if k == 1 else
                ddp(runs, k, args.batch, args.math == "tf32"), alone)
    else:
        print("torch is not importable or sees no GPU: no DDP rows")
    allreduce = os.path.join(args.build, "bench", "bench_allreduce")
    if os.path.exists(allreduce) and most >= 2:
        gpus = ",".join(str(k) for k in counts if k > 1)
        runs.run([allreduce, "--gpus", gpus, "--out", out], name="allreduce")
        for k in counts[1:] if args.mpirun else []:
            runs.run(mpirun_command(args.mpirun, k) +
                     [allreduce, "--out", out], name=f"allreduce-mpi-{k}")
    with open(os.path.join(out, "mlp_scaling.csv"), "w", newline="",
              encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    table = [f"# MLP {args.layers}, {args.math}, batch {args.batch} a GPU, "
             f"{args.epochs} epochs of {os.path.basename(data)}",
             "| runner | run | GPUs | samples/s | efficiency | member rows "
             "| compute s | exchange s | wall s |",
             "| --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |"]
    for row in rows:
        efficiency = f"{row['efficiency'] * 100:.1f}%" \
            if row["efficiency"] else "-"
        throughput = f"{row['throughput']:.4g}" if row["throughput"] else "-"
        table.append(f"| {row['runner']} | {row['mode']} | {row['gpus']} | "
                     f"{throughput} | {efficiency} | {row['member_rows']} | "
                     f"{row['compute_s']} | {row['exchange_s']} | "
                     f"{row['wall_s']} |")
    text = "\n".join(table) + "\n"
    print(text)
    with open(os.path.join(out, "mlp_scaling.md"), "w",
              encoding="utf-8") as handle:
        handle.write(text)


if __name__ == "__main__":
    main()
