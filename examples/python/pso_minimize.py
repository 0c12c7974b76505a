#!/usr/bin/env python3
"""Minimise Rastrigin with clkit's PSO, then a NumPy objective of your own.

    python3 -m pip install .
    python3 examples/python/pso_minimize.py [DEVICE]

DEVICE is a selector as `clkit run --device` takes it (default: ref).
"""
import sys

import numpy as np

import clkit

device = sys.argv[1] if len(sys.argv) > 1 else "ref"

# A built-in objective: the same run as
# clkit run pso --fn rastrigin --dim 10 --particles 512 --iters 500 --seed 1
result = clkit.pso.minimize("rastrigin", dim=10, particles=512, iters=500,
                            device=device, seed=1)
print(f"rastrigin on {result.device}: {result.fun:.6g} after {result.nit} "
      f"iterations ({result.wall_s:.3f} s)")


# A vectorised objective in NumPy: X holds every particle, one a row.
def shifted_sphere(X):
    return np.sum((X - 1.5) ** 2, axis=1)


result = clkit.pso.minimize(shifted_sphere, -5, 5, dim=6, particles=128,
                            iters=300, device=device, seed=1)
print(f"shifted sphere: {result.fun:.3g} at {np.round(result.x, 3)}")
print(f"best after 0, 10, 100 iterations: {result.history[[0, 10, 100], 1]}")
