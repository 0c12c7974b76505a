#!/usr/bin/env python3
"""python_pso - clkit.pso from Python against EvoX's and evosax's PSO.

Every row minimises Rastrigin on [-5.12, 5.12]^dim with the same swarm
and iterations on one GPU:

- clkit, OpenCL C objective: Rastrigin as source text, compiled into
  the swarm's kernels (the fast path);
- clkit, NumPy callback: the swarm on the GPU, the objective a vectorised
  NumPy function on the host (clkit.pso.minimize(callable));
- clkit, PyTorch callback: as above, the batch copied to the GPU and
  evaluated by PyTorch;
- clkit, PyTorch callback with array="torch": on a CUDA device the swarm's
  own memory as a CUDA tensor (no copy), the values taken on the device;
- clkit, ask/tell with array="torch": the same objective in a loop of
  clkit.pso.PSO's ask() and tell();
- clkit, NumPy view with array="dlpack", on OpenCL devices only: the
  NumPy callback on the swarm's page-locked host copy, read in place
  (float32), against the float64 rows of the default NumPy callback;
- EvoX (PyTorch) and evosax (JAX): their PSO with their Rastrigin, as
  their documentation runs it.

Each row runs once untimed (compiles, caches), then --repeat times; the
fastest run is kept. Prints a Markdown table: seconds, evaluations a
second and the best value reached. The libraries keep their own
coefficients (clkit: w 0.7298, c1 = c2 = 1.49618 by default; EvoX: w 0.6,
phi_p 2.5, phi_g 0.8; evosax: w 0.75, c1 1.5, c2 2.0), so the best values
compare the methods as shipped, not one algorithm.

    python3 bench/python_pso.py [--device cuda:0[,ocl:1.0]] [--dim 30]
        [--particles 100000] [--iters 300] [--repeat 2] [--out FILE]
        [--only WORD,...]

With --session, it times clkit alone, Rastrigin as OpenCL C source, on
each device:

- --calls calls on one clkit.Session: call 1, then the median and the
  fastest of calls 2..N, with their kernel and build times;
- the first call of a new process, its kernel cache warm (the import not
  timed), twice;
- a long run (--long-particles, --long-iters) from Python on a session,
  after a short call that builds its kernels, against the same run of
  the clkit command (CLKIT_EXE, the build tree's, else clkit on PATH),
  in iterations a second.

    python3 bench/python_pso.py --session [--device cuda:0] [--calls 10]
        [--dim 30] [--particles 100000] [--iters 300]
        [--long-particles 4096] [--long-iters 20000] [--out FILE]

clkit must be importable (PYTHONPATH=BUILD/python after a meson build,
or pip install .); a library that is not installed gives a row that
says so.
"""
import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

LO, HI = -5.12, 5.12

RASTRIGIN_CL = """
float objective(const float *x, int dim) {
  float sum = 10.0f * dim;
  for (int d = 0; d < dim; ++d)
    sum += x[d] * x[d] - 10.0f * cos(6.283185307f * x[d]);
  return sum;
}
"""


def rastrigin_numpy(x):
    return 10.0 * x.shape[1] + np.sum(x * x - 10.0 * np.cos(2 * math.pi * x),
                                      axis=1)


def clkit_rows(args):
    import clkit

    def runner(objective, device, array="numpy"):
        def run():
            result = clkit.pso.minimize(
                objective, lo=LO, hi=HI, dim=args.dim,
                particles=args.particles, iters=args.iters, device=device,
                seed=1, array=array)
            return float(result.fun)
        return run

    objectives = [("OpenCL C objective", RASTRIGIN_CL, "numpy"),
                  ("NumPy callback", rastrigin_numpy, "numpy")]
    try:
        import torch
        if torch.cuda.is_available():
            def rastrigin_torch(x):
                t = torch.from_numpy(x).to("cuda", non_blocking=True)
                f = 10.0 * t.shape[1] + torch.sum(
                    t * t - 10.0 * torch.cos(2 * math.pi * t), dim=1)
                return f.cpu().numpy()

            def rastrigin_on_device(t):
                return 10.0 * t.shape[1] + torch.sum(
                    t * t - 10.0 * torch.cos(2 * math.pi * t), dim=1)
            objectives.append(("PyTorch callback", rastrigin_torch, "numpy"))
            objectives.append(("PyTorch callback, array=\"torch\"",
                               rastrigin_on_device, "torch"))
    except ImportError:
        pass
    rows = [(f"clkit on {device}, {label}", runner(objective, device, array))
            for device in args.device.split(",")
            for label, objective, array in objectives]
    rows += [(f'clkit on {device}, NumPy view, array="dlpack"',
              runner(lambda X: rastrigin_numpy(np.asarray(X)), device,
                     "dlpack"))
             for device in args.device.split(",")
             if not device.startswith("cuda")]
    if any(label.endswith('array="torch"') for label, _, _ in objectives):
        rows += [(f"clkit on {device}, ask/tell, PyTorch objective, "
                  f'array="torch"', asktell_runner(args, device))
                 for device in args.device.split(",")]
    return rows


def asktell_runner(args, device):
    """An ask/tell loop of clkit.pso.PSO, the objective PyTorch on the
    swarm's own memory: the initial swarm and args.iters moves told."""
    import clkit
    import torch

    def run():
        with clkit.pso.PSO(lo=LO, hi=HI, dim=args.dim,
                           particles=args.particles, device=device, seed=1,
                           array="torch") as opt:
            for _ in range(args.iters + 1):
                X = opt.ask()
                opt.tell(10.0 * X.shape[1] + torch.sum(
                    X * X - 10.0 * torch.cos(2 * math.pi * X), dim=1))
            return float(opt.best_f)
    return run


def evox_row(args):
    import torch
    from evox.algorithms import PSO
    from evox.problems.numerical import Rastrigin
    from evox.workflows import EvalMonitor, StdWorkflow

    def run():
        torch.manual_seed(1)
        device = "cuda" if torch.cuda.is_available() else "cpu"
        lb = torch.full((args.dim,), LO, device=device)
        ub = torch.full((args.dim,), HI, device=device)
        monitor = EvalMonitor(full_fit_history=False, device=device)
        workflow = StdWorkflow(PSO(args.particles, lb, ub, device=device),
                               Rastrigin(), monitor, device=device)
        workflow.init_step()
        for _ in range(args.iters - 1):
            workflow.step()
        if device == "cuda":
            torch.cuda.synchronize()
        return float(monitor.get_best_fitness())
    return [("EvoX 1.4 (PyTorch)", run)]


def evosax_row(args):
    import jax
    import jax.numpy as jnp
    from evosax.algorithms import PSO

    def fitness(x):
        return 10.0 * x.shape[1] + jnp.sum(
            x * x - 10.0 * jnp.cos(2 * jnp.pi * x), axis=1)

    strategy = PSO(population_size=args.particles,
                   solution=jnp.zeros(args.dim))
    params = strategy.default_params

    def generation(state, key):
        ask, tell = jax.random.split(key)
        population, state = strategy.ask(ask, state, params)
        population = jnp.clip(population, LO, HI)
        state, _ = strategy.tell(tell, population, fitness(population),
                                 state, params)
        return state, None

    @jax.jit
    def evolve(state, keys):
        return jax.lax.scan(generation, state, keys)[0]

    def run():
        key = jax.random.key(1)
        key, first, init = jax.random.split(key, 3)
        population = jax.random.uniform(first, (args.particles, args.dim),
                                        minval=LO, maxval=HI)
        state = strategy.init(init, population, fitness(population), params)
        keys = jax.random.split(key, args.iters - 1)
        state = evolve(state, keys)
        return float(jax.block_until_ready(state.best_fitness))
    return [("evosax 0.3 (JAX)", run)]


FIRST_CALL = """
import sys, time
import clkit
dim, particles, iters = map(int, sys.argv[2:5])
started = time.perf_counter()
result = clkit.pso.minimize(sys.argv[1], -5.12, 5.12, dim=dim,
                            particles=particles, iters=iters,
                            device=sys.argv[5], seed=1)
print(time.perf_counter() - started, result.kernel_s, result.build_s)
"""


def clkit_command():
    """The clkit command: CLKIT_EXE, the build tree's beside the package
    that was imported, else clkit on PATH."""
    import clkit

    built = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(clkit.__file__)))), "tools", "clkit")
    return (os.environ.get("CLKIT_EXE")
            or (built if os.access(built, os.X_OK) else None)
            or shutil.which("clkit"))


def minimize_call(clkit, session, dim, particles, iters):
    """One call on the session: (seconds, kernel_s, build_s, result)."""
    started = time.perf_counter()
    result = clkit.pso.minimize(RASTRIGIN_CL, LO, HI, dim=dim,
                                particles=particles, iters=iters,
                                session=session, seed=1)
    return time.perf_counter() - started, result.kernel_s, result.build_s, \
        result


def calls_rows(args, clkit, device):
    """--calls calls on a new session, then the first call of a new
    process, the kernel cache warm, twice."""
    with clkit.Session(device) as session:
        calls = [minimize_call(clkit, session, args.dim, args.particles,
                               args.iters) for _ in range(args.calls)]
        stats = session.stats()
    later = calls[1:]
    rows = [[device, "session, call 1", f"{calls[0][0]:.4f}", "",
             f"{calls[0][1]:.4f}", f"{calls[0][2]:.4f}", ""],
            [device, f"session, calls 2..{args.calls}",
             f"{statistics.median(c[0] for c in later):.4f}",
             f"{min(c[0] for c in later):.4f}",
             f"{statistics.median(c[1] for c in later):.4f}",
             f"{max(c[2] for c in later):.4f}",
             f"built {stats['programs_built']}, reused "
             f"{stats['programs_reused']}"]]
    for attempt in ("first", "second"):
        done = subprocess.run(
            [sys.executable, "-c", FIRST_CALL, RASTRIGIN_CL,
             str(args.dim), str(args.particles), str(args.iters), device],
            capture_output=True, text=True, check=False)
        if done.returncode != 0:
            rows.append([device, f"{attempt} new process", "-", "", "", "",
                         f"failed: {done.stderr.strip()[-200:]}"])
            break
        seconds, kernel, build = map(float, done.stdout.split())
        rows.append([device, f"{attempt} new process, warm cache",
                     f"{seconds:.4f}", "", f"{kernel:.4f}", f"{build:.4f}",
                     ""])
    return rows


def long_rows(args, clkit, device, command):
    """A long run from Python on a session (after a short call that
    builds its kernels) and from the command, in iterations a second."""
    particles, iters = args.long_particles, args.long_iters
    rows = []
    with clkit.Session(device) as session:
        minimize_call(clkit, session, args.dim, particles, 2)
        seconds, kernel, build, result = minimize_call(
            clkit, session, args.dim, particles, iters)
    rows.append([device, "Python, session", f"{seconds:.3f}",
                 f"{iters / seconds:.0f}", f"{kernel:.3f}",
                 f"{float(result.fun):.4f}"])
    if not command:
        rows.append([device, "command", "-", "-", "-",
                     "not run: no clkit command (set CLKIT_EXE)"])
        return rows
    with tempfile.TemporaryDirectory(prefix="clkit-bench-") as folder:
        objective = os.path.join(folder, "rastrigin.cl")
        with open(objective, "w", encoding="utf-8") as handle:
            handle.write(RASTRIGIN_CL)
        started = time.perf_counter()
        done = subprocess.run(
            [command, "run", "pso", "--objective", objective, "--lo",
             str(LO), "--hi", str(HI), "--dim", str(args.dim),
             "--particles", str(particles), "--iters", str(iters),
             "--device", device, "--seed", "1", "--json", "--quiet"],
            capture_output=True, text=True, check=False)
        whole = time.perf_counter() - started
    if done.returncode != 0:
        rows.append([device, "command", "-", "-", "-",
                     f"failed: {done.stderr.strip()[-200:]}"])
        return rows
    answer = json.loads(done.stdout)
    rows.append([device, "command, its wall_s", f"{answer['wall_s']:.3f}",
                 f"{iters / answer['wall_s']:.0f}",
                 f"{answer['kernel_s']:.3f}", f"{answer['best']:.4f}"])
    rows.append([device, "command, whole process", f"{whole:.3f}",
                 f"{iters / whole:.0f}", "", ""])
    return rows


def markdown(header, rows):
    return "\n".join(
        ["| " + " | ".join(header) + " |",
         "| " + " | ".join("---" for _ in header) + " |"] +
        ["| " + " | ".join(row) + " |" for row in rows])


def session_text(args):
    """The --session tables, in Markdown."""
    import clkit

    command = clkit_command()
    calls, long = [], []
    for device in args.device.split(","):
        calls += calls_rows(args, clkit, device)
        print(f"{device}: calls timed", file=sys.stderr, flush=True)
        long += long_rows(args, clkit, device, command)
    return (f"# Calls on a session: Rastrigin as OpenCL C source, dim "
            f"{args.dim}, {args.particles} particles, {args.iters} "
            f"iterations, in seconds\n\n" +
            markdown(["device", "calls", "seconds (median)", "fastest",
                      "kernel_s", "build_s", "session"], calls) +
            f"\n\n# A long run: dim {args.dim}, {args.long_particles} "
            f"particles, {args.long_iters} iterations\n\n" +
            markdown(["device", "run", "seconds", "iterations/s",
                      "kernel_s", "best"], long) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--dim", type=int, default=30)
    parser.add_argument("--particles", type=int, default=100000)
    parser.add_argument("--iters", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out")
    parser.add_argument("--only", help="comma-separated words: run the "
                        "rows whose method names one of them")
    parser.add_argument("--session", action="store_true",
                        help="clkit alone, call by call on a session")
    parser.add_argument("--calls", type=int, default=10,
                        help="with --session: calls on the session (2 or "
                        "more)")
    parser.add_argument("--long-particles", type=int, default=4096,
                        help="with --session: the long run's particles")
    parser.add_argument("--long-iters", type=int, default=20000,
                        help="with --session: the long run's iterations")
    args = parser.parse_args()
    if args.session and args.calls < 2:
        parser.error("--calls must be 2 or more")
    if args.session:
        text = session_text(args)
        print(text)
        if args.out:
            with open(args.out, "w", encoding="utf-8") as handle:
                handle.write(text)
        return
    rows = []
    for name, make in (("clkit", clkit_rows), ("EvoX", evox_row),
                       ("evosax", evosax_row)):
        try:
            methods = make(args)
        except Exception as error:  # a library missing or broken here
            rows.append(f"| {name} | - | - | - | not run: "
                        f"{type(error).__name__}: {error} |")
            continue
        for label, run in methods:
            if args.only and not any(word in label
                                     for word in args.only.split(",")):
                continue
            try:
                run()
                times, best = [], None
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    best = run()
                    times.append(time.perf_counter() - started)
                seconds = min(times)
                rate = args.particles * args.iters / seconds
                rows.append(f"| {label} | {seconds:.3f} | {rate:.3g} | "
                            f"{best:.6g} | |")
            except Exception as error:
                rows.append(f"| {label} | - | - | - | failed: "
                            f"{type(error).__name__}: {error} |")
            print(rows[-1], flush=True)
    text = "\n".join(
        [f"# Rastrigin, dim {args.dim}, {args.particles} particles, "
         f"{args.iters} iterations",
         "| method | seconds | evaluations/s | best | notes |",
         "| --- | ---: | ---: | ---: | --- |"] + rows) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
