#!/bin/bash
# Runs the libFuzzer harnesses of a fuzzing build (docs/fuzzing.md), one
# after another, each on a copy of its seed corpus, so that the checkout
# is not changed. Prints a line of figures for each harness and exits
# non-zero when any of them crashed, leaked, hung or ran out of memory;
# the input at fault is kept and named.
#
#   fuzz/run.sh [-t SECONDS] [-n RUNS] [-w DIR] BUILD [HARNESS ...]
#
#   -t SECONDS  time for each harness (default 30)
#   -n RUNS     stop a harness after this many inputs instead (-t still
#               caps it)
#   -w DIR      keep the working corpora and the logs in DIR/HARNESS (the
#               seed corpus is copied in the first time); default: a
#               temporary directory, removed at the end
#   BUILD       the build directory (meson setup ... -Dfuzz=true)
#   HARNESS     tsplib, tour, optima, idx, csv, lsq, model, checkpoint or
#               xyz (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
runs=
work=
while getopts t:n:w: option; do
  case $option in
  t) seconds=$OPTARG ;;
  n) runs=$OPTARG ;;
  w) work=$OPTARG ;;
  *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if [ $# -lt 1 ]; then
  echo "usage: fuzz/run.sh [-t SECONDS] [-n RUNS] [-w DIR] BUILD [HARNESS ...]" >&2
  exit 2
fi
build=$1
shift
harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  harnesses=(tsplib tour optima idx csv lsq model checkpoint xyz)
fi
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi

# UndefinedBehaviorSanitizer only prints unless told to stop; libFuzzer
# then counts its report as a crash.
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1

for name in "${harnesses[@]}"; do
  if [ ! -x "$build/fuzz/fuzz_$name" ] || [ ! -d "fuzz/corpus/$name" ]; then
    echo "fuzz/run.sh: no harness $name in $build (build with -Dfuzz=true)" >&2
    exit 2
  fi
done

failed=0
printf '%-11s %12s %8s %9s %7s %s\n' harness executions seconds 'exec/s' \
  corpus result
for name in "${harnesses[@]}"; do
  harness=$build/fuzz/fuzz_$name
  dir=$work/$name
  mkdir -p "$dir/artifacts"
  if [ ! -d "$dir/corpus" ]; then
    cp -r "fuzz/corpus/$name" "$dir/corpus"
  fi
  arguments=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048
             -max_len=8192 -print_final_stats=1
             -artifact_prefix="$dir/artifacts/")
  [ -z "$runs" ] || arguments+=(-runs="$runs")
  [ ! -f "fuzz/$name.dict" ] || arguments+=(-dict="fuzz/$name.dict")
  start=$(date +%s)
  result=ok
  "$harness" "${arguments[@]}" "$dir/corpus" >"$dir/log" 2>&1 ||
    result=FAILED
  elapsed=$(($(date +%s) - start))
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log")
  corpus=$(find "$dir/corpus" -type f | wc -l)
  printf '%-11s %12s %8s %9s %7s %s\n' "$name" "${executions:-?}" \
    "$elapsed" "${speed:-?}" "$corpus" "$result"
  if [ "$result" != ok ]; then
    failed=1
    # The report, and the input at fault as hex (CI keeps only its log).
    grep -E -A40 '^==[0-9]+==|SUMMARY|runtime error|check failed' "$dir/log" |
      head -80 || true
    for artifact in "$dir"/artifacts/*; do
      [ -f "$artifact" ] || continue
      echo "== $artifact"
      od -A d -t x1z -v "$artifact" | head -64
    done
  fi
done
exit "$failed"
