"""Island genetic algorithm (clkit's ga workload)."""
from . import _run
from ._asktell import GA

__all__ = ["minimize", "GA"]

minimize = _run.minimizer("ga", "generations", """\
Minimise objective with an island GA; returns an OptimizeResult.

The arguments are those of clkit.pso.minimize; a callable objective gets a
whole generation, islands x island_size rows, island by island (with
array=, as clkit.pso.minimize gives X).
history: keep the best value per generation (result.history: rows of
generation and best).

The result: x, fun, nit (generations), nfev (evaluations), history,
stopped_by, success, message, device, seed, wall_s, and the run's metrics
and resolved options.

Options (keyword arguments, as `clkit run ga` names them, "_" for "-"):
""")
