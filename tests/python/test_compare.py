"""clkit.compare: the command's comparison, rows, the table, errors."""
import pathlib

import pytest

import clkit
from conftest import OPENCL

EIL51 = pathlib.Path(__file__).resolve().parents[1] / "data" / "tsplib" / \
    "eil51.tsp"

needs_opencl = pytest.mark.skipif(not OPENCL, reason="no OpenCL device")


@needs_opencl
def test_same_comparison_as_the_command(cli):
    result = clkit.compare("aco", ["ref", OPENCL], instance=EIL51, iters=3,
                           ants=8, seed=3)
    expected = cli("compare", "aco", str(EIL51), "--iters", "3", "--ants",
                   "8", "--seed", "3", "--device", f"ref,{OPENCL}")
    assert isinstance(result, clkit.Comparison) and len(result) == 2
    assert result.agrees and result.workload == "aco"
    for row, want in zip(result, expected["results"], strict=True):
        for key in ("device", "best", "best_name", "agreement", "agrees",
                    "stopped_by", "seed"):
            assert row[key] == want[key], key
        assert row.status == "CK_OK" and row.error == ""
        assert row.metrics["iterations"] == want["iterations"]
        assert row.options["ants"] == want["options"]["ants"]
    assert [row.device for row in result] == ["ref", OPENCL]


@needs_opencl
def test_devices_as_device_objects():
    listed = {device.id: device for device in clkit.devices()}
    result = clkit.compare("pso", [listed[OPENCL]], fn="sphere", dim=2,
                           particles=16, iters=5)
    # ref runs first as the oracle, though not named.
    assert [row.device for row in result] == ["ref", OPENCL]
    assert result[0].agreement == 0 and result[0].agrees is True
    assert result[1].x.shape == (2,) and result.agrees


def test_ref_alone():
    result = clkit.compare("aco", "ref", instance=EIL51, iters=2)
    assert len(result) == 1 and result.agrees
    assert result[0].x is None and result[0].skipped is False
    assert result[0].best == clkit.aco.solve(EIL51, iters=2,
                                             device="ref").length


def test_the_table_reads():
    result = clkit.compare("aco", "ref", instance=EIL51, iters=2)
    text = repr(result)
    assert text.splitlines()[0] == "aco: tour_length on each device, " \
                                   "all agree"
    assert "ref" in text and "yes" in text and str(int(result[0].best)) in text
    try:
        import pandas  # noqa: F401
    except ImportError:
        return
    frame = result.to_pandas()
    assert list(frame["device"]) == ["ref"]
    assert frame["best"][0] == result[0].best


def test_bad_arguments_are_refused():
    with pytest.raises(clkit.ArgumentError, match="nosuch"):
        clkit.compare("nosuch", "ref")
    with pytest.raises(TypeError, match="'antz'; did you mean 'ants'[?]"):
        clkit.compare("aco", "ref", antz=1)
    with pytest.raises(ValueError, match="names no device"):
        clkit.compare("aco", [], instance=EIL51)
    with pytest.raises(ValueError, match="names no device"):
        clkit.compare("aco", "", instance=EIL51)
    with pytest.raises(TypeError, match="selector string"):
        clkit.compare("aco", 3, instance=EIL51)
    with pytest.raises(clkit.ArgumentError, match="nothing-like-this"):
        clkit.compare("aco", "nothing-like-this", instance=EIL51)


@needs_opencl
def test_an_output_each_run_would_write_is_refused(tmp_path):
    with pytest.raises(clkit.ArgumentError, match="tour-out"):
        clkit.compare("aco", ["ref", OPENCL], instance=EIL51, iters=1,
                      tour_out=tmp_path / "t.tour")
    assert not (tmp_path / "t.tour").exists()


def test_a_callback_that_raises_stops_the_comparison():
    seen = []

    def stop(progress):
        seen.append(progress.device)
        raise KeyError("enough")

    with pytest.raises(KeyError, match="enough"):
        clkit.compare("aco", None, instance=EIL51, iters=50, callback=stop)
    assert seen == ["ref"]


def test_a_callback_that_returns_true_cancels():
    with pytest.raises(clkit.Error) as raised:
        clkit.compare("aco", "ref", instance=EIL51, iters=50,
                      callback=lambda progress: True)
    assert raised.value.status == "CK_ERROR_CANCELLED"
