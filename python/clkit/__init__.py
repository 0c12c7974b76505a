"""clkit: GPU and CPU workloads (PSO, GA, ...) over OpenCL, CUDA and a
plain-C reference, from Python.

    import clkit
    clkit.devices()
    result = clkit.pso.minimize("rastrigin", dim=10, device="ref", seed=1)
    result.fun, result.x
    with clkit.Session("ref") as session:   # devices kept between calls
        clkit.pso.minimize("rastrigin", dim=10, session=session)
"""
from . import _clkit
from ._devices import Device, DeviceList, devices
from ._result import OptimizeResult, Progress
from ._run import ArgumentError, Error, RunWarning
from ._session import Session
from . import ga, pso
from . import aco
from ._compare import Comparison, compare
from . import gas, nn

__version__ = _clkit.version()

__all__ = ["ArgumentError", "Device", "DeviceList", "Error", "OptimizeResult",
           "Progress", "RunWarning", "devices", "ga", "pso", "__version__",
           "aco", "Comparison", "compare", "gas", "nn", "Session"]
