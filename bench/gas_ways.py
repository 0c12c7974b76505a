#!/usr/bin/env python3
"""gas_ways - the gas spread over K GPUs by each way its messages go.

usage: gas_ways.py CLKIT OUT [--gpus K] [--per-gpu N] [--strong N]
                   [--repeat R] [--steps S]

Rows, cell lists, each the median of R runs after an untimed one:
- one GPU alone at N and at the strong size;
- K GPUs apart: K runs at once, one a GPU, each of N particles and of
  the strong size / K, their rates summed: what K GPUs give where
  nothing crosses between them, the most any overlap of the exchange
  could reach;
- K GPUs in one process (device to device);
- K ranks of `mpirun`, one GPU each, by CUDA IPC (the default on one
  host), by NCCL (CLKIT_IPC=0, as ranks on several hosts go), and
  through the host (CLKIT_PEER=0);
at K N particles (weak) and at the strong size.

OUT gets one line a row: the rate (particle-steps/s, as clkit reports
it), the settings, and the command, with `CLKIT` for the binary.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def rate(commands, settings, timeout):
    """The summed rate of the commands, run at once."""
    env = dict(os.environ, **settings)
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
            for command in commands]
    total = 0.0
    failed = False
    for command, run in zip(commands, runs):
        try:
            stdout, stderr = run.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            run.kill()
            stdout, stderr = run.communicate()
        lines = [line for line in stdout.splitlines()
                 if line.startswith("{")]
        if run.returncode or not lines:
            sys.stderr.write(f"failed ({run.returncode}): "
                             f"{' '.join(command)}\n{stderr[-600:]}\n")
            failed = True
        else:
            total += json.loads(lines[-1])["throughput"]
    return None if failed else total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("clkit")
    parser.add_argument("out")
    parser.add_argument("--gpus", type=int, default=2)
    parser.add_argument("--per-gpu", type=int, default=4000000)
    parser.add_argument("--strong", type=int, default=16000000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    k = args.gpus
    base = ["run", "gas", "--steps", str(args.steps), "--log-every", "0",
            "--json", "--quiet"]
    shares = ["--spread", "--shares", ",".join(["1"] * k)]
    devices = ",".join(f"cuda:{g}" for g in range(k))
    mpirun = ["mpirun", "--allow-run-as-root", "--bind-to", "none", "-np",
              str(k)]
    ways = [("ipc", {}), ("nccl", {"CLKIT_IPC": "0"}),
            ("host", {"CLKIT_PEER": "0"})]
    rows = []
    for size in (args.per_gpu, args.strong):
        rows.append(({}, [[args.clkit] + base +
                          ["--particles", str(size), "--device", "cuda:0"]]))
    for size in dict.fromkeys((args.per_gpu, args.strong // k)):
        rows.append(({}, [[args.clkit] + base +
                          ["--particles", str(size), "--device", f"cuda:{g}"]
                          for g in range(k)]))
    for size in dict.fromkeys((k * args.per_gpu, args.strong)):
        particles = ["--particles", str(size)]
        rows.append(({}, [[args.clkit] + base + particles +
                          ["--device", devices] + shares]))
        for _, settings in ways:
            rows.append((settings, [mpirun + [args.clkit] + base + particles +
                                    ["--device", "cuda"] + shares]))
    with open(args.out, "w", encoding="utf-8") as out:
        out.write(f"# The gas over {k} GPUs, cell lists, {args.steps} steps, "
                  f"particle-steps/s: the median of {args.repeat} runs after "
                  "an untimed one.\n")
        for settings, commands in rows:
            rates = []
            for run in range(args.repeat + 1):
                got = rate(commands, settings, args.timeout)
                if got is None:
                    break
                if run:
                    rates.append(got)
            if len(rates) < args.repeat:
                continue
            named = " ".join(f"{key}={value}"
                             for key, value in settings.items()) or "-"
            shown = " ".join("CLKIT" if word == args.clkit else word
                             for word in commands[0])
            if len(commands) > 1:
                # K runs at once, one a GPU: the first names the rest.
                shown = f"apart:{len(commands)} " + shown.replace(
                    "--device cuda:0", "--device cuda:G")
            line = f"{statistics.median(rates):.4e} {named} {shown}"
            out.write(line + "\n")
            out.flush()
            print(line, "runs", " ".join(f"{r:.4e}" for r in rates),
                  flush=True)


if __name__ == "__main__":
    main()
