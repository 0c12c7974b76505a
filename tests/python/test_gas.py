"""clkit.gas.Simulation: the command's energies for the same seed and
options, runs that continue, the state as arrays and as ase.Atoms."""
import numpy as np
import pytest

import clkit
from conftest import check_ctrl_c

SMALL = dict(temperature=0.8, seed=3)


def sampled(simulation, steps, every):
    """The observables every `every` steps from now, as the command samples
    them for its averages (its first sample before the first step)."""
    rows = [simulation.observe()]
    for _ in range(steps // every):
        rows.append(simulation.run(every).observe())
    return rows


def mean(rows, key):
    """Summed in order, as the command sums its samples."""
    total = 0.0
    for row in rows:
        total += row[key]
    return total / len(rows)


def test_same_energies_as_the_command(device, cli):
    """The command's run is ck_gas_step and ck_gas_observe as here."""
    simulation = clkit.gas.Simulation(64, device=device, **SMALL)
    rows = sampled(simulation, 100, 10)
    expected = cli("run", "gas", "--particles", "64", "--T", "0.8",
                   "--steps", "100", "--seed", "3", "--device", device)
    assert expected["samples"] == len(rows)
    assert rows[-1]["total"] - rows[0]["total"] == expected["energy_drift"]
    for key, name in (("potential", "potential_energy"),
                      ("total", "total_energy"),
                      ("temperature", "temperature"),
                      ("pressure", "pressure")):
        assert mean(rows, key) == expected[name], name
    assert simulation.step == expected["final_step"] == 100
    assert simulation.box == (expected["box_x"], expected["box_y"])


def test_options_reach_the_system(cli):
    options = dict(box=(9, 8), thermostat="langevin:1.2:2",
                   neighbors="verlet:0.4", dt=0.004)
    simulation = clkit.gas.Simulation(48, device="ref", **options, **SMALL)
    rows = sampled(simulation, 40, 20)
    expected = cli("run", "gas", "--particles", "48", "--box", "9x8",
                   "--thermostat", "langevin:1.2:2", "--neighbors",
                   "verlet:0.4", "--dt", "0.004", "--T", "0.8", "--steps",
                   "40", "--sample-every", "20", "--seed", "3", "--device",
                   "ref")
    assert mean(rows, "potential") == expected["potential_energy"]
    assert simulation.box == (9.0, 8.0)
    assert simulation.config["dt"] == 0.004


def test_runs_continue(device):
    """ck_gas_step makes the same steps however they are grouped."""
    whole = clkit.gas.Simulation(64, device=device, **SMALL).run(30)
    parts = clkit.gas.Simulation(64, device=device, **SMALL).run(10).run(20)
    assert parts.step == whole.step == 30
    assert np.array_equal(parts.positions, whole.positions)
    assert np.array_equal(parts.velocities, whole.velocities)
    assert parts.total_energy == whole.total_energy


def test_state_arrays():
    simulation = clkit.gas.Simulation(50, density=0.5, device="ref", **SMALL)
    positions, velocities = simulation.positions, simulation.velocities
    assert positions.shape == velocities.shape == (50, 2)
    assert positions.dtype == np.float64
    box = simulation.box
    assert box[0] == box[1] == pytest.approx(10.0)
    assert np.all((positions >= 0) & (positions < box[0]))
    # Copies: changing them leaves the simulation alone.
    positions[:] = 0
    assert not np.array_equal(simulation.positions, positions)
    assert np.abs(velocities.sum(axis=0)).max() < 1e-5
    assert simulation.temperature == pytest.approx(0.8)
    assert simulation.total_energy == pytest.approx(
        simulation.kinetic_energy + simulation.potential_energy)
    assert simulation.forces.shape == (50, 2)
    assert simulation.particles == 50 and np.isfinite(simulation.pressure)


def test_checkpoints_continue(tmp_path):
    simulation = clkit.gas.Simulation(64, device="ref", **SMALL).run(10)
    simulation.save(tmp_path / "state.ckg")
    restored = clkit.gas.Simulation.load(tmp_path / "state.ckg",
                                         device="ref")
    assert restored.step == 10
    simulation.run(15)
    restored.run(15)
    assert np.array_equal(restored.positions, simulation.positions)


def test_to_ase_matches_the_state():
    pytest.importorskip("ase")
    simulation = clkit.gas.Simulation(40, device="ref", **SMALL).run(5)
    atoms = simulation.to_ase()
    assert len(atoms) == 40
    assert np.array_equal(atoms.positions[:, :2], simulation.positions)
    assert np.all(atoms.positions[:, 2] == 0)
    assert np.allclose(atoms.get_velocities()[:, :2], simulation.velocities)
    assert atoms.get_masses().tolist() == [1.0] * 40
    assert atoms.pbc.tolist() == [True, True, False]
    assert atoms.cell.lengths()[:2].tolist() == list(simulation.box)
    walled = clkit.gas.Simulation(40, walls=True, device="ref", **SMALL)
    assert walled.to_ase().pbc.tolist() == [False, False, False]


def test_from_xyz_starts_from_the_file(tmp_path):
    pytest.importorskip("ase")
    import ase.io
    simulation = clkit.gas.Simulation(30, device="ref", **SMALL).run(5)
    path = tmp_path / "start.xyz"
    ase.io.write(path, simulation.to_ase(), format="extxyz")
    started = clkit.gas.Simulation.from_xyz(path, device="ref")
    assert started.step == 0
    assert np.allclose(started.positions, simulation.positions)
    assert np.allclose(started.velocities, simulation.velocities)
    assert started.box == pytest.approx(simulation.box)


def write_xyz(path, positions, velocities, box):
    """An extended-XYZ frame, every bit of each number kept; without
    velocities (None) the file has none."""
    moving = velocities is not None
    lines = [str(len(positions)),
             f'Lattice="{box[0]!r} 0.0 0.0 0.0 {box[1]!r} 0.0 0.0 0.0 1.0" '
             f'Properties=species:S:1:pos:R:2' + (":velo:R:2" if moving
                                                  else "")]
    rows = np.hstack([positions, velocities]) if moving else positions
    for row in rows.tolist():
        lines.append("Ar " + " ".join(repr(value) for value in row))
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("moving", [True, False], ids=["velocities",
                                                        "drawn"])
def test_from_arrays_runs_as_from_the_file(tmp_path, device, moving):
    """The same particles from arrays and from an XYZ file: the same state
    and the same run, bit for bit, positions outside the periodic box
    wrapped alike."""
    rng = np.random.default_rng(5)
    cells = rng.permutation(36)[:24]
    positions = np.column_stack([cells % 6, cells // 6]) * 1.2 + \
        rng.uniform(0.1, 0.3, size=(24, 2))
    box = (7.2, 7.2)
    positions[:6] += np.array([[7.2, 0], [-7.2, 0], [0, 14.4], [0, -7.2],
                               [21.6, -14.4], [-7.2, 7.2]])
    positions[6, 0] = -0.0
    velocities = rng.normal(scale=0.7, size=(24, 2)) if moving else None
    drawn = {} if moving else {"temperature": 0.9}
    path = tmp_path / "start.xyz"
    write_xyz(path, positions, velocities, box)
    from_file = clkit.gas.Simulation.from_xyz(path, device=device, seed=2,
                                              **drawn)
    from_arrays = clkit.gas.Simulation.from_arrays(
        positions, velocities, box=box, device=device, seed=2, **drawn)
    assert from_arrays.particles == 24 and from_arrays.box == box
    if moving:
        # The run keeps its state in single precision.
        assert np.array_equal(from_arrays.velocities,
                              velocities.astype(np.float32))
    for steps in (0, 10, 20):
        from_file.run(steps)
        from_arrays.run(steps)
        for name in ("positions", "velocities", "forces"):
            assert np.array_equal(getattr(from_arrays, name),
                                  getattr(from_file, name)), (name, steps)
        assert from_arrays.observe() == from_file.observe()


def test_from_arrays_writes_no_file(monkeypatch, tmp_path):
    """The arrays go to the library in memory: no temporary file, so a
    missing temporary folder does not matter."""
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    positions = np.array([[0.5, 0.5], [2.0, 0.5], [0.5, 2.0], [2.0, 2.0]])
    simulation = clkit.gas.Simulation.from_arrays(
        positions, np.zeros((4, 2)), box=6.0, device="ref")
    assert np.array_equal(simulation.positions, positions)


def test_from_arrays_draws_velocities_and_takes_options():
    positions = np.array([[0.5, 0.5], [2.0, 0.5], [0.5, 2.0], [2.0, 2.0]])
    simulation = clkit.gas.Simulation.from_arrays(
        positions.tolist(), box=3.5, temperature=0.6, walls=True,
        device="ref", seed=1)
    assert simulation.box == (3.5, 3.5) and simulation.config["walls"]
    assert simulation.temperature == pytest.approx(0.6)
    assert np.array_equal(simulation.positions, positions)
    simulation.run(10)


@pytest.mark.parametrize("arguments, error, words", [
    (dict(positions=np.zeros((3, 3)), box=(4, 4)), ValueError,
     r"positions must have shape \(n, 2\)"),
    (dict(positions=np.zeros((0, 2)), box=(4, 4)), ValueError,
     r"got shape \(0, 2\)"),
    (dict(positions=[[1, 1], [np.nan, 2]], box=(4, 4)), ValueError,
     r"particle 1 has positions \[nan, 2.0\]: each must be finite"),
    (dict(positions=[[1, 1], [2, 2]], velocities=[[0, 0]], box=(4, 4)),
     ValueError, "velocities has 1 rows, but positions has 2"),
    (dict(positions=[[1, 1], [2, 2]], velocities=[[0, 0], [1, 1]],
          temperature=1.0, box=(4, 4)), TypeError, "not both"),
    (dict(positions=[[1, 1], [2, 2], [1, 1]], box=(6, 6)), ValueError,
     r"positions: rows 0 and 2 are both \(1, 1\)"),
    (dict(positions=[[0.5, 0.5], [1, 1], [6.5, 0.5]], box=(6, 6)),
     ValueError, r"positions: rows 0 and 2, \(0.5, 0.5\) and \(6.5, 0.5\), "
     r"land at \(0.5, 0.5\) once wrapped into the box"),
    (dict(positions=[[1, 1], [1 + 1e-12, 1]], box=(6, 6)), ValueError,
     r"rows 0 and 1, .* land at \(1, 1\) once wrapped into the box and "
     r"rounded to single precision"),
    (dict(positions=[[1, 1], [2, 2]], velocities=[[0, 0], [0, -1e39]],
          box=(6, 6)), ValueError,
     r"velocities: row 1: vy -1e\+39 is beyond single precision"),
    (dict(positions=[[1, 1], [5, 2]], box=(4, 4), walls=True), ValueError,
     r"positions: row 1 is \(5, 2\), outside the walls of the 4 x 4 box"),
    (dict(positions=[[1, 1], [2, 2]], box=(4, 4), particles=2), TypeError,
     "positions give the particles"),
    (dict(positions=[[1, 1], [2, 2]], box=(4, -1)), ValueError,
     "sides must be finite and above 0"),
    (dict(positions=[[1, 1], [2, 2]], box=None), TypeError, "give the box"),
    (dict(positions="junk", box=(4, 4)), TypeError,
     r"positions must be an \(n, 2\) array"),
])
def test_from_arrays_refuses_bad_arrays(arguments, error, words):
    arguments = dict(arguments)
    positions = arguments.pop("positions")
    with pytest.raises(error, match=words) as raised:
        clkit.gas.Simulation.from_arrays(positions, device="ref",
                                         **arguments)
    assert "Simulation.from_arrays" in str(raised.value)
    assert ".xyz" not in str(raised.value)


def test_bad_options_are_refused():
    with pytest.raises(clkit.ArgumentError, match="--particles"):
        clkit.gas.Simulation(0, device="ref")
    with pytest.raises(clkit.ArgumentError, match="--thermostat"):
        clkit.gas.Simulation(16, thermostat="hot", device="ref")
    with pytest.raises(clkit.ArgumentError, match="--steps does not"):
        clkit.gas.Simulation(16, steps=10, device="ref")
    with pytest.raises(TypeError, match="density="):
        clkit.gas.Simulation(16, rho=0.5, device="ref")
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        clkit.gas.Simulation(16, nonsense=1, device="ref")
    with pytest.raises(clkit.Error, match="missing.xyz"):
        clkit.gas.Simulation.from_xyz("missing.xyz", device="ref")


def test_step_counts_are_checked_not_wrapped():
    """The range is --steps's, from the option table."""
    simulation = clkit.gas.Simulation(64, device="ref")
    for steps in (2**64, 2**64 + 3, -1, 10**15 + 1):
        with pytest.raises(clkit.ArgumentError,
                           match=r"Simulation.run: steps: -?\d+ is outside "
                                 r"\[0, 1000000000000000\]"):
            simulation.run(steps)
    for steps in (3.0, True, "3", None):
        with pytest.raises(TypeError, match="steps must be a whole number"):
            simulation.run(steps)
    assert simulation.step == 0
    assert simulation.run(np.uint8(2)).run(np.int64(1)).step == 3


def test_seeds_are_checked():
    for seed in (-1, 2**64):
        with pytest.raises(ValueError, match=r"seed must be a whole number "
                                             r"from 0 to 2\^64 - 1"):
            clkit.gas.Simulation(64, device="ref", seed=seed)
    for seed in (1.0, True, np.bool_(True)):
        with pytest.raises(TypeError, match="seed must be a whole number"):
            clkit.gas.Simulation(64, device="ref", seed=seed)
    assert clkit.gas.Simulation(64, device="ref",
                                seed=np.uint64(2**64 - 1)).config["seed"] \
        == 2**64 - 1


def test_a_run_that_blows_up_warns(tmp_path):
    """In the command's words; save refuses the state, as it says."""
    simulation = clkit.gas.Simulation(64, dt=0.5, device="ref")
    with pytest.warns(RuntimeWarning) as caught:
        simulation.run(200)
    messages = [str(warning.message) for warning in caught]
    assert any("which NVE conserves: --dt 0.5 is too large" in
               message for message in messages), messages
    assert any("state of step 200 has blown up" in message and
               "outside the" in message for message in messages), messages
    assert all(warning.filename == __file__ for warning in caught)
    with pytest.raises(clkit.Error, match="could not restart from") as error:
        simulation.save(tmp_path / "blown.ckpt")
    assert error.value.status == "CK_ERROR_MISMATCH"


def test_a_sound_run_does_not_warn():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clkit.gas.Simulation(64, device="ref", **SMALL).run(50)


CTRL_C = """
import threading
import clkit
simulation = clkit.gas.Simulation(64, device="ref")
threading.Timer(0.5, lambda: print("started", flush=True)).start()
simulation.run(10**12)
"""


def test_ctrl_c_stops_a_run_with_keyboardinterrupt():
    """The run releases the GIL (the timer's thread prints) and sees
    Ctrl-C between its chunks of steps."""
    check_ctrl_c(CTRL_C)
