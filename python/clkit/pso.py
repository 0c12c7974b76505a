"""Particle swarm optimisation (clkit's pso workload)."""
from . import _run
from ._asktell import PSO

__all__ = ["minimize", "PSO"]

minimize = _run.minimizer("pso", "iterations", """\
Minimise objective with a particle swarm; returns an OptimizeResult.

objective: a built-in name ("rastrigin", "sphere", ... as `clkit run pso
--fn` takes), OpenCL C source defining objective() (or a pathlib.Path to
such a file), or a callable f(X) -> values that takes a read-only (count,
dim) float64 array, a copy of the call's batch that stays valid, and
returns count values.
array: how a callable gets X. "numpy" (the default): as above. "torch",
"cupy", "jax" or "dlpack": on a CUDA device, X is the swarm's own device
memory, a read-only (count, dim) view (float32, or float64 with
precision="double") as that library's array ("dlpack": a
clkit.DeviceArray, which from_dlpack and __cuda_array_interface__ take),
with no copy to the host. It gives views during the call only (keep
X.clone(), not X: a run whose objective kept one raises RuntimeError).
The values may stay on the device: count float32 or float64 values,
which the swarm's stream waits for (DLPack's stream rule). On other
devices X is a host copy as that library's array; a view kept past its
call still raises RuntimeError, but stays readable.
lo, hi: the domain, a number or one per dimension (a built-in objective
has its own; a source or a callable needs both).
dim: dimensions (default: the length of lo or hi, else the option's).
device: a selector as --device takes ("ref", "ocl:0.0", "pocl", "cuda:0"),
or a clkit.Device; None: CLKIT_DEVICE, else the fastest device.
session: a clkit.Session to run on, device then choosing among its devices;
None: the default session of device, kept until the process ends.
seed: the run's seed (default 1, as the command's).
progress: True for a progress bar (tqdm where installed), or a callable
given a clkit.Progress at each check; callback: another such callable.
Either stops the run by returning True (clkit.Error, status
CK_ERROR_CANCELLED) or by raising, which minimize raises again.
history: keep the best value per iteration (result.history: rows of
iteration and best).

The result: x, fun, nit (iterations), nfev (evaluations), history,
stopped_by, success, message, device, seed, wall_s, and the run's metrics
and resolved options.

Options (keyword arguments, as `clkit run pso` names them, "_" for "-"):
""")
