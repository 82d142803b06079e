"""Memory of MLP training: peak RSS and new pages per step, ferroflow vs TensorFlow.

Each library trains the MLP 784-256-256-10 (batch 128, Adam, 2 threads; the graph of
bench_mlp.py) in its own child process: `--warmup` steps, then `--steps` more. Printed
per library: the process's peak RSS after importing the library, after building and
warming up, and at the end, and the minor page faults per steady-state step (a page
fault is the kernel handing the process a fresh page: a step that allocates its large
buffers anew faults on every 4 KiB of them; one that reuses them takes none).

Run: python benches/python/bench_step_memory.py [--warmup N] [--steps N]
"""

import argparse
import json
import os
import resource

from _timing import run_each


def usage():
    """(peak RSS in MiB, minor page faults so far) of this process."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_maxrss / 1024, r.ru_minflt


def child(lib, warmup, steps):
    import bench_mlp

    if lib == "tensorflow":
        import tensorflow.compat.v1 as tf

        tf.disable_eager_execution()
    else:
        import ferroflow as tf
    imported, _ = usage()
    config = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
    step = bench_mlp.graph_step(tf, config, train=True)
    for _ in range(warmup):
        step()
    warm, faults0 = usage()
    for _ in range(steps):
        step()
    end, faults1 = usage()
    return {
        "imported": imported,
        "warm": warm,
        "end": end,
        "faults_per_step": (faults1 - faults0) / steps,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.child:
        print(json.dumps(child(args.child, args.warmup, args.steps)))
        return
    print(f"MLP Adam training, {args.warmup} warm-up + {args.steps} steps, peak RSS in MiB")
    print(f"{'library':12s} {'imported':>9s} {'warm':>9s} {'end':>9s} {'new pages/step':>15s}")
    libraries = (("ferroflow", "ferroflow"), ("tensorflow", "tensorflow"))
    results = run_each(__file__, libraries, "--warmup", args.warmup, "--steps", args.steps)
    for lib, r in results.items():
        print(
            f"{lib:12s} {r['imported']:9.0f} {r['warm']:9.0f} {r['end']:9.0f}"
            f" {r['faults_per_step']:15.2f}"
        )


if __name__ == "__main__":
    main()
