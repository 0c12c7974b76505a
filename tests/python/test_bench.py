"""clkit bench and compare as reports: sizes, cost rates, percent of peak
(with peaks a test supplies), speed-ups, repeats, and the JSON, CSV and
Markdown forms."""
import csv
import io
import json
import os
import re
import subprocess

import pytest

from conftest import OPENCL

needs_opencl = pytest.mark.skipif(not OPENCL, reason="no OpenCL device")


def clkit(*args, env=None):
    """The command's exit status, stdout and stderr."""
    exe = os.environ.get("CLKIT_EXE")
    if not exe:
        pytest.skip("CLKIT_EXE does not name the built clkit command")
    done = subprocess.run([exe, *args, "--quiet"], capture_output=True,
                          text=True, check=False,
                          env={**os.environ, **(env or {})})
    return done.returncode, done.stdout, done.stderr


def report(*args, env=None):
    code, out, err = clkit(*args, "--json", env=env)
    assert code == 0, err
    return json.loads(out)


def test_bench_json_carries_the_run():
    got = report("bench", "--device", "ref", "--size", "small",
                 "--workloads", "pso,gas")
    assert got["clkit"]["version"] and got["clkit"]["commit"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", got["date"])
    assert all(got["host"][key] for key in ("hostname", "os", "kernel", "cpu"))
    assert got["settings"] == {"size": "small", "repeat": 1, "seed": 1}
    assert got["command"].startswith("clkit bench --device ref --size small")
    assert [d["id"] for d in got["devices"]] == ["ref"]
    # bench measured ref's peaks, once for the cache, and sets rows
    # against them.
    peaks = got["devices"][0]["peaks"]
    assert set(peaks) == {"gb_per_s", "fp32_gflop_per_s", "fp64_gflop_per_s"}
    assert all(value > 0 for value in peaks.values())
    assert [w["workload"] for w in got["workloads"]] == ["pso", "gas"]
    pso, gas = got["bench"]
    # The small rung, on every device.
    assert pso["size"] == "256 x 100 x 200" and pso["rung"] == 0
    assert gas["size"] == "1024 x 200" and gas["check_size"] == gas["size"]
    for row in (pso, gas):
        assert row["runs"] == 1 and row["agrees"] is True
        assert row["peak_percent"] > 0 and row["peak_bound"] in (
            "memory", "fp32")
        assert row["vs_ref"] == pytest.approx(1) and row["vs_first"] == 1
        assert row["throughput_min"] == row["throughput"] == \
            row["throughput_max"]
    # PSO's cost model: 5 reals and 13 + 7 flops a coordinate.
    cost = pso["cost"]
    assert cost["units"] == 256 * 200 and cost["precision"] == "fp32"
    assert cost["bytes"] == pytest.approx(256 * 200 * 100 * 5 * 4)
    assert cost["flops"] == pytest.approx(256 * 200 * 100 * 20)
    rate = pso["throughput"] / cost["units"]
    assert pso["gb_per_s"] == pytest.approx(cost["bytes"] * rate / 1e9)
    assert pso["gflop_per_s"] == pytest.approx(cost["flops"] * rate / 1e9)


def test_percent_of_peak_from_the_peaks():
    # 2 GB/s, 1 FP32 GFLOP/s and 0.5 FP64 GFLOP/s: the higher share
    # bounds, in the run's precision.
    peaks = {"CLKIT_PEAKS_FOR_TESTS": "2,1,0.5"}
    got = report("bench", "--device", "ref", "--size", "small",
                 "--workloads", "selfcheck,pso", env=peaks)
    assert got["devices"][0]["peaks"] == {
        "gb_per_s": 2, "fp32_gflop_per_s": 1, "fp64_gflop_per_s": 0.5}
    for row in got["bench"]:
        memory = 100 * row["gb_per_s"] / 2
        compute = 100 * row["gflop_per_s"] / 1
        assert row["peak_percent"] == pytest.approx(max(memory, compute))
        assert row["peak_bound"] == ("memory" if memory >= compute
                                     else "fp32")
    # selfcheck moves 8 bytes a flop: its bandwidth bounds it.
    assert got["bench"][0]["peak_bound"] == "memory"
    double = report("compare", "pso", "--device", "ref", "--size", "small",
                    "--precision", "double", env=peaks)
    row = double["rows"][0]
    assert row["cost"]["precision"] == "fp64"
    memory = 100 * row["gb_per_s"] / 2
    compute = 100 * row["gflop_per_s"] / 0.5
    assert row["peak_percent"] == pytest.approx(max(memory, compute))
    assert row["peak_bound"] == ("memory" if memory >= compute else "fp64")
    # The text table shows it, with its bound.
    code, out, err = clkit("bench", "--device", "ref", "--size", "small",
                           "--workloads", "selfcheck", env=peaks)
    assert code == 0, err
    assert re.search(r"\s\d[\d.e+]*% memory\s", out), out


def test_repeats_give_a_median_and_range():
    got = report("bench", "--device", "ref", "--size", "small",
                 "--workloads", "selfcheck", "--repeat", "3")
    (row,) = got["bench"]
    assert row["runs"] == 3 and got["settings"]["repeat"] == 3
    assert row["throughput_min"] <= row["throughput"] <= \
        row["throughput_max"]


@needs_opencl
def test_a_device_grows_and_is_checked_at_refs_size():
    got = report("bench", "--device", f"ref,{OPENCL}", "--workloads",
                 "selfcheck")
    ref, device = got["bench"]
    assert got["settings"]["size"] == "auto"
    # ref stays at its rung, where agreement is checked.
    assert ref["rung"] == 1 and ref["size"] == "262144 x 16"
    assert device["check_size"] == ref["size"] and device["agrees"] is True
    # A CPU starts at rung 2 and grows while its runs are short: it stops
    # at a run of 0.2 s or more, or at the large rung.
    assert device["rung"] >= 2
    assert device["wall_s"] >= 0.2 or device["rung"] == 6
    # Speed-ups compare the cost model's rates across the two sizes.
    assert device["vs_ref"] == pytest.approx(
        device["gflop_per_s"] / ref["gflop_per_s"])
    assert device["vs_first"] == pytest.approx(device["vs_ref"])


def test_compare_keeps_its_results():
    got = report("compare", "selfcheck", "--device", "ref", "--count",
                 "5000", "--passes", "1")
    assert got["workload"] == "selfcheck"
    (result,) = got["results"]
    assert result["device"] == "ref" and result["agrees"] is True
    assert result["options"]["count"] == 5000
    # Options that set the size run as given.
    assert got["settings"]["size"] == "as given"
    assert got["rows"][0]["size"] == "5000 x 1" and got["rows"][0]["rung"] \
        is None
    # Without them, ref's rung.
    auto = report("compare", "selfcheck", "--device", "ref")
    assert auto["results"][0]["options"]["count"] == 262144
    assert auto["rows"][0]["rung"] == 1


def test_csv_and_markdown():
    code, out, err = clkit("bench", "--device", "ref", "--size", "small",
                           "--workloads", "pso,nn", "--csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["workload"], r["device"]) for r in rows] == [
        ("pso", "ref"), ("nn", "ref")]
    assert rows[1]["size"] == "16-64-64-4/64/2"
    assert rows[0]["throughput_unit"] == "evals/s"
    assert rows[0]["agrees"] == "true" and rows[0]["status"] == "CK_OK"
    assert float(rows[0]["gb_per_s"]) > 0 and float(rows[0]["peak_percent"]) > 0
    code, out, err = clkit("bench", "--device", "ref", "--size", "small",
                           "--workloads", "gas", "--markdown")
    assert code == 0, err
    assert out.startswith("# clkit bench\n")
    assert "| `ref` | 1024 x 200 |" in out and "- Command: `clkit bench" in out


@needs_opencl
def test_compare_speeds_up_over_the_first_device_listed():
    # ref's row comes first, as the oracle, but x first is over the
    # device named first.
    got = report("compare", "selfcheck", "--device", OPENCL, "--size",
                 "small")
    ref, device = got["rows"]
    assert ref["device"] == "ref" and device["device"] == OPENCL
    assert device["vs_first"] == 1
    assert ref["vs_first"] == pytest.approx(
        ref["gflop_per_s"] / device["gflop_per_s"])
    assert device["vs_ref"] == pytest.approx(1 / ref["vs_first"])
