"""Shared fixtures of the Python package's tests.

The tests run on ref and on an OpenCL device where one is listed (PoCL
here), at small sizes: PoCL builds kernels slowly. CLKIT_EXE names the
built command, whose JSON the results must equal; tests that need it skip
without it.
"""
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import clkit


def _first_device(backend):
    for device in clkit.devices():
        if device.backend == backend:
            return device.id
    return None


OPENCL = _first_device("opencl")
CUDA = _first_device("cuda")
needs_cuda = pytest.mark.skipif(not CUDA, reason="no CUDA device: the "
                                "zero-copy path runs on CUDA devices only")
DEVICES = ["ref", pytest.param(OPENCL, id="opencl") if OPENCL else
           pytest.param(None, id="opencl",
                        marks=pytest.mark.skip(reason="no OpenCL device"))]


@pytest.fixture(params=DEVICES)
def device(request):
    """ref, then the first OpenCL device."""
    return request.param


@pytest.fixture
def cli():
    """Runs the built clkit command with --json and returns its result."""
    exe = os.environ.get("CLKIT_EXE")
    if not exe:
        pytest.skip("CLKIT_EXE does not name the built clkit command")

    def run(*args):
        done = subprocess.run([exe, *args, "--json", "--quiet"],
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    return run


def sphere(X):
    """The built-in sphere in NumPy, summed in coordinate order as the
    built-in sums it."""
    total = np.zeros(X.shape[0])
    for d in range(X.shape[1]):
        total += X[:, d] * X[:, d]
    return total


def check_ctrl_c(code):
    """Runs code in a new Python, which prints "started" once its run is
    under way; Ctrl-C must then end it with KeyboardInterrupt, soon."""
    process = subprocess.Popen([sys.executable, "-c", code],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=os.environ.copy())
    try:
        assert process.stdout.readline().strip() == "started"
        start = time.perf_counter()
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert time.perf_counter() - start < 10
    assert process.returncode != 0
    assert stderr.rstrip().endswith("KeyboardInterrupt"), stderr
