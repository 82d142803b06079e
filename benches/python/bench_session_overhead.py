"""Per-call `Session.run` overhead: ferroflow vs TensorFlow (compat.v1) in the same run.

Four cases from the foundation issue: (a) run a no_op, (b) fetch a scalar add,
(c) a 10-op scalar chain, (d) feed 100 floats and fetch their sum. Each is timed
through `Session.run` and through `make_callable` (TF's fastest path), with both
libraries given a 2-thread pool. Also times a 1024x1024 float32 matmul against numpy.

Run: python benches/python/bench_session_overhead.py [--repeat N]
"""

import argparse
import os
import time

import numpy as np
from _timing import best_per_call


def build_cases(tf):
    """The four graphs; returns {case: (fetch, feed_tensor_or_None, feed_value)}."""
    noop = tf.no_op()
    add = tf.constant(1.0) + tf.constant(2.0)
    chain = tf.constant(1.0)
    for _ in range(10):
        chain = chain * 1.0001
    p = tf.placeholder(tf.float32, [100])
    total = tf.reduce_sum(p)
    feed = np.arange(100, dtype=np.float32)
    return {
        "a no_op": (noop, None, None),
        "b scalar add": (add, None, None),
        "c 10-op chain": (chain, None, None),
        "d feed 100, sum": (total, p, feed),
    }


def time_library(tf, config, number, repeat):
    g = tf.Graph()
    results = {}
    with g.as_default():
        cases = build_cases(tf)
        with tf.Session(graph=g, config=config) as sess:
            for name, (fetch, ph, value) in cases.items():
                feed = {ph: value} if ph is not None else None
                run_t = best_per_call(lambda f=fetch, d=feed: sess.run(f, d), number, repeat)
                call = sess.make_callable(fetch, [ph] if ph is not None else None)
                args = (value,) if ph is not None else ()
                fast_t = best_per_call(lambda c=call, a=args: c(*a), number, repeat)
                results[name] = (run_t, fast_t)
    return results


def time_matmul(tf, threads, rounds):
    """Interleaved rounds of numpy vs ferroflow 1024^2 float32 matmul with `threads` threads.

    Returns (numpy best, ferroflow best, numpy median, ferroflow median) in seconds.
    Multi-threaded timings on small shared VMs are noisy, hence best and median of
    interleaved single calls.
    """
    rng = np.random.default_rng(0)
    a = rng.normal(size=(1024, 1024)).astype(np.float32)
    b = rng.normal(size=(1024, 1024)).astype(np.float32)
    cfg = tf.ConfigProto(inter_op_parallelism_threads=threads, intra_op_parallelism_threads=threads)
    g = tf.Graph()
    with g.as_default():
        prod = tf.matmul(tf.constant(a), tf.constant(b))
        with tf.Session(graph=g, config=cfg) as sess:
            run = sess.make_callable(prod)
            np.testing.assert_allclose(run(), a @ b, rtol=1e-3, atol=1e-2)
            limiter = _blas_limiter(threads)
            with limiter:
                ours, theirs = [], []
                for _ in range(rounds):
                    t0 = time.perf_counter()
                    _ = a @ b
                    t1 = time.perf_counter()
                    run()
                    t2 = time.perf_counter()
                    theirs.append(t1 - t0)
                    ours.append(t2 - t1)
    theirs.sort()
    ours.sort()
    return theirs[0], ours[0], theirs[len(theirs) // 2], ours[len(ours) // 2]


def _blas_limiter(threads):
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # numpy then uses all cores
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(limits=threads, user_api="blas")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-tf", action="store_true", help="skip TensorFlow")
    parser.add_argument("--skip-matmul", action="store_true")
    args = parser.parse_args()

    import ferroflow as ff

    if not args.skip_matmul:
        # Before TensorFlow is imported: it changes thread settings process-wide.
        for threads in (1, 2):
            np_best, ff_best, np_med, ff_med = time_matmul(ff, threads, 20)
            print(
                f"matmul 1024^2 f32, {threads} thread(s): numpy {np_best * 1e3:.1f} ms "
                f"(median {np_med * 1e3:.1f}), ferroflow {ff_best * 1e3:.1f} ms "
                f"(median {ff_med * 1e3:.1f}); ferroflow speed = {np_best / ff_best:.2f}x "
                f"numpy (medians {np_med / ff_med:.2f}x)"
            )

    ff_cfg = ff.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
    ours = time_library(ff, ff_cfg, args.number, args.repeat)
    theirs = None
    if not args.no_tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf1

        tf1.disable_v2_behavior()
        tf_cfg = tf1.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        theirs = time_library(tf1, tf_cfg, max(args.number // 4, 200), args.repeat)

    header = f"{'case':18s} {'ferroflow run':>14s} {'ff callable':>12s}"
    if theirs:
        header += f" {'TF run':>10s} {'TF callable':>12s} {'TF/ff run':>10s} {'TF/ff call':>10s}"
    print(header)
    for name, (run_t, fast_t) in ours.items():
        line = f"{name:18s} {run_t * 1e6:11.2f} us {fast_t * 1e6:9.2f} us"
        if theirs:
            trun, tfast = theirs[name]
            line += (
                f" {trun * 1e6:7.1f} us {tfast * 1e6:9.2f} us {trun / run_t:9.1f}x"
                f" {tfast / fast_t:9.1f}x"
            )
        print(line)


if __name__ == "__main__":
    main()
