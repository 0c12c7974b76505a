#!/bin/sh
# What spreading the gas costs where one GPU does all the work: the same
# GPU alone, as one member of a spread, and as two members (two MPI ranks
# on it, or CUDA and NVIDIA's OpenCL in one process), each member with as
# many particles as the one-device run (weak scaling on a shared GPU: the
# ideal is the one-device rate at twice the particles).
#
#   bench/gas_spread_one_gpu.sh CLKIT OUT_DIR [PARTICLES] [STEPS]
#
# Writes OUT_DIR/gas_spread_one_gpu.csv: label, mode, particles,
# particle-steps/s, and the members' compute and exchange seconds.
set -u
clkit=${1:?usage: gas_spread_one_gpu.sh CLKIT OUT_DIR [PARTICLES] [STEPS]}
out=${2:?usage: gas_spread_one_gpu.sh CLKIT OUT_DIR [PARTICLES] [STEPS]}
n=${3:-4000000}
steps=${4:-1000}
mkdir -p "$out"
csv="$out/gas_spread_one_gpu.csv"
echo "label,mode,particles,particle_steps_per_s,compute_s,exchange_s" > "$csv"
nvidia=$("$clkit" devices --json | python3 -c '
import json, sys
print(next((d["id"] for d in json.load(sys.stdin)["devices"]
            if d["id"].startswith("ocl:") and d["kind"] == "gpu"), ""))')
row() { # label mode particles launcher options...
  label=$1 mode=$2 particles=$3 launcher=$4
  shift 4
  # shellcheck disable=SC2086
  $launcher "$clkit" run gas --particles "$particles" --steps "$steps" \
    --neighbors "$mode" --json --quiet "$@" 2> "$out/last.err" |
    python3 -c '
import json, sys
r = json.loads([l for l in sys.stdin if l.startswith("{")][-1])
m = r.get("members", [])
print(",".join([sys.argv[1], sys.argv[2], sys.argv[3],
                "%.4g" % r["throughput"],
                ";".join("%.3f" % x["compute_s"] for x in m),
                ";".join("%.3f" % x["exchange_s"] for x in m)]))
' "$label" "$mode" "$particles" >> "$csv" || cat "$out/last.err"
}
for mode in cells verlet; do
  row "cuda:0 alone" "$mode" "$n" "" --device cuda:0
  row "cuda:0 alone, twice the particles" "$mode" $((2 * n)) "" \
    --device cuda:0
  row "cuda:0 spread, one member" "$mode" "$n" "" --device cuda:0 --spread
  if command -v mpirun > /dev/null; then
    row "2 MPI ranks on cuda:0" "$mode" $((2 * n)) \
      "mpirun --allow-run-as-root -np 2" --device cuda:0 --spread
  fi
  if [ -n "$nvidia" ]; then
    row "cuda:0 and $nvidia (the same GPU)" "$mode" $((2 * n)) "" \
      --device "cuda:0,$nvidia" --spread --shares 1,1
  fi
done
cat "$csv"
