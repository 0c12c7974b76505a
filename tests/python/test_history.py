"""The runs' histories as NumPy arrays, against the command's --trace and
--thermo files of the same run, and plot= writing the command's chart."""
import csv
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

import clkit

SVG = "{http://www.w3.org/2000/svg}"


def table(path):
    """A CSV file as a dict of float arrays, a column each."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return {name: np.array([float(row[name]) for row in rows])
            for name in rows[0]}


def series_points(path):
    """The number of points of each series a chart draws, by its name."""
    root = ElementTree.parse(path).getroot()
    return {line.find(SVG + "title").text: len(line.get("points").split())
            for line in root.iter(SVG + "polyline")
            if line.get("class") == "series"}


def test_pso_history_is_the_trace_and_the_chart(tmp_path):
    trace, chart = tmp_path / "trace.csv", tmp_path / "best.svg"
    result = clkit.pso.minimize("sphere", dim=3, particles=16, iters=20,
                                device="ref", seed=1, trace=trace, plot=chart)
    rows = table(trace)
    assert result.history.dtype == np.float64
    assert result.history.shape == (21, 2)
    assert np.array_equal(result.history[:, 0], rows["iteration"])
    assert np.array_equal(result.history[:, 1], rows["best"])
    assert series_points(chart) == {"best so far (objective value)": 21}
    assert result.options["plot"] == str(chart)


def test_ga_history_and_its_chart(tmp_path):
    chart = tmp_path / "ga.png"
    result = clkit.ga.minimize("rastrigin", dim=3, islands=2, island_size=8,
                               gens=6, device="ref", seed=1, plot=chart)
    assert result.history.shape == (7, 2)
    assert np.array_equal(result.history[:, 0], np.arange(7))
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_aco_history_and_its_chart(tmp_path):
    trace, chart = tmp_path / "trace.csv", tmp_path / "tour.svg"
    result = clkit.aco.solve("random:12", iters=6, device="ref", seed=1,
                             trace=trace, plot=chart)
    rows = table(trace)
    assert np.array_equal(result.history[:, 0], rows["iteration"])
    assert np.array_equal(result.history[:, 1], rows["best_length"])
    # Held level between improvements and to the run's end.
    assert series_points(chart) == {
        "best so far (tour length)": 2 * len(result.history)}


def test_plot_names_a_chart_file():
    with pytest.raises(clkit.ArgumentError, match=r"option --plot: .*\.svg"):
        clkit.pso.minimize("sphere", dim=2, iters=2, device="ref",
                           plot="best.jpg")


def test_mlp_history_is_the_commands_trace(tmp_path, cli):
    """A structured array of the epochs, as `clkit run nn --trace` writes
    them for the same rows, options and seed."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 16, size=(120, 4))
    y = (X[:, 0] + X[:, 1] > 15).astype(int)
    data = tmp_path / "rows.csv"
    np.savetxt(data, np.column_stack([y, X]), fmt="%d", delimiter=",")
    model = clkit.nn.MLP(layers=(8,), epochs=4, patience=0, val=0.25,
                         device="ref", seed=3).fit(X[:100], y[:100])
    trace = tmp_path / "trace.csv"
    cli("run", "nn", "--train", str(data), "--split", "100", "--layers",
        "4,8,2", "--epochs", "4", "--patience", "0", "--val", "0.25",
        "--device", "ref", "--seed", "3", "--trace", str(trace))
    rows = table(trace)
    history = model.history_
    assert history.dtype == clkit.nn.HISTORY
    assert len(history) == model.n_iter_ == 4
    assert np.array_equal(history["epoch"], [1, 2, 3, 4])
    assert history["loss"].tolist() == model.loss_curve_
    for name, column in (("loss", "train_loss"),
                         ("accuracy", "train_accuracy"),
                         ("validation_loss", "validation_loss"),
                         ("validation_accuracy", "validation_accuracy")):
        assert np.allclose(history[name], rows[column], rtol=1e-8,
                           atol=0), name
    assert history[-1]["epoch"] == 4


def test_simulation_thermo_is_the_commands(tmp_path, cli):
    """Rows every log_every steps, across runs, as `clkit run gas
    --log-every K --thermo` writes them for the same steps in one run."""
    simulation = clkit.gas.Simulation(64, temperature=0.8, device="ref",
                                      seed=3)
    assert len(simulation.thermo) == 0
    simulation.run(30, log_every=10).run(30, log_every=10)
    thermo = tmp_path / "thermo.csv"
    cli("run", "gas", "--particles", "64", "--T", "0.8", "--steps", "60",
        "--log-every", "10", "--seed", "3", "--device", "ref", "--thermo",
        str(thermo))
    rows = table(thermo)
    found = simulation.thermo
    assert found.dtype == clkit.gas.THERMO
    assert np.array_equal(found["step"], np.arange(0, 61, 10))
    for name in clkit.gas.THERMO.names:
        assert np.allclose(found[name], rows[name], rtol=1e-9, atol=0), name
    # The option's default (100), and 0 for none.
    simulation.run(200)
    assert simulation.thermo["step"][-3:].tolist() == [60, 160, 260]
    simulation.run(20, log_every=0)
    assert simulation.thermo["step"][-1] == 260
    with pytest.raises(clkit.ArgumentError, match="log_every"):
        simulation.run(10, log_every=-1)
