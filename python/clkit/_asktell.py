"""Optimisers that the caller drives: ask() gives the positions to
evaluate, tell() takes their values, and the swarm or GA moves on. The
objective is the caller's, evaluated anywhere (NumPy, a simulator, another
process).

    with clkit.pso.PSO(dim=10, lo=-5.12, hi=5.12, device="ref") as opt:
        for _ in range(100):
            X = opt.ask()
            opt.tell((X ** 2).sum(axis=1))
        opt.best_f, opt.best_x
"""
import numbers

import numpy as np

from . import _clkit
from ._run import (_array_takers, _bounds_dim, _host_copy, check_array,
                   option_params, seed_value)
from ._session import resolve

Error = _clkit.Error
ArgumentError = _clkit.ArgumentError

# The objective is the caller's: tell() gives its values. The library
# refuses the other options of a run (stopping rules, files, outputs).
_OBJECTIVES = ("fn", "objective")


def _bound(caller, name, value):
    """A bound as a 1-dimensional float64 array (one value, or one a
    dimension)."""
    try:
        array = np.ascontiguousarray(np.ravel(value), dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{caller}: {name} must be a number or a sequence "
                        f"of numbers, not {type(value).__name__}") from None
    if array.size == 0:
        raise ValueError(f"{caller}: {name} is empty; give one value, or "
                         f"one a dimension")
    return array


def _prefixed(error, caller):
    """error with its message after caller, and without the library's
    function name."""
    text = str(error)
    if ": " in text and text.split(": ", 1)[0].startswith("ck_"):
        text = text.split(": ", 1)[1]
    error.args = (f"{caller}: {text}",)
    return error


def _count(caller, name, value):
    """value, a whole number 0 or more, as an int; ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or value < 0:
        raise ValueError(f"{caller}: {name} must be a whole number 0 or "
                         f"more, not {value!r}")
    return int(value)


class _AskTell:
    """What PSO and GA share: the optimiser made from the workload's
    options, ask, tell, the best so far, close and the with statement."""

    _workload = None
    _name = None

    def __init__(self, lo, hi, dim, device, session, seed, own, options,
                 array="numpy"):
        caller = f"{self._name}()"
        check_array(caller, array)
        self._takers = _array_takers(caller, array) \
            if array != "numpy" else None
        for key in options:
            if key.replace("_", "-") in _OBJECTIVES:
                raise ValueError(f"{caller}: {key}= has no place here: the "
                                 f"objective is the caller's, whose values "
                                 f"tell() takes")
        dim = _bounds_dim(self._name, lo, hi, dim)
        params = option_params(self._workload, self._name,
                               dict(own, dim=dim)) + \
            option_params(self._workload, self._name, options)
        lo = _bound(caller, "lo", lo)
        hi = _bound(caller, "hi", hi)
        seed = seed_value(caller, seed)
        handle, selected = resolve(caller, device, session)
        self.device = device
        self.session = session
        try:
            self._optimiser = _clkit.asktell_create(
                self._workload, selected, params, lo, hi, seed, handle)
        except ArgumentError as error:
            raise _prefixed(error, caller) from None
        self._tells = 0
        self._asked = False
        # Positions handed out where the device keeps them (off CUDA
        # devices, their page-locked host copy), asked for an array
        # library's arrays.
        self._on_device = array != "numpy"

    def _check(self, method):
        if self._optimiser.closed:
            raise ArgumentError(f"{self._name}.{method}(): the optimiser is "
                                f"closed")

    def _positions(self):
        out = np.empty((self._optimiser.rows, self._optimiser.dim))
        self._optimiser.ask(out)
        return out

    def ask(self):
        """The positions to evaluate, a (rows, dim) float64 array that is
        the caller's to keep. Asking again before telling gives the same
        positions. With array= other than "numpy", that library's array:
        a read-only view of the swarm's own memory on a CUDA device, or
        of its page-locked host copy elsewhere, valid until the next tell
        (keep a copy to keep them)."""
        self._check("ask")
        if self._on_device:
            out = self._takers[0](self._optimiser.ask_device())
        else:
            out = self._positions()
            if self._takers:
                out = self._takers[1](out)
        self._asked = True
        return out

    def tell(self, values):
        """The values of the positions the last ask() gave, one a row, in
        their order: a NaN counts as the largest value; -inf is refused
        (a minimum clkit cannot report). The optimiser then moves on."""
        caller = f"{self._name}.tell()"
        self._check("tell")
        if not self._asked:
            raise Error(f"{caller}: ask() first: each tell() gives the "
                        f"values of the positions the last ask() gave")
        if self._on_device:
            self._tell_device(caller, values)
            return
        if self._takers:
            values = _host_copy(values)
        try:
            f = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{caller}: values must be numbers, not "
                            f"{type(values).__name__}") from None
        rows = self._optimiser.rows
        if f.shape not in ((rows,), (rows, 1)):
            raise ValueError(f"{caller}: values has shape {f.shape}; give "
                             f"{rows} values, one a row of ask()'s array")
        try:
            self._optimiser.tell(np.ascontiguousarray(f.reshape(rows)))
        except ArgumentError as error:
            raise _prefixed(error, caller) from None
        self._tells += 1
        self._asked = False

    def _tell_device(self, caller, values):
        """Values for positions asked where they are: on the device (a
        CUDA array, read there; -inf counts as the least value of the
        precision) or the host."""
        if hasattr(values, "detach"):
            values = values.detach()
        where = getattr(values, "__dlpack_device__", None)
        if where is None or where()[0] != 2:  # not DLPack's CUDA
            values = np.ascontiguousarray(_host_copy(values),
                                          dtype=np.float64)
            rows = self._optimiser.rows
            if values.shape not in ((rows,), (rows, 1)):
                raise ValueError(f"{caller}: values has shape "
                                 f"{values.shape}; give {rows} values, one "
                                 f"a row of ask()'s array")
        try:
            self._optimiser.tell_device(values)
        except ArgumentError as error:
            raise _prefixed(error, caller) from None
        self._tells += 1
        self._asked = False

    def _read_state(self):
        """The extension's state, and its arrays named in _shapes() as
        float64 arrays of those shapes."""
        raw = self._optimiser.get_state()
        return raw, {key: np.frombuffer(raw[key], dtype=np.float64).reshape(
            shape) for key, shape in self._shapes().items()}

    def _state_arrays(self, caller, state, keys):
        """The arrays of state named in _shapes(), float64 and of those
        shapes, once state holds them and keys; ValueError otherwise."""
        shapes = self._shapes()
        missing = [key for key in list(shapes) + keys if key not in state]
        if missing:
            raise ValueError(f"{caller}: the state lacks {', '.join(missing)}"
                             f"; give a dict that state() returned")
        arrays = {}
        for key, shape in shapes.items():
            array = np.ascontiguousarray(state[key], dtype=np.float64)
            if array.shape != shape:
                raise ValueError(f"{caller}: {key} has shape {array.shape}; "
                                 f"this {self._kind}'s is {shape}")
            arrays[key] = array
        return arrays

    def _restore(self, caller, raw):
        """raw, a dict as the extension's get_state() gives it, set."""
        try:
            self._optimiser.set_state(raw)
        except ArgumentError as error:
            raise _prefixed(error, caller) from None
        self._tells = raw["tells"]
        self._asked = False

    @property
    def best_f(self):
        """The best value told so far; None before the first tell."""
        self._check("best_f")
        return self._optimiser.best()[0] if self._tells else None

    @property
    def best_x(self):
        """The position of best_f, a float64 array; None before the first
        tell."""
        self._check("best_x")
        if not self._tells:
            return None
        return np.frombuffer(self._optimiser.best()[1], dtype=np.float64)

    @property
    def closed(self):
        """Whether close() was called."""
        return self._optimiser.closed

    def close(self):
        """Releases the optimiser and its device memory; again, nothing.
        A later call raises clkit.ArgumentError, a clkit.Error."""
        self._optimiser.close()

    def __enter__(self):
        self._check("__enter__")
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self.closed else \
            f"{self._optimiser.rows} x {self._optimiser.dim}, " \
            f"{self._tells} tells"
        return f"{self._name}({state})"


class PSO(_AskTell):
    """A particle swarm that the caller drives by ask() and tell().

    lo, hi: the domain, a number or one a dimension.
    dim: dimensions (default: the length of lo or hi, else the option's).
    particles: the swarm's size (default: the option's).
    device, session, seed: as clkit.pso.minimize takes them.
    Options: the keyword options of clkit.pso.minimize that set up the
    swarm (w, c1, c2, constriction, topology, vinit, vmax, bounds,
    precision, move_mode), checked by clkit's own table. A run's options
    (iters, evals, target, time, check_every, trace, out) and an objective
    (fn, objective) are refused with a ValueError.

    ask() gives the positions, tell(values) their values; best_x, best_f
    and iteration (the tells so far) read the swarm. With the same seed and
    options, N + 1 tells evaluate the positions that
    clkit.pso.minimize(callable, iters=N) evaluates. state() reads the
    whole swarm and set_state() restores it: the asks that follow are the
    ones that followed where it was read, bit for bit.

    array: what ask() gives, as clkit.pso.minimize's array= gives X:
    "numpy" (the default), or "torch", "cupy", "jax", "dlpack": on a CUDA
    device the swarm's own memory (float32 unless precision="double"),
    with no copy; tell() then takes that library's arrays on the device
    too (read in the swarm's stream order) or host values.
    """

    _workload = "pso"
    _name = "clkit.pso.PSO"
    _kind = "swarm"

    def __init__(self, *, lo, hi, dim=None, particles=None, device=None,
                 session=None, seed=None, array="numpy", **options):
        super().__init__(lo, hi, dim, device, session, seed,
                         {"particles": particles}, options, array)

    def _shapes(self):
        """The state's arrays, in the extension's order, and their
        shapes."""
        rows, dim = self._optimiser.rows, self._optimiser.dim
        return {"positions": (rows, dim), "velocities": (rows, dim),
                "best_positions": (rows, dim), "best_values": (rows,),
                "global_best": (dim,)}

    @property
    def iteration(self):
        """The tells so far (0 for the initial swarm)."""
        self._check("iteration")
        return self._tells

    def state(self):
        """The swarm as a dict: positions (what ask() gives next),
        velocities, best_positions (each particle's best) and best_values,
        global_best and global_best_value, iteration and seed (the random
        streams count the moves from the seed). Values are as the swarm
        compares them: a NaN told, or a particle not yet told, holds the
        largest number of the swarm's precision."""
        self._check("state")
        raw, state = self._read_state()
        state.update(global_best_value=raw["global_best_value"],
                     iteration=raw["tells"], seed=raw["seed"])
        return state

    def set_state(self, state):
        """Restores a state() of this swarm or another with the same
        options and seed (a ValueError otherwise): the asks that follow
        are those that followed where state() read it."""
        caller = f"{self._name}.set_state()"
        self._check("set_state")
        raw = self._state_arrays(caller, state, ["global_best_value",
                                                 "iteration", "seed"])
        raw.update(global_best_value=float(state["global_best_value"]),
                   tells=_count(caller, "iteration", state["iteration"]),
                   seed=seed_value(caller, state["seed"]))
        self._restore(caller, raw)


class GA(_AskTell):
    """An island GA that the caller drives by ask() and tell().

    lo, hi, dim, device, session, seed: as clkit.pso.PSO takes them.
    Options: the keyword options of clkit.ga.minimize that set up the GA
    (islands, island_size, elite, tournament, pc, crossover, pm, mutation,
    migrate_every, migrants, topology, bounds, precision,
    generation_mode); a run's options and an objective are refused.

    ask() gives a generation, islands x island_size rows, island by
    island; tell(values) takes their values. best_x, best_f and
    generation (the tells so far) read the GA. state() reads the whole
    GA and set_state() restores it: the asks that follow are the ones that
    followed where it was read, bit for bit, migrations included.
    array: as clkit.pso.PSO takes it: on a CUDA device, a generation's
    individuals where they are.
    """

    _workload = "ga"
    _name = "clkit.ga.GA"
    _kind = "GA"

    def __init__(self, *, lo, hi, dim=None, device=None, session=None,
                 seed=None, array="numpy", **options):
        super().__init__(lo, hi, dim, device, session, seed, {}, options,
                         array)
        self._values = None

    def tell(self, values):
        if not self._on_device:
            values = _host_copy(values)
        super().tell(values)
        # Device values stay there until state() asks for them.
        self._values = values if self._on_device else \
            np.array(values, dtype=np.float64).reshape(-1)

    tell.__doc__ = _AskTell.tell.__doc__

    @property
    def generation(self):
        """The tells so far: the generation that ask() gives."""
        self._check("generation")
        return self._tells

    def _shapes(self):
        """The state's arrays that state() and set_state() share with the
        extension, and their shapes."""
        rows, dim = self._optimiser.rows, self._optimiser.dim
        islands = self._optimiser.islands
        return {"population": (rows, dim), "fitness": (rows,),
                "island_best": (islands,),
                "island_best_genes": (islands, dim)}

    def state(self):
        """The GA as a dict: population (the generation ask() gives next),
        generation, values (those told last, of the generation before;
        None before the first tell), best_x and best_f (None before the
        first tell); fitness (the population's values until told: an
        elite's carried over, the largest number of the precision for a
        child), island_best and island_best_genes (each island's best
        told: the largest number and zeros before one is found),
        migrations and seed (the random streams count the generations and
        the migrations from the seed)."""
        self._check("state")
        raw, arrays = self._read_state()
        told = raw["tells"] > 0
        values = None if self._values is None else np.array(
            _host_copy(self._values), dtype=np.float64).reshape(-1)
        best_x = np.frombuffer(raw["best_genes"], dtype=np.float64)
        state = {"population": arrays.pop("population"),
                 "generation": raw["tells"], "values": values,
                 "best_x": best_x if told else None,
                 "best_f": raw["best_value"] if told else None}
        state.update(arrays, migrations=raw["migrations"], seed=raw["seed"])
        return state

    def set_state(self, state):
        """Restores a state() of this GA or another with the same options
        and seed (a ValueError otherwise): the asks and bests that follow
        are those that followed where state() read it, migrations
        included."""
        caller = f"{self._name}.set_state()"
        self._check("set_state")
        raw = self._state_arrays(caller, state, [
            "generation", "values", "best_x", "best_f", "migrations",
            "seed"])
        rows, dim = self._optimiser.rows, self._optimiser.dim
        values, best_x, best_f = (state[key] for key in
                                  ("values", "best_x", "best_f"))
        if values is not None:
            values = np.array(values, dtype=np.float64)
            if values.shape != (rows,):
                raise ValueError(f"{caller}: values has shape "
                                 f"{values.shape}; this GA's is {(rows,)}")
        if (best_x is None) != (best_f is None):
            raise ValueError(f"{caller}: best_x and best_f are both None "
                             f"(no best told yet) or neither")
        if best_x is None:
            # Infinity stands for the largest number of the precision.
            best_x, best_f = np.zeros(dim), np.inf
        best_x = np.ascontiguousarray(best_x, dtype=np.float64)
        if best_x.shape != (dim,):
            raise ValueError(f"{caller}: best_x has shape {best_x.shape}; "
                             f"this GA's is {(dim,)}")
        raw.update(best_genes=best_x, best_value=float(best_f),
                   tells=_count(caller, "generation", state["generation"]),
                   migrations=_count(caller, "migrations",
                                     state["migrations"]),
                   seed=seed_value(caller, state["seed"]))
        self._restore(caller, raw)
        self._values = values
