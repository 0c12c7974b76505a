#!/usr/bin/env python3
"""callable_timing - where a PSO run with a PyTorch callable spends its time.

Runs clkit's PSO on one CUDA device with two PyTorch callables on the
swarm's memory (array="torch"): Rastrigin, and one product (x[:, 0] * 1),
whose own cost is small. For each: the median of runs 2..N, and over the
last run's calls the median time inside the callable and between one
call's end and the next call's start (the run's own work and the hand-over
of positions and values, on the host).

    python3 bench/callable_timing.py [--device cuda:0] [--dim 30]
        [--particles 100000] [--iters 300] [--runs 5]

clkit must be importable (PYTHONPATH=BUILD/python after a meson build).
"""
import argparse
import statistics
import sys
import time

PI = 3.14159265


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--dim", type=int, default=30)
    parser.add_argument("--particles", type=int, default=100000)
    parser.add_argument("--iters", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if args.runs < 2:
        parser.error("--runs must be at least 2")
    if not args.device.startswith("cuda"):
        parser.error("--device must be a CUDA device (cuda:N)")
    import clkit
    import torch

    stamps = []

    def rastrigin(x):
        return 10.0 * x.shape[1] + torch.sum(
            x * x - 10.0 * torch.cos(2 * PI * x), dim=1)

    def one_product(x):
        return x[:, 0] * 1.0

    def timed(objective):
        def call(x):
            begun = time.perf_counter()
            values = objective(x)
            stamps.append((begun, time.perf_counter()))
            return values
        return call

    with clkit.Session(args.device) as session:
        for name, objective in (("rastrigin", rastrigin),
                                ("one product", one_product)):
            totals = []
            for _ in range(args.runs):
                stamps.clear()
                begun = time.perf_counter()
                clkit.pso.minimize(timed(objective), -5.12, 5.12,
                                   dim=args.dim, particles=args.particles,
                                   iters=args.iters, session=session, seed=1,
                                   array="torch")
                totals.append(time.perf_counter() - begun)
            inside = [end - start for start, end in stamps]
            between = [stamps[i + 1][0] - stamps[i][1]
                       for i in range(len(stamps) - 1)]
            print(f"{name}: run ms {1e3 * statistics.median(totals[1:]):.2f}; "
                  f"calls {len(stamps)}; inside µs "
                  f"{1e6 * statistics.median(inside):.1f}; between µs "
                  f"{1e6 * statistics.median(between):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
