"""Timing shared by the side-by-side benchmark scripts."""

import time


def best_per_call(fn, number, repeat, warmup=None):
    """Best mean time per call (seconds) over `repeat` rounds of `number` calls.

    `warmup` calls (default: `number`, at most 200) run first so caches, thread pools
    and lazily built plans are in place.
    """
    for _ in range(min(number, 200) if warmup is None else warmup):
        fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best
