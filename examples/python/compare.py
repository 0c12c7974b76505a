#!/usr/bin/env python3
"""Run one configuration on several devices and check each against ref.

    python3 -m pip install .
    python3 examples/python/compare.py [DEVICES]

DEVICES is a selector as `clkit compare --device` takes it (default:
every device).
"""
import sys

import clkit

devices = sys.argv[1] if len(sys.argv) > 1 else None

table = clkit.compare("pso", devices, fn="rastrigin", dim=8, particles=256,
                      iters=200, seed=1)
print(table)
for row in table:
    if row.status == "CK_OK" and row.agreement is not None:
        print(f"{row.device}: {row.best:.6g}, {row.agreement:.2g} from ref")
sys.exit(0 if table.agrees else 1)
