#!/usr/bin/env python3
"""report_check - clkit bench's HTML report (--report FILE.html).

The page must stand alone (no script, style sheet, image or font from
elsewhere), its SVG charts must hold one throughput bar and one
percent-of-peak bar per device and workload, and headless Chromium must
draw it as more than a blank page: several colours, the first device's
bars among them, over a good part of the window.

usage: report_check.py CLKIT
Runs `clkit bench --device ref,OCL --size small --report r.html`, OCL the
first OpenCL device (ref alone where none is listed), with peaks the test
supplies. Exit 0 on success, 1 on a failure; 77, with the reason, where
no Chromium is installed (after the page's own checks have passed).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"
# The first device's colour in the report's palette
# (tools/cli_report_html.c).
FIRST_COLOUR = (0x4E, 0x79, 0xA7)
failures = 0


def check(condition, message):
    global failures
    if not condition:
        failures += 1
        print("FAIL: " + message)


def devices(clkit):
    listed = subprocess.run([clkit, "devices", "--json"], check=True,
                            capture_output=True, text=True).stdout
    ids = [d["id"] for d in json.loads(listed)["devices"]]
    return ["ref"] + [i for i in ids if i.startswith("ocl:")][:1]


def check_page(page, workloads, ids):
    check(page.startswith("<!DOCTYPE html>"), "not an HTML page")
    # Nothing fetched: no script at all, no link, source or url() that
    # leaves the page.
    check("<script" not in page.lower(), "the page holds a script")
    for pattern in (r"\b(src|href)\s*=", r"url\(", r"@import",
                    r"https?://(?!www\.w3\.org/2000/svg)"):
        check(not re.search(pattern, page, re.I),
              "the page refers elsewhere: %s" % pattern)
    charts = re.findall(r"<svg\b.*?</svg>", page, re.S)
    bars, peaks = {}, {}
    for chart in charts:
        try:
            root = ET.fromstring(chart)
        except ET.ParseError as error:
            check(False, "a chart is not well-formed SVG: %s" % error)
            continue
        check(root.tag == SVG + "svg", "a chart's root is %s" % root.tag)
        for rect in root.iter(SVG + "rect"):
            if rect.get("class") == "bar":
                key = (rect.get("data-workload"), rect.get("data-device"))
                bars[key] = bars.get(key, 0) + 1
                check(float(rect.get("width")) > 0, "an empty bar %s" % (key,))
            elif rect.get("class") == "peak":
                label = root.get("aria-label", "")
                peaks[label] = peaks.get(label, 0) + 1
    want = {(w, d) for w in workloads for d in ids}
    check(set(bars) == want,
          "bars for %s, want %s" % (sorted(bars), sorted(want)))
    check(all(n == 1 for n in bars.values()),
          "a device has several bars in a chart: %s" % bars)
    for w in workloads:
        check(peaks.get("%s percent of peak by device" % w) == len(ids),
              "%s: %s percent-of-peak bars" % (w, peaks))
        check('id="%s"' % w in page, "no section for %s" % w)
    for key in ("Commit", "Kernel", "CPU", "Operating system"):
        check("<dt>%s</dt>" % key in page, "no %s in the run's facts" % key)


def png_pixels(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA
    PNG, as Chromium writes its screenshots."""
    with open(path, "rb") as file:
        data = file.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    at, idat, width = 8, b"", 0
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(
                ">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise ValueError("a PNG of depth %d, colour type %d" %
                                 (depth, colour))
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                guess = left + up - corner
                near = min((abs(guess - left), 0), (abs(guess - up), 1),
                           (abs(guess - corner), 2))[1]
                line[i] = (line[i] + (left, up, corner)[near]) & 255
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride,
                                                          channels)])
        previous = line
    return width, height, rows


def check_drawn(page_path, work):
    browser = next((shutil.which(name) for name in
                    ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(name)), None)
    if not browser:
        return "no Chromium (chromium, chromium-browser or google-chrome)"
    shot = os.path.join(work, "report.png")
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu",
         "--hide-scrollbars", "--screenshot=" + shot,
         "--window-size=1200,1400", "file://" + page_path],
        capture_output=True, text=True, timeout=180, cwd=work)
    check(done.returncode == 0 and os.path.isfile(shot),
          "chromium drew nothing: %s" % done.stderr[-2000:])
    if not os.path.isfile(shot):
        return None
    width, height, rows = png_pixels(shot)
    check((width, height) == (1200, 1400), "a %dx%d shot" % (width, height))
    counts = {}
    for row in rows[::2]:
        for pixel in row[::2]:
            counts[pixel] = counts.get(pixel, 0) + 1
    total = sum(counts.values())
    background = max(counts.values())
    check(len(counts) >= 32, "%d colours: a blank page?" % len(counts))
    check((total - background) / total >= 0.10,
          "%.1f%% of the shot is not its background" %
          (100 * (total - background) / total))
    check(counts.get(FIRST_COLOUR, 0) >= 200,
          "the first device's bars are not drawn (%d pixels of #4e79a7)" %
          counts.get(FIRST_COLOUR, 0))
    return None


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    clkit = os.path.abspath(sys.argv[1])
    ids = devices(clkit)
    workloads = ["selfcheck", "pso", "ga", "aco", "nn", "gas"]
    with tempfile.TemporaryDirectory(prefix="clkit-report-") as work:
        page_path = os.path.join(work, "r.html")
        environment = dict(os.environ, CLKIT_PEAKS_FOR_TESTS="50,200,100")
        done = subprocess.run(
            [clkit, "bench", "--device", ",".join(ids), "--size", "small",
             "--report", page_path, "--quiet"],
            capture_output=True, text=True, env=environment, timeout=900)
        check(done.returncode == 0, "bench exited %d: %s" %
              (done.returncode, done.stderr[-2000:]))
        if not os.path.isfile(page_path):
            check(False, "no report at %s" % page_path)
            return 1
        with open(page_path, encoding="utf-8") as file:
            check_page(file.read(), workloads, ids)
        skipped = check_drawn(page_path, work) if not failures else None
    if failures:
        return 1
    if skipped:
        print("skipped: " + skipped)
        return 77
    print("the report of %s holds its bars and draws" % ", ".join(ids))
    return 0


if __name__ == "__main__":
    sys.exit(main())
