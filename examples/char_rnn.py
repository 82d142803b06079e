"""A character-level language model (the TF-1.x char-rnn programs), on generated text.

The text is sentences drawn from a small grammar (`make_text`), so nothing is
downloaded, yet it has structure a recurrent network can learn: words, spaces and
full stops. The model embeds each character, runs a `tf.nn.rnn_cell.GRUCell` (or
`--cell lstm`: `LSTMCell`) over windows of 32 characters with `tf.nn.dynamic_rnn`,
carrying the final state into the next window of the same stream as TF-1.x's
char-rnn does (the state is fed back through a placeholder with a default), and
predicts the next character with a softmax. Adam with `tf.clip_by_global_norm`.
At the end it samples text from the model.

Run: python examples/char_rnn.py [--steps N] [--cell gru|lstm]
"""

import argparse

import numpy as np

import ferroflow as tf

WORDS = {
    "subject": ["the cat", "a dog", "my friend", "the old man", "she", "he"],
    "verb": ["sees", "likes", "finds", "eats", "walks past"],
    "object": ["the ball", "a red apple", "the house", "an owl", "the river"],
}


def make_text(n_sentences=3000, seed=0):
    """Sentences of the grammar `subject verb object.`, joined by spaces."""
    rng = np.random.default_rng(seed)
    pick = lambda k: WORDS[k][rng.integers(len(WORDS[k]))]  # noqa: E731
    sentences = (f"{pick('subject')} {pick('verb')} {pick('object')}." for _ in range(n_sentences))
    return " ".join(sentences)


def main(steps=400, cell="gru", hidden=128, batch=32, window=32, seed=0, sample=True):
    """Trains; returns (first loss, last loss) in nats per character."""
    text = make_text(seed=seed)
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text], np.int32)
    vocab = len(chars)
    # `batch` parallel streams through the text, each read window by window.
    stream_len = len(ids) // batch
    streams = ids[: stream_len * batch].reshape(batch, stream_len)

    tf.reset_default_graph()
    tf.set_random_seed(seed)
    embedding = tf.get_variable("embedding", [vocab, 32])
    softmax_w = tf.get_variable("softmax_w", [hidden, vocab])
    softmax_b = tf.get_variable("softmax_b", [vocab], initializer=tf.zeros_initializer())
    if cell == "lstm":
        rnn_cell = tf.nn.rnn_cell.LSTMCell(hidden, state_is_tuple=False)
    else:
        rnn_cell = tf.nn.rnn_cell.GRUCell(hidden)

    def language_model(rows, length):
        """Next-character logits `[rows * length, vocab]` and the final state.

        Character ids are fed, with the state to start from (zeros by default).
        """
        ids_in = tf.placeholder(tf.int32, [rows, length], name="inputs")
        zero = rnn_cell.zero_state(rows, tf.float32)
        state_in = tf.placeholder_with_default(zero, zero.shape, name="state_in")
        x = tf.nn.embedding_lookup(embedding, ids_in)
        outputs, state = tf.nn.dynamic_rnn(rnn_cell, x, initial_state=state_in)
        flat = tf.reshape(outputs, [-1, hidden])
        logits = tf.matmul(flat, softmax_w) + softmax_b
        return ids_in, state_in, logits, state, zero

    inputs, state_in, logits, state, zero = language_model(batch, window)
    targets = tf.placeholder(tf.int32, [batch, window], name="targets")
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(targets, [-1]), logits=logits
        )
    )
    optimizer = tf.train.AdamOptimizer(0.005)
    grads, variables = zip(*optimizer.compute_gradients(loss))
    clipped, _ = tf.clip_by_global_norm(grads, 5.0)
    train = optimizer.apply_gradients(zip(clipped, variables))
    sampler = language_model(1, 1)

    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        position, carried = 0, sess.run(zero)
        for step in range(steps):
            if position + window + 1 > stream_len:
                position, carried = 0, sess.run(zero)
            chunk = streams[:, position : position + window + 1]
            feed = {inputs: chunk[:, :-1], targets: chunk[:, 1:], state_in: carried}
            value, carried, _ = sess.run([loss, state, train], feed)
            position += window
            losses.append(float(value))
            if step % 100 == 0 or step == steps - 1:
                print(f"step {step}: loss {value:.3f} nats/char")
        if sample:
            print("sample:", generate(sess, chars, sampler))
    return losses[0], losses[-1]


def generate(sess, chars, sampler, length=80, seed=1):
    """Text drawn from the model one character at a time, starting after a `t`."""
    ids_in, state_in, logits, state, zero = sampler
    probs = tf.nn.softmax(logits)
    rng = np.random.default_rng(seed)
    current, state_value, out = chars.index("t"), sess.run(zero), []
    for _ in range(length):
        feed = {ids_in: [[current]], state_in: state_value}
        p, state_value = sess.run([probs, state], feed)
        current = int(rng.choice(len(chars), p=p[0] / p[0].sum()))
        out.append(chars[current])
    return "".join(out)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--cell", choices=["gru", "lstm"], default="gru")
    args = parser.parse_args()
    main(steps=args.steps, cell=args.cell)
