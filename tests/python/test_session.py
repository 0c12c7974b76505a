"""clkit.Session: runs on a session equal the command's; what a session
keeps and reuses (its stats); errors it survives; closing, from a call's
own callbacks too; the default sessions; forked children; calls at once;
a call's scratch folder when SIGTERM ends the process."""
import copy
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import clkit
from clkit import _session
from conftest import OPENCL

SMALL = dict(dim=4, particles=32, iters=20)

SOURCE = ("float objective(const float *x, int dim) {\n"
          "  float s = 0.0f;\n"
          "  for (int d = 0; d < dim; ++d) s += (x[d] - 0.5f) * "
          "(x[d] - 0.5f);\n"
          "  return s;\n}\n")


@pytest.fixture
def session(device):
    """A session of the device, closed after the test."""
    with clkit.Session(device) as made:
        yield made


def test_runs_equal_the_command(session, device, cli):
    for workload in (clkit.pso, clkit.ga):
        options = (SMALL if workload is clkit.pso else
                   dict(dim=4, islands=2, island_size=16, gens=10))
        args = [f"--{key.replace('_', '-')}={value}"
                for key, value in options.items()]
        name = workload.__name__.rsplit(".", 1)[1]
        expected = cli("run", name, "--fn", "rastrigin", "--seed", "5",
                       "--device", device, *args)
        # The first call makes what the session keeps; the second reuses it.
        for _ in range(2):
            result = workload.minimize("rastrigin", session=session, seed=5,
                                       **options)
            assert result.fun == expected["best"]
            assert result.x.tolist() == expected["x"]
            assert result.device == device
    expected = cli("run", "aco", "random:40", "--iters", "5", "--seed", "3",
                   "--device", device)
    for _ in range(2):
        tour = clkit.aco.solve("random:40", iters=5, session=session, seed=3)
        assert tour.length == expected["best"]
    stats = session.stats()
    assert stats["runs"] == 6 and stats["queues_made"] == 1
    assert stats["queues_lent"] == 5


def test_models_on_a_session_equal_those_without(session, device):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > X[:, 1]).astype(int)
    alone = clkit.nn.MLP((8,), device=device, seed=2, epochs=5).fit(X, y)
    for _ in range(2):
        model = clkit.nn.MLP((8,), session=session, seed=2, epochs=5)
        model.fit(X, y)
        assert model.loss_curve_ == alone.loss_curve_
        assert [w.tolist() for w in model.coefs_] == \
            [w.tolist() for w in alone.coefs_]
    simulation = clkit.gas.Simulation(64, density=0.5, temperature=1.0,
                                      session=session, seed=4)
    simulation.run(20)
    reference = clkit.gas.Simulation(64, density=0.5, temperature=1.0,
                                      device=device, seed=4)
    reference.run(20)
    assert simulation.total_energy == reference.total_energy
    assert simulation.positions.tolist() == reference.positions.tolist()


@pytest.mark.skipif(not OPENCL, reason="no OpenCL device")
def test_one_source_builds_once_a_session():
    """Each call writes the source to a new temporary file: the program is
    still the same, and the second call builds nothing."""
    with clkit.Session(OPENCL) as session:
        first = clkit.pso.minimize(SOURCE, -2, 2, session=session, seed=4,
                                   **SMALL)
        built = session.stats()
        second = clkit.pso.minimize(SOURCE, -2, 2, session=session, seed=4,
                                    **SMALL)
        stats = session.stats()
    assert second.fun == first.fun and second.x.tolist() == first.x.tolist()
    assert built["programs_built"] >= 1
    assert stats["programs_built"] == built["programs_built"]
    assert stats["programs_reused"] >= built["programs_reused"] + 1
    assert second.build_s == 0 and stats["buffers_reused"] > 0


@pytest.mark.skipif(not OPENCL, reason="no OpenCL device")
def test_one_source_is_one_cache_entry(tmp_path):
    """A new process finds the source's program in clkit's kernel cache,
    though it writes the source to another temporary file: the cache
    gains entries for a new text alone."""
    code = ("import sys, clkit\n"
            "clkit.pso.minimize(sys.argv[1], -2, 2, device=sys.argv[2], "
            "dim=3, particles=16, iters=2)\n")
    env = dict(os.environ, CLKIT_CACHE="1",
               CLKIT_CACHE_DIR=str(tmp_path / "cache"))

    def entries(source):
        done = subprocess.run([sys.executable, "-c", code, source, OPENCL],
                              env=env, capture_output=True, text=True,
                              check=False)
        assert done.returncode == 0, done.stderr
        return sorted(os.listdir(tmp_path / "cache"))

    first = entries(SOURCE)
    assert first and entries(SOURCE) == first
    other = SOURCE.replace("0.5f", "0.25f")
    assert len(entries(other)) > len(first)


def test_a_session_survives_a_failed_call(session):
    expected = clkit.pso.minimize("sphere", session=session, seed=2, **SMALL)
    with pytest.raises(clkit.ArgumentError, match="--particles"):
        clkit.pso.minimize("sphere", session=session, particles=0)

    def failing(X):
        raise ZeroDivisionError("on purpose")

    with pytest.raises(ZeroDivisionError, match="on purpose"):
        clkit.pso.minimize(failing, -1, 1, session=session, **SMALL)
    with pytest.raises(clkit.Error, match="cancelled"):
        clkit.pso.minimize("sphere", session=session, seed=2,
                           callback=lambda progress: progress.steps > 0,
                           **SMALL)
    again = clkit.pso.minimize("sphere", session=session, seed=2, **SMALL)
    assert again.fun == expected.fun and again.x.tolist() == \
        expected.x.tolist()


def test_closing(device):
    session = clkit.Session(device)
    assert not session.closed and device in repr(session)
    assert [each.id for each in session.devices] == [device]
    session.close()
    session.close()
    assert session.closed and "closed" in repr(session)
    with pytest.raises(clkit.Error, match="closed"):
        clkit.pso.minimize("sphere", session=session, **SMALL)
    with pytest.raises(clkit.Error, match="closed"):
        clkit.ga.minimize("sphere", session=session, gens=2)
    with pytest.raises(clkit.Error, match="closed"):
        clkit.gas.Simulation(16, session=session)
    with pytest.raises(clkit.Error, match="closed"):
        session.stats()
    with pytest.raises(clkit.Error, match="closed"):
        session.devices
    with pytest.raises(clkit.Error, match="closed"):
        with session:
            pass


def test_a_context_manager_closes(device):
    with clkit.Session(device) as session:
        result = clkit.pso.minimize("sphere", session=session, **SMALL)
        assert result.device == device
    assert session.closed


def test_objects_outlive_their_session(device):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    session = clkit.Session(device)
    model = clkit.nn.MLP((4,), session=session, epochs=3).fit(X, y)
    simulation = clkit.gas.Simulation(64, session=session, seed=1)
    session.close()
    assert model.predict(X).shape == (40,)
    simulation.run(5)
    assert simulation.step == 5


def test_a_session_chooses_among_its_devices():
    with clkit.Session("ref") as session:
        assert clkit.pso.minimize("sphere", device="ref", session=session,
                                  **SMALL).device == "ref"
        with pytest.raises(clkit.ArgumentError, match="matches no device"):
            clkit.pso.minimize("sphere", device="ocl:9.9", session=session,
                               **SMALL)
    with pytest.raises(TypeError, match="clkit.Session"):
        clkit.pso.minimize("sphere", session="ref", **SMALL)
    with pytest.raises(clkit.ArgumentError, match="matches no device"):
        clkit.Session("no such device")


def test_default_sessions_are_one_a_device():
    ref = next(each for each in clkit.devices() if each.id == "ref")
    by_name = _session.default_session("test", "ref")
    assert _session.default_session("test", ref) is by_name
    before = by_name.stats()["runs"]
    clkit.pso.minimize("sphere", device="ref", **SMALL)
    assert by_name.stats()["runs"] == before + 1
    if OPENCL:
        with pytest.raises(ValueError, match="names 2 devices"):
            _session.default_session("test", f"ref,{OPENCL}")


def test_a_session_is_this_process_alone():
    with clkit.Session("ref") as session:
        assert copy.copy(session) is session
        assert copy.deepcopy(session) is session
        with pytest.raises(TypeError, match="cannot be pickled"):
            pickle.dumps(session)
        rng = np.random.default_rng(1)
        X = rng.normal(size=(30, 2))
        y = (X[:, 0] > 0).astype(int)
        model = clkit.nn.MLP((4,), session=session, epochs=2).fit(X, y)
        loaded = pickle.loads(pickle.dumps(model))
        assert loaded.session is None and model.session is session
        assert loaded.predict(X).tolist() == model.predict(X).tolist()


def test_compare_on_a_session():
    selector = f"ref,{OPENCL}" if OPENCL else "ref"
    options = dict(fn="rastrigin", dim=3, particles=16, iters=5, seed=2)
    alone = clkit.compare("pso", selector, **options)
    with clkit.Session(selector) as session:
        for _ in range(2):
            table = clkit.compare("pso", session=session, **options)
            assert [row.device for row in table] == \
                [row.device for row in alone]
            assert [row.best for row in table] == [row.best for row in alone]
            assert table.agrees
        assert session.stats()["runs"] == 2 * len(alone)
    if OPENCL:
        with clkit.Session(OPENCL) as session:
            with pytest.raises(clkit.Error, match="no ref device"):
                clkit.compare("pso", session=session, **options)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_makes_its_own_default_session():
    parent = _session.default_session("test", "ref")
    expected = clkit.pso.minimize("sphere", device="ref", seed=3, **SMALL)
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # the child: its own session, the same result
        try:
            own = _session.default_session("test", "ref")
            result = clkit.pso.minimize("sphere", device="ref", seed=3,
                                        **SMALL)
            ok = own is not parent and result.fun == expected.fun
            os.write(writer, b"ok" if ok else b"no")
        finally:
            os._exit(0)
    os.close(writer)
    answer = os.read(reader, 2)
    os.close(reader)
    os.waitpid(child, 0)
    assert answer == b"ok"
    assert _session.default_session("test", "ref") is parent


def _closing_runs(device, close):
    """A run on a session of device that closes its session where close
    says, and the same run on a session left open."""
    options = dict(dim=2, particles=16, iters=8, seed=3)
    with clkit.Session(device) as open_session:
        expected = clkit.pso.minimize(sphere_objective, -1, 1,
                                      session=open_session, **options)
    session = clkit.Session(device)
    result = close(session, options)
    return session, result, expected


def sphere_objective(X):
    return (X * X).sum(axis=1)


def _close_from_progress(session, options):
    return clkit.pso.minimize(sphere_objective, -1, 1, session=session,
                              progress=lambda progress: session.close(),
                              **options)


def _close_from_the_objective(session, options):
    def objective(X):
        session.close()
        return sphere_objective(X)
    return clkit.pso.minimize(objective, -1, 1, session=session, **options)


def _close_from_another_thread(session, options):
    """Another thread closes the session while the run waits in its
    objective."""
    closed = threading.Event()
    closer = threading.Thread(target=lambda: (session.close(), closed.set()))

    def objective(X):
        if not closer.is_alive() and not closed.is_set():
            closer.start()
            assert closed.wait(30)
        return sphere_objective(X)

    result = clkit.pso.minimize(objective, -1, 1, session=session, **options)
    closer.join()
    return result


@pytest.mark.parametrize("close", [_close_from_progress,
                                   _close_from_the_objective,
                                   _close_from_another_thread],
                         ids=["progress", "objective", "thread"])
def test_a_run_closing_its_session_finishes(device, close):
    """One rule wherever the session is closed during a run: the run under
    way finishes, as on a session left open; later calls are refused."""
    session, result, expected = _closing_runs(device, close)
    assert session.closed
    assert result.fun == expected.fun
    assert result.x.tolist() == expected.x.tolist()
    with pytest.raises(clkit.ArgumentError, match="closed"):
        clkit.pso.minimize("sphere", session=session, **SMALL)


@pytest.mark.skipif(not OPENCL, reason="no OpenCL device")
def test_calls_at_once_build_each_program_once():
    """Rounds of calls at once on one session: a kept program serves every
    queue of its device, so each is built once, and the queues the first
    round made serve the later rounds."""
    threads, rounds = 4, 3
    options = dict(dim=3, particles=16, iters=5, seed=2)
    with clkit.Session(OPENCL) as alone:
        expected = clkit.pso.minimize(SOURCE, -2, 2, session=alone,
                                      **options)
        built = alone.stats()["programs_built"]
    with clkit.Session(OPENCL) as session:
        made = []
        for _ in range(rounds):
            start = threading.Barrier(threads)
            results = [None] * threads

            def call(index):
                start.wait()
                results[index] = clkit.pso.minimize(
                    SOURCE, -2, 2, session=session, **options)

            workers = [threading.Thread(target=call, args=(index,))
                       for index in range(threads)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            assert [result.fun for result in results] == \
                [expected.fun] * threads
            made.append(session.stats()["queues_made"])
        stats = session.stats()
    assert built >= 1
    assert stats["programs_built"] == built
    assert stats["runs"] == threads * rounds
    assert made[0] <= threads and made == [made[0]] * rounds


def _python(code, timeout=120):
    """Runs code in a new Python, in a process group of its own; one that
    has not ended by timeout (a child that hangs) is killed with its
    group, and fails the test rather than hanging it."""
    process = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail(f"the process hung: {textwrap.dedent(code)}")
    assert process.returncode == 0, stderr
    return stdout


FORKED = """
    import os, time, clkit
    SMALL = dict(dim=2, particles=16, iters=4, seed=3)
    opencl = {opencl!r}
    parent = clkit.pso.minimize("sphere", device=opencl, **SMALL)
    ref = clkit.pso.minimize("sphere", device="ref", **SMALL)
"""


@pytest.mark.skipif(not OPENCL or not hasattr(os, "fork"),
                    reason="no OpenCL device, or no fork")
def test_a_forked_child_is_refused_opencl_at_once():
    """A child forked after its parent used OpenCL (PoCL) would hang in
    the runtime: its OpenCL calls raise clkit.Error at once, naming the
    cause and the fix. ref works there, and the parent goes on."""
    out = _python(FORKED.format(opencl=OPENCL) + """
    child = os.fork()
    if child == 0:
        code = 0
        for call in (lambda: clkit.pso.minimize("sphere", device=opencl,
                                                **SMALL),
                     lambda: clkit.Session(opencl),
                     lambda: clkit.nn.MLP((4,), device=opencl).fit(
                         [[0.0], [1.0]], [0, 1])):
            start = time.monotonic()
            try:
                call()
                code = 1
            except clkit.Error as error:
                if "forked" not in str(error) or "'spawn'" not in str(error) \\
                        or error.status != "CK_ERROR_UNSUPPORTED" or \\
                        isinstance(error, clkit.ArgumentError) or \\
                        time.monotonic() - start > 5:
                    code = 2
        again = clkit.pso.minimize("sphere", device="ref", **SMALL)
        os._exit(code or (0 if again.fun == ref.fun else 3))
    _, status = os.waitpid(child, 0)
    print(os.waitstatus_to_exitcode(status))
    print(clkit.pso.minimize("sphere", device=opencl, **SMALL).fun ==
          parent.fun)
    """)
    assert out.split() == ["0", "True"]


@pytest.mark.skipif(not OPENCL or not hasattr(os, "fork"),
                    reason="no OpenCL device, or no fork")
def test_multiprocessing_fork_workers():
    """multiprocessing's fork start method: a worker's OpenCL call raises
    clkit.Error in the parent, naming the start methods that work; its
    ref calls run."""
    out = _python(FORKED.format(opencl=OPENCL) + """
    import multiprocessing

    def work(device):
        return clkit.pso.minimize("sphere", device=device, **SMALL).fun

    with multiprocessing.get_context("fork").Pool(2) as pool:
        print(pool.map(work, ["ref", "ref"]) == [ref.fun, ref.fun])
        try:
            pool.apply(work, (opencl,))
            print("ran")
        except clkit.Error as error:
            print("'forkserver'" in str(error))
    """)
    assert out.split() == ["True", "True"]


@pytest.mark.skipif(not OPENCL or not hasattr(os, "fork"),
                    reason="no OpenCL device, or no fork")
def test_joblib_fork_workers():
    """joblib's multiprocessing backend forks too: each fit of an MLP on
    OpenCL raises clkit.Error in its worker rather than hanging, and
    cross_val_score names it; on ref it scores."""
    pytest.importorskip("sklearn")
    out = _python(FORKED.format(opencl=OPENCL) + """
    import numpy as np
    from joblib import parallel_backend
    from sklearn.model_selection import cross_val_score
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    with parallel_backend("multiprocessing"):
        scores = cross_val_score(clkit.nn.MLP((4,), device="ref", epochs=2,
                                              seed=1), X, y, cv=2, n_jobs=2)
        print(len(scores))
        # Each fit's failure is kept, not raised in its worker: a raise
        # terminates the pool, which can hang on a worker killed while it
        # holds the result queue's lock (multiprocessing's, not clkit's).
        try:
            cross_val_score(clkit.nn.MLP((4,), device=opencl, epochs=2),
                            X, y, cv=2, n_jobs=2, error_score=np.nan)
            print("ran")
        except ValueError as error:
            print("clkit.Error" in str(error) and "'spawn'" in str(error))
    """)
    assert out.split() == ["2", "True"]


SIGTERMED = """
    import os, signal, sys, clkit
    started = []

    def objective(X):
        if not started:
            started.append(1)
            print(signal.getsignal(signal.SIGTERM) is handler, flush=True)
            print("started", flush=True)
        return (X * X).sum(axis=1)

    {setup}
    clkit.pso.minimize(objective, -1, 1, dim=2, particles=8,
                       iters=10 ** 9, device="ref")
"""


def test_sigterm_mid_call_leaves_no_scratch_folder(tmp_path):
    """SIGTERM ends a process mid-call as it would without clkit (its
    status says SIGTERM), and leaves none of the call's files."""
    code = SIGTERMED.format(setup="handler = signal.SIG_DFL")
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, TMPDIR=str(tmp_path)))
    try:
        process.stdout.readline()
        assert process.stdout.readline().strip() == "started"
        assert [entry.name for entry in tmp_path.iterdir()
                if entry.name.startswith("clkit-")]
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == -signal.SIGTERM, stderr
    assert list(tmp_path.iterdir()) == []


def test_a_callers_sigterm_handler_is_left_alone(tmp_path):
    """A handler of the caller's stays in place during a call; the default
    is back after it."""
    setup = ("signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))\n"
             "    handler = signal.getsignal(signal.SIGTERM)")
    code = SIGTERMED.format(setup=setup)
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, TMPDIR=str(tmp_path)))
    try:
        assert process.stdout.readline().strip() == "True"
        assert process.stdout.readline().strip() == "started"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 3, stderr
    assert list(tmp_path.iterdir()) == []
    clkit.pso.minimize("sphere", device="ref", **SMALL)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
