"""Two-dimensional Lennard-Jones dynamics (clkit's gas workload) as a
stateful simulation: the state stays on the device between runs.

    sim = clkit.gas.Simulation(256, density=0.7, temperature=1.0,
                               device="ref", seed=1)
    sim.run(1000)
    sim.potential_energy, sim.positions
"""
import numbers
import os
import warnings

import numpy as np

from . import _clkit
from ._session import resolve
from ._run import (option_params, options_doc, scratch, seed_value,
                   whole_number, xy_rows)

__all__ = ["Simulation"]

_RESERVED = {"rho": "give the density as density=",
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


def _check_places(positions, sides, walls):
    """No two particles at one place, and none outside the walls."""
    caller = "Simulation.from_arrays"
    _, first, counts = np.unique(positions, axis=0, return_index=True,
                                 return_counts=True)
    if (counts > 1).any():
        row = int(first[np.argmax(counts > 1)])
        twin = int(np.flatnonzero((positions == positions[row]).all(axis=1))[1])
        raise ValueError(f"{caller}: positions rows {row} and {twin} are "
                         f"both {positions[row].tolist()}: coincident "
                         f"particles have no force between them")
    if walls and sides is not None:
        outside = ((positions < 0) | (positions > sides)).any(axis=1)
        if outside.any():
            row = int(np.argmax(outside))
            raise ValueError(f"{caller}: positions row {row} is "
                             f"{positions[row].tolist()}, outside the walls "
                             f"of the box {tuple(sides.tolist())}")


def _write_xyz(path, positions, velocities):
    """An extended-XYZ frame of the arrays; %.17g keeps every bit."""
    columns = [positions] if velocities is None else [positions, velocities]
    properties = "species:S:1:pos:R:2" + (
        "" if velocities is None else ":velo:R:2")
    with open(path, "w", encoding="ascii") as handle:
        handle.write(f"{len(positions)}\nProperties={properties}\n")
        for row in np.hstack(columns):
            handle.write("Ar " + " ".join(f"{value:.17g}" for value in row)
                         + "\n")


class Simulation:
    """A 2D Lennard-Jones system on a device, advanced by run(steps)."""

    def __init__(self, particles=None, *, density=None, temperature=None,
                 device=None, session=None, seed=None, **options):
        self._start(device, session, seed, options, particles=particles,
                    rho=density, T=temperature)

    def _start(self, device, session, seed, options, **own):
        if "box" in options:
            options["box"] = _box(options["box"])
        params = option_params("gas", "Simulation", own) + option_params(
            "gas", "Simulation", options, reserved=_RESERVED)
        seed = seed_value("Simulation", seed)
        handle, selected = resolve("Simulation()", device, session)
        self.device = device
        self.session = session
        self._gas = _clkit.gas_create(selected, params, seed, handle)

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
        are wrapped into the box. The run equals `clkit run gas --xyz`
        from an extended-XYZ file of the same numbers, bit for bit."""
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
        side = _box(box)
        sides = None
        if not isinstance(box, str):
            sides = np.array([box, box] if isinstance(box, numbers.Real)
                             else [float(x) for x in box], dtype=np.float64)
            if not (np.isfinite(sides) & (sides > 0)).all():
                raise ValueError(f"Simulation.from_arrays: box is {box!r}; "
                                 f"its sides must be finite and above 0")
        _check_places(positions, sides, options.get("walls"))
        simulation = cls.__new__(cls)
        with scratch() as folder:
            path = os.path.join(folder, "particles.xyz")
            _write_xyz(path, positions, velocities)
            simulation._start(device, session, seed, dict(options, box=side),
                              xyz=path, T=temperature)
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
        return simulation

    def save(self, path):
        """Writes a checkpoint, which load and `clkit run gas --restart`
        continue from."""
        self._gas.save(os.fspath(path))

    def run(self, steps):
        """Advances steps velocity-Verlet steps; returns self. The GIL is
        released while the device works; Ctrl-C stops between chunks of
        steps (KeyboardInterrupt), the steps made so far kept. A
        RuntimeWarning says when the state has blown up (save refuses
        it) or, without a thermostat, when the energy drifted more than
        a sound time step allows."""
        steps = whole_number("Simulation.run", "steps", steps, "gas", "steps")
        _, problems = self._gas.step(steps)
        for problem in problems:
            warnings.warn(problem, RuntimeWarning, stacklevel=2)
        return self

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
    "traj", "traj-every", "thermo", "png", "png-size", "checkpoint",
    "checkpoint-every", "restart"})
