#!/usr/bin/env python3
"""results_table - writes bench/RESULTS.md from the runs it names.

usage: results_table.py [--out FILE] [--check]

Each table below reads the files of one or two named runs under
bench/results/ and states the device, driver, date and command of each.
The runs named are the latest of each kind, per machine; bench/results/
holds those and no others.

Without options the Markdown goes to standard output, so that

    python3 bench/results_table.py > bench/RESULTS.md

remakes the committed file. --check compares a fresh table with
bench/RESULTS.md, and checks that bench/results/ holds exactly the runs
named here and that every run the README, docs/ or the sources cite
exists: exit 0 when all holds, 1 otherwise.
"""
import glob
import json
import os
import re
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")

H100 = "NVIDIA H100 80GB HBM3, driver 580.159.04, CUDA 13.0"
H100_HOST = ("PoCL 5.0 (LLVM 16) on the host's 16 Intel Xeon cores "
             "(Skylake, AVX-512)")
XEON2 = ("2 cores of an Intel Xeon (Skylake, AVX-512), PoCL 3.1 (LLVM 15), "
         "no GPU")
EPYC2 = "2 cores of an AMD EPYC (AVX-512), PoCL 3.1 (LLVM 15), no GPU"

# Runs kept because comments in the sources cite them: what each holds.
RECORDS = {
    "h100-2026-11-22-migrate": "the GA's migrations with a warp a group, "
    "and a launch writing its last generation alone (`ab.txt`, `epoch.txt`)",
    "h100-2026-11-23-cluster": "the GA's islands past one block on clusters "
    "of blocks, by island shape (`shapes.txt`)",
    "h100-2026-11-23-ga-wide": "the GA's native kernel from d = 129 to 256, "
    "on one block and on clusters (`wide.txt`)",
    "h100-2026-11-25-lazy": "the GA's refills drawn as their mutations need "
    "them, the pooled steps by operator (`configs.txt`), and the registers "
    "of whole children past 48 genes",
    "h100-2026-11-25-fold": "the GA's statistics folded by the first warp "
    "alone, and the islands where that was slower (`forms.txt`)",
}


def path(run, name):
    return os.path.join(RESULTS, run, name)


def read(run, name):
    with open(path(run, name), encoding="utf-8") as handle:
        return handle.read()


def lines_of(text, count, first):
    """The lines of text with count fields, the first of them first."""
    return [fields for fields in (line.split() for line in text.splitlines())
            if len(fields) == count and fields[0] == first]


def table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(str(cell) for cell in row) + " |"
            for row in rows]
    return "\n".join(out)


def source(runs, device, date, command):
    """The lines that say where a table comes from."""
    files = ", ".join(f"`{run}/{name}`" for run, name in runs)
    return (f"- Device: {device}.\n- Date: {date}.\n- Command: {command}\n"
            f"- Files: {files} (under `bench/results/`).")


def num(text):
    """A figure as the tools print it, shortened to four digits."""
    value = float(text)
    if value >= 1e5:
        return f"{value:.3e}".replace("e+0", "e").replace("e+", "e")
    if value >= 1000 or value == int(value):
        return f"{round(value):,}"
    return f"{value:.4g}"


def span(values, digits=2):
    """A range of runs, as low–high."""
    low, high = min(values), max(values)
    if f"{low:.{digits}f}" == f"{high:.{digits}f}":
        return f"{low:.{digits}f}"
    return f"{low:.{digits}f}–{high:.{digits}f}"


# ---- bench/backends.py ----------------------------------------------------

BACKEND_CONFIGS = {
    "pso": "rastrigin, d = 30, 16,384 particles, 10,000 iterations",
    "ga": "rastrigin, d = 32, 4096 islands of 256, 1,000 generations",
    "ga-1024": "rastrigin, d = 32, 1024 islands of 1024, 1,000 generations",
    "aco": "pr2392, 20 iterations",
    "nn": "784-1024-1024-10, 3 epochs of Fashion-MNIST, batch 1024",
    "gas": "10^6 particles, cell lists, 1,000 steps",
}


def backends(run, name):
    """{(workload, device): (throughput, unit, result)} of a table of
    bench/backends.py."""
    rows = {}
    for line in read(run, name).splitlines():
        fields = line.split()
        if len(fields) >= 7 and fields[0] in BACKEND_CONFIGS:
            rows[(fields[0], fields[1])] = (fields[4], fields[5], fields[6])
    return rows


def backends_table(base, newer):
    """One row a configuration; newer's rows replace base's."""
    rows = backends(*base)
    rows.update(backends(*newer))
    out = []
    for workload, config in BACKEND_CONFIGS.items():
        cuda, unit, _ = rows[(workload, "cuda:0")]
        ocl = rows[(workload, "ocl:1.0")][0]
        cpu = rows[(workload, "ocl:0.0")][0]
        out.append([f"`{workload}`", config, num(cuda), num(ocl), num(cpu),
                    unit, f"{float(cuda) / float(ocl):.2f}x"])
    return table(["workload", "configuration", "cuda:0", "NVIDIA OpenCL",
                  "PoCL, 16 cores", "unit", "CUDA / OpenCL"], out)


def h100_backends():
    base = ("h100-2026-11-25-bound", "backends-all.txt")
    newer = ("h100-2026-11-25-classes", "backends-ga.txt")
    return f"""### Every workload on each backend

`bench/backends.py`: each workload's large configuration, one untimed run
a device, then the median of three on the GPUs and one run on PoCL.
Throughput is over the run's wall time. `ocl:1.0` is NVIDIA's OpenCL,
`ocl:0.0` PoCL.

{source([base, newer], f"{H100}; {H100_HOST}", "2026-11-25",
        "`python3 bench/backends.py build/tools/clkit --data DIR`; the GA's "
        "GPU rows from a later run, `--devices 'cuda:0,NVIDIA CUDA' --only "
        "ga,ga-1024`, on GPU 0 of a machine with two H100s")}

{backends_table(base, newer)}

Every device ends each workload with the same result, except the MLP's
test accuracy and the last digits of the gas's energy on PoCL. PoCL's ACO
makes fewer ants an iteration, so its tour differs."""


# ---- the MLP --------------------------------------------------------------

def mlp_against_pytorch():
    run = ("h100-2026-11-24-graph", "mlp-rounds.txt")
    figures = {}
    for line in read(*run).splitlines():
        fields = line.split()
        if len(fields) >= 7 and fields[1] == "784-1024-1024-10":
            key = (int(fields[2]), fields[6], fields[0])
            figures.setdefault(key, []).append(int(fields[3]))
    rows = []
    for batch in (256, 1024):
        for math in ("FP32", "TF32"):
            clkit = min(figures[(batch, math, "cuda:0")])
            peers = [max(figures[(batch, math, "pytorch-" + form)])
                     for form in ("eager", "fused", "graph")]
            rows.append([batch, math, f"{clkit:,}"]
                        + [f"{peer:,}" for peer in peers]
                        + [f"{clkit / peers[0]:.1f}x",
                           f"{clkit / peers[2]:.2f}x"])
    return f"""### The MLP against PyTorch

Training samples per second of 784-1024-1024-10 with Adam over 65,536
rows, the median of five epochs after one untimed. PyTorch runs the same
network, batch, data and precision three ways: `eager` (the plain loop),
`fused` (`Adam(fused=True)`) and `graph` (fused Adam, the whole step
captured once in a CUDA graph). Two rounds ran in turn; the table takes
clkit's lower figure and PyTorch's higher one.

{source([run], f"{H100}; PyTorch 2.11.0+cu130", "2026-11-24",
        "`build/bench/bench_nn --device cuda:0 --rows 65536 --epochs 5 "
        "--networks 784-1024-1024-10 --batches 256,1024 [--math tf32]` and "
        "`python3 bench/torch_mlp.py` with the same options")}

{table(["batch", "precision", "cuda:0", "PyTorch eager", "fused", "graph",
        "over eager", "over graph"], rows)}"""


def nn_summary(text):
    """The header's command and the run's final metrics of a clkit nn log."""
    command = re.search(r"^# (clkit run nn .*)$", text, re.M).group(1)
    metric = {m.group(1): float(m.group(2))
              for m in re.finditer(r"^  (\w+) +([-\d.e]+)", text, re.M)}
    return command, metric


def mlp_accuracy():
    runs = [("h100-2026-11-21", "nn_letter.txt"),
            ("h100-2026-11-21", "nn_fashion.txt")]
    rows = []
    for run, data in zip(runs, ("UCI letter recognition", "Fashion-MNIST")):
        command, metric = nn_summary(read(*run))
        rows.append([data, f"`{command}`",
                     f"{100 * metric['test_accuracy']:.2f}%",
                     f"{metric['train_s']:.1f} s"])
    return f"""### The MLP's accuracy

Letters train on the first 16,000 rows and test on the last 4,000.
Fashion-MNIST comes from Debian's `dataset-fashion-mnist`.

{source(runs, f"{H100}, through NVIDIA's OpenCL (`-d gpu`)", "2026-11-21",
        "as in the table, seed 1")}

{table(["data", "command", "test accuracy", "training"], rows)}"""


def xeon_mlp():
    run = ("cpu2-2026-11-23-nn-vector", "bench_nn.txt")
    commands = ("cpu2-2026-11-23-nn-vector", "commands.txt")
    text = read(*run).split("== rel-base")[0]
    rows = [[fields[1], fields[2], f"{int(fields[3]):,}", fields[4]]
            for fields in lines_of(text, 7, "ocl:0.0")]
    accuracy = []
    for block in read(*commands).split("## ")[1:]:
        head = block.splitlines()[0]
        if not head.startswith("rel: clkit run nn --train"):
            continue
        metric = {m.group(1): float(m.group(2)) for m in
                  re.finditer(r"^  (\w+) +([-\d.e]+)", block, re.M)}
        data = "letters" if "letter" in head else "Fashion-MNIST"
        accuracy.append([data, f"{100 * metric['test_accuracy']:.2f}%",
                         f"{metric['wall']:.0f} s"])
    return f"""### The MLP

`bench_nn`: samples per second over epochs of 16,384 synthetic rows.
GFLOP/s count 2 flops a weight a sample forward and 4 backward, less what
training does not compute. The products run in vector form, the CPU
default.

{source([run, commands], XEON2, "2026-11-23",
        "`build/bench/bench_nn --device ocl:0.0`; the README's two "
        "training commands (see the accuracy table above)")}

{table(["network", "batch", "samples/s", "GFLOP/s"], rows)}

The README's training commands on the same device:

{table(["data", "test accuracy", "run"], accuracy)}"""


# ---- the ACO --------------------------------------------------------------

def bench_aco(run, name):
    """Rows of bench_aco's tables, each with its device and run time."""
    rows = []
    device = seconds = None
    for line in read(run, name).splitlines():
        head = re.match(r"^(\S+) .*, (\d+) s a run$", line)
        if head:
            device, seconds = head.group(1), head.group(2)
            continue
        fields = line.split()
        if len(fields) == 11 and fields[1].isdigit():
            rows.append([device, seconds] + fields)
    return rows


def aco_row(row, label):
    device, seconds, instance, _, ants, _, tours = row[:7]
    reach = row[8:11]
    return [instance, label or device, ants, num(tours)] + reach + \
        [f"{row[11]}% after {seconds} s"]


ACO_HEADER = ["instance", "device", "ants", "tours/s", "to 2% (s)",
              "to 1% (s)", "to 0.5% (s)", "gap at the end"]


def h100_aco():
    grid = ("h100-2026-11-25-grid", "grid-ab.txt")
    per_iteration = {}
    for line in read(*grid).splitlines():
        match = re.match(r"^(.*) (\S+) new length (\d+) iterations (\d+) .* "
                         r"per iteration ([\d.]+) s", line)
        if match:
            device = "cuda:0" if match.group(1) == "cuda:0" else "OpenCL"
            per_iteration.setdefault(match.group(2), {})[device] = \
                match.group(5)
            per_iteration[match.group(2)]["length"] = \
                f"{int(match.group(3)):,}"
    iteration_rows = [[name, d["cuda:0"], d["OpenCL"], d["length"]]
                      for name, d in per_iteration.items()]
    quality = ("h100-2026-11-21", "bench_aco.txt")
    partition = ("h100-2026-11-22-aco", "bench_aco_partition.txt")
    rows = [aco_row(r, "NVIDIA OpenCL" if r[0] == "ocl:1.0" else "PoCL")
            for r in bench_aco(*quality) if int(r[3]) >= 1000]
    seeds = bench_aco(*partition)
    for seed, r in zip(("seed 1", "seed 2", "seed 3", "", ""), seeds):
        device = "cuda:0" if r[0] == "cuda:0" else "NVIDIA OpenCL"
        label = f"{device}, `--partition 1024`" + (f", {seed}" if seed else "")
        rows.append(aco_row(r, label))
    return f"""### The ACO

Seconds an iteration with the defaults, from `clkit run aco --seed 7`:

{source([grid], H100, "2026-11-25",
        "`clkit run aco INSTANCE --seed 7 --iters N --device D --json`")}

{table(["instance", "cuda:0 (s)", "NVIDIA OpenCL (s)", "tour length"],
       iteration_rows)}

Quality against time (`bench_aco`): one run an instance with the default
settings, seed 1 unless named, and the seconds until the best tour came
within 2%, 1% and 0.5% of the optimum.

{source([quality, partition], f"{H100}; {H100_HOST}",
        "2026-11-21 (default settings) and 2026-11-22 (`--partition`)",
        "`build/bench/bench_aco --data DIR --instances NAME --seconds S "
        "[--partition 1024] [--seed N]`")}

{table(ACO_HEADER, rows)}

A dash is a gap the run did not reach. These rows ran the classic
method on every size; `--method auto` now runs d15112 and pla33810
focused (next section)."""


def epyc_aco():
    run = ("cpu2-2026-11-22-aco", "bench_aco.txt")
    labels = ("`--partition 256`, seed 1", "`--partition 256`, seed 2",
              "`--partition 256`, seed 3", "`--partition 1024 --kicks 1000`")
    rows = [aco_row(r, label) for r, label in zip(bench_aco(*run), labels)]
    return f"""### The ACO

{source([run], EPYC2, "2026-11-22",
        "`build/bench/bench_aco --data DIR --instances NAME --seconds S "
        "--partition K [--kicks N] --seed N`")}

{table(ACO_HEADER, rows)}"""


# ---- the gas --------------------------------------------------------------

def gas_lists(run, name):
    """{(device, N, mode): particle-steps/s} of bench_gas's lists section."""
    rows = {}
    for line in read(run, name).splitlines():
        fields = line.split()
        if len(fields) == 7 and fields[2] in ("cells", "verlet"):
            rows[(fields[0], int(fields[1]), fields[2])] = fields[5]
    return rows


def h100_gas():
    gpu = ("h100-2026-11-22-strips", "bench_gas_gpu.txt")
    cpu = ("h100-2026-11-22-strips", "bench_gas_pocl16.txt")
    pairs = ("h100-2026-11-22-strips", "bench_gas_allpairs-pocl5-fix.txt")
    rows = gas_lists(*gpu)
    rows.update(gas_lists(*cpu))
    list_rows = []
    for mode in ("cells", "verlet"):
        for n in (1000, 10000, 100000, 1000000, 10000000):
            list_rows.append([f"{n:.0e}".replace("e+0", "e"), mode] + [
                num(rows[(d, n, mode)]) if (d, n, mode) in rows else "–"
                for d in ("cuda:0", "ocl:1.0", "ocl:0.0")])
    pair_rows = {}
    peak = {}
    for line in read(*pairs).splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[1] == "peak":
            peak[fields[0]] = fields[2]
        if len(fields) == 6 and fields[5].endswith("%"):
            pair_rows.setdefault(int(fields[1]), {})[fields[0]] = \
                (fields[3], fields[5])
    pair_table = [[n] + [f"{num(d[dev][0])} ({d[dev][1]})"
                         for dev in ("cuda:0", "ocl:1.0")]
                  for n, d in sorted(pair_rows.items())]
    return f"""### The gas

Particle-steps per second of the Lennard-Jones gas at ρ = 0.8 with
r_c = 2.5, by neighbour list:

{source([gpu, cpu], f"{H100}; {H100_HOST}", "2026-11-22",
        "`build/bench/bench_gas --device D --sections lists`")}

{table(["N", "mode", "cuda:0", "NVIDIA OpenCL", "PoCL, 16 cores"],
       list_rows)}

All pairs (the soft-log model between walls, 20 flops an interaction):
interactions per second, and their share of the FP32 rate that
`cl/peak.cl` measured in the same run ({num(peak['cuda:0'])} GFLOP/s on
`cuda:0`, {num(peak['ocl:1.0'])} through OpenCL).

{source([pairs], H100, "2026-11-22",
        "`build/bench/bench_gas --device D --sections peak,allpairs`")}

{table(["N", "cuda:0", "NVIDIA OpenCL"], pair_table)}"""


def epyc_gas():
    run = ("cpu2-2026-11-22-strips", "bench_gas.txt")
    text = read(*run).split("clkit beside LAMMPS, the best and the median")[1]
    rows = [[fields[1], fields[2], fields[3],
             f"{num(fields[4])} / {num(fields[5])}",
             f"{num(fields[6])} / {num(fields[7])}",
             f"{fields[8]} / {fields[9]}"]
            for fields in lines_of(text, 10, "ocl:0.0")]
    return f"""### The gas beside LAMMPS

Particle-steps per second, the best and the median of five rounds that
each run both programs at every point. LAMMPS (29 Sep 2021, Debian 12)
runs on one core with half lists; clkit runs on both cores with full
lists.

{source([run], EPYC2, "2026-11-22",
        "`build/bench/bench_gas --device pocl --max-particles 1e6 --seconds "
        "0.5 --lammps /usr/bin/lmp --rounds 5`")}

{table(["N", "ρ", "mode", "clkit, best / median",
        "LAMMPS, best / median", "ratio, best / median"], rows)}"""


# ---- the PSO --------------------------------------------------------------

def h100_gas_alone():
    run = "h100-2026-11-27-gas-alone"
    rates = {}
    for name in ("alone.txt", "tiers.txt"):
        for line in read(run, name).splitlines():
            if line and not line.startswith("#"):
                tree, rate = line.split()
                rates.setdefault(tree, []).append(float(rate))
    rows = [[call, label, num(statistics.median(rates[tree])),
             f"{num(min(rates[tree]))} to {num(max(rates[tree]))}"]
            for call, tree, label in (
                ("1", "bo", "before the spread on the devices (3d3bcba)"),
                ("1", "b", "the spread on the devices (c63b5ff)"),
                ("2", "to", "before two tiers (6827b7f)"),
                ("2", "t", "now (3f1dc35)"))]
    return f"""### The gas alone, before and after the spread on the devices

One GPU without `--spread`, cell lists, 4 million particles, 1000
steps. In each call two trees were built and run in turns: five runs
each after an untimed one.

{source([(run, "alone.txt"), (run, "tiers.txt"), (run, "run.txt")], H100,
        "2026-11-27",
        "`clkit run gas --particles 4000000 --steps 1000 --log-every 0 "
        "--json --quiet --device cuda:0`")}

{table(["call", "tree", "median particle-steps/s", "range"], rows)}"""


def h100_gas_peer():
    run = ("h100-2026-11-26-gas-peer", "gas_spread_peer.csv")
    rows = []
    for line in read(*run).splitlines()[1:]:
        mode, n, alone, one_host, one_device, two_host, two_device = \
            line.split(",")
        if mode != "cells":
            continue  # Verlet lists' messages go through the host either way
        rows.append([f"{int(n) // 1000000}M", mode, num(alone),
                     num(one_host), num(one_device), num(two_host),
                     num(two_device),
                     f"{100 * (float(two_device) / float(two_host) - 1):+.0f}%"])
    return f"""### A spread gas's messages, through the host or GPU to GPU

Particle-steps per second of the gas over 1000 steps. It runs alone,
as one member of `--spread`, and as two members on the same GPU
(`--device cuda:0,cuda:0 --shares 1,1`), with cell lists. Members'
messages, every step's leavers and ghosts, go through host memory
(`CLKIT_PEER=0`) or device to device. Verlet lists' go through the host
either way. The last column is the device path's gain with two members.

{source([run, ("h100-2026-11-26-gas-peer", "run.txt")], H100, "2026-11-26",
        "`bench/gas_spread_one_gpu.sh --mode peer build/tools/clkit OUT "
        "cuda:0 1000`")}

{table(["N", "mode", "alone", "one member, host", "one member, device",
        "two members, host", "two members, device", "device / host"],
       rows)}"""


def h100_mlp_one_member():
    run = "h100-2026-11-26-mlp-one-member"
    lines = [line for line in read(run, "mlp_scaling.md").splitlines()
             if line.startswith("|")]
    return f"""### MLP spread of one member

Samples per second of the MLP 784-1024-1024-10, FP32, batch 1024, 10
epochs of synthetic 28 x 28 images: alone on one GPU, as the one member
of `--spread` in one process (its step a CUDA graph on its own host
thread) and over `mpirun -np 1`, best of 3 runs; PyTorch DDP on the same
GPU beside it.

{source([(run, "mlp_scaling.md"), (run, "mlp_scaling.csv"), (run, "run.txt")],
        H100, "2026-11-26",
        "`NCCL_NVLS_ENABLE=0 bench/mlp_scaling.py build OUT --gpus 1 "
        "--repeat 3`")}

""" + "\n".join(lines)


def h100_session():
    run = "h100-2026-11-26-session"
    parts, cells = [], {}
    for line in read(run, "python_pso_session.md").splitlines():
        if line.startswith("# "):
            parts.append(f"\n{line[2]}{line[3:]}:\n")
        elif line.startswith("|"):
            parts.append(line)
            row = [c.strip() for c in line.strip("|").split("|")]
            cells[row[1]] = row
    later = cells["session, calls 2..10"]
    fresh = [float(cells[f"{which} new process, warm cache"][2])
             for which in ("first", "second")]
    python = float(cells["Python, session"][3])
    command = float(cells["command, its wall_s"][3])
    return f"""### PSO from Python on a session, on the GPU

`clkit.pso.minimize` with Rastrigin as OpenCL C source on cuda:0.
Against the goals: later calls on a session take {1000 * float(later[2]):.0f} ms (goal 15 ms;
their kernels take {1000 * float(later[4]):.0f} ms); a new process with a warm kernel cache
{min(fresh):.2f} to {max(fresh):.2f} s (goal 0.1 s); the long run from Python is at {100 * python / command:.0f}% of
the command's rate (goal: within 10%).

{source([(run, "python_pso_session.md"), (run, "run.txt")], H100,
        "2026-11-26",
        "`python3 bench/python_pso.py --session --device cuda:0 --calls 10 "
        "--dim 30 --particles 100000 --iters 300 --long-particles 4096 "
        "--long-iters 20000 --out python_pso_session.md`")}
""" + "\n".join(parts)


def h100_one_member():
    run = ("h100-2026-11-26-one-member", "rates.txt")
    rates = {}
    for line in read(*run).splitlines():
        fields = line.replace(":", "").replace(",", "").split()
        if len(fields) == 9 and fields[0] in ("old", "new"):
            key = (fields[0], fields[2])
            rates.setdefault(key, []).append((float(fields[4]),
                                              float(fields[7])))
    rows = []
    for tree, label in (("old", "one host thread for all members"),
                        ("new", "a host thread a member")):
        for w, name in ((0, "GA"), (1, "PSO")):
            alone = [r[w] for r in rates[(tree, "alone")]]
            member = [r[w] for r in rates[(tree, "--spread")]]
            rows.append([name, label,
                         f"{num(min(alone))}–{num(max(alone))}",
                         f"{num(min(member))}–{num(max(member))}",
                         f"{100 * min(member) / max(alone):.1f}-"
                         f"{100 * max(member) / min(alone):.1f}%"])
    return f"""### PSO and GA spreads of one member

Throughput alone on one GPU and as the one member of `--spread` on it,
two runs each, the two trees built in the same call. GA: Rastrigin,
d = 32, 4096 islands of 256, 3000 generations (gene-gens/s). PSO:
Rastrigin, d = 100, 1M particles, 1000 iterations (evals/s).

{source([run, (run[0], "run.txt")], H100, "2026-11-26",
        "`clkit run ga|pso ... --device cuda:0 [--spread] --json` "
        "(`run.txt`)")}

{table(["workload", "members driven by", "alone", "one member",
        "member / alone"], rows)}"""


def h100_pso():
    run = ("h100-2026-11-21", "bench_pso.txt")
    text = read(*run).split("\nocl:0.0 ")[0]
    copy = re.search(r"copy bandwidth ([\d.]+) GB/s", text).group(1)
    rows = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 7 and fields[1].isdigit() and \
                int(fields[1]) >= 1000000:
            particles = f"{int(fields[1]):.0e}".replace("e+0", "e")
            rows.append([fields[0], particles,
                         fields[2], fields[3], num(fields[4]), fields[6]])
    small = re.search(r"small swarm: (.*)", text).group(1)
    lsq = re.search(r"lsq .* group mode: (.*)", text).group(1)
    return f"""### The PSO

`bench_pso`: the fused step's updates (particle-dimensions a second) and
their share of the device's copy bandwidth ({copy} GB/s, read plus
write, measured in the same run), counting 20 bytes an update.

{source([run], f"{H100}, through NVIDIA's OpenCL", "2026-11-21",
        "`build/bench/bench_pso --device ocl:1.0`")}

{table(["function", "particles", "d", "iterations/s", "updates/s",
        "of copy"], rows)}

- Small swarm: {small}.
- lsq over 10^6 rows × 16, 64 particles, group mode: {lsq}."""


def xeon_pso():
    run = ("cpu2-2026-11-23-pso-vector", "modes.txt")
    times = {}
    for line in read(*run).splitlines():
        match = re.match(r"^pso (\w+) .* --move-mode (\w+) run \d: (\{.*)",
                         line)
        if match:
            result = json.loads(match.group(3))
            times.setdefault((match.group(1), match.group(2)), []).append(
                result["kernel_s"])
    rows = [[name, span(times[(name, "particle")]),
             span(times[(name, "vector")])]
            for name in ("rastrigin", "griewank", "sphere")]
    lsq = ("cpu2-2026-11-23-lsq-vector", "bench_pso.txt")
    text = read(*lsq).split("== rel\n")[1].split("== the same device")[0]
    rates = {}
    for match in re.finditer(r"lsq 1000000 rows x 16, +(\d+) particles, "
                             r"(\w+) +mode: +[\d.]+ iter/s, +([\d.]+) GFLOP",
                             text):
        rates.setdefault((int(match.group(1)), match.group(2)), []).append(
            float(match.group(3)))
    lsq_rows = [[p] + [span(rates[(p, mode)], 1)
                       for mode in ("group", "thread", "vector")]
                for p in (64, 1024)]
    return f"""### The PSO

Kernel seconds of 300 iterations, d = 30, 4096 particles, three runs
each, in either form of the move (`--move-mode`; vector is the CPU
default). Both forms reach the same best.

{source([run], XEON2, "2026-11-23",
        "`clkit run pso --fn F --dim 30 --particles 4096 --iters 300 "
        "--move-mode M --device pocl --json`")}

{table(["function", "particle form (s)", "vector form (s)"], rows)}

lsq over 10^6 rows × 16 in each evaluation mode (`--lsq-mode`), GFLOP/s
counting 34 operations a row and particle; vector mode over three runs.
The device's FP32 multiply-add rate measured 146–152 GFLOP/s.

{source([lsq], XEON2, "2026-11-23",
        "`build/bench/bench_pso --device ocl:0.0 --max-elements 1000`")}

{table(["particles", "group", "thread", "vector"], lsq_rows)}"""


# ---- the queue and the kernel cache ---------------------------------------

def h100_queue():
    run = ("h100-2026-11-21", "bench_queue.txt")
    names = {"ref": "ref (memcpy)", "ocl:0.0": "PoCL, 16 cores",
             "ocl:1.0": "NVIDIA OpenCL"}
    rows = []
    for line in read(*run).splitlines():
        fields = line.split()
        if fields and fields[0] in names:
            launch = "–" if fields[0] == "ref" else fields[-4]
            rows.append([names[fields[0]], launch] + fields[-3:])
    return f"""### The queue

Each figure is the median of ten repetitions. Transfers are blocking,
from pageable host memory; the device copy counts bytes read plus bytes
written.

{source([run], f"{H100}; {H100_HOST}", "2026-11-21",
        "`build/bench/bench_queue --megabytes 256 --repeat 10`")}

{table(["device", "launch and finish (µs)", "host to device (GB/s)",
        "device to host (GB/s)", "device copy (GB/s)"], rows)}"""


def h100_python():
    run = ("h100-2026-11-26-python", "python_pso.md")
    lines = [line for line in read(*run).splitlines()
             if line.startswith("|")]
    return f"""### PSO from Python, against EvoX and evosax

Rastrigin in 30 dimensions, 100,000 particles, 300 iterations, one
`minimize` call (clkit) or one run of the peer's loop a row. clkit's
objective is OpenCL C source compiled into its kernels, a NumPy
function on the host, or a PyTorch function on the GPU (the batch
crosses to the host and back every iteration). Each library keeps its
own PSO coefficients: the best values compare the methods as shipped.
Each clkit call here opened its device and loaded its kernels; the
session section of the EPYC's times that apart.

{source([run], f"{H100}; PyTorch 2.11.0, JAX 0.11.2, EvoX 1.4.0, "
        "evosax 0.3.2", "2026-11-26",
        "`python3 bench/python_pso.py --device cuda:0,ocl:1.0`")}

""" + "\n".join(lines)


def clkit_rows(run):
    """A python_pso.py table's clkit rows, header included, and each
    clkit row's seconds by its method."""
    lines = [line for line in read(*run).splitlines()
             if line.startswith("| clkit") or line.startswith("| method")
             or line.startswith("| ---")]
    seconds = {line.split("|")[1].strip(): float(line.split("|")[2].strip())
               for line in lines if line.startswith("| clkit")}
    return lines, seconds


def h100_python_device():
    run = ("h100-2026-11-26-python-device", "python_pso.md")
    lines, rows = clkit_rows(run)
    source_s = rows["clkit on cuda:0, OpenCL C objective"]
    torch_s = rows['clkit on cuda:0, PyTorch callback, array="torch"']
    evox_s = next(line.split("|")[2].strip() for line in read(
        "h100-2026-11-26-python", "python_pso.md").splitlines()
        if line.startswith("| EvoX"))
    return f"""### PSO from Python, objectives on the GPU's arrays

The run above, clkit alone. A PyTorch objective with `array="torch"`
gets the swarm's own memory as a CUDA tensor, and its values stay on the
GPU; then the same objective in a loop of `clkit.pso.PSO`'s ask and tell.
Against the goals: the PyTorch objective takes {torch_s / source_s:.1f} times the
OpenCL C objective's time (goal: 3 times at most). EvoX's compiled loop
took {evox_s} s in the table above, another call on the same kind of
machine; EvoX was not installed for this one.

{source([run, ("h100-2026-11-26-python-device", "run.txt")],
        f"{H100}; PyTorch 2.11.0", "2026-11-26",
        "`python3 bench/python_pso.py --device cuda:0 --repeat 3 --only "
        "'OpenCL C,array'`")}

""" + "\n".join(lines)


def h100_python_opencl():
    run = ("h100-2026-11-26-python-opencl", "python_pso.md")
    lines, rows = clkit_rows(run)
    rows_s = rows["clkit on ocl:1.0, NumPy callback"]
    view_s = rows['clkit on ocl:1.0, NumPy view, array="dlpack"']
    return f"""### PSO from Python on NVIDIA's OpenCL, NumPy objectives

Rastrigin, d = 30, 100,000 particles, 30 iterations, on the H100 through
NVIDIA's OpenCL (`ocl:1.0`). The default NumPy callback takes float64
rows that Python owns. With `array="dlpack"` the callable reads the
swarm's page-locked host copy in place (`np.asarray(X)`, float32). That
view ran {rows_s / view_s:.1f} times faster here.

{source([run, ("h100-2026-11-26-python-opencl", "run.txt")],
        f"{H100}; NVIDIA OpenCL 3.0 CUDA 13.0.98", "2026-11-26",
        "`python3 bench/python_pso.py --device ocl:1.0 --iters 30 "
        "--repeat 2 --only 'NumPy,OpenCL C'`")}

""" + "\n".join(lines)


def epyc_session():
    run = "cpu2-2026-11-26-session"
    bench = (run, "python_pso_session.md")
    load = [line.split()[2] for line in read(run, "run.txt").splitlines()]
    parts = []
    for line in read(*bench).splitlines():
        if line.startswith("# "):
            parts.append(f"\n{line[2]}{line[3:]}:\n")
        elif line.startswith("|"):
            parts.append(line)
    return f"""### PSO from Python on a session

`clkit.pso.minimize` with Rastrigin as OpenCL C source.

- Call 1 on a `clkit.Session` loads the kernels from the kernel cache,
  which already holds them.
- Later calls reuse the kernels and their buffers, building nothing.
- A new process finds the kernels in the kernel cache.
- The long run compares one call from Python with the command's run.
- The machine was shared: its load average was {load[0]} before and
  {load[1]} after.

{source([bench, (run, "run.txt")], EPYC2, "2026-11-26",
        "`python3 bench/python_pso.py --session --device ocl:0.0 "
        "--particles 10000 --iters 100 --calls 5 --long-particles 4096 "
        "--long-iters 1000 --out python_pso_session.md`")}
""" + "\n".join(parts)


def pocl_cache():
    run = ("h100-2026-11-24-pocl-cache", "pocl-cache.txt")
    cells = {}
    for line in read(*run).splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) != 5:
            continue
        build = re.search(r'"build_s":([\d.]+)', parts[4]).group(1)
        process = parts[3].split()[1]
        cells[(parts[0], parts[1], parts[2])] = (float(process), float(build))
    rows = []
    for command in dict.fromkeys(key[0] for key in cells):
        row = [f"`clkit run {command}`"]
        for setting in ("CLKIT_CACHE=default", "CLKIT_CACHE=1"):
            for state in ("cold", "warm"):
                process, build = cells[(command, setting, state)]
                row.append(f"{process:.2f} s" + (
                    f" (build {build:.1f} s)" if state == "cold" else ""))
        rows.append(row)
    return f"""### Kernel builds on PoCL

A fresh process each, from empty caches (cold) and then again (warm).
By default PoCL's builds go through PoCL's own cache alone;
`CLKIT_CACHE=1` stores them in clkit's cache too.

{source([run], H100_HOST, "2026-11-24",
        "as in the table, `--device pocl --json`")}

{table(["command", "PoCL's cache, cold", "warm", "both caches, cold",
        "warm"], rows)}"""


# ---- fuzzing --------------------------------------------------------------

FUZZ_HARNESSES = ("tsplib", "tour", "optima", "idx", "csv", "lsq", "model",
                  "checkpoint", "xyz")


def quality_rows(run, traces, label=""):
    """The rows of a run's aco_quality.md whose instance has a trace in
    `traces`, the instance named with its --time (and `label`)."""
    rows = []
    for line in read(run, "aco_quality.md").splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if not line.startswith("|") or cells[0] in ("instance", "---"):
            continue
        name = cells[0]
        trace = os.path.join(traces, name + ".json")
        if not os.path.exists(path(run, trace)):
            continue
        seconds = json.loads(read(run, trace))["options"]["time"]
        cells[0] = f"{name}, {seconds:g} s{label}"
        cells[1] = cells[1].replace("(reference)", "(LKH)")
        if not any(row[0] == cells[0] for row in rows):
            rows.append(cells)
    return rows


QUALITY_HEADER = ["instance", "optimum", "length", "gap", "iterations",
                  "s to 2%", "s to 1%", "s to 0.5%", "s to 0.25%"]


def met(value, goal):
    return "met" if value <= goal else "missed"


def gap_at(run, trace, name, seconds):
    """The gap in percent of a kept ACO trace at `seconds`."""
    from aco_methods import gap_at as at
    from aco_quality import read_trace
    optimum = ACO_OPTIMA[name]
    ran = json.loads(read(run, f"{trace}/{name}.json"))["options"]["time"]
    return at(read_trace(path(run, f"{trace}/{name}.csv")), optimum, seconds,
              ran)


# The optima of bench/results' ACO traces (TSPLIB's; LKH's tour for the
# random instance, bench/aco_reference.txt).
ACO_OPTIMA = {"pr2392": 378032, "d15112": 1573084, "pla33810": 66048945,
              "random100000": 223935}


def h100_aco_quality():
    run = "h100-2026-11-26-aco-quality"
    d15112 = gap_at(run, "traces", "d15112", 30)
    pla = gap_at(run, "traces", "pla33810", 60)
    random = gap_at(run, "traces", "random100000", 120)
    pr10 = gap_at(run, "traces", "pr2392", 10)
    seeds = [gap_at(run, f"methods/cuda0-classic-s{s}", "pr2392", 10)
             for s in (1, 2, 3)]
    return f"""### ACO: time to quality, and which method `auto` picks

Each row of the first table is one run, seed 1. pr2392 ran with
`--method classic`, the others with `--method focused`: the methods
`--method auto` picks on a GPU. Its columns give the seconds until the
best tour came within each gap of the optimum, read from the run's
`--trace`. random100000 is measured against LKH's tour
(`bench/aco_reference.txt`, from 2746 s on one CPU core). Against the
goals:

- d15112: {d15112:.3f}% after 30 s (goal 0.35%: {met(d15112, 0.35)}).
- pla33810: {pla:.3f}% after 60 s (goal 0.8%: {met(pla, 0.8)}).
- random:100000: {random:.3f}% over LKH after 120 s (goal 2%: {met(random, 2)}).
- pr2392: {pr10:.3f}% after 10 s, seed 1 (goal 0.2%: {met(pr10, 0.2)}). Over seeds
  1 to 3 the mean is {statistics.mean(seeds):.3f}% ({min(seeds):.3f}% to {max(seeds):.3f}%).

{source([(run, "aco_quality.md"), (run, "traces/"), (run, "h100.svg"),
         (run, "random100000-h100.svg")], H100 + " (cuda:0)", "2026-11-26",
        "`python3 bench/aco_quality.py CLKIT --device cuda:0 --time T "
        "--optima DATA/optima.txt --reference bench/aco_reference.txt "
        "--traces DIR FILE.tsp|random:100000 -- --method M`")}

{table(QUALITY_HEADER, quality_rows(run, "traces"))}

The second table gives the gap at 10, 30 and 60 s of both methods, on
the GPU (cuda:0) and on the host's CPU through PoCL 5.0, with all 16
cores (cpu16) or limited to 8, 4 and 2 (`POCL_CPU_MAX_CU_COUNT` and
`taskset`). A cell is the mean over seeds, with the smallest and
largest; "-" where a run was shorter. `--method auto` follows it:
classic below 5000 cities on a GPU or a CPU of 8 compute units or
more, and below 2000 on narrower devices; focused from there.

{source([(run, "methods.md"), (run, "methods/")], H100 + " and its "
        "16-core Intel Xeon host", "2026-11-26",
        "`python3 bench/aco_quality.py CLKIT --device D --time T "
        "--optima DATA/optima.txt --traces DEVICE-CONFIG-sSEED FILE.tsp "
        "-- --method M --seed S`, then `python3 bench/aco_methods.py "
        "--optima DATA/optima.txt --at 10,30,60 DIR...`")}

{read(run, "methods.md").strip()}"""


def epyc_aco_quality():
    run = "cpu2-2026-11-26-aco-quality"
    return f"""### ACO: time to quality

Each row is one run, seed 1, with the default options. Its columns give
the seconds until the best tour came within each gap of the optimum,
read from the run's `--trace`. `--method auto` runs focused from 2000
cities on a CPU of fewer than 8 compute units. The goal
of 1% on pr2392 in 17 s on 2 cores through PoCL is met. The classic
method, the default here before, ended at 1.067% after 17 s. The SVGs
plot gap against time beside the published anchors.

{source([(run, "aco_quality.md"), (run, "traces/"),
         (run, "pr2392-pocl.svg"), (run, "d15112-pocl.svg")], EPYC2,
        "2026-11-26",
        "`python3 bench/aco_quality.py CLKIT --device ocl:0.0 --time T "
        "--optima DATA/optima.txt --traces DIR --svg PLOT.svg "
        "DATA/NAME.tsp`")}

{table(QUALITY_HEADER, quality_rows(run, "traces"))}"""


def epyc_fuzz():
    run = "fuzz-2026-11-25"
    rows = []
    for harness in FUZZ_HARNESSES:
        text = read(run, f"{harness}.txt")
        done = re.search(r"Done (\d+) runs in (\d+) second", text)
        cov = re.search(r"DONE +cov: (\d+)", text).group(1)
        corpus = re.search(r"corpus files at the end: (\d+)", text).group(1)
        crashes = re.search(r"artifacts \(.*\): (\d+)", text).group(1)
        runs, seconds = int(done.group(1)), int(done.group(2))
        rows.append([harness, f"{runs:,}", f"{seconds:,}",
                     f"{runs // seconds:,}", cov, corpus, crashes])
    return f"""### The file readers under the fuzzer

Each libFuzzer harness of `fuzz/` ran from its seed corpus under
AddressSanitizer and UndefinedBehaviorSanitizer, two at a time.
Coverage counts the instrumented edges reached; artifacts are crashes,
leaks, timeouts and out-of-memory inputs.

{source([(run, "HARNESS.txt")],
        "2 cores of an AMD EPYC, clang 14.0.6", "2026-11-25",
        "`fuzz/run.sh -n 10000000 -t 14400 -w DIR build-fuzz HARNESS`")}

{table(["harness", "executions", "seconds", "exec/s", "coverage",
        "corpus", "artifacts"], rows)}"""


def epyc_peak():
    run = ("cpu2-2026-11-28-peak", "peak_vs_clpeak.txt")
    lines = read(*run).splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("measure ")) + 1
    rows = []
    for line in lines[start:start + 3]:
        fields = line.split()
        rows.append([f"{fields[0]} ({fields[1]})", *fields[2:6]])
    # clkit's peaks beside clpeak's chains, for information.
    for metric in ("fp32", "fp64"):
        fields = next(line.split() for line in lines
                      if line.split()[:2] == [metric, "GFLOP/s"])
        rows.append([f"{metric}, independent (GFLOP/s)", fields[2],
                     fields[3], fields[5].rstrip(";"), "-"])
    widths = []
    start = lines.index("each width (lanes), clkit / clpeak:") + 1
    for line in lines[start:start + 3]:
        fields = line.split()
        widths.append([fields[0], *[pair.replace("/", " / ")
                                    for pair in fields[2::2]]])
    return f"""### clkit peak against clpeak

`bench/peak_vs_clpeak.py`: clpeak and `clkit peak --refresh` in turn
on PoCL, five times each, and the median of each measure. clpeak's
multiply-adds each wait on the one before, as clkit's `fp32_chain` and
`fp64_chain` do ([docs/peak.md](../docs/peak.md#against-clpeak)). A
build shared the two cores. On shared cores the read ratio ranges from
0.82 to 1.28 between runs.

{source([run], EPYC2 + "; clpeak 1.1.2 (Debian 12)", "2026-11-28",
        "`python3 bench/peak_vs_clpeak.py build/tools/clkit --repeat 5`")}

{table(["measure", "clkit", "clpeak", "clkit / clpeak", "within 15%"],
       rows)}

Each width, clkit / clpeak:

{table(["measure", "1 lane", "2", "4", "8", "16"], widths)}

- The chains agree within 9% up to 8 lanes. At 16 lanes clkit's float16
  chain runs as fast as its double16 one, one wait a link; clpeak's
  float16 runs 22% faster than that."""


# ---- bench and peaks on one H200 -------------------------------------------

H200 = ("NVIDIA H200, driver 580.159.04, CUDA 13.0; PoCL 5.0 on the host's "
        "16 Intel Xeon cores")
H200_BENCH = "h200-2026-11-28-bench"


def clpeak_best(text, heading):
    """clpeak's best figure under a heading of its output."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if heading in line) + 1
    values = []
    for line in lines[start:]:
        fields = line.split(":")
        if len(fields) != 2 or not fields[0].strip().startswith(("float",
                                                                 "double")):
            break
        values.append(float(fields[1]))
    return max(values)


def h200_bench():
    report = json.loads(read(H200_BENCH, "bench.json"))
    # A large run and bench's CUDA row of the same call, a workload.
    large, beside = {}, {}
    for line in read(H200_BENCH, "large.txt").splitlines():
        fields = line.split()
        if fields[0] == "large":
            large[fields[1]] = float(fields[2])
        elif fields[0] == "pso1M" and fields[1] == "new":
            large.setdefault("pso", []).append(float(fields[2]))
        elif fields[0] == "bench":
            beside[fields[1]] = float(fields[2])
    large["pso"] = sorted(large["pso"])[1]
    rows = []
    for row in report["bench"]:
        percent = row.get("peak_percent")
        shown = (f"{percent:.3g}% {row['peak_bound']}" if percent is not None
                 else "-")
        versus = "-"
        if row["device"] == "cuda:0" and row["workload"] in large:
            versus = f"{beside[row['workload']] / large[row['workload']]:.3f}"
        rows.append([f"`{row['workload']}`", f"`{row['device']}`", row["size"],
                     num(str(row["throughput"])), row["throughput_unit"],
                     f"{num(str(row['throughput_min']))}–"
                     f"{num(str(row['throughput_max']))}", shown,
                     f"{row['vs_ref']:.3g}x", versus,
                     "yes" if row["agrees"] else "NO"])
    return f"""### Every workload on each device, at its own size

`clkit bench` over ref, CUDA, NVIDIA's OpenCL (`ocl:1.0`) and PoCL
(`ocl:0.0`): each device at the size that fills it, three runs a row, the
median. The column "CUDA / large run" comes from an earlier call on
another H200: bench's CUDA row there against a large run in the same
call. The large runs are the PSO's median of three at 1M particles, 100
dimensions and 100 iterations; the GA at 4096 islands of 256 for 2,000
generations; the gas at 4M particles for 1,000 steps; the MLP
784-1024-1024-10, batch 1024, over 10 epochs. The page
[`{H200_BENCH}/report.html`](results/{H200_BENCH}/report.html) holds
the charts ([a screenshot](results/{H200_BENCH}/report.png)).

{source([(H200_BENCH, "bench.json"), (H200_BENCH, "large.txt")], H200,
        "2026-11-28", f"`{report['command']}`; the large runs with `clkit "
        "run` on `cuda:0`")}

{table(["workload", "device", "size", "throughput", "unit", "range", "peak",
        "x ref", "CUDA / large run", "agrees"], rows)}"""


def h200_peak():
    peaks = json.loads(read(H200_BENCH, "peak.json"))
    clpeak = {"nvidia": read(H200_BENCH, "clpeak_nvidia.txt"),
              "pocl": read(H200_BENCH, "clpeak_pocl.txt")}
    rows = []
    for device in peaks["devices"]:
        if device["id"] == "ref":
            continue
        kind = "pocl" if device["id"] == "ocl:0.0" else "nvidia"
        theirs = {"read": clpeak_best(clpeak[kind], "Global memory bandwidth"),
                  "fp32": clpeak_best(clpeak[kind], "Single-precision"),
                  "fp64": clpeak_best(clpeak[kind], "Double-precision")}
        for measure in ("read", "fp32", "fp64"):
            mine = device["metrics"][measure]["value"]
            rows.append([f"`{device['id']}`", measure, num(str(mine)),
                         num(str(theirs[measure])),
                         f"{mine / theirs[measure]:.3f}"])
    return f"""### clkit peak against clpeak

`clkit peak` and clpeak on the same devices, one run each; clpeak's best
width. CUDA's row is set against clpeak on NVIDIA's OpenCL, the same GPU.
On the Xeon's cores clpeak's multiply-adds each wait on the one before
([docs/peak.md](../docs/peak.md#against-clpeak)).

{source([(H200_BENCH, "peak.json"), (H200_BENCH, "clpeak_nvidia.txt"),
         (H200_BENCH, "clpeak_pocl.txt")], H200 + "; clpeak 1.1.2",
        "2026-11-28", "`clkit peak --device cuda:0,ocl:1.0,ocl:0.0,ref "
        "--json` and `clpeak -p P -d 0 --global-bandwidth --compute-sp "
        "--compute-dp`")}

{table(["device", "measure", "clkit", "clpeak", "clkit / clpeak"], rows)}"""


PSO_STEP = "h200-2026-11-28-pso-step"


def ncu_kernels(text):
    """{kernel: {metric: value}} of ncu's sections, a kernel's first launch."""
    kernels, current = {}, None
    for line in text.splitlines():
        if line.startswith("  ") and not line.startswith("   ") and "(" in line:
            name = line.split()[0]
            current = None if name in kernels else kernels.setdefault(name, {})
        elif current is not None:
            fields = line.split()
            if len(fields) >= 3 and fields[-1].replace(",", "").replace(
                    ".", "", 1).isdigit():
                label = " ".join(fields[:-2] if fields[-2] in (
                    "%", "us", "cycle", "Tbyte/s", "register/thread", "warp",
                    "Ghz") else fields[:-1])
                current.setdefault(label, fields[-1])
    return kernels


def sol_row(label, metrics):
    """A speed-of-light table's row: µs, DRAM %, L2 %, SM %."""
    return [label, metrics["Duration"], metrics["DRAM Throughput"],
            metrics["L2 Cache Throughput"], metrics["Compute (SM) Throughput"]]


def sol_rows(text):
    """sol_row of each kernel in ncu's output, by its name."""
    return [sol_row(f"`{name}`", metrics)
            for name, metrics in ncu_kernels(text).items()]


def before_after(name):
    """Rows of a before (b) / after (n) run file of PSO_STEP: per function
    and dimension, the median rates, their ratio and whether every run
    ended at the same best."""
    runs = {}
    for line in read(PSO_STEP, name).splitlines():
        if line.startswith("#"):
            continue
        tree, function, dim, _, rate, best = line.split()
        runs.setdefault((function, int(dim)), {}).setdefault(tree, []).append(
            (float(rate), best))
    rows = []
    for (function, dim), trees in runs.items():
        base = statistics.median(r for r, _ in trees["b"])
        new = statistics.median(r for r, _ in trees["n"])
        same = {b for _, b in trees["b"]} == {b for _, b in trees["n"]}
        rows.append([function, str(dim), num(f"{base:.4g}"), num(f"{new:.4g}"),
                     f"{new / base:.3f}", "yes" if same else "NO"])
    return rows


def h200_pso_step():
    rows = before_after("pso.txt")
    copy_rows = before_after("pso_copy.txt")
    users = []
    for tree, name in (("b", "before"), ("n", "after")):
        for line in read(PSO_STEP, f"user_{tree}.md").splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if line.startswith("|") and cells[0] not in ("objective", "---"):
                users.append([name] + cells[:5])
    step = ncu_kernels(read(PSO_STEP, "ncu_pso.txt"))["ck_pso_cuda_step"]
    kernels = [sol_row("`ck_pso_cuda_step` (groups)", step)]
    kernels += sol_rows(read(PSO_STEP, "ncu_gas.txt"))
    return f"""### The PSO's CUDA step, and a user's objective in it

- A thread moves all its pairs of a group of rounds before the block's
  barrier, so that their loads overlap.
- A user's OpenCL C objective without data runs in the same step.
- Before: the commit before. After: the commit that made the change.
- Both are built and run in one call, alternating, three runs each; the
  table gives medians.
- 1M particles, 200 iterations. Every run of a row ends at the same best.

{source([(PSO_STEP, "pso.txt"), (PSO_STEP, "machine.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-28",
        "`clkit run pso --fn F --dim D --particles 1000000 --iters 200 "
        "--device cuda:0 --json --quiet`")}

{table(["function", "d", "before (evals/s)", "after (evals/s)", "after / before",
        "same best"], rows)}

Improved personal bests are then copied from the step's shared
coordinates, not read again from x. This holds where one group holds
every dimension. Measured against the step above, in another call, on
another H200:

{source([(PSO_STEP, "pso_copy.txt"), (PSO_STEP, "machine_copy.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-28",
        "as above")}

{table(["function", "d", "before (evals/s)", "after (evals/s)", "after / before",
        "same best"], copy_rows)}

A user's objective, `bench/user_objective.py --device cuda:0` (dim 30,
100,000 particles, 300 iterations), in the same call:

{table(["tree", "objective", "session ms", "/ built-in", "command ms",
        "/ built-in"], users)}

Nsight Compute's speed of light (`ncu --clock-control none`), percent of
each peak: the PSO step at 1M x 100 (rastrigin) with groups, before the
copy from shared coordinates, and the
gas's kernels at 4M particles, ρ 0.8, cell lists, on the tree before it
(`clkit run gas --particles 4194304 --rho 0.8 --steps 8 --device cuda:0`).

{source([(PSO_STEP, "ncu_pso.txt"), (PSO_STEP, "ncu_gas.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-28",
        "`ncu --clock-control none --section SpeedOfLight ...`")}

{table(["kernel", "µs", "DRAM %", "L2 %", "SM %"], kernels)}

- The PSO step moves 20 bytes an update: 2.0 GB an iteration at 1M x 100.
  At 875 µs that is 2.3 TB/s; ncu counts 2.66 TB/s with the personal
  bests' copies.
- Its warps wait on loads (12.6 cycles an instruction) and at barriers
  (9.4): row 0 folds the shares in coordinate order while the others
  wait.
- The gas's scan is bound by L2 (66%), not by DRAM or the SMs."""


GA_USER = "h200-2026-11-28-ga-user"


def ga_runs(name):
    """A run file's 'GA DEVICE TREE OBJECTIVE: wall/best ...' lines as
    {(device, tree, objective): (median ms, the bests)}, in file order."""
    runs = {}
    for line in read(GA_USER, name).splitlines():
        if not line.startswith("GA "):
            continue
        head, values = line.split(": ", 1)
        _, device, tree, objective = head.split(" ", 3)
        pairs = [value.split("/") for value in values.split()]
        runs[(device, tree, objective)] = (
            statistics.median(float(wall) for wall, _ in pairs) * 1e3,
            {best for _, best in pairs})
    return runs


def option_text(objective):
    """'fn rastrigin' as the command spells it: '--fn rastrigin'."""
    return "--" + objective


def ga_user_rows(name):
    """Rows of before (bA) against after (bB): device, objective, median
    ms of each, after / before, and whether every run ends at one best."""
    runs = ga_runs(name)
    rows = []
    for (device, tree, objective), (before, bests) in runs.items():
        if tree != "bA":
            continue
        after, after_bests = runs[(device, "bB", objective)]
        rows.append([device, option_text(objective), f"{before:.2f}",
                     f"{after:.2f}", f"{after / before:.2f}",
                     "yes" if len(bests | after_bests) == 1 else "no"])
    return rows


def ga_native_rows():
    """run_native.txt: each objective's median ms on cuda:0 and its ratio
    to the built-in's; and the bit checks, as table rows."""
    runs = list(ga_runs("run_native.txt").items())
    built_in = runs[0][1][0]
    medians = [[option_text(objective), f"{ms:.2f}", f"{ms / built_in:.2f}",
                "yes" if len(bests) == 1 else "no"]
               for (_, _, objective), (ms, bests) in runs]
    bits = []
    for line in read(GA_USER, "run_native.txt").splitlines():
        if line.startswith("bits "):
            what, rest = line[5:].split(": ", 1)
            words = rest.split()
            bits.append([what, words[1], words[3], words[-1]])
    return medians, bits


def h200_ga_user():
    native_rows, native_bits = ga_native_rows()
    return f"""### The GA's user objective where its child is made

- A user's OpenCL C objective without data is evaluated where the GA
  makes each child, as built-ins are (`CK_GA_FUSE_USER`).
- First in the global-memory kernel; then also in the resident one,
  whose islands stay in local memory; then in CUDA's native kernel.
- Each table: before and after built and run in one call, five runs
  each after one that builds; medians. Every run of a row ends at the
  same best.
- 390 islands of 256, dim 30, 300 generations (99,840 individuals).
- rastrigin.cl is the built-in Rastrigin as OpenCL C; levy.cl is Levy's
  function, which has no built-in.

Evaluated after each generation (before) against in the global-memory
kernel (after):

{source([(GA_USER, "run_global.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-28",
        "`clkit run ga --fn rastrigin|--objective F --dim 30 --islands 390 "
        "--island-size 256 --gens 300 --lo -5.12 --hi 5.12 --seed 1 "
        "--device D --json --quiet`")}

{table(["device", "objective", "before ms", "after ms", "after / before",
        "same best"], ga_user_rows("run_global.txt"))}

The global-memory kernel (before) against the resident kernel too
(after), in another call:

{source([(GA_USER, "run.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-28",
        "as above")}

{table(["device", "objective", "before ms", "after ms", "after / before",
        "same best"], ga_user_rows("run.txt"))}

- `test_ga` passed on cuda:0 and ocl:1.0 in that call: the fused values
  are the evaluation kernel's, bit for bit, in both forms.
- On cuda:0 the built-in runs the native kernel of `cl/ga.cu`; there a
  user objective ran `cl/ga.cl` through NVRTC.
- The built-ins' sines and cosines are polynomials of their own; the
  user's source calls OpenCL C's.

Then in `cl/ga.cu`, the native CUDA kernel, as built-ins are, in a
third call. The checks come first:

- Each of `ga.cu`'s ways to finish a child: the fused run against the
  same objective taking a data row it ignores (evaluated after each
  generation).
- Those runs: `--dim 6|30`, 24 islands of 128, 60 generations.
- Past 64 genes (chunks): against NVIDIA's OpenCL, since a run is the
  same bits on every device.

{source([(GA_USER, "run_native.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-28",
        "as above, `--device cuda:0`")}

{table(["run", "fused best", "other best", "same genes"], native_bits)}

{table(["objective", "ms", "/ built-in", "same best every run"],
       native_rows)}

- Before this step the user's objectives took 4.45 and 4.64 ms on cuda:0
  (the table above, another call): 11-13% less now, with the same bests.
- The same objectives from Python: "A user's objective at a built-in's
  cost, and PyTorch in stream order", below."""

USER_STREAM = "h200-2026-11-28-user-stream"


def user_rows(name, device, workload=None):
    """A bench/user_objective.py table's rows: [workload?, device,
    objective, session ms, / built-in, command ms, / built-in]."""
    rows = []
    for line in table_lines(USER_STREAM, name):
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] not in ("objective", "---"):
            head = [workload, device] if workload else [device]
            rows.append(head + ["–" if cell == "nan" else cell
                                for cell in cells[:5]])
    return rows


def stream_rows():
    """The PyTorch callables' rows of each tree, before and after."""
    rows = []
    for workload in ("pso", "ga"):
        for tree in ("before", "after"):
            for row in user_rows(f"{workload}_{tree}.md", tree,
                                 workload.upper()):
                if "PyTorch" in row[2] or row[2] == "rastrigin as OpenCL C":
                    rows.append(row[:5])
    return rows


def h200_user_stream():
    same_cost = (user_rows("user_objective_ga.md", "cuda:0", "GA")
                 + user_rows("user_objective_ga_ocl.md", "ocl:1.0", "GA")
                 + user_rows("user_objective_pso.md", "cuda:0", "PSO"))
    timing = [line.split(": ", 1) for line in
              read(USER_STREAM, "timing.txt").splitlines() if ": " in line]
    return f"""### A user's objective at a built-in's cost, and PyTorch in stream order

`bench/user_objective.py` times each objective from Python on a session
and from the `clkit` command. Three OpenCL C sources:

- "rastrigin as OpenCL C" calls OpenCL C's cosine;
- "the built-in's sine" computes the built-in's own polynomial: the same
  cost as the built-in;
- Levy's function has no built-in.

The PyTorch callables take the run's memory (`array="torch"`). "Alone"
is the callable's own kernels: as many calls on one tensor of the same
shape, with no run around them.

{source([(USER_STREAM, "user_objective_ga.md"),
         (USER_STREAM, "user_objective_ga_ocl.md"),
         (USER_STREAM, "user_objective_pso.md")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0; PyTorch 2.11.0",
        "2026-11-28",
        "`python3 bench/user_objective.py --workload ga|pso --device D`")}

{table(["workload", "device", "objective", "session ms", "/ built-in",
        "command ms", "/ built-in"], same_cost)}

- A user objective of a built-in's cost takes 0.82-1.02 times the
  built-in from the command, and 0.91-1.03 from a session.
- The rest of "rastrigin as OpenCL C"'s time is its cosine's.
- This table's PyTorch rows ran on the tree before stream order.

A PyTorch callable now takes X in stream order: PyTorch's stream waits
for the moves, and the run's for the values, with no wait on the host.
Before: the host waited for every batch. Both trees in one call, 16 calls
a row:

{source([(USER_STREAM, "pso_before.md"), (USER_STREAM, "pso_after.md"),
         (USER_STREAM, "ga_before.md"), (USER_STREAM, "ga_after.md")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0; PyTorch 2.11.0",
        "2026-11-28",
        "`python3 bench/user_objective.py --workload pso|ga --device cuda:0 "
        "--calls 16 --repeat 3`")}

{table(["workload", "tree", "objective", "session ms", "/ built-in"],
       stream_rows())}

Where the host's time goes, PSO, Rastrigin and a one-product callable
(`bench/callable_timing.py`, medians over the last run's 301 calls):

{source([(USER_STREAM, "timing.txt"),
         (USER_STREAM, "pso_before_timing_call.md"),
         (USER_STREAM, "pso_after_timing_call.md")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0; PyTorch 2.11.0",
        "2026-11-28", "`python3 bench/callable_timing.py --device cuda:0`")}

{table(["tree, callable", "figures"], timing)}

- PSO: the Rastrigin callable takes 2.98 times the OpenCL C source on a
  session, against 6.2 times before; the goal is 3.
- In the timing's call (`user_objective.py` again, its
  `_timing_call.md` files) the same tree took 40.4 ms against 11.9 ms:
  3.41 times. The goal of 3 is met in one of the two calls.
- The callable's kernels alone take 54 µs of host time a call; inside a
  run, 86-111 µs, most of the run's time.
- With one product, the run's own host time between calls is 67 µs,
  against 127 µs before.
- The timing's runs take longer than `user_objective.py`'s on the same
  tree (66 against 40 ms); compare its figures with each other only."""



GAS_VERLET = "h200-2026-11-29-gas-verlet"


def gas_verlet_rows(name="run.txt", run=GAS_VERLET):
    """Medians of a file's '== REP TREE DEVICE MODE RATE E P' lines: a row
    a device and mode, before (a) and after (b), and whether every run of
    both trees ended at the same energy and pressure."""
    runs = {}
    for line in read(run, name).splitlines():
        fields = line.split()
        if len(fields) == 8 and fields[0] == "==":
            _, _, tree, device, mode, rate, energy, pressure = fields
            runs.setdefault((device, mode), {}).setdefault(tree, []).append(
                (float(rate), energy, pressure))
    rows = []
    for (device, mode), trees in runs.items():
        before = statistics.median(r for r, _, _ in trees["a"])
        after = statistics.median(r for r, _, _ in trees["b"])
        ends = {(e, p) for tree in trees.values() for _, e, p in tree}
        rows.append([f"`{device}`", mode, num(f"{before:.4g}"),
                     num(f"{after:.4g}"), f"{after / before:.2f}",
                     "yes" if len(ends) == 1 else "NO"])
    return rows


GAS_PAIRS_COMMAND = ("`clkit run gas --particles 4194304 --steps 400 "
                     "--device D [--neighbors verlet:SKIN] --log-every 0 "
                     "--json --quiet`")


def gas_pairs(run, name, command, *more):
    """A before/after file of a gas run on the H200 (gas_verlet_rows): its
    source lines (with more files of the run), then its table."""
    files = [(run, name)] + [(run, other) for other in more]
    return f"""{source(files, "NVIDIA H200, driver 580.159.04, CUDA 13.0",
            "2026-11-29", command)}

{table(["device", "mode", "before", "after", "after / before",
        "same energy and pressure"], gas_verlet_rows(name, run))}"""


def gas_verlet_sizes():
    """sizes.txt's '== N DEVICE cells RATE verlet:0.5 RATE' lines as rows."""
    rows = []
    for line in read(GAS_VERLET, "sizes.txt").splitlines():
        fields = line.split()
        if len(fields) == 7 and fields[0] == "==":
            _, n, device, _, cells, _, verlet = fields
            rows.append([num(f"{int(n):.3g}"), f"`{device}`",
                         num(f"{float(cells):.4g}"), num(f"{float(verlet):.4g}"),
                         f"{float(verlet) / float(cells):.2f}"])
    return rows


def h200_gas_verlet():
    kernels = sol_rows(read(GAS_VERLET, "ncu_sol.txt"))
    return f"""### The gas's Verlet lists on GPUs

Particle-steps per second of the gas, 4M particles at the default
ρ = 0.7, 400 steps. Before is the commit before. After it come four
changes.

- The rebuild's kernels launch at most 8 groups a compute unit, each
  work-item taking several slots: most steps they skip themselves.
- A rebuild places each slot back by its rank by id, in place of a
  serial insertion sort a cell.
- The lists are kept in chunks of 32 slots, entry by entry, so that a
  warp reads and writes each entry in one line.
- A list is staged in local memory as it is built.

Both trees in one call, in turns, three runs each; medians.

{gas_pairs(GAS_VERLET, "run.txt", GAS_PAIRS_COMMAND)}

- Verlet lists with a skin of 0.5 now beat cell lists: by 13% on
  `cuda:0` (whose cells run the native kernels), by 81% on NVIDIA's
  OpenCL.
- The next section takes these lists further and makes them the default
  on GPUs.

By size, the tree after, one run each (1000 steps below 4M particles,
300 from 4M):

{source([(GAS_VERLET, "sizes.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-29",
        "`clkit run gas --particles N --steps S --device D "
        "[--neighbors verlet:0.5] --log-every 0 --json --quiet`")}

{table(["N", "device", "cells", "verlet:0.5", "verlet / cells"],
       gas_verlet_sizes())}

- Verlet lists win from about 1M particles on NVIDIA's OpenCL and from
  a few million on `cuda:0`; at 100,000 the rebuilds' launches cost more
  than the lists save.

Lists then built from runs of cells: a row's three cells are one run of
slots (two at a periodic edge), in place of nine lookups, on grids of
at least 3 cells a periodic side. Before: the tree above. Two runs each,
in turns; medians:

{gas_pairs(GAS_VERLET, "rows.txt", "as above, `--neighbors verlet:0.5`")}

- `build_list` took 604 µs a rebuild, against 686 µs before (ncu).

Nsight Compute's speed of light of the Verlet step's kernels, skin 0.5,
on the tree before the runs of cells (a rebuild's `place_by_id` and
`build_list`):

{source([(GAS_VERLET, "ncu_sol.txt"), (GAS_VERLET, "ncu_times.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-29",
        "`ncu --section SpeedOfLight clkit run gas --particles 4194304 "
        "--steps 3 --neighbors verlet:0.5 --device cuda:0`")}

{table(["kernel", "µs", "DRAM %", "L2 %", "SM %"], kernels)}

- A step between rebuilds: `kick_drift` (49 µs), seven skipped launches
  of about 3 µs each, and `forces_list` (203 µs).
- A rebuild adds about 900 µs; `build_list` takes 686 of them, bound by
  the SMs (84%).
- `forces_list` reads each pair's list entry from DRAM: 42-46% of its
  peak, 80% of the SMs'."""


GAS_AHEAD = "h200-2026-11-29-gas-ahead"


def gas_ahead_sizes():
    """sizes.txt's '== size N DEVICE cells R E P v0.3 R E P v0.5 R E P'
    lines as rows."""
    rows = []
    for line in read(GAS_AHEAD, "sizes.txt").splitlines():
        fields = line.split()
        if len(fields) == 16 and fields[:2] == ["==", "size"]:
            n, device = fields[2:4]
            cells, skin3, skin5 = (float(fields[k]) for k in (5, 9, 13))
            rows.append([num(f"{int(n):.3g}"), f"`{device}`",
                         num(f"{cells:.4g}"), num(f"{skin3:.4g}"),
                         num(f"{skin5:.4g}"), f"{skin5 / cells:.2f}"])
    return rows


def gas_ahead_defaults():
    """defaults.txt's '== default DEVICE N RATE MODE E P' lines as rows."""
    rows = []
    for line in read(GAS_AHEAD, "defaults.txt").splitlines():
        fields = line.split()
        if len(fields) == 8 and fields[:2] == ["==", "default"]:
            device, n, rate, mode = fields[2:6]
            rows.append([f"{int(n):,}", f"`{device}`", mode,
                         num(f"{float(rate):.4g}")])
    return rows


def h200_gas_ahead():
    best = max(float(row[3].replace("`", "")) for row in
               gas_verlet_rows("vector.txt", GAS_AHEAD)
               if row[0] == "`cuda:0`" and row[1] == "auto")
    kernels = sol_rows(read(GAS_AHEAD, "ncu_sol.txt"))
    return f"""### The gas's Verlet step, fused, and Verlet by default

Three changes, each measured against the tree before it in one call.
Each ran 4M particles at ρ = 0.7 for 400 steps, three runs each in
turns (medians).

- The list forces take the next step's first half-step (one launch a
  step fewer). A step's rebuild reads one bit of the flag word; the
  forces set the other.
- A pair's position is gathered as one vector load on devices.
- `--neighbors auto`, the default, picks Verlet lists with skin 0.5 on
  a GPU from 2²⁰ particles (cells below, and in spread runs).

The forces' half-step:

{gas_pairs(GAS_AHEAD, "run.txt", GAS_PAIRS_COMMAND)}

The vector load (`auto` is `verlet:0.5` here):

{gas_pairs(GAS_AHEAD, "vector.txt", "as above, `--neighbors cells|auto`",
           "ncu_vector.txt")}

- `build_list` took 560 µs a rebuild against 601 µs, `forces_list`
  195-204 µs a step against 203-224 µs (ncu).
- `cuda:0`'s cells run the native kernels, which this change leaves
  alone.

By size, after the half-step (one run each; 1000 steps below 4M
particles, 300 from 4M):

{source([(GAS_AHEAD, "sizes.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-29",
        "`clkit run gas --particles N --steps S --device D "
        "[--neighbors verlet:SKIN] --log-every 0 --json --quiet`")}

{table(["N", "device", "cells", "verlet:0.3", "verlet:0.5",
        "verlet:0.5 / cells"], gas_ahead_sizes())}

- Verlet lists with skin 0.5 break even with `cuda:0`'s native cells at
  1M particles and lead from 2M; on NVIDIA's OpenCL they lead from 1M.
- Skin 0.5 beats 0.3 at every size here.

The default, `--neighbors auto`, on each side of 2²⁰ particles and
above:

{source([(GAS_AHEAD, "defaults.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-29",
        "`clkit run gas --particles N --steps S --device D --log-every 0 "
        "--json --quiet`")}

{table(["N", "device", "mode chosen", "particle-steps/s"],
       gas_ahead_defaults())}

Nsight Compute's speed of light after all three changes, the default
mode at 4M (a rebuild's `build_list`, then a step's `forces_list`):

{source([(GAS_AHEAD, "ncu_sol.txt"), (GAS_AHEAD, "ncu_times.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-29",
        "`ncu --section SpeedOfLight clkit run gas --particles 4194304 "
        "--steps 3 --device cuda:0`")}

{table(["kernel", "µs", "DRAM %", "L2 %", "SM %"], kernels)}

- A step between rebuilds: `forces_list` (about 200 µs) and seven
  skipped launches of about 3 µs each; `kick_drift` runs only at the
  last step of a call.
- A rebuild's kernels took 828 µs before the vector load
  (`ncu_times.txt`: `count` 33, the scans 13, `scatter` 103, `order` 5,
  `place_by_id` 70, `build_list` 603); `build_list` is bound by the SMs
  (82%). At skin 0.5 a rebuild comes every 5-6 steps.
- The goal of 1.5e10 particle-steps/s at 4M is not reached: the default
  now gives {num(f"{best:.3g}")} on `cuda:0`."""


ACO_ANTS = "h200-2026-11-29-aco-ants"


def aco_ants_rows():
    """ants.txt's '== NAME sSEED LABEL GAP% LENGTH ANTS ITERATIONS ...'
    lines: a row an instance and ant count, the mean gap over its seeds."""
    runs = {}
    for line in read(ACO_ANTS, "ants.txt").splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[0] == "==":
            name, seed, _, gap, _, ants, iterations = fields[1:8]
            runs.setdefault((name, int(ants)), []).append(
                (int(seed[1:]), float(gap.rstrip("%")), int(iterations)))
    rows = []
    for (name, ants), found in sorted(runs.items()):
        by_seed = dict((s, g) for s, g, _ in found)
        gaps = [by_seed[s] for s in sorted(by_seed)]
        first = [by_seed[s] for s in (1, 2, 3) if s in by_seed]
        rows.append([name, str(ants), str(len(gaps)),
                     f"{statistics.mean(first):.3f}%",
                     f"{statistics.mean(gaps):.3f}%",
                     f"{min(gaps):.3f}-{max(gaps):.3f}%",
                     str(round(statistics.mean(i for _, _, i in found)))])
    return rows


def h200_aco_ants():
    return f"""### ACO: ants a compute unit

The classic colony's automatic ants on a GPU are four a compute unit
(512 on the H200's 132), where they were two (256); a focused colony
keeps two (it takes at least 4√n anyway). An iteration of 512 ants took
about as long as one of 256, so a run of fixed time ends with as many
iterations and twice the tours. pr2392 and fnl4461 ran 10 s, pr1002
5 s, d15112 (focused) 30 s; "default" rows are the tree's automatic
count, and run bit for bit as `--ants 512`.

{source([(ACO_ANTS, "ants.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-29",
        "`clkit run aco --instance NAME.tsp --device cuda:0 --time T "
        "--seed S [--ants A] --json --quiet`")}

{table(["instance", "ants", "seeds", "mean gap, seeds 1-3", "mean gap",
        "range", "iterations"], aco_ants_rows())}

- pr2392 in 10 s: a mean of 0.197% over seeds 1-3 with 512 ants (goal
  0.25%), against 0.274% with 256.
- 1024 ants did better on pr1002 (three seeds) but worse on fnl4461,
  with fewer iterations there, and on pr2392's seeds 1-3.
- d15112, focused, is unchanged: 512 ants either way."""


ENGINE = "h200-2026-11-29-engine"


def engine_rates():
    """{(workload, tree): [throughput]} and the units, of rates.txt's
    lines "WORKLOAD TREE rN: RATE UNIT ..." and "... spread-of-one: ..."."""
    rates, units = {}, {}
    for line in read(ENGINE, "rates.txt").splitlines():
        fields = line.split()
        if len(fields) < 5 or fields[0] not in ("gas", "pso", "ga", "nn"):
            continue
        tree = "member" if fields[2] == "spread-of-one:" else fields[1]
        if tree == "member" and fields[1] != "now":
            continue
        rates.setdefault((fields[0], tree), []).append(float(fields[3]))
        units[fields[0]] = fields[4]
    return rates, units


def engine_rows():
    rates, units = engine_rates()
    rows = []
    for workload in ("gas", "pso", "ga", "nn"):
        before = statistics.median(rates[(workload, "before")])
        now = statistics.median(rates[(workload, "now")])
        member = rates[(workload, "member")][0]
        rows.append([workload, units[workload], num(before), num(now),
                     f"{100 * now / before:.1f}%", num(member),
                     f"{100 * member / now:.1f}%"])
    return rows


def engine_aco_rows():
    """Each ACO case and device: both trees' rates and whether their best
    lengths agree."""
    cases = {}
    for line in read(ENGINE, "rates.txt").splitlines():
        if not line.startswith("aco "):
            continue
        head, _, tail = line.partition(": ")
        words = head.split()
        case = " ".join(words[1:-3])
        device, tree = words[-3], words[-2]
        rate = float(tail.split()[0])
        best = tail.split("best=")[1].split()[0]
        entry = cases.setdefault((case, device), {"head": [], "now": [],
                                                  "bests": set()})
        entry[tree].append(rate)
        entry["bests"].add(best)
    rows = []
    for (case, device), entry in cases.items():
        if not entry["head"] or not entry["now"]:
            continue
        ratio = statistics.median(entry["now"]) / \
            statistics.median(entry["head"])
        rows.append([f"`{case}`", device,
                     f"{num(min(entry['head']))}–{num(max(entry['head']))}",
                     f"{num(min(entry['now']))}–{num(max(entry['now']))}",
                     f"{100 * ratio:.1f}%",
                     "yes" if len(entry["bests"]) == 1 else "no"])
    return rows


def h200_engine():
    return f"""### One device as one member

Each workload alone on one GPU, the tree before the member engine
against the tree now. They ran in turns in one call: medians of 3
runs, the MLP's of 5. "One member" is `--spread` on that GPU alone.
The gas is faster now for its Verlet lists, fused step and vector
loads (above). A spread's members took cell lists where `--neighbors`
was auto; a spread of one member now holds the whole box (below).

{source([(ENGINE, "rates.txt"), (ENGINE, "run.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-29",
        "`clkit run WORKLOAD ... --device cuda:0 [--spread] --json --quiet` "
        "(`run.txt`)")}

{table(["workload", "unit", "before", "now", "now / before",
        "one member", "member / alone"], engine_rows())}

An ACO colony on one device is now a colony of one member, and a
network one of one member. Below, the ACO before that change and after
it, two runs each in turns, on CUDA and NVIDIA's OpenCL (tours/s).
Every run of a case ended at the same best length on both trees. The
call ended during fnl4461's last OpenCL run.

{table(["case", "device", "alone", "one member", "median ratio",
        "same best"], engine_aco_rows())}"""


GAS_WHOLE = "h200-2026-11-29-gas-whole"


def gas_whole_runs():
    """{(device, way, tree): [(rate, E, P)]} of rates.txt's lines
    "DEVICE [WAY] TREE rN: RATE UNIT E=.. P=.. ..."."""
    runs = {}
    for line in read(GAS_WHOLE, "rates.txt").splitlines():
        if not line.startswith(("cuda:", "ocl:")):
            continue
        head, _, tail = line.partition(": ")
        device, rest = head.split(" ", 1)
        way, _, tree_run = rest.partition("] ")
        fields = dict(item.split("=", 1) for item in tail.split()
                      if "=" in item)
        runs.setdefault((device, way.strip("[ "), tree_run.split()[0]),
                        []).append((float(tail.split()[0]), fields["E"],
                                    fields["P"]))
    return runs


def gas_whole_rows():
    runs = gas_whole_runs()
    median = {key: statistics.median(r[0] for r in runs[key]) for key in runs}
    rows = []
    for device in ("cuda:0", "ocl:1.0"):
        for mode, flag in (("auto", ""), ("cells", "--neighbors cells")):
            spread = (flag + " --spread").strip()
            alone = median[(device, flag, "now")]
            member = median[(device, spread, "now")]
            same = {(r[1], r[2]) for r in runs[(device, flag, "now")] +
                    runs[(device, spread, "now")]}
            rows.append([f"`{device}`", mode,
                         num(median[(device, flag, "base")]), num(alone),
                         num(median[(device, spread, "base")]), num(member),
                         f"{100 * member / alone:.1f}%",
                         "yes" if len(same) == 1 else "no"])
    return rows


def gas_whole_two():
    """The two-member runs' means, before and now."""
    rates = {"base": [], "now": []}
    for line in read(GAS_WHOLE, "rates.txt").splitlines():
        if line.startswith("two members"):
            words = line.split()
            rates[words[4]].append(float(line.split(": ")[1].split()[0]))
    return (f"{num(statistics.mean(rates['base']))} before and "
            f"{num(statistics.mean(rates['now']))} now (means)")


def h200_gas_whole():
    return f"""### A gas spread of one member: the whole box

A gas spread of one member now holds the whole box: a gas as on one
device, with its default neighbours (Verlet lists here). Before, it
was a slab that exchanged with itself across the periodic edge, with
cell lists by default. 4M particles, 1000 steps; medians of three runs
in turns. "Same E, P" says whether one member's energy and pressure
equal alone's, bit for bit.

{source([(GAS_WHOLE, "rates.txt"), (GAS_WHOLE, "run.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-29",
        "`clkit run gas --particles 4194304 --steps 1000 --device D "
        "[--neighbors cells] [--spread] --log-every 0 --json --quiet`")}

{table(["device", "neighbours", "alone, before", "alone, now",
        "one member, before", "one member, now", "member / alone, now",
        "same E, P"], gas_whole_rows())}

- Two members on one GPU (`--device cuda:0,cuda:0 --shares 1,1`,
  cells), two runs a tree: {gas_whole_two()}."""


# ---- spread runs ----------------------------------------------------------

H200X4 = ("4 NVIDIA H200 joined by NVLink (NV18, all pairs), driver "
          "580.159.04, CUDA 13.0; Open MPI 4.1.6; 64 cores of an Intel Xeon")


def scaling_tables(run):
    """[(workload, heading, table lines)] of bench/scaling.py's output."""
    tables = []
    for line in read(run, "scaling.md").splitlines():
        if line.startswith("# "):
            tables.append((line[2:].split(":")[0], line[2:], []))
        elif line.startswith("|") and tables:
            tables[-1][2].append(line)
    return tables


def scaling_body(run, leave_out=()):
    """A run's bench/scaling.py tables, each under its heading."""
    return "\n\n".join(f"`{heading}`\n\n" + "\n".join(lines)
                         for workload, heading, lines in scaling_tables(run)
                         if workload not in leave_out)


def table_lines(run, name):
    """The Markdown table rows of one of a run's files."""
    return [line for line in read(run, name).splitlines()
            if line.startswith("|")]


def runs_of(line):
    """A run.txt line 'HEAD: WAY=VALUE/WALL ...' as (HEAD, {WAY: [VALUE,
    WALL]})."""
    head, runs = line.split(":", 1)
    return head, {item.split("=")[0]: item.split("=")[1].split("/")
                  for item in runs.split()}


def h200x4_scaling():
    run = "h200x4-2026-11-26-scaling"
    ddp = [line for line in read(run, "ddp.txt").splitlines()
           if line.startswith("torch_ddp:")]
    rates = {}
    for line in ddp:
        match = re.search(r"(\d) GPU\(s\).*batch (\d+) a GPU: ([\d.e+]+)",
                          line)
        rates[(int(match.group(1)), int(match.group(2)))] = \
            float(match.group(3))
    ddp_rows = [[batch, num(rates[(1, batch)]), num(rates[(2, batch)]),
                 num(rates[(4, batch)])] +
                [f"{rates[(k, batch)] / (k * rates[(1, batch)]) * 100:.1f}%"
                 for k in (2, 4)]
                for batch in (1024, 256)]
    # The gas is measured on one GPU (h100_gas_peer): these rows were a
    # cut whose members did not step on their devices.
    body = scaling_body(run, leave_out=("gas",))
    return f"""### Spread runs

Throughput of one run spread over the GPUs (`--spread`), in one process
and over MPI with one rank a GPU, against the one-GPU run without
`--spread`. Weak scaling grows the problem with the GPUs; strong scaling
keeps the four-GPU problem. Shares are equal (`--shares 1,1,...`). The
notes give each member's compute time and the exchange beside the wall
time; [docs/scale-out.md](../docs/scale-out.md) says where the rest goes.

{source([(run, "scaling.md")], H200X4, "2026-11-26",
        "`python3 bench/scaling.py CLKIT --workload W --size-option O "
        "--size N --devices cuda:0,cuda:1,cuda:2,cuda:3 --mpirun mpirun "
        "--mpi-device cuda --equal-shares --repeat R -- OPTIONS`")}

{body}

The MLP trains on Fashion-MNIST's 60,000 training images; its gradients
are summed GPU to GPU through NCCL. The gas is not in these tables: the
4 H100's section has its spread.

PyTorch DDP on the same machine (`bench/torch_ddp.py`, Adam fused,
synthetic rows on the GPU), samples a second:

{source([(run, "ddp.txt")], H200X4 + "; PyTorch 2.11.0", "2026-11-26",
        "`torchrun --nproc_per_node=N bench/torch_ddp.py --batch B "
        "--repeat 2`")}

{table(["batch a GPU", "1 GPU", "2 GPUs", "4 GPUs", "efficiency at 2",
        "at 4"], ddp_rows)}

The spread checks (`tests/spread_check.py`) over the four GPUs, ref
beside them and 2 and 4 MPI ranks: every check passes on cuda
(`check-cuda.txt`). On NVIDIA's OpenCL (`check-ocl.txt`) every check
passes but the GA traces over ranks, which that run compared with ref's:
island means summed on a GPU differ from ref's in the last bits."""


H100X4 = ("4 NVIDIA H100 80GB HBM3 joined by NVLink (NV18, all pairs), "
          "driver 580.159.04, CUDA 13.0; Open MPI 4.1.6; 64 cores of an "
          "Intel Xeon")


def sample_rows(run):
    """The rows of sample_every.txt: one GPU and two, by --sample-every."""
    rates = {}
    for line in read(run, "sample_every.txt").splitlines():
        if line and not line.startswith("#"):
            rate, command = line.split(" ", 1)
            every = int(re.search(r"--sample-every (\d+)", command).group(1))
            rates.setdefault(every, {})["--spread" in command] = float(rate)
    return [[str(every), num(pair[False]), num(pair[True]),
             f"{pair[True] / (2 * pair[False]) * 100:.1f}%"]
            for every, pair in sorted(rates.items())]


def h100x4_scaling():
    run = "h100x4-2026-11-27-scaling"
    body = scaling_body(run)
    medians = {}
    for line in read(run, "gas_median.txt").splitlines():
        if line and not line.startswith("#"):
            rate, command = line.split(" ", 1)
            particles = int(re.search(r"--particles (\d+)", command).group(1))
            mpi = command.startswith("mpirun")
            spread = "--spread" in command
            gpus = len(re.search(r"--device (\S+)", command).group(1)
                       .split(",")) if not mpi else \
                int(re.search(r"-np (\d+)", command).group(1))
            medians[(mpi, spread, gpus, particles)] = float(rate)
    alone = medians[(False, False, 1, 4000000)]
    alone16 = medians[(False, False, 1, 16000000)]
    rows = [["alone", "1", "4M", num(alone), "100.0%", ""],
            ["one member", "1", "4M",
             num(medians[(False, True, 1, 4000000)]),
             f"{medians[(False, True, 1, 4000000)] / alone * 100:.1f}%", ""]]
    for mpi in (False, True):
        for gpus in (2, 4):
            rate = medians[(mpi, True, gpus, 4000000 * gpus)]
            strong = f"{rate / (gpus * alone16) * 100:.1f}%" \
                if gpus == 4 else ""
            rows.append(["mpi" if mpi else "process", str(gpus),
                         f"{4 * gpus}M", num(rate),
                         f"{rate / (gpus * alone) * 100:.1f}%", strong])
    nn = [line for line in read(run, "mlp_scaling.md").splitlines()
          if line.startswith("|")]
    return f"""### Spread runs

Throughput of one run spread over the GPUs (`--spread`), in one process
and over MPI with one rank a GPU, against the one-GPU run without
`--spread`. Weak scaling grows the problem with the GPUs; strong scaling
keeps the four-GPU problem. Shares are equal (`--shares 1,1,...`). Each
figure is the median of three runs after an untimed one. The notes give
each member's compute time and the exchange beside the wall time;
[docs/scale-out.md](../docs/scale-out.md) says where the rest goes.

{source([(run, "scaling.md"), (run, "run.txt"), (run, "machine.txt")],
        H100X4, "2026-11-27",
        "`REPEAT=3 bench/multi_gpu.sh OUT machine build ga pso aco`, then "
        "`... gas nn` on the same machine, which run "
        "`python3 bench/scaling.py CLKIT --workload W --size-option O "
        "--size N --devices cuda:0,cuda:1,cuda:2,cuda:3 --mpirun mpirun "
        "--mpi-device cuda --equal-shares --repeat 3 -- OPTIONS`")}

{body}

The gas on an earlier tree and machine of the same kind that day
(run.txt), the median of three runs after an untimed one, cell lists, 4
million particles a GPU (strong: 16 million, against 16 million on one
GPU, {num(alone16)} particle-steps/s):

{source([(run, "gas_median.txt"), (run, "check.txt")], H100X4, "2026-11-27",
        "`clkit run gas --particles N --steps 1000 --log-every 0 --json "
        "--quiet --device SEL [--spread --shares 1,...]`, and under "
        "`mpirun -np K` with `--device cuda`")}

{table(["run", "GPUs", "particles", "particle-steps/s", "weak",
        "strong"], rows)}

With fewer samples of the observables (`--sample-every`, where a
spread's members settle), the two GPUs come closer to twice one, and one
GPU speeds up too (median of two runs after an untimed one, on
another machine of the same kind that day, an earlier tree: run.txt
says which):

{source([(run, "sample_every.txt")], H100X4, "2026-11-27",
        "`clkit run gas --particles N --steps 1000 --log-every 0 "
        "--sample-every K --json --quiet --device SEL [--spread --shares "
        "1,1]`")}

{table(["--sample-every", "one GPU, 4M", "two GPUs, 8M", "weak"],
       sample_rows(run))}

On that earlier tree, a gas spread over 2 and 4 GPUs gave the same
energies, pressure and temperature to the last bit every way. It ran in
one process and over MPI, device to device (resident steps) and through
the host (`CLKIT_PEER=0`). test_cuda passed on cuda:0 (`check.txt`).

The MLP 784-1024-1024-10, FP32, batch 1024 a GPU, 4 epochs of synthetic
28 x 28 images, beside PyTorch DDP; NCCL's all-reduce alone at the MLP's
sizes in `allreduce.csv` (7.5 MB in 45 µs between two GPUs):

{source([(run, "mlp_scaling.md"), (run, "allreduce.csv")], H100X4,
        "2026-11-27",
        "`NCCL_NVLS_ENABLE=0 bench/mlp_scaling.py BUILD OUT --gpus 4 "
        "--repeat 3 --epochs 4` (from `bench/multi_gpu.sh OUT nn`)")}

""" + "\n".join(nn)


H100X2 = ("2 NVIDIA H100 80GB HBM3 joined by NVLink (NV18), driver "
          "580.159.04, CUDA 13.0, NCCL 2.28.3; Open MPI 4.1.6; 32 cores of "
          "an Intel Xeon")


def h100x2_gas_balance():
    run = "h100x2-2026-11-27-gas-balance"
    rows = []
    for line in read(run, "balance.txt").splitlines():
        if line and not line.startswith("#"):
            steps, shares, rate, seconds = line.split()
            rows.append([steps, "measured" if shares == "measured"
                         else f"`--shares {shares}`", num(float(rate)),
                         f"{float(seconds):.3f}"])
    return f"""### The gas's shares, measured or given

The gas over both GPUs, 8 million particles, cell lists, on tree
909bcce. There, without `--shares`, the members' speeds were measured
over the first second of steps, which go through the host. Now only
devices of several models are measured; equal GPUs share equally, as
with `--shares 1,1`. One run each.

{source([(run, "balance.txt")], H100X2, "2026-11-27",
        "`clkit run gas --particles 8000000 --steps S --device cuda "
        "--spread [--shares 1,1] --log-every 0 --json --quiet`")}

{table(["steps", "shares", "particle-steps/s", "run (s)"], rows)}"""


def h100x2_verlet_parts():
    run = "h100x2-2026-11-27-verlet-parts"
    rates = {}
    for line in read(run, "verlet.txt").splitlines():
        if line and not line.startswith("#"):
            tree, way, gpus, rate = line.split()
            rates.setdefault((way, int(gpus), tree), []).append(float(rate))
    rows = []
    for way, gpus, label in (("process", 1, "one process, one GPU"),
                             ("process", 2, "one process, two GPUs"),
                             ("mpi", 2, "MPI, two ranks")):
        before = statistics.median(rates[(way, gpus, "bo")])
        now = statistics.median(rates[(way, gpus, "b")])
        rows.append([label, num(before), num(now),
                     f"{100 * (now / before - 1):+.1f}%"])
    return f"""### Verlet lists: the interior's forces while the ghosts' positions cross

The gas in Verlet mode, 4 million particles a GPU, 600 steps, spread
over one or two GPUs. Between rebuilds each member queues its
interior's forces before the ghosts' positions cross, and its border's
after. The tree before that ran beside it, in turns: four runs each.
Medians of particle-steps per second.

{source([(run, "verlet.txt"), (run, "run.txt")], H100X2, "2026-11-27",
        "`clkit run gas --particles N --steps 600 --neighbors verlet "
        "--log-every 0 --json --quiet --spread` (run.txt gives each way)")}

{table(["way", "before (103a995)", "now", "change"], rows)}"""


def h100x2_two_tiers():
    run = "h100x2-2026-11-27-two-tiers"
    rates = {}
    for line in read(run, "tiers.txt").splitlines():
        if line and not line.startswith("#"):
            words = line.replace(":", "").split()
            particles, tree = int(words[1]), words[4]
            for way, rate in (("process", words[6]), ("mpi", words[8])):
                rates.setdefault((particles, way, tree), []).append(
                    float(rate))
    rows = []
    for particles in (8000000, 4000000, 2000000):
        for way, label in (("process", "one process"), ("mpi", "MPI")):
            one = statistics.median(rates[(particles, way, "base")])
            two = statistics.median(rates[(particles, way, "new")])
            rows.append([f"{particles // 2000000}M", label, num(one),
                         num(two), f"{100 * (two / one - 1):+.1f}%"])
    return f"""### Cell lists in two tiers

The gas over both GPUs, cell lists, 1000 steps, `--shares 1,1`. A slab
of 2 million particles or more sorts in two tiers: its interior's forces
run while its neighbours' entries come. The tree before that ran beside
it, in turns: three runs each. Medians of particle-steps per second. At
1M a GPU both keep one tier. `bits.txt` gives the same energies every
way at 4.2M particles.

{source([(run, "tiers.txt"), (run, "bits.txt")], H100X2, "2026-11-27",
        "`clkit run gas --device cuda:0,cuda:1 --spread --shares 1,1 "
        "--particles N --steps 1000 --log-every 0 --json --quiet`, and "
        "`mpirun -np 2` with `--device cuda`")}

{table(["particles a GPU", "way", "one tier (6827b7f)", "two tiers",
        "change"], rows)}"""


def gas_ways_rates(run, name):
    """The rates of bench/gas_ways.py's file, by (way, particles); a run
    apart's particles are each GPU's."""
    rates = {}
    for line in read(run, name).splitlines():
        if line and not line.startswith("#"):
            rate, setting, command = line.split(" ", 2)
            particles = int(re.search(r"--particles (\d+)", command).group(1))
            if command.startswith("mpirun"):
                way = {"-": "MPI, CUDA IPC", "CLKIT_IPC=0": "MPI, NCCL",
                       "CLKIT_PEER=0": "MPI, through the host"}[setting]
            elif command.startswith("apart"):
                way = "apart"
            elif "--spread" in command:
                way = "one process"
            else:
                way = "alone"
            rates[(way, particles)] = float(rate)
    return rates


GAS_WAYS = ("one process", "MPI, CUDA IPC", "MPI, NCCL",
            "MPI, through the host")


def h100x2_gas_ways():
    run = "h100x2-2026-11-27-gas-ways"
    rates = gas_ways_rates(run, "gas_ways.txt")
    alone, alone16 = rates[("alone", 4000000)], rates[("alone", 16000000)]
    rows = [["one GPU alone", "", num(alone), "", num(alone16), ""]]
    for way in GAS_WAYS:
        weak, strong = rates[(way, 8000000)], rates[(way, 16000000)]
        rows.append([way, "2", num(weak), f"{weak / (2 * alone) * 100:.1f}%",
                     num(strong), f"{strong / (2 * alone16) * 100:.1f}%"])
    return f"""### The gas by each way

The gas over both GPUs, cell lists, 1000 steps: weak at 4 million
particles a GPU, strong at 16 million, each against one GPU alone.
Over MPI the ranks of one node exchange through CUDA IPC by default;
`CLKIT_IPC=0` makes them go by NCCL, as ranks on several nodes do; and
`CLKIT_PEER=0` through host memory. Each figure is the median of three
runs after an untimed one. The same tree passed test_cuda and the check
on the four GPUs below.

{source([(run, "gas_ways.txt"), (run, "run.txt"), (run, "machine.txt")],
        H100X2, "2026-11-27",
        "`bench/multi_gpu.sh OUT machine build gas-ways`, which runs "
        "`python3 bench/gas_ways.py CLKIT OUT/gas_ways.txt --gpus 2 "
        "--repeat 3`")}

{table(["run", "GPUs", "8M particles (weak)", "weak", "16M (strong)",
        "strong"], rows)}"""


def h100x4_gas_ways():
    run = "h100x4-2026-11-27-gas-ways"
    rows = []
    for gpus in (2, 4):
        rates = gas_ways_rates(run, f"{gpus}gpus_gas_ways.txt")
        alone = rates[("alone", 4000000)]
        alone16 = rates[("alone", 16000000)]
        apart = rates[("apart", 4000000)]
        # Strong: each GPU's share of 16M alone, all at once.
        apart16 = rates[("apart", 16000000 // gpus)]
        if gpus == 2:
            rows.append(["one GPU alone", "1", num(alone), "", "",
                         num(alone16), "", ""])
        rows.append([f"{gpus} runs apart, at once", str(gpus), num(apart),
                     f"{apart / (gpus * alone) * 100:.1f}%", "",
                     num(apart16), "", ""])
        for way in GAS_WAYS:
            weak = rates[(way, gpus * 4000000)]
            strong = rates[(way, 16000000)]
            rows.append([way, str(gpus), num(weak),
                         f"{weak / (gpus * alone) * 100:.1f}%",
                         f"{weak / apart * 100:.1f}%", num(strong),
                         f"{strong / (gpus * alone16) * 100:.1f}%",
                         f"{strong / apart16 * 100:.1f}%"])
    return f"""### The gas by each way, and apart

The gas spread over two and four GPUs, cell lists, 1000 steps: weak at
4 million particles a GPU, strong at 16 million. Efficiency is against
one GPU alone. "Apart" runs one gas a GPU, all at once, with nothing
crossing between them (for strong scaling, 16 million / K each): the
most any overlap of the exchange could reach. Each figure is the median
of three runs after an untimed one. test_cuda passed. In the check, a
small gas gave the same energies, pressure and temperature to the last
bit every way (`run.txt`).

{source([(run, "2gpus_gas_ways.txt"), (run, "4gpus_gas_ways.txt"),
         (run, "run.txt"), (run, "machine.txt")], H100X4, "2026-11-27",
        "`bench/multi_gpu.sh OUT machine build check`, then "
        "`python3 bench/gas_ways.py CLKIT OUT/Kgpus_gas_ways.txt --gpus K "
        "--repeat 3` for K = 2 and 4")}

{table(["run", "GPUs", "weak (4M a GPU)", "weak", "of apart",
        "strong (16M)", "strong", "of apart"], rows)}"""


def h100x2_mlp():
    run = "h100x2-2026-11-27-mlp"
    nn = [line for line in read(run, "mlp_scaling.md").splitlines()
          if line.startswith("|")]
    return f"""### The MLP

The MLP 784-1024-1024-10, FP32, batch 1024 a GPU, 4 epochs of 60,000
random 28 x 28 rows, beside PyTorch DDP. Each clkit figure is the median
of three runs after an untimed one. Each member records its step, NCCL's
sums included, before training, and NCCL takes at most 16 channels
(`channels.txt`: 7% shorter steps than NCCL's own choice; `epochs.txt`:
the first recorded step cost the host 10 ms).

{source([(run, "mlp_scaling.md"), (run, "run.txt"), (run, "machine.txt")],
        H100X2, "2026-11-27",
        "`NCCL_NVLS_ENABLE=0 bench/mlp_scaling.py BUILD OUT --gpus 2 "
        "--repeat 3 --epochs 4` (from `bench/multi_gpu.sh OUT nn`)")}

""" + "\n".join(nn)


def h100x2_ga():
    run = "h100x2-2026-11-27-ga"
    base = table_lines(run, "base.md")
    body = scaling_body(run)
    return f"""### The GA

The GA spread over both GPUs, in one process and over MPI with one rank
a GPU, as bench/scaling.py measures it (weak and strong, equal
shares). On the ring, each member's kernel reads the migrants that
cross inside its launch in the previous member's memory. The tree
before it, whose launches stop at each migration, ran in the same call
(`base.md`). Each figure is the median of three runs after an untimed
one. The runs give one device's best to the last bit (`run.txt`).

{source([(run, "scaling.md"), (run, "base.md"), (run, "run.txt")],
        H100X2, "2026-11-27",
        "`REPEAT=3 bench/multi_gpu.sh OUT ga`, which runs `python3 "
        "bench/scaling.py CLKIT --workload ga --size-option islands --size "
        "4096 --devices cuda:0,cuda:1 --mpirun mpirun --mpi-device cuda "
        "--equal-shares --repeat 3 -- --fn rastrigin --dim 32 "
        "--island-size 256 --gens 5000`")}

{body}

The tree before, in the same call:

""" + "\n".join(base)


def h200x4_ga_engine():
    run = "h200x4-2026-11-28-ga-engine"
    base = table_lines(run, "base.md")
    body = scaling_body(run)
    bests = [line for line in read(run, "run.txt").splitlines()
             if line.startswith(("GA ring", "GA random"))]
    rows = []
    for line in bests:
        head, cells = runs_of(line)
        _, topology, _, build = head.split()
        walls = [wall for _, wall in cells.values()]
        alike = len({value for value, _ in cells.values()}) == 1
        rows.append(f"| {topology} | {'before' if build == 'A' else 'after'} | "
                    + " | ".join(walls) + f" | {'yes' if alike else 'no'} |")
    return f"""### The GA on the member engine

The GA spread over two of the four GPUs, before and after its members
moved onto the member engine, built and run in the same call. Each
figure is the median of three runs after an untimed one. The second
table gives wall seconds of 1,000 generations of 2,048 islands, alone
and spread, device to device (`CLKIT_PEER=1`) and through the host
(`CLKIT_PEER=0`); every run ends at the same best. Random cycles now
cross through the host.

{source([(run, "scaling.md"), (run, "base.md"), (run, "run.txt")],
        H200X4, "2026-11-28",
        "`python3 bench/scaling.py CLKIT --workload ga --size-option "
        "islands --size 4096 --devices cuda:0,cuda:1 --mpirun mpirun "
        "--mpi-device cuda --equal-shares --repeat 3 -- --fn rastrigin "
        "--dim 32 --island-size 256 --gens 5000`; `clkit run ga --fn "
        "rastrigin --islands 2048 --island-size 256 --dim 32 --gens 1000 "
        "--topology T --device cuda:0[,cuda:1 --spread --shares 1,1]`, "
        "and `mpirun -np 2` with `--device cuda`")}

{body}

The tree before, in the same call:

""" + "\n".join(base) + """

| topology | tree | alone | process, copies | process, host | MPI, IPC | MPI, host | same best |
| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |
""" + "\n".join(rows)


def h200x4_mlp_engine():
    run = "h200x4-2026-11-28-mlp-engine"
    heading = [line[2:] for line in read(run, "mlp_scaling.md").splitlines()
               if line.startswith("# ")]
    after = table_lines(run, "mlp_scaling.md")
    before = table_lines(run, "base.md")
    return f"""### The MLP on the member engine

The MLP's weak scaling over one, two and four GPUs, before and after its
members moved onto the member engine, built and run in the same call
(PyTorch left out). Each figure is the median of three runs after an
untimed one. A small network trained three epochs alone, over two GPUs
(threads, in turn) and over two MPI ranks ends at the same test loss in
both trees (`run.txt`).

{source([(run, "mlp_scaling.md"), (run, "base.md"), (run, "run.txt")],
        H200X4, "2026-11-28",
        "`bench/mlp_scaling.py BUILD OUT --gpus 4 --epochs 10 --repeat 3`")}

`{heading[0]}`

""" + "\n".join(after) + """

The tree before, in the same call:

""" + "\n".join(before)


H200X2 = ("2 NVIDIA H200 joined by NVLink, driver 580.159.04, CUDA 13.0; "
          "Open MPI 4.1.6; 32 cores of an Intel Xeon")


SCALING2 = "h200x2-2026-11-29-scaling"
GAS_SCALING2 = "h200x2-2026-11-30-gas-scaling"


def gas_modes(run, name="gas_modes.txt"):
    """{(run, particles, lists asked): (median rate, lists taken)} of a
    file's timed runs."""
    runs = {}
    for line in read(run, name).splitlines():
        match = re.match(r"(\w+) n=(\d+) (\S+) r\d ([\d.e+]+) (\S+)", line)
        if match:
            way, n, asked, rate, taken = match.groups()
            entry = runs.setdefault((way, int(n), asked), ([], taken))
            entry[0].append(float(rate))
    return {key: (statistics.median(rates), taken)
            for key, (rates, taken) in runs.items()}


def gas_mode_rows(modes):
    names = {"alone": "one GPU", "process2": "two GPUs, one process",
             "mpi2": "two GPUs, MPI"}
    rows = []
    for (way, n, asked), (rate, taken) in modes.items():
        share = n if way == "alone" else n // 2
        same = modes.get(("alone", share, taken))
        default = modes[("alone", share, "auto")][0]
        gpus = 1 if way == "alone" else 2
        rows.append([f"{n / 1e6:.0f}M", names[way], f"`{asked}`", taken,
                     num(rate),
                     f"{rate / (2 * same[0]) * 100:.1f}%"
                     if same and gpus == 2 else "-",
                     f"{rate / (gpus * default) * 100:.1f}%"])
    return rows


def h200x2_scaling():
    run = SCALING2
    body = scaling_body(run)
    mlp = read(run, "mlp_scaling.md").splitlines()
    return f"""### Spread runs

Throughput of one run spread over both GPUs (`--spread`), in one process
and over MPI with one rank a GPU, against one GPU without `--spread`.
Every run takes its default settings but the size and equal shares.
Each figure is the median of three runs after an untimed one. The gas's
table is in the next section, with its own date.

{source([(run, "scaling.md"), (run, "mlp_scaling.md"),
         (run, "mlp_scaling.csv"), (run, "allreduce.csv"),
         (run, "check.txt"), (run, "machine.txt")],
        H200X2, "2026-11-29",
        "`REPEAT=3 TSPLIB_DIR=DIR bench/multi_gpu.sh OUT machine build "
        "check pso ga aco nn`")}

{body}

`{mlp[0][2:]}`

""" + "\n".join(line for line in mlp if line.startswith("|")) + """

- Every workload's spread over two GPUs runs faster than one GPU but
  the ACO's strong rows, which run as fast as one GPU.
- The ACO's strong rows keep 512 ants: two GPUs run them as fast as
  one runs 256, so the run takes as long.
- `check.txt`: `test_cuda` passes, and the gas's and the GA's spreads
  give the same figures every way."""


def run_busy(run, mode, scaling, devices):
    """A scaling row's slowest member's compute time over its wall time."""
    for line in table_lines(run, "scaling.md"):
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if cells[:3] == [mode, scaling, str(devices)]:
            match = re.search(r"compute [\d.]+-([\d.]+) s, .* of ([\d.]+) s",
                              cells[6])
            return f"{100 * float(match.group(1)) / float(match.group(2)):.0f}%"
    raise ValueError(f"{run}: no {mode} {scaling} row of {devices}")


def h200x2_gas_scaling():
    run = GAS_SCALING2
    modes = gas_modes(run)
    alone = modes[("alone", 4000000, "auto")][0]
    cells = modes[("alone", 4000000, "cells")][0]
    return f"""### The gas over two GPUs

The gas's spread over both GPUs as the spread runs above are measured,
and by its neighbour lists: medians of three runs after an untimed one,
1000 steps. The last two columns of the second table compare two GPUs
with twice one GPU alone on a GPU's share of the particles: in the
lists the spread took, and in one GPU's default. Both tables ran on
41cc86f.

{source([(run, "scaling.md"), (run, "gas_modes.txt"),
         (run, "machine.txt")], H200X2, "2026-11-30",
        "`REPEAT=3 bench/multi_gpu.sh OUT machine gas`; `clkit run gas "
        "--particles N --steps 1000 --neighbors L --device cuda:0[,cuda:1 "
        "--spread --shares 1,1] --log-every 0 --json --quiet`, and `mpirun "
        "-np 2` with `--device cuda`")}

{scaling_body(run)}

{table(["particles", "run", "asked", "lists", "particle-steps/s",
        "against alone, same lists", "against alone, default"],
       gas_mode_rows(modes))}

- Two members of 4M particles each take Verlet lists, as one GPU does.
  On 41cc86f a spread's members took them from 3,145,728 particles a
  member; now from 2²⁰ ("Cells or Verlet lists for a spread's
  members").
- One GPU's Verlet lists run {alone / cells:.2f} times as fast as its cells
  at 4M particles.
- The notes' compute time is each member's kernel time over the steps.
  One member's GPU is busy {run_busy(run, "process", "weak", 1)} of the
  time, each of two members' {run_busy(run, "process", "weak", 2)}.
- A spread's Verlet step reads each member's rebuild flag on the host
  every step. Its forces come in two launches: the interior's, then the
  border's, over the border's slots that each rebuild lists. One device
  reads no flag and takes its forces in one launch."""


def h200x2_aco_engine():
    run = "h200x2-2026-11-28-aco-engine"
    body = scaling_body(run)
    base = table_lines(run, "base.md")
    rows = []
    for line in read(run, "run.txt").splitlines():
        if not line.startswith(("ACO A6", "ACO B6")):
            continue
        head, cells = runs_of(line)
        build, setting = head.split(" ", 2)[1:]
        rows.append(f"| {setting} | {'before' if build == 'A6' else 'after'}"
                    " | " + " | ".join(
                        "/".join(cells[way]) if way in cells else "-"
                        for way in ("alone", "process", "mpi")) + " |")
    return f"""### The ACO on the member engine

The colony spread over both GPUs, before and after its members moved
onto the member engine, built and run in the same call. Each figure is
the median of three runs after an untimed one. The second table gives
each run's length and wall seconds (`--seed 2`): alone, and spread in
one process and over two MPI ranks; the spread runs' colony holds 512
ants, the one alone 256.

{source([(run, "scaling.md"), (run, "base.md"), (run, "run.txt")],
        H200X2, "2026-11-28",
        "`python3 bench/scaling.py CLKIT --workload aco --size-option ants "
        "--size 256 --devices cuda:0,cuda:1 --mpirun mpirun --mpi-device "
        "cuda --equal-shares --repeat 3 -- --instance DIR/pr2392.tsp "
        "--iters 30`; `clkit run aco DIR/pr2392.tsp --method M --iters N "
        "--seed 2 --device cuda:0[,cuda:1 --spread --shares 1,1]`, and "
        "`mpirun -np 2` with `--device cuda`")}

{body}

The tree before, in the same call:

""" + "\n".join(base) + """

| run | tree | alone | process | MPI |
| --- | --- | ---: | ---: | ---: |
""" + "\n".join(rows)


def h200x2_gas_engine():
    run = "h200x2-2026-11-28-gas-engine"
    body = scaling_body(run)
    base = table_lines(run, "base.md")
    ways = {"in-process": "process, GPU to GPU",
            "in-process-host": "process, through the host",
            "mpi-ipc": "MPI, CUDA IPC", "mpi-nccl": "MPI, NCCL",
            "mpi-host": "MPI, through the host"}
    rows, block, tree = [], None, {}
    for line in read(run, "ways.txt").splitlines() + ["== end"]:
        if line.startswith("== "):
            if block and "bA" in tree and "bB" in tree:
                rows.append(block + tree["bA"][:2] + [
                    tree["bA"][2], tree["bB"][2],
                    "yes" if tree["bA"][:2] == tree["bB"][:2] else "no"])
            words = line[3:].split() + [""]
            block = ([words[0], ways[words[1]]] if words[1] in ways
                     else ["cells", "process, 4 members on 2 GPUs"]
                     if words[0] == "grid:" else None)
            tree = {}
        elif block and line.startswith(("bA ", "bB ")):
            f = line.split()
            tree[f[0]] = [f[2], f[4], f[6]]
    again = {}
    for name in ("base_again.md", "scaling_again.md"):
        for line in table_lines(run, name):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] in ("process", "mpi") and cells[2] == "2":
                again.setdefault((cells[0], cells[1]), []).append(cells[5])
    again_rows = [f"| {way} | {scaling} | " + " | ".join(figures) + " |"
                  for (way, scaling), figures in again.items()]
    return f"""### The gas on the member engine

The gas spread over both GPUs, before and after its members moved onto
the member engine (the engine's cut and remake), built and run in the
same call. Each scaling figure is the median of three runs after an
untimed one. The third table gives each way's energy and pressure at
2,000,000 particles after 300 steps (`--seed 4`; 400,000 where two
members share each GPU), and each tree's wall seconds.

{source([(run, "scaling.md"), (run, "base.md"), (run, "ways.txt"),
         (run, "scaling_again.md"), (run, "base_again.md")],
        H200X2, "2026-11-28",
        "`python3 bench/scaling.py CLKIT --workload gas --size-option "
        "particles --size 4000000 --devices cuda:0,cuda:1 --mpirun mpirun "
        "--mpi-device cuda --equal-shares --repeat 3 -- --steps 1000 "
        "--log-every 0`; `clkit run gas --particles 2000000 --steps 300 "
        "--seed 4 --neighbors L --device cuda:0,cuda:1 --spread`, and "
        "`mpirun -np 2` with `--device cuda`; `CLKIT_PEER=0`, "
        "`CLKIT_IPC=0`")}

{body}

The tree before, in the same call:

""" + "\n".join(base) + """

| lists | way | energy | pressure | before (s) | after (s) | same |
| --- | --- | ---: | ---: | ---: | ---: | --- |
""" + "\n".join("| " + " | ".join(row) + " |" for row in rows) + """

The two GPUs' efficiency again, in a second call on the same machine
(the after tree first):

| run | scaling | before | after |
| --- | --- | ---: | ---: |
""" + "\n".join(again_rows)


def h200x2_mlp_epochs():
    run = "h200x2-2026-11-28-mlp-epochs"
    tables = []
    for epochs in (3, 10):
        name = f"mlp_epochs{epochs}.md"
        heading = [line[2:] for line in read(run, name).splitlines()
                   if line.startswith("# ")]
        tables.append(f"`{heading[0]}`\n\n" +
                      "\n".join(table_lines(run, name)))
    return f"""### The MLP spread over 3 epochs and over 10

The MLP's weak scaling over two GPUs in a run of 3 epochs and in one of
10, one after the other in the same call (PyTorch left out). Each
figure is the median of three runs after an untimed one, as clkit
reports it: samples a second over the epochs' training time.

{source([(run, "mlp_epochs3.md"), (run, "mlp_epochs10.md"),
         (run, "machine.txt")], H200X2, "2026-11-28",
        "`bench/mlp_scaling.py BUILD OUT --gpus 2 --epochs E --repeat 3`")}

""" + "\n\n".join(tables)


def h100x2_pso_aco():
    run = "h100x2-2026-11-27-pso-aco"
    body = scaling_body(run)
    return f"""### PSO and ACO

The swarm and the colony spread over both GPUs, in one process and over
MPI with one rank a GPU, weak and strong, equal shares. Each figure is
the median of three runs after an untimed one.

{source([(run, "scaling.md"), (run, "run.txt")], H100X2, "2026-11-27",
        "`REPEAT=3 TSPLIB_DIR=DATA bench/multi_gpu.sh OUT pso aco`, which "
        "runs `python3 bench/scaling.py CLKIT --workload W --size-option O "
        "--size N --devices cuda:0,cuda:1 --mpirun mpirun --mpi-device "
        "cuda --equal-shares --repeat 3 -- OPTIONS`")}

{body}"""



def tree_lines(run, name):
    """{(case, tree): [(rate, E, P)]} of lines "CASE TREE rN: RATE ..
    E=.. P=..", each case's name up to its tree ("base" or "now")."""
    runs = {}
    for line in read(run, name).splitlines():
        head, _, tail = line.partition(": ")
        words = head.split()
        if len(words) < 3 or words[-2] not in ("base", "now") or not \
                words[-1].startswith("r") or "E=" not in tail:
            continue
        fields = dict(item.split("=", 1) for item in tail.split()
                      if "=" in item)
        runs.setdefault((" ".join(words[:-2]), words[-2]), []).append(
            (float(tail.split()[0]), fields["E"], fields["P"]))
    return runs


def tree_row(runs, case, label):
    """A case's medians before and now, their ratio, and whether every
    run of both trees ended at the same energy and pressure."""
    base = statistics.median(r[0] for r in runs[(case, "base")])
    now = statistics.median(r[0] for r in runs[(case, "now")])
    same = {(r[1], r[2]) for r in runs[(case, "base")] + runs[(case, "now")]}
    return [label, num(base), num(now), f"{now / base:.3f}",
            "yes" if len(same) == 1 else "no"]


MEMBERS_ONE = "h200-2026-12-01-members"

# cmp.txt's cases: each label.
MEMBERS_CASES = {
    "ocl1 verlet 2M": "2M, Verlet, `ocl:1.0` alone",
    "ocl2 verlet 2M": "2M, Verlet, two members on `ocl:1.0`",
    "ocl2 cells 1M": "1M, cells, two members on `ocl:1.0`",
    "ocl2 auto 524k": "524,288, auto, two members on `ocl:1.0`",
    "cuda2 peer0 auto 524k": "524,288, auto, two on `cuda:0`, `CLKIT_PEER=0`",
    "cuda2 peer0 auto 262k": "262,144, auto, two on `cuda:0`, `CLKIT_PEER=0`",
    "cuda2 auto 524k": "524,288, auto, two on `cuda:0` (resident cells)",
    "cuda2 verlet 2M": "2M, Verlet, two members on `cuda:0`",
    "cuda1 4M": "4M, auto, `cuda:0` alone"}


def h200_members_one():
    """Members on one GPU: a shared OpenCL context, and the default
    neighbours where cells cross through the host."""
    rows, same, untouched = [], True, []
    for line in read(MEMBERS_ONE, "cmp.txt").splitlines():
        name, base, new, ratio = [part.strip() for part in line.split(" | ")]
        (rate_b, mode_b, energy_b), (rate_n, mode_n, energy_n) = [
            (run.split()[1], run.split("(")[1].split(",")[0],
             run.split("E ")[1].rstrip(")")) for run in (base, new)]
        same = same and (mode_b != mode_n or energy_b == energy_n)
        rows.append([MEMBERS_CASES[name], num(rate_b), mode_b, num(rate_n),
                     mode_n, ratio.split()[1]])
        if mode_b == mode_n and not name.startswith("ocl2"):
            untouched.append(abs(float(ratio.split()[1]) - 1))
    queues = []
    for line in read(MEMBERS_ONE, "bench_queue.txt").splitlines():
        words = line.split()
        if words[1] != "device":
            tree = {"base": "before", "new": "now"}[words[0]]
            queues.append([tree, f"`{words[1]}`", words[-2], words[-1]])
    return f"""### Members on one GPU: one OpenCL context, and lists through the host

Two changes, the tree before each beside it in the same call:

- A process's queues on one OpenCL device share one context.
- A spread's default neighbours take Verlet lists from 2¹⁷ particles a
  member where cell lists would cross through the host.

`bench_queue` times a 16-byte write and a blocking read: one queue alone
(`trip_us`), and two queues at once, each on a thread of its own
(`pair_us`). The gas's rates are medians of three runs in turns, after
an untimed one, in particle-steps/s.

{source([(MEMBERS_ONE, "cmp.txt"), (MEMBERS_ONE, "bench_queue.txt"),
         (MEMBERS_ONE, "machine.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-12-01",
        "`build/bench/bench_queue --device D --megabytes 64 --repeat 5`; "
        "`clkit run gas --particles N --steps S [--neighbors M] --device D "
        "[--spread --shares 1,1] --log-every 0 --json --quiet` (cmp.txt "
        "gives each case)")}

{table(["tree", "device", "trip_us", "pair_us"], queues)}

{table(["case", "before", "mode", "now", "mode", "now / before"], rows)}

- Through NVIDIA's OpenCL, two queues in contexts of their own waited
  about ten times as long as in one shared.
- Where the mode stayed, {"every run of both trees ended at the same energy,"
  if same else "the energies differ:"} bit for bit.
- Runs the changes do not touch kept their rates within {100 * max(untouched):.1f}%."""


GAS_ALONE = "h200-2026-11-29-gas-alone"


def h200_gas_alone_engine():
    runs = tree_lines(GAS_ALONE, "rates.txt")
    cases = [
        ("cuda:0 [--particles 4194304 --steps 1000 --log-every 0]",
         "4M, auto (Verlet lists), `cuda:0`"),
        ("ocl:1.0 [--particles 4194304 --steps 1000 --log-every 0]",
         "4M, auto, `ocl:1.0`"),
        ("cuda:0 [--particles 4194304 --steps 1000 --log-every 0 "
         "--neighbors cells]", "4M, cells, `cuda:0`"),
        ("cuda:0 [--particles 65536 --steps 3000 --log-every 10 "
         "--sample-every 10]", "65,536, a call every 10 steps"),
        ("cuda:0 [--model log:1:1 --particles 8192 --steps 300 "
         "--log-every 0]", "8,192, soft-log model, all pairs"),
        ("cuda:0 [--particles 262144 --steps 500 --thermostat "
         "langevin:1:1 --rdf /tmp/rdf.txt --log-every 50]",
         "262,144, Langevin, g(r)")]
    rows = [tree_row(runs, case, label) for case, label in cases]
    calls = tree_lines(GAS_ALONE, "calls.txt")
    rows += [tree_row(calls, case, label) for case, label in (
        ("cuda:0 [--particles 1024 --steps 20000 --log-every 100]",
         "1,024, a call every 10 steps (7 runs)"),
        ("cuda:0 [--particles 4096 --steps 10000 --sample-every 1 "
         "--log-every 0]", "4,096, a call every step (7 runs)"))]
    text = read(GAS_ALONE, "rates.txt")
    restarts = {tree: line.split("E=")[1].split()[0]
                for tree in ("base", "now") for line in text.splitlines()
                if line.startswith(f"restart {tree}:")}
    alike = "checkpoints alike byte for byte" in text
    return f"""### A gas on one device: a spread of one member

A gas on one device is now a spread of one member on the member engine:
the gas made as before, then adopted as the engine's member. Its steps
go through the engine; its reads and checkpoints go to the member. The
tree before ran beside it, in turns: medians of three runs (two for the
soft-log and Langevin rows). "Same E, P": every run of both trees ended
at the same energy and pressure, bit for bit.

{source([(GAS_ALONE, "rates.txt"), (GAS_ALONE, "calls.txt"),
         (GAS_ALONE, "run.txt")],
        "NVIDIA H200, driver 580.159.04, CUDA 13.0", "2026-11-29",
        "`clkit run gas --particles N --steps S --device D [OPTIONS] "
        "--json --quiet` (run.txt gives each)")}

{table(["run", "before (9e0c1ae)", "now", "now / before", "same E, P"],
       rows)}

- The last two rows ran in a second call, seven runs a tree: a call's
  cost is the same on both.
- A checkpoint written at step 300 was {"the same bytes" if alike
  else "not the same"} on both trees.
- A run restarted from it ended at E = {restarts.get("now")}
  ({"the same" if restarts.get("now") == restarts.get("base")
  else "not the same"} before)."""


GAS_VERLET_HOST = "h200x2-2026-11-30-gas-verlet-host"


def h200x2_gas_verlet_host():
    runs = tree_lines(GAS_VERLET_HOST, "rates.txt")
    rows = [tree_row(runs, case, label) for case, label in (
        ("proc 8M verlet", "two GPUs, 8M, default lists (Verlet)"),
        ("proc 2M verlet", "two GPUs, 2M, `verlet:0.5`"),
        ("one gpu two members 4M verlet",
         "one GPU, two members, 4M, `verlet:0.5`"),
        ("proc 8M cells", "two GPUs, 8M, cells"))]
    return f"""### A spread's Verlet messages through the host

Members of one process send their Verlet lists' messages through the
host: each step waits there for every member's rebuild flag anyway.
Before (d7c9d0f) they copied them device to device. Cell lists keep
their copies and resident steps; their row gives the spread between
turns. Over MPI nothing changed. The tree before ran beside it, in
turns: medians of three runs.

{source([(GAS_VERLET_HOST, "rates.txt"), (GAS_VERLET_HOST, "run.txt")],
        "2 NVIDIA H200 joined by NVLink, driver 580.159.04, CUDA 13.0; "
        "Open MPI 4.1.6",
        "2026-11-30",
        "`clkit run gas --particles N --steps 1000 --device "
        "cuda:0,cuda:1 --spread --shares 1,1 --log-every 0 --json "
        "--quiet` (run.txt gives each)")}

{table(["run", "before (d7c9d0f)", "now (9b97d9d)", "now / before",
        "same E, P"], rows)}

- Two members on one GPU vary by 5% between runs, either tree."""


GAS_MODES = "h200x2-2026-11-30-gas-modes"


def h200x2_gas_modes():
    """Cells against Verlet lists for a spread's members, by size."""
    sizes, ratios = {}, []
    for line in read(GAS_MODES, "modes.txt").splitlines():
        size, way, cells, lists, ratio = line.split(" | ")
        size = int(size.split()[0])
        row = sizes.setdefault(size, [f"{size:,}"])
        row += [num(cells.split()[1]), num(lists.split()[1]),
                ratio.split()[1]]
        ratios.append(float(ratio.split()[1]))
    labels = {("gas-1m", "one"): "one GPU, 2²⁰",
              ("gas-1m", "process"): "two GPUs, one process, 2²⁰ a GPU",
              ("gas-1m", "mpi"): "two GPUs, MPI, 2²⁰ a GPU",
              ("gas-auto", "one"): "one GPU, 4M",
              ("gas-auto", "strong"): "two GPUs, one process, 4M in all"}
    rows, _ = turns_rows(GAS_MODES, "default.txt",
                         lambda case, kind: [labels[case, kind]])
    alone = [line.split(" | ")[2:] for line in
             read(GAS_MODES, "default.txt").splitlines()
             if " | one | " in line]
    same = all(a[a.index("{"):] == b[b.index("{"):] for a, b in alone)
    return f"""### Cells or Verlet lists for a spread's members

A gas spread over both GPUs, each member with cell lists or with Verlet
lists (skin 0.5), by its particles. The modes ran in turns: medians of
three runs after an untimed one.

{source([(GAS_MODES, "modes.txt"), (GAS_MODES, "default.txt"),
         (GAS_MODES, "run.txt")],
        H200X2_DRIVER, "2026-11-30",
        "`clkit run gas --particles 2N --steps 1000 --neighbors "
        "cells|verlet:0.5 --device cuda:0,cuda:1 --spread --shares 1,1 "
        "--log-every 0 --json --quiet`, and `mpirun -np 2` with `--device "
        "cuda`")}

{table(["particles a member", "process, cells", "process, Verlet",
        "Verlet / cells", "MPI, cells", "MPI, Verlet", "Verlet / cells"],
       list(sizes.values()))}

- Verlet lists lead at every size here, by {min(ratios):.3f} times or more.
- So `--neighbors auto` takes them for a spread's members from 2²⁰
  particles a member (`CK_GAS_AUTO_VERLET_MEMBER_FROM`), as for one
  GPU alone. It took them from 3,145,728 on 13c85e3.
- The default on 13c85e3 and now (ea1fb57), in turns in a second call
  (default.txt): medians of three runs after an untimed one. The
  efficiency is over twice one GPU's rate at the size a member; the
  strong row spreads one GPU's 4M particles. One GPU's runs ended at
  {"the same" if same else "other"} energies and pressures in both trees.

{table(["run", "13c85e3", "efficiency", "now", "efficiency"], rows)}"""


GAS_SMALL = "h200x2-2026-12-01-gas-small"


def h200x2_gas_small():
    """A spread gas's ways up to 2^20 particles a member."""
    cases = ["one cells", "one verlet:0.5", "process cells",
             "process cells host", "process verlet:0.5", "mpi cells",
             "mpi cells host", "mpi verlet:0.5"]
    sizes = {}
    for line in read(GAS_SMALL, "ways.txt").splitlines():
        size, case, figures = line.split(" | ")
        sizes.setdefault(int(size.split()[0]), {})[case.strip()] = float(
            figures.split()[0])
    rows, host, lists = [], [], []
    for size, got in sizes.items():
        rows.append([f"{size:,}"] + [num(got[case]) for case in cases])
        for way in ("process", "mpi"):
            host.append(got[way + " cells host"] / got[way + " cells"])
            lists.append(got[way + " verlet:0.5"] / got[way + " cells"])
    return f"""### A spread gas's ways up to 2²⁰ particles a member

The gas alone on one GPU, and spread over both, in one process and
over MPI. Members step cell lists resident (device to device), cell
lists through the host (`CLKIT_PEER=0`), or Verlet lists (skin 0.5).
Medians of three runs in turns, after an untimed one.

{source([(GAS_SMALL, "ways.txt"), (GAS_SMALL, "run.txt")],
        H200X2_DRIVER, "2026-12-01",
        "`clkit run gas --particles 2N --steps 2000 --neighbors "
        "cells|verlet:0.5 --device cuda:0,cuda:1 --spread --shares 1,1 "
        "--log-every 0 --json --quiet`; `mpirun -np 2` with `--device "
        "cuda`; one GPU with N (run.txt gives each)")}

{table(["a member", "one GPU, cells", "one GPU, Verlet", "process, cells",
        "process, cells via host", "process, Verlet", "MPI, cells",
        "MPI, cells via host", "MPI, Verlet"], rows)}

- Through the host, cell lists ran at {min(host):.2f} to {max(host):.2f} of their resident rate.
- Verlet lists ran at {min(lists):.2f} to {max(lists):.2f} of resident cell lists.
- So where the members' cells step resident, the default keeps them
  below 2²⁰ particles a member, and takes Verlet lists from there.
  Where cells would go through the host, it takes the lists from 2¹⁷."""


GAS_BORDER = "h200x2-2026-11-30-gas-border"

H200X2_DRIVER = ("2 NVIDIA H200 joined by NVLink, driver 580.159.04, CUDA 13.0; "
                 "Open MPI 4.1.6")
GAS_TURNS_COMMAND = (
    "`clkit run gas --device cuda:0,cuda:1 --spread --shares 1,1 "
    "--particles 8000000 --steps 1000 --log-every 0 --json --quiet`; "
    "`mpirun -np 2` with `--device cuda`; one GPU with 4000000 "
    "(run.txt gives each)")

# The runs of a turns file (before and after, in turns): each row's label.
TURN_RUNS = {"one": "one GPU, 4M", "process": "two GPUs, one process, 8M",
             "mpi": "two GPUs, MPI, 8M", "strong": "two GPUs, one process, 4M"}


def turns_rows(run, name, head=lambda case, kind: [TURN_RUNS[kind]]):
    """A turns file's rows, each head(case, run) and then each tree's
    median and efficiency; and whether every pair's results agree."""
    rows, same = [], True
    for line in read(run, name).splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        case, kind, *trees = line.split(" | ")
        row, results = head(case, kind), []
        for tree in trees:
            words = tree.split()
            row += [num(words[1]), words[2] if words[2].endswith("%") else ""]
            results.append(tree[tree.index("{"):])
        same = same and results[0] == results[1]
        rows.append(row)
    return rows, same


def h200x2_gas_border():
    """A Verlet member's border forces over every slot, then a list."""
    rows, same = turns_rows(GAS_BORDER, "turns.txt")
    small = {}
    for line in read(GAS_BORDER, "checks.txt").splitlines():
        words = line.split()
        if line.startswith("400k two") and words[2] != "0":
            small.setdefault(words[3], []).append(float(words[5]))
    base, new = (statistics.median(small[t]) for t in ("base", "new"))
    return f"""### A Verlet member's border forces over a list of its slots

A spread's Verlet step computes the interior's forces while the ghosts'
positions cross, then the border's. The border's launch took every
slot, each work-item checking its slot's mark: a few border slots
spread thinly over many groups. Now each rebuild lists the border's
slots, and that launch takes a work-item a listed slot. Both trees
were built in one call and run in turns: medians of five runs after an
untimed one.

{source([(GAS_BORDER, "turns.txt"), (GAS_BORDER, "checks.txt"),
         (GAS_BORDER, "run.txt")],
        H200X2_DRIVER, "2026-11-30", GAS_TURNS_COMMAND)}

{table(["run", "before (caf496e)", "efficiency", "now (41cc86f)",
        "efficiency"], rows)}

- Energies and pressures were {"the same bits" if same else "not equal"} in every pair:
  each slot's forces are its own, in any order.
- At 400,000 particles in all, two GPUs ran as before: {num(str(base))} and
  {num(str(new))} particle-steps/s (medians of three). Over NVIDIA's
  OpenCL too, with the same energy (checks.txt)."""


GAS_ASIDE = "h200x2-2026-11-30-gas-aside"


def h200x2_gas_aside():
    """A Verlet member's ghosts written beside its interior's forces."""
    rows, same = turns_rows(GAS_ASIDE, "turns.txt")
    gated, _ = turns_rows(GAS_ASIDE, "gated.txt")
    gated = [row for row in gated if row[0] != TURN_RUNS["one"]]
    runs, energies = {}, {}
    for words in (line.split() for line in read(GAS_ASIDE, "small.txt").splitlines()):
        energies.setdefault(words[0], set()).add(words[5])
        if words[2] != "r0":
            runs.setdefault((words[0], words[1], words[3]), []).append(float(words[4]))
    small = []
    for n, label in (("n=2000000", "1M"), ("n=400000", "200,000")):
        for way, name in (("process", "one process"), ("mpi", "MPI")):
            base = statistics.median(runs[(n, way, "base")])
            new = statistics.median(runs[(n, way, "new")])
            small.append([label, name, num(str(base)), num(str(new)),
                          f"{new / base:.3f}"])
    alike = all(len(e) == 1 for e in energies.values())
    return f"""### A Verlet member's ghosts written beside its interior's forces

Between rebuilds a spread's Verlet member computes its interior's forces
while the ghosts' positions cross through the host. Their write and
unpack then waited behind the interior's forces in the member's queue.
Now a slab member of 1M particles or more writes them on a queue beside
its own (`ck__queue_beside()`), and the border's forces follow that
queue's mark. Both trees were built in one call and run in turns:
medians of five runs after an untimed one.

{source([(GAS_ASIDE, "turns.txt"), (GAS_ASIDE, "small.txt"),
         (GAS_ASIDE, "gated.txt"), (GAS_ASIDE, "run.txt")],
        H200X2_DRIVER, "2026-11-30", GAS_TURNS_COMMAND)}

{table(["run", "before (06138cd)", "efficiency", "beside", "efficiency"], rows)}

- Energies and pressures were {"the same bits" if same else "not equal"} in every pair.
- The last row takes 2M particles a GPU, its efficiency over twice one
  GPU at 4M. Its members took cell lists in both trees (`--neighbors
  auto` then chose Verlet lists from 3,145,728 a member).
- Smaller members, Verlet lists asked for (`--neighbors verlet:0.5`),
  2000 steps, every slab member beside (small.txt). Energies were
  {"the same in both trees" if alike else "not equal"}:

{table(["a member", "run", "before", "beside", "beside / before"], small)}

- So a slab member writes beside from 1M particles (`ASIDE_FROM`): each
  step's mark and wait cost more than they hide at 200,000.
- With the gate, in a third call (medians of three, gated.txt):

{table(["run", "before (06138cd)", "efficiency", "beside", "efficiency"], gated)}"""


HALO = "h200x2-2026-11-30-halo"


def h200x2_halo():
    """The gas's halo steps before and after the framework runs them."""
    lists = {"gas-auto": "Verlet lists (default)", "gas-cells": "cells"}
    rows, same = turns_rows(HALO, "turns.txt",
                            lambda case, kind: [lists[case], TURN_RUNS[kind]])
    ways = {}
    for words in (line.split() for line in read(HALO, "ways.txt").splitlines()):
        ways.setdefault(words[1], {})[words[0]] = words[4:6]
    alike = all(w["base"] == w["new"] for w in ways.values())
    return f"""### The gas's halo steps in the framework

The framework's halo (`src/framework/halo.c`, `halo_resident.c`) now
runs a spread gas's rebuilds, forward passes, crossings and resident
steps over the gas's ops. Both trees were built in one call and run in
turns: medians of five runs after an untimed one.

{source([(HALO, "turns.txt"), (HALO, "ways.txt"), (HALO, "run.txt")],
        H200X2_DRIVER, "2026-11-30", GAS_TURNS_COMMAND)}

{table(["lists", "run", "before (cb34840)", "efficiency", "now (21646c6)",
        "efficiency"], rows)}

- Energies and pressures were {"the same bits" if same else "not equal"} in every pair.
- At 400,000 particles, each way ended with {"the same energy and pressure" if alike else "other energies"}
  in both trees: cells resident by NCCL's swaps, by CUDA IPC, by tags,
  and two members on one GPU; Verlet lists over MPI (ways.txt)."""


ENGINE_ALL = "h200x2-2026-11-30-engine-all"


def h200x2_engine_all():
    """Every spread before the member engine and now, in turns."""
    workloads = {"pso": "PSO, 1M particles a GPU", "ga": "GA, 4,096 islands a GPU",
                 "aco": "ACO pr2392, 256 ants a GPU",
                 "nn": "MLP, batch 1,024 a GPU, 10 epochs",
                 "gas-cells": "gas, cells, 4M a GPU",
                 "gas-auto": "gas, default lists, 4M a GPU"}
    runs = {"one": "one GPU", "process": "two GPUs, one process",
            "mpi": "two GPUs, MPI", "strong": "two GPUs, 4M in all",
            "one-2x": "one GPU, 8M"}
    rows, rate = [], {}
    for line in read(ENGINE_ALL, "turns.txt").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        case, run, *trees = line.split(" | ")
        row = [workloads[case], runs[run]]
        for tree in trees:
            words = tree.split()
            rate[case, run, words[0]] = float(words[1])
            row += [num(words[1]), words[2] if words[2].endswith("%") else ""]
        rows.append(row)

    def gain(run):
        """The default gas's rate now over before, as a percent more."""
        return 100 * (rate["gas-auto", run, "now"] /
                      rate["gas-auto", run, "base"] - 1)
    return f"""### Every spread before the member engine and now

Each workload alone and spread over both GPUs, on the tree before the
member engine (6186d43, each workload its own spread) and now
(13c85e3; run.txt says what the PSO, GA, ACO and MLP ran). Both trees
of a row were built in one call and run in turns: medians of three
runs after an untimed one. The efficiency is the rate over twice one
GPU's; the strong gas rows spread one GPU's 4M particles.

{source([(ENGINE_ALL, "turns.txt"), (ENGINE_ALL, "run.txt"),
         (ENGINE_ALL, "machine.txt")],
        "2 NVIDIA H200 joined by NVLink, driver 580.159.04, CUDA 13.0; "
        "Open MPI 4.1.6",
        "2026-11-30",
        "`clkit run W --device cuda:0 SIZE N OPTIONS --json --quiet`; with "
        "`--device cuda:0,cuda:1 --spread --shares 1,1` and 2N; `mpirun -np "
        "2` with `--device cuda` (run.txt gives each)")}

{table(["workload", "run", "before", "efficiency", "now", "efficiency"],
       rows)}

- Results: the ACO's tours and the MLP's accuracy were the same on
  both trees. The PSO's and the GA's bests are now evaluated in double
  on the host (ad8ec47): they differ from the 7th significant digit.
- One GPU's gas in cells ended at the same energy and pressure on both
  trees. The spreads' differ from the 6th digit: commit 1497a39 moved the
  slabs' border (shares dealt by the largest remainder). On ref, it
  is the only commit since 6186d43 that changes them.
- By default, one GPU alone now takes Verlet lists. On 13c85e3 a
  spread's members took them from 3,145,728 particles a member: 4M a
  member did (one process, MPI), 2M did not (4M in all). They now take
  them from 2²⁰ ("Cells or Verlet lists for a spread's members").
- So the default's efficiency now compares with one GPU's Verlet
  lists. Its rates grew: {gain("process"):+.1f}% in one process,
  {gain("mpi"):+.1f}% over MPI."""


# ---- the page -------------------------------------------------------------

SECTIONS = [
    ("NVIDIA H100 80GB HBM3", [h100_backends, mlp_against_pytorch,
                               mlp_accuracy, h100_aco, h100_aco_quality,
                               h100_gas, h100_gas_alone,
                               h100_gas_peer,
                               h100_one_member, h100_mlp_one_member,
                               h100_session,
                               h100_pso,
                               h100_queue, pocl_cache, h100_python,
                               h100_python_device, h100_python_opencl]),
    ("2 NVIDIA H100 80GB HBM3", [h100x2_gas_ways, h100x2_two_tiers,
                                 h100x2_gas_balance, h100x2_verlet_parts,
                                 h100x2_mlp, h100x2_ga, h100x2_pso_aco]),
    ("4 NVIDIA H100 80GB HBM3", [h100x4_gas_ways, h100x4_scaling]),
    ("NVIDIA H200", [h200_bench, h200_peak, h200_pso_step, h200_ga_user,
                      h200_user_stream, h200_gas_verlet, h200_gas_ahead,
                      h200_aco_ants, h200_engine, h200_gas_whole,
                      h200_gas_alone_engine, h200_members_one]),
    ("2 NVIDIA H200", [h200x2_scaling, h200x2_gas_scaling, h200x2_gas_border,
                        h200x2_halo, h200x2_gas_aside,
                        h200x2_aco_engine, h200x2_gas_engine,
                        h200x2_gas_verlet_host, h200x2_gas_modes,
                        h200x2_gas_small,
                        h200x2_mlp_epochs, h200x2_engine_all]),
    ("4 NVIDIA H200", [h200x4_scaling, h200x4_ga_engine, h200x4_mlp_engine]),
    ("2 cores of an Intel Xeon", [xeon_pso, xeon_mlp]),
    ("2 cores of an AMD EPYC", [epyc_gas, epyc_aco, epyc_aco_quality,
                                epyc_session, epyc_fuzz, epyc_peak]),
]


HEADER = """<!-- Made by bench/results_table.py: edit the script, not this. -->
# Results

The current figures, one section per machine. Each table names its
device, driver, date and command, and the files under `bench/results/`
it reads. [README.md](README.md) says how to run the benchmarks.
Remake this page with:

```sh
python3 bench/results_table.py > bench/RESULTS.md
```"""


def page():
    parts = [HEADER]
    for machine, sections in SECTIONS:
        parts.append(f"## {machine}")
        parts += [section() for section in sections]
    records = "\n".join(f"- `{run}/`: {what}." for run, what in
                        RECORDS.items())
    parts.append(f"""## Records the sources cite

Comments in the sources cite these runs for a design choice.

{records}""")
    return "\n\n".join(parts) + "\n"


def runs_named():
    named = set(RECORDS)
    for match in re.finditer(r"`([\w.-]+)/[^`/]+`", page()):
        named.add(match.group(1))
    return {run for run in named if os.path.isdir(os.path.join(RESULTS, run))}


CITED = re.compile(r"(?:bench/)?results/([a-z0-9]+-\d{4}-\d{2}-\d{2}[\w.-]*)")


def cited_runs():
    """{run: [files citing it]} over the README, docs/ and the sources."""
    cited = {}
    patterns = ["README.md", "docs/*.md", "bench/*.md", "bench/*.py",
                "bench/*.c", "bench/*.sh", "src/**/*", "cl/**/*",
                "include/**/*", "tests/*", "tools/*", "examples/*"]
    for pattern in patterns:
        for name in glob.glob(os.path.join(ROOT, pattern), recursive=True):
            if not os.path.isfile(name):
                continue
            try:
                with open(name, encoding="utf-8") as handle:
                    text = handle.read()
            except UnicodeDecodeError:
                continue
            for match in CITED.finditer(text):
                run = match.group(1).rstrip(".")
                cited.setdefault(run, []).append(os.path.relpath(name, ROOT))
    return cited


def check():
    failures = []
    fresh = page()
    committed_path = os.path.join(ROOT, "bench", "RESULTS.md")
    with open(committed_path, encoding="utf-8") as handle:
        committed = handle.read()
    if fresh != committed:
        failures.append("bench/RESULTS.md differs from what "
                        "bench/results_table.py makes: run "
                        "'python3 bench/results_table.py > bench/RESULTS.md'")
    present = {entry for entry in os.listdir(RESULTS)
               if os.path.isdir(os.path.join(RESULTS, entry))}
    named = runs_named()
    for run in sorted(present - named):
        failures.append(f"bench/results/{run}/ is named by no table or "
                        "record of bench/results_table.py")
    for run, where in sorted(cited_runs().items()):
        if run not in present:
            failures.append(f"bench/results/{run}/, cited by "
                            f"{', '.join(sorted(set(where)))}, does not exist")
        elif run not in named:
            failures.append(f"bench/results/{run}/, cited by "
                            f"{', '.join(sorted(set(where)))}, is not named "
                            "in bench/RESULTS.md")
    for failure in failures:
        print("FAIL: " + failure)
    print(f"{len(named)} runs named, {len(failures)} failures")
    return 1 if failures else 0


def main(argv):
    if "--help" in argv or "-h" in argv:
        print(__doc__)
        return 0
    if "--check" in argv:
        return check()
    text = page()
    if "--out" in argv:
        with open(argv[argv.index("--out") + 1], "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
