"""Graph- and op-level random seeds, combined exactly as TensorFlow 1.x does."""

from __future__ import annotations

from . import ops

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def _truncate_seed(seed: int) -> int:
    return seed % _MAXINT32


def get_seed(op_seed):
    """The `(seed, seed2)` pair a random op is created with.

    With a graph seed, an op without its own seed takes the graph's count of such ops
    so far (0, 1, 2, ...), so each random op of a seeded graph gets a distinct,
    reproducible stream that does not shift when unrelated ops are added (TF 1.x
    used the op count; later TF, whose numbers we match, uses this counter). With only an op
    seed, the graph seed defaults to `DEFAULT_GRAPH_SEED`. With neither, `(None,
    None)`: the op is seeded nondeterministically. `(0, 0)`, which the kernels read
    as "nondeterministic", becomes `(0, 2**31 - 1)`.
    """
    graph = ops.get_default_graph()
    global_seed = graph.seed
    seeds: tuple[int | None, int | None]
    if global_seed is not None:
        if op_seed is None:
            with graph._lock:
                op_seed = graph._unseeded_random_ops
                graph._unseeded_random_ops += 1
        seeds = _truncate_seed(global_seed), _truncate_seed(op_seed)
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate_seed(op_seed)
    else:
        seeds = None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


def set_random_seed(seed) -> None:
    """Sets the default graph's random seed.

    Random ops created afterwards in this graph without an op-level seed become
    deterministic: the same graph gives the same numbers in every run of the program.
    """
    ops.get_default_graph().seed = seed
