#!/bin/sh
# Spread gas runs whose members all share one device, beside that device
# alone. Two modes:
#   member  one member of --spread against the device alone, in both
#           neighbour modes. One member holds the whole box and
#           exchanges nothing: its rate should match alone's.
#   peer    how the members' messages travel, in both neighbour modes:
#           through host memory (CLKIT_PEER=0) or device to device (cell
#           lists; Verlet lists' go through the host either way), for
#           one member (the whole box: nothing crosses) and for two
#           (DEVICE given twice, equal slabs).
#
#   bench/gas_spread_one_gpu.sh [--mode member|peer] [--sizes N,N,...]
#       CLKIT OUT_DIR [DEVICE] [STEPS]
#
# DEVICE defaults to cuda:0; STEPS to 500 (member) or 1000 (peer); the
# sizes to 1000000,4000000,16000000 particles. Throughputs are in
# particle-steps/s. Writes, by mode:
#   OUT_DIR/gas_spread_one_gpu.csv  mode, particles, alone, one_member and
#                                   the member's share of alone's rate;
#   OUT_DIR/gas_spread_peer.csv     mode, particles, alone, then one
#                                   member and two members, each through
#                                   the host and device to device.
set -u
usage="usage: gas_spread_one_gpu.sh [--mode member|peer] [--sizes N,N,...]"
usage="$usage CLKIT OUT_DIR [DEVICE] [STEPS]"
mode=member
sizes=1000000,4000000,16000000
while [ $# -gt 0 ]; do
  case $1 in
    --mode) mode=${2:?$usage}; shift 2 ;;
    --sizes) sizes=${2:?$usage}; shift 2 ;;
    --help|-h) echo "$usage"; exit 0 ;;
    -*) echo "gas_spread_one_gpu.sh: unknown option $1" >&2
        echo "$usage" >&2; exit 2 ;;
    *) break ;;
  esac
done
case $mode in
  member) default_steps=500 ;;
  peer) default_steps=1000 ;;
  *) echo "gas_spread_one_gpu.sh: --mode is member or peer, not $mode" >&2
     exit 2 ;;
esac
clkit=${1:?$usage}
out=${2:?$usage}
device=${3:-cuda:0}
steps=${4:-$default_steps}
mkdir -p "$out"
rate() { # PEER then run options: the throughput of one run, or nothing
  peer=$1
  shift
  CLKIT_PEER=$peer "$clkit" run gas --steps "$steps" --json --quiet "$@" \
    2>> "$out/errors.txt" | python3 -c '
import json, sys
lines = [line for line in sys.stdin if line.startswith("{")]
print("%.4g" % json.loads(lines[-1])["throughput"] if lines else "")'
}
sizes=$(echo "$sizes" | tr , ' ')
if [ "$mode" = member ]; then
  csv="$out/gas_spread_one_gpu.csv"
  echo "mode,particles,alone,one_member,ratio" > "$csv"
  for neighbors in cells verlet; do
    for n in $sizes; do
      set -- --particles "$n" --neighbors "$neighbors" --device "$device"
      alone=$(rate 1 "$@")
      member=$(rate 1 "$@" --spread)
      ratio=$(python3 -c "print('%.3f' % ($member / $alone))" 2> /dev/null)
      echo "$neighbors,$n,$alone,$member,$ratio" | tee -a "$csv"
    done
  done
else
  csv="$out/gas_spread_peer.csv"
  echo "mode,particles,alone,one_host,one_device,two_host,two_device" \
    > "$csv"
  for neighbors in cells verlet; do
    for n in $sizes; do
      set -- --particles "$n" --neighbors "$neighbors"
      alone=$(rate 1 "$@" --device "$device")
      one_host=$(rate 0 "$@" --device "$device" --spread)
      one_device=$(rate 1 "$@" --device "$device" --spread)
      two_host=$(rate 0 "$@" --device "$device,$device" --spread --shares 1,1)
      two_device=$(rate 1 "$@" --device "$device,$device" --spread \
        --shares 1,1)
      echo "$neighbors,$n,$alone,$one_host,$one_device,$two_host,$two_device" |
        tee -a "$csv"
    done
  done
fi
