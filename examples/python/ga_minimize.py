#!/usr/bin/env python3
"""Minimise Ackley with clkit's island GA, with a progress bar.

    python3 -m pip install .
    python3 examples/python/ga_minimize.py [DEVICE]

DEVICE is a selector as `clkit run --device` takes it (default: ref).
Ctrl-C stops the run: minimize raises KeyboardInterrupt.
"""
import sys

import clkit

device = sys.argv[1] if len(sys.argv) > 1 else "ref"

result = clkit.ga.minimize("ackley", dim=8, islands=32, island_size=64,
                           gens=400, crossover="sbx:2", mutation="poly:20",
                           device=device, seed=1, progress=True)
print(f"ackley on {result.device}: {result.fun:.6g} after {result.nit} "
      f"generations, {result.nfev} evaluations")
print("x =", result.x)
print("stopped by", result.stopped_by)
