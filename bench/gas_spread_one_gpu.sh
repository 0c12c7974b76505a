#!/bin/sh
# What a spread gas's members cost where one GPU does all the work: the
# same GPU alone and as the one member of a spread (which exchanges with
# itself across the periodic edge, as every member does with its
# neighbours), in both neighbour modes, at three sizes.
#
#   bench/gas_spread_one_gpu.sh CLKIT OUT_DIR [DEVICE] [STEPS]
#
# Writes OUT_DIR/gas_spread_one_gpu.csv: mode, particles, the two
# throughputs (particle-steps/s) and the member's share of alone's rate.
set -u
clkit=${1:?usage: gas_spread_one_gpu.sh CLKIT OUT_DIR [DEVICE] [STEPS]}
out=${2:?usage: gas_spread_one_gpu.sh CLKIT OUT_DIR [DEVICE] [STEPS]}
device=${3:-cuda:0}
steps=${4:-500}
mkdir -p "$out"
csv="$out/gas_spread_one_gpu.csv"
echo "mode,particles,alone,one_member,ratio" > "$csv"
rate() { # the throughput of one run, or nothing
  "$clkit" run gas --steps "$steps" --device "$device" --json --quiet "$@" \
    2>> "$out/errors.txt" | python3 -c '
import json, sys
lines = [line for line in sys.stdin if line.startswith("{")]
print("%.4g" % json.loads(lines[-1])["throughput"] if lines else "")'
}
for mode in cells verlet; do
  for n in 1000000 4000000 16000000; do
    alone=$(rate --particles "$n" --neighbors "$mode")
    member=$(rate --particles "$n" --neighbors "$mode" --spread)
    ratio=$(python3 -c "print('%.3f' % ($member / $alone))" 2> /dev/null)
    echo "$mode,$n,$alone,$member,$ratio" | tee -a "$csv"
  done
done
