#!/bin/sh
# Builds clkit on a machine of several NVIDIA GPUs and measures each
# workload's spread over them: bench/scaling.py in process and over MPI,
# and bench/mlp_scaling.py beside PyTorch DDP.
#
#   bench/multi_gpu.sh OUT_DIR [SECTION...]
#
# SECTION is one of machine, build, check, gas, gas-ways, gas-verlet,
# pso, ga, aco, nn (default: all but gas-ways, in that order). Sections
# after build need the build. Each section stops after SECTION_S seconds
# (default 240).
#   check  test_cuda on the first GPU, then a gas spread over 2 and 4
#          GPUs, in one process and over as many MPI ranks, with its
#          messages device to device (cells mode: resident steps), through
#          the host (CLKIT_PEER=0) and, over MPI, by NCCL instead of CUDA
#          IPC (CLKIT_IPC=0): the same figures; and a GA's best alone and
#          spread each way: the same bits.
#   gas-ways  bench/gas_ways.py: the gas in process and over MPI by each
#          way, weak and strong, the median of WAYS_REPEAT runs (default
#          3) over WAYS_GPUS GPUs (default all).
# Environment: TSPLIB_DIR holds pr2392.tsp for the aco section (which
# it needs); REPEAT the runs a figure is the median of (default 1);
# BUILD_DIR the build (default /tmp/clkit-multi-gpu); NN_GPUS the GPUs of
# the nn section (default all).
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
set -u
out=${1:?usage: multi_gpu.sh OUT_DIR [SECTION...]}
shift
[ $# -gt 0 ] || set -- machine build check gas gas-verlet pso ga aco nn
mkdir -p "$out"
cd "$(dirname "$0")/.."
export NCCL_NVLS_ENABLE=0
build=${BUILD_DIR:-/tmp/clkit-multi-gpu}
clkit="$build/tools/clkit"
repeat=${REPEAT:-1}
limit=${SECTION_S:-240}
tsplib=${TSPLIB_DIR:-}
gpus=$(nvidia-smi -L 2> /dev/null | wc -l)
devices=$(i=0; while [ "$i" -lt "$gpus" ]; do
  printf 'cuda:%d,' "$i"; i=$((i + 1)); done | sed 's/,$//')
mpirun="mpirun --bind-to none"
scaling() { # WORKLOAD SIZE_OPTION SIZE OPTIONS...: one scaling table
  workload=$1 option=$2 size=$3
  shift 3
  timeout "$limit" python3 bench/scaling.py "$clkit" --workload "$workload" \
    --size-option "$option" --size "$size" --devices "$devices" \
    --mpirun "$mpirun" --mpi-device cuda --equal-shares --repeat "$repeat" \
    --run-timeout 90 --out "$out/scaling.md" -- "$@" \
    > "$out/$workload.log" 2>&1
  echo "rc=$? $(date -u +%T)"
}
for section in "$@"; do
  echo "== $section $(date -u +%T)"
  case $section in
    machine)
      { date -u
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
        nvidia-smi topo -m
        mpirun --version | head -1
        nproc
      } > "$out/machine.txt" 2>&1
      cat "$out/machine.txt" ;;
    build)
      rm -rf "$build"
      { meson setup "$build" -Dbuildtype=release -Dnvcc_architectures=90 &&
          ninja -C "$build"; } > "$out/build.log" 2>&1 ||
        { tail -30 "$out/build.log"; exit 1; }
      echo "warnings: $(grep -c warning: "$out/build.log")"
      "$clkit" devices ;;
    check)
      CLKIT_TEST_DEVICE=cuda timeout "$limit" "$build/tests/test_cuda" \
        > "$out/test_cuda.log" 2>&1
      echo "test_cuda rc=$?: $(tail -1 "$out/test_cuda.log")"
      grep "gas spread twice" "$out/test_cuda.log"
      for k in 2 4; do
        [ "$gpus" -ge "$k" ] || continue
        set_k=$(echo "$devices" | cut -d, -f1-"$k")
        shares=$(printf '1,%.0s' $(seq "$k") | sed 's/,$//')
        for mode in process mpi; do
          # Ways: device to device (1), through the host (0), and between
          # processes by NCCL instead of CUDA IPC (nccl).
          ways="1 0"
          [ $mode = mpi ] && ways="1 0 nccl"
          for way in $ways; do
            if [ $mode = process ]; then
              set -- "$clkit" run gas --device "$set_k"
            else
              set -- $mpirun --allow-run-as-root -np "$k" "$clkit" run gas \
                --device cuda
            fi
            name="$out/check-$mode-$k-$way"
            peer=$way ipc=1
            [ $way = nccl ] && peer=1 ipc=0
            CLKIT_PEER=$peer CLKIT_IPC=$ipc timeout 120 "$@" --particles 400000 \
              --steps 300 --log-every 0 --json --quiet --spread --shares "$shares" \
              2> "$name.err" | python3 -c 'import json, sys
d = json.loads([l for l in sys.stdin if l.startswith("{")][-1])
print(" ".join("%s=%.17g" % (k, d[k]) for k in ("potential_energy",
      "total_energy", "pressure", "temperature")), end=" ")
print("wall=%.3f" % d["wall_s"])' > "$name.txt"
          done
          a="$out/check-$mode-$k-1.txt" alike=1
          for way in $ways; do
            b="$out/check-$mode-$k-$way.txt"
            [ -s "$b" ] && [ "$(cut -d' ' -f1-4 "$a")" = "$(cut -d' ' -f1-4 "$b")" ] ||
              alike=0
          done
          if [ $alike = 1 ]; then
            echo "$k GPUs, $mode: alike every way ($ways)"
          else
            echo "$k GPUs, $mode: DIFFER"
          fi
          for way in $ways; do cat "$out/check-$mode-$k-$way.txt"; done
          for way in $ways; do head -3 "$out/check-$mode-$k-$way.err"; done
        done
        # The GA's best, alone and spread: in one process and over MPI,
        # its ring crossing GPUs inside the launches (CLKIT_PEER unset)
        # and through the host (CLKIT_PEER=0).
        ga="--fn rastrigin --islands 2048 --island-size 256 --dim 32 --gens 1000"
        bests=""
        for run in alone process-1 process-0 mpi-1 mpi-0; do
          case $run in
            alone) set -- "$clkit" run ga --device cuda:0 ;;
            process-*) set -- "$clkit" run ga --device "$set_k" --spread ;;
            mpi-*) set -- $mpirun --allow-run-as-root -np "$k" "$clkit" run ga \
              --device cuda --spread ;;
          esac
          [ $run = alone ] || set -- "$@" --shares "$shares"
          peer=${run##*-}
          [ $run = alone ] && peer=1
          best=$(CLKIT_PEER=$peer timeout 120 "$@" $ga --json --quiet \
            2> /dev/null | python3 -c 'import json, sys
print(repr(json.loads([l for l in sys.stdin if l.startswith("{")][-1])["best"]))')
          bests="$bests $run=$best"
        done
        if [ "$(echo "$bests" | tr ' ' '\n' | sed '/^$/d' | cut -d= -f2 |
          sort -u | wc -l)" = 1 ]; then
          echo "$k GPUs, GA: alike every way:$bests"
        else
          echo "$k GPUs, GA: DIFFER:$bests"
        fi
      done ;;
    gas) scaling gas particles 4000000 --steps 1000 --log-every 0 ;;
    gas-ways)
      timeout "$limit" python3 bench/gas_ways.py "$clkit" "$out/gas_ways.txt" \
        --gpus "${WAYS_GPUS:-$gpus}" --repeat "${WAYS_REPEAT:-3}" \
        > "$out/gas_ways.log" 2>&1
      echo "rc=$?"
      cat "$out/gas_ways.txt" ;;
    gas-verlet)
      scaling gas particles 4000000 --steps 1000 --log-every 0 \
        --neighbors verlet ;;
    pso) scaling pso particles 1000000 --fn rastrigin --dim 100 --iters 300 ;;
    ga)
      scaling ga islands 4096 --fn rastrigin --dim 32 --island-size 256 \
        --gens 5000 ;;
    aco)
      if [ -z "$tsplib" ]; then
        echo "multi_gpu.sh: the aco section needs TSPLIB_DIR" >&2
        continue
      fi
      scaling aco ants 256 --instance "$tsplib/pr2392.tsp" --iters 30 ;;
    nn)
      # Its random data (47 MB) stays out of OUT_DIR.
      timeout "$limit" python3 bench/mlp_scaling.py "$build" /tmp/clkit-nn \
        --gpus "${NN_GPUS:-$gpus}" --repeat "$repeat" --epochs 4 \
        > "$out/nn.log" 2>&1
      echo "rc=$?"
      cp /tmp/clkit-nn/mlp_scaling.md /tmp/clkit-nn/mlp_scaling.csv \
        /tmp/clkit-nn/allreduce.csv "$out/" 2> /dev/null
      cat "$out/mlp_scaling.md" 2> /dev/null ;;
    *) echo "multi_gpu.sh: no section $section" >&2; exit 2 ;;
  esac
done
echo "== done $(date -u +%T)"
cat "$out/scaling.md" 2> /dev/null
