#!/usr/bin/env python3
"""user_objective - a user's OpenCL C objective against the built-ins.

Times clkit's PSO on one device with three objectives of dim --dim over
--particles particles and --iters iterations:

- the built-in Rastrigin, by name;
- the same Rastrigin written as OpenCL C source (a user objective of the
  same cost);
- Levy's function as OpenCL C source (a user objective clkit has no
  built-in of).

Each runs from Python on one clkit.Session (--calls calls; the median of
calls 2..N) and from the clkit command (--repeat runs; the median of the
wall_s it reports). Prints a Markdown table of milliseconds a call and
each one's ratio to the built-in's, and the best value reached.

    python3 bench/user_objective.py [--device cuda:0] [--dim 30]
        [--particles 100000] [--iters 300] [--calls 10] [--repeat 5]
        [--out FILE]

clkit must be importable (PYTHONPATH=BUILD/python after a meson build);
the command is CLKIT_EXE, else the build tree's, else clkit on PATH.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# The Rastrigin source that bench/python_pso.py times too.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_pso import RASTRIGIN_CL  # noqa: E402

# Levy's function: w_i = 1 + (x_i - 1) / 4.
LEVY_CL = """
float objective(const float *x, int dim) {
  const float pi = 3.14159265f;
  float w = 1.0f + (x[0] - 1.0f) * 0.25f;
  float s = sin(pi * w);
  float sum = s * s;
  for (int i = 0; i < dim - 1; ++i) {
    w = 1.0f + (x[i] - 1.0f) * 0.25f;
    float t = sin(pi * w + 1.0f);
    sum += (w - 1.0f) * (w - 1.0f) * (1.0f + 10.0f * t * t);
  }
  w = 1.0f + (x[dim - 1] - 1.0f) * 0.25f;
  s = sin(2.0f * pi * w);
  return sum + (w - 1.0f) * (w - 1.0f) * (1.0f + s * s);
}
"""

# (row name, objective for Python, source file for the command or None
# for the built-in, domain)
OBJECTIVES = [
    ("built-in rastrigin", "rastrigin", None, (-5.12, 5.12)),
    ("rastrigin as OpenCL C", RASTRIGIN_CL, "rastrigin.cl", (-5.12, 5.12)),
    ("levy as OpenCL C", LEVY_CL, "levy.cl", (-10.0, 10.0)),
]


def command_path(clkit):
    built = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(clkit.__file__)))), "tools", "clkit")
    return (os.environ.get("CLKIT_EXE")
            or (built if os.access(built, os.X_OK) else None)
            or shutil.which("clkit"))


def session_ms(clkit, args, objective, domain):
    """The median of calls 2..N on one session, in ms, and the best."""
    seconds, best = [], None
    with clkit.Session(args.device) as session:
        for _ in range(args.calls):
            started = time.perf_counter()
            result = clkit.pso.minimize(
                objective, domain[0], domain[1], dim=args.dim,
                particles=args.particles, iters=args.iters, session=session,
                seed=1)
            seconds.append(time.perf_counter() - started)
            best = float(result.fun)
    return 1e3 * statistics.median(seconds[1:]), best


def command_ms(command, args, source, name, domain, folder):
    """The median wall_s of --repeat runs of the command, in ms."""
    what = ["--fn", "rastrigin"]
    if source is not None:
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        what = ["--objective", path]
    walls = []
    for _ in range(args.repeat + 1):  # the first builds and caches
        done = subprocess.run(
            [command, "run", "pso", *what, "--lo", str(domain[0]), "--hi",
             str(domain[1]), "--dim", str(args.dim), "--particles",
             str(args.particles), "--iters", str(args.iters), "--device",
             args.device, "--seed", "1", "--json", "--quiet"],
            capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit("clkit run pso failed: " + done.stderr.strip()[-300:])
        walls.append(json.loads(done.stdout)["wall_s"])
    return 1e3 * statistics.median(walls[1:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda:0")
    parser.add_argument("--dim", type=int, default=30)
    parser.add_argument("--particles", type=int, default=100000)
    parser.add_argument("--iters", type=int, default=300)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.calls < 2 or args.repeat < 1:
        parser.error("--calls must be at least 2 and --repeat at least 1")
    import clkit
    command = command_path(clkit)
    rows = []
    with tempfile.TemporaryDirectory(prefix="clkit-bench-") as folder:
        for name, objective, file_name, domain in OBJECTIVES:
            session, best = session_ms(clkit, args, objective, domain)
            source = None if file_name is None else objective
            run = (command_ms(command, args, source, file_name, domain, folder)
                   if command else float("nan"))
            rows.append((name, session, run, best))
    base_session, base_command = rows[0][1], rows[0][2]
    lines = [f"# PSO with a user's objective, {args.device}: dim {args.dim}, "
             f"{args.particles} particles, {args.iters} iterations",
             "",
             "| objective | session ms | / built-in | command ms | "
             "/ built-in | best |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, session, run, best in rows:
        lines.append(f"| {name} | {session:.2f} | "
                     f"{session / base_session:.2f} | {run:.2f} | "
                     f"{run / base_command:.2f} | {best:.4g} |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
