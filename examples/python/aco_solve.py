#!/usr/bin/env python3
"""Find a short tour of random cities with clkit's ant colony.

    python3 -m pip install .
    python3 examples/python/aco_solve.py [DEVICE]

DEVICE is a selector as `clkit run --device` takes it (default: ref).
"""
import sys

import numpy as np

import clkit

device = sys.argv[1] if len(sys.argv) > 1 else "ref"

# 200 cities in a 1000 x 1000 square; distances are rounded to integers
# (EUC_2D), so coordinates should not be tiny.
cities = np.random.default_rng(1).uniform(0, 1000, size=(200, 2))
result = clkit.aco.solve(cities, time=2.0, ants=32, ls="2opt+oropt",
                         device=device, seed=1, progress=True)
print(f"{result.cities} cities on {result.device}: length {result.length} "
      f"after {result.nit} iterations, stopped by {result.stopped_by}")
print("tour starts", result.tour[:10].tolist())
print("improvements (iteration, length):", result.history[-3:].tolist())
