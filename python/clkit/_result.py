"""The result of a run, and what progress callbacks are given."""
from dataclasses import dataclass

import numpy as np


class OptimizeResult(dict):
    """A dict whose keys are also attributes, as SciPy's OptimizeResult.

    An optimiser's result holds at least x, fun, nit, nfev, history,
    stopped_by, success, message, device, seed and wall_s.
    """

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    __setattr__ = dict.__setitem__
    __delattr__ = dict.__delitem__

    def __dir__(self):
        return list(self.keys())

    def __repr__(self):
        if not self:
            return f"{type(self).__name__}()"
        width = max(len(key) for key in self) + 1
        lines = []
        # Long arrays (a history) show their ends only.
        with np.printoptions(threshold=20, edgeitems=3):
            for key, value in self.items():
                text = repr(value).replace("\n", "\n" + " " * (width + 2))
                lines.append(f"{key.rjust(width)}: {text}")
        return "\n".join(lines)


@dataclass(frozen=True)
class Progress:
    """Where a run stands at one of its progress checks.

    fraction is the part of the run's budget done, 0 to 1 (0 throughout a
    run that only a target ends); steps counts step_name ("iterations",
    "generations"); best is the best value so far (NaN before the first).
    """

    workload: str
    device: str
    fraction: float
    steps: float
    step_name: str
    best: float
    best_name: str
