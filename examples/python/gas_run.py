#!/usr/bin/env python3
"""Run a 2D Lennard-Jones gas step by step and watch its energies.

    python3 -m pip install .
    python3 examples/python/gas_run.py [DEVICE]

DEVICE is a selector as `clkit run --device` takes it (default: ref).
"""
import sys

import numpy as np

import clkit

device = sys.argv[1] if len(sys.argv) > 1 else "ref"

# As clkit run gas --particles 400 --rho 0.7 --T 1 --seed 1.
sim = clkit.gas.Simulation(400, density=0.7, temperature=1.0, device=device,
                           seed=1)
print(f"box {sim.box}, T {sim.temperature:.3f}")
for _ in range(5):
    sim.run(200)  # the state stays on the device between runs
    print(f"step {sim.step:5d}  potential {sim.potential_energy:.4f}  "
          f"total {sim.total_energy:.4f}  pressure {sim.pressure:.3f}")

# Copies of the state, read from the device.
speeds = np.hypot(*sim.velocities.T)
print(f"mean speed {speeds.mean():.3f}; first position {sim.positions[0]}")
try:
    print(sim.to_ase())
except ImportError as error:
    print(error)
