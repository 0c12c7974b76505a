#!/usr/bin/env python3
"""docs_options_check - the defaults that the docs give for workload
options against those the command's --help shows, which come from the
option tables: every row of an option table (| `--a`, `--b` | A, B | ...)
and every "`--name VALUE` (default" in docs/WORKLOAD.md must give the
help's default; a flag's row says "off". A default written in other words
is not looked for: the docs say "clkit run WORKLOAD --help" instead.

usage: docs_options_check.py CLKIT DOCS_DIR
Exit status 0 when every default agrees, 1 otherwise.
"""
import os
import re
import subprocess
import sys

WORKLOADS = ("pso", "ga", "aco", "nn", "gas")


def help_defaults(clkit, workload):
    """Option name -> its default as --help shows it (None: no default)."""
    text = subprocess.run([clkit, "run", workload, "--help"], check=True,
                          capture_output=True, text=True).stdout
    own = text[text.index("Options of %s:" % workload):]
    entries = re.split(r"\n  (?=--)", own)
    defaults = {}
    for entry in entries[1:]:
        name = entry.split()[0]
        flat = " ".join(entry.split())
        match = re.search(r"\(default ([^()]*(?:\([^()]*\))?[^()]*)\)$",
                          flat.split("\n\n")[0].split(" Examples:")[0])
        defaults[name] = match.group(1) if match else None
    return defaults


def table_rows(text):
    """(names, defaults, line) of each row whose first cell names options."""
    for number, line in enumerate(text.splitlines(), 1):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 2:
            continue
        names = re.findall(r"`(--[a-z0-9-]+)`", cells[0])
        if not names or re.sub(r"[`\-a-z0-9, ]", "", cells[0]):
            continue
        values = [value.strip() for value in cells[1].split(",")]
        yield names, values, number


def default_mentions(text):
    """(name, value, line) of each "`--name` (default VALUE" and each
    "`--name VALUE` (default)"; in "`--name K` (default VALUE" K is the
    value's name."""
    flat = text.replace("\n", " ")
    pattern = r"`(--[a-z0-9-]+)(?: ([^`]+))?` \(default(?: ([^;,)]+))?[;,)]"
    for match in re.finditer(pattern, flat):
        line = text.count("\n", 0, match.start()) + 1
        value = match.group(3) or match.group(2) or ""
        yield match.group(1), value.strip(), line


def main():
    clkit, docs = sys.argv[1], sys.argv[2]
    failures = checked = 0
    for workload in WORKLOADS:
        path = os.path.join(docs, workload + ".md")
        with open(path, encoding="utf-8") as file:
            text = file.read()
        defaults = help_defaults(clkit, workload)
        found = []
        for names, values, line in table_rows(text):
            if len(values) != len(names):
                values = [", ".join(values)] * len(names)
            found += [(name, value, line) for name, value in zip(names, values)]
        found += list(default_mentions(text))
        for name, value, line in found:
            checked += 1
            if name not in defaults:
                failures += 1
                print("FAIL: %s:%d: %s is no option of %s" %
                      (path, line, name, workload))
                continue
            want = defaults[name]
            if want is None and value in ("off", ""):
                continue
            if value != want:
                failures += 1
                print("FAIL: %s:%d: %s's default is given as '%s'; --help "
                      "shows %s" % (path, line, name, value,
                                    "'%s'" % want if want else "none"))
    print("%d defaults checked, %d failures" % (checked, failures))
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
