"""Sessions: devices kept open between calls, with their queues, built
kernels and buffers; and the default session of each device.

    with clkit.Session("cuda:0") as session:
        for seed in range(10):
            clkit.pso.minimize(source, -5, 5, dim=30, session=session,
                               seed=seed)
"""
import atexit
import os
import threading

from . import _clkit
from ._devices import Device, DeviceList


def _selector(caller, device):
    """device as a selector string: a Device's id, a str as it is, None as
    CLKIT_DEVICE's selector or "" (the fastest device)."""
    if device is None:
        return os.environ.get("CLKIT_DEVICE") or ""
    if isinstance(device, str):
        return device
    selector = getattr(device, "id", None)
    if not isinstance(selector, str):
        raise TypeError(f"{caller}: device must be a selector string or a "
                        f"Device, not {type(device).__name__}")
    return selector


class Session:
    """Devices kept open between calls.

    A session opens the devices once and keeps, for each, its queue (the
    OpenCL context or CUDA stream), the kernels built on it and buffers
    that calls gave back. A later call on it with the same kernels builds
    nothing. Every function of clkit takes session=; without it, a call
    uses the default session of its device, kept until the process ends.

    device: a selector as --device takes ("cuda:0", "ocl:0.0", "pocl",
    "ref", "ref,pocl"), or a clkit.Device; None: CLKIT_DEVICE, else the
    fastest device. Only the backends it names are opened: "cuda:0" lists
    no OpenCL platform.

    close() releases what it keeps (again: nothing); a call on a closed
    session raises clkit.ArgumentError, a clkit.Error. It is a context
    manager, closed at the with block's end. Calls on one session may run
    from several threads at once.
    """

    def __init__(self, device=None):
        self._selector = _selector("Session()", device)
        self._handle = _clkit.Session(self._selector)
        self._devices = DeviceList(
            Device(**row) for row in self._handle.devices())

    @property
    def devices(self):
        """The session's devices (a clkit.DeviceList), in the selector's
        order."""
        self._check()
        return self._devices

    @property
    def closed(self):
        """Whether close() was called."""
        return self._handle.closed

    def stats(self):
        """What the session has done and keeps, a dict: runs,
        queues_made, queues_lent, programs_built (built from source or
        loaded from the kernel cache), programs_reused (no build at all),
        programs, buffers_reused, buffers and buffer_bytes."""
        return self._handle.stats()

    def close(self):
        """Releases the queues, kernels and buffers the session keeps.
        Closing again does nothing. Objects made on it (a gas.Simulation,
        a fitted nn.MLP) keep working."""
        self._handle.close()

    def _check(self):
        if self._handle.closed:
            raise _clkit.ArgumentError("the clkit.Session is closed")

    def __enter__(self):
        self._check()
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self.closed else ", ".join(
            device.id for device in self._devices)
        return f"clkit.Session({self._selector!r}: {state})"

    # A session is this process's: copies share it, pickles refuse it.
    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        raise TypeError("a clkit.Session cannot be pickled: it holds this "
                        "process's devices")


_defaults = {}
_defaults_lock = threading.Lock()


def default_session(caller, device):
    """The process's session for device (as a call's device= takes it),
    made at its first use: one session a device, whatever selector names
    it. A selector that names several devices is a ValueError."""
    selector = _selector(caller, device)
    with _defaults_lock:
        session = _defaults.get(selector)
        if session is not None and not session.closed:
            return session
        session = Session(selector)
        ids = [each.id for each in session.devices]
        if len(ids) != 1:
            session.close()
            raise ValueError(f"device {selector!r} names {len(ids)} devices "
                             f"({', '.join(ids)}); a run takes one: name it "
                             f"by its id")
        known = _defaults.get(ids[0])
        if known is not None and not known.closed:
            session.close()
            session = known
        _defaults[selector] = _defaults[ids[0]] = session
        return session


def _close_defaults():
    with _defaults_lock:
        sessions = list(_defaults.values())
        _defaults.clear()
    for session in sessions:
        session.close()


atexit.register(_close_defaults)


def _forget_defaults():
    """In a forked child: the parent's sessions hold its queues and
    contexts, which the child must not use; its calls make their own."""
    global _defaults_lock
    _defaults.clear()
    _defaults_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_defaults)


def resolve(caller, device, session):
    """(the C session, the selector of the device within it) for a call's
    device= and session=: the session given, choosing among its devices
    by device (None: its fastest), else the default session of device."""
    if session is None:
        session = default_session(caller, device)
        return session._handle, session._devices[0].id
    if not isinstance(session, Session):
        raise TypeError(f"{caller}: session must be a clkit.Session or "
                        f"None, not {type(session).__name__}")
    session._check()
    return session._handle, (None if device is None
                             else _selector(caller, device))
