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
import re

import numpy as np

from . import _clkit
from ._run import (_array_takers, _bounds_dim, _host_copy, _resolved,
                   check_array, option_params, options_table, seed_value)
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
    """value, a whole number from 0 to 2^64 - 1 (the counters clkit
    keeps), as an int; ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
            or not 0 <= value < 2 ** 64:
        raise ValueError(f"{caller}: {name} must be a whole number from 0 "
                         f"to 2^64 - 1, not {value!r}")
    return int(value)


def _real(caller, name, value):
    """value, a real number, as a float; ValueError otherwise."""
    if isinstance(value, (bool, np.bool_)) or \
            not isinstance(value, numbers.Real):
        raise ValueError(f"{caller}: {name} must be a number, not "
                         f"{value!r}")
    return float(value)


def _numbers(caller, values):
    """values told, as a float64 array; a TypeError for anything but
    numbers (None, strings, booleans), which NumPy would turn into NaN or
    numbers silently."""
    if not isinstance(values, (list, tuple)):
        values = _host_copy(values)  # an array library's, or NumPy's
    try:
        array = np.asarray(values)
    except (TypeError, ValueError):
        raise TypeError(f"{caller}: values must be numbers, not "
                        f"{type(values).__name__}") from None
    if array.dtype.kind in "iuf":
        return array.astype(np.float64, copy=False)
    # The items as given: NumPy makes [0.5, "x"] two strings.
    try:
        items = np.asarray(values, dtype=object).reshape(-1).tolist()
    except ValueError:
        items = array.reshape(-1).tolist()
    for i, value in enumerate(items):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{caller}: values must be numbers: value {i} "
                            f"is {value!r}")
    return array.astype(np.float64)


def _same(first, second):
    """Whether two resolved option values are one (numbers by value)."""
    if np.ndim(first) or np.ndim(second):  # lo and hi
        return np.array_equal(np.asarray(first, dtype=object),
                              np.asarray(second, dtype=object))
    return first == second


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
        # The options given, as clkit reads them (the rest are defaults),
        # and the domain: what state() records and set_state() compares.
        self._options = _resolved(self._workload, dict(params))
        self._options.update(lo=np.broadcast_to(lo, dim).tolist(),
                             hi=np.broadcast_to(hi, dim).tolist())
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
        # devices, a host copy), asked for an array library's arrays.
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
        a read-only view of the swarm's own memory on a CUDA device, valid
        until the next tell (keep a copy to keep them); elsewhere a view
        of a host copy, which keeps that ask's positions, though the
        DeviceArray gives no new views after the next tell."""
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
        their order: numbers (a TypeError for None, strings or booleans);
        a NaN counts as the largest value; -inf, or a value below the
        least of the precision, is refused (a minimum clkit cannot
        report), on a CUDA device too. The optimiser then moves on."""
        caller = f"{self._name}.tell()"
        self._check("tell")
        if not self._asked:
            raise Error(f"{caller}: ask() first: each tell() gives the "
                        f"values of the positions the last ask() gave")
        if self._on_device:
            self._tell_device(caller, values)
            return
        f = _numbers(caller, values)
        rows = self._optimiser.rows
        if f.shape not in ((rows,), (rows, 1)):
            raise ValueError(f"{caller}: values has shape {f.shape}; give "
                             f"{rows} values, one a row of ask()'s array")
        try:
            self._optimiser.tell(np.ascontiguousarray(f.reshape(rows)))
        except ArgumentError as error:
            raise _prefixed(error, caller) from None
        self._told = f.reshape(rows)
        self._tells += 1
        self._asked = False

    def _tell_device(self, caller, values):
        """Values for positions asked where they are: on the device (a
        CUDA array, copied to the host to be checked, then read there) or
        the host; refused alike where tell() refuses them."""
        if hasattr(values, "detach"):
            values = values.detach()
        where = getattr(values, "__dlpack_device__", None)
        if where is None or where()[0] != 2:  # not DLPack's CUDA
            values = np.ascontiguousarray(_numbers(caller, values))
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

    def _state_options(self):
        """The options of state(): a copy of those recorded."""
        return {key: list(value) if isinstance(value, list) else value
                for key, value in self._options.items()}

    def _default(self, caller, key):
        """The default of an option named in a state's options, as
        clkit reads it; ValueError for a name that is no option."""
        row = options_table(self._workload).get(key.replace("_", "-"))
        if row is None:
            raise ValueError(f"{caller}: options names {key!r}, which is "
                             f"no option of a {self._kind}")
        if row[0] is None:
            return False
        return _resolved(self._workload, {key.replace("_", "-"): row[1]})[key]

    def _check_options(self, caller, given):
        """A state's options, refused (ValueError) unless they are this
        optimiser's: each as given or defaulted on either side."""
        if not isinstance(given, dict):
            raise ValueError(f"{caller}: options must be a dict as state() "
                             f"gives it, not {type(given).__name__}")
        for key in sorted(set(given) | set(self._options)):
            theirs = given[key] if key in given else \
                self._default(caller, key)
            mine = self._options[key] if key in self._options else \
                self._default(caller, key)
            if not _same(theirs, mine):
                raise ValueError(f"{caller}: options: {key} is {theirs!r} in "
                                 f"the state, {mine!r} here; restore a "
                                 f"state on a {self._kind} of the same "
                                 f"options")

    # The library's names of the state's fields, and the caller's.
    _names = {"tells": "iteration"}

    def _restore(self, caller, raw):
        """raw, a dict as the extension's get_state() gives it, set."""
        try:
            self._optimiser.set_state(raw)
        except ArgumentError as error:
            error = _prefixed(error, caller)
            text = error.args[0]
            for theirs, mine in self._names.items():
                text = re.sub(rf"\b{theirs}\b", mine, text)
            error.args = (text,)
            raise error from None
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
        largest number of the swarm's precision. options: those the swarm
        was made with, as clkit reads them (the rest are defaults), with
        lo and hi, one a dimension."""
        self._check("state")
        raw, state = self._read_state()
        state.update(global_best_value=raw["global_best_value"],
                     iteration=raw["tells"], seed=raw["seed"],
                     options=self._state_options())
        return state

    def set_state(self, state):
        """Restores a state() of this swarm or another with the same
        options and seed: the asks that follow are those that followed
        where state() read it. A ValueError names the key of a state that
        is not such: other options or seed, values tell() refuses, or
        bests that no tells make (global_best_value not the least of
        best_values, global_best not the best position of a particle
        holding it)."""
        caller = f"{self._name}.set_state()"
        self._check("set_state")
        raw = self._state_arrays(caller, state, ["global_best_value",
                                                 "iteration", "seed",
                                                 "options"])
        self._check_options(caller, state["options"])
        raw.update(global_best_value=_real(caller, "global_best_value",
                                           state["global_best_value"]),
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
    _names = {"tells": "generation", "best_value": "best_f",
              "best_genes": "best_x"}

    def __init__(self, *, lo, hi, dim=None, device=None, session=None,
                 seed=None, array="numpy", **options):
        super().__init__(lo, hi, dim, device, session, seed, {}, options,
                         array)
        self._values = None

    def tell(self, values):
        super().tell(values)
        # Device values stay there until state() asks for them.
        self._values = values if self._on_device else np.array(self._told)

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
        the migrations from the seed); options, as PSO.state() gives
        them."""
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
        state.update(arrays, migrations=raw["migrations"], seed=raw["seed"],
                     options=self._state_options())
        return state

    def set_state(self, state):
        """Restores a state() of this GA or another with the same options
        and seed: the asks and bests that follow are those that followed
        where state() read it, migrations included. A ValueError names
        the key of a state that is not such: other options or seed,
        values tell() refuses, or bests that no tells make (best_f not the
        least of island_best, best_x not the genes of an island holding
        it)."""
        caller = f"{self._name}.set_state()"
        self._check("set_state")
        raw = self._state_arrays(caller, state, [
            "generation", "values", "best_x", "best_f", "migrations",
            "seed", "options"])
        self._check_options(caller, state["options"])
        rows, dim = self._optimiser.rows, self._optimiser.dim
        values, best_x, best_f = (state[key] for key in
                                  ("values", "best_x", "best_f"))
        if values is not None:
            try:
                values = _numbers(caller, values)
            except TypeError as error:
                raise ValueError(str(error)) from None
            if values.shape != (rows,):
                raise ValueError(f"{caller}: values has shape "
                                 f"{values.shape}; this GA's is {(rows,)}")
            try:
                self._optimiser.check(np.ascontiguousarray(values))
            except ArgumentError as error:
                raise ValueError(f"{caller}: values: {error}") from None
        if (best_x is None) != (best_f is None):
            raise ValueError(f"{caller}: best_x and best_f are both None "
                             f"(no best told yet) or neither")
        if best_x is None:
            # The largest number of the precision: no best told yet.
            largest = np.finfo(np.float64 if self._optimiser.double_precision
                               else np.float32).max
            best_x, best_f = np.zeros(dim), float(largest)
        best_x = np.ascontiguousarray(best_x, dtype=np.float64)
        if best_x.shape != (dim,):
            raise ValueError(f"{caller}: best_x has shape {best_x.shape}; "
                             f"this GA's is {(dim,)}")
        raw.update(best_genes=best_x,
                   best_value=_real(caller, "best_f", best_f),
                   tells=_count(caller, "generation", state["generation"]),
                   migrations=_count(caller, "migrations",
                                     state["migrations"]),
                   seed=seed_value(caller, state["seed"]))
        self._restore(caller, raw)
        self._values = values
