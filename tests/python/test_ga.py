"""clkit.ga.minimize: the command's results, a callable objective, errors."""
import numpy as np
import pytest

import clkit
from conftest import sphere

SMALL = dict(dim=4, islands=4, island_size=16, gens=10)


def test_same_result_as_the_command(device, cli):
    result = clkit.ga.minimize("rastrigin", device=device, seed=5, **SMALL)
    expected = cli("run", "ga", "--fn", "rastrigin", "--dim", "4",
                   "--islands", "4", "--island-size", "16", "--gens", "10",
                   "--seed", "5", "--device", device)
    assert result.fun == expected["best"]
    assert result.x.tolist() == expected["x"]
    assert result.nit == expected["generations"] == 10
    assert result.nfev == expected["evaluations"]
    assert result.stopped_by == "generations"
    assert result.history.shape == (11, 2)
    # The history holds the run's own values, in single precision; fun is
    # the best position's value in double.
    assert result.history[-1, 1] == pytest.approx(result.fun, rel=1e-6)


def test_options_reach_the_option_table(cli):
    result = clkit.ga.minimize("sphere", -1, 1, dim=3, islands=3,
                               island_size=8, gens=12, crossover="sbx:2",
                               migrate_every=4, migrants=2, device="ref",
                               seed=9)
    expected = cli("run", "ga", "--fn", "sphere", "--lo", "-1", "--hi", "1",
                   "--dim", "3", "--islands", "3", "--island-size", "8",
                   "--gens", "12", "--crossover", "sbx:2", "--migrate-every",
                   "4", "--migrants", "2", "--device", "ref", "--seed", "9")
    assert result.fun == expected["best"]
    assert result.x.tolist() == expected["x"]


def test_a_callable_reaches_the_builtin_ga(device):
    """Bit for bit on ref, to 1e-12 elsewhere, as the C tests assert."""
    shapes = set()

    def objective(X):
        shapes.add(X.shape)
        return sphere(X)

    common = dict(dim=4, islands=3, island_size=8, gens=20, migrate_every=4,
                  migrants=2, topology="random", precision="double",
                  device=device, seed=5)
    host = clkit.ga.minimize(objective, -5.12, 5.12, **common)
    builtin = clkit.ga.minimize("sphere", -5.12, 5.12, **common)
    assert shapes == {(24, 4)}
    if device == "ref":
        assert host.fun == builtin.fun
        assert host.x.tolist() == builtin.x.tolist()
    else:
        assert abs(host.fun - builtin.fun) <= 1e-12 * abs(builtin.fun)


def test_a_kept_generation_holds_its_batch(device):
    kept, copies = [], []

    def keeping(X):
        kept.append(X)
        copies.append(X.copy())
        return sphere(X)

    clkit.ga.minimize(keeping, -1, 1, dim=3, islands=2, island_size=8,
                      gens=4, device=device)
    assert len(kept) == 5
    for X, copy in zip(kept, copies):
        assert X.shape == (16, 3) and not X.flags.writeable
        assert np.array_equal(X, copy)


def test_a_view_of_a_host_copy_kept_past_its_call(device):
    """array="dlpack" off CUDA: a NumPy view of X kept past its call stops
    the run with a RuntimeError, and still reads its generation after
    the run; X itself gives no array then (BufferError)."""
    kept, copies, arrays = [], [], []

    def keeping(X):
        arrays.append(X)
        kept.append(np.asarray(X))
        copies.append(kept[-1].copy())
        return sphere(np.asarray(X, dtype=np.float64))

    with pytest.raises(RuntimeError, match="kept its X"):
        clkit.ga.minimize(keeping, -1, 1, dim=3, islands=2, island_size=8,
                          gens=4, device=device, array="dlpack")
    assert len(kept) == 1 and kept[0].shape == (16, 3)
    assert np.array_equal(kept[0], copies[0])
    assert np.all(np.abs(kept[0]) <= 1)
    with pytest.raises(BufferError, match="during its call"):
        np.asarray(arrays[0])


def test_bad_arguments_are_refused_clearly():
    with pytest.raises(TypeError,
                       match="unexpected keyword argument 'particles'$"):
        clkit.ga.minimize("sphere", device="ref", particles=10)
    with pytest.raises(clkit.ArgumentError, match="--island-size"):
        clkit.ga.minimize("sphere", device="ref", island_size=1)
    with pytest.raises(ValueError, match="crossover"):
        clkit.ga.minimize("sphere", device="ref", crossover="none-such")


def test_an_exception_in_the_callable_propagates():
    def failing(X):
        raise RuntimeError("bad fitness")

    with pytest.raises(RuntimeError, match="bad fitness"):
        clkit.ga.minimize(failing, -1, 1, dim=2, device="ref", **{
            "islands": 2, "island_size": 4})


def test_progress_cancels():
    def progress(state):
        if state.steps > 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        clkit.ga.minimize("sphere", dim=2, islands=2, island_size=8,
                          gens=10 ** 9, check_every=1, device="ref",
                          progress=progress)
    assert np.isfinite(clkit.ga.minimize("sphere", device="ref",
                                         **SMALL).fun)
