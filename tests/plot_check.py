#!/usr/bin/env python3
"""plot_check - the charts of `clkit run ... --plot FILE`, as a user draws
them, against the history of the same run.

usage: plot_check.py CLKIT

For each workload, on ref, with small sizes:
  - --plot FILE.svg writes well-formed XML (xml.etree parses it) that is
    self-contained: no script, no link, no external font or image;
  - it has a title, axis labels and a legend entry a series, and one
    <polyline class="series"> a series, with a point a history row of the
    run's own --trace (--thermo for the gas): one a row, or for the ACO's
    best so far, held between improvements and to the run's end, two;
  - the points' heights are the rows' values through one linear or
    logarithmic scale (the axis is logarithmic where the values span
    decades and are all positive, linear where one is at or below 0);
  - --plot FILE.png writes a PNG 880 pixels wide, not blank, with the
    first series' colour in it.
A --plot whose name ends in neither .svg nor .png exits 2 naming the
option; one in a missing directory exits 2 naming it too (an output
that cannot be written, as for every output); both before the run writes
anything. Exits 0, or 1 with the failures listed.
"""
import csv
import math
import os
import re
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
import zlib

CLKIT = sys.argv[1]
SVG = "{http://www.w3.org/2000/svg}"
FIRST_COLOUR = (0x1F, 0x77, 0xB4)
failures = 0


def check(condition, message):
    global failures
    if not condition:
        failures += 1
        print(f"FAIL: {message}")
    return condition


def run(args):
    done = subprocess.run([CLKIT, "run"] + args + ["--device", "ref"],
                          capture_output=True, text=True, timeout=300)
    return done.returncode, done.stderr


def rows_of(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def points_of(element):
    pairs = element.get("points", "").split()
    return [tuple(float(v) for v in pair.split(",")) for pair in pairs]


def fits_a_scale(heights, values, name):
    """Whether heights are values through one linear or log10 scale."""
    def residual(transform):
        xs = [transform(v) for v in values]
        n = len(xs)
        mean_x, mean_y = sum(xs) / n, sum(heights) / n
        sxx = sum((x - mean_x) ** 2 for x in xs)
        if sxx == 0:
            return max(abs(h - mean_y) for h in heights)
        slope = sum((x - mean_x) * (h - mean_y)
                    for x, h in zip(xs, heights)) / sxx
        return max(abs(mean_y + slope * (x - mean_x) - h)
                   for x, h in zip(xs, heights))
    candidates = [residual(lambda v: v)]
    if all(v > 0 for v in values):
        candidates.append(residual(math.log10))
    return check(min(candidates) < 0.02,
                 f"{name}: its heights follow no one scale of its values "
                 f"(off by {min(candidates):.3g} pixels)")


def check_svg(path, expected, name):
    """expected: series name -> the values each point draws (in order);
    returns the root, or None."""
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError) as error:
        check(False, f"{name}: {path} is not well-formed XML: {error}")
        return None
    text = open(path, encoding="utf-8").read()
    check(root.tag == SVG + "svg", f"{name}: the root is {root.tag}")
    for forbidden in ("<script", "href", "@import", "<image",
                      "<foreignObject", "url("):
        check(forbidden not in text, f"{name}: the SVG holds {forbidden}")
    check(not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text),
          f"{name}: the SVG names a link")
    title = root.find(SVG + "title")
    check(title is not None and f"{name} on ref" in (title.text or ""),
          f"{name}: the title does not name the workload and device")
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    lines = root.findall(f".//{SVG}polyline[@class='series']")
    drawn = {}
    for line in lines:
        label = line.find(SVG + "title").text
        drawn.setdefault(label, []).append(points_of(line))
    want = sum(len(v) for v in expected.values())
    check(len(lines) == want,
          f"{name}: {len(lines)} series drawn, {want} expected")
    for label, series in expected.items():
        got = drawn.get(label, [])
        check(len(got) == len(series),
              f"{name}: series '{label}' drawn {len(got)} times, "
              f"{len(series)} expected")
        for points, values in zip(got, series):
            if check(len(points) == len(values),
                     f"{name}: '{label}' has {len(points)} points for "
                     f"{len(values)} values"):
                fits_a_scale([p[1] for p in points], values,
                             f"{name}: '{label}'")
            legend = label.split(" (")[0]
            check(legend in texts, f"{name}: no legend entry '{legend}'")
    return root


def y_tick_labels(root):
    return ["".join(t.itertext()) for t in root.iter(SVG + "text")
            if t.get("text-anchor") == "end"]


def png_pixels(path):
    """(width, height, rows of RGB bytes) of an 8-bit RGB PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    width, height, depth, colour = header[:4]
    if depth != 8 or colour != 2:
        return None
    raw, stride, rows, previous = zlib.decompress(idat), width * 3, [], None
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        up = previous or bytearray(stride)
        for i in range(stride):
            left = line[i - 3] if i >= 3 else 0
            corner = up[i - 3] if i >= 3 else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up[i]) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up[i]) // 2) & 255
            elif kind == 4:
                p = left + up[i] - corner
                pa, pb, pc = abs(p - left), abs(p - up[i]), abs(p - corner)
                guess = left if pa <= pb and pa <= pc else \
                    up[i] if pb <= pc else corner
                line[i] = (line[i] + guess) & 255
        rows.append(line)
        previous = line
    return width, height, rows


def check_png(path, name):
    picture = png_pixels(path) if os.path.exists(path) else None
    if not check(picture is not None, f"{name}: {path} is no RGB PNG"):
        return
    width, height, rows = picture
    check(width == 880 and 300 < height < 2000,
          f"{name}: the PNG is {width} x {height}")
    pixels = [tuple(row[i:i + 3]) for row in rows
              for i in range(0, len(row), 3)]
    inked = sum(1 for p in pixels if p != (255, 255, 255))
    check(inked > len(pixels) // 50,
          f"{name}: the PNG is nearly blank ({inked} pixels not white)")
    check(FIRST_COLOUR in set(pixels),
          f"{name}: the PNG has no pixel of its first series' colour")


def steps_with_hold(values):
    """The values of a best so far's points: held to each next one, and
    to the end."""
    drawn = []
    for i, value in enumerate(values):
        if i:
            drawn.append(values[i - 1])
        drawn.append(value)
    return drawn + [values[-1]]


def main():
    folder = tempfile.mkdtemp(prefix="clkit-plot-")

    def path(name):
        return os.path.join(folder, name)

    cases = {
        "pso": (["pso", "--fn", "sphere", "--dim", "3", "--particles", "16",
                 "--iters", "60", "--trace", path("pso.csv")],
                lambda: {"best so far (objective value)":
                         [[float(r["best"]) for r in rows_of(path("pso.csv"))]]}),
        "ga": (["ga", "--fn", "rastrigin", "--dim", "3", "--islands", "2",
                "--island-size", "8", "--gens", "15", "--trace",
                path("ga.csv")],
               lambda: {"population best (objective value)":
                        [[float(r["best"]) for r in rows_of(path("ga.csv"))]],
                        "population mean (objective value)":
                        [[float(r["mean"]) for r in rows_of(path("ga.csv"))]]}),
        "aco": (["aco", "random:12", "--iters", "8", "--trace",
                 path("aco.csv")],
                lambda: {"best so far (tour length)": [steps_with_hold(
                    [float(r["best_length"])
                     for r in rows_of(path("aco.csv"))])]}),
        "nn": (["nn", "--train", "spirals:120", "--split", "0.25", "--val",
                "0.25", "--epochs", "4", "--layers", "2,8,3", "--trace",
                path("nn.csv")],
               lambda: nn_expected(rows_of(path("nn.csv")))),
        "gas": (["gas", "--particles", "64", "--steps", "40",
                 "--log-every", "10", "--thermo", path("gas.csv")],
                lambda: gas_expected(rows_of(path("gas.csv")))),
    }
    for name, (args, expected) in cases.items():
        code, err = run(args + ["--plot", path(name + ".svg")])
        if not check(code == 0, f"{name}: --plot .svg exited {code}: {err}"):
            continue
        root = check_svg(path(name + ".svg"), expected(), name)
        if name == "pso" and root is not None:
            # The sphere's best falls over decades: a logarithmic axis.
            labels = y_tick_labels(root)
            check(any(re.fullmatch(r"1e-\d+|0\.0*1", t) for t in labels),
                  f"pso: sphere's y axis is not logarithmic: {labels}")
        code, err = run(args + ["--plot", path(name + ".png")])
        if check(code == 0, f"{name}: --plot .png exited {code}: {err}"):
            check_png(path(name + ".png"), name)

    # Negative values keep a linear axis (Styblinski-Tang's minimum).
    code, err = run(["pso", "--fn", "styblinski-tang", "--dim", "3",
                     "--particles", "16", "--iters", "20", "--plot",
                     path("negative.svg")])
    if check(code == 0, f"negative values: exited {code}: {err}"):
        root = ElementTree.parse(path("negative.svg")).getroot()
        labels = y_tick_labels(root)
        check(any(t.startswith("-") for t in labels) and
              not any("e" in t for t in labels),
              f"negative values: the y axis is not linear: {labels}")

    # Bad names, refused before the run writes anything.
    for name, target, code_wanted, words in (
            ("a .jpg", path("chart.jpg"), 2, "ends neither in .svg nor"),
            ("no ending", path("chart"), 2, "ends neither in .svg nor"),
            ("standard output", "-", 2, "ends neither in .svg nor"),
            ("a missing directory", path("missing/chart.svg"), 2,
             "cannot write")):
        trace = path("refused.csv")
        code, err = run(["pso", "--fn", "sphere", "--iters", "3", "--trace",
                         trace, "--plot", target])
        check(code == code_wanted and "option --plot" in err and words in err,
              f"--plot {name}: exit {code}, {err.strip()!r}")
        check(not os.path.exists(trace),
              f"--plot {name}: the run went on and wrote --trace")
    code, err = run(["gas", "--particles", "64", "--steps", "2",
                     "--log-every", "0", "--plot", path("gas0.svg")])
    check(code == 2 and "--plot" in err and "--log-every" in err,
          f"gas --plot with --log-every 0: exit {code}, {err.strip()!r}")
    print(f"{failures} failure(s)")
    return 1 if failures else 0


def nn_expected(rows):
    expected = {}
    for column, axis, scale in (("loss", "loss (ce)", 1),
                                ("accuracy", "accuracy (%)", 100)):
        for key, label in (("train", "train"), ("validation", "validation"),
                           ("test", "test")):
            expected[f"{label} ({axis})"] = [
                [scale * float(r[f"{key}_{column}"]) for r in rows]]
    return expected


def gas_expected(rows):
    series = (("potential", "energy / N (ε)"), ("kinetic", "energy / N (ε)"),
              ("total", "energy / N (ε)"), ("temperature", "temperature (ε/k)"),
              ("pressure", "pressure (ε/σ²)"))
    return {f"{name} ({axis})": [[float(r[name]) for r in rows]]
            for name, axis in series}


if __name__ == "__main__":
    sys.exit(main())
