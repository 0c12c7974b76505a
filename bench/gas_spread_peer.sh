#!/bin/sh
# How the ghosts' positions travel between a spread gas's members on one
# GPU: through host memory (CLKIT_PEER=0) or device to device, for one
# member and for two (DEVICE given twice, equal slabs), in Verlet mode at
# three sizes, beside the same GPU alone.
#
#   bench/gas_spread_peer.sh CLKIT OUT_DIR [DEVICE] [STEPS]
#
# Writes OUT_DIR/gas_spread_peer.csv: particles, then each throughput
# (particle-steps/s): alone, one member through the host and device to
# device, two members through the host and device to device.
set -u
clkit=${1:?usage: gas_spread_peer.sh CLKIT OUT_DIR [DEVICE] [STEPS]}
out=${2:?usage: gas_spread_peer.sh CLKIT OUT_DIR [DEVICE] [STEPS]}
device=${3:-cuda:0}
steps=${4:-1000}
mkdir -p "$out"
csv="$out/gas_spread_peer.csv"
echo "particles,alone,one_host,one_device,two_host,two_device" > "$csv"
rate() { # PEER then run options: the throughput of one run, or nothing
  peer=$1
  shift
  CLKIT_PEER=$peer "$clkit" run gas --steps "$steps" --neighbors verlet \
    --json --quiet "$@" 2>> "$out/errors.txt" | python3 -c '
import json, sys
lines = [line for line in sys.stdin if line.startswith("{")]
print("%.4g" % json.loads(lines[-1])["throughput"] if lines else "")'
}
for n in 1000000 4000000 16000000; do
  alone=$(rate 1 --particles "$n" --device "$device")
  one_host=$(rate 0 --particles "$n" --device "$device" --spread)
  one_device=$(rate 1 --particles "$n" --device "$device" --spread)
  two_host=$(rate 0 --particles "$n" --device "$device,$device" --spread \
    --shares 1,1)
  two_device=$(rate 1 --particles "$n" --device "$device,$device" --spread \
    --shares 1,1)
  echo "$n,$alone,$one_host,$one_device,$two_host,$two_device" | tee -a "$csv"
done
