"""clkit.compare: one configuration and seed on several devices, ref
first as the oracle, as `clkit compare` runs them."""
import numpy as np

from . import _clkit, _run
from ._session import resolve
from ._result import OptimizeResult

__all__ = ["Comparison", "compare"]

_CALLER = "compare"

# The row's fields that its table shows, in order.
_COLUMNS = ("device", "device_name", "best", "agreement", "agrees",
            "wall_s", "kernel_s", "throughput", "throughput_unit", "status")


class Comparison(list):
    """Each device's result, ref's first: a list of OptimizeResult rows.

    A row holds device, device_name, best and best_name (the workload's
    headline result), agreement (its relative difference from ref's; None
    where not compared), agrees, status ("CK_OK" or why the device
    failed), error, skipped, wall_s, kernel_s, build_s, total_s,
    throughput, throughput_unit, stopped_by, seed, x (an optimiser's best
    position, else None), metrics and options.

    agrees is True when every row ran and agrees with ref, as `clkit
    compare` then exits 0; rows skipped (a device that cannot run the
    workload, with devices="all") do not count. log holds the runs'
    lines, each naming its device.
    """

    workload = ""
    agrees = False
    log = ()

    def to_pandas(self):
        """The rows as a pandas DataFrame (pandas must be installed), one
        column a field, metrics and options left out."""
        import pandas

        return pandas.DataFrame(
            [{key: value for key, value in row.items()
              if key not in ("metrics", "options", "x")} for row in self])

    def __repr__(self):
        if not self:
            return f"{type(self).__name__}([])"
        head = (f"{self.workload}: {self[0].best_name} on each device, "
                f"{'all agree' if self.agrees else 'NOT all agree'}")
        table = [["device", "name", "best", "vs_ref", "agrees", "wall_s"]]
        for row in self:
            if row.status != "CK_OK":
                table.append([row.device, row.device_name[:32],
                              "skipped" if row.skipped else "failed",
                              row.error[:60], "", ""])
                continue
            table.append([row.device, row.device_name[:32], f"{row.best:.8g}",
                          "" if row.agreement is None
                          else f"{row.agreement:.3g}",
                          "" if row.agrees is None
                          else ("yes" if row.agrees else "NO"),
                          f"{row.wall_s:.4f}"])
        widths = [max(len(line[i]) for line in table)
                  for i in range(len(table[0]))]
        lines = ["  ".join(cell.ljust(width) for cell, width in
                           zip(line, widths)).rstrip() for line in table]
        return "\n".join([head, *lines])


def _selector(devices):
    """devices as one selector: None is every device; else a selector
    string, a clkit.Device, or a sequence of them."""
    if devices is None:
        return "all"
    single = isinstance(devices, str) or hasattr(devices, "id")
    items = [devices] if single else devices
    try:
        names = [item if isinstance(item, str) else item.id for item in items]
    except (TypeError, AttributeError):
        names = None
    if names is None or not all(isinstance(name, str) for name in names):
        raise TypeError(f"{_CALLER}(): devices must be a selector string, a "
                        f"clkit.Device or a sequence of them, not "
                        f"{devices!r}")
    if not names or not all(names):
        raise ValueError(f"{_CALLER}(): devices names no device: give one "
                         f"or more selectors, or None for every device")
    return ",".join(names)


def _row(raw, every_device):
    resolved = _run._resolved(raw["workload"], raw["options"])
    position = raw["position"]
    keys = ("device", "device_name", "best", "best_name", "agreement",
            "agrees", "status", "error", "wall_s", "kernel_s", "build_s",
            "total_s", "throughput", "throughput_unit", "stopped_by",
            "seed", "metrics")
    row = OptimizeResult({key: raw[key] for key in keys})
    row.skipped = every_device and raw["status"] == "CK_ERROR_UNSUPPORTED"
    row.x = (None if position is None
             else np.frombuffer(position, dtype=np.float64))
    row.options = resolved
    return row


def compare(workload, devices=None, *, session=None, seed=None,
            progress=None, callback=None, **options):
    """Run workload with the same options and seed on each device, and on
    ref as the oracle; returns a clkit.Comparison (a list of rows, ref's
    first) whose agrees says whether every device agrees with ref.

    workload: "pso", "ga", "aco", "nn", "gas" or "selfcheck".
    devices: a selector as `clkit compare --device` takes ("ref,pocl",
    "all"), a clkit.Device, or a sequence of them; None: every device, as
    the command's default. ref always runs, first.
    session: a clkit.Session holding ref and the devices; devices then
    chooses among its devices (None: all of them). Without it, the
    devices are opened for the call.
    seed: the runs' seed (default 1); progress, callback: as for
    clkit.pso.minimize, told of each device's run in turn.
    options: the workload's options, as for its own function ("_" for
    "-"); outputs that each run would write again are refused.
    """
    selector = _selector(devices)
    params = _run.option_params(workload, _CALLER, options)
    handle = None
    if session is not None:
        handle, _ = resolve(f"{_CALLER}()", None, session)
    raws, lines = _run.call(_clkit.compare, _CALLER,
                            (workload, selector, params), seed=seed,
                            progress=progress, callback=callback,
                            session=handle)
    every_device = selector == "all"
    result = Comparison(_row(raw, every_device) for raw in raws)
    result.workload = workload
    result.log = lines
    result.agrees = all(row.skipped or (row.status == "CK_OK" and row.agrees)
                        for row in result)
    return result
