"""clkit.aco.solve: the command's tour and length, instances from files and
from arrays, errors."""
import pathlib

import numpy as np
import pytest

import clkit

TSPLIB = pathlib.Path(__file__).resolve().parents[1] / "data" / "tsplib"
EIL51 = TSPLIB / "eil51.tsp"


def read_tour(path):
    """A TSPLIB tour file's cities, 0-based: its section up to -1."""
    fields = pathlib.Path(path).read_text().split("TOUR_SECTION")[1].split()
    return [int(city) - 1 for city in fields[:fields.index("-1")]]


def eil51_coordinates():
    lines = EIL51.read_text().split("NODE_COORD_SECTION")[1].split("\n")
    rows = [line.split() for line in lines if len(line.split()) == 3]
    return np.array([[float(x), float(y)] for _, x, y in rows])


def test_same_tour_as_the_command(device, cli, tmp_path):
    result = clkit.aco.solve(EIL51, iters=5, ants=8, device=device, seed=4)
    tour_file = tmp_path / "eil51.tour"
    expected = cli("run", "aco", str(EIL51), "--iters", "5", "--ants", "8",
                   "--seed", "4", "--device", device, "--tour-out",
                   str(tour_file))
    assert result.length == result.fun == expected["best"]
    assert isinstance(result.length, int)
    assert result.tour.tolist() == read_tour(tour_file)
    assert result.nit == expected["iterations"] == 5
    assert result.stopped_by == expected["stopped_by"] == "iterations"
    assert result.cities == 51 and result.gap is None
    assert result.device == device and result.seed == 4
    assert result.options["ants"] == 8 and result.options["tour_out"] is None


def test_the_tour_is_a_permutation_of_its_length():
    result = clkit.aco.solve(str(EIL51), iters=3, device="ref")
    assert result.tour.dtype.kind == "i" and result.tour.shape == (51,)
    assert sorted(result.tour.tolist()) == list(range(51))
    points = eil51_coordinates()[result.tour]
    steps = np.hypot(*(points - np.roll(points, -1, axis=0)).T)
    assert int(np.sum(np.floor(steps + 0.5))) == result.length


def test_the_focused_method_gives_a_tour(device, cli):
    """method="focused" is --method focused, on a small instance too."""
    result = clkit.aco.solve(EIL51, iters=5, method="focused",
                             device=device, seed=3)
    expected = cli("run", "aco", str(EIL51), "--iters", "5", "--method",
                   "focused", "--seed", "3", "--device", device)
    assert result.metrics["focused"] == expected["focused"] == 1
    assert result.length == expected["best"]
    assert sorted(result.tour.tolist()) == list(range(51))
    points = eil51_coordinates()[result.tour]
    steps = np.hypot(*(points - np.roll(points, -1, axis=0)).T)
    assert int(np.sum(np.floor(steps + 0.5))) == result.length
    assert 426 <= result.length < 426 * 1.1


def test_coordinates_give_the_files_run():
    from_file = clkit.aco.solve(EIL51, iters=4, device="ref", seed=2)
    from_array = clkit.aco.solve(eil51_coordinates(), iters=4, device="ref",
                                 seed=2)
    assert from_array.length == from_file.length
    assert from_array.tour.tolist() == from_file.tour.tolist()
    assert from_array.options["instance"] is None


def test_coordinates_keep_every_bit(tmp_path):
    """Coordinates that no short decimal writes exactly reach clkit as
    they are: the same run as from a file written with repr."""
    points = np.random.default_rng(7).random((12, 2)) * 1000
    path = tmp_path / "points.tsp"
    path.write_text("NAME : points\nTYPE : TSP\nDIMENSION : 12\n"
                    "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n" +
                    "".join(f"{i + 1} {x!r} {y!r}\n"
                            for i, (x, y) in enumerate(points.tolist())))
    from_array = clkit.aco.solve(points, iters=3, device="ref")
    from_file = clkit.aco.solve(path, iters=3, device="ref")
    assert from_array.length == from_file.length
    assert from_array.tour.tolist() == from_file.tour.tolist()


def test_gap_from_an_optimum(cli):
    result = clkit.aco.solve(EIL51, iters=3, device="ref",
                             optima=TSPLIB / "optima.txt")
    expected = cli("run", "aco", str(EIL51), "--iters", "3", "--device",
                   "ref", "--optima", str(TSPLIB / "optima.txt"))
    assert result.optimum == 426
    assert result.gap == expected["gap_percent"]
    assert result.gap == pytest.approx(100 * (result.length - 426) / 426)


def test_time_and_history():
    result = clkit.aco.solve(EIL51, time=0.2, device="ref")
    assert result.stopped_by == "time"
    assert result.history.shape[1] == 2
    assert result.history[-1, 1] == result.length
    assert np.all(np.diff(result.history[:, 1]) < 0)
    assert clkit.aco.solve(EIL51, iters=2, device="ref",
                           history=False).history is None


def test_a_tour_out_of_the_callers_is_written(tmp_path):
    path = tmp_path / "best.tour"
    result = clkit.aco.solve(EIL51, iters=2, device="ref", tour_out=path)
    assert read_tour(path) == result.tour.tolist()
    assert result.options["tour_out"] == str(path)


@pytest.mark.parametrize("instance, error, words", [
    (np.zeros((4, 2)), ValueError, "4 cities; the ACO takes 5"),
    (np.zeros((6, 3)), ValueError, "shape (n, 2)"),
    (np.zeros(12), ValueError, "shape (n, 2)"),
    (np.array([[0, 0]] * 5 + [[np.nan, 1]]), ValueError, "city 5"),
    (np.array([[0, 0]] * 5 + [[1, np.inf]]), ValueError, "must be finite"),
    (np.array([[0, 0]] * 5 + [[1, -2e8]]), ValueError, "within +-1.8e+08"),
    ([["a", "b"]] * 6, TypeError, "TSPLIB file's path or an (n, 2) array"),
    ({"x": 1}, TypeError, "not dict"),
    (b"eil51.tsp", TypeError, "not bytes"),
])
def test_bad_instances_are_refused(instance, error, words):
    with pytest.raises(error) as raised:
        clkit.aco.solve(instance, iters=1, device="ref")
    assert words in str(raised.value)


def test_bad_options_are_refused(tmp_path):
    with pytest.raises(TypeError, match="'antz'; did you mean 'ants'[?]"):
        clkit.aco.solve(EIL51, iters=1, device="ref", antz=3)
    with pytest.raises(clkit.ArgumentError, match="--ants"):
        clkit.aco.solve(EIL51, iters=1, device="ref", ants=0)
    with pytest.raises(clkit.Error) as raised:
        clkit.aco.solve(tmp_path / "missing.tsp", iters=1, device="ref")
    assert "missing.tsp" in str(raised.value)
    bad = tmp_path / "bad.tsp"
    bad.write_text("NAME : bad\nTYPE : TSP\nDIMENSION : 6\n"
                   "EDGE_WEIGHT_TYPE : EUC_2D\nNODE_COORD_SECTION\n1 0 x\n")
    with pytest.raises(clkit.Error, match="bad.tsp"):
        clkit.aco.solve(bad, iters=1, device="ref")


def test_the_docstring_lists_the_options():
    doc = clkit.aco.solve.__doc__
    assert "ants=M" in doc and "rho=R" in doc and "ls=MODE" in doc
    assert "instance=" not in doc and "EUC_2D" in doc


def test_an_unknown_optimum_warns():
    with pytest.warns(clkit.RunWarning, match="no gap is reported") as seen:
        result = clkit.aco.solve("random:20", iters=2, device="ref",
                                 optima=TSPLIB / "optima.txt")
    assert seen[0].filename == __file__
    assert result.gap is None and result.optimum is None
    assert any("no gap" in line for line in result.log)
