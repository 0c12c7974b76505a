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

clkit must be importable (PYTHONPATH=BUILD/python after a meson build,
or pip install .); a library that is not installed gives a row that
says so.
"""
import argparse
import math
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

    def runner(objective, device):
        def run():
            result = clkit.pso.minimize(
                objective, lo=LO, hi=HI, dim=args.dim,
                particles=args.particles, iters=args.iters, device=device,
                seed=1)
            return float(result.fun)
        return run

    objectives = [("OpenCL C objective", RASTRIGIN_CL),
                  ("NumPy callback", rastrigin_numpy)]
    try:
        import torch
        if torch.cuda.is_available():
            def rastrigin_torch(x):
                t = torch.from_numpy(x).to("cuda", non_blocking=True)
                f = 10.0 * t.shape[1] + torch.sum(
                    t * t - 10.0 * torch.cos(2 * math.pi * t), dim=1)
                return f.cpu().numpy()
            objectives.append(("PyTorch callback", rastrigin_torch))
    except ImportError:
        pass
    return [(f"clkit on {device}, {label}", runner(objective, device))
            for device in args.device.split(",")
            for label, objective in objectives]


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--dim", type=int, default=30)
    parser.add_argument("--particles", type=int, default=100000)
    parser.add_argument("--iters", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--out")
    args = parser.parse_args()
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
