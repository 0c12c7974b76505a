#!/usr/bin/env python3
"""user_objective - a user's OpenCL C objective against the built-ins.

Times clkit's PSO (or, with --workload ga, its GA) on one device with
three objectives of dim --dim over --particles particles and --iters
iterations (the GA: --particles / 256 islands of 256, --iters
generations):

- the built-in Rastrigin, by name;
- the same Rastrigin written as OpenCL C source, calling the library's
  cosine;
- the same Rastrigin as OpenCL C with the built-in's own polynomial sine
  (a user objective of the built-in's cost);
- Levy's function as OpenCL C source (a user objective clkit has no
  built-in of).

Each runs from Python on one clkit.Session (--calls calls; the median of
calls 2..N) and from the clkit command (--repeat runs; the median of the
wall_s it reports). On a CUDA device with PyTorch, both user objectives
run again as PyTorch callables on the swarm's own memory (array="torch"),
from the session only; and alone, --iters calls on a tensor of the
swarm's shape with no swarm (the callable's own kernels: a floor for its
row). Prints a Markdown table of milliseconds a call and
each one's ratio to the built-in's, and the best value reached.

    python3 bench/user_objective.py [--workload pso|ga] [--device cuda:0]
        [--dim 30]
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

# Rastrigin as the built-in computes it in single precision
# (cl/ck_objectives.inc): sqrt(20) sin(pi y) for y = x - rint(x) as the
# same polynomial in y^2, then x^2 + w^2. A user objective of the same
# cost as the built-in, where RASTRIGIN_CL calls the library's cosine.
RASTRIGIN_POLY_CL = """
float objective(const float *x, int dim) {
  float sum = 0.0f;
  for (int d = 0; d < dim; ++d) {
    float y = x[d] - rint(x[d]), s = y * y;
    float p = fma(0.347295612f, s, -2.67563987f);
    p = fma(p, s, 11.4042931f);
    p = fma(p, s, -23.1107025f);
    p = fma(p, s, 14.0496292f);
    float w = y * p;
    sum += fma(w, w, x[d] * x[d]);
  }
  return sum;
}
"""

# (row name, objective for Python, source file for the command or None
# for the built-in, domain)
OBJECTIVES = [
    ("built-in rastrigin", "rastrigin", None, (-5.12, 5.12)),
    ("rastrigin as OpenCL C", RASTRIGIN_CL, "rastrigin.cl", (-5.12, 5.12)),
    ("rastrigin as OpenCL C, the built-in's sine", RASTRIGIN_POLY_CL,
     "rastrigin_poly.cl", (-5.12, 5.12)),
    ("levy as OpenCL C", LEVY_CL, "levy.cl", (-10.0, 10.0)),
]


def torch_objectives(device):
    """Rastrigin and Levy as PyTorch callables on device tensors, or none
    where the device is not CUDA or PyTorch has no CUDA."""
    if not device.startswith("cuda"):
        return []
    try:
        import torch
    except ImportError:
        return []
    if not torch.cuda.is_available():
        return []
    pi = 3.14159265

    def rastrigin(x):
        return 10.0 * x.shape[1] + torch.sum(
            x * x - 10.0 * torch.cos(2 * pi * x), dim=1)

    def levy(x):
        w = 1.0 + (x - 1.0) * 0.25
        inner, last = w[:, :-1], w[:, -1]
        head = torch.sin(pi * w[:, 0]) ** 2
        body = torch.sum((inner - 1.0) ** 2 *
                         (1.0 + 10.0 * torch.sin(pi * inner + 1.0) ** 2), dim=1)
        tail = (last - 1.0) ** 2 * (1.0 + torch.sin(2 * pi * last) ** 2)
        return head + body + tail

    return [("rastrigin as a PyTorch callable", rastrigin, (-5.12, 5.12)),
            ("levy as a PyTorch callable", levy, (-10.0, 10.0))]


def torch_alone_ms(args, objective, domain):
    """The median over --calls of --iters calls of a PyTorch objective on
    one tensor of the run's shape, in ms: its kernels without the run."""
    import torch
    index = int(args.device.split(":")[1]) if ":" in args.device else 0
    generator = torch.Generator(device=f"cuda:{index}").manual_seed(1)
    rows = (args.particles // ISLAND_SIZE * ISLAND_SIZE
            if args.workload == "ga" else args.particles)
    x = domain[0] + (domain[1] - domain[0]) * torch.rand(
        rows, args.dim, device=f"cuda:{index}",
        generator=generator)
    seconds = []
    for _ in range(args.calls):
        torch.cuda.synchronize(index)
        started = time.perf_counter()
        for _ in range(args.iters):
            objective(x)
        torch.cuda.synchronize(index)
        seconds.append(time.perf_counter() - started)
    return 1e3 * statistics.median(seconds[1:])


def command_path(clkit):
    built = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(clkit.__file__)))), "tools", "clkit")
    return (os.environ.get("CLKIT_EXE")
            or (built if os.access(built, os.X_OK) else None)
            or shutil.which("clkit"))


ISLAND_SIZE = 256


def sizes(args):
    """The run's size options, as the command spells them."""
    if args.workload == "ga":
        return {"islands": str(args.particles // ISLAND_SIZE),
                "island-size": str(ISLAND_SIZE), "gens": str(args.iters)}
    return {"particles": str(args.particles), "iters": str(args.iters)}


def session_ms(clkit, args, objective, domain, array="numpy"):
    """The median of calls 2..N on one session, in ms, and the best."""
    seconds, best = [], None
    minimize = getattr(clkit, args.workload).minimize
    options = {name.replace("-", "_"): int(value)
               for name, value in sizes(args).items()}
    with clkit.Session(args.device) as session:
        for _ in range(args.calls):
            started = time.perf_counter()
            result = minimize(
                objective, domain[0], domain[1], dim=args.dim,
                session=session, seed=1, array=array, **options)
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
    size = [word for name, value in sizes(args).items()
            for word in ("--" + name, value)]
    for _ in range(args.repeat + 1):  # the first builds and caches
        done = subprocess.run(
            [command, "run", args.workload, *what, "--lo", str(domain[0]),
             "--hi", str(domain[1]), "--dim", str(args.dim), *size,
             "--device", args.device, "--seed", "1", "--json", "--quiet"],
            capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"clkit run {args.workload} failed: "
                     + done.stderr.strip()[-300:])
        walls.append(json.loads(done.stdout)["wall_s"])
    return 1e3 * statistics.median(walls[1:])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=("pso", "ga"), default="pso")
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
    if args.workload == "ga" and args.particles < ISLAND_SIZE:
        parser.error(f"--particles must be at least {ISLAND_SIZE} for the GA")
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
    for name, objective, domain in torch_objectives(args.device):
        session, best = session_ms(clkit, args, objective, domain, "torch")
        rows.append((name, session, float("nan"), best))
        rows.append((name + " alone", torch_alone_ms(args, objective, domain),
                     float("nan"), float("nan")))
    base_session, base_command = rows[0][1], rows[0][2]
    if args.workload == "ga":
        what = (f"# GA with a user's objective, {args.device}: dim "
                f"{args.dim}, {args.particles // ISLAND_SIZE} islands of "
                f"{ISLAND_SIZE}, {args.iters} generations")
    else:
        what = (f"# PSO with a user's objective, {args.device}: dim "
                f"{args.dim}, {args.particles} particles, {args.iters} "
                "iterations")
    lines = [what,
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
