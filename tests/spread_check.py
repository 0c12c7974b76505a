#!/usr/bin/env python3
"""spread_check - runs spread over devices and MPI ranks, as a user would.

usage: spread_check.py CLKIT [MPIRUN]

With two PoCL devices (POCL_DEVICES="pthread pthread", which this sets)
a swarm (gbest and ring) and a GA spread over them, and over them and
ref, must end where one device ends, bit for bit (a GA whose values tie
too), and so must an ant colony (its length and tour, classic and
focused from its start on 600 cities); an MLP spread over them must end
near it (its gradients are summed in another order), and trained further
reach its test accuracy within 0.3 points, on UCI letters and on
Fashion-MNIST (where installed). Under MPIRUN (given where
clkit is built with MPI) two and three ranks on ref must too, a ring's
halos wider than a slice and the GA's trace included, and an MLP over
two and three; ranks that only the clock stops must stop
together; a rank killed mid-run must end the others within 10 s, with a
non-zero status and a message. Usage errors exit 2, said once under MPI
(an input on "-" and a workload's option among them); a run's warning
is said once too. A gas spread the same ways must give one
device's energies and pressure, to rounding, and its checkpoint must
restart on another number of ranks. Over MPI too: shares past a double's
sum are dealt as equal ones; failing ranks say so in a line each; a
swarm, islands, a colony or a network too large for rank 1 ends the run
before any rank builds kernels (PoCL); and a signal to a rank or to
mpirun (Ctrl-C, once or twice) leaves no temporary.

CLKIT_SPREAD_DEVICES=A,B,... runs the device checks over those devices
rather than two PoCL devices (four GPUs, say); CLKIT_SPREAD_MPI_DEVICE
(default ref) is what each rank selects, and CLKIT_SPREAD_RANKS (default
2,3) the rank counts tried.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

CLKIT = os.path.abspath(sys.argv[1])
MPIRUN = sys.argv[2] if len(sys.argv) > 2 else None
ENV = dict(os.environ)
ENV.setdefault("POCL_DEVICES", "pthread pthread")
failures = 0


def fail(message):
    global failures
    failures += 1
    print("FAIL:", message)


def run(args, mpi=0):
    command = [CLKIT] + args
    if mpi:
        command = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np",
                   str(mpi)] + command
    done = subprocess.run(command, env=ENV, capture_output=True, text=True,
                          timeout=600)
    return done.returncode, done.stdout, done.stderr


def result(args, mpi=0):
    code, out, err = run(args + ["--json"], mpi)
    if code != 0:
        fail(f"{' '.join(args)} (np {mpi}) exited {code}: {err.strip()}")
        return None
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if len(lines) != 1:
        fail(f"{' '.join(args)} (np {mpi}): {len(lines)} results, not 1")
        return None
    return json.loads(lines[0])


def same(what, alone, spread, members, units=203):
    if not alone or not spread:
        return
    if spread["best"] != alone["best"] or spread["x"] != alone["x"]:
        fail(f"{what}: best {spread['best']!r}, alone {alone['best']!r}")
    got = spread.get("members", [])
    if len(got) != members or sum(m["units"] for m in got) != units:
        fail(f"{what}: members {got}")
    print(f"ok: {what}: best {spread['best']!r} over "
          f"{[(m['device'], m['rank'], m['units']) for m in got]}")


SWARM = ["run", "pso", "--fn", "rastrigin", "--dim", "6", "--particles",
         "203", "--iters", "40", "--seed", "9"]
SPHERE = ["run", "pso", "--fn", "sphere", "--dim", "6", "--particles",
          "203", "--iters", "40", "--seed", "9"]
RING = SWARM + ["--topology", "ring:5"]
# Halos of 74 and 75 particles: wider than a slice of 64, so they take
# two passes.
WIDE_RING = SPHERE + ["--topology", "ring:150"]
# Islands migrate every 3 generations, across every member's boundary.
GA = ["run", "ga", "--fn", "rastrigin", "--dim", "6", "--islands", "11",
      "--island-size", "16", "--gens", "40", "--seed", "9",
      "--migrate-every", "3"]
GA_RANDOM = GA + ["--topology", "random"]

code, out, err = run(["devices", "--json"])
devices = [d["id"] for d in json.loads(out)["devices"]] if code == 0 else []
pocl = [d for d in devices if d.startswith("ocl:")]
if os.environ.get("CLKIT_SPREAD_DEVICES"):
    group = os.environ["CLKIT_SPREAD_DEVICES"].split(",")
    GROUP = f"{len(group)} devices ({','.join(group)})"
else:
    group, GROUP = pocl[:2], "two PoCL devices"
MPI_DEVICE = os.environ.get("CLKIT_SPREAD_MPI_DEVICE", "ref")
RANKS = [int(k) for k in os.environ.get("CLKIT_SPREAD_RANKS",
                                        "2,3").split(",")]
pair = ",".join(group)
# ref and the group, dealt 1, 2, 3, ...
mixed = ["--device", "ref," + pair, "--spread", "--shares",
         ",".join(str(k + 1) for k in range(len(group) + 1))]
MIXED = f"ref and {GROUP}, shares {mixed[-1]}"
if len(group) >= 2:
    same(GROUP, result(SWARM + ["--device", group[0]]),
         result(SWARM + ["--device", pair, "--spread"]), len(group))
    same(MIXED, result(SPHERE + ["--device", "ref"]),
         result(SPHERE + mixed), len(group) + 1)
    same(f"a ring on {GROUP}", result(RING + ["--device", group[0]]),
         result(RING + ["--device", pair, "--spread"]), len(group))
    same(f"a wide ring on {MIXED}", result(WIDE_RING + ["--device", "ref"]),
         result(WIDE_RING + mixed), len(group) + 1)
    for ga, topology in ((GA, "ring"), (GA_RANDOM, "random")):
        same(f"a GA ({topology}) on {GROUP}",
             result(ga + ["--device", group[0]]),
             result(ga + ["--device", pair, "--spread"]), len(group), 11)
        same(f"a GA ({topology}) on {MIXED}",
             result(ga + ["--device", "ref"]),
             result(ga + mixed), len(group) + 1, 11)
    if all(d.startswith("ocl:") for d in group):
        # Whole-number values tie across islands, found in different
        # rounds: the best's genes are those of the earliest round's lowest
        # island, as one device keeps them.
        steps = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                             f"spread_check_{os.getpid()}_steps.cl")
        with open(steps, "w") as handle:
            handle.write("float objective(const float *x, int dim) {\n"
                         "  float sum = 0.0f;\n"
                         "  for (int i = 0; i < dim; ++i)\n"
                         "    sum += x[i] * x[i];\n"
                         "  return floor(sum);\n"
                         "}\n")
        TIES = ["run", "ga", "--objective", steps, "--lo", "-5", "--hi", "5",
                "--dim", "4", "--islands", "11", "--island-size", "16",
                "--gens", "40", "--seed", "2", "--migrate-every", "3"]
        shares = ",".join(str(2 * k + 1) for k in range(len(group)))
        same(f"a GA whose values tie on {GROUP}, shares {shares}",
             result(TIES + ["--device", group[0]]),
             result(TIES + ["--device", pair, "--spread", "--shares", shares]),
             len(group), 11)
        os.remove(steps)
else:
    print("skip: fewer than two OpenCL devices")


def near(what, alone, spread, members, batch):
    """An MLP spread ends near its one-device run: the gradients' sums
    run in another order, nothing more."""
    if not alone or not spread:
        return
    loss, accuracy = spread["test_loss"], spread["test_accuracy"]
    if abs(loss - alone["test_loss"]) > 1e-3 * alone["test_loss"] or \
            abs(accuracy - alone["test_accuracy"]) > 0.01:
        fail(f"{what}: test loss {loss!r}, accuracy {accuracy!r}; alone "
             f"{alone['test_loss']!r}, {alone['test_accuracy']!r}")
    got = spread.get("members", [])
    if len(got) != members or sum(m["units"] for m in got) != batch or \
            spread.get("member_units") != "samples":
        fail(f"{what}: members {got}")
    # Each member's gradients go to the others every batch.
    if members > 1 and not all(m["bytes_sent"] > 0 for m in got):
        fail(f"{what}: bytes sent {[m['bytes_sent'] for m in got]}")
    print(f"ok: {what}: test loss {loss!r} (alone {alone['test_loss']!r}) "
          f"over {[(m['device'], m['rank'], m['units']) for m in got]}")


LETTERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "examples", "data", "letter-recognition.data")
MLP = ["run", "nn", "--train", LETTERS, "--split", "16000", "--layers",
       "16,32,26", "--batch", "128", "--epochs", "2", "--seed", "5"]
# Trained further (90% on its test rows), a spread reaches one device's
# test accuracy within 0.3 points.
TRAINED = ["run", "nn", "--train", LETTERS, "--split", "16000", "--layers",
           "16,128,26", "--batch", "128", "--epochs", "8", "--lr", "0.003",
           "--seed", "5"]


# Fashion-MNIST (Debian's dataset-fashion-mnist), where installed: a
# spread trained 8 epochs reaches one device's test accuracy (about 88%)
# within 0.3 points. Equal shares, so that no probe's timing deals rows.
FASHION = "/usr/share/datasets/fashion-mnist"
FASHION_MLP = ["run", "nn", "--train",
               os.path.join(FASHION, "train-images-idx3-ubyte.gz"), "--test",
               os.path.join(FASHION, "t10k-images-idx3-ubyte.gz"), "--layers",
               "784,128,10", "--batch", "256", "--epochs", "8", "--seed", "5"]


def as_accurate(what, alone, spread):
    if not alone or not spread:
        return
    gap = abs(spread["test_accuracy"] - alone["test_accuracy"]) * 100
    if gap > 0.3:
        fail(f"{what}: test accuracy {spread['test_accuracy']!r}, alone "
             f"{alone['test_accuracy']!r}: {gap:.2f} points apart")
    print(f"ok: {what}: test accuracy {spread['test_accuracy']!r} (alone "
          f"{alone['test_accuracy']!r})")


if len(group) >= 2:
    near(f"an MLP over {GROUP}", result(MLP + ["--device", group[0]]),
         result(MLP + ["--device", pair, "--spread"]), len(group), 128)
    as_accurate(f"a trained MLP over {GROUP}",
                result(TRAINED + ["--device", group[0]]),
                result(TRAINED + ["--device", pair, "--spread"]))
    if os.path.isdir(FASHION):
        as_accurate(f"an MLP on Fashion-MNIST over {GROUP}",
                    result(FASHION_MLP + ["--device", group[0]]),
                    result(FASHION_MLP + ["--device", pair, "--spread",
                                          "--shares", ",".join(
                                              "1" for _ in group)]))
    else:
        print(f"skip: Fashion-MNIST is not in {FASHION}")

usage = [(["run", "pso", "--shares", "1,1"], "--shares applies only"),
         (["run", "pso", "--spread", "--shares", "1,x"], "positive decimal"),
         (["compare", "pso", "--spread"], "spread"),
         # The library's refusal of the shares names the option too.
         (["run", "gas", "--device", "ref,ref,ref,ref", "--spread",
           "--shares", "1,2,1,1", "--particles", "200", "--steps", "1"],
          "clkit: --shares: 4 members cut the box")]
if len(group) >= 2:
    # One share fewer than devices: the option is named, not the library's.
    usage.append((["run", "pso", "--spread", "--device", pair, "--shares",
                   ",".join("1" for _ in group[1:])],
                  f"--shares: {len(group) - 1} share"))
for args, mention in usage:
    code, out, err = run(args)
    if code != 2 or mention not in err:
        fail(f"{' '.join(args)}: exit {code}, {err.strip()!r}")


def trace_of(args, ranks=0):
    """A GA's trace, every island's rows too, as a run writes it."""
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                        f"spread_check_{os.getpid()}_{ranks}.csv")
    found = result(args + ["--trace", path, "--trace-islands"], ranks)
    try:
        with open(path) as handle:
            text = handle.read()
        os.remove(path)
    except OSError:
        text = None
    return found, text


def ranks_of(job, ranks, ready, wait=60):
    """{rank: pid} of the clkit processes that mpirun job started, once
    all `ranks` run and ready() holds; {} if not within wait seconds."""
    deadline = time.time() + wait
    while time.time() < deadline and job.poll() is None:
        time.sleep(0.2)
        found = {}
        for pid in os.listdir("/proc"):
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    environ = handle.read().split(b"\0")
                if parent != job.pid or os.path.basename(
                        os.readlink(f"/proc/{pid}/exe")) != "clkit":
                    continue
            except (OSError, ValueError, IndexError):
                continue
            for variable in environ:
                if variable.startswith(b"OMPI_COMM_WORLD_RANK="):
                    found[int(variable.split(b"=")[1])] = int(pid)
        if len(found) == ranks and ready():
            return found
    return {}


if MPIRUN:
    on = ["--device", MPI_DEVICE, "--spread"]
    alone = result(SWARM + ["--device", "ref"])
    for ranks in RANKS:
        same(f"{ranks} ranks on {MPI_DEVICE}", alone,
             result(SWARM + on, ranks), ranks)
    alone = result(WIDE_RING + ["--device", "ref"])
    for ranks in RANKS:
        same(f"a wide ring on {ranks} ranks on {MPI_DEVICE}", alone,
             result(WIDE_RING + on, ranks), ranks)
    alone = result(MLP + ["--device", "ref"])
    for ranks in RANKS:
        near(f"an MLP over {ranks} ranks on {MPI_DEVICE}", alone,
             result(MLP + on, ranks), ranks, 128)
    for ga, topology in ((GA, "ring"), (GA_RANDOM, "random")):
        # The best agrees with ref's; the trace's means, summed on the
        # device, with one device of the ranks' kind.
        alone = result(ga + ["--device", "ref"])
        one = group[0] if os.environ.get("CLKIT_SPREAD_DEVICES") else "ref"
        _, alone_trace = trace_of(ga + ["--device", one])
        for ranks in RANKS:
            spread, trace = trace_of(ga + on, ranks)
            same(f"a GA ({topology}) on {ranks} ranks on {MPI_DEVICE}", alone,
                 spread, ranks, 11)
            if not trace or trace != alone_trace:
                fail(f"a GA ({topology}) on {ranks} ranks: the trace differs "
                     f"from {one} alone's")
    # Ranks that only the clock stops stop at the same generation.
    timed = result(["run", "ga", "--dim", "6", "--islands", "6",
                    "--island-size", "16", "--time", "0.5"] + on, RANKS[-1])
    if timed and (timed["stopped_by"] != "time" or timed["generations"] < 1):
        fail(f"a GA on {RANKS[-1]} ranks for 0.5 s: {timed['stopped_by']} after "
             f"{timed['generations']} generations")
    elif timed:
        print(f"ok: a GA on {RANKS[-1]} ranks stopped by the clock together, after "
              f"{timed['generations']} generations")
    # A rank killed mid-run ends the others.
    long_run = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", "3",
                CLKIT, "run", "pso", "--dim", "8", "--particles", "3000",
                "--iters", "100000000", "--quiet"] + on
    job = subprocess.Popen(long_run, env=ENV, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    victim = ranks_of(job, 3, lambda: True).get(1)
    if victim is None:
        fail("no rank 1 to kill")
        job.kill()
    else:
        time.sleep(1)
        os.kill(victim, signal.SIGKILL)
        killed = time.time()
        try:
            out, err = job.communicate(timeout=10)
            took = time.time() - killed
            if job.returncode == 0 or not err.strip():
                fail(f"killed rank: exit {job.returncode}, {err!r}")
            else:
                print(f"ok: a killed rank ended the run in {took:.1f} s, "
                      f"exit {job.returncode}")
        except subprocess.TimeoutExpired:
            fail("a killed rank left the others running past 10 s")
            job.kill()
            job.communicate()
else:
    print("skip: no MPI")



def aco_checks():
    """One ACO colony over two PoCL devices, over ref and them, and over
    MPI ranks on ref: the length and the tour of ref or one device alone,
    by the classic method and the focused one (its adaptive bound too).
    Colonies (--spread-colonies) run and report their members."""
    here = os.path.dirname(os.path.abspath(__file__))
    classic = ["run", "aco", os.path.join(here, "data", "tsplib", "a280.tsp"),
               "--ants", "17", "--iters", "20", "--ls", "2opt", "--ls-ants",
               "5", "--seed", "4"]
    # From 512 cities the focused start searches its first tour in
    # segments.
    focused = ["run", "aco", "random:600", "--method", "focused",
               "--focus-edges", "auto", "--ants", "17", "--iters", "6",
               "--ls-ants", "6", "--seed", "2"]
    directory = tempfile.mkdtemp(prefix="clkit-spread-aco-")
    runs = [0]

    def tour_run(colony, args, mpi=0):
        runs[0] += 1
        path = os.path.join(directory, f"{runs[0]}.tour")
        got = result(colony + args + ["--tour-out", path], mpi)
        if got is None:
            return None
        with open(path) as handle:
            return (got["best"], handle.read(), got.get("members", []),
                    got["focused"])

    def same_tour(what, alone, spread, members):
        if not alone or not spread:
            return
        if spread[:2] != alone[:2] or spread[3] != alone[3]:
            fail(f"aco {what}: length {spread[0]!r}, alone {alone[0]!r}"
                 f"{'' if spread[0] != alone[0] else ', another tour'}"
                 f", focused {spread[3]} and {alone[3]}")
        got = spread[2]
        if len(got) != members or sum(m["units"] for m in got) != 17:
            fail(f"aco {what}: members {got}")
        # Each member's tour lengths go to the others every iteration.
        if members > 1 and not all(m["bytes_sent"] > 0 for m in got):
            fail(f"aco {what}: bytes sent "
                 f"{[m['bytes_sent'] for m in got]}")
        print(f"ok: aco {what}: length {spread[0]!r} over "
              f"{[(m['device'], m['rank'], m['units']) for m in got]}")

    for method, colony in (("classic", classic), ("focused", focused)):
        if len(group) >= 2:
            same_tour(f"{method} on {GROUP}",
                      tour_run(colony, ["--device", group[0]]),
                      tour_run(colony, ["--device", pair, "--spread"]),
                      len(group))
            alone = tour_run(colony, ["--device", "ref"])
            same_tour(f"{method} on {MIXED}", alone, tour_run(colony, mixed),
                      len(group) + 1)
            colonies = tour_run(colony, ["--device", pair, "--spread",
                                         "--spread-colonies", "5"])
            if colonies and len(colonies[2]) == len(group) and \
                    colonies[3] == (method == "focused"):
                print(f"ok: aco {method} colonies on {GROUP}: "
                      f"{colonies[0]!r}")
            elif colonies:
                fail(f"aco {method} colonies: members {colonies[2]}, "
                     f"focused {colonies[3]}")
        if MPIRUN:
            alone = tour_run(colony, ["--device", "ref"])
            for ranks in RANKS:
                same_tour(f"{method} on {ranks} ranks on {MPI_DEVICE}", alone,
                          tour_run(colony, ["--device", MPI_DEVICE,
                                            "--spread"], ranks),
                          ranks)
    code, out, err = run(["run", "aco", "--spread-colonies", "3"])
    if code != 2 or "--spread-colonies applies only with --spread" not in err:
        fail(f"aco --spread-colonies alone: exit {code}, {err.strip()!r}")
    for name in os.listdir(directory):
        os.remove(os.path.join(directory, name))
    os.rmdir(directory)


aco_checks()


# ---- the gas ------------------------------------------------------------

GAS = ["run", "gas", "--particles", "400", "--steps", "200", "--equil",
       "100", "--seed", "4", "--log-every", "0"]


def gas_close(what, alone, spread, members):
    """Averages of one device and of a spread run, to rounding: the runs
    follow the same trajectory for these few hundred steps."""
    if not alone or not spread:
        return
    figures, reference = spread, alone
    for name, tolerance in (("potential_energy", 1e-3),
                            ("total_energy", 1e-3), ("pressure", 1e-2),
                            ("temperature", 1e-3)):
        if abs(figures[name] - reference[name]) > tolerance:
            fail(f"{what}: {name} {figures[name]!r}, alone "
                 f"{reference[name]!r}")
    got = spread.get("members", [])
    if len(got) != members or sum(m["units"] for m in got) != 400:
        fail(f"{what}: members {got}")
    print(f"ok: {what}: potential {figures['potential_energy']!r} "
          f"(alone {reference['potential_energy']!r}) over "
          f"{[(m['device'], m['rank'], m['units']) for m in got]}")


gas_alone = result(GAS + ["--device", "ref"])
if len(group) >= 2:
    gas_close(f"gas on {GROUP}", gas_alone,
              result(GAS + ["--device", pair, "--spread"]), len(group))
if MPIRUN:
    with tempfile.TemporaryDirectory() as scratch:
        saved = os.path.join(scratch, "gas.ckpt")
        for ranks in RANKS:
            gas_close(f"gas over {ranks} ranks on {MPI_DEVICE}", gas_alone,
                      result(GAS + on + ["--checkpoint", saved], ranks),
                      ranks)
        # The checkpoint of the last ranks goes on over the first, and on
        # one device.
        more = ["run", "gas", "--restart", saved, "--steps", "100",
                "--log-every", "0"]
        gas_close(f"gas restarted from {RANKS[-1]} ranks on {RANKS[0]}",
                  result(more + ["--device", "ref"]),
                  result(more + on, RANKS[0]), RANKS[0])

def early_failure(what, args, limited=False):
    """A member that cannot fit its share (`what`) fails the others before
    they build their kernels, so PoCL's cache stays empty. Rank 0 is on
    PoCL; rank 1 fails its memory check on ref, or, where no share can
    outgrow the host (limited), on PoCL limited to 1 GB."""
    mpi = [MPIRUN, "--oversubscribe", "--allow-run-as-root"]
    if limited and len(pocl) < 2:
        print(f"skip: {what}: fewer than two PoCL devices")
        return
    if limited:
        devices = ["--device", ",".join(pocl[:2]), "--spread"]
        command = mpi + ["-np", "1", CLKIT] + args + devices + [
            ":", "-np", "1", "env", "POCL_MEMORY_LIMIT=1", CLKIT] + args + \
            devices
    else:
        command = mpi + ["-np", "2", CLKIT] + args + [
            "--device", pocl[0] + ",ref", "--spread"]
    with tempfile.TemporaryDirectory() as cache:
        started = time.time()
        done = subprocess.run(command, env=dict(ENV, POCL_CACHE_DIR=cache),
                              capture_output=True, text=True, timeout=120)
        took = time.time() - started
        built = [name for _, _, names in os.walk(cache) for name in names
                 if not name.startswith("tempfile")]
    if done.returncode != 1 or built or "GB; device" not in done.stderr or \
            "rank 1" not in done.stderr:
        fail(f"{what} for rank 1: exit {done.returncode} after {took:.1f} s, "
             f"{len(built)} files built: {done.stderr.strip()!r}")
    else:
        print(f"ok: {what} for rank 1 ended the run in {took:.1f} s, "
              f"before any rank built kernels")


def early_failures():
    """Each workload's member too small for its share, over two ranks: a
    colony's ants are at most 65536, and an MLP's members each hold the
    whole network."""
    early_failure("a swarm too large", [
        "run", "pso", "--particles", "2e9", "--dim", "1000", "--shares",
        "1,1e9", "--iters", "1"])
    early_failure("islands too large", [
        "run", "ga", "--islands", "1000000", "--island-size", "2048",
        "--dim", "1000", "--shares", "1,1e9", "--gens", "1"])
    early_failure("a colony too large", [
        "run", "aco", "random:2000", "--ants", "65536", "--shares", "1,1e9",
        "--iters", "1"], limited=True)
    early_failure("a network too large", [
        "run", "nn", "--train", LETTERS, "--split", "16000", "--layers",
        "16,10000,10000,26", "--epochs", "1"], limited=True)


def running(pid):
    """Whether a process runs: neither gone nor a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def temporaries_removed():
    """A signal that ends a rank, or the launcher, while rank 0 writes a
    trajectory: every rank ends within seconds, rank 0 removes its
    temporary, and each rank that mpirun still hears says why."""
    gas = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", "2",
           CLKIT, "run", "gas", "--particles", "2000", "--steps", "10000000",
           "--traj", "t.xyz", "--traj-every", "10", "--quiet"] + on
    ways = [("SIGKILL to rank 1", "rank 0 of 2: ended by SIGTERM"),
            ("SIGTERM to rank 1", "rank 0 of 2: ended by SIGTERM"),
            ("SIGINT to rank 1", "rank 1 of 2: ended by SIGINT"),
            ("Ctrl-C on mpirun", "rank 0 of 2: ended by SIGTERM"),
            ("Ctrl-C twice on mpirun", None)]
    for way, message in ways:
        with tempfile.TemporaryDirectory() as scratch:
            def writing():
                return any(".tmp." in name for name in os.listdir(scratch))
            job = subprocess.Popen(gas, env=ENV, cwd=scratch,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
            pids = ranks_of(job, 2, writing)
            if not pids:
                fail(f"{way}: no ranks writing a trajectory")
                job.kill()
                job.communicate()
                continue
            sent = time.time()
            if way.endswith("rank 1"):
                os.kill(pids[1], getattr(signal, way.split()[0]))
            else:
                os.killpg(job.pid, signal.SIGINT)
                if way.endswith("twice on mpirun"):
                    time.sleep(0.2)
                    os.killpg(job.pid, signal.SIGINT)
            try:
                out, err = job.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                fail(f"{way}: the job ran on past 15 s")
                job.kill()
                out, err = job.communicate()
            # mpirun gone, its ranks are no one's to wait for.
            while any(running(pid) for pid in pids.values()) and \
                    time.time() - sent < 15:
                time.sleep(0.05)
            took = time.time() - sent
            left = [name for name in os.listdir(scratch) if ".tmp." in name]
            if left or job.returncode == 0 or took > 10 or \
                    (message and message not in err):
                fail(f"{way}: left {left}, exit {job.returncode}, "
                     f"{err.strip()!r}")
            else:
                print(f"ok: {way}: every rank ended in {took:.1f} s, "
                      f"no temporary left, exit {job.returncode}")


def refused_once(args, stdin, mention):
    """A usage error under mpirun: exit 2, said once (by rank 0)."""
    with open(stdin or os.devnull) as handle:
        done = subprocess.run(
            [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-np", "2",
             CLKIT] + args, env=ENV, stdin=handle, capture_output=True,
            text=True, timeout=120)
    if done.returncode != 2 or done.stderr.count(mention) != 1:
        fail(f"{' '.join(args)} (np 2): exit {done.returncode}, "
             f"{done.stderr.strip()!r}")
    else:
        print(f"ok: {' '.join(args[:2])} (np 2) refused once: {mention}")


def mpi_failures():
    """Usage errors, shares, failures and signals over MPI ranks."""
    here = os.path.dirname(os.path.abspath(__file__))
    tsp = os.path.join(here, "data", "tsplib", "a280.tsp")
    # Standard input reaches rank 0 alone: "-" is refused, said once.
    refused_once(["run", "aco", "-", "--iters", "2"] + on, tsp,
                 "option --instance: under MPI only rank 0 reads standard "
                 "input")
    refused_once(["run", "nn", "--train", "-", "--epochs", "1"] + on, LETTERS,
                 "option --train: under MPI only rank 0 reads standard input")
    refused_once(["run", "pso", "--shares", "1, 1"] + on, None,
                 "--shares: ' 1' is not")
    refused_once(["run", "pso", "--shares", "1"] + on, None,
                 "--shares: 1 share for 2 devices over every process")
    # A workload's option, refused by every rank: rank 0 alone says so.
    refused_once(GAS[:2] + ["--thermostat", "langevin"] + on, None,
                 "--thermostat: 'langevin' is not")
    # A run's warning (an optimum its tour beats) comes from rank 0 alone.
    with tempfile.TemporaryDirectory() as work:
        optima = os.path.join(work, "optima.txt")
        with open(optima, "w") as handle:
            handle.write("a280 : 9999999\n")
        code, out, err = run(["run", "aco", tsp, "--iters", "2", "--optima",
                              optima] + on, 2)
        if code != 0 or err.count("is shorter than the optimum given") != 1:
            fail(f"aco's warning over 2 ranks: exit {code}, {err.strip()!r}")
        else:
            print("ok: aco (np 2) warned once")
    # Shares whose sum overflows are dealt as equal ones.
    swarm = result(["run", "pso", "--particles", "2000", "--iters", "5",
                    "--shares", "1e308,1e308"] + on, 2)
    if swarm and [m["units"] for m in swarm["members"]] != [992, 1008]:
        fail(f"pso, shares 1e308,1e308: {swarm['members']}")
    gas = result(GAS + ["--steps", "10", "--shares", "1e308,1e308"] + on, 2)
    if gas:
        print(f"ok: shares 1e308,1e308: pso "
              f"{[m['units'] for m in swarm['members']] if swarm else None}, "
              f"gas {[m['units'] for m in gas['members']]}")
    # Every rank fails at once (no swarm fits): each says so in one line.
    code, out, err = run(["run", "pso", "--particles", "2e9", "--dim", "1000",
                          "--iters", "1"] + on, 3)
    said = [line for line in err.splitlines() if " of 3:" in line]
    if code == 0 or len(said) < 1 or any(
            not line.startswith("clkit: rank ") or line.endswith(" of 3:")
            for line in said):
        fail(f"3 ranks failing: exit {code}, {err.strip()!r}")
    else:
        print(f"ok: 3 ranks failing: {len(said)} lines, one a rank")
    if pocl:
        early_failures()
    temporaries_removed()


if MPIRUN:
    mpi_failures()


print(f"{'FAILED' if failures else 'passed'}: {failures} failures")
sys.exit(1 if failures else 0)
