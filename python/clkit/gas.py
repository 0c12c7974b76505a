"""Two-dimensional Lennard-Jones dynamics (clkit's gas workload) as a
stateful simulation: the state stays on the device between runs.

    sim = clkit.gas.Simulation(256, density=0.7, temperature=1.0,
                               device="ref", seed=1)
    sim.run(1000)
    sim.potential_energy, sim.positions
    sim.thermo["total"]          # the total energy every 100 steps
"""
import numbers
import os
import warnings

import numpy as np

from . import _clkit
from ._session import resolve
from ._run import (ArgumentError, option_params, options_doc, options_table,
                   seed_value,
                   whole_number, xy_rows)

__all__ = ["Simulation", "THERMO"]

# The columns of Simulation.thermo, as `clkit run gas --thermo` writes them.
THERMO = np.dtype([("step", np.int64), ("time", np.float64),
                   ("temperature", np.float64), ("kinetic", np.float64),
                   ("potential", np.float64), ("total", np.float64),
                   ("pressure", np.float64)])

_RESERVED = {"rho": "give the density as density=",
             "T": "give the temperature as temperature=",
             "xyz": "use Simulation.from_xyz(path)"}
# What from_arrays's positions and box give.
_FROM_ARRAYS = {"particles": "positions give the particles",
                "lattice": "positions give the particles' places",
                "rho": "box gives the box, which sets the density",
                "T": "give the temperature as temperature=",
                "xyz": "use Simulation.from_xyz(path)"}


def _box(value):
    """--box's text: "LxW" from a pair of sides, one side for a square."""
    if isinstance(value, (str, numbers.Real)) or value is None:
        return value
    sides = [float(side) for side in value]
    if len(sides) != 2:
        raise ValueError(f"Simulation: box takes two sides, not {value!r}")
    return f"{sides[0]!r}x{sides[1]!r}"


def _particle_array(values, name, particles=None):
    """positions or velocities as an (n, 2) float64 array of finite
    numbers, n the positions' count where particles gives it."""
    caller = "Simulation.from_arrays"
    array = xy_rows(values, caller, f"{name} must be an (n, 2) array of "
                    f"numbers", name, "particle")
    if not len(array):
        raise ValueError(f"{caller}: {name} must have shape (n, 2), a row "
                         f"of x and y a particle; got shape {array.shape}")
    if particles is not None and len(array) != particles:
        raise ValueError(f"{caller}: {name} has {len(array)} rows, but "
                         f"positions has {particles}")
    return array


class Simulation:
    """A 2D Lennard-Jones system on a device, advanced by run(steps)."""

    def __init__(self, particles=None, *, density=None, temperature=None,
                 device=None, session=None, seed=None, **options):
        self._start(device, session, seed, options, particles=particles,
                    rho=density, T=temperature)

    def _start(self, device, session, seed, options, caller="Simulation",
               reserved=_RESERVED, arrays=(), **own):
        if "box" in options:
            options["box"] = _box(options["box"])
        params = option_params("gas", caller, own) + option_params(
            "gas", caller, options, reserved=reserved)
        seed = seed_value(caller, seed)
        handle, selected = resolve(f"{caller}()", device, session)
        self.device = device
        self.session = session
        self._gas = _clkit.gas_create(selected, params, seed, handle, *arrays)
        self._thermo = []

    @classmethod
    def from_xyz(cls, path, *, temperature=None, device=None, session=None,
                 seed=None, **options):
        """A simulation that starts from an extended-XYZ file (as `clkit
        run gas --xyz`): its particles, positions, box and velocities."""
        simulation = cls.__new__(cls)
        simulation._start(device, session, seed, options,
                          xyz=os.fspath(path), T=temperature)
        return simulation

    @classmethod
    def from_arrays(cls, positions, velocities=None, *, box,
                    temperature=None, device=None, session=None, seed=None,
                    **options):
        """A simulation that starts from arrays: positions, (n, 2), in a
        box of box=(L, W) (or one side for a square), and velocities,
        (n, 2), or velocities drawn at temperature. Periodic positions
        are wrapped into the box. The arrays go to clkit in memory, and
        the run equals `clkit run gas --xyz` from an extended-XYZ file of
        the same numbers, bit for bit."""
        positions = _particle_array(positions, "positions")
        if velocities is not None:
            velocities = _particle_array(velocities, "velocities",
                                         len(positions))
            if temperature is not None:
                raise TypeError("Simulation.from_arrays: give velocities or "
                                "a temperature to draw them at, not both")
        if box is None:
            raise TypeError("Simulation.from_arrays: give the box, box=(L, "
                            "W) or one side for a square")
        if not isinstance(box, str):
            sides = np.array([box, box] if isinstance(box, numbers.Real)
                             else [float(x) for x in box], dtype=np.float64)
            if not (np.isfinite(sides) & (sides > 0)).all():
                raise ValueError(f"Simulation.from_arrays: box is {box!r}; "
                                 f"its sides must be finite and above 0")
        arrays = [np.ascontiguousarray(positions)]
        if velocities is not None:
            arrays.append(np.ascontiguousarray(velocities))
        simulation = cls.__new__(cls)
        try:
            simulation._start(device, session, seed, dict(options, box=box),
                              caller="Simulation.from_arrays",
                              reserved=_FROM_ARRAYS, arrays=arrays,
                              T=temperature)
        except ArgumentError as error:
            # The library names the configuration's fields: positions and
            # velocities are the arrays, rows counted from 0.
            text = str(error).removeprefix("ck_gas_config.")
            error.args = (f"Simulation.from_arrays: {text}",)
            raise
        return simulation

    @classmethod
    def load(cls, path, *, device=None, session=None):
        """A simulation that continues from a checkpoint (save(path), or
        `clkit run gas --checkpoint`), bit for bit on the same device."""
        simulation = cls.__new__(cls)
        handle, selected = resolve("Simulation.load()", device, session)
        simulation.device = device
        simulation.session = session
        simulation._gas = _clkit.gas_load(selected, os.fspath(path), handle)
        simulation._thermo = []
        return simulation

    def save(self, path):
        """Writes a checkpoint, which load and `clkit run gas --restart`
        continue from."""
        self._gas.save(os.fspath(path))

    def run(self, steps, *, log_every=None):
        """Advances steps velocity-Verlet steps; returns self. The GIL is
        released while the device works; Ctrl-C stops between chunks of
        steps (KeyboardInterrupt), the steps made so far kept. A
        RuntimeWarning says when the state has blown up (save refuses
        it) or, without a thermostat, when the energy drifted more than
        a sound time step allows.
        log_every: add the observables to thermo at the run's start and
        every log_every steps from it, as `clkit run gas --log-every K
        --thermo` writes them (default: that option's, 100; 0: none)."""
        steps = whole_number("Simulation.run", "steps", steps, "gas", "steps")
        if log_every is None:
            log_every = int(options_table("gas")["log-every"][1])
        every = whole_number("Simulation.run", "log_every", log_every, "gas",
                             "log-every")
        _, problems, rows = self._gas.step(steps, every)
        table = np.frombuffer(bytes(rows), dtype=np.float64).reshape(
            -1, len(THERMO.names))
        if len(table) and self._thermo and \
                self._thermo[-1]["step"][-1] == table[0, 0]:
            table = table[1:]  # the last run's end, recorded already
        if len(table):
            kept = np.empty(len(table), dtype=THERMO)
            for column, name in enumerate(THERMO.names):
                kept[name] = table[:, column]
            self._thermo.append(kept)
        for problem in problems:
            warnings.warn(problem, RuntimeWarning, stacklevel=2)
        return self

    @property
    def thermo(self):
        """The observables that run recorded (log_every), one row a log
        step across every run of this simulation: a NumPy structured
        array (THERMO) of step, time, temperature, kinetic, potential,
        total and pressure, energies per particle. A copy."""
        if not self._thermo:
            return np.empty(0, dtype=THERMO)
        return np.concatenate(self._thermo)

    # ---- the state, copied from the device -----------------------------

    def _particles(self):
        positions, velocities = self._gas.particles()
        return (np.frombuffer(positions, dtype=np.float64).reshape(-1, 2),
                np.frombuffer(velocities, dtype=np.float64).reshape(-1, 2))

    @property
    def positions(self):
        """(n, 2) float64 positions in id order: a copy read from the
        device at each access."""
        return self._particles()[0]

    @property
    def velocities(self):
        """(n, 2) float64 velocities in id order: a copy read from the
        device at each access."""
        return self._particles()[1]

    @property
    def forces(self):
        """(n, 2) float64 forces in id order, a copy."""
        return np.frombuffer(self._gas.forces(),
                             dtype=np.float64).reshape(-1, 2)

    @property
    def particles(self):
        return self._gas.describe()["particles"]

    @property
    def box(self):
        """The box's sides (x, y)."""
        config = self._gas.describe()
        return (config["box_x"], config["box_y"])

    @property
    def config(self):
        """The configuration in use: particles, box_x, box_y, dt, rc,
        walls, seed."""
        return self._gas.describe()

    def observe(self):
        """The observables now, reduced on the device: step, time,
        kinetic, potential and total energy per particle, temperature,
        pressure, momentum_x, momentum_y."""
        return self._gas.observe()

    step = property(lambda self: self.observe()["step"],
                    doc="Steps made since the start.")
    time = property(lambda self: self.observe()["time"],
                    doc="Simulated time, step x dt.")
    temperature = property(lambda self: self.observe()["temperature"],
                           doc="2 KE / degrees of freedom.")
    kinetic_energy = property(lambda self: self.observe()["kinetic"],
                              doc="Kinetic energy per particle.")
    potential_energy = property(lambda self: self.observe()["potential"],
                                doc="Potential energy per particle.")
    total_energy = property(lambda self: self.observe()["total"],
                            doc="Total energy per particle.")
    pressure = property(lambda self: self.observe()["pressure"],
                        doc="(N T + virial / 2) / area.")

    def to_ase(self):
        """The state as an ase.Atoms: z = 0, the box as the cell (z side
        1), pbc (True, True, False) ((False, False, False) between walls),
        masses 1 and the velocities as momenta."""
        try:
            import ase
        except ImportError:
            raise ImportError("Simulation.to_ase needs ASE: pip install "
                              "ase") from None
        positions, velocities = self._particles()
        config = self._gas.describe()
        n = len(positions)
        atoms = ase.Atoms(
            ["Ar"] * n, positions=np.column_stack([positions, np.zeros(n)]),
            cell=[config["box_x"], config["box_y"], 1.0],
            pbc=(not config["walls"],) * 2 + (False,))
        atoms.set_masses(np.ones(n))
        atoms.set_momenta(np.column_stack([velocities, np.zeros(n)]))
        return atoms


Simulation.__init__.__doc__ = """\
particles: N; density: N / area of a square box (or box=(L, W));
temperature: of the initial velocities.
device: a selector as --device takes ("ref", "ocl:0.0", "pocl"), or a
clkit.Device; None: CLKIT_DEVICE, else the fastest device.
session: a clkit.Session to run on, device then choosing among its devices;
None: the default session of device, kept until the process ends.
seed: the velocities' and thermostat's seed (default 1, as the command's).
Other keyword arguments are options of `clkit run gas`, "_" for "-", with
its defaults:
""" + options_doc("gas", skip={
    "particles", "rho", "T", "xyz", "tiles", "strips", "sort", "steps", "equil", "log-every",
    "sample-every", "blocks", "rdf", "rdf-bins", "rdf-range", "rdf-every",
    "traj", "traj-every", "thermo", "png", "png-size", "plot", "checkpoint",
    "checkpoint-every", "restart"})
