#!/bin/sh
# Builds clkit on a machine with an NVIDIA GPU and PoCL, runs the test
# suite on each OpenCL device, and records devices, probes and benchmarks.
#
#   bench/gpu_check.sh OUTPUT_DIR [TSPLIB_DIR] [NN_DATA_DIR]
#
# TSPLIB_DIR holds the instances and optima.txt for the ACO benchmark;
# NN_DATA_DIR holds letter-recognition.data and the four Fashion-MNIST
# .gz files for the MLP accuracy runs (each skipped without its folder).
#
# NVIDIA's OpenCL library must be registered with the ICD loader, e.g.
# /etc/OpenCL/vendors/nvidia.icd containing libnvidia-opencl.so.1.
set -u
out=${1:?usage: gpu_check.sh OUTPUT_DIR [TSPLIB_DIR] [NN_DATA_DIR]}
tsplib=${2:-}
nn_data=${3:-}
mkdir -p "$out"
build=${BUILD_DIR:-/tmp/clkit-gpu-build}
export CLKIT_CACHE_DIR="$build/cache"
cd "$(dirname "$0")/.."
{
  date -u
  uname -r
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
  clinfo -l 2>&1
  nproc
} > "$out/machine.txt"
cat "$out/machine.txt"
rm -rf "$build"
meson setup "$build" -Dbuildtype=release > "$out/setup.log" 2>&1 &&
  ninja -C "$build" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
clkit="$build/tools/clkit"
"$clkit" devices | tee "$out/devices.txt"
"$clkit" devices --json > "$out/devices.json"
"$clkit" cache clear > /dev/null
"$clkit" devices --probe | tee "$out/probe.txt"
for device in nvidia pocl; do
  echo "== tests on $device"
  CLKIT_TEST_DEVICE=$device meson test -C "$build" --num-processes 4 \
    --print-errorlogs > "$out/tests-$device.log" 2>&1
  grep -E "^ *[0-9]+/[0-9]+ " "$out/tests-$device.log"
  python3 tools/test_summary.py "$build/meson-logs/testlog.json"
done
echo "== compare"
"$clkit" compare selfcheck --count 1.6e7 --passes 8 | tee "$out/compare.txt"
echo "== queue benchmark"
"$build/bench/bench_queue" --megabytes 256 --repeat 10 | tee "$out/bench_queue.txt"
echo "== clkit bench"
"$clkit" bench | tee "$out/bench.txt"
echo "== pso"
"$clkit" compare pso --fn rastrigin --dim 30 --particles 4096 --iters 500 \
  | tee "$out/compare_pso.txt"
"$build/bench/bench_pso" --device gpu --seconds 0.3 | tee "$out/bench_pso.txt"
"$build/bench/bench_pso" --device pocl --seconds 0.2 --max-elements 1e7 \
  | tee -a "$out/bench_pso.txt"
echo "== ga"
"$clkit" compare ga --fn rastrigin --dim 32 --islands 256 --island-size 64 \
  --gens 200 | tee "$out/compare_ga.txt"
"$build/bench/bench_ga" --device gpu --seconds 0.3 | tee "$out/bench_ga.txt"
"$build/bench/bench_ga" --device pocl --seconds 0.2 --max-genes 2e6 \
  | tee -a "$out/bench_ga.txt"
if [ -n "$tsplib" ]; then
  echo "== aco"
  aco="$build/bench/bench_aco --data $tsplib"
  { $aco --device gpu --seconds 2 --max-cities 1100
    $aco --device gpu --seconds 20 --instances pr2392
    $aco --device gpu --seconds 60 --instances d15112
    $aco --device gpu --seconds 30 --instances pla33810
    $aco --device pocl --seconds 20 --instances pr2392
  } | tee "$out/bench_aco.txt"
fi
echo "== nn"
"$build/bench/bench_nn" --device gpu | tee "$out/bench_nn.txt"
"$build/bench/bench_nn" --device pocl --rows 4096 --epochs 1 \
  | tee -a "$out/bench_nn.txt"
"$clkit" compare nn --train spirals:4000 --epochs 5 | tee "$out/compare_nn.txt"
if [ -n "$nn_data" ]; then
  "$clkit" run nn --device gpu --train "$nn_data/letter-recognition.data" \
    --split 16000 --layers 16,256,256,26 --epochs 60 --lr 0.002 \
    --schedule cosine | tee "$out/nn_letter.txt"
  "$clkit" run nn --device gpu \
    --train "$nn_data/train-images-idx3-ubyte.gz" \
    --test "$nn_data/t10k-images-idx3-ubyte.gz" --layers 784,256,128,10 \
    --epochs 30 --batch 128 --schedule cosine | tee "$out/nn_fashion.txt"
fi
echo "== gas"
"$build/bench/bench_gas" --device gpu --seconds 0.3 | tee "$out/bench_gas.txt"
"$build/bench/bench_gas" --device pocl --seconds 0.3 --max-particles 1000000 \
  | tee -a "$out/bench_gas.txt"
"$clkit" compare gas --particles 4096 --steps 500 | tee "$out/compare_gas.txt"
