"""Lookup-table throughput: ferroflow vs TensorFlow (`tensorflow.compat.v1`, graph mode).

Keys per second of one `Session.run` over a batch of B keys, B in {1,000, 10,000,
100,000}, in the same graph for both libraries, each library in its own process
(default session configuration):

    index_table_from_tensor(vocabulary of 100,000 strings[, num_oov_buckets=10])
        .lookup(keys): string keys, half in the vocabulary (drawn at random), half
        not; the keys fed through a placeholder ("feed": what serving a request
        costs, the strings' conversion included) or held in the graph as a
        constant ("in graph": the lookup kernel alone)
    MutableHashTable(int64, int64, default_value=-1): insert(keys, values) of B new
        int64 keys a call (the table grows, one batch after the other), then
        lookup(keys) of B keys, half inserted and half not; keys and values fed

A measurement is the best mean time per call of `--repeat` rounds of about a million
keys (at least 10 calls), after warm-up calls (for the inserts, a round of them). The
mutable table holds (repeat + 1) rounds' keys at the end (4 million with the
defaults). Each library's ids are checked against the vocabulary (positions; -1 or a
bucket in [100,000, 100,010) for keys not in it) and the mutable table's values
against those inserted; the two libraries' bucket ids are compared with each other
(both are FastHashSpec: Fingerprint64 of the key modulo the buckets). Prints keys/s
and ferroflow's ratio to TensorFlow's (ff/TF: above 1, ferroflow is faster).

Run: python benches/python/bench_lookup.py [--repeat 3] [--batches 1000,10000,100000]
"""

import argparse
import json
import os

import numpy as np
from _timing import best_per_call, run_each

VOCAB = 100_000
BUCKETS = 10


def vocabulary():
    """The 100,000 distinct vocabulary strings (bytes), and 100,000 others not in it."""
    rng = np.random.default_rng(0)
    draws = rng.choice(1 << 62, size=2 * VOCAB, replace=False)
    words = [b"w%016x" % int(d) for d in draws]
    return words[:VOCAB], words[VOCAB:]


def string_keys(batch, seed=1):
    """`batch` keys, half drawn from the vocabulary and half not, in random order.

    Returns:
        (the keys as an object array of bytes, each key's vocabulary position or -1).
    """
    vocab, others = vocabulary()
    rng = np.random.default_rng(seed)
    half = batch // 2
    positions = np.concatenate(
        [rng.integers(0, VOCAB, size=half), np.full(batch - half, -1, np.int64)]
    )
    oov = rng.integers(0, VOCAB, size=batch - half)
    keys = [vocab[p] for p in positions[:half]] + [others[i] for i in oov]
    order = rng.permutation(batch)
    return np.array(keys, dtype=object)[order], positions[order]


def check_ids(ids, want, buckets):
    """Asserts the ids of keys in the vocabulary are their positions; others -1 or a bucket."""
    ids = np.asarray(ids)
    known = want >= 0
    assert np.array_equal(ids[known], want[known]), "a vocabulary key got another id"
    if buckets:
        assert np.all((ids[~known] >= VOCAB) & (ids[~known] < VOCAB + buckets)), "bad bucket"
    else:
        assert np.all(ids[~known] == -1), "a key not in the vocabulary got an id"


def number_of_calls(batch):
    """Calls per round: about 1,000,000 keys' worth, at least 10."""
    return max(10, 1_000_000 // batch)


def index_table(tf, batch, buckets, mode, repeat):
    """(best seconds per call, the ids of the batch) of `index_table_from_tensor`'s lookup."""
    vocab, _ = vocabulary()
    keys, want = string_keys(batch)
    g = tf.Graph()
    with g.as_default():
        table = tf.contrib.lookup.index_table_from_tensor(
            tf.constant(vocab), num_oov_buckets=buckets
        )
        if mode == "feed":
            source = tf.placeholder(tf.string, [None], name="keys")
            feed = {source: keys}
        else:
            source, feed = tf.constant(keys.astype(bytes)), None
        ids = table.lookup(source)
        with tf.Session(graph=g) as sess:
            sess.run(tf.tables_initializer())
            got = sess.run(ids, feed)
            check_ids(got, want, buckets)
            seconds = best_per_call(
                lambda: sess.run(ids, feed), number_of_calls(batch), repeat, warmup=None
            )
    return seconds, got.tolist()


def mutable_table(tf, batch, repeat):
    """(best seconds per insert call, best seconds per lookup call) of a MutableHashTable."""
    number = number_of_calls(batch)
    rng = np.random.default_rng(2)
    # Distinct keys for every insert call: a warm-up round and `repeat` timed rounds.
    calls = number * (repeat + 1)
    all_keys = rng.choice(1 << 62, size=calls * batch + batch, replace=False).astype(np.int64)
    missing, all_keys = all_keys[:batch], all_keys[batch:].reshape(calls, batch)
    all_values = rng.integers(0, 1 << 40, size=(calls, batch), dtype=np.int64)
    g = tf.Graph()
    with g.as_default():
        table = tf.contrib.lookup.MutableHashTable(tf.int64, tf.int64, default_value=-1)
        keys = tf.placeholder(tf.int64, [None], name="keys")
        values = tf.placeholder(tf.int64, [None], name="values")
        insert = table.insert(keys, values)
        found = table.lookup(keys)
        with tf.Session(graph=g) as sess:
            state = {"call": 0}

            def insert_next():
                i = state["call"]
                sess.run(insert, {keys: all_keys[i], values: all_values[i]})
                state["call"] = i + 1

            insert_seconds = best_per_call(insert_next, number, repeat, warmup=number)
            assert state["call"] == calls
            # Half inserted (from every call's batch), half never inserted.
            rows = rng.integers(0, calls, size=batch // 2)
            cols = rng.integers(0, batch, size=batch // 2)
            lookup_keys = np.concatenate([all_keys[rows, cols], missing[: batch - batch // 2]])
            want = np.concatenate([all_values[rows, cols], np.full(batch - batch // 2, -1)])
            order = rng.permutation(batch)
            lookup_keys, want = lookup_keys[order], want[order]
            assert np.array_equal(sess.run(found, {keys: lookup_keys}), want), "bad values"
            assert sess.run(table.size()) == calls * batch
            lookup_seconds = best_per_call(
                lambda: sess.run(found, {keys: lookup_keys}), number, repeat
            )
    return insert_seconds, lookup_seconds


def child(lib, batches, repeat):
    """{row name: seconds per call}, and the ids of the first batch with buckets."""
    if lib == "tensorflow":
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
        if not hasattr(tf, "contrib"):  # TF 2.x: the same functions, in lookup_ops
            import types

            from tensorflow.python.ops import lookup_ops

            tf.contrib = types.SimpleNamespace(lookup=lookup_ops)
            tf.contrib.lookup.MutableHashTable = tf.lookup.experimental.MutableHashTable
    else:
        import ferroflow as tf

    rows, bucket_ids = {}, None
    for batch in batches:
        for buckets in (0, BUCKETS):
            for mode in ("feed", "in graph"):
                seconds, ids = index_table(tf, batch, buckets, mode, repeat)
                rows[f"index/{buckets}/{mode}/{batch}"] = seconds
                if buckets and bucket_ids is None:
                    bucket_ids = ids
        insert_seconds, lookup_seconds = mutable_table(tf, batch, repeat)
        rows[f"mutable/insert/{batch}"] = insert_seconds
        rows[f"mutable/lookup/{batch}"] = lookup_seconds
    return {"rows": rows, "bucket_ids": bucket_ids}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batches", default="1000,10000,100000", help="comma-separated")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.child:
        print(json.dumps(child(args.child, batches, args.repeat)))
        return

    results = run_each(
        __file__,
        (("ferroflow", "ferroflow"), ("tensorflow", "tensorflow")),
        *("--repeat", args.repeat, "--batches", args.batches),
    )
    if len(results) == 2:
        ours, theirs = (results[lib]["bucket_ids"] for lib in ("ferroflow", "tensorflow"))
        assert ours == theirs, "ferroflow's bucket ids differ from TensorFlow's"
        print("ids checked; ferroflow's bucket ids are TensorFlow's")
    ours, theirs = (results.get(lib, {}).get("rows", {}) for lib in ("ferroflow", "tensorflow"))

    def num(x):
        return f"{x:13,.0f}" if x else f"{'-':>13s}"

    print(f"\nkeys/s, best of {args.repeat}")
    print(f"{'table, op':50s} {'B':>7s} {'ferroflow':>13s} {'tensorflow':>13s} {'ff/TF':>6s}")
    labels = []
    for buckets in (0, BUCKETS):
        for mode in ("feed", "in graph"):
            name = f"index_table_from_tensor, {buckets} oov buckets, {mode}"
            labels.append((f"index/{buckets}/{mode}", name))
    labels += [
        ("mutable/insert", "MutableHashTable int64 insert (new keys)"),
        ("mutable/lookup", "MutableHashTable int64 lookup"),
    ]
    for key, name in labels:
        for batch in batches:
            ff, tf = ours.get(f"{key}/{batch}"), theirs.get(f"{key}/{batch}")
            ff_rate, tf_rate = (batch / s if s else None for s in (ff, tf))
            ratio = f"{ff_rate / tf_rate:6.2f}" if ff_rate and tf_rate else f"{'-':>6s}"
            print(f"{name:50s} {batch:7,d} {num(ff_rate)} {num(tf_rate)} {ratio}")


if __name__ == "__main__":
    main()
