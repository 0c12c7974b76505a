#!/bin/bash
# The benchmarks refuse a bad option value, or an argument they do not
# take, before touching any device: exit status 2 and a message that names
# the option or argument. Each prints its usage for --help, with status 0.
# Arguments: the directory that holds the bench_* executables.
set -u
dir=$1
passed=0
failed=0
# tool, the option named in the message, then the arguments.
while IFS='|' read -r tool option arguments; do
  [ -z "$tool" ] && continue
  read -ra words <<<"$arguments"
  message=$("$dir/$tool" "${words[@]}" 2>&1 >/dev/null)
  status=$?
  if [ "$status" -eq 2 ] && [[ "$message" == *"$option"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $tool $arguments: exit $status, '$message' (want 2 and $option)"
  fi
done <<'CASES'
bench_ga|--seconds|--seconds abc
bench_ga|--seconds|--seconds 0
bench_ga|--seconds|--seconds 0x10
bench_pso|--seconds|--seconds inf
bench_ga|--max-genes|--max-genes 1e99
bench_pso|--seconds|--seconds -1
bench_pso|--max-elements|--max-elements 5x
bench_gas|--rounds|--rounds 2.5
bench_gas|--seconds|--seconds nan
bench_gas|--max-particles|--max-particles 0
bench_gas|--print-lammps-input RHO|--print-lammps-input 1000 x 10
bench_gas|--print-lammps-input STEPS|--print-lammps-input 1000 0.8 1.5
bench_queue|--megabytes|--megabytes 0
bench_queue|--repeat|--repeat 10x
bench_nn|--rows|--rows 0
bench_nn|--epochs|--epochs 1.5
bench_nn|--networks|--networks 784--10
bench_nn|--networks|--networks 784
bench_nn|--networks|--networks 784-0-10
bench_nn|--networks|--networks 16-8-
bench_nn|--batches|--batches 64,x
bench_aco|--ls|--data . --ls fast
bench_aco|--seed|--data . --seed -1
bench_aco|--ants|--data . --ants 1e6
bench_aco|--kicks|--data . --kicks -2
bench_aco|--max-cities|--data . --max-cities 1
bench_aco|'stray'|--data . stray
bench_aco_steps|--iters|--iters 0 x.tsp
bench_aco_steps|--lanes|--lanes 3 x.tsp
bench_aco_steps|FILE.tsp|--lanes 1
bench_aco_steps|'stray'|x.tsp stray
bench_ga|'stray'|stray
bench_gas|usage|stray
bench_nn|'stray'|--rows 10 stray
bench_pso|'stray'|--quick stray
bench_queue|'stray'|stray
bench_rounding|'stray'|stray
bench_rounding|'stray'|--help stray
CASES
for tool in bench_aco bench_aco_steps bench_ga bench_gas bench_nn bench_pso bench_queue \
  bench_rounding; do
  usage=$("$dir/$tool" --help 2>/dev/null)
  status=$?
  if [ "$status" -eq 0 ] && [[ "$usage" == "usage: $tool"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $tool --help: exit $status, '$usage' (want 0 and its usage)"
  fi
done
echo "$passed checks, $failed failed"
[ "$failed" -eq 0 ]
