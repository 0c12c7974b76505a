#!/usr/bin/env python3
"""PyTorch DDP's MLP training over GPUs: the peer of `clkit run nn --spread`.

The network of bench_nn and torch_mlp.py (784-1024-1024-10 by default,
ReLU, softmax cross-entropy, Adam at lr 0.001, fused), on synthetic rows
resident on each GPU, each process taking `--batch` rows a step (weak
scaling: the global batch grows with the GPUs). DistributedDataParallel
sums the gradients over NCCL. Prints samples/s over all processes, the
median of --repeat timed runs of --steps steps after a warm-up.

    torchrun --nproc_per_node=N bench/torch_ddp.py [--network 784-1024-1024-10]
        [--batch 1024] [--steps 200] [--repeat 3] [--tf32]

--tf32 lets the products run on tensor cores in TF32, as clkit's
`--math tf32` does.

Without torchrun (one process, no DDP) it measures the one-GPU base.
"""
import argparse
import os
import statistics
import sys
import time

try:
    import torch
    import torch.distributed as dist
except ImportError:
    print("torch_ddp: PyTorch is not installed; nothing measured")
    sys.exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--network", default="784-1024-1024-10")
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tf32", action="store_true")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    if not torch.cuda.is_available():
        print("torch_ddp: no GPU; nothing measured")
        return
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    if world > 1:
        dist.init_process_group("nccl")
    sizes = [int(s) for s in args.network.split("-")]
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    torch.manual_seed(1)
    model = torch.nn.Sequential(*layers[:-1]).cuda()
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(
            model, device_ids=[local])
    optimiser = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)
    loss_fn = torch.nn.CrossEntropyLoss()
    rows = args.batch * 16
    x = torch.rand(rows, sizes[0], device="cuda")
    y = torch.arange(rows, device="cuda") % sizes[-1]

    def run(steps):
        for step in range(steps):
            at = (step % 16) * args.batch
            optimiser.zero_grad(set_to_none=True)
            loss = loss_fn(model(x[at:at + args.batch]), y[at:at + args.batch])
            loss.backward()
            optimiser.step()
        torch.cuda.synchronize()

    run(20)
    rates = []
    for _ in range(args.repeat):
        if world > 1:
            dist.barrier()
        started = time.perf_counter()
        run(args.steps)
        seconds = time.perf_counter() - started
        rates.append(world * args.batch * args.steps / seconds)
    if rank == 0:
        print(f"torch_ddp: {world} GPU(s), {args.network}"
              f"{', TF32' if args.tf32 else ''}, batch "
              f"{args.batch} a GPU: {statistics.median(rates):.4g} samples/s "
              f"(PyTorch {torch.__version__}, "
              f"{torch.cuda.get_device_name(local)})")
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
