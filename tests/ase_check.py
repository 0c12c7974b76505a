#!/usr/bin/env python3
"""clkit's gas files as ASE (and pandas, and OVITO where installed) read them.

usage: ase_check.py CLKIT

- A --traj read back with ase.io.read(index=':') gives each frame's
  positions, the velocities clkit wrote (through get_velocities()), masses
  of 1, pbc T T F (F F F between walls), the box as the cell, the step and
  the time; the first frame's velocities have the run's temperature.
- Files ASE writes with momenta (masses 1 given, or species X) start a run
  with --xyz from those velocities; argon's default mass is refused,
  naming the column.
- --thermo reads in pandas as it is, where pandas is installed.

Exits 77 (skipped) when ASE cannot be imported.
"""
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import ase
    import ase.io
except ImportError as error:
    print(f"SKIP: ASE cannot be imported ({error}); pip install ase")
    sys.exit(77)

failures = 0


def check(condition, message):
    global failures
    if not condition:
        failures += 1
        print(f"FAIL: {message}")


def run(clkit, *args, expect=0):
    done = subprocess.run([clkit, "run", "gas", "--device", "ref", *args],
                          capture_output=True, text=True, check=False)
    check(done.returncode == expect,
          f"clkit run gas {' '.join(args)} exited {done.returncode}, "
          f"not {expect}: {done.stderr.strip()}")
    return done


def velo_columns(path):
    """Each frame's velo columns as clkit wrote them, read as text."""
    frames = []
    with open(path, encoding="utf-8") as text:
        while True:
            count = text.readline()
            if not count:
                return frames
            comment = text.readline()
            names = comment.split("Properties=")[1].split()[0].split(":")
            start = 0
            for i in range(0, len(names), 3):
                if names[i] == "velo":
                    break
                start += int(names[i + 2])
            rows = [text.readline().split() for _ in range(int(count))]
            frames.append(np.array([[float(v) for v in row[start:start + 3]]
                                    for row in rows]))


def check_trajectory(clkit, work, walls):
    traj = os.path.join(work, "walls.xyz" if walls else "run.xyz")
    thermo = os.path.join(work, "thermo.csv")
    args = ["--particles", "16", "--rho", "0.5", "--rc", "1.5", "--steps",
            "20", "--log-every", "10", "--traj", traj, "--traj-every", "10",
            "--thermo", thermo]
    if run(clkit, *args, *(["--walls"] if walls else [])).returncode != 0:
        return None
    frames = ase.io.read(traj, index=":")
    written = velo_columns(traj)
    what = "walls" if walls else "periodic"
    check(len(frames) == 3 and len(written) == 3,
          f"{what}: {len(frames)} frames in ASE, {len(written)} written")
    side = math.sqrt(16 / 0.5)
    for k, (atoms, velo) in enumerate(zip(frames, written)):
        check(len(atoms) == 16, f"{what} frame {k}: {len(atoms)} atoms")
        velocities = atoms.get_velocities()
        check(np.array_equal(velocities, velo),
              f"{what} frame {k}: ASE's velocities {velocities[:2]} are not "
              f"the velo columns {velo[:2]}")
        check(np.all(velocities[:, 2] == 0) and np.any(velocities != 0),
              f"{what} frame {k}: velocities {velocities[:2]}")
        check(np.all(atoms.get_masses() == 1),
              f"{what} frame {k}: masses {atoms.get_masses()[:3]}")
        pbc = [False, False, False] if walls else [True, True, False]
        check(list(atoms.pbc) == pbc, f"{what} frame {k}: pbc {atoms.pbc}")
        check(np.allclose(atoms.cell[:], np.diag([side, side, 1]), rtol=1e-15),
              f"{what} frame {k}: cell {atoms.cell[:]}")
        positions = atoms.get_positions()
        check(np.all(positions[:, :2] >= 0) and
              np.all(positions[:, :2] <= side) and np.all(positions[:, 2] == 0),
              f"{what} frame {k}: positions outside the box")
        check(atoms.info.get("Step") == 10 * k and
              abs(atoms.info.get("Time", -1) - 0.05 * k) < 1e-12,
              f"{what} frame {k}: info {atoms.info}")
    # The run starts at --T 1 (2N - 2 degrees of freedom in a periodic box,
    # 2N between walls): ASE's velocities carry it.
    kinetic = 0.5 * np.sum(frames[0].get_velocities() ** 2)
    freedom = 2 * 16 if walls else 2 * 16 - 2
    check(abs(2 * kinetic / freedom - 1) < 1e-6,
          f"{what}: frame 0 in ASE has T = {2 * kinetic / freedom}, not 1")
    return thermo


def check_start(clkit, work):
    """ASE's files start a run from their velocities."""
    rng = np.random.default_rng(5)
    side = 6.0
    grid = [(x + 0.5, y + 0.5, 0) for x in range(4) for y in range(4)]
    velocities = np.zeros((16, 3))
    velocities[:, :2] = rng.normal(size=(16, 2))
    velocities[:, :2] -= velocities[:, :2].mean(axis=0)
    cases = [("masses of 1", "Ar16", True, 0),
             ("species X", "X16", False, 0),
             ("argon's own mass", "Ar16", False, 1)]
    for label, symbols, unit_masses, expect in cases:
        atoms = ase.Atoms(symbols, positions=grid, cell=[side, side, 1],
                          pbc=[True, True, False])
        if unit_masses:
            atoms.set_masses(np.ones(16))
        atoms.set_velocities(velocities)
        start = os.path.join(work, "start.xyz")
        ase.io.write(start, atoms, format="extxyz")
        with open(start, encoding="utf-8") as text:
            text.readline()
            comment = text.readline()
        check("momenta:R:3" in comment,
              f"{label}: ASE wrote no momenta: {comment.strip()}")
        traj = os.path.join(work, "started.xyz")
        done = run(clkit, "--xyz", start, "--rc", "1.5", "--steps", "0",
                   "--log-every", "1", "--traj", traj, expect=expect)
        if done.returncode != 0 or expect:
            check("momenta without masses" in done.stderr and
                  '"Ar"' in done.stderr,
                  f"{label}: the refusal names no column: {done.stderr}")
            continue
        first = ase.io.read(traj, index=0)
        got = first.get_velocities()
        # A run keeps single-precision velocities.
        check(np.allclose(got, velocities, rtol=1e-6, atol=1e-7),
              f"{label}: the run started from {got[:2]}, not {velocities[:2]}")


def check_pandas(thermo):
    try:
        import pandas
    except ImportError:
        print("SKIP (part): pandas cannot be imported; the thermo file is "
              "not read with it")
        return
    table = pandas.read_csv(thermo)
    columns = ["step", "time", "temperature", "kinetic", "potential", "total",
               "pressure"]
    check(list(table.columns) == columns, f"thermo columns {table.columns}")
    check(len(table) == 3, f"thermo rows: {len(table)}")
    check(all(pandas.api.types.is_numeric_dtype(table[c]) for c in columns),
          f"thermo types: {table.dtypes.to_dict()}")
    check(list(table["step"]) == [0, 10, 20], f"thermo steps {table['step']}")
    check(np.allclose(table["total"], table["kinetic"] + table["potential"],
                      atol=1e-8), "thermo: total is not kinetic + potential")


def check_ovito(traj):
    try:
        from ovito.io import import_file
    except ImportError:
        print("SKIP (part): OVITO cannot be imported")
        return
    pipeline = import_file(traj)
    data = pipeline.compute(1)
    velocity = np.asarray(data.particles["Velocity"])
    ours = velo_columns(traj)[1]
    check(np.array_equal(velocity, ours), "OVITO's velocities differ")
    check(tuple(data.cell.pbc) == (True, True, False),
          f"OVITO's pbc {data.cell.pbc}")


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    clkit = sys.argv[1]
    print(f"ASE {ase.__version__}")
    with tempfile.TemporaryDirectory(prefix="clkit_ase_") as work:
        check_trajectory(clkit, work, walls=True)
        thermo = check_trajectory(clkit, work, walls=False)
        if thermo:
            check_pandas(thermo)
            check_ovito(os.path.join(work, "run.xyz"))
        check_start(clkit, work)
    print(f"{failures} failed" if failures else "all ASE checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
