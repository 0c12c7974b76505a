#!/usr/bin/env python3
"""Train clkit's MLP on UCI letter rows held in NumPy arrays, then save it.

    python3 -m pip install .
    python3 examples/python/nn_fit.py [DEVICE]

DEVICE is a selector as `clkit run --device` takes it (default: ref).
"""
import pathlib
import sys

import numpy as np

import clkit

device = sys.argv[1] if len(sys.argv) > 1 else "ref"
data = pathlib.Path(__file__).resolve().parents[1] / "data"

# Letters A .. Z become classes 0 .. 25; 16 numeric features a row.
raw = np.loadtxt(data / "letter-recognition.data", delimiter=",", dtype=str,
                 max_rows=4000)
names, y = np.unique(raw[:, 0], return_inverse=True)
X = raw[:, 1:].astype(np.float32)

model = clkit.nn.MLP(layers=(128,), epochs=10, device=device, seed=1)
model.fit(X[:3000], y[:3000])
print(f"loss by epoch: {np.round(model.loss_curve_, 3)}")
print(f"test accuracy: {model.score(X[3000:], y[3000:]):.3f}")
print(f"first predictions: {names[model.predict(X[3000:3010])]}")

# The command reads the model too: clkit run nn --load letters.ckn ...
model.save("letters.ckn")
print(clkit.nn.MLP.load("letters.ckn", device=device))
