"""ferroflow on /gpu:0 (the wgpu backend) against the CPU and PyTorch.

1. One Adam update at N float32 parameters (1M, 16M, and 256M on a hardware GPU),
   variable, slots and gradient resident on the device: milliseconds per step and the
   memory traffic achieved (28 bytes per parameter: reads of the variable, gradient
   and both slots, writes of the variable and slots), on /gpu:0 and /cpu:0, and
   PyTorch's fused Adam on CUDA when PyTorch sees a GPU (else on the CPU).
2. A training step of an MLP 784-256-256-10 (batch 128, ReLU, softmax cross entropy,
   Adam; the batch fed each step), on /gpu:0 and /cpu:0, and PyTorch (CUDA when it
   sees a GPU, else the CPU).

GPU work is queued: each timing runs its steps, then reads one value back, which
waits for everything queued before it. On Mesa's software driver (lavapipe, as in
CI: `FERROFLOW_GPU=software`) the "GPU" is the CPU, so the figures only show that the
path runs.

Run: FERROFLOW_GPU=software python benches/python/bench_gpu.py [--steps N] [--sizes 1M,16M]
"""

import argparse
import itertools
import os
import time

import numpy as np

ADAM_BYTES_PER_PARAM = 28
BATCH, LAYERS = 128, (784, 256, 256, 10)


def parse_size(text):
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper()
    return int(text[:-1]) * scale[text[-1]] if text[-1] in scale else int(text)


def timed(run_steps, sync, steps, repeat=3):
    """Best seconds per step over `repeat` rounds of `steps` steps, each round ended
    by `sync` (which waits for the queued work)."""
    run_steps(2)
    sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run_steps(steps)
        sync()
        best = min(best, (time.perf_counter() - t0) / steps)
    return best


def ferroflow_adam(tf, device, n, steps):
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        var = tf.Variable(tf.random_normal([n], seed=1))
        grad = tf.Variable(tf.random_normal([n], seed=2) * 1e-3)
        flag = tf.Variable([0.0])
        opt = tf.train.AdamOptimizer(1e-3)
        update = opt.apply_gradients([(grad, var)])
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())

            def run_steps(k):
                for _ in range(k):
                    sess.run(update)

            return timed(run_steps, lambda: sess.run(flag), steps)


def torch_adam(torch, device, n, steps):
    p = torch.nn.Parameter(torch.randn(n, device=device))
    p.grad = torch.randn(n, device=device) * 1e-3
    opt = torch.optim.Adam([p], lr=1e-3, fused=device == "cuda" or None)

    def run_steps(k):
        for _ in range(k):
            opt.step()

    def sync():
        if device == "cuda":
            torch.cuda.synchronize()

    return timed(run_steps, sync, steps)


def mlp_data():
    rng = np.random.default_rng(0)
    weights = [
        (rng.normal(size=(a, b)) * np.sqrt(2.0 / a)).astype(np.float32)
        for a, b in itertools.pairwise(LAYERS)
    ]
    x = rng.normal(size=(BATCH, LAYERS[0])).astype(np.float32)
    y = rng.integers(0, LAYERS[-1], size=BATCH).astype(np.int32)
    return weights, x, y


def ferroflow_mlp(tf, device, steps):
    weights, xs, ys = mlp_data()
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        x = tf.placeholder(tf.float32, [BATCH, LAYERS[0]])
        y = tf.placeholder(tf.int32, [BATCH])
        h = x
        for i, w0 in enumerate(weights):
            w = tf.Variable(w0)
            b = tf.Variable(np.zeros(w0.shape[1], np.float32))
            h = tf.nn.bias_add(tf.matmul(h, w), b)
            if i < len(weights) - 1:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train = tf.train.AdamOptimizer(1e-3).minimize(loss)
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: xs, y: ys}

            def run_steps(k):
                for _ in range(k):
                    sess.run(train, feed)

            return timed(run_steps, lambda: sess.run(loss, feed), steps)


def torch_mlp(torch, device, steps):
    weights, xs, ys = mlp_data()
    layers = []
    for w0 in weights:
        lin = torch.nn.Linear(*w0.shape).to(device)
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w0.T))
            lin.bias.zero_()
        layers += [lin, torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=device == "cuda" or None)
    x_host, y_host = torch.from_numpy(xs), torch.from_numpy(ys).long()

    def run_steps(k):
        for _ in range(k):
            # The batch goes up each step, as ferroflow's feed does.
            x, y = x_host.to(device), y_host.to(device)
            opt.zero_grad(set_to_none=True)
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()

    def sync():
        if device == "cuda":
            torch.cuda.synchronize()

    return timed(run_steps, sync, steps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--sizes", default=None, help="Adam sizes, e.g. 1M,16M,256M")
    args = ap.parse_args()

    os.environ.setdefault("OMP_NUM_THREADS", "2")
    import ferroflow as tf

    gpu = tf.test.gpu_device_name()
    if not gpu:
        raise SystemExit(
            "no GPU adapter: ferroflow sees none (set FERROFLOW_GPU=software for Mesa's lavapipe)"
        )
    from ferroflow.client import device_lib

    devices = device_lib.list_local_devices()
    desc = [d.physical_device_desc for d in devices if d.device_type == "GPU"]
    software = "Cpu" in desc[0]
    print(f"ferroflow {gpu}: {desc[0]}")
    try:
        import torch

        torch.set_num_threads(2)
        torch_device = "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:
        torch, torch_device = None, None
    print(f"PyTorch: {torch_device or 'not installed'}\n")

    sizes = args.sizes or ("1M,16M" if software else "1M,16M,256M")
    print("Adam update (28 bytes per parameter)")
    print(f"{'params':>8} {'device':>20} {'ms/step':>10} {'GB/s':>8}")
    for n in map(parse_size, sizes.split(",")):
        rows = [
            (f"ferroflow {gpu.split('device:')[-1]}", ferroflow_adam(tf, "/gpu:0", n, args.steps)),
            ("ferroflow CPU:0", ferroflow_adam(tf, "/cpu:0", n, args.steps)),
        ]
        if torch is not None:
            rows.append((f"torch {torch_device}", torch_adam(torch, torch_device, n, args.steps)))
        for name, sec in rows:
            gbs = ADAM_BYTES_PER_PARAM * n / sec / 1e9
            print(f"{n >> 20:>7}M {name:>20} {sec * 1e3:>10.3f} {gbs:>8.1f}")
        if torch is not None:
            print(f"{'':>8} {'GPU vs torch':>20} {rows[2][1] / rows[0][1]:>10.2f}x")

    print("\nMLP 784-256-256-10, batch 128, Adam step")
    rows = [
        ("ferroflow GPU:0", ferroflow_mlp(tf, "/gpu:0", args.steps * 5)),
        ("ferroflow CPU:0", ferroflow_mlp(tf, "/cpu:0", args.steps * 5)),
    ]
    if torch is not None:
        rows.append((f"torch {torch_device}", torch_mlp(torch, torch_device, args.steps * 5)))
    for name, sec in rows:
        print(f"{name:>20} {sec * 1e3:>10.3f} ms {1 / sec:>10.0f} steps/s")
    if torch is not None:
        print(f"{'GPU vs torch':>20} {rows[2][1] / rows[0][1]:>10.2f}x (above 1: ferroflow faster)")
    if software:
        print("\n(software adapter: the GPU path runs on the CPU; figures are a smoke run)")


if __name__ == "__main__":
    main()
