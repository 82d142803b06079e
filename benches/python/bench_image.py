"""Image decode, encode and resize: ferroflow vs TensorFlow (`tensorflow.compat.v1`).

The same graphs in both libraries, fed the same bytes: decode a 512x512 RGB PNG and
JPEG (written by TensorFlow; the JPEG also progressive, with the accurate IDCT, at
half size, and cropped to a centre 224x224 and a 64x64 window near the top), encode a
512x512 RGB image held in a variable, and resize a 4x256x256x3 float batch held in a
variable to 512x384 (bilinear, bicubic, nearest) or 128x96 (area). Prints ms per
`sess.run` (best of --repeat rounds) and ferroflow's speed ratio. Both libraries use
2 intra-op threads.

Run: python benches/python/bench_image.py [--number N] [--repeat R]
"""

import argparse
import os

import numpy as np
from _timing import best_per_call


def image():
    y, x = np.mgrid[0:512, 0:512]
    rng = np.random.default_rng(0)
    img = np.stack([x / 2, y / 2, (x + y) / 4], -1) + rng.integers(0, 20, (512, 512, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def cases(tf, data, img, x):
    return {
        "decode_png 512x512": tf.image.decode_png(data["png"]),
        "decode_jpeg 512x512": tf.image.decode_jpeg(data["jpeg"]),
        "decode_jpeg 512x512 INTEGER_ACCURATE": tf.image.decode_jpeg(
            data["jpeg"], dct_method="INTEGER_ACCURATE"
        ),
        "decode_jpeg 512x512 ratio 2": tf.image.decode_jpeg(data["jpeg"], ratio=2),
        "decode_jpeg 512x512 progressive": tf.image.decode_jpeg(data["progressive"]),
        # Inception-style crops: the centre, and a window near the top (read no further).
        "decode_and_crop_jpeg 512x512 -> 224^2": tf.image.decode_and_crop_jpeg(
            data["jpeg"], [144, 144, 224, 224]
        ),
        "decode_and_crop_jpeg 512x512 -> 64^2 top": tf.image.decode_and_crop_jpeg(
            data["jpeg"], [16, 200, 64, 64]
        ),
        "encode_png 512x512": tf.image.encode_png(img),
        "encode_jpeg 512x512 q95": tf.image.encode_jpeg(img),
        "encode_jpeg 512x512 optimize_size": tf.image.encode_jpeg(img, optimize_size=True),
        "encode_jpeg 512x512 4:4:4": tf.image.encode_jpeg(img, chroma_downsampling=False),
        "resize_bilinear 4x256^2 -> 512x384": tf.image.resize_bilinear(x, [512, 384]),
        "resize_bicubic 4x256^2 -> 512x384": tf.image.resize_bicubic(x, [512, 384]),
        "resize_area 4x256^2 -> 128x96": tf.image.resize_area(x, [128, 96]),
        "resize_nearest 4x256^2 -> 512x384": tf.image.resize_nearest_neighbor(x, [512, 384]),
        "resize_bilinear grad 4x256^2": tf.gradients(tf.image.resize_bilinear(x, [512, 384]), x)[0],
        "resize_bicubic grad 4x256^2": tf.gradients(tf.image.resize_bicubic(x, [512, 384]), x)[0],
        "rgb_to_hsv 4x256^2": tf.image.rgb_to_hsv(x),
        "hsv_to_rgb 4x256^2": tf.image.hsv_to_rgb(x),
        "adjust_hue 4x256^2": tf.image.adjust_hue(x, 0.2),
        "adjust_saturation 4x256^2": tf.image.adjust_saturation(x, 1.5),
        "adjust_contrast 4x256^2": tf.image.adjust_contrast(x, 1.5),
        "flip_left_right 4x256^2": tf.image.flip_left_right(x),
        "crop_and_resize 4x256^2 -> 64x 64^2": tf.image.crop_and_resize(
            x, boxes(), tf.range(64) % 4, [64, 64]
        ),
    }


def boxes():
    """64 boxes inside the unit square, the same in both libraries."""
    rng = np.random.default_rng(2)
    lo = rng.random((64, 2), dtype=np.float32) * 0.5
    return np.concatenate([lo, lo + 0.4], 1)


def times(tf, png, jpeg, progressive, batch, number, repeat):
    """Inputs are variables and fed strings, so TensorFlow cannot fold the ops away."""
    g = tf.Graph()
    with g.as_default():
        data = {k: tf.placeholder(tf.string, []) for k in ["png", "jpeg", "progressive"]}
        img = tf.Variable(image())
        x = tf.Variable(batch)
        ops = cases(tf, data, img, x)
        feed = {data["png"]: png, data["jpeg"]: jpeg, data["progressive"]: progressive}
        config = tf.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
        with tf.Session(graph=g, config=config) as sess:
            sess.run(tf.global_variables_initializer())
            return {
                k: best_per_call(lambda op=op: sess.run(op.op, feed), number, repeat)
                for k, op in ops.items()
            }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--number", type=int, default=20)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow.compat.v1 as tf

    import ferroflow as ff

    tf.disable_v2_behavior()
    with tf.Session() as sess:
        png, jpeg, progressive = sess.run(
            [
                tf.image.encode_png(image()),
                tf.image.encode_jpeg(image()),
                tf.image.encode_jpeg(image(), progressive=True),
            ]
        )
    batch = np.random.default_rng(1).random((4, 256, 256, 3), dtype=np.float32)
    ours = times(ff, png, jpeg, progressive, batch, args.number, args.repeat)
    theirs = times(tf, png, jpeg, progressive, batch, args.number, args.repeat)
    print(f"{'case':40s} {'ferroflow ms':>13s} {'TF ms':>9s} {'speed-up':>9s}")
    for k in ours:
        a, b = ours[k] * 1e3, theirs[k] * 1e3
        print(f"{k:40s} {a:13.3f} {b:9.3f} {b / a:8.2f}x")


if __name__ == "__main__":
    main()
