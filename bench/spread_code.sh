#!/bin/sh
# Each workload's spread-specific code: the files that hold what only a
# run of several members does, and their lines. Given a coverage build,
# also the share of those lines that runs of one member and of several
# execute, on ref and on two PoCL devices.
#
#   sh bench/spread_code.sh [COVERAGE_BUILD DATA_DIR]
#
# COVERAGE_BUILD: a build made with `meson setup DIR -Db_coverage=true`;
# DATA_DIR holds tsplib/berlin52.tsp and uci-letter/letter-recognition.data.
# The PSO's file is its whole table for the member engine, which a swarm
# on one device runs too.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
# The files, as tests/architecture_check.py holds them to their limits.
files() {
  python3 "$root/tests/architecture_check.py" --spread-files "$root" "$1"
}
echo "workload lines files"
for w in pso ga aco nn gas; do
  lines=$(cd "$root" && cat $(files $w) | wc -l)
  echo "$w $lines $(files $w | tr '\n' ' ')"
done
[ $# -eq 2 ] || exit 0

build=$(cd "$1" && pwd)
data=$2
clkit=$build/tools/clkit
export CLKIT_CACHE_DIR="$build/spread-code-cache"
runs() {
  for d in $1; do
    "$clkit" run pso --device "$d" $2 --particles 256 --iters 20 --quiet
    "$clkit" run ga --device "$d" $2 --gens 60 --islands 8 --migrate-every 5 \
      --quiet
    "$clkit" run ga --device "$d" $2 --gens 60 --islands 8 --migrate-every 5 \
      --topology random --quiet
    for a in "" "--algo acs" "--method focused" "--ls 2opt --ls-ants 4"; do
      "$clkit" run aco --instance "$data/tsplib/berlin52.tsp" --device "$d" \
        $2 --iters 20 $a --quiet
    done
    "$clkit" run nn --train "$data/uci-letter/letter-recognition.data" \
      --device "$d" $2 --epochs 1 --quiet
    "$clkit" run gas --device "$d" $2 --particles 4000 --steps 40 --quiet
  done >/dev/null
}
covered() {
  how=$1
  for w in pso ga aco nn gas; do
    total=0
    run=0
    for f in $(files $w); do
      case $f in *.h) continue ;; esac
      gcda=$(find "$build/src" -name "$(echo "$f" | sed 's|^src/||; s|/|_|').gcda" |
        head -1)
      [ -n "$gcda" ] || continue
      set -- $(cd "$build" && gcov -n -o "$(dirname "$gcda")" "$gcda" |
        awk -v f="$(basename "$f")" '
          $0 ~ "File .*" f "'"'"'" { want = 1; next }
          want && /Lines executed/ {
            split($2, p, ":"); sub("%", "", p[2]); print p[2], $4; exit }')
      [ $# -eq 2 ] || continue
      run=$(awk -v r="$run" -v p="$1" -v n="$2" 'BEGIN { print r + p * n / 100 }')
      total=$((total + $2))
    done
    awk -v w="$w" -v r="$run" -v t="$total" -v how="$how" \
      'BEGIN { printf "%s %s: %.0f of %d executable lines run\n", how, w, r, t }'
  done
}
find "$build" -name '*.gcda' -delete
POCL_DEVICES=pthread runs "ref ocl:0.0" ""
covered "one member"
find "$build" -name '*.gcda' -delete
POCL_DEVICES="pthread pthread" runs "ocl:0.0,ocl:0.1" "--spread"
covered "several"
