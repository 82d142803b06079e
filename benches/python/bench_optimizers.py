"""One optimizer update step at N = 1M and 16M float32 parameters (`--sizes` for others).

Times ferroflow's fused update (`apply_gradients`), TensorFlow's (compat.v1
`apply_gradients`), PyTorch's `torch.optim` (foreach, and fused where it has one) and a
plain fused C loop compiled here with `-O3 -march=native -fopenmp`
(and `-fno-math-errno`) (the practical
ceiling: the update is memory-bound), all with 2 threads, in the same process. Prints
ns per parameter and the memory traffic in GB/s.

Run: python benches/python/bench_optimizers.py [--steps N] [--kinds adam ...] [--sizes 1 16]
     python benches/python/bench_optimizers.py --kinds adam --sizes 64 256 --only-c
"""

import argparse
import ctypes
import os
import subprocess
import tempfile

import numpy as np
from _timing import best_per_call

SIZES = [1 << 20, 1 << 24]
# Bytes moved per parameter: reads of param, grad and slots, writes of param and slots.
TRAFFIC = {"sgd": 12, "momentum": 20, "adam": 28, "adagrad": 20, "rmsprop": 28}

C_SOURCE = r"""
#include <math.h>
#include <stddef.h>
void sgd(float *p, const float *g, ptrdiff_t n, float lr) {
  #pragma omp parallel for simd schedule(static)
  for (ptrdiff_t i = 0; i < n; i++) p[i] -= lr * g[i];
}
void momentum(float *p, float *a, const float *g, ptrdiff_t n, float lr, float mom) {
  #pragma omp parallel for simd schedule(static)
  for (ptrdiff_t i = 0; i < n; i++) { a[i] = a[i] * mom + g[i]; p[i] -= lr * a[i]; }
}
void adam(float *p, float *m, float *v, const float *g, ptrdiff_t n, float alpha,
          float b1, float b2, float eps) {
  #pragma omp parallel for simd schedule(static)
  for (ptrdiff_t i = 0; i < n; i++) {
    m[i] += (g[i] - m[i]) * (1 - b1);
    v[i] += (g[i] * g[i] - v[i]) * (1 - b2);
    p[i] -= m[i] * alpha / (sqrtf(v[i]) + eps);
  }
}
void adagrad(float *p, float *a, const float *g, ptrdiff_t n, float lr) {
  #pragma omp parallel for simd schedule(static)
  for (ptrdiff_t i = 0; i < n; i++) { a[i] += g[i] * g[i]; p[i] -= g[i] * lr / sqrtf(a[i]); }
}
void rmsprop(float *p, float *ms, float *mom, const float *g, ptrdiff_t n, float lr,
             float rho, float momentum, float eps) {
  #pragma omp parallel for simd schedule(static)
  for (ptrdiff_t i = 0; i < n; i++) {
    ms[i] += (g[i] * g[i] - ms[i]) * (1 - rho);
    mom[i] = mom[i] * momentum + g[i] * lr / sqrtf(ms[i] + eps);
    p[i] -= mom[i];
  }
}
"""


def c_reference():
    """The plain fused loops, compiled now; None without a C compiler."""
    tmp = tempfile.mkdtemp()
    src, lib = os.path.join(tmp, "ref.c"), os.path.join(tmp, "ref.so")
    with open(src, "w") as f:
        f.write(C_SOURCE)
    # -fno-math-errno lets sqrtf vectorise (as in Rust, which has no errno).
    cmd = ["cc", "-O3", "-march=native", "-fno-math-errno", "-fopenmp", "-shared", "-fPIC"]
    cmd += [src, "-o", lib, "-lm"]
    try:
        subprocess.run(cmd, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return ctypes.CDLL(lib)


def c_step(ref, kind, n):
    rng = np.random.default_rng(0)
    p, g = rng.normal(size=n).astype(np.float32), rng.normal(size=n).astype(np.float32)
    a, v = np.ones(n, np.float32), np.zeros(n, np.float32)
    ptr = lambda x: x.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
    size, f = ctypes.c_ssize_t(n), ctypes.c_float
    if kind == "sgd":
        return lambda: ref.sgd(ptr(p), ptr(g), size, f(0.01))
    if kind == "momentum":
        return lambda: ref.momentum(ptr(p), ptr(a), ptr(g), size, f(0.01), f(0.9))
    if kind == "adagrad":
        return lambda: ref.adagrad(ptr(p), ptr(a), ptr(g), size, f(0.01))
    if kind == "rmsprop":
        args = (f(0.01), f(0.9), f(0.9), f(1e-10))
        return lambda: ref.rmsprop(ptr(p), ptr(a), ptr(v), ptr(g), size, *args)
    return lambda: ref.adam(
        ptr(p), ptr(a), ptr(v), ptr(g), size, f(1e-3), f(0.9), f(0.999), f(1e-8)
    )


def graph_step(tf, config, kind, n):
    """One `apply_gradients` step of a TF-1.x style library; the gradient is a variable."""
    rng = np.random.default_rng(0)
    g = tf.Graph()
    with g.as_default():
        p = tf.Variable(rng.normal(size=n).astype(np.float32))
        grad = tf.Variable(rng.normal(size=n).astype(np.float32))
        opt = {
            "sgd": lambda: tf.train.GradientDescentOptimizer(0.01),
            "momentum": lambda: tf.train.MomentumOptimizer(0.01, 0.9),
            "adam": lambda: tf.train.AdamOptimizer(1e-3),
            "adagrad": lambda: tf.train.AdagradOptimizer(0.01),
            "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.9),
        }[kind]()
        train = opt.apply_gradients([(grad.value(), p)])
        sess = tf.Session(graph=g, config=config)
        sess.run(tf.global_variables_initializer())
        return sess.make_callable(train)


def torch_steps(kind, n):
    """{variant: step} for torch.optim (foreach, and fused where available)."""
    import torch

    torch.set_num_threads(2)
    out = {}
    for variant in ("foreach", "fused"):
        p = torch.nn.Parameter(torch.randn(n))
        p.grad = torch.randn(n)
        kwargs = {variant: True}
        try:
            if kind == "sgd":
                opt = torch.optim.SGD([p], lr=0.01, **kwargs)
            elif kind == "momentum":
                opt = torch.optim.SGD([p], lr=0.01, momentum=0.9, **kwargs)
            elif kind == "adagrad":
                opt = torch.optim.Adagrad([p], lr=0.01, **kwargs)
            elif kind == "rmsprop":
                opt = torch.optim.RMSprop([p], lr=0.01, momentum=0.9, **kwargs)
            else:
                opt = torch.optim.Adam([p], lr=1e-3, **kwargs)
            opt.step()
        except (RuntimeError, TypeError, ValueError):
            continue
        out[f"pytorch {variant}"] = opt.step
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--kinds", nargs="+", default=list(TRAFFIC), choices=list(TRAFFIC))
    parser.add_argument(
        "--sizes", nargs="+", type=int, default=[n >> 20 for n in SIZES], help="in M parameters"
    )
    parser.add_argument(
        "--only-c", action="store_true", help="ferroflow and the C loop only (large sizes)"
    )
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("OMP_NUM_THREADS", "2")

    import ferroflow as ff

    # torch.optim imports its compiler stack on the first step; it must load LLVM before
    # TensorFlow's XLA has registered LLVM's options, or the process aborts.
    torch_ok = not args.only_c
    try:
        torch_steps("adam", 16)
        for kind in ("momentum", "adagrad", "rmsprop"):
            torch_steps(kind, 16)
    except ImportError:
        torch_ok = False
    libs = {"ferroflow": (ff, ff.ConfigProto(intra_op_parallelism_threads=2))}
    try:
        if args.only_c:
            raise ImportError
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
        cfg = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
        libs["tensorflow"] = (tf, cfg)
    except ImportError:
        pass
    ref = c_reference()
    print("ns per parameter (GB/s of parameter+slot traffic); ratio = time / ferroflow's")
    for kind in args.kinds:
        for n in (m << 20 for m in args.sizes):
            steps = {name: graph_step(lib, cfg, kind, n) for name, (lib, cfg) in libs.items()}
            if torch_ok:
                steps.update(torch_steps(kind, n))
            if ref is not None:
                steps["plain C loop"] = c_step(ref, kind, n)
            times = {name: best_per_call(s, args.steps, repeat=3) for name, s in steps.items()}
            ours = times["ferroflow"]
            cells = []
            for name, t in times.items():
                ns = t / n * 1e9
                gbs = TRAFFIC[kind] * n / t / 1e9
                ratio = "" if name == "ferroflow" else f", {t / ours:.2f}x"
                cells.append(f"{name} {ns:.3f} ({gbs:.1f} GB/s{ratio})")
            print(f"{kind:9s} N={n >> 20:3d}M  " + "; ".join(cells))


if __name__ == "__main__":
    main()
