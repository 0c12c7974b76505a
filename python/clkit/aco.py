"""Ant colony optimisation for the TSP (clkit's aco workload)."""
import os
from functools import lru_cache

import numpy as np

from . import _clkit, _run
from ._result import OptimizeResult

__all__ = ["solve"]

_CALLER = "aco.solve"


@lru_cache(maxsize=None)
def _limits():
    """What the ACO accepts of an instance, from the library."""
    return _clkit.tsp_limits()


def _coordinates(instance):
    """An array of coordinates as the ACO can take it: (n, 2), finite,
    within clkit's limits; else a ValueError that says what is wrong."""
    points = _run.xy_rows(instance, f"{_CALLER}()",
                          "the instance must be a TSPLIB file's path or an "
                          "(n, 2) array of coordinates", "coordinates", "city")
    limits = _limits()
    cities = points.shape[0]
    if not limits["min_cities"] <= cities <= limits["max_cities"]:
        raise ValueError(f"{_CALLER}(): {cities} cities; the ACO takes "
                         f"{limits['min_cities']} to {limits['max_cities']}")
    largest = limits["max_coordinate"]
    far = (np.abs(points) > largest).any(axis=1)
    if far.any():
        row = int(np.argmax(far))
        raise ValueError(f"{_CALLER}(): city {row} has coordinates "
                         f"{points[row].tolist()}: each must lie within "
                         f"+-{largest:g}, so that distances fit clkit's "
                         f"integers")
    return points


def _write_instance(points, path):
    """The coordinates as a TSPLIB EUC_2D file; %.17g keeps every bit."""
    cities = points.shape[0]
    with open(path, "w", encoding="ascii") as handle:
        handle.write(f"NAME : coordinates\nTYPE : TSP\nDIMENSION : {cities}\n"
                     f"EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n")
        rows = np.column_stack([np.arange(1, cities + 1), points])
        np.savetxt(handle, rows, fmt=["%d", "%.17g", "%.17g"])
        handle.write("EOF\n")


def _instance_param(instance, folder):
    """--instance: the file's path as given, or a file written in folder
    for an array."""
    if isinstance(instance, (str, os.PathLike)):
        path = os.fspath(instance)
        if not isinstance(path, str):
            raise TypeError(f"{_CALLER}(): give the path as str, not bytes")
        return path
    path = os.path.join(folder, "coordinates.tsp")
    _write_instance(_coordinates(instance), path)
    return path


def solve(instance, time=None, iters=None, *, device=None, session=None,
          seed=None, progress=None, callback=None, history=True, **options):
    params = _run.option_params(
        "aco", _CALLER, options,
        {"instance": "the instance is the first argument"})
    given = dict(params)
    with _run.scratch() as folder:
        extra = [("instance", _instance_param(instance, folder))]
        extra += _run.option_params("aco", _CALLER,
                                    {"time": time, "iters": iters})
        tour_out = given.get("tour-out")
        if tour_out is None:
            tour_out = os.path.join(folder, "best.tour")
            extra.append(("tour-out", tour_out))
        trace = given.get("trace")
        if history and trace is None:
            trace = os.path.join(folder, "trace.csv")
            extra.append(("trace", trace))
        raw = _run.run("aco", _CALLER, extra + params, device=device,
                       session=session, seed=seed, progress=progress,
                       callback=callback, folder=folder)
        metrics = raw["metrics"]
        cities = int(metrics["cities"])
        tour = np.frombuffer(_clkit.tour_load(tour_out, cities),
                             dtype=np.uint32).astype(np.intp)
        steps = _run._history("aco", trace) if history else None
    resolved = _run._resolved("aco", raw["options"])
    for name in ("tour-out", "trace"):
        if name not in given:
            resolved[name.replace("-", "_")] = None
    if not isinstance(instance, (str, os.PathLike)):
        resolved["instance"] = None  # the temporary file, gone now
    length = int(raw["best"])
    optimum = metrics.get("optimum")
    return OptimizeResult(
        tour=tour,
        length=length,
        fun=length,
        x=tour,
        gap=metrics.get("gap_percent"),
        optimum=None if optimum is None else int(optimum),
        cities=cities,
        nit=int(metrics["iterations"]),
        history=steps,
        **_run.run_fields(raw, resolved),
    )


solve.__doc__ = """\
Find a short tour of a TSP instance with an ant colony; returns an
OptimizeResult.

instance: a TSPLIB file's path (str or os.PathLike; "random:N" for N
random cities), or an (n, 2) array of x, y coordinates. An array is an
EUC_2D instance: distances rounded to the nearest integer, as TSPLIB
rounds them, so scale small coordinates up. It is written to a temporary
TSPLIB file for the run, as clkit's runs read instances from files.
time: stop after this many seconds; iters: after this many iterations
(without either, the workload's default count).
device: a selector as --device takes ("ref", "ocl:0.0", "pocl"), or a
clkit.Device; None: CLKIT_DEVICE, else the fastest device.
session: a clkit.Session to run on, device then choosing among its devices;
None: the default session of device, kept until the process ends.
seed: the run's seed (default 1, as the command's).
progress, callback: as for clkit.pso.minimize.
history: keep the best length at each improvement (result.history: rows
of iteration and length).

The result: tour (0-based cities, a NumPy array, also as x), length and
fun (the tour's length, an int), gap (percent above the optimum, where
optimum= or optima= gives one; else None), optimum, cities, nit
(iterations), history, stopped_by, success, message, device, seed, wall_s,
and the run's metrics and resolved options.

Options (keyword arguments, as `clkit run aco` names them, "_" for "-"):
""" + _run.options_doc("aco", skip={"instance", "time", "iters"})
