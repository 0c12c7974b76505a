#!/usr/bin/env python3
"""The MLP benchmark of bench_nn, in PyTorch: the peer for clkit's CUDA path.

Same work as bench_nn: a dense network (ReLU hidden layers, softmax
cross-entropy), Adam at lr 0.001, synthetic rows of uniform features in
[0, 1) and labels r mod classes, resident on the GPU, shuffled each
epoch; samples/s over whole training epochs (the median of --epochs after
one warm-up epoch), in FP32 or TF32 (torch.backends.*.allow_tf32).

    python3 bench/torch_mlp.py [--rows N] [--epochs E] [--math fp32|tf32]
        [--networks 784-1024-1024-10,...] [--batches 256,1024]
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
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("torch_mlp: no CUDA device; nothing measured")
        return
    tf32 = args.math == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    device = torch.device("cuda")
    print(f"# PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}")
    print(f"{'peer':10} {'network':20} {'batch':>6} {'samples/s':>14} "
          f"{'GFLOP/s':>10} {'epoch_s':>10} math")
    for network in args.networks.split(","):
        sizes = [int(x) for x in network.split("-")]
        generator = torch.Generator(device="cpu").manual_seed(12345)
        features = torch.rand(args.rows, sizes[0], generator=generator).to(device)
        labels = (torch.arange(args.rows) % sizes[-1]).to(device)
        weights = sum(sizes[i] * (sizes[i - 1] + 1) for i in range(1, len(sizes)))
        for batch in (int(b) for b in args.batches.split(",")):
            layers = []
            for i in range(1, len(sizes)):
                layers.append(torch.nn.Linear(sizes[i - 1], sizes[i]))
                if i + 1 < len(sizes):
                    layers.append(torch.nn.ReLU())
            model = torch.nn.Sequential(*layers).to(device)
            optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
            loss_fn = torch.nn.CrossEntropyLoss()

            def epoch():
                order = torch.randperm(args.rows, device=device)
                for first in range(0, args.rows, batch):
                    rows = order[first:first + batch]
                    optimizer.zero_grad(set_to_none=True)
                    loss = loss_fn(model(features[rows]), labels[rows])
                    loss.backward()
                    optimizer.step()
                torch.cuda.synchronize()

            epoch()  # warm-up
            seconds = []
            for _ in range(args.epochs):
                started = time.perf_counter()
                epoch()
                seconds.append(time.perf_counter() - started)
            epoch_s = statistics.median(seconds)
            rate = args.rows / epoch_s
            print(f"{'pytorch':10} {network:20} {batch:6d} {rate:14.0f} "
                  f"{6.0 * weights * rate * 1e-9:10.1f} {epoch_s:10.4f} "
                  f"{args.math.upper()}", flush=True)


if __name__ == "__main__":
    main()
