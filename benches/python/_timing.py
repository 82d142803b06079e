"""Timing shared by the side-by-side benchmark scripts."""

import importlib.util
import json
import subprocess
import sys
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


def installed(module):
    """Whether `module` can be imported (without importing it)."""
    return importlib.util.find_spec(module) is not None


def run_child(script, *args):
    """What a child process running `script` with `args` printed last, read as JSON.

    The side-by-side scripts measure each library in its own process: idle worker
    threads of one library (OpenMP's, OpenBLAS's, Eigen's spin before they sleep) would
    otherwise take the cores from the next.
    """
    cmd = [sys.executable, script, *map(str, args)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_each(script, libraries, *args):
    """`{library: result}` of `run_child(script, "--child", library, *args)` for each
    `(library, module)` pair whose module is installed; the others are skipped, with a
    line saying so."""
    results = {}
    for lib, module in libraries:
        if not installed(module):
            print(f"{module} not installed: {lib} skipped")
            continue
        results[lib] = run_child(script, "--child", lib, *args)
    return results
