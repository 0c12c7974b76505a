"""What every workload's module shares: keyword arguments into the
workload's options, the objective, progress, and the run itself.

A workload's options come from its own table in the library (the one
source of their defaults and ranges): a keyword argument names an option
with "_" for "-" (move_mode= is --move-mode), and clkit checks its value.
"""
import contextlib
import csv
import numbers
import os
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
import warnings
from functools import lru_cache

import numpy as np

from . import _clkit
from ._session import resolve
from ._result import OptimizeResult, Progress

Error = _clkit.Error
ArgumentError = _clkit.ArgumentError


def _scratch_root():
    """Where a call's scratch files go: /dev/shm, memory, where it is a
    directory we may write and TMPDIR does not choose another; else the
    temporary directory. A trace written, synced and read back there
    costs no disk: on a busy disk that took milliseconds a call."""
    if os.environ.get("TMPDIR"):
        return None
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and \
        os.access(shm, os.W_OK | os.X_OK) else None


_SCRATCH = _scratch_root()


# The scratch folders of the calls under way, which SIGTERM's default
# action would leave behind: it ends the process without unwinding.
_folders = set()
_guard_lock = threading.Lock()
_guards = 0  # calls under way that hold a folder


def _end_on_sigterm(signum, frame):
    """SIGTERM while a call holds a folder, where its action was the
    default: the folders go, then the default action ends the process,
    its status saying SIGTERM as before."""
    for folder in list(_folders):
        shutil.rmtree(folder, ignore_errors=True)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _on_main_thread():
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def _sigterm_guard():
    """While a call holds a folder: SIGTERM's default action, and only it,
    gives way to _end_on_sigterm. A caller's handler stays: it runs, and
    the call's with blocks unwind where it raises. Handlers are set on
    the main thread alone; the last call there puts the default back."""
    global _guards
    with _guard_lock:
        if _guards == 0 and _on_main_thread() and \
                signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _end_on_sigterm)
        _guards += 1
    try:
        yield
    finally:
        with _guard_lock:
            _guards -= 1
            if _guards == 0 and _on_main_thread() and \
                    signal.getsignal(signal.SIGTERM) is _end_on_sigterm:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _forget_folders():
    """In a forked child: the parent's folders are not the child's to
    remove, nor its handler the child's."""
    global _guard_lock, _guards
    _folders.clear()
    _guard_lock = threading.Lock()
    _guards = 0
    if signal.getsignal(signal.SIGTERM) is _end_on_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


os.register_at_fork(after_in_child=_forget_folders)


@contextlib.contextmanager
def scratch():
    """A private temporary folder for one call's files (the objective's
    source, the trace), removed with what it holds at its end, or where
    SIGTERM ends the process meanwhile. Its name is known before it is
    made, so that no moment leaves it made and unknown."""
    root = _SCRATCH or tempfile.gettempdir()
    with _sigterm_guard():
        for _ in range(100):
            folder = os.path.join(root, f"clkit-{secrets.token_hex(4)}")
            _folders.add(folder)
            try:
                os.mkdir(folder, 0o700)
                break
            except FileExistsError:
                _folders.discard(folder)
        else:
            raise FileExistsError(f"no free name for a folder in {root}")
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)
            _folders.discard(folder)


class RunWarning(UserWarning):
    """A warning a run reports about its result (clkit's "warning: ")."""


@lru_cache(maxsize=None)
def options_table(workload):
    """The workload's options: name -> (value_name or None for a flag,
    default or None, help)."""
    _, rows = _clkit.options(workload)
    return {name: (value_name, default, help)
            for name, value_name, default, help in rows}


def _number(value):
    """A number as clkit reads it: every digit a float needs."""
    if isinstance(value, bool):
        raise TypeError
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    raise TypeError


def seed_value(caller, seed):
    """seed for the extension: None, or an int (numpy's too), whose range,
    0 to 2^64 - 1 as --seed takes, the extension checks."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or \
            not isinstance(seed, numbers.Integral):
        raise TypeError(f"{caller}: seed must be a whole number, not "
                        f"{type(seed).__name__}")
    return int(seed)


def whole_number(caller, name, value, workload, option):
    """value as an int within the range of the workload's option (its
    table, as the command checks it); TypeError or ArgumentError (a
    ValueError) naming name."""
    if isinstance(value, (bool, np.bool_)) or \
            not isinstance(value, numbers.Integral):
        raise TypeError(f"{caller}: {name} must be a whole number, not "
                        f"{value!r}")
    value = int(value)
    try:
        _clkit.check(workload, [(option, str(value))])
    except ArgumentError as error:
        text = str(error).removeprefix(f"option --{option}: ")
        error.args = (f"{caller}: {name}: {text}",)
        raise
    return value


def option_value(caller, key, row, value):
    """The text of one option's value, or None for a flag left off."""
    value_name = row[0]
    if value_name is None:
        if isinstance(value, (bool, np.bool_)):
            return "1" if value else None
        raise TypeError(f"{caller}(): {key} is a flag: give True or False, "
                        f"not {value!r}")
    if isinstance(value, (str, os.PathLike)):
        return os.fspath(value)
    try:
        return _number(value)
    except TypeError:
        pass
    try:
        return ",".join(_number(item) for item in np.ravel(value).tolist())
    except TypeError:
        raise TypeError(f"{caller}(): {key} takes {value_name}: a number, a "
                        f"string or a sequence of numbers, not "
                        f"{type(value).__name__}") from None


def option_params(workload, caller, options, reserved=()):
    """Keyword arguments into (name, value) pairs of the workload's
    options; None leaves an option at its default. An unknown name is a
    TypeError that names the keyword it most likely meant (clkit's rule,
    ck_param_suggest)."""
    table = options_table(workload)
    params = []
    for key, value in options.items():
        name = key.replace("_", "-")
        if name in reserved:
            raise TypeError(f"{caller}(): {reserved[name]}")
        if name not in table:
            keywords = [option.replace("-", "_") for option in table
                        if option not in reserved]
            nearest = _clkit.suggest(key, keywords)
            hint = f"; did you mean '{nearest}'?" if nearest else ""
            raise TypeError(f"{caller}() got an unexpected keyword argument "
                            f"'{key}'{hint}")
        if value is None:
            continue
        text = option_value(caller, key, table[name], value)
        if text is not None:
            params.append((name, text))
    return params


def xy_rows(values, caller, expected, name, item):
    """values as an (n, 2) float64 array of finite rows of x and y. A
    TypeError says what the argument must be (expected); a ValueError
    names the array (name) and its row (an item: a city, a particle)."""
    try:
        points = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{caller}: {expected}, not "
                        f"{type(values).__name__}") from None
    if points.ndim != 2 or points.shape[1] != 2:
        raise ValueError(f"{caller}: {name} must have shape (n, 2), a row "
                         f"of x and y a {item}; got shape {points.shape}")
    bad = ~np.isfinite(points).all(axis=1)
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"{caller}: {item} {row} has {name} "
                         f"{points[row].tolist()}: each must be finite")
    return points


# ---- objectives -------------------------------------------------------------

def _host_objective(function):
    """The callable as clkit's host objective: X is a read-only (count,
    dim) float64 array holding a copy of the call's batch, in memory
    Python owns (valid to keep); the values are copied back into clkit's
    array after the call."""

    def evaluate(batch):
        points = np.asarray(batch)
        count, dim = points.shape
        values = np.ascontiguousarray(function(points), dtype=np.float64)
        del points
        shape = values.shape
        if shape not in ((count,), (count, 1)):
            raise ValueError(f"the objective returned an array of shape "
                             f"{shape} for X of shape ({count}, {dim}); it "
                             f"must return {count} values, one a row of X")
        return values.reshape(count)

    return evaluate


def _host_copy(values):
    """An array library's values as a NumPy array in host memory."""
    if isinstance(values, np.ndarray):
        return values
    if hasattr(values, "detach"):  # PyTorch
        values = values.detach().cpu()
    elif hasattr(values, "get") and hasattr(values, "__cuda_array_interface__"):
        values = values.get()  # CuPy
    return np.asarray(values)


def _on_cuda(device_array):
    """Whether a DeviceArray is in a CUDA device's memory (DLPack's
    device 2), not in host memory."""
    return device_array.__dlpack_device__()[0] == 2


def _array_takers(caller, array):
    """How an objective that asked for `array` takes X: from a
    DeviceArray (a CUDA device's memory, or off CUDA devices a host copy),
    and from a host batch."""
    def copied(points):
        return np.array(points)
    try:
        if array == "torch":
            import torch
            return torch.from_dlpack, lambda points: torch.tensor(copied(points))
        if array == "cupy":
            import cupy
            return (lambda device_array: cupy.from_dlpack(device_array)
                    if _on_cuda(device_array)
                    else cupy.asarray(np.asarray(device_array))), cupy.asarray
        if array == "jax":
            import jax.dlpack
            import jax.numpy as jnp
            return jax.dlpack.from_dlpack, jnp.asarray
    except ImportError as error:
        raise ImportError(f"{caller}(): array={array!r} needs {array}, "
                          f"which is not installed") from error
    if array == "numpy":
        return np.asarray, np.asarray
    return (lambda device_array: device_array), np.asarray


ARRAYS = ("numpy", "torch", "cupy", "jax", "dlpack")
# The arrays whose objectives take positions ready in stream order, so
# that the run need not wait for each batch on the host: PyTorch's, whose
# current stream the package's own wrapper orders (_torch_objective).
ORDERED_ARRAYS = ("torch",)


def check_array(caller, array):
    """array, as array= names a library, else a ValueError."""
    if array not in ARRAYS:
        raise ValueError(f"{caller}: array must be one of "
                         f"{', '.join(map(repr, ARRAYS))}, not {array!r}")
    return array


def _array_objective(caller, function, array):
    """The callable as an objective that takes X as `array` asks, where
    the workload evaluates beside the device (a clkit DeviceArray, through
    DLPack): on a CUDA device the swarm's own memory, whose values may
    stay on the device; elsewhere a host copy. Other
    workloads give a host copy, converted."""
    take_device, take_host = _array_takers(caller, array)
    host = _host_objective(
        lambda points: _host_copy(function(take_host(points))))

    def evaluate(batch):
        if not isinstance(batch, _clkit.DeviceArray):
            return host(batch)
        points = take_device(batch)
        values = function(points)
        del points
        return _device_values(values)

    if array == "torch":
        return _torch_objective(function, host)
    return evaluate


def _device_values(values):
    """An objective's values as the run takes them: an array on a CUDA
    device through DLPack, else a float64 copy in host memory."""
    if hasattr(values, "detach"):
        values = values.detach()
    where = getattr(values, "__dlpack_device__", None)
    if where is not None and where()[0] == 2:  # DLPack's CUDA
        return values
    return np.ascontiguousarray(_host_copy(values), dtype=np.float64)


def _torch_objective(function, host):
    """A PyTorch callable as a device objective, ordered by streams as
    torch.from_dlpack would order them, with fewer calls a batch: torch's
    current stream waits for the positions; the values go back with that
    stream, (values, stream), which the run waits for. A batch costs the
    host little beside the callable's own kernels."""
    import torch
    import torch.utils.dlpack

    # The current stream's handle: PyTorch's raw query where it has one
    # (the public one builds a Stream object a call).
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)

    def current_stream(index):
        if raw is not None:
            return raw(index)
        return torch.cuda.current_stream(index).cuda_stream

    def evaluate(batch):
        if not isinstance(batch, _clkit.DeviceArray):
            return host(batch)
        where = batch.__dlpack_device__()
        if where[0] != 2:  # a host copy, off CUDA devices
            return _device_values(function(torch.from_dlpack(batch)))
        # DLPack's number for CUDA's legacy default stream is 1, not 0.
        stream = current_stream(where[1]) or 1
        points = torch.from_dlpack(batch.__dlpack__(stream=stream))
        values = function(points)
        del points
        if isinstance(values, torch.Tensor) and values.is_cuda:
            # A capsule made with no stream handshake: the run waits
            # for `stream` itself.
            if values.requires_grad:
                values = values.detach()
            return (torch.utils.dlpack.to_dlpack(values), stream)
        return _device_values(values)

    return evaluate


def _is_source(text):
    """OpenCL C source, as against a built-in objective's name."""
    return "objective" in text and "(" in text


def objective_params(caller, objective, folder, array="numpy"):
    """The options and host callback that give the run its objective: a
    built-in name, OpenCL C source text (written to a file in folder), a
    path to a .cl file, or a Python callable taking X as array asks."""
    check_array(f"{caller}()", array)
    if callable(objective) and array != "numpy":
        return [], _array_objective(caller, objective, array)
    if callable(objective):
        return [], _host_objective(objective)
    if isinstance(objective, os.PathLike):
        return [("objective", os.fspath(objective))], None
    if isinstance(objective, str) and _is_source(objective):
        path = os.path.join(folder, "objective.cl")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(objective)
        return [("objective", path)], None
    if isinstance(objective, str):
        return [("fn", objective)], None
    raise TypeError(f"{caller}(): the objective must be a built-in name, "
                    f"OpenCL C source, a path to a .cl file or a callable, "
                    f"not {type(objective).__name__}")


# ---- progress ---------------------------------------------------------------

class _TextBar:
    """A progress line on stderr where tqdm is not installed."""

    def __init__(self):
        self.shown = 0.0

    def __call__(self, progress):
        now = time.monotonic()
        if progress.steps == 0 or now - self.shown < 0.2:
            return
        self.shown = now
        done = (f"{100 * progress.fraction:3.0f}%" if progress.fraction
                else f"{progress.steps:.0f} {progress.step_name}")
        sys.stderr.write(f"\r{progress.workload} on {progress.device}: "
                         f"{done}, {progress.best_name} {progress.best:.6g} ")
        sys.stderr.flush()

    def close(self):
        if self.shown:
            sys.stderr.write("\n")


class _TqdmBar:
    def __init__(self, tqdm):
        self.bar = tqdm(total=100, unit="%", leave=False)

    def __call__(self, progress):
        if not self.bar.desc:
            self.bar.set_description(
                f"{progress.workload} on {progress.device}")
        self.bar.update(int(100 * progress.fraction) - self.bar.n)
        self.bar.set_postfix({progress.best_name or "best": progress.best,
                              progress.step_name or "steps": progress.steps},
                             refresh=False)

    def close(self):
        self.bar.close()


def _display(progress):
    """progress=True: tqdm's bar where installed, else a line of text."""
    if progress is True:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return _TextBar()
        return _TqdmBar(tqdm)
    return None


def _hook(caller, progress, callback, bar):
    """One function for clkit's progress checks: the display, then the
    caller's callables (a true answer stops the run)."""
    calls = [bar] if bar else []
    for name, value in (("progress", progress), ("callback", callback)):
        if callable(value) and value is not True:
            calls.append(value)
        elif value not in (None, False, True):
            raise TypeError(f"{caller}(): {name} must be callable, True or "
                            f"None")
    if not calls:
        return None

    def report(fields):
        state = Progress(**fields)
        stop = False
        for call in calls:
            stop = bool(call(state)) or stop
        return stop

    return report


# ---- runs -------------------------------------------------------------------

def _history(workload, path):
    """The trace file as an array of (step, best) rows."""
    rows = []
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            if row.get("island", "all") != "all":
                continue
            step = row.get("iteration", row.get("generation"))
            best = row.get("best", row.get("best_length"))
            rows.append((float(step), float(best)))
    return np.array(rows, dtype=np.float64).reshape(-1, 2)


def _clean_message(error, folder):
    """Messages name a source text's temporary file as objective.cl."""
    text = str(error)
    if folder in text:
        error.args = (text.replace(os.path.join(folder, ""), ""),)
    return error


def _resolved(workload, options):
    """The run's resolved options, numbers as numbers, flags as bools."""
    table = options_table(workload)
    resolved = {}
    for name, text in options.items():
        value = text
        if text is not None and table.get(name, (None,))[0] is None:
            value = text == "1"
        elif text is not None:
            try:
                value = float(text)
                if value.is_integer() and "." not in text and "e" not in text:
                    value = int(text)
            except ValueError:
                value = text
        resolved[name.replace("-", "_")] = value
    return resolved


def call(entry, caller, args, *, seed, progress, callback, folder=None,
         stacklevel=2, **extra):
    """entry(*args, seed=, progress=, log=, **extra), an extension's run or
    compare, with the progress display, the log lines kept (returned
    beside entry's answer; warnings also as RunWarning, with stacklevel
    as warnings.warn would take it in call's caller) and messages naming
    files in folder cleaned."""
    seed = seed_value(f"{caller}()", seed)
    lines = []

    def log(line):
        if line.startswith("warning: "):
            warnings.warn(line[len("warning: "):], RunWarning,
                          stacklevel=stacklevel + 2)
        lines.append(line)

    bar = _display(progress)
    hook = _hook(caller, progress, callback, bar)
    try:
        answer = entry(*args, seed=seed, progress=hook, log=log, **extra)
    except Error as error:
        if folder:
            _clean_message(error, folder)
        raise
    finally:
        if bar:
            bar.close()
    return answer, lines


def run(workload, caller, params, *, device=None, session=None, seed=None,
        objective=None, progress=None, callback=None, folder=None,
        on_device=False):
    """One run of workload with params (name, value pairs) on device of
    session (None: device's default session): the raw result dict of the
    extension, log lines and warnings included. on_device: 1 or 2, the
    objective takes a DeviceArray, where the device keeps the positions
    (off CUDA devices, a host copy); 2, ready in stream order, for
    consumers that pass their stream to __dlpack__ (ORDERED_ARRAYS)."""
    handle, selected = resolve(f"{caller}()", device, session)
    raw, lines = call(_clkit.run, caller, (workload, selected, params),
                      seed=seed, progress=progress, callback=callback,
                      folder=folder, stacklevel=3, objective=objective,
                      session=handle, on_device=on_device)
    raw["log"] = lines
    return raw


def run_fields(raw, resolved):
    """What every workload's result holds beside its own values: how the
    run stopped, where and with what seed it ran, its times, metrics,
    resolved options and log lines."""
    stopped_by = raw["stopped_by"]
    return dict(
        stopped_by=stopped_by,
        success=True,
        message=f"stopped by {stopped_by}" if stopped_by else "finished",
        device=raw["device"],
        device_name=raw["device_name"],
        seed=raw["seed"],
        wall_s=raw["wall_s"],
        build_s=raw["build_s"],
        kernel_s=raw["kernel_s"],
        total_s=raw["total_s"],
        metrics=raw["metrics"],
        options=resolved,
        log=raw["log"],
    )


def _bounds_dim(caller, lo, hi, dim):
    """dim, or where None the length of lo or hi (None for numbers); each
    bound a number or one a dimension, else a ValueError."""
    sizes = {}
    for name, bound in (("lo", lo), ("hi", hi)):
        if bound is None or isinstance(bound, (str, os.PathLike)):
            continue
        shape = np.shape(bound)
        if len(shape) > 1:
            raise ValueError(f"{caller}(): {name} must be a number or a "
                             f"1-dimensional sequence, one value a "
                             f"dimension; got shape {shape}")
        if shape:
            sizes[name] = shape[0]
    known = dim if isinstance(dim, numbers.Integral) and \
        not isinstance(dim, bool) else None
    if known is None and dim is None and sizes:
        known = max(sizes.values())
    for name, size in sizes.items():
        if known is not None and size not in (1, known):
            raise ValueError(f"{caller}(): {name} has {size} values for "
                             f"{known} dimensions; give one, or one a "
                             f"dimension")
    if dim is None and known is not None and known > 1:
        return known
    return dim


# The workloads whose callable objectives may run on the device's memory.
_ON_DEVICE = ("pso", "ga")


def _on_device(workload, array):
    """How run() hands the objective its positions (run's on_device)."""
    if array == "numpy" or workload not in _ON_DEVICE:
        return 0
    return 2 if array in ORDERED_ARRAYS else 1


def optimize(workload, caller, objective, lo, hi, dim, step_metric, *,
             device, session, seed, progress, callback, history, options,
             array="numpy"):
    """An optimiser's run (pso, ga) as an OptimizeResult."""
    reserved = {
        "fn": "give the objective as the first argument",
        "objective": "give the objective as the first argument",
        "lo": "lo is the second argument", "hi": "hi is the third argument",
    }
    params = option_params(workload, caller, options, reserved)
    dim = _bounds_dim(caller, lo, hi, dim)
    with scratch() as folder:
        named, host = objective_params(caller, objective, folder, array)
        extra = option_params(workload, caller,
                              {"dim": dim, "lo": lo, "hi": hi})
        trace = dict(params).get("trace")
        if history and trace is None:
            trace = os.path.join(folder, "trace.csv")
            extra.append(("trace", trace))
        raw = run(workload, caller, named + extra + params, device=device,
                  session=session, seed=seed, objective=host,
                  progress=progress, callback=callback, folder=folder,
                  on_device=_on_device(workload, array))
        steps = _history(workload, trace) if history else None
    metrics = raw["metrics"]
    resolved = _resolved(workload, raw["options"])
    if dict(params).get("trace") is None:
        resolved["trace"] = None
    return OptimizeResult(
        x=np.frombuffer(raw["position"], dtype=np.float64),
        fun=raw["best"],
        nit=int(metrics[step_metric]),
        nfev=int(metrics["evaluations"]),
        history=steps,
        **run_fields(raw, resolved),
    )


def options_doc(workload, skip):
    """The workload's options as keyword arguments, for a docstring: from
    the library's table, so that defaults are never written twice."""
    lines = []
    for name, (value_name, default, help) in options_table(workload).items():
        if name in skip:
            continue
        key = name.replace("-", "_")
        kind = "True/False" if value_name is None else value_name
        shown = f" (default {default})" if default is not None else ""
        lines.append(f"    {key}={kind}: {help}{shown}")
    return "\n".join(lines)


def minimizer(workload, step_metric, doc):
    """The minimize function of an optimiser's module (pso, ga): its
    docstring is doc followed by the workload's options."""

    def minimize(objective, lo=None, hi=None, *, dim=None, device=None,
                 session=None, seed=None, progress=None, callback=None,
                 history=True, array="numpy", **options):
        return optimize(workload, f"{workload}.minimize", objective, lo, hi,
                        dim, step_metric, device=device, session=session,
                        seed=seed, progress=progress, callback=callback,
                        history=history, options=options, array=array)

    minimize.__module__ = f"clkit.{workload}"
    minimize.__doc__ = doc + options_doc(
        workload, skip={"fn", "objective", "lo", "hi", "dim"})
    return minimize
