#!/usr/bin/env python3
"""kernel_check.py - run a small workload under Oclgrind and fail on any
report of an out-of-bounds access, a data race, an uninitialised value or
a misused OpenCL API call.

usage: kernel_check.py [--oclgrind PATH] CLKIT_BINARY CASE
       kernel_check.py [--oclgrind PATH] --broken PROBE_BINARY NAME
       kernel_check.py --list | --list-broken

CASE names an entry of CASES below: the clkit arguments of a small run.
The script adds '--device oclgrind' (and '--quiet' to run and compare),
sets CLKIT_CACHE=0 so that every program is compiled by Oclgrind from
source, and runs the whole program under Oclgrind. Oclgrind's messages go
to a log file of their own (--log), apart from the program's output; any
message there fails the case.

--broken runs the negative cases: the probe program (tests/oclgrind/
oob_probe.c) runs deliberately broken kernel NAME from tests/oclgrind/
broken/NAME.cl, and the case passes only when the program itself succeeds
AND Oclgrind reports the kind of error listed for NAME in BROKEN. They
prove that the check can fail.

Exit status: 0 clean run (or, with --broken, the bug was caught); 1 an
Oclgrind report, a non-zero exit of the program, or (with --broken) a bug
that went unreported; 77 Oclgrind is not installed (meson's skip code);
99 a usage error of this script.
"""

# ---- the cases --------------------------------------------------------------
# One line a case: name -> clkit arguments, or -> (extra Oclgrind options,
# clkit arguments). Keep runs tiny: Oclgrind interprets every work-item.
CASES = {
    'selfcheck': ['run', 'selfcheck', '--count', '2000', '--passes', '2'],
    # A ragged count, small work-groups and few compute units: exercises
    # the tails, the strided fold and a group size of 64.
    'selfcheck-ragged': (['--max-wgsize', '64', '--compute-units', '3'],
                         ['run', 'selfcheck', '--count', '1001', '--passes', '1']),
    # PSO: gbest with the fused streamed step, the direct and the two-stage
    # reductions, the ring, each bounds mode, lsq in both evaluation modes
    # and a user objective with data. @DATA@ is tests/data.
    'pso-gbest': ['run', 'pso', '--fn', 'rastrigin', '--dim', '5',
                  '--particles', '37', '--iters', '4', '--move-mode',
                  'particle'],
    # The move a vector of particles a work-item: two vectors of 16 and a
    # last work-item with 5 (or 3) particles, one by one.
    'pso-vector': ['run', 'pso', '--fn', 'rastrigin', '--dim', '5',
                   '--particles', '37', '--iters', '4', '--bounds',
                   'reflect', '--move-mode', 'vector'],
    'pso-ring-vector': ['run', 'pso', '--fn', 'griewank', '--dim', '4',
                        '--particles', '35', '--iters', '3', '--topology',
                        'ring:3', '--bounds', 'random', '--lo', '1', '--hi',
                        '2', '--move-mode', 'vector'],
    'pso-large': (['--max-wgsize', '64', '--compute-units', '2'],
                  ['run', 'pso', '--fn', 'rosenbrock', '--dim', '3',
                   '--particles', '1500', '--iters', '2', '--bounds',
                   'reflect']),
    'pso-ring': ['run', 'pso', '--fn', 'griewank', '--dim', '4',
                 '--particles', '20', '--iters', '3', '--topology', 'ring:3',
                 '--bounds', 'random', '--lo', '1', '--hi', '2',
                 '--move-mode', 'particle'],
    # A spread of one member: its outbox (ck_pso_report) each iteration.
    'pso-spread-ring': ['run', 'pso', '--fn', 'griewank', '--dim', '4',
                        '--particles', '35', '--iters', '3', '--topology',
                        'ring:3', '--spread'],
    'pso-lsq-group': ['run', 'pso', '--fn', 'lsq', '--data',
                      '@DATA@/lsq_small.csv', '--particles', '5', '--iters',
                      '2', '--lsq-mode', 'group'],
    'pso-lsq-thread': ['run', 'pso', '--fn', 'lsq', '--data',
                       '@DATA@/lsq_small.csv', '--particles', '9', '--iters',
                       '2', '--lsq-mode', 'thread'],
    # Vector mode: two vectors of 16 particles and 3 lanes of a third.
    'pso-lsq-vector': ['run', 'pso', '--fn', 'lsq', '--data',
                       '@DATA@/lsq_small.csv', '--particles', '35', '--iters',
                       '2', '--lsq-mode', 'vector'],
    'pso-user': ['run', 'pso', '--objective', '@DATA@/weighted_sphere.cl',
                 '--data', '@DATA@/weights.csv', '--dim', '3', '--lo', '-2',
                 '--hi', '2', '--particles', '11', '--iters', '2'],
    # A user objective without data, evaluated in the move.
    'pso-user-fused': ['run', 'pso', '--objective',
                       '@DATA@/shifted_sphere.cl', '--dim', '3', '--lo', '-2',
                       '--hi', '2', '--particles', '11', '--iters', '2',
                       '--move-mode', 'particle'],
    # GA: several generations in one launch with migration, islands not a
    # power of two, every operator and bounds mode, lsq and a user
    # objective (one generation a launch, then evaluation and statistics).
    'ga-ring': ['run', 'ga', '--fn', 'rastrigin', '--dim', '5', '--islands',
                '3', '--island-size', '37', '--gens', '4', '--migrate-every',
                '2', '--migrants', '3', '--elite', '2'],
    'ga-operators': ['run', 'ga', '--fn', 'griewank', '--dim', '3',
                     '--islands', '4', '--island-size', '20', '--gens', '3',
                     '--crossover', 'sbx:2', '--mutation', 'poly:20', '--pm',
                     '0.5', '--bounds', 'reflect', '--topology', 'random',
                     '--migrate-every', '1', '--tournament', '3', '--elite',
                     '0'],
    'ga-blx': ['run', 'ga', '--fn', 'sphere', '--dim', '4', '--islands', '2',
               '--island-size', '300', '--gens', '2', '--crossover', 'blx:0.5',
               '--bounds', 'random', '--lo', '1', '--hi', '2'],
    # The vector form: a work-item 16 children (two work-items an island
    # of 32) with elites, migration and reflection; in double precision 8
    # children a work-item, with BLX, polynomial mutation and random
    # bounds.
    'ga-vector': ['run', 'ga', '--fn', 'rastrigin', '--dim', '5',
                  '--islands', '3', '--island-size', '32', '--gens', '4',
                  '--migrate-every', '2', '--migrants', '3', '--elite', '2',
                  '--pm', '0.4', '--bounds', 'reflect', '--generation-mode',
                  'vector'],
    'ga-vector-double': ['run', 'ga', '--fn', 'sphere', '--dim', '3',
                         '--islands', '2', '--island-size', '16', '--gens',
                         '3', '--crossover', 'blx:0.5', '--mutation',
                         'poly:20', '--pm', '0.5', '--bounds', 'random',
                         '--topology', 'random', '--migrate-every', '1',
                         '--tournament', '3', '--elite', '0', '--precision',
                         'double', '--generation-mode', 'vector'],
    'ga-lsq': ['run', 'ga', '--fn', 'lsq', '--data', '@DATA@/lsq_small.csv',
               '--islands', '2', '--island-size', '8', '--gens', '2'],
    'ga-user': ['run', 'ga', '--objective', '@DATA@/weighted_sphere.cl',
                '--data', '@DATA@/weights.csv', '--dim', '3', '--lo', '-2',
                '--hi', '2', '--islands', '2', '--island-size', '9', '--gens',
                '2'],
    # A user objective without data, evaluated where each child is made,
    # several generations a launch with a migration between them: islands
    # in local memory (the resident kernel), then, past 64 genes, in
    # global memory.
    'ga-user-fused': ['run', 'ga', '--objective', '@DATA@/shifted_sphere.cl',
                      '--dim', '3', '--lo', '-2', '--hi', '2', '--islands',
                      '3', '--island-size', '9', '--gens', '4',
                      '--migrate-every', '2'],
    'ga-user-fused-global': ['run', 'ga', '--objective',
                             '@DATA@/shifted_sphere.cl', '--dim', '65',
                             '--lo', '-2', '--hi', '2', '--islands', '2',
                             '--island-size', '5', '--gens', '3',
                             '--migrate-every', '2'],
    # Gas: the parallel sort by cell with a ragged last scan block, the
    # cell forces (a grid 2 cells wide, so periodic neighbours wrap onto
    # one cell), Verlet rebuilds flagged on the device, all pairs with the
    # soft-log model, walls, Langevin, rescaling, the reductions and the
    # RDF's atomic histogram. @OUT@ is a scratch directory.
    'gas-cells': ['run', 'gas', '--particles', '61', '--rho', '0.4',
                  '--steps', '6', '--log-every', '3', '--sample-every', '2',
                  '--rdf', '@OUT@/rdf.csv', '--rdf-every', '3',
                  '--thermostat', 'langevin:1:1'],
    'gas-small-grid': ['run', 'gas', '--particles', '40', '--box', '6x14',
                       '--steps', '4', '--log-every', '2', '--walls'],
    'gas-verlet': ['run', 'gas', '--particles', '50', '--rho', '0.5',
                   '--neighbors', 'verlet:0.2', '--steps', '30', '--T', '3',
                   '--log-every', '4', '--rdf', '@OUT@/rdf.csv',
                   '--rdf-every', '6', '--thermostat', 'rescale:2:5'],
    # The strips of CPUs: vector reads of runs of slots with ragged ends
    # (into the arrays' padding), periodic and between walls, in cells
    # mode and over a Verlet rebuild's cells, with the RDF from those.
    'gas-strips-cells': ['run', 'gas', '--particles', '61', '--rho', '0.4',
                         '--steps', '5', '--log-every', '2', '--strips',
                         'on', '--thermostat', 'langevin:1:1'],
    'gas-strips-verlet': ['run', 'gas', '--particles', '50', '--rho', '0.5',
                          '--neighbors', 'verlet:0.2', '--steps', '24',
                          '--T', '3', '--log-every', '4', '--rdf',
                          '@OUT@/rdf.csv', '--rdf-every', '6', '--strips',
                          'on'],
    # Verlet rebuilds sorted whole by one work-item (small systems on CPUs).
    'gas-verlet-whole-sort': ['run', 'gas', '--particles', '45', '--rho',
                              '0.5', '--neighbors', 'verlet:0.2', '--steps',
                              '24', '--T', '3', '--log-every', '6',
                              '--sort', 'whole', '--walls'],
    # (steps without a log use the tiles' force-only form)
    'gas-allpairs': ['run', 'gas', '--particles', '70', '--rho', '0.3',
                     '--neighbors', 'allpairs', '--model', 'log:1:1',
                     '--steps', '4', '--log-every', '2', '--rdf',
                     '@OUT@/rdf.csv', '--rdf-every', '4', '--tiles',
                     'local'],
    'gas-allpairs-direct': ['run', 'gas', '--particles', '33', '--rho',
                            '0.3', '--neighbors', 'allpairs', '--walls',
                            '--steps', '3', '--log-every', '1', '--tiles',
                            'direct'],
    # NN: every form of the matrix products with ragged tiles (batch 7 of
    # 5-wide layers in 8- and 16-wide tiles; in the vector form 20- and
    # 17-wide layers, so that a vector of 16 is read whole and a ragged
    # one element by element, and the forward's dot products run a vector
    # step and a tail), a last partial batch, every activation, both
    # losses, both optimisers with weight decay, the validation and test
    # evaluations and the reductions.
    'nn-global': ['run', 'nn', '--train', 'spirals:40', '--layers', '2,5,3',
                  '--batch', '7', '--epochs', '2', '--val', '0.2',
                  '--tiles', 'global:8'],
    'nn-vector': ['run', 'nn', '--train', 'spirals:20', '--layers',
                  '2,20,17,3', '--batch', '9', '--epochs', '1',
                  '--weight-decay', '0.01', '--tiles', 'vector:16'],
    'nn-vector-sgd': ['run', 'nn', '--train', 'spirals:10', '--layers',
                      '2,20,3', '--optimizer', 'sgd', '--batch', 'all',
                      '--epochs', '1', '--tiles', 'vector:32'],
    'nn-local': ['run', 'nn', '--train', 'spirals:30', '--layers', '2,9,4,3',
                 '--act', 'tanh,sigmoid', '--loss', 'mse', '--optimizer',
                 'sgd', '--weight-decay', '0.01', '--batch', '11',
                 '--epochs', '2', '--tiles', 'local:16'],
    'nn-local-relu': ['run', 'nn', '--train', 'spirals:20', '--layers',
                      '2,17,3', '--batch', 'all', '--epochs', '1', '--tiles',
                      'local:8', '--schedule', 'cosine'],
    # ACO: MMAS with 2-opt+Or-opt on the best 2 of 4 ants (rank, search
    # with or_opt 1) and partitioning into segments of 8 (rotate,
    # segments); ACS with 2-opt, its use counts and 70 ants (more than a
    # work-group: the strided fold of iteration_best); eil51 in 7 segments.
    'aco-mmas': ['run', 'aco', 'random:12', '--candidates', '5', '--ants',
                 '4', '--iters', '3', '--ls-ants', '2', '--partition', '8'],
    'aco-acs': ['run', 'aco', 'random:12', '--algo', 'acs', '--candidates',
                '5', '--ants', '70', '--iters', '2', '--ls', '2opt'],
    'aco-segments': ['run', 'aco', '@DATA@/tsplib/eil51.tsp', '--candidates',
                     '5', '--ants', '4', '--iters', '2', '--partition', '8'],
    # The group kernels (a work-group an ant): 4 lanes, fewer than the 5
    # candidates (strided candidates), on random cities with 2-opt+Or-opt;
    # 8 lanes with ACS on eil51, whose tours meet the nearest-unvisited
    # fallback with 3 candidates.
    'aco-groups': ['run', 'aco', 'random:30', '--candidates', '5', '--ants',
                   '3', '--iters', '3', '--lanes', '4'],
    'aco-groups-acs': ['run', 'aco', '@DATA@/tsplib/eil51.tsp', '--algo',
                       'acs', '--candidates', '3', '--ants', '2', '--iters',
                       '2', '--lanes', '8'],
    # Two lanes, fewer than the 3 cities of an Or-opt path: the group
    # writes the moved path's cities in rounds of its lanes.
    'aco-groups-2': ['run', 'aco', 'random:12', '--candidates', '5', '--ants',
                     '3', '--iters', '3', '--lanes', '2'],
    # The focused ants by a work-group: 4 lanes walk and search copies of
    # the best tour (up to 30 new edges, queues sorted by the group); 2
    # lanes with ACS and 2-opt alone.
    'aco-focused-groups': ['run', 'aco', 'random:40', '--method', 'focused',
                           '--candidates', '5', '--ants', '3', '--iters',
                           '4', '--lanes', '4', '--focus-edges', '30'],
    'aco-focused-groups-acs': ['run', 'aco', 'random:24', '--method',
                               'focused', '--algo', 'acs', '--ls', '2opt',
                               '--candidates', '5', '--ants', '2',
                               '--iters', '3', '--lanes', '2'],
    # Other sources: each ant's own tour kept (4 lanes an ant), and the
    # iteration's best (an ant a work-item).
    'aco-focused-own': ['run', 'aco', 'random:40', '--method', 'focused',
                        '--focus-source', 'own', '--candidates', '5',
                        '--ants', '3', '--iters', '4', '--lanes', '4'],
    'aco-focused-iteration': ['run', 'aco', 'random:24', '--method',
                              'focused', '--focus-source', 'iteration',
                              '--candidates', '5', '--ants', '3',
                              '--iters', '4', '--lanes', '1'],
}

# The small grid between walls again, through the strips.
CASES['gas-strips-walls'] = CASES['gas-small-grid'] + ['--strips', 'on']

# Negative cases: kernel tests/oclgrind/broken/NAME.cl -> the kind of
# report Oclgrind must make about it (a key of KINDS).
BROKEN = {
    'oob': 'invalid-access',
    'race': 'data-race',
    'uninit': 'uninitialized',
}

# Options of every run. --check-api also reports OpenCL API calls that fail.
OCLGRIND_OPTIONS = ['--data-races', '--uninitialized', '--check-api']

# Cases run without some of those, and why. The gas strips kernel splits
# vector loads into their even and odd lanes and adds a vector's halves:
# shufflevector instructions, on which Oclgrind 21.10's uninitialised-value
# plugin crashes (a segmentation fault inside Oclgrind) or flags lanes
# that were written; `float4 v = vload4(0, p); p[9] = v.x + v.y;` alone
# does it. Its cases still run with the checks of out-of-bounds accesses,
# data races and API use; the lanes it reads past a run's end lie in the
# positions' padding, which is zeroed when the buffers are made.
# The same plugin crashes (a segmentation fault inside Oclgrind) on every
# run of the GA's vector form in double precision, whatever the operators,
# though not in the child form in double precision nor in the vector form
# in float: ga-vector runs with every check.
WITHOUT = {
    'ga-vector-double': ['--uninitialized'],
    'gas-strips-cells': ['--uninitialized'],
    'gas-strips-verlet': ['--uninitialized'],
    'gas-strips-walls': ['--uninitialized'],
}

# The device selector that picks Oclgrind's simulated device.
DEVICE_SELECTOR = 'oclgrind'

# clkit commands that take --quiet.
QUIET_COMMANDS = ('run', 'compare')

# Wall-clock limit of one run, in seconds (under meson's timeout of 300).
RUN_TIMEOUT = 240

# ------------------------------------------------------------------------------

import os
import re
import shutil
import subprocess
import sys
import tempfile
import atexit
import time

# The first line of each Oclgrind message, by kind. Oclgrind 21.10 writes,
# for example, "Invalid write of size 4 at global memory address 0x...",
# "Read-write data race at local memory address 0x...", "Uninitialized
# value written to global memory address 0x..." and, for API errors,
# "Oclgrind - OpenCL runtime error detected".
KINDS = [
    ('invalid-access', re.compile(r'^Invalid (read|write|memory)|'
                                  r'^Invalid .* (buffer|address)', re.I)),
    ('data-race', re.compile(r'data race', re.I)),
    ('uninitialized', re.compile(r'uninitiali[sz]ed', re.I)),
    ('api', re.compile(r'^Oclgrind - OpenCL runtime error', re.I)),
    ('divergence', re.compile(r'divergence', re.I)),
]
SUPPRESSED = re.compile(r'^Oclgrind: \d+ errors generated')
SHOWN_MESSAGES = 20
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EXIT_CLEAN, EXIT_FOUND, EXIT_SKIP, EXIT_USAGE = 0, 1, 77, 99


def usage(message):
    print('kernel_check.py: %s' % message, file=sys.stderr)
    print(__doc__.split('\n\n')[1], file=sys.stderr)
    return EXIT_USAGE


def classify(header):
    for kind, pattern in KINDS:
        if pattern.search(header):
            return kind
    return 'other'


def is_oclgrind_header(line):
    """Whether a line of the program's own output begins an Oclgrind
    message (not a line the program printed itself)."""
    return bool(re.match(r'Oclgrind - ', line) or
                (classify(line) != 'other' and 'memory address' in line))


def split_messages(log):
    """Oclgrind's log: messages separated by blank lines, each a header
    line followed by lines indented with a tab."""
    messages, current = [], None
    for line in log.splitlines():
        if line and not line[0].isspace():
            if current:
                messages.append('\n'.join(current).rstrip())
            current = [line]
        elif current is not None:
            current.append(line)
    if current:
        messages.append('\n'.join(current).rstrip())
    return messages


def find_oclgrind(given):
    if given:
        return given if os.path.isfile(given) and os.access(given, os.X_OK) \
            else shutil.which(given)
    return shutil.which('oclgrind')


def run_under_oclgrind(oclgrind, options, command, env, without=()):
    """Runs command under Oclgrind; returns (exit status, messages)."""
    with tempfile.TemporaryDirectory(prefix='kernel-check-') as scratch:
        log_path = os.path.join(scratch, 'oclgrind.log')
        checks = [o for o in OCLGRIND_OPTIONS if o not in without]
        full = [oclgrind] + checks + options + \
            ['--log', log_path] + command
        print('$ ' + ' '.join(full), flush=True)
        started = time.monotonic()
        try:
            done = subprocess.run(full, env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT,
                                  timeout=RUN_TIMEOUT)
            output, status = done.stdout, done.returncode
        except subprocess.TimeoutExpired as expired:
            output, status = expired.stdout or b'', None
        elapsed = time.monotonic() - started
        sys.stdout.write(output.decode('utf-8', 'replace'))
        if status is None:
            print('kernel_check.py: timed out after %d s' % RUN_TIMEOUT)
        else:
            print('(exit status %d after %.1f s)' % (status, elapsed))
        log = ''
        if os.path.exists(log_path):
            with open(log_path, encoding='utf-8', errors='replace') as f:
                log = f.read()
    # Kernel errors go to the log; API errors (--check-api) are written
    # straight to the program's stderr, so take those from its output,
    # along with any kernel error that missed the log.
    messages = split_messages(log)
    messages += [message for message in
                 split_messages(output.decode('utf-8', 'replace'))
                 if is_oclgrind_header(message.splitlines()[0])]
    return status, messages


AT_LINE = re.compile(r'^(\s*At line (\d+)(?: \(column \d+\))? of (\S+):)$')


def fix_source_lines(message, kernel_dirs):
    """Oclgrind names the right file and line (the #line directives of
    clkit's assembled sources) but quotes the line of the assembled text,
    which is another one: quote the file's own line instead."""
    lines = message.splitlines()
    for i, line in enumerate(lines[:-1]):
        match = AT_LINE.match(line)
        if not match:
            continue
        number, name = int(match.group(2)), os.path.basename(match.group(3))
        for directory in kernel_dirs:
            path = os.path.join(directory, name)
            if os.path.isfile(path):
                with open(path, encoding='utf-8', errors='replace') as f:
                    source = f.read().splitlines()
                if 0 < number <= len(source):
                    indent = lines[i + 1][:len(lines[i + 1]) -
                                          len(lines[i + 1].lstrip())]
                    lines[i + 1] = indent + source[number - 1].strip()
                break
    return '\n'.join(lines)


def report(messages, kernel_dirs):
    """Prints the messages; returns {kind: count}."""
    counts = {}
    shown = 0
    for message in messages:
        header = message.splitlines()[0]
        if SUPPRESSED.match(header):
            print('\n' + message)
            continue
        kind = classify(header)
        counts[kind] = counts.get(kind, 0) + 1
        if shown < SHOWN_MESSAGES:
            print('\n[%s] %s' % (kind, fix_source_lines(message,
                                                         kernel_dirs)))
            shown += 1
    total = sum(counts.values())
    if total > shown:
        print('\n... and %d more messages' % (total - shown))
    if counts:
        print('\nOclgrind reported: ' + ', '.join(
            '%d %s' % (n, kind) for kind, n in sorted(counts.items())))
    return counts


def main(argv):
    args = argv[1:]
    if args in (['--list'], ['--list-broken']):
        print('\n'.join(CASES if args == ['--list'] else BROKEN))
        return EXIT_CLEAN
    oclgrind_name, broken = None, False
    while args and args[0].startswith('--'):
        option = args.pop(0)
        if option == '--oclgrind' and args:
            oclgrind_name = args.pop(0)
        elif option == '--broken':
            broken = True
        else:
            return usage('unknown option %s' % option)
    if len(args) != 2:
        return usage('expected a program and a case')
    binary, case = args
    table = BROKEN if broken else CASES
    if case not in table:
        return usage('no %scase named %r (known: %s)' % (
            'broken ' if broken else '', case, ', '.join(table)))
    if not os.path.isfile(binary):
        return usage('no program %s' % binary)

    oclgrind = find_oclgrind(oclgrind_name)
    if not oclgrind:
        print('SKIP: oclgrind is not installed (Debian/Ubuntu: apt-get '
              'install oclgrind), so kernels cannot be checked')
        return EXIT_SKIP

    env = dict(os.environ)
    env['CLKIT_CACHE'] = '0'
    if broken:
        expected = BROKEN[case]
        env['CLKIT_KERNEL_DIR'] = os.path.join(PROJECT_ROOT, 'tests',
                                               'oclgrind', 'broken')
        options, command = [], [binary, case, DEVICE_SELECTOR]
    else:
        entry = CASES[case]
        options, clkit_args = entry if isinstance(entry, tuple) else ([], entry)
        data_dir = os.path.join(PROJECT_ROOT, 'tests', 'data')
        output_dir = tempfile.mkdtemp(prefix='kernel-check-out-')
        atexit.register(shutil.rmtree, output_dir, True)
        clkit_args = [a.replace('@DATA@', data_dir).replace('@OUT@', output_dir)
                      for a in clkit_args]
        command = [binary] + list(clkit_args) + ['--device', DEVICE_SELECTOR]
        if clkit_args and clkit_args[0] in QUIET_COMMANDS:
            command.append('--quiet')

    without = () if broken else WITHOUT.get(case, ())
    status, messages = run_under_oclgrind(oclgrind, list(options), command,
                                          env, without)
    # Where the sources came from, to quote the lines Oclgrind points at.
    kernel_dirs = [d for d in (env.get('CLKIT_KERNEL_DIR'),
                               os.path.join(PROJECT_ROOT, 'cl')) if d]
    counts = report(messages, kernel_dirs)

    if broken:
        if status != 0:
            print('FAIL: the probe did not run the broken kernel (exit '
                  'status %s), so nothing was proven' % status)
            return EXIT_FOUND
        if not counts.get(expected):
            print('FAIL: broken kernel %r ran, but Oclgrind reported no %s '
                  'error: the check cannot catch this bug' % (case, expected))
            return EXIT_FOUND
        print('OK: the %s error in broken kernel %r was caught' %
              (expected, case))
        return EXIT_CLEAN

    failed = False
    if status != 0:
        print('FAIL: the program exited with status %s' % status)
        failed = True
    if counts:
        print('FAIL: Oclgrind reported %d error(s) in case %r' %
              (sum(counts.values()), case))
        failed = True
    if failed:
        return EXIT_FOUND
    print('OK: case %r ran clean under Oclgrind' % case)
    return EXIT_CLEAN


if __name__ == '__main__':
    sys.exit(main(sys.argv))
