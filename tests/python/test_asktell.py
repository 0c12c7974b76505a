"""clkit.pso.PSO and clkit.ga.GA: ask/tell against minimize, the state
read and restored, bad input and the order of calls."""
import numpy as np
import pytest

import clkit
from conftest import CUDA, OPENCL, needs_cuda, sphere

SWARM = dict(dim=5, particles=20, lo=-5.12, hi=5.12, seed=7)
GA_SIZE = dict(dim=3, lo=-2, hi=2, islands=2, island_size=8, seed=3)


def run_loop(opt, tells, objective=sphere):
    """tells rounds of ask and tell; the positions asked."""
    asked = []
    for _ in range(tells):
        X = opt.ask()
        asked.append(X)
        opt.tell(objective(X))
    return asked


@pytest.mark.parametrize("topology", ["gbest", "ring:3"])
def test_pso_evaluates_what_minimize_evaluates(topology):
    seen = []

    def objective(X):
        seen.append(X.copy())
        return sphere(X)

    options = dict(SWARM, topology=topology, w=0.6)
    lo, hi = options.pop("lo"), options.pop("hi")
    result = clkit.pso.minimize(objective, lo, hi, iters=12, device="ref",
                                **options)
    with clkit.pso.PSO(lo=lo, hi=hi, device="ref", **options) as opt:
        asked = run_loop(opt, 13)
        assert opt.iteration == 13
        # The host objective's run and the loop move alike: the same
        # positions, bit for bit, so the same best.
        assert len(seen) == len(asked) == 13
        for mine, theirs in zip(asked, seen):
            assert np.array_equal(mine, theirs)
        assert opt.best_f == result.fun
        assert np.array_equal(opt.best_x, result.x)


def test_pso_state_restores_the_asks():
    first = clkit.pso.PSO(device="ref", precision="double", **SWARM)
    second = clkit.pso.PSO(device="ref", precision="double", **SWARM)
    run_loop(first, 4)
    state = first.state()
    assert state["iteration"] == 4 and state["seed"] == 7
    assert state["positions"].shape == (20, 5)
    assert state["best_values"].shape == (20,)
    assert state["global_best_value"] == first.best_f
    assert np.array_equal(state["global_best"], first.best_x)
    assert state["global_best_value"] == state["best_values"].min()
    expected = run_loop(first, 3)
    run_loop(second, 2, objective=lambda X: -sphere(X))
    second.set_state(state)
    assert second.iteration == 4
    asked = run_loop(second, 3)
    for mine, theirs in zip(asked, expected):
        assert np.array_equal(mine, theirs)
    assert second.best_f == first.best_f
    assert np.array_equal(second.best_x, first.best_x)
    # state() is a copy: changing it changes no swarm.
    state["positions"][:] = 0
    assert not np.array_equal(second.state()["positions"], state["positions"])


def test_pso_initial_state():
    with clkit.pso.PSO(device="ref", **SWARM) as opt:
        assert opt.best_f is None and opt.best_x is None
        state = opt.state()
        assert state["iteration"] == 0
        largest = np.finfo(np.float32).max
        assert state["global_best_value"] == largest
        assert np.all(state["best_values"] == largest)
        assert np.array_equal(state["positions"], opt.ask())
        assert np.all((state["positions"] >= -5.12) &
                      (state["positions"] <= 5.12))


@pytest.mark.skipif(not OPENCL, reason="no OpenCL device")
def test_pso_state_on_opencl():
    options = dict(SWARM, particles=16, topology="ring:3")
    first = clkit.pso.PSO(device=OPENCL, **options)
    run_loop(first, 3)
    state = first.state()
    expected = run_loop(first, 2)
    second = clkit.pso.PSO(device=OPENCL, **options)
    second.set_state(state)
    asked = run_loop(second, 2)
    for mine, theirs in zip(asked, expected):
        assert np.array_equal(mine, theirs)
    assert second.best_f == first.best_f
    first.close()
    second.close()


def test_pso_on_a_session():
    with clkit.Session("ref") as session:
        opt = clkit.pso.PSO(session=session, **SWARM)
        told = [sphere(X) for X in run_loop(opt, 2)]
        assert opt.best_f == np.float32(np.concatenate(told).min())
        assert session.stats()["queues_made"] == 1  # the session's queue
        opt.close()


def test_ask_twice_gives_the_same_positions():
    opt = clkit.pso.PSO(device="ref", **SWARM)
    assert np.array_equal(opt.ask(), opt.ask())
    X = opt.ask()
    X[:] = 0  # the caller's copy
    assert not np.array_equal(opt.ask(), X)


def test_tell_needs_an_ask():
    opt = clkit.pso.PSO(device="ref", **SWARM)
    with pytest.raises(clkit.Error, match=r"PSO\.tell\(\): ask\(\) first"):
        opt.tell(np.zeros(20))
    X = opt.ask()
    opt.tell(sphere(X))
    with pytest.raises(clkit.Error, match="ask"):
        opt.tell(sphere(X))
    assert opt.iteration == 1


def test_tell_checks_the_values():
    opt = clkit.pso.PSO(device="ref", **SWARM)
    X = opt.ask()
    with pytest.raises(ValueError, match=r"shape \(19,\); give 20 values"):
        opt.tell(np.zeros(19))
    with pytest.raises(ValueError, match=r"shape \(20, 2\)"):
        opt.tell(np.zeros((20, 2)))
    with pytest.raises(TypeError, match="values must be numbers"):
        opt.tell(["a"] * 20)
    values = sphere(X)
    values[3] = -np.inf
    with pytest.raises(clkit.ArgumentError,
                       match=r"value 3 is -inf.*single-precision"):
        opt.tell(values)
    assert opt.iteration == 0
    opt.tell(sphere(X).reshape(20, 1))  # a column is one value a row
    assert opt.iteration == 1 and opt.best_f == np.float32(sphere(X).min())


def test_nan_counts_as_the_largest_value():
    opt = clkit.pso.PSO(device="ref", **SWARM)
    opt.ask()
    opt.tell(np.full(20, np.nan))
    assert opt.best_f == np.finfo(np.float32).max
    X = opt.ask()
    values = sphere(X)
    values[::2] = np.nan
    opt.tell(values)
    assert opt.best_f == np.float32(np.nanmin(values))


def test_pso_refuses_options_of_a_run():
    for options, named in ((dict(iters=10), "--iters"),
                           (dict(target=0.1), "--target"),
                           (dict(time=1), "--time"),
                           (dict(trace="trace.csv"), "--trace"),
                           (dict(fn="sphere"), "fn="),
                           (dict(objective="f.cl"), "objective=")):
        with pytest.raises(ValueError, match=named):
            clkit.pso.PSO(device="ref", **SWARM, **options)
    with pytest.raises(TypeError, match="unexpected keyword argument 'wx'"):
        clkit.pso.PSO(device="ref", wx=1, **SWARM)
    with pytest.raises(clkit.ArgumentError, match="--w"):
        clkit.pso.PSO(device="ref", w="fast", **SWARM)
    with pytest.raises(ValueError, match="lo has 3 values for 5 dimensions"):
        clkit.pso.PSO(device="ref", **dict(SWARM, lo=[-1, -1, -1]))
    with pytest.raises(TypeError, match="hi"):
        clkit.pso.PSO(device="ref", dim=5, lo=-1)


def test_set_state_checks_the_state():
    opt = clkit.pso.PSO(device="ref", **SWARM)
    run_loop(opt, 2)
    state = opt.state()
    before = opt.ask()
    with pytest.raises(ValueError, match="lacks velocities"):
        opt.set_state({k: v for k, v in state.items() if k != "velocities"})
    with pytest.raises(ValueError, match=r"best_values has shape \(19,\)"):
        opt.set_state(dict(state, best_values=state["best_values"][:19]))
    with pytest.raises(ValueError, match="seed 8 is not the swarm's 7"):
        opt.set_state(dict(state, seed=8))
    positions = state["positions"].copy()
    positions[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"positions\[11\] is nan"):
        opt.set_state(dict(state, positions=positions))
    with pytest.raises(ValueError, match="iteration"):
        opt.set_state(dict(state, iteration=-1))
    assert np.array_equal(opt.ask(), before) and opt.iteration == 2


def test_closed_optimisers_refuse():
    with clkit.pso.PSO(device="ref", **SWARM) as opt:
        run_loop(opt, 1)
    assert opt.closed
    for call in (opt.ask, lambda: opt.tell(np.zeros(20)), opt.state,
                 lambda: opt.best_x, lambda: opt.iteration):
        with pytest.raises(clkit.Error, match="closed"):
            call()
    opt.close()


def test_ga_asks_and_tells():
    with clkit.ga.GA(device="ref", precision="double", **GA_SIZE) as ga:
        assert ga.generation == 0 and ga.best_f is None
        X = ga.ask()
        assert X.shape == (16, 3) and np.array_equal(X, ga.ask())
        assert np.all((X >= -2) & (X <= 2))
        told = []
        for _ in range(5):
            X = ga.ask()
            values = sphere(X)
            told.append((values, X))
            ga.tell(values)
        assert ga.generation == 5
        # Elites keep the best told: the best is the least value told.
        least = min(told, key=lambda pair: pair[0].min())
        assert ga.best_f == least[0].min()
        assert np.array_equal(ga.best_x, least[1][np.argmin(least[0])])
        state = ga.state()
        assert state["generation"] == 5
        assert np.array_equal(state["population"], ga.ask())
        assert np.array_equal(state["values"], told[-1][0])
        assert state["best_f"] == ga.best_f
        assert np.array_equal(state["best_x"], ga.best_x)
        assert state["island_best"].min() == ga.best_f
        assert state["island_best_genes"].shape == (2, 3)
        assert state["fitness"].shape == (16,)
        assert state["migrations"] == 0 and state["seed"] == 3


def ga_loop(ga, tells, objective=sphere):
    """tells rounds of ask and tell on a GA; the positions asked and the
    bests after each tell."""
    asked, bests = [], []
    for _ in range(tells):
        X = ga.ask()
        asked.append(X)
        ga.tell(objective(X))
        bests.append((ga.best_f, ga.best_x))
    return asked, bests


@pytest.mark.parametrize("topology", ["ring", "random"])
def test_ga_state_restores_the_asks(topology):
    """A state read past one migration, set on a GA told other values,
    gives it the asks and bests of the first, bit for bit, across three
    more migrations."""
    options = dict(GA_SIZE, migrate_every=2, migrants=2, topology=topology)
    first = clkit.ga.GA(device="ref", precision="double", **options)
    second = clkit.ga.GA(device="ref", precision="double", **options)
    ga_loop(first, 3)
    state = first.state()
    assert state["generation"] == 3 and state["migrations"] == 1
    assert state["best_f"] == first.best_f == state["island_best"].min()
    expected, expected_bests = ga_loop(first, 6)
    ga_loop(second, 4, objective=lambda X: X[:, 0])
    second.set_state(state)
    assert second.generation == 3 and second.best_f == state["best_f"]
    restored = second.state()
    for key in ("population", "fitness", "island_best", "island_best_genes",
                "values", "best_x"):
        assert np.array_equal(restored[key], state[key]), key
    asked, bests = ga_loop(second, 6)
    for mine, theirs in zip(asked, expected):
        assert np.array_equal(mine, theirs)
    for (f, x), (f_expected, x_expected) in zip(bests, expected_bests):
        assert f == f_expected and np.array_equal(x, x_expected)
    assert second.state()["migrations"] == first.state()["migrations"] == 4
    # state() is a copy: changing it changes no GA.
    state["population"][:] = 0
    assert not np.array_equal(second.state()["population"],
                              state["population"])
    first.close()
    second.close()


def test_ga_initial_state():
    """The initial state has no tells, bests or migrations, and sends a GA
    back to its first ask."""
    with clkit.ga.GA(device="ref", **GA_SIZE) as ga:
        state = ga.state()
        largest = np.finfo(np.float32).max
        assert state["generation"] == 0 and state["migrations"] == 0
        assert state["values"] is None and state["best_x"] is None
        assert state["best_f"] is None
        assert np.all(state["fitness"] == largest)
        assert np.all(state["island_best"] == largest)
        assert np.all(state["island_best_genes"] == 0)
        first = ga.ask()
        assert np.array_equal(state["population"], first)
        ga_loop(ga, 3)
        ga.set_state(state)
        assert ga.generation == 0 and ga.best_f is None
        assert np.array_equal(ga.ask(), first)


@pytest.mark.skipif(not OPENCL, reason="no OpenCL device")
def test_ga_state_on_opencl():
    options = dict(GA_SIZE, migrate_every=2, topology="random")
    first = clkit.ga.GA(device=OPENCL, **options)
    ga_loop(first, 3)
    state = first.state()
    expected, expected_bests = ga_loop(first, 4)
    second = clkit.ga.GA(device=OPENCL, **options)
    second.set_state(state)
    asked, bests = ga_loop(second, 4)
    for mine, theirs in zip(asked, expected):
        assert np.array_equal(mine, theirs)
    assert bests[-1][0] == expected_bests[-1][0]
    first.close()
    second.close()


def test_ga_set_state_checks_the_state():
    ga = clkit.ga.GA(device="ref", **dict(GA_SIZE, migrate_every=2))
    ga_loop(ga, 3)
    state = ga.state()
    before = ga.ask()
    with pytest.raises(ValueError, match="lacks island_best_genes"):
        ga.set_state({k: v for k, v in state.items()
                      if k != "island_best_genes"})
    with pytest.raises(ValueError, match=r"island_best has shape \(3,\)"):
        ga.set_state(dict(state, island_best=np.zeros(3)))
    with pytest.raises(ValueError, match=r"values has shape \(15,\)"):
        ga.set_state(dict(state, values=state["values"][:15]))
    with pytest.raises(ValueError, match="seed 4 is not the GA's 3"):
        ga.set_state(dict(state, seed=4))
    population = state["population"].copy()
    population[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"population\[7\] is nan"):
        ga.set_state(dict(state, population=population))
    genes = state["island_best_genes"].copy()
    genes[1, 0] = np.inf
    with pytest.raises(ValueError, match=r"island_best_genes\[3\] is inf"):
        ga.set_state(dict(state, island_best_genes=genes))
    with pytest.raises(ValueError, match="both None"):
        ga.set_state(dict(state, best_x=None))
    with pytest.raises(ValueError, match="generation must be a whole"):
        ga.set_state(dict(state, generation=-1))
    with pytest.raises(ValueError, match="migrations must be a whole"):
        ga.set_state(dict(state, migrations=1.5))
    assert np.array_equal(ga.ask(), before) and ga.generation == 3
    assert ga.state()["migrations"] == 1
    ga.close()


def test_ga_evaluates_what_minimize_evaluates():
    seen = []

    def objective(X):
        seen.append(X.copy())
        return sphere(X)

    options = dict(GA_SIZE, migrate_every=2)
    lo, hi = options.pop("lo"), options.pop("hi")
    result = clkit.ga.minimize(objective, lo, hi, gens=6, device="ref",
                               **options)
    ga = clkit.ga.GA(lo=lo, hi=hi, device="ref", **options)
    asked = run_loop(ga, 7)
    for mine, theirs in zip(asked, seen):
        assert np.array_equal(mine, theirs)
    assert len(seen) == 7 and ga.best_f == result.fun


def test_ga_refuses_options_of_a_run():
    for options, named in ((dict(gens=5), "--gens"),
                           (dict(trace_islands=True), "--trace-islands"),
                           (dict(evals=100), "--evals")):
        with pytest.raises(ValueError, match=named):
            clkit.ga.GA(device="ref", **GA_SIZE, **options)
    with pytest.raises(clkit.ArgumentError, match="island"):
        clkit.ga.GA(device="ref", **dict(GA_SIZE, island_size=1))
    ga = clkit.ga.GA(device="ref", **GA_SIZE)
    ga.ask()
    with pytest.raises(ValueError, match="give 16 values"):
        ga.tell(np.zeros(8))


# ---- device arrays (array=) ---------------------------------------------------

def test_array_off_cuda_gives_views_of_the_host_copy(device):
    """Off a CUDA device, array="dlpack" asks give the swarm's host copy
    (page-locked on OpenCL), which NumPy reads in place, and the run is
    the default one's, bit for bit; a bad name is refused."""
    with pytest.raises(ValueError, match="array must be one of"):
        clkit.pso.PSO(lo=-1, hi=1, dim=2, device="ref", array="tensorflow")
    runs = []
    for array in ("numpy", "dlpack"):
        with clkit.pso.PSO(lo=-5, hi=5, dim=3, particles=16, device=device,
                           seed=4, array=array) as opt:
            for _ in range(6):
                X = opt.ask()
                if array == "dlpack":
                    assert X.__dlpack_device__() == (1, 0)
                    X = np.asarray(X)
                    assert X.dtype == np.float32 and X.shape == (16, 3)
                X = np.ascontiguousarray(X, dtype=np.float64)
                opt.tell((X ** 2).sum(axis=1))
            runs.append((opt.best_f, opt.best_x.tolist()))
    assert runs[0] == runs[1]


@needs_cuda
def test_torch_asks_are_the_swarms_memory_on_cuda():
    """On CUDA, array="torch" asks give CUDA tensors (no copy) and tells
    take CUDA tensors: the run is the NumPy one's, bit for bit, for an
    objective exact in any precision; a view kept past close stays
    readable."""
    torch = pytest.importorskip("torch")
    runs, kept = [], []
    for array in ("numpy", "torch"):
        with clkit.pso.PSO(lo=-5, hi=5, dim=3, particles=16, device=CUDA,
                           seed=4, array=array) as opt:
            for _ in range(6):
                X = opt.ask()
                if array == "torch":
                    assert X.is_cuda and X.dtype == torch.float32
                    kept.append(X)
                opt.tell(X[:, 0])
            runs.append((opt.best_f, opt.best_x.tolist()))
    assert runs[0] == runs[1]
    assert kept[-1].shape == (16, 3) and bool(torch.isfinite(kept[-1]).all())


@needs_cuda
def test_torch_asks_of_a_ga_are_its_memory_on_cuda():
    """A GA's generations as CUDA tensors: the run is the NumPy one's, bit
    for bit, for an objective exact in any precision."""
    torch = pytest.importorskip("torch")
    runs = []
    for array in ("numpy", "torch"):
        with clkit.ga.GA(lo=-5, hi=5, dim=3, islands=4, island_size=8,
                         device=CUDA, seed=4, array=array) as opt:
            for _ in range(6):
                X = opt.ask()
                if array == "torch":
                    assert X.is_cuda and X.shape == (32, 3)
                opt.tell(X[:, 0])
            runs.append((opt.best_f, opt.best_x.tolist(),
                         opt.state()["values"].tolist()))
    assert runs[0] == runs[1]


def _optimiser(kind, device, **options):
    """A small PSO or GA on device."""
    if kind == "pso":
        return clkit.pso.PSO(lo=-5, hi=5, dim=3, particles=16, device=device,
                             seed=4, **options)
    return clkit.ga.GA(lo=-5, hi=5, dim=3, islands=2, island_size=8,
                       device=device, seed=4, **options)


@pytest.mark.parametrize("kind", ["pso", "ga"])
def test_views_of_asks_off_cuda_outlive_the_tell_and_close(device, kind):
    """Off a CUDA device, a view of an ask keeps that ask's positions past
    the next tell and past close(); the DeviceArray itself gives no array
    after the tell (BufferError, not NumPy's object array). A loop that
    holds its last view reuses two blocks."""
    opt = _optimiser(kind, device, array="dlpack")
    X = opt.ask()
    view = np.asarray(X)
    copy = view.copy()
    opt.tell(sphere(copy.astype(np.float64)))
    with pytest.raises(BufferError, match="until the next tell"):
        np.asarray(X)
    with pytest.raises(BufferError, match="until the next tell"):
        X.__dlpack__()
    later = np.asarray(opt.ask())
    assert not np.array_equal(later, copy)
    assert np.array_equal(view, copy)
    addresses = set()
    for _ in range(6):
        later = np.asarray(opt.ask())
        addresses.add(later.__array_interface__["data"][0])
        opt.tell(sphere(later.astype(np.float64)))
    assert len(addresses) <= 2
    opt.close()
    del X
    assert np.array_equal(view, copy) and np.all(np.abs(view) <= 5)


@pytest.mark.parametrize("array", ["numpy", "dlpack"])
@pytest.mark.parametrize("kind", ["pso", "ga"])
def test_tells_refuse_values_below_the_least(device, kind, array):
    """tell() refuses -inf and values below the least of the precision
    alike with array="numpy" and on the device path, leaving the
    optimiser as it was; the least itself is told."""
    opt = _optimiser(kind, device, array=array)
    rows = opt.ask().shape[0]
    with pytest.raises(clkit.ArgumentError,
                       match=r"tell\(\): value 0 is -inf.*single-precision"):
        opt.tell(np.full(rows, -np.inf))
    values = np.zeros(rows)
    values[2] = -1e39
    with pytest.raises(clkit.ArgumentError, match=r"value 2 is -1e\+39"):
        opt.tell(values)
    assert opt.best_f is None
    values[2] = -np.finfo(np.float32).max
    opt.tell(values)
    assert opt.best_f == -np.finfo(np.float32).max
    opt.close()
    double = _optimiser(kind, device, array=array, precision="double")
    double.ask()
    with pytest.raises(clkit.ArgumentError,
                       match=r"value 0 is -inf.*double-precision"):
        double.tell(np.full(rows, -np.inf))
    double.tell(np.full(rows, -1e39))
    assert double.best_f == -1e39
    double.close()


@pytest.mark.parametrize("array", ["numpy", "dlpack"])
@pytest.mark.parametrize("kind", ["pso", "ga"])
def test_tells_refuse_what_is_not_numbers(kind, array):
    """None, strings and booleans are no values: a TypeError names the
    first, where NumPy would make them NaN or numbers."""
    opt = _optimiser(kind, "ref", array=array)
    rows = opt.ask().shape[0]
    for values, named in (([1.0, None] + [1.0] * (rows - 2), "value 1 is None"),
                          (["1.5"] * rows, "value 0 is '1.5'"),
                          (np.ones(rows, dtype=bool), "value 0 is True"),
                          ([0.5, 2, "x"] + [1.0] * (rows - 3),
                           "value 2 is 'x'")):
        with pytest.raises(TypeError, match=f"values must be numbers: "
                           f"{named}"):
            opt.tell(values)
    assert opt.best_f is None
    opt.tell([1] * rows)  # whole numbers are numbers
    assert opt.best_f == 1.0
    opt.close()


def test_set_state_refuses_a_state_of_other_options():
    """A state records the options its swarm or GA was made with; another
    optimiser's options (or precision, or domain) are refused, naming the
    option."""
    opt = clkit.pso.PSO(device="ref", w=0.5, **SWARM)
    run_loop(opt, 2)
    state = opt.state()
    assert state["options"]["w"] == 0.5
    assert state["options"]["lo"] == [-5.12] * 5
    same = clkit.pso.PSO(device="ref", w=0.5, c1=1.49618, **SWARM)
    same.set_state(state)  # c1 given as its default is the same
    assert np.array_equal(same.ask(), opt.ask())
    for options, named in ((dict(w=0.9), r"w is 0\.5 in the state, 0\.9"),
                           (dict(w=0.5, precision="double"),
                            r"precision is 'float' in the state, 'double'"),
                           (dict(w=0.5, topology="ring:3"), "topology"),
                           (dict(w=0.5, hi=5), "hi is")):
        other = clkit.pso.PSO(device="ref", **dict(SWARM, **options))
        before = other.ask()
        with pytest.raises(ValueError, match=f"options: {named}"):
            other.set_state(state)
        assert np.array_equal(other.ask(), before) and other.iteration == 0
    with pytest.raises(ValueError, match="lacks options"):
        same.set_state({k: v for k, v in state.items() if k != "options"})
    with pytest.raises(ValueError, match="'wx', which is no option"):
        same.set_state(dict(state, options=dict(state["options"], wx=1)))
    ga = clkit.ga.GA(device="ref", **GA_SIZE)
    ga_loop(ga, 2)
    ga_state = ga.state()
    other = clkit.ga.GA(device="ref", pm=0.5, **GA_SIZE)
    with pytest.raises(ValueError, match=r"options: pm is '1/dim' in the "
                       r"state, 0\.5 here"):
        other.set_state(ga_state)


def test_set_state_refuses_bests_no_tells_make():
    """A state's best values are those tell() could give: a best not the
    least of the particles' (never told), one below the least of the
    precision or NaN, a global best not at a particle's best, told values
    at iteration 0 and an iteration past 2^64 - 1 are refused, naming the
    key, and the swarm is left as it was."""
    opt = clkit.pso.PSO(device="ref", **SWARM)
    run_loop(opt, 3)
    state = opt.state()
    before = opt.ask()
    best_values = state["best_values"].copy()
    best_values[4] = np.nan
    global_best = state["global_best"].copy()
    global_best[0] += 0.25
    for change, named in (
            (dict(global_best_value=-5.0),
             r"global_best_value is -5, not the least of best_values"),
            (dict(global_best_value=-1e300), r"global_best_value is -1e\+300"),
            (dict(global_best_value=np.nan), "global_best_value is nan"),
            (dict(global_best_value="1"), "global_best_value must be a number"),
            (dict(best_values=best_values), r"best_values\[4\] is nan"),
            (dict(global_best=global_best),
             "global_best is not the row of best_positions"),
            (dict(iteration=0), r"best_values\[0\] is .*, but iteration is 0"),
            (dict(iteration=2 ** 70),
             r"iteration must be a whole number from 0 to 2\^64 - 1")):
        with pytest.raises(ValueError, match=named):
            opt.set_state(dict(state, **change))
    assert np.array_equal(opt.ask(), before) and opt.iteration == 3
    assert opt.best_f == state["global_best_value"]


def test_ga_set_state_refuses_bests_no_tells_make():
    ga = clkit.ga.GA(device="ref", **GA_SIZE)
    ga_loop(ga, 3)
    state = ga.state()
    before = ga.ask()
    best_x = state["best_x"].copy()
    best_x[1] += 0.25
    values = state["values"].copy()
    values[3] = -np.inf
    fitness = state["fitness"].copy()
    fitness[0] = 1e39
    for change, named in (
            (dict(best_f=-5.0), "best_f is -5, not the least of island_best"),
            (dict(best_f=-1e300), r"best_f is -1e\+300"),
            (dict(best_f=np.nan), "best_f is nan"),
            (dict(best_x=best_x),
             "best_x is not the row of island_best_genes"),
            (dict(fitness=fitness), r"fitness\[0\] is 1e\+39"),
            (dict(generation=0), "but generation is 0"),
            (dict(generation=2 ** 64), "generation must be a whole number"),
            (dict(values=values), "values: value 3 is -inf"),
            (dict(values=[None] * 16), "values must be numbers")):
        with pytest.raises(ValueError, match=named):
            ga.set_state(dict(state, **change))
    assert np.array_equal(ga.ask(), before) and ga.generation == 3
    assert ga.best_f == state["best_f"]
