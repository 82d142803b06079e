"""A word language model in the shape of TF-1.x's PTB tutorial (`ptb_word_lm.py`).

Two `BasicLSTMCell` layers in a `MultiRNNCell`, each wrapped in a `DropoutWrapper`
(output keep probability 0.9 while training), run by `tf.nn.dynamic_rnn` over
sentences of different lengths with `sequence_length` (padding steps give zero
outputs and leave the state alone), embeddings of the words, a softmax over the
vocabulary, a loss masked to the real words (`tf.sequence_mask`), and gradients
clipped by global norm 5 (`tf.clip_by_global_norm`) as in the tutorial, applied by
Adam (the tutorial's plain SGD at rate 1.0 needs epochs to get going). The
sentences come from a generated Markov chain over 200 words (`make_corpus`), so
nothing is downloaded; perplexity falls from the vocabulary size toward the
chain's own (about 4: each word has four likely successors).

Run: python examples/ptb_word_lm.py [--steps N]
"""

import argparse

import numpy as np

import ferroflow as tf

VOCAB, MAX_LEN = 200, 20


def make_corpus(n_sentences=4000, seed=0):
    """Sentences `[n, MAX_LEN]` of word ids (0 pads) with their lengths.

    Each word is followed by one of four likely successors (a sparse Markov chain);
    sentences have 5 to MAX_LEN words.
    """
    rng = np.random.default_rng(seed)
    successors = rng.integers(1, VOCAB, size=(VOCAB, 4))
    words = np.zeros([n_sentences, MAX_LEN], np.int32)
    lengths = rng.integers(5, MAX_LEN + 1, size=n_sentences).astype(np.int32)
    for s in range(n_sentences):
        w = rng.integers(1, VOCAB)
        for t in range(lengths[s]):
            words[s, t] = w
            w = successors[w, rng.integers(4)]
    return words, lengths


def main(steps=400, batch=32, hidden=128, layers=2, keep_prob=0.9, learning_rate=0.01, seed=0):
    """Trains; returns the perplexity of the first and the last 20 steps."""
    words, lengths = make_corpus(seed=seed)
    tf.reset_default_graph()
    tf.set_random_seed(seed)
    initializer = tf.random_uniform_initializer(-0.1, 0.1, seed=seed)
    with tf.variable_scope("Model", initializer=initializer):
        ids = tf.placeholder(tf.int32, [batch, MAX_LEN], name="ids")
        length = tf.placeholder(tf.int32, [batch], name="length")
        keep = tf.placeholder_with_default(1.0, [], name="keep_prob")
        embedding = tf.get_variable("embedding", [VOCAB, hidden])
        x = tf.nn.embedding_lookup(embedding, ids[:, :-1])

        def lstm_cell():
            cell = tf.nn.rnn_cell.BasicLSTMCell(hidden, forget_bias=0.0)
            return tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=keep)

        cell = tf.nn.rnn_cell.MultiRNNCell([lstm_cell() for _ in range(layers)])
        steps_in = tf.maximum(length - 1, 0)
        outputs, _ = tf.nn.dynamic_rnn(cell, x, sequence_length=steps_in, dtype=tf.float32)
        softmax_w = tf.get_variable("softmax_w", [hidden, VOCAB])
        softmax_b = tf.get_variable("softmax_b", [VOCAB])
        logits = tf.matmul(tf.reshape(outputs, [-1, hidden]), softmax_w) + softmax_b
        targets = tf.reshape(ids[:, 1:], [-1])
        mask = tf.reshape(tf.sequence_mask(steps_in, MAX_LEN - 1, dtype=tf.float32), [-1])
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits)
        loss = tf.reduce_sum(xent * mask) / tf.reduce_sum(mask)
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
        optimizer = tf.train.AdamOptimizer(learning_rate)
        train = optimizer.apply_gradients(zip(grads, tvars))

    losses = []
    rng = np.random.default_rng(seed)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(steps):
            rows = rng.integers(0, len(words), size=batch)
            feed = {ids: words[rows], length: lengths[rows], keep: keep_prob}
            value, _ = sess.run([loss, train], feed)
            losses.append(float(value))
            if step % 100 == 0 or step == steps - 1:
                print(f"step {step}: perplexity {np.exp(value):.1f}")
    first, last = np.exp(np.mean(losses[:20])), np.exp(np.mean(losses[-20:]))
    print(f"perplexity {first:.1f} -> {last:.1f}")
    return float(first), float(last)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    args = parser.parse_args()
    main(steps=args.steps)
