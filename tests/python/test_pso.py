"""clkit.pso.minimize: the command's results, objectives of every kind,
errors, cancelling."""
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import clkit
from conftest import CUDA, OPENCL, check_ctrl_c, needs_cuda, sphere

SMALL = dict(dim=4, particles=32, iters=20)


def test_same_result_as_the_command(device, cli):
    result = clkit.pso.minimize("rastrigin", device=device, seed=5, **SMALL)
    expected = cli("run", "pso", "--fn", "rastrigin", "--dim", "4",
                   "--particles", "32", "--iters", "20", "--seed", "5",
                   "--device", device)
    assert result.fun == expected["best"]
    assert result.x.tolist() == expected["x"]
    assert result.nit == expected["iterations"] == 20
    assert result.nfev == expected["evaluations"]
    assert result.stopped_by == expected["stopped_by"] == "iterations"
    assert result.seed == 5 and result.device == device and result.success
    for name, value in expected["options"].items():
        if name != "trace":
            assert result.options[name.replace("-", "_")] == value, name


def test_options_reach_the_option_table(cli):
    result = clkit.pso.minimize("ackley", -2, 2, dim=3, particles=16,
                                iters=10, w=0.5, c1=1.2, topology="ring:3",
                                move_mode="particle", device="ref", seed=2)
    expected = cli("run", "pso", "--fn", "ackley", "--lo", "-2", "--hi", "2",
                   "--dim", "3", "--particles", "16", "--iters", "10",
                   "--w", "0.5", "--c1", "1.2", "--topology", "ring:3",
                   "--move-mode", "particle", "--device", "ref", "--seed", "2")
    assert result.fun == expected["best"]
    assert result.x.tolist() == expected["x"]
    assert result.options["w"] == 0.5 and result.options["topology"] == "ring:3"


def test_history_ends_at_the_best():
    result = clkit.pso.minimize("sphere", device="ref", **SMALL)
    assert result.history.shape == (21, 2)
    assert result.history[0, 0] == 0 and result.history[-1, 0] == 20
    # The history holds the run's own values, in single precision; fun is
    # the best position's value in double.
    assert result.history[-1, 1] == pytest.approx(result.fun, rel=1e-6)
    assert result.fun == pytest.approx(float(np.sum(result.x ** 2)),
                                       rel=1e-12)
    assert np.all(np.diff(result.history[:, 1]) <= 0)
    assert clkit.pso.minimize("sphere", device="ref", history=False,
                              **SMALL).history is None


def test_the_seed_defaults_to_the_commands():
    first = clkit.pso.minimize("rastrigin", device="ref", **SMALL)
    one = clkit.pso.minimize("rastrigin", device="ref", seed=1, **SMALL)
    other = clkit.pso.minimize("rastrigin", device="ref", seed=2, **SMALL)
    assert first.seed == 1 and first.fun == one.fun
    assert other.fun != one.fun


def test_target_stops_the_run():
    result = clkit.pso.minimize("sphere", device="ref", dim=2, particles=32,
                                target=1e-3, check_every=1)
    assert result.stopped_by == "target" and result.fun <= 1e-3


def test_a_callable_reaches_the_builtin_swarm(device):
    """As the C tests assert: bit for bit on ref, to 1e-12 elsewhere
    (kernels may fuse the built-in's multiply-adds)."""
    calls = []

    def objective(X):
        assert X.dtype == np.float64 and X.shape == (20, 5)
        assert not X.flags.writeable
        calls.append(X.shape)
        return sphere(X)

    common = dict(dim=5, particles=20, iters=30, precision="double",
                  device=device, seed=7)
    host = clkit.pso.minimize(objective, -5.12, 5.12, **common)
    builtin = clkit.pso.minimize("sphere", -5.12, 5.12, **common)
    assert len(calls) == 31
    if device == "ref":
        assert host.fun == builtin.fun
        assert host.x.tolist() == builtin.x.tolist()
    else:
        assert abs(host.fun - builtin.fun) <= 1e-12 * abs(builtin.fun)
    assert host.options["fn"] is None and host.fun < 0.5


def test_a_callable_takes_its_dimension_from_the_bounds():
    result = clkit.pso.minimize(lambda X: np.abs(X - 0.25).sum(axis=1),
                                [-1, -1, -1], [1, 1, 1], particles=64,
                                iters=100, device="ref")
    assert result.x.shape == (3,) and result.fun < 0.1


@pytest.mark.skipif(not OPENCL, reason="no OpenCL device")
def test_opencl_source_as_the_command_takes_it(cli, tmp_path):
    source = ("float objective(const float *x, int dim) {\n"
              "  float s = 0.0f;\n"
              "  for (int d = 0; d < dim; ++d) s += (x[d] - 1.0f) * "
              "(x[d] - 1.0f);\n"
              "  return s;\n}\n")
    path = tmp_path / "shifted.cl"
    path.write_text(source)
    result = clkit.pso.minimize(source, -3, 3, device=OPENCL, seed=4, **SMALL)
    expected = cli("run", "pso", "--objective", str(path), "--lo", "-3",
                   "--hi", "3", "--dim", "4", "--particles", "32", "--iters",
                   "20", "--seed", "4", "--device", OPENCL)
    assert result.fun == expected["best"]
    assert result.x.tolist() == expected["x"]
    by_path = clkit.pso.minimize(path, -3, 3, device=OPENCL, seed=4, **SMALL)
    assert by_path.fun == result.fun


@pytest.mark.skipif(not OPENCL, reason="no OpenCL device")
def test_a_source_that_does_not_build_names_its_line():
    with pytest.raises(clkit.Error) as error:
        clkit.pso.minimize("float objective(const float *x, int dim) {\n"
                           "  return undefined_name;\n}\n", -1, 1, dim=2,
                           particles=8, iters=2, device=OPENCL)
    assert error.value.status == "CK_ERROR_BUILD"
    assert "objective.cl:2" in str(error.value)
    assert "clkit-" not in str(error.value)


# Misspelt keywords and function names, and what clkit suggests for them
# (its one rule, ck_param_suggest); None: nothing near.
MISSPELT = [
    ("pso", {"iterations": 5}, "'iterations'; did you mean 'iters'?"),
    ("pso", {"partciles": 8}, "'partciles'; did you mean 'particles'?"),
    ("pso", {"checkevery": 2}, "'checkevery'; did you mean 'check_every'?"),
    ("ga", {"island_sise": 8}, "'island_sise'; did you mean 'island_size'?"),
    ("ga", {"generations": 3}, "'generations'; did you mean 'gens'?"),
    ("pso", {"frobnicate": 1}, None),
]


@pytest.mark.parametrize("workload,keyword,suggestion", MISSPELT)
def test_misspelt_keywords_suggest_the_nearest(workload, keyword, suggestion):
    minimize = getattr(clkit, workload).minimize
    with pytest.raises(TypeError) as error:
        minimize("sphere", dim=2, device="ref", **keyword)
    message = str(error.value)
    name = next(iter(keyword))
    assert f"{workload}.minimize() got an unexpected keyword argument " \
        f"'{name}'" in message
    if suggestion:
        assert message.endswith(suggestion), message
    else:
        assert "did you mean" not in message, message


def test_misspelt_functions_suggest_the_nearest():
    with pytest.raises(ValueError, match="unknown function 'rastrign'; built "
                       "in: sphere rastrigin .*; did you mean rastrigin[?]"):
        clkit.pso.minimize("rastrign", dim=2, device="ref")


def test_bad_arguments_are_refused_clearly():
    with pytest.raises(TypeError,
                       match="unexpected keyword argument 'frobnicate'$"):
        clkit.pso.minimize("sphere", device="ref", frobnicate=1)
    with pytest.raises(clkit.ArgumentError, match="--particles.*outside"):
        clkit.pso.minimize("sphere", device="ref", particles=0)
    with pytest.raises(ValueError, match="unknown function 'nosuch'"):
        clkit.pso.minimize("nosuch", device="ref")
    with pytest.raises(TypeError, match="constriction is a flag"):
        clkit.pso.minimize("sphere", device="ref", constriction=3)
    with pytest.raises(TypeError, match="first argument"):
        clkit.pso.minimize("sphere", device="ref", fn="sphere")
    with pytest.raises(ValueError, match="'nan' is not a number"):
        clkit.pso.minimize("sphere", device="ref", w=float("nan"))
    with pytest.raises(ValueError, match="needs its domain"):
        clkit.pso.minimize(sphere, dim=2, device="ref")
    with pytest.raises(TypeError, match="built-in name"):
        clkit.pso.minimize(42, device="ref")
    with pytest.raises(TypeError, match="seed"):
        clkit.pso.minimize("sphere", device="ref", seed=1.5)


def test_whole_numbers_are_range_checked():
    """Seeds as --seed takes them; counts by the option table's ranges."""
    for seed in (-1, 2**64):
        with pytest.raises(ValueError, match=r"seed must be a whole number "
                                             r"from 0 to 2\^64 - 1, not"):
            clkit.pso.minimize("sphere", device="ref", seed=seed, **SMALL)
    for seed in (True, np.bool_(False), 2.0, "1"):
        with pytest.raises(TypeError, match="seed must be a whole number"):
            clkit.pso.minimize("sphere", device="ref", seed=seed, **SMALL)
    for key, value in (("particles", 2**64), ("iters", -1), ("dim", 2**70)):
        with pytest.raises(clkit.ArgumentError,
                           match=f"--{key}: .*{value} is outside"):
            clkit.pso.minimize("sphere", device="ref",
                               **{**SMALL, key: value})
    with pytest.raises(TypeError, match="iters takes N"):
        clkit.pso.minimize("sphere", device="ref", **{**SMALL, "iters": True})
    numpy_ints = clkit.pso.minimize("sphere", device="ref", seed=np.uint64(5),
                                    dim=np.int8(4), particles=np.int32(32),
                                    iters=np.uint16(20))
    assert numpy_ints.fun == clkit.pso.minimize("sphere", device="ref",
                                                seed=5, **SMALL).fun


def test_bounds_must_be_one_value_a_dimension():
    with pytest.raises(ValueError, match=r"lo must be a number or a "
                                         r"1-dimensional .* shape \(2, 2\)"):
        clkit.pso.minimize(sphere, -np.ones((2, 2)), 1, device="ref")
    with pytest.raises(ValueError, match=r"hi must be .* shape \(1, 1\)"):
        clkit.pso.minimize(sphere, -1, [[1]], device="ref")
    with pytest.raises(ValueError, match="lo has 3 values for 2 dimensions"):
        clkit.pso.minimize(sphere, [-1, -1, -1], 1, dim=2, device="ref")
    with pytest.raises(ValueError, match="lo has 2 values for 3 dimensions"):
        clkit.pso.minimize(sphere, [-1, -1], [1, 1, 1], device="ref")
    result = clkit.pso.minimize(sphere, [-1, -2], 1, particles=8, iters=2,
                                device="ref")
    assert result.x.shape == (2,)


def test_a_best_of_minus_infinity_is_refused(device):
    """As the library refuses it from every objective: -inf becomes the
    least real of the run's precision, which is no value to report."""
    def downward(X):
        return np.where(X[:, 0] > 0.5, -np.inf, 1.0)

    message = r"the objective gave -inf, or a value below -3.40282e\+38"
    with pytest.raises(clkit.Error, match=message) as error:
        clkit.pso.minimize(downward, -1, 1, dim=2, particles=16, iters=3,
                           device=device)
    assert error.value.status == "CK_ERROR_MISMATCH"
    with pytest.raises(clkit.Error, match="-inf"):
        clkit.ga.minimize(downward, -1, 1, dim=2, islands=2, island_size=8,
                          gens=3, device=device)


def test_a_callable_that_returns_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match=r"shape \(32, 2\).*32 values"):
        clkit.pso.minimize(lambda X: X, -1, 1, dim=2, particles=32,
                           device="ref")


def test_x_kept_past_the_call_holds_that_calls_batch(device):
    """A kept X (or a view of it) is a snapshot of its call's batch, read
    after the run; the calls that keep nothing reuse one block."""
    kept, copies, views = [], [], []

    def keeping(X):
        kept.append(X)
        views.append(X[1:, ::-1])
        copies.append(X.copy())
        with pytest.raises(ValueError):
            X[0, 0] = 1.0
        return sphere(X)

    clkit.pso.minimize(keeping, -1, 1, dim=3, particles=8, iters=5,
                       device=device)
    assert len(kept) == 6
    for X, view, copy in zip(kept, views, copies):
        assert X.shape == (8, 3) and not X.flags.writeable
        assert np.array_equal(X, copy)
        assert np.array_equal(view, copy[1:, ::-1])
    assert not np.array_equal(kept[0], kept[-1])

    addresses = []
    clkit.pso.minimize(
        lambda X: addresses.append(X.__array_interface__["data"][0]) or
        sphere(X), -1, 1, dim=3, particles=8, iters=5, device="ref")
    assert len(addresses) == 6 and len(set(addresses)) == 1


def test_x_kept_from_a_large_batch_stays_readable():
    kept = []
    clkit.pso.minimize(lambda X: kept.append(X) or (X * X).sum(1), -1, 1,
                       dim=100, particles=2000, iters=2, device="ref")
    assert len(kept) == 3 and all(X.shape == (2000, 100) for X in kept)
    assert np.all(np.abs(kept[0]) <= 1) and np.isfinite(kept[-1].sum())


def test_a_run_inside_the_objective_has_its_outputs():
    tours = []

    def objective(X):
        if not tours:
            tours.append(clkit.aco.solve("random:20", iters=2, device="ref"))
        return sphere(X)

    result = clkit.pso.minimize(objective, -1, 1, dim=2, particles=8,
                                iters=3, device="ref")
    assert result.history.shape == (4, 2)
    assert sorted(tours[0].tour.tolist()) == list(range(20))


def test_a_run_inside_a_callback_has_its_outputs(tmp_path):
    tours = []

    def callback(state):
        if state.steps > 0 and not tours:
            tours.append(clkit.aco.solve("random:20", iters=2, device="ref"))

    trace = tmp_path / "trace.csv"
    result = clkit.pso.minimize("sphere", dim=2, particles=8, iters=3,
                                check_every=1, device="ref", trace=trace,
                                callback=callback)
    assert tours and sorted(tours[0].tour.tolist()) == list(range(20))
    assert result.history.shape == (4, 2) and trace.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.csv"]


def test_an_exception_in_the_callable_propagates():
    calls = []

    def failing(X):
        calls.append(1)
        if len(calls) == 3:
            raise ZeroDivisionError("from the objective")
        return sphere(X)

    with pytest.raises(ZeroDivisionError, match="from the objective"):
        clkit.pso.minimize(failing, -1, 1, dim=2, particles=8, iters=50,
                           device="ref")
    assert len(calls) == 3


def test_progress_reports_and_cancels():
    seen = []

    def progress(state):
        seen.append(state)
        if state.steps >= 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        clkit.pso.minimize("sphere", dim=2, particles=8, iters=10 ** 9,
                           check_every=1, device="ref", progress=progress)
    assert seen[0].steps == 0 and seen[-1].steps >= 5
    assert seen[-1].workload == "pso" and seen[-1].device == "ref"
    assert seen[-1].step_name == "iterations" and seen[-1].best >= 0
    with pytest.raises(clkit.Error) as error:
        clkit.pso.minimize("sphere", dim=2, particles=8, iters=10 ** 9,
                           device="ref", callback=lambda state: state.steps > 0)
    assert error.value.status == "CK_ERROR_CANCELLED" and error.value.code == 12


def test_progress_true_draws_a_bar(capsys):
    result = clkit.pso.minimize("sphere", device="ref", progress=True,
                                **SMALL)
    assert result.nit == 20


def test_the_gil_is_released_while_the_run_works():
    """Another thread runs while a callback-free stretch of the run goes
    on (ref, a run of half a second)."""
    counted = []
    stop = threading.Event()

    def count():
        n = 0
        while not stop.is_set():
            n += 1
        counted.append(n)

    thread = threading.Thread(target=count)
    thread.start()
    try:
        start = time.perf_counter()
        clkit.pso.minimize("rastrigin", dim=30, particles=256, time=0.5,
                           device="ref", history=False)
        elapsed = time.perf_counter() - start
    finally:
        stop.set()
        thread.join()
    assert elapsed >= 0.5 and counted[0] > 1000


CTRL_C = """
import sys, clkit
def started(state):
    if state.steps > 0 and not started.done:
        started.done = True
        print("started", flush=True)
started.done = False
clkit.pso.minimize("rastrigin", dim=30, particles=256, time=60,
                   device="ref", progress=started)
"""


def test_ctrl_c_stops_the_run_with_keyboardinterrupt():
    check_ctrl_c(CTRL_C)


# ---- objectives on device arrays (array=) -----------------------------------



def _first_coordinate(X):
    """Exact in any precision and library: the runs compare bit for bit."""
    return X[:, 0]


def test_array_must_name_a_library():
    with pytest.raises(ValueError, match="array must be one of"):
        clkit.pso.minimize(sphere, -1, 1, array="tensorflow", device="ref",
                           **SMALL)


def test_array_dlpack_off_cuda_is_a_host_copy(device):
    """Off a CUDA device X is a DeviceArray over a host copy of the
    swarm's positions: NumPy reads it in place, read-only, in the swarm's
    precision, from one block reused every call; the run is the NumPy
    callable's, bit for bit."""
    seen = []

    def objective(X):
        assert X.__dlpack_device__() == (1, 0)
        assert X.shape == (32, 4) and X.dtype == "float32"
        view = np.asarray(X)
        assert view.dtype == np.float32 and not view.flags.writeable
        seen.append(view.__array_interface__["data"][0])
        return sphere(np.ascontiguousarray(view, dtype=np.float64))

    common = dict(device=device, seed=3, **SMALL)
    numpy_run = clkit.pso.minimize(sphere, -5, 5, **common)
    dlpack_run = clkit.pso.minimize(objective, -5, 5, array="dlpack",
                                    **common)
    assert len(seen) == 21 and len(set(seen)) == 1
    assert dlpack_run.fun == numpy_run.fun
    assert dlpack_run.x.tolist() == numpy_run.x.tolist()


def test_a_view_of_the_host_copy_kept_past_its_call_is_refused(device):
    """A NumPy view of X kept past its call stops the run with a
    RuntimeError that says so; the view still reads its call's positions
    after the run, whose memory is gone."""
    kept, copies = [], []

    def keeping(X):
        kept.append(np.asarray(X))
        copies.append(kept[-1].copy())
        return sphere(np.asarray(X, dtype=np.float64))

    with pytest.raises(RuntimeError, match="kept its X"):
        clkit.pso.minimize(keeping, -5, 5, array="dlpack", device=device,
                           seed=3, **SMALL)
    assert len(kept) == 1 and np.array_equal(kept[0], copies[0])
    assert np.all(np.abs(kept[0]) <= 5)


def test_a_view_kept_from_a_large_host_copy_stays_readable(device):
    """A view of X kept past a run of 200,000 particles reads that call's
    positions, the run's memory freed (in a new Python: a crash there
    fails this test)."""
    code = f"""
import numpy as np, clkit
kept, sums = [], []
def keeping(X):
    kept.append(np.asarray(X))
    sums.append(float(kept[-1].sum(dtype=np.float64)))
    return np.zeros(X.shape[0])
try:
    clkit.pso.minimize(keeping, -5, 5, dim=16, particles=200000, iters=1,
                       device={device!r}, array="dlpack")
except RuntimeError as error:
    print(error)
print(float(kept[0].sum(dtype=np.float64)) == sums[0])
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[-2:] == ["True", ""]
    assert "kept its X" in done.stdout


def test_a_device_array_past_its_call_gives_no_views(device):
    """X kept itself (not a view) passes, but gives no array after its
    call: np.asarray raises BufferError (not NumPy's object array)."""
    kept = []

    def keeping(X):
        kept.append(X)
        return sphere(np.asarray(X, dtype=np.float64))

    clkit.pso.minimize(keeping, -5, 5, array="dlpack", device=device, seed=3,
                       **SMALL)
    assert len(kept) == 21
    with pytest.raises(BufferError, match="during its call"):
        np.asarray(kept[0])
    with pytest.raises(BufferError, match="during its call"):
        kept[-1].__dlpack__()


@needs_cuda
def test_a_device_array_is_the_swarms_memory():
    """On CUDA, X is a DeviceArray: (count, dim) float32 on the device,
    which DLPack and the CUDA array interface both describe; the run
    takes host values back."""
    seen = {}

    def objective(X):
        seen.update(type=type(X), shape=X.shape, dtype=X.dtype,
                    where=X.__dlpack_device__(),
                    interface=X.__cuda_array_interface__["shape"])
        return np.full(X.shape[0], 2.0)

    common = dict(device=CUDA, seed=3, **SMALL)
    clkit.pso.minimize(objective, -5, 5, array="dlpack", **common)
    assert seen == dict(type=clkit._clkit.DeviceArray, shape=(32, 4),
                        dtype="float32", where=(2, int(CUDA.split(":")[1])),
                        interface=(32, 4))


@needs_cuda
def test_a_torch_objective_sees_a_cuda_tensor():
    torch = pytest.importorskip("torch")
    seen = []

    def objective(X):
        seen.append((X.is_cuda, X.dtype, tuple(X.shape)))
        return _first_coordinate(X)

    common = dict(device=CUDA, seed=5, **SMALL)
    device_run = clkit.pso.minimize(objective, -5, 5, array="torch",
                                    **common)
    host_run = clkit.pso.minimize(_first_coordinate, -5, 5, **common)
    assert set(seen) == {(True, torch.float32, (32, 4))}
    assert device_run.fun == host_run.fun
    assert device_run.x.tolist() == host_run.x.tolist()
    # float64 and strided values are taken as they come; NaN is the
    # largest value.
    double_run = clkit.pso.minimize(
        lambda X: torch.stack([X[:, 0], X[:, 1]], 1).double()[:, 0], -5, 5,
        array="torch", **common)
    assert double_run.fun == host_run.fun
    nan_run = clkit.pso.minimize(
        lambda X: torch.where(X[:, 1] > 0, torch.nan, X[:, 0]), -5, 5,
        array="torch", **common)
    assert np.isfinite(nan_run.fun) and nan_run.x[1] <= 0


@needs_cuda
def test_a_torch_objective_on_a_stream_of_its_own():
    """A torch objective takes positions ready in stream order: on a
    stream of torch's own, the objective's kernels wait for the swarm's
    moves and the swarm for its values, with no wait on the host between
    iterations; the run is the host callback's bit for bit, and so is a
    GA's."""
    torch = pytest.importorskip("torch")
    side = torch.cuda.Stream(device=CUDA)
    streams = []

    def objective(X):
        streams.append(torch.cuda.current_stream().cuda_stream)
        return (X[:, 0] * 1.0).contiguous()

    big = dict(device=CUDA, seed=7, dim=16, particles=8192, iters=60)
    with torch.cuda.stream(side):
        device_run = clkit.pso.minimize(objective, -5, 5, array="torch",
                                        **big)
    host_run = clkit.pso.minimize(_first_coordinate, -5, 5, **big)
    assert set(streams) == {side.cuda_stream}
    assert device_run.fun == host_run.fun
    assert device_run.x.tolist() == host_run.x.tolist()
    common = dict(device=CUDA, seed=5, dim=8, islands=16, island_size=64,
                  gens=40)
    with torch.cuda.stream(side):
        ga_device = clkit.ga.minimize(objective, -5, 5, array="torch",
                                      **common)
    ga_host = clkit.ga.minimize(_first_coordinate, -5, 5, **common)
    assert ga_device.fun == ga_host.fun
    assert ga_device.x.tolist() == ga_host.x.tolist()


@needs_cuda
def test_x_kept_past_its_call_is_refused():
    torch = pytest.importorskip("torch")
    kept = []

    def objective(X):
        kept.append(X)
        return X[:, 0].clone()

    with pytest.raises(RuntimeError, match="kept its X"):
        clkit.pso.minimize(objective, -5, 5, array="torch", device=CUDA,
                           **SMALL)
    assert torch.is_tensor(kept[0])


@needs_cuda
def test_device_values_of_the_wrong_shape_are_refused():
    pytest.importorskip("torch")
    with pytest.raises(ValueError, match="must return 32 float32 or float64"):
        clkit.pso.minimize(lambda X: X[:5, 0].clone(), -5, 5, array="torch",
                           device=CUDA, **SMALL)


@needs_cuda
def test_a_ga_objective_sees_a_cuda_tensor():
    torch = pytest.importorskip("torch")
    seen = []

    def objective(X):
        seen.append((X.is_cuda, X.dtype))
        return _first_coordinate(X)

    common = dict(device=CUDA, seed=5, dim=4, islands=4, island_size=8,
                  gens=10)
    device_run = clkit.ga.minimize(objective, -5, 5, array="torch", **common)
    host_run = clkit.ga.minimize(_first_coordinate, -5, 5, **common)
    assert set(seen) == {(True, torch.float32)}
    assert device_run.fun == host_run.fun
    assert device_run.x.tolist() == host_run.x.tolist()
