#!/bin/sh
# The focused ACO on an NVIDIA GPU: an ant a work-item (--lanes 1) against
# an ant a work-group (the default lanes, 32), on cuda:0 and on NVIDIA's
# OpenCL device. Each run prints its best length, gap, iterations and
# milliseconds an iteration; then bench_aco_steps splits an iteration of
# d15112 into construction, local search and the rest.
#
#   bench/aco_focused_gpu.sh CLKIT [TSPLIB_DIR] [OUT_DIR]
#
# CLKIT is a built clkit (BUILD/tools/clkit; BUILD/bench/bench_aco_steps
# is used when it is there). TSPLIB_DIR holds d15112.tsp, pla33810.tsp,
# pr2392.tsp and optima.txt (default: shared/data/tsplib in the
# repository, else ../shared/data/tsplib beside it). OUT_DIR, when given, keeps each run's JSON and the table.
# INSTANCES="name:seconds ..." replaces the default list, DEVICES="..."
# the devices (for a try on PoCL: DEVICES=pocl).
set -u
clkit=${1:?usage: aco_focused_gpu.sh CLKIT [TSPLIB_DIR] [OUT_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
tsplib=${2:-}
if [ -z "$tsplib" ]; then
  tsplib=$here/../shared/data/tsplib
  [ -d "$tsplib" ] || tsplib=$here/../../shared/data/tsplib
fi
out=${3:-}
instances=${INSTANCES:-"pr2392:10 d15112:30 pla33810:60"}
steps=$(dirname "$clkit")/../bench/bench_aco_steps
[ -n "$out" ] && mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The NVIDIA GPU through CUDA and through OpenCL.
"$clkit" devices --json > "$work/devices.json" 2>/dev/null
opencl=$(python3 - "$work/devices.json" <<'EOF'
import json, sys
devices = json.load(open(sys.argv[1]))["devices"]
print(next((d["id"] for d in devices if d["id"].startswith("ocl:")
            and "NVIDIA" in d["platform"].upper() and d["kind"] == "gpu"), ""))
EOF
)
devices=${DEVICES:-"cuda:0 $opencl"}
echo "devices: $devices"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null

row() { # instance device lanes method seconds
  file="$work/$1-$2-$3-$4.json"
  lanes_option=""
  [ "$3" = default ] || lanes_option="--lanes $3"
  # shellcheck disable=SC2086
  "$clkit" run aco "$tsplib/$1.tsp" --device "$2" --time "$5" --method "$4" \
    $lanes_option --optima "$tsplib/optima.txt" --json > "$file" 2> "$file.err"
  python3 - "$file" "$1" "$2" "$3" "$4" <<'EOF'
import json, sys
path, instance, device, lanes, method = sys.argv[1:6]
try:
    r = json.load(open(path))
except ValueError:
    print(f"{instance:<9} {device:<8} {lanes:>7} {method:<8} failed: "
          + open(path + ".err").read().strip()[:200])
    sys.exit()
ms = 1e3 * r["wall_s"] / max(r["iterations"], 1)
print(f"{instance:<9} {device:<8} {lanes:>7} {method:<8} {r['best']:>10} "
      f"{r['gap_percent']:>7.3f} {r['iterations']:>7} {ms:>9.2f} "
      f"{r['setup_s']:>7.2f}")
EOF
  [ -n "$out" ] && cp "$file" "$out/"
}

{
  printf '%-9s %-8s %7s %-8s %10s %7s %7s %9s %7s\n' instance device lanes \
    method best gap% iters ms/iter setup_s
  for entry in $instances; do
    name=${entry%%:*}
    seconds=${entry#*:}
    for device in $devices; do
      for lanes in 1 default; do
        row "$name" "$device" "$lanes" focused "$seconds"
      done
      # pr2392 runs the classic method by default on a GPU: the reference.
      [ "$name" = pr2392 ] && row "$name" "$device" default classic "$seconds"
    done
  done
} | tee "$work/table.txt"
[ -n "$out" ] && cp "$work/table.txt" "$out/"

# Where an iteration's time goes: construction (copies and walks), local
# search (dirty cities and searches) and the rest, in milliseconds.
if [ -x "$steps" ]; then
  for device in $devices; do
    "$steps" "$tsplib/d15112.tsp" --device "$device" --lanes 1,32 \
      --warmup 5 --iters 20
  done | tee "$work/steps.txt"
  [ -n "$out" ] && cp "$work/steps.txt" "$out/"
fi
