#!/usr/bin/env python3
"""test_help_files - the man page and the bash completion that the build
makes from clkit's help (tools/help_pages.py): the page is valid roff and
covers every command, workload and workload option; the completion offers
commands, workloads, each workload's options and file names for files.

usage: test_help_files.py CLKIT MAN_PAGE COMPLETION
Exit status 0 on success, 1 on a failure; a part whose tool (groff, bash)
is missing is skipped with a printed reason.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = 0


def check(condition, message):
    global failures
    if not condition:
        failures += 1
        print("FAIL: " + message)


def output(*command):
    return subprocess.run(command, check=True, capture_output=True,
                          text=True).stdout


def entries(help_text, title):
    """First words of the entries under a line `title:`."""
    lines = help_text.splitlines()
    names = []
    for line in lines[lines.index(title + ":") + 1:]:
        if not line.strip():
            break
        if re.match(r"  \S", line):
            names.append(line.split()[0])
    return names


def workload_options(clkit, workload):
    """The option names a workload's help lists under its own options."""
    text = output(clkit, "run", workload, "--help")
    own = text[text.index("Options of %s:" % workload):]
    return re.findall(r"^  (--[a-z0-9-]+)", own, re.M)


def check_man(clkit, page, commands, workloads):
    check(os.path.isfile(page), "%s was not made" % page)
    if not os.path.isfile(page):
        return
    with open(page, encoding="utf-8") as file:
        text = file.read()
    check(text.startswith(".TH CLKIT 1 "), "the page does not begin with .TH")
    for heading in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS",
                    "WORKLOADS"):
        check("\n.SH %s\n" % heading in text, "no .SH %s" % heading)
    for command in commands:
        if command != "help":
            check('\n.SS "clkit %s"\n' % command in text,
                  "command %s has no section" % command)
    for workload in workloads:
        check('\n.SS "%s"\n' % workload in text,
              "workload %s has no section" % workload)
        for option in workload_options(clkit, workload):
            check("\\fB%s\\fR" % option.replace("-", "\\-") in text,
                  "%s's option %s is not in the page" % (workload, option))
    groff = shutil.which("groff")
    if not groff:
        print("groff is not installed: the roff is not checked")
        return
    rendered = subprocess.run(
        [groff, "-man", "-Tutf8", "-ww", "-rLL=80n", page],
        capture_output=True, text=True)
    check(rendered.returncode == 0 and not rendered.stderr,
          "groff -man -ww: exit %d, warnings:\n%s" %
          (rendered.returncode, rendered.stderr))
    check("clkit run pso" in re.sub(r".\x08", "", rendered.stdout),
          "the rendered page lacks 'clkit run pso'")


def complete(completion, directory, cases):
    """COMPREPLY for each case (the words of a command line, the last being
    completed), from one bash that sources the completion."""
    script = ["source %s || exit 3" % shlex_quote(completion)]
    for words in cases:
        quoted = " ".join(shlex_quote(word) for word in words)
        script.append("COMP_WORDS=(%s); COMP_CWORD=%d; COMPREPLY=(); "
                      "_clkit; printf '%%s\\n' \"${COMPREPLY[@]}\"; "
                      "echo '--end--'" % (quoted, len(words) - 1))
    result = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                             "\n".join(script)], cwd=directory,
                            capture_output=True, text=True)
    check(result.returncode == 0 and not result.stderr,
          "bash: exit %d: %s" % (result.returncode, result.stderr))
    replies = result.stdout.split("--end--\n")[:len(cases)]
    check(len(replies) == len(cases),
          "%d replies for %d cases" % (len(replies), len(cases)))
    return [[word for word in reply.splitlines() if word]
            for reply in replies]


def shlex_quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def check_completion(clkit, completion, commands, workloads):
    check(os.path.isfile(completion), "%s was not made" % completion)
    if not os.path.isfile(completion):
        return
    if not shutil.which("bash"):
        print("bash is not installed: the completion is not checked")
        return
    with tempfile.TemporaryDirectory() as directory:
        open(os.path.join(directory, "fit.txt"), "w").close()
        os.mkdir(os.path.join(directory, "figures"))
        expected = [
            (["clkit", "run", "pso", "--pa"], ["--particles"]),
            (["clkit", "ca"], ["cache"]),
            (["clkit", ""], commands),
            (["clkit", "run", "g"], ["ga", "gas"]),
            (["clkit", "compare", ""], workloads),
            (["clkit", "run", "pso", "--out", "fi"], ["figures", "fit.txt"]),
            (["clkit", "run", "pso", "--dim", ""], []),
            (["clkit", "cache", ""], ["clear", "info"]),
            (["clkit", "gen", "lsq", "--co"], ["--coef"]),
            (["clkit", "kernels", "show", "selfch"], ["selfcheck.cl"]),
            (["clkit", "kernels", "show", "pso", "--as"], ["--assembled"]),
            (["clkit", "help", "dev"], ["devices"]),
        ]
        # Every option of every workload is among the completions of its
        # full name (--rdf also gives --rdf-bins).
        each = [["clkit", "run", workload, option] for workload in workloads
                for option in workload_options(clkit, workload)]
        replies = complete(completion, directory,
                           [words for words, _ in expected] + each)
        for (words, wanted), reply in zip(expected, replies):
            check(sorted(reply) == sorted(wanted),
                  "completing %s gave %s, not %s" %
                  (" ".join(words), reply, wanted))
        for words, reply in zip(each, replies[len(expected):]):
            check(words[-1] in reply, "completing %s gave %s" %
                  (" ".join(words), reply))
        check(len(each) > 100, "only %d workload options" % len(each))


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 1
    clkit, page, completion = (os.path.abspath(path) for path in sys.argv[1:])
    main_help = output(clkit, "help")
    commands = entries(main_help, "Commands")
    workloads = entries(main_help, "Workloads")
    check(len(commands) >= 10 and "run" in commands, "commands: %s" % commands)
    check("pso" in workloads, "workloads: %s" % workloads)
    check_man(clkit, page, commands, workloads)
    check_completion(clkit, completion, commands, workloads)
    print("%d failure%s" % (failures, "" if failures == 1 else "s"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
