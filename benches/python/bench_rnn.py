"""LSTM training steps with `tf.nn.dynamic_rnn`: ferroflow vs TensorFlow vs PyTorch.

Two configurations: an LSTM of 256 units over 128 steps of 64-wide inputs, batch
64, regression loss on all outputs (the issue's "LSTM training step"); and the PTB
tutorial's small config (2 layers of 200 units, 20 steps, batch 20, vocabulary
10,000, embeddings and a softmax over the vocabulary). One SGD step per run, each
library in its own process with 2 threads: ferroflow and TensorFlow run the same
TF-1.x graph (TF's legacy `BasicLSTMCell`, control flow v1); PyTorch runs `nn.LSTM`
(skipped when torch is not installed). ferroflow runs the `dynamic_rnn` of
`BasicLSTMCell`s as one `BlockLSTM` op per layer (ops/rnn_fusion.py); the
`ferroflow-loop` row keeps its while loop (`FERROFLOW_FUSED_RNN=0`). The
`tensorflow-fused` row is TensorFlow's fastest form of the same model, one fused op
per layer (TF 1.x's `LSTMBlockFusedCell`; TensorFlow 2.x no longer ships it, so the
row builds the same `BlockLSTM` op from `tf.raw_ops`, with the same variables).
Prints milliseconds per step and ratios.

Run: python benches/python/bench_rnn.py [--steps N]
"""

import argparse
import json
import os

import numpy as np
from _timing import best_per_call, run_each

CONFIGS = {
    "lstm256": dict(batch=64, steps=128, inputs=64, hidden=256, layers=1, vocab=None),
    "ptb_small": dict(batch=20, steps=20, inputs=200, hidden=200, layers=2, vocab=10000),
}


def cell_rnn(cells):
    """The layers as `BasicLSTMCell`s under one `dynamic_rnn` (batch-major)."""

    def rnn(tf, x, cfg):
        layers = [cells.BasicLSTMCell(cfg["hidden"], forget_bias=0.0) for _ in range(cfg["layers"])]
        cell = layers[0] if len(layers) == 1 else cells.MultiRNNCell(layers)
        outputs, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
        return outputs

    return rnn


def fused_rnn(tf, x, cfg):
    """Each layer as one TensorFlow `BlockLSTM` op over the time-major sequence."""
    import tensorflow as tf2

    h, t = cfg["hidden"], cfg["steps"]
    y = tf.transpose(x, [1, 0, 2])
    for layer in range(cfg["layers"]):
        with tf.variable_scope(f"layer_{layer}"):
            depth = y.shape.as_list()[-1]
            w = tf.get_variable("kernel", [depth + h, 4 * h])
            b = tf.get_variable("bias", [4 * h], initializer=tf.zeros_initializer())
            zeros = tf.zeros([cfg["batch"], h])
            peep = tf.zeros([h])
            y = tf2.raw_ops.BlockLSTM(
                seq_len_max=tf.constant(t, tf.int64), x=y, cs_prev=zeros, h_prev=zeros, w=w,
                wci=peep, wcf=peep, wco=peep, b=b, forget_bias=0.0, cell_clip=-1.0,
            )[6]  # fmt: skip
    return tf.transpose(y, [1, 0, 2])


def tf_step(tf, make_rnn, cfg):
    """A callable running one training step of `cfg` in TF-1.x graph form."""
    rng = np.random.default_rng(0)
    b, t, h = cfg["batch"], cfg["steps"], cfg["hidden"]
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(0)
        if cfg["vocab"]:
            ids = tf.placeholder(tf.int32, [b, t + 1])
            emb = tf.get_variable("embedding", [cfg["vocab"], cfg["inputs"]])
            x = tf.nn.embedding_lookup(emb, ids[:, :-1])
            feed_value = rng.integers(0, cfg["vocab"], size=(b, t + 1)).astype(np.int32)
        else:
            ids = tf.placeholder(tf.float32, [b, t, cfg["inputs"]])
            x = ids
            feed_value = rng.standard_normal((b, t, cfg["inputs"])).astype(np.float32)
        outputs = make_rnn(tf, x, cfg)
        flat = tf.reshape(outputs, [-1, h])
        if cfg["vocab"]:
            w = tf.get_variable("softmax_w", [h, cfg["vocab"]])
            logits = tf.matmul(flat, w)
            labels = tf.reshape(ids[:, 1:], [-1])
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
            )
        else:
            loss = tf.reduce_mean(tf.square(flat))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        cpu = tf.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
        sess = tf.Session(graph=g, config=cpu)
        sess.run(tf.global_variables_initializer())
        run = sess.make_callable([loss, train], feed_list=[ids])
    return lambda: run(feed_value)


def torch_step(cfg):
    """One training step of `cfg` with PyTorch's `nn.LSTM` (batch-first)."""
    import torch

    torch.set_num_threads(2)
    torch.manual_seed(0)
    b, t, h = cfg["batch"], cfg["steps"], cfg["hidden"]
    lstm = torch.nn.LSTM(cfg["inputs"], h, num_layers=cfg["layers"], batch_first=True)
    params = list(lstm.parameters())
    if cfg["vocab"]:
        emb = torch.nn.Embedding(cfg["vocab"], cfg["inputs"])
        out = torch.nn.Linear(h, cfg["vocab"], bias=False)
        params += list(emb.parameters()) + list(out.parameters())
        ids = torch.randint(0, cfg["vocab"], (b, t + 1))

        def loss_fn():
            y, _ = lstm(emb(ids[:, :-1]))
            logits = out(y.reshape(-1, h))
            return torch.nn.functional.cross_entropy(logits, ids[:, 1:].reshape(-1))
    else:
        x = torch.randn(b, t, cfg["inputs"])

        def loss_fn():
            y, _ = lstm(x)
            return (y * y).mean()

    opt = torch.optim.SGD(params, lr=0.1)

    def step():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()

    return step


def child(lib, config, steps):
    cfg = CONFIGS[config]
    if lib == "pytorch":
        fn = torch_step(cfg)
    elif lib.startswith("ferroflow"):
        if lib.endswith("loop"):
            os.environ["FERROFLOW_FUSED_RNN"] = "0"
        import ferroflow as tf

        fn = tf_step(tf, cell_rnn(tf.nn.rnn_cell), cfg)
    else:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf
        from tensorflow.python.keras.layers.legacy_rnn import rnn_cell_impl

        tf.disable_v2_behavior()
        fn = tf_step(tf, fused_rnn if lib.endswith("fused") else cell_rnn(rnn_cell_impl), cfg)
    print(json.dumps(best_per_call(fn, steps, 3, 2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--config", default=None)
    parser.add_argument("--child", default=None)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.config, args.steps)
        return
    libs = [("ferroflow", "ferroflow"), ("tensorflow", "tensorflow"), ("pytorch", "torch")]
    libs += [("ferroflow-loop", "ferroflow"), ("tensorflow-fused", "tensorflow")]
    for config in CONFIGS:
        results = run_each(__file__, libs, "--config", config, "--steps", args.steps)
        line = ", ".join(f"{lib} {t * 1e3:.1f} ms" for lib, t in results.items())
        print(f"{config}: {line}")
        ours = results["ferroflow"]
        for lib, t in results.items():
            if lib != "ferroflow":
                print(f"  {lib} / ferroflow = {t / ours:.2f}x")


if __name__ == "__main__":
    main()
