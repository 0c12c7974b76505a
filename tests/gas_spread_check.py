#!/usr/bin/env python3
"""gas_spread_check - a gas spread over devices and MPI ranks, as a user
runs it, against the same gas on one device.

usage: gas_spread_check.py CLKIT [MPIRUN]

Over two PoCL devices (POCL_DEVICES="pthread pthread", which this sets),
over them with ref as a third member, over two members on ref (a device
given twice), and under MPIRUN over 2 and 3 ranks on ref:
  - energies, temperature, pressure and g(r) match one device's within
    their statistical errors, at 4096 particles for cell and Verlet lists,
    NVE and Langevin, and at 20000 particles for two of those;
  - NVE's energy drift over 10^4 steps is no worse than one device's;
  - a checkpoint of 3 members restarts on 1 and on 2, which agree.
The same over a grid of 2 x 2 boxes (a cutoff that four slabs do not
fit): ref and the two PoCL devices as 4 members, and 4 ranks on ref; its
checkpoint restarts on 1 and on 2.
(spread_check.py ends ranks of a gas by signals, and checks that the
others end within 10 s and leave no output half written.)
Every run checks itself that no particle is lost or doubled at a border
(the members' census of ids, at every log step). Exits 0, or 1 with the
failures listed.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

CLKIT = sys.argv[1]
MPIRUN = sys.argv[2] if len(sys.argv) > 2 else None
ENV = dict(os.environ)
ENV.setdefault("POCL_DEVICES", "pthread pthread")
failures = 0


def fail(message):
    global failures
    failures += 1
    print("FAIL:", message)


def run(args, ranks=0, timeout=600):
    command = [CLKIT] + args
    if ranks:
        command = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np",
                   str(ranks)] + command
    done = subprocess.run(command, env=ENV, capture_output=True, text=True,
                          timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def result(args, ranks=0):
    code, out, err = run(args + ["--json", "--quiet"], ranks)
    if code != 0:
        fail(f"{' '.join(args)} (ranks {ranks}) exited {code}: {err.strip()}")
        return None
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if len(lines) != 1:
        fail(f"{' '.join(args)} (ranks {ranks}): {len(lines)} results")
        return None
    return json.loads(lines[0])


def rdf_of(path):
    """g(r) of an --rdf file: the second column, header skipped."""
    values = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.strip().split(",")
            try:
                values.append(float(fields[1]))
            except (IndexError, ValueError):
                continue
    return values


def agrees(what, alone, spread, members, particles, g_alone, g_spread):
    """Averages within 4 combined standard errors (and a thousandth),
    g(r) bin by bin within 0.05, every member reporting its slab."""
    if not alone or not spread:
        return
    for name in ("potential_energy", "total_energy", "temperature",
                 "pressure"):
        a, b = alone[name], spread[name]
        se = math.hypot(alone.get(name + "_se", 0), spread.get(name + "_se", 0))
        if not abs(a - b) <= 4 * se + 1e-3 * abs(a) + 1e-6:
            fail(f"{what}: {name} {b!r}, one device {a!r} (se {se:.3g})")
    if g_alone is not None and g_spread is not None:
        worst = max((abs(x - y) for x, y in zip(g_alone, g_spread)),
                    default=math.inf)
        if len(g_alone) != len(g_spread) or worst > 0.05:
            fail(f"{what}: g(r) differs by {worst:.3g}")
    got = spread.get("members", [])
    if len(got) != members or sum(m["units"] for m in got) != particles or \
            any("slab" not in m for m in got):
        fail(f"{what}: members {got}")
        return
    print(f"ok: {what}: U {spread['potential_energy']:.6f} (alone "
          f"{alone['potential_energy']:.6f}), P {spread['pressure']:.4f} "
          f"(alone {alone['pressure']:.4f}) over "
          f"{[(m['device'], m['rank'], m['units']) for m in got]}")


code, out, err = run(["devices", "--json"])
devices = [d["id"] for d in json.loads(out)["devices"]] if code == 0 else []
pocl = [d for d in devices if d.startswith("ocl:")][:2]
pair = ",".join(pocl)
spreads = []
if len(pocl) == 2:
    spreads.append(("two PoCL devices", ["--device", pair, "--spread"], 0, 2))
    spreads.append(("ref and two PoCL devices",
                    ["--device", "ref," + pair, "--spread"], 0, 3))
else:
    print("skip: fewer than two OpenCL devices")
if MPIRUN:
    for ranks in (2, 3):
        spreads.append((f"{ranks} ranks on ref",
                        ["--device", "ref", "--spread"], ranks, ranks))
else:
    print("skip: no MPI")
# Two members on one device, by its id given twice: one case alone.
SHARED = "two members on ref"
spreads.append((SHARED, ["--device", "ref,ref", "--spread"], 0, 2))
alone_device = pocl[0] if pocl else "ref"
scratch = tempfile.mkdtemp(prefix="clkit-gas-spread-")


def case(particles, steps, mode, thermostat, which, extra=()):
    """One system alone and over the spreads in `which`."""
    system = ["run", "gas", "--particles", str(particles), "--steps",
              str(steps), "--equil", "100", "--seed", "7", "--log-every",
              "20", "--neighbors", mode, "--rdf-every", "10"] + list(extra)
    if thermostat:
        system += ["--thermostat", thermostat]
    label = f"{particles} particles, {mode}, {thermostat or 'NVE'}"
    rdf = os.path.join(scratch, "alone.csv")
    alone = result(system + ["--device", alone_device, "--rdf", rdf])
    g_alone = rdf_of(rdf) if alone else None
    for name, where, ranks, members in spreads:
        if name not in which:
            continue
        rdf = os.path.join(scratch, "spread.csv")
        spread = result(system + where + ["--rdf", rdf], ranks)
        agrees(f"{label} over {name}", alone, spread, members, particles,
               g_alone, rdf_of(rdf) if spread else None)


every = [name for name, _, _, _ in spreads if name != SHARED]
for mode in ("cells", "verlet"):
    for thermostat in ("", "langevin:1.0:1.0"):
        shared = [SHARED] if mode == "verlet" and not thermostat else []
        case(4096, 300, mode, thermostat, every + shared)
case(20000, 200, "cells", "", ["two PoCL devices", "3 ranks on ref"])
case(20000, 200, "verlet", "langevin:1.0:1.0",
     ["ref and two PoCL devices", "2 ranks on ref"])

def nve_drift(name, where, ranks, extra=()):
    """NVE conserves the energy over 10^4 steps as one device does."""
    nve = ["run", "gas", "--particles", "1024", "--steps", "10000",
           "--equil", "200", "--seed", "3", "--log-every", "500",
           "--neighbors", "verlet"] + list(extra)
    alone = result(nve + ["--device", alone_device])
    spread = result(nve + where, ranks)
    if alone and spread:
        a = abs(alone["energy_drift_relative"])
        b = abs(spread["energy_drift_relative"])
        if not b <= 2 * a + 2e-5:
            fail(f"NVE drift over 10^4 steps, {name}: {b:.3g}, {a:.3g} alone")
        else:
            print(f"ok: NVE drift over 10^4 steps, {name}: {b:.3g}, "
                  f"{a:.3g} alone")


if len(pocl) == 2:
    nve_drift("two PoCL devices", ["--device", pair, "--spread"], 0)

# A checkpoint of 3 members restarts on 1 and on 2 members.
three = [s for s in spreads if s[3] == 3]
if three:
    name, where, ranks, _ = three[0]
    saved = os.path.join(scratch, "three.ckg")
    first = result(["run", "gas", "--particles", "4096", "--steps", "150",
                    "--seed", "5", "--log-every", "50", "--checkpoint",
                    saved] + where, ranks)
    more = ["run", "gas", "--restart", saved, "--steps", "150",
            "--log-every", "50"]
    if first:
        one = result(more + ["--device", alone_device])
        two = [s for s in spreads if s[3] == 2]
        again = result(more + two[0][1], two[0][2]) if two else None
        agrees(f"a checkpoint of {name} restarted on 1 and on 2", one, again,
               2, 4096, None, None)

# A grid of 2 x 2 boxes: at rc 10, four slabs of 4096 particles (a box of
# 76.5) would be narrower than 2 rc; boxes of 38 are not.
GRID = ["--rc", "10"]
grids = []
if len(pocl) == 2:
    grids.append(("a grid of ref and two PoCL devices",
                  ["--device", f"ref,{pocl[0]},{pocl[1]},ref", "--spread"],
                  0, 4))
if MPIRUN:
    grids.append(("a grid of 4 ranks on ref", ["--device", "ref", "--spread"],
                  4, 4))
spreads += grids
names = [name for name, _, _, _ in grids]
case(4096, 200, "cells", "", names, GRID)
case(4096, 200, "verlet", "langevin:1.0:1.0", names, GRID)
for name, where, ranks, _ in grids:
    got = result(["run", "gas", "--particles", "4096", "--steps", "1",
                  "--rc", "10"] + where, ranks)
    if got and any(m.get("slab", {}).get("axis") != "xy"
                   for m in got.get("members", [])):
        fail(f"{name}: not a grid of boxes: {got.get('members')}")
if grids:
    # 1024 particles at rc 6: boxes of 19.
    name, where, ranks, _ = grids[0]
    nve_drift(name, where, ranks, ["--rc", "6"])
    # Its checkpoint restarts on 1 and on 2 members.
    saved = os.path.join(scratch, "grid.ckg")
    first = result(["run", "gas", "--particles", "4096", "--steps", "150",
                    "--seed", "5", "--log-every", "50", "--checkpoint",
                    saved] + GRID + where, ranks)
    more = ["run", "gas", "--restart", saved, "--steps", "150",
            "--log-every", "50"]
    two = [s for s in spreads if s[3] == 2]
    if first and two:
        one = result(more + ["--device", alone_device])
        again = result(more + two[0][1], two[0][2])
        agrees(f"a checkpoint of {name} restarted on 1 and on 2", one, again,
               2, 4096, None, None)

for name in os.listdir(scratch):
    os.remove(os.path.join(scratch, name))
os.rmdir(scratch)
print(f"{'FAILED' if failures else 'passed'}: {failures} failures")
sys.exit(1 if failures else 0)
