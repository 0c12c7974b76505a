#!/usr/bin/env python3
"""The MLP benchmark of bench_nn, in PyTorch: the peer for clkit's CUDA path.

Same work as bench_nn: a dense network (ReLU hidden layers, softmax
cross-entropy), Adam at lr 0.001, synthetic rows of uniform features in
[0, 1) and labels r mod classes, resident on the GPU, shuffled each
epoch; samples/s over whole training epochs (the median of --epochs after
one warm-up epoch), in FP32 or TF32 (torch.backends.*.allow_tf32).

Three ways of writing the training step (--modes), since the peer a user
would pick is not one program:
  eager   the plain loop, Adam as it comes (PyTorch's default kernels);
  fused   the same loop with Adam(fused=True), one kernel for the update;
  graph   fused Adam (capturable), the whole step captured once in a CUDA
          graph and replayed a batch at a time (the batch copied into the
          graph's input first): no Python between the kernels.

GFLOP/s counts what training computes: 2 flops a weight a sample forward,
4 backward (the weights' gradient and the layer's input deltas), less the
first layer's input deltas, which nothing needs (6 W - 2 n0 n1 a sample).

    python3 bench/torch_mlp.py [--rows N] [--epochs E] [--math fp32|tf32]
        [--networks 784-1024-1024-10,...] [--batches 256,1024]
        [--modes eager,fused,graph]
"""
import argparse
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print("torch_mlp: PyTorch is not installed; nothing measured")
    sys.exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=16384)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--math", choices=["fp32", "tf32"], default="fp32")
    parser.add_argument("--networks", default="784-1024-1024-10")
    parser.add_argument("--batches", default="256,1024")
    parser.add_argument("--modes", default="eager,fused,graph")
    args = parser.parse_args()
    modes = args.modes.split(",")
    for mode in modes:
        if mode not in ("eager", "fused", "graph"):
            parser.error(f"--modes: unknown mode '{mode}'")
    if not torch.cuda.is_available():
        print("torch_mlp: no CUDA device; nothing measured")
        return
    tf32 = args.math == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    device = torch.device("cuda")
    print(f"# PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}")
    print(f"{'peer':14} {'network':20} {'batch':>6} {'samples/s':>14} "
          f"{'GFLOP/s':>10} {'epoch_s':>10} math  loss (before -> after)")
    for network in args.networks.split(","):
        sizes = [int(x) for x in network.split("-")]
        generator = torch.Generator(device="cpu").manual_seed(12345)
        features = torch.rand(args.rows, sizes[0], generator=generator).to(device)
        labels = (torch.arange(args.rows) % sizes[-1]).to(device)
        weights = sum(sizes[i] * (sizes[i - 1] + 1) for i in range(1, len(sizes)))
        flops = 6.0 * weights - 2.0 * sizes[0] * sizes[1]
        for batch in (int(b) for b in args.batches.split(",")):
            for mode in modes:
                rate, epoch_s, before, after = measure(
                    mode, sizes, batch, features, labels, args, device)
                print(f"{'pytorch-' + mode:14} {network:20} {batch:6d} "
                      f"{rate:14.0f} {flops * rate * 1e-9:10.1f} "
                      f"{epoch_s:10.4f} {args.math.upper():4}  "
                      f"{before:.4f} -> {after:.4f}", flush=True)


def measure(mode, sizes, batch, features, labels, args, device):
    """samples/s and seconds of an epoch (the median of args.epochs after a
    warm-up epoch) for one way of writing the step, and the loss on the
    first rows before and after: a step that trains lowers it."""
    layers = []
    for i in range(1, len(sizes)):
        layers.append(torch.nn.Linear(sizes[i - 1], sizes[i]))
        if i + 1 < len(sizes):
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers).to(device)
    if mode == "eager":
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    else:
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True,
                                     capturable=mode == "graph")
    loss_fn = torch.nn.CrossEntropyLoss()
    rows = features.shape[0]

    def loss_now():
        with torch.no_grad():
            return loss_fn(model(features[:4096]), labels[:4096]).item()

    before = loss_now()

    def step(inputs, targets):
        optimizer.zero_grad(set_to_none=mode != "graph")
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        return loss

    replay = None
    if mode == "graph":
        # Every batch the same size, so that one captured step serves all.
        if rows % batch:
            raise SystemExit("torch_mlp: --modes graph needs rows a multiple "
                             "of the batch")
        static_inputs = features[:batch].clone()
        static_targets = labels[:batch].clone()
        # Warm up on a side stream, as capture requires; the gradients then
        # exist, and zero_grad keeps them (set_to_none off) so that their
        # memory is the graph's.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                step(static_inputs, static_targets)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_loss = step(static_inputs, static_targets)

        def replay(inputs, targets):
            static_inputs.copy_(inputs)
            static_targets.copy_(targets)
            graph.replay()
            return static_loss

    def epoch():
        order = torch.randperm(rows, device=device)
        for first in range(0, rows, batch):
            chosen = order[first:first + batch]
            if replay:
                replay(features[chosen], labels[chosen])
            else:
                step(features[chosen], labels[chosen])
        torch.cuda.synchronize()

    epoch()  # warm-up
    seconds = []
    for _ in range(args.epochs):
        started = time.perf_counter()
        epoch()
        seconds.append(time.perf_counter() - started)
    epoch_s = statistics.median(seconds)
    return rows / epoch_s, epoch_s, before, loss_now()


if __name__ == "__main__":
    main()
