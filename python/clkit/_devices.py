"""Devices: the list clkit sees."""
from dataclasses import dataclass

from . import _clkit


@dataclass(frozen=True)
class Device:
    """A device as `clkit devices` lists it; id is what device= takes."""

    id: str
    name: str
    kind: str
    backend: str
    vendor: str
    platform: str
    platform_version: str
    driver_version: str
    c_version: str
    compute_units: int
    clock_mhz: int
    global_memory: int
    local_memory: int
    max_alloc: int
    max_work_group_size: int
    has_fp64: bool

    def __str__(self):
        return f"{self.id} ({self.name}, {self.kind})"


class DeviceList(list):
    """The devices, ref first; opencl_message and cuda_message say why
    no device of that backend is listed ("" when nothing is amiss)."""

    opencl_message = ""
    cuda_message = ""


def devices():
    """Every device clkit can run on, ref first, as a list of Device."""
    listed, opencl_message, cuda_message = _clkit.devices()
    found = DeviceList(Device(**device) for device in listed)
    found.opencl_message = opencl_message
    found.cuda_message = cuda_message
    return found
