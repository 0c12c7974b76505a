#!/usr/bin/env python3
"""architecture_check - holds docs/architecture.md to the tree.

usage: architecture_check.py SOURCE_ROOT [STATIC_LIBRARY]

- Files: every file the document's tables name exists, and every file
  under src/, tools/ and python/ext/ (but meson.build files) is named.
  A name in a table resolves against the folder its section's heading
  gives in parentheses, or against the last path named before it in the
  same row. `<w>` stands for each workload folder the row's last cell
  lists, or where it lists none, for every workload's.
- Includes: src/util includes no header of the rooms above it,
  src/runtime none of the framework's or a workload's, src/framework
  none of a workload's; no workload includes another's, and the rooms
  that serve them (SHARED) include no workload's.
- Calls (with STATIC_LIBRARY, through nm): no object uses a symbol
  defined in a room above its own, but the framework the registry's
  table; no workload uses another's symbols.
- State (with STATIC_LIBRARY, through objdump): every writable or
  thread-local variable of the library's objects is named in the tables
  under "The library's own state", and every name there is in its file.
- Build conditionals: the files outside src/runtime that test CK_HAVE_*
  are those the "Build conditionals" table names.
- The environment: every CLKIT_* variable named in src/ is on the page.
- Backends: no file of a workload's or of the rooms that serve them
  tests a backend (CK_BACKEND_...) or calls CUDA's internals
  (ck__cuda_...), but their backend files (*_cuda.c, *_opencl.c,
  *_ref.c) and those in BACKEND_NAMES, each at most its ceiling there
  (a ratchet, as OVER's).
- Sizes: no file under src/ or cl/ over 900 lines, none under tools/
  over 1,000, but those in OVER, each at most its ceiling there. A file
  in OVER that is back within the limit fails too, so the list stays
  exact.
- Functions: no function of a .c file under src/ or tools/ over 80
  lines, from its signature's first line to its closing brace, but
  those in LONG, each at most its ceiling there (a ratchet, as OVER's).
- Spreads: each workload's spread-specific files (SPREAD_FILES: what
  only a run of several members does) hold at most SPREAD_LIMIT lines
  together (SPREAD_LIMITS for the gas, with its halo), but those in
  SPREAD_OVER, each at most its ceiling there (a ratchet, as OVER's).
  `--spread-files SOURCE_ROOT WORKLOAD` prints a workload's files.

Exit status 0 when all holds, 1 otherwise, 2 on a usage error.
"""
import fnmatch
import os
import re
import shutil
import subprocess
import sys

DOC = os.path.join("docs", "architecture.md")
LAYERS = ("util", "runtime", "framework")
# The rooms that serve the workloads; every other folder of src/ that is
# not a layer is a workload's.
SHARED = ("objectives", "lsq", "tsp")
# Files a table need not name: the build's.
UNNAMED = ("meson.build",)
# Where every file must be named in a table.
NAMED_ROOTS = ("src", "tools", os.path.join("python", "ext"))
# A table's name that is a path from the root when it begins so.
TOP = ("src/", "tools/", "python/", "cl/", "tests/", "include/", "bench/",
       "examples/", "fuzz/", "docs/", ".ci/")
FILE_NAME = re.compile(r"^[\w<>.*/-]+\.(c|h|cu|cl|inc|py|sh|in|map|md)$")

LIMITS = {"src": 900, "cl": 900, "tools": 1000}
# The files over their limit, each with its size as a ceiling. Split a
# file to take it off; a file may shrink, never grow.
OVER = {}

FUNCTION_LIMIT = 80
FUNCTION_ROOTS = ("src", "tools")
# The functions over FUNCTION_LIMIT lines, "file:name", each with its
# length as a ceiling. Shorten one to take it off; one may shrink, never
# grow.
LONG = {}
# A definition's first line: at column 0, a name followed by '('.
DEFINITION = re.compile(r"^(?:[A-Za-z_][\w \t*]*?[\s*])?([A-Za-z_]\w*)\s*\(")
# Lines at column 0 inside a body: preprocessor lines, comments, labels.
BODY_COLUMN_0 = re.compile(r"^(#|/\*|\*|//|\w+:\s*($|//|/\*))")

# Each workload's spread-specific files, as patterns in its folder.
SPREAD_FILES = {
    "pso": ("pso_spread.c",),
    "ga": ("ga_spread.c",),
    "aco": ("aco_spread.c",),
    "nn": ("nn_spread.c",),
    "gas": ("gas_spread*.c", "gas_spread_internal.h", "gas_member*.c"),
}
SPREAD_LIMIT = 400
SPREAD_LIMITS = {"gas": 900}
# The workloads whose spread-specific files are over their limit, each
# with their lines as a ceiling that may only come down.
SPREAD_OVER = {"gas": 2138}

# Workload files that still name a backend, each with its count of
# CK_BACKEND_... and ck__cuda_... as a ceiling: what they need belongs in
# the runtime's capability queries or in their backend files.
BACKEND_NAMES = {}
BACKEND_NAME = re.compile(r"\bCK_BACKEND_[A-Z]+|\bck__cuda_\w+")
BACKEND_FILE = re.compile(r"_(cuda|opencl|ref)\.(c|h)$")

CONDITIONAL = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif)\b.*\bCK_HAVE_")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE = (".c", ".h", ".cu")

failures = []


def fail(message):
    failures.append(message)


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def line_count(text):
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def files_under(root, top):
    """Paths from root of the files under top, but hidden ones and caches."""
    found = []
    for folder, folders, names in os.walk(os.path.join(root, top)):
        folders[:] = sorted(d for d in folders
                            if not d.startswith(".") and d != "__pycache__")
        for name in sorted(names):
            if not name.startswith("."):
                found.append(os.path.relpath(os.path.join(folder, name), root))
    return found


def rooms(root):
    src = os.path.join(root, "src")
    return sorted(d for d in os.listdir(src)
                  if os.path.isdir(os.path.join(src, d)))


# ---- the document's tables ------------------------------------------------

def sections(text):
    """(heading, folder, lines) of each section; a ### section keeps its
    ## section's folder unless its heading gives one."""
    out = []
    folder = ""
    heading = ""
    lines = []
    for line in text.splitlines():
        match = re.match(r"^(#{2,3}) (.*)$", line)
        if match:
            out.append((heading, folder, lines))
            heading, lines = match.group(2), []
            given = re.search(r"\(([^()]*/[^()]*)\)\s*$", heading)
            if given:
                folder = given.group(1).rstrip("/") + "/"
            elif match.group(1) == "##":
                folder = ""
            continue
        lines.append(line)
    out.append((heading, folder, lines))
    return out


def table_rows(lines):
    """The cells of each table row, header and separator rows left out."""
    header = True
    for line in lines:
        if not line.startswith("|"):
            header = True
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if header:
            header = False
            continue
        if all(re.fullmatch(r":?-+:?", cell) for cell in cells):
            continue
        yield cells


def resolve_row(cells, folder):
    """The paths a row's file names resolve to, with <w> left in."""
    paths = []
    for cell in cells:
        for token in re.findall(r"`([^`]+)`", cell):
            if token.startswith("clkit/") and FILE_NAME.match(token):
                paths.append("include/" + token)
                continue
            if not (FILE_NAME.match(token) or
                    (token.endswith("/") and token.startswith(TOP))):
                continue
            if token.startswith(TOP):
                path = token
                folder = token if token.endswith("/") else \
                    token.rsplit("/", 1)[0] + "/"
            else:
                path = folder + token
            paths.append(path)
    return paths


def expand(path, workloads):
    return [path.replace("<w>", w) for w in workloads] if "<w>" in path \
        else [path]


def workload_folders(root):
    return [room for room in rooms(root)
            if os.path.isfile(os.path.join(root, "src", room,
                                           room + "_workload.c"))]


def row_workloads(root, cells):
    """The folders <w> stands for in a row: those its last cell lists,
    else every workload's."""
    listed = [w.strip() for w in cells[-1].split(",")]
    if all(re.fullmatch(r"[a-z]+", w) and
           os.path.isdir(os.path.join(root, "src", w)) for w in listed):
        return listed
    return workload_folders(root)


def check_files(root, text):
    named = set()
    for heading, folder, lines in sections(text):
        for cells in table_rows(lines):
            paths = resolve_row(cells, folder)
            workloads = row_workloads(root, cells)
            for path in paths:
                for each in expand(path, workloads):
                    if not os.path.exists(os.path.join(root, each)):
                        fail("%s (%s): names %s, which does not exist"
                             % (DOC, heading, each))
                    named.add(each.rstrip("/"))
    for top in NAMED_ROOTS:
        for path in files_under(root, top):
            if os.path.basename(path) in UNNAMED:
                continue
            if path not in named:
                fail("%s is named in no table of %s" % (path, DOC))
    return named


# ---- includes -------------------------------------------------------------

def check_includes(root):
    all_rooms = rooms(root)
    workloads = [r for r in all_rooms if r not in LAYERS and r not in SHARED]
    for shared in SHARED:
        if shared not in all_rooms:
            fail("src/%s/, a room SHARED names, does not exist" % shared)
    above = {
        "util": set(all_rooms) - {"util"},
        "runtime": set(all_rooms) - {"util", "runtime"},
        "framework": set(workloads) | set(SHARED),
    }
    for room in all_rooms:
        if room in above:
            refused = above[room]
        elif room in SHARED:
            refused = set(workloads)
        else:
            refused = set(workloads) - {room}
        for path in files_under(root, os.path.join("src", room)):
            if not path.endswith(SOURCE):
                continue
            for header in INCLUDE.findall(read(os.path.join(root, path))):
                if header.split("/")[0] in refused:
                    fail('%s includes "%s": src/%s/ may not include from '
                         "src/%s/" % (path, header, room, header.split("/")[0]))


# ---- the library's objects --------------------------------------------------

def object_sources(root):
    """Object name (meson's: the path from src/ with / as _) -> source."""
    sources = {}
    for path in files_under(root, "src"):
        if path.endswith((".c", ".cu")):
            inside = os.path.relpath(path, "src")
            sources[inside.replace(os.sep, "_") + ".o"] = path
    return sources


def room_of(path):
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 else "registry"


def check_calls(root, library):
    nm = shutil.which("nm")
    if not nm:
        print("SKIP calls: no nm")
        return
    out = subprocess.run([nm, "-A", "-P", library], check=True,
                         capture_output=True, text=True).stdout
    sources = object_sources(root)
    defined, used, seen = {}, [], set()
    for line in out.splitlines():
        match = re.match(r"^.*\[([^\]]+)\]: (\S+) (\S)", line)
        if not match:
            continue
        obj, symbol, kind = match.groups()
        source = sources.get(obj)
        if not source:
            continue
        room = room_of(source)
        seen.add(room)
        if kind == "U":
            used.append((source, room, symbol))
        elif kind.isupper():
            defined.setdefault(symbol, (source, room))
    all_rooms = rooms(root)
    workloads = [r for r in all_rooms if r not in LAYERS and r not in SHARED]
    for room in list(LAYERS) + ["registry"] + workloads:
        if room not in seen:
            fail("%s holds no object of src/%s: its objects are not named "
                 "as this check reads them" % (library, room))

    def rank(room):
        return LAYERS.index(room) if room in LAYERS else \
            4 if room == "registry" else 3

    for source, room, symbol in used:
        if symbol not in defined:
            continue
        where, other = defined[symbol]
        if rank(other) > rank(room):
            if room == "framework" and other == "registry" and \
                    symbol in ("ck__workloads", "ck__workload_count"):
                continue
            fail("%s uses %s of %s, a room above its own" %
                 (source, symbol, where))
        elif other in workloads and other != room and \
                (room in workloads or room in SHARED):
            fail("%s uses %s of %s, another workload's" %
                 (source, symbol, where))


WRITABLE = re.compile(r"^\.(data|bss|tbss|tdata)\b(?!\.rel\.ro)|^\*COM\*$")


def state_name(symbol):
    if "compound_literal" in symbol or "compoundliteral" in symbol:
        return "CK__OPTIONS_SHOWN"
    parts = [part for part in symbol.split(".") if part and
             not part.isdigit()]
    return parts[-1] if parts else symbol


def documented_state(root, text):
    """{source path: [names]} from the tables of the state's section."""
    listed = {}
    inside = False
    for heading, _, lines in sections(text):
        if heading == "The library's own state":
            inside = True
        elif inside and not heading.startswith("The library"):
            # The tables run until the next heading of the page.
            break
        if not inside:
            continue
        for cells in table_rows(lines):
            paths = re.findall(r"`([^`]+)`", cells[0])
            names = re.findall(r"`([^`]+)`", cells[1])
            for path in paths:
                for each in expand(path, row_workloads(root, cells)):
                    listed.setdefault(each, []).extend(names)
    if not listed:
        fail("%s has no tables under \"The library's own state\"" % DOC)
    return listed


def check_state(root, library, text):
    listed = documented_state(root, text)
    for path, names in sorted(listed.items()):
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            fail("%s: the state of %s, which does not exist" % (DOC, path))
            continue
        source = read(full)
        for name in names:
            if not re.search(r"\b" + re.escape(name.split("*")[0]), source):
                fail("%s: %s keeps no %s, which the state's tables name" %
                     (DOC, path, name))
    objdump = shutil.which("objdump")
    if not objdump:
        print("SKIP state: no objdump")
        return
    out = subprocess.run([objdump, "-t", library], check=True,
                         capture_output=True, text=True).stdout
    # AddressSanitizer pads every global, constants too, into writable
    # sections: there the symbols cannot tell state from tables.
    if "__odr_asan" in out or "__asan_" in out:
        print("SKIP state's symbols: a build under AddressSanitizer")
        return
    sources = object_sources(root)
    obj = None
    for line in out.splitlines():
        head = re.match(r"^(\S+\.o):\s+file format", line)
        if head:
            obj = head.group(1)
            continue
        match = re.match(r"^[0-9a-f]+ (.{7}) (\S+)\s+[0-9a-f]+\s+(\S+)$", line)
        if not match or obj is None or "O" not in match.group(1):
            continue
        section, symbol = match.group(2), match.group(3)
        if not WRITABLE.match(section) or obj.endswith(".cu.o"):
            continue
        source = sources.get(obj)
        name = state_name(symbol)
        if not source:
            fail("%s: %s holds %s (%s), but is no file of src/" %
                 (library, obj, symbol, section))
        elif not any(fnmatch.fnmatchcase(name, pattern)
                     for pattern in listed.get(source, [])):
            fail("%s keeps %s (%s), which %s's tables of state do not name"
                 % (source, name, section, DOC))


# ---- conditionals, the environment, sizes -----------------------------------

def check_conditionals(root, text):
    holding = set()
    for path in files_under(root, "src"):
        if path.startswith(os.path.join("src", "runtime")) or \
                not path.endswith(SOURCE):
            continue
        if any(CONDITIONAL.match(line)
               for line in read(os.path.join(root, path)).splitlines()):
            holding.add(path)
    listed = set()
    for heading, _, lines in sections(text):
        if heading == "Build conditionals":
            for cells in table_rows(lines):
                listed.update(re.findall(r"`([^`]+\.[ch])`", cells[0]))
    for path in sorted(holding - listed):
        fail("%s tests CK_HAVE_*, but %s's Build conditionals do not name "
             "it" % (path, DOC))
    for path in sorted(listed - holding):
        fail("%s's Build conditionals name %s, which tests no CK_HAVE_*" %
             (DOC, path))


def check_environment(root, text):
    for path in files_under(root, "src"):
        if not path.endswith(SOURCE):
            continue
        for name in set(re.findall(r'"(CLKIT_[A-Z_]+)"',
                                   read(os.path.join(root, path)))):
            if "`%s`" % name not in text:
                fail("%s reads %s, which %s does not name" %
                     (path, name, DOC))


def check_backends(root):
    counted = {}
    for path in files_under(root, "src"):
        parts = path.split(os.sep)
        if len(parts) < 3 or parts[1] in LAYERS or \
                not path.endswith((".c", ".h")) or BACKEND_FILE.search(path):
            continue
        names = len(BACKEND_NAME.findall(read(os.path.join(root, path))))
        if names:
            counted[path.replace(os.sep, "/")] = names
    for path, names in sorted(counted.items()):
        ceiling = BACKEND_NAMES.get(path, 0)
        if names > ceiling:
            fail("%s names a backend %d times (ceiling %d): ask the "
                 "runtime's capability queries, or move it to a backend "
                 "file" % (path, names, ceiling))
        elif names < ceiling:
            print("note: %s names a backend %d times; its ceiling in "
                  "BACKEND_NAMES may come down from %d" %
                  (path, names, ceiling))
    for path in sorted(set(BACKEND_NAMES) - set(counted)):
        fail("%s names no backend: take it off BACKEND_NAMES" % path)


def check_sizes(root):
    for top, limit in LIMITS.items():
        for path in files_under(root, top):
            try:
                lines = line_count(read(os.path.join(root, path)))
            except UnicodeDecodeError:
                continue
            ceiling = OVER.get(path)
            if ceiling is None:
                if lines > limit:
                    fail("%s is %d lines, over the %d of %s/: split it" %
                         (path, lines, limit, top))
            elif lines > ceiling:
                fail("%s grew to %d lines, past its ceiling of %d (the "
                     "limit of %s/ is %d)" % (path, lines, ceiling, top,
                                              limit))
            elif lines <= limit:
                fail("%s is %d lines, within the %d of %s/: take it off "
                     "OVER" % (path, lines, limit, top))
            elif lines < ceiling:
                print("note: %s is %d lines; its ceiling in OVER may come "
                      "down from %d" % (path, lines, ceiling))
    for path in sorted(OVER):
        if not os.path.isfile(os.path.join(root, path)):
            fail("%s, in OVER, does not exist: take it off" % path)


def spread_files(root, workload):
    folder = os.path.join(root, "src", workload)
    names = sorted(os.listdir(folder))
    return [os.path.join("src", workload, name) for name in names
            if any(fnmatch.fnmatch(name, pattern)
                   for pattern in SPREAD_FILES[workload])]


def check_spreads(root):
    for workload in sorted(SPREAD_FILES):
        paths = spread_files(root, workload)
        if not paths:
            fail("src/%s has no spread-specific files: fix SPREAD_FILES" %
                 workload)
            continue
        lines = sum(line_count(read(os.path.join(root, path)))
                    for path in paths)
        limit = SPREAD_LIMITS.get(workload, SPREAD_LIMIT)
        ceiling = SPREAD_OVER.get(workload)
        if ceiling is None:
            if lines > limit:
                fail("%s's spread-specific files are %d lines, over %d" %
                     (workload, lines, limit))
        elif lines > ceiling:
            fail("%s's spread-specific files grew to %d lines, past their "
                 "ceiling of %d (the limit is %d)" %
                 (workload, lines, ceiling, limit))
        elif lines <= limit:
            fail("%s's spread-specific files are %d lines, within %d: take "
                 "it off SPREAD_OVER" % (workload, lines, limit))
        elif lines < ceiling:
            print("note: %s's spread-specific files are %d lines; its "
                  "ceiling in SPREAD_OVER may come down from %d" %
                  (workload, lines, ceiling))


def functions(text):
    """(name, first line, lines) of each function definition in a C file
    laid out as clang-format lays it out: a signature from column 0 to a
    line ending in '{', a body closed by '}' alone at column 0."""
    lines = text.split("\n")
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = DEFINITION.match(line)
        if (not match or line.startswith(("typedef", "struct", "enum",
                                          "union", "#", "}"))
                or line.rstrip().endswith(";")):
            i += 1
            continue
        j = i
        while j < len(lines) and not lines[j].rstrip().endswith(("{", ";")):
            j += 1
        if j == len(lines) or not lines[j].rstrip().endswith("{"):
            i += 1
            continue
        k = j + 1
        while (k < len(lines) and lines[k] != "}" and
               (not lines[k] or lines[k][0].isspace() or
                BODY_COLUMN_0.match(lines[k]))):
            k += 1
        if k < len(lines) and lines[k] == "}":
            found.append((match.group(1), i + 1, k - i + 1))
            i = k + 1
        else:
            i += 1
    return found


def check_functions(root):
    seen = set()
    for top in FUNCTION_ROOTS:
        for path in files_under(root, top):
            if not path.endswith(".c"):
                continue
            path = path.replace(os.sep, "/")
            for name, at, length in functions(read(os.path.join(root,
                                                                path))):
                key = "%s:%s" % (path, name)
                seen.add(key)
                ceiling = LONG.get(key)
                if ceiling is None:
                    if length > FUNCTION_LIMIT:
                        fail("%s:%d: %s is %d lines, over %d: shorten it" %
                             (path, at, name, length, FUNCTION_LIMIT))
                elif length > ceiling:
                    fail("%s:%d: %s grew to %d lines, past its ceiling of "
                         "%d" % (path, at, name, length, ceiling))
                elif length <= FUNCTION_LIMIT:
                    fail("%s: %s is %d lines: take it off LONG" %
                         (path, name, length))
                elif length < ceiling:
                    print("note: %s is %d lines; its ceiling in LONG may "
                          "come down from %d" % (key, length, ceiling))
    for key in sorted(set(LONG) - seen):
        fail("%s, in LONG, is no function there: take it off" % key)


def main(argv):
    if len(argv) == 4 and argv[1] == "--spread-files":
        if argv[3] not in SPREAD_FILES:
            print("no workload %s: one of %s" %
                  (argv[3], " ".join(sorted(SPREAD_FILES))), file=sys.stderr)
            return 2
        print("\n".join(spread_files(argv[2], argv[3])))
        return 0
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root = argv[1]
    text = read(os.path.join(root, DOC))
    checks = [("files", lambda: check_files(root, text)),
              ("includes", lambda: check_includes(root)),
              ("conditionals", lambda: check_conditionals(root, text)),
              ("environment", lambda: check_environment(root, text)),
              ("backends", lambda: check_backends(root)),
              ("sizes", lambda: check_sizes(root)),
              ("functions", lambda: check_functions(root)),
              ("spreads", lambda: check_spreads(root))]
    if len(argv) == 3:
        checks += [("calls", lambda: check_calls(root, argv[2])),
                   ("state", lambda: check_state(root, argv[2], text))]
    else:
        print("SKIP calls and state: no static library given")
    for name, check in checks:
        before = len(failures)
        check()
        print("%s: %s" % (name, "ok" if len(failures) == before else
                          "%d failures" % (len(failures) - before)))
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
