#!/usr/bin/env python3
"""Makes clkit's man page and bash completion from the command's own help.

usage: help_pages.py man|completion CLKIT OUTPUT

CLKIT is the built command. Every command's and workload's --help text is
read from it, so that neither file can drift from what `clkit help` says:
the man page holds each text, and the completion each option.
"""
import re
import subprocess
import sys

# The man page's NAME line, which no help text holds.
NAME_LINE = (r"clkit \- run GPU compute workloads and check each device "
             r"against ref")

# An option's value that names a file: completed with file names.
FILE_VALUE = re.compile(r"FILE|\.tsp|\.tour")
# An option's name in a help line.
OPTION_NAME = re.compile(r"--[A-Za-z0-9][A-Za-z0-9-]*")


def help_text(clkit, *arguments):
    return subprocess.run([clkit, *arguments], check=True,
                          capture_output=True, text=True).stdout


def section(text, title):
    """The lines under a line `title:` up to the next blank line."""
    lines = text.splitlines()
    start = lines.index(title + ":") + 1
    found = []
    for line in lines[start:]:
        if not line.strip():
            break
        found.append(line)
    return found


def listed(text, title):
    """(name, arguments) of each entry of a section such as Commands."""
    entries = []
    for line in section(text, title):
        if line.startswith("  ") and not line.startswith("   "):
            left = re.split(r"\s{2,}", line.strip())[0].split()
            entries.append((left[0], left[1:]))
    return entries


# ---- the help's items ------------------------------------------------------


def parse(text):
    """A help text as blocks: ("usage", lines), ("heading", text),
    ("item", left, description), ("paragraph", text), ("example", lines)."""
    blocks = []
    lines = text.splitlines()
    i = 0
    in_examples = False
    item_indent = None
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        i += 1
        if not stripped:
            item_indent = None
            continue
        if line.startswith("usage:"):
            usage = [line.rstrip()]
            while i < len(lines) and re.match(r"\s+clkit ", lines[i]):
                usage.append(lines[i].rstrip())
                i += 1
            blocks.append(("usage", usage))
            continue
        if indent == 0 and stripped.endswith(":") and len(stripped) < 40:
            in_examples = stripped == "Examples:"
            blocks.append(("heading", stripped))
            item_indent = None
            continue
        if in_examples and indent > 0:
            if blocks[-1][0] != "example":
                blocks.append(("example", []))
            blocks[-1][1].append(stripped)
            continue
        gap = re.search(r"\S(\s{2,})\S", stripped)
        starts_item = indent > 0 and (
            (indent <= 8 and stripped.startswith("-"))
            or (indent <= 4 and gap is not None))
        if starts_item:
            if gap:
                left = stripped[:gap.start(1)]
                description = stripped[gap.end(1):]
            else:
                left, description = stripped, ""
            blocks.append(["item", left, description])
            item_indent = indent
            continue
        if item_indent is not None and indent > item_indent:
            block = blocks[-1]
            block[2] = (block[2] + " " + stripped).strip()
            continue
        if blocks and blocks[-1][0] == "paragraph" and item_indent is None:
            blocks[-1] = ("paragraph", blocks[-1][1] + " " + stripped)
        else:
            blocks.append(("paragraph", stripped))
            item_indent = None
    return blocks


def options_of(text):
    """The options a help text lists, and those its usage lines name:
    (names, value) of each, value None for a flag."""
    found = []
    usage = []
    for block in parse(text):
        if block[0] == "usage":
            usage += block[1]
        if block[0] != "item" or not block[1].startswith("-"):
            continue
        names = OPTION_NAME.findall(block[1])
        words = [w for w in block[1].replace(",", " ").split()
                 if not w.startswith("-")]
        found.append((names, words[-1] if words else None))
    listed = {name for names, _ in found for name in names}
    for line in usage:
        for match in re.finditer(r"(--[A-Za-z0-9-]+)(?: ([A-Z][^ \]|]*))?",
                                 line):
            if match.group(1) not in listed:
                found.append(([match.group(1)], match.group(2)))
                listed.add(match.group(1))
    return found


# ---- the man page ---------------------------------------------------------


def roff(text):
    """Text escaped for roff, within a line."""
    return text.replace("\\", "\\e").replace("-", "\\-")


def roff_line(text):
    """A line of text that roff will not read as a request."""
    text = roff(text)
    return "\\&" + text if text[:1] in (".", "'") else text


def roff_left(left):
    """An item's left column: option names bold, values italic."""
    words = []
    for word in left.split(" "):
        if word.startswith("-"):
            words.append("\\fB" + roff(word) + "\\fR")
        elif word:
            words.append("\\fI" + roff(word) + "\\fR")
    return " ".join(words)


def man_blocks(blocks, skip_usage=False):
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "usage":
            if skip_usage:
                continue
            out.append(".PP")
            out.append(".nf")
            out.extend(roff_line(line) for line in block[1])
            out.append(".fi")
        elif kind == "heading":
            out.append(".PP")
            out.append("\\fB" + roff(block[1]) + "\\fR")
        elif kind == "item":
            out.append(".TP")
            out.append(roff_left(block[1]))
            if block[2]:
                out.append(roff_line(block[2]))
        elif kind == "paragraph":
            out.append(".PP")
            out.append(roff_line(block[1]))
        elif kind == "example":
            out.append(".PP")
            out.append(".RS")
            out.append(".nf")
            out.extend(roff_line(line) for line in block[1])
            out.append(".fi")
            out.append(".RE")
    return out


def man_page(version, main_help, commands, workloads):
    out = [
        '.TH CLKIT 1 "" "%s" "User Commands"' % roff(version),
        ".SH NAME",
        NAME_LINE,
        ".SH SYNOPSIS",
        ".B clkit",
        ".I command",
        ".RI [ options ]",
        ".SH DESCRIPTION",
    ]
    out += man_blocks(parse(main_help), skip_usage=True)
    out.append(".SH COMMANDS")
    for name, text in commands:
        out.append('.SS "clkit %s"' % roff(name))
        out += man_blocks(parse(text))
    out.append(".SH WORKLOADS")
    out.append(".PP")
    out.append("Each runs as \\fBclkit run\\fR \\fIworkload\\fR or "
               "\\fBclkit compare\\fR \\fIworkload\\fR, with the common "
               "options of \\fBclkit run\\fR and its own.")
    for name, text in workloads:
        blocks = parse(text)
        # The common options stand once, under clkit run.
        start = next(k for k, block in enumerate(blocks)
                     if block[0] == "heading" and block[1].startswith(
                         "Options of "))
        out.append('.SS "%s"' % roff(name))
        out += man_blocks(blocks[start:])
    out.append(".SH SEE ALSO")
    out.append("The README and docs/ of clkit's sources.")
    return "\n".join(out) + "\n"


# ---- the bash completion --------------------------------------------------


def shell_words(words):
    return " ".join(sorted(set(words)))


def completion(commands, workloads, arguments, options, kernels):
    """options: {key: [(names, value)]}, key a command or "run W"."""
    lines = [
        "# bash completion for clkit, made from its help texts by",
        "# tools/help_pages.py at build time.",
        "_clkit_commands='%s'" % " ".join(name for name, _ in commands),
        "_clkit_workloads='%s'" % " ".join(workloads),
        "_clkit_kernels='%s'" % " ".join(kernels),
        "declare -gA _clkit_options=() _clkit_values=() _clkit_files=()",
        "declare -gA _clkit_arguments=()",
    ]
    for key in sorted(options):
        names, values, files = [], [], []
        for option_names, value in options[key]:
            names += option_names
            if value:
                values += option_names
                if FILE_VALUE.search(value):
                    files += option_names
        for table, words in (("options", names), ("values", values),
                             ("files", files)):
            lines.append("_clkit_%s[%r]='%s'" % (table, key,
                                                 shell_words(words)))
    for key in sorted(arguments):
        lines.append("_clkit_arguments[%r]='%s'"
                     % (key, " ".join(arguments[key])))
    lines.append(r'''
_clkit() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local key=${COMP_WORDS[1]} first=2
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    mapfile -t COMPREPLY < <(compgen -W "$_clkit_commands" -- "$cur")
    return 0
  fi
  if [[ $key == run || $key == compare ]]; then
    if ((COMP_CWORD == 2)); then
      mapfile -t COMPREPLY < <(compgen -W "$_clkit_workloads" -- "$cur")
      return 0
    fi
    key="run ${COMP_WORDS[2]}"
    first=3
  fi
  if [[ " ${_clkit_files[$key]} " == *" $prev "* ]]; then
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    return 0
  fi
  if [[ " ${_clkit_values[$key]} " == *" $prev "* ]]; then
    return 0
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${_clkit_options[$key]}" -- "$cur")
    return 0
  fi
  if ((COMP_CWORD == first)) && [[ -n ${_clkit_arguments[$key]} ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${_clkit_arguments[$key]}" -- "$cur")
    return 0
  fi
  if [[ $key == kernels && ${COMP_WORDS[COMP_CWORD-1]} == show ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$_clkit_kernels" -- "$cur")
    return 0
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _clkit clkit''')
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("man", "completion"):
        sys.exit(__doc__.strip().splitlines()[2])
    kind, clkit, path = sys.argv[1:]
    main_help = help_text(clkit, "help")
    commands = listed(main_help, "Commands")
    workloads = [name for name, _ in listed(main_help, "Workloads")]
    command_help = [(name, help_text(clkit, "help", name))
                    for name, _ in commands if name != "help"]
    workload_help = [(name, help_text(clkit, "run", name, "--help"))
                     for name in workloads]
    if kind == "man":
        text = man_page(help_text(clkit, "version").strip(), main_help,
                        command_help, workload_help)
    else:
        kernels = [line.split()[0] for line in
                   help_text(clkit, "kernels", "list").splitlines()]
        # A command's arguments: choices such as [info|clear] or eval|info.
        arguments = {}
        for name, words in commands:
            choices = []
            for word in words:
                if word == "[command]":
                    choices += [other for other, _ in commands]
                    continue
                choices += [c for c in word.strip("[]").split("|")
                            if re.fullmatch(r"[a-z]+", c)]
            if choices:
                arguments[name] = choices
        options = {name: options_of(text) for name, text in command_help}
        for name, text in workload_help:
            options["run " + name] = options_of(text)
        text = completion(commands, workloads, arguments, options, kernels)
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)


if __name__ == "__main__":
    main()
