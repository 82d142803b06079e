"""GIF and BMP decoding (`decode_gif`, `decode_bmp`, `decode_image`) against TF.

Animated GIFs are composited as TF's `gif_io` (frames start from the previous one,
transparent pixels keep it, partial frames are clipped to the canvas); BMPs are
TF's uncompressed 1/3/4-byte layouts, bottom-up or top-down. Hostile bytes give TF's
error classes, never a crash.
"""

from __future__ import annotations

import io
import struct

import numpy as np
import pytest

import ferroflow as ff
from conftest import run_ff, run_tf

Image = pytest.importorskip("PIL.Image")


def _animated_gif(frames=3, size=(7, 5), partial=True):
    rs = np.random.RandomState(frames)
    imgs = []
    for k in range(frames):
        w, h = (size[0] - k, size[1] - k) if partial and k else size
        arr = (rs.rand(h, w, 3) * 255).astype(np.uint8)
        imgs.append(Image.fromarray(arr).quantize(colors=8 + k))
    buf = io.BytesIO()
    imgs[0].save(buf, format="GIF", save_all=True, append_images=imgs[1:], disposal=1)
    return buf.getvalue()


def _transparent_gif():
    a = Image.new("P", (4, 3), 1)
    a.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255] + [0] * 756)
    b = a.copy()
    b.putpixel((1, 1), 2)
    b.putpixel((2, 1), 0)
    buf = io.BytesIO()
    a.save(buf, format="GIF", save_all=True, append_images=[b], transparency=0, disposal=1)
    return buf.getvalue()


def _bmp(width, height, bpp, top_down=False):
    c = bpp // 8
    row = (width * c + 3) // 4 * 4
    data = bytes((i * 7 + 3) % 256 for i in range(row * height))
    h = -height if top_down else height
    header = b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, width, h, 1, bpp, 0, len(data), 2835, 2835, 0, 0)
    return header + info + data


GIFS = {
    "animated": _animated_gif(),
    "one_frame": _animated_gif(1),
    "transparent": _transparent_gif(),
}
BMPS = {
    "rgb_bottom_up": _bmp(5, 3, 24),
    "rgb_top_down": _bmp(3, 4, 24, top_down=True),
    "rgba": _bmp(3, 2, 32),
    "gray": _bmp(6, 2, 8),
}


@pytest.mark.parametrize("name", sorted(GIFS))
def test_gif_frames_match_tf(tf1, name):
    data = GIFS[name]

    def build(lib):
        return [
            lib.image.decode_gif(data),
            lib.image.decode_image(data),
            lib.image.decode_image(data, dtype=lib.float32),
        ]

    ours, theirs = run_ff(build), run_tf(tf1, build)
    for a, b in zip(ours, theirs, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(BMPS))
def test_bmp_pixels_match_tf(tf1, name):
    data = BMPS[name]

    def build(lib):
        out = [lib.image.decode_bmp(data)]
        # (TF 2.21's `decode_image` crashes on a top-down BMP; `decode_bmp` does not.)
        if name not in ("gray", "rgb_top_down"):
            out.append(lib.image.decode_image(data, dtype=lib.uint16))
        return out

    ours, theirs = run_ff(build), run_tf(tf1, build)
    for a, b in zip(ours, theirs, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


HOSTILE = {
    "gif_truncated": GIFS["animated"][:40],
    "gif_header_only": b"GIF89a",
    "bmp_short": BMPS["rgb_bottom_up"][:20],
    "bmp_huge_dims": _bmp(3, 2, 24)[:18]
    + struct.pack("<ii", 1 << 20, 1 << 20)
    + _bmp(3, 2, 24)[26:],
    "bmp_truncated_pixels": BMPS["rgb_bottom_up"][:60],
    "bmp_bad_bpp": _bmp(3, 2, 16),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_bytes_raise_tfs_error_class(tf1, name):
    data = HOSTILE[name]
    decode = "decode_gif" if name.startswith("gif") else "decode_bmp"

    def run(lib, runner):
        try:
            runner(lambda tf: getattr(tf.image, decode)(data))
        except Exception as e:  # (the class is what is compared)
            return type(e).__name__
        return None

    theirs = run(tf1, lambda b: run_tf(tf1, b))
    assert theirs is not None
    assert run(ff, run_ff) == theirs


def test_decode_image_channel_rules():
    with ff.Session() as sess:
        with pytest.raises(ff.errors.InvalidArgumentError, match="0 or 3 for GIF"):
            sess.run(ff.image.decode_image(GIFS["animated"], channels=1))
        first = sess.run(ff.image.decode_image(GIFS["animated"], expand_animations=False))
        every = sess.run(ff.image.decode_gif(GIFS["animated"]))
    assert first.shape == every.shape[1:]
    np.testing.assert_array_equal(first, every[0])


def test_mutated_files_give_errors_never_crashes():
    """Random byte flips and truncations of real files: a decoded image or an
    InvalidArgument/ResourceExhausted error, never a crash or a hang."""
    rs = np.random.RandomState(7)
    contents = ff.placeholder(ff.string, [])
    ops = [ff.image.decode_image(contents), ff.image.decode_gif(contents)]
    ops.append(ff.image.decode_bmp(contents))
    samples = [*GIFS.values(), *BMPS.values()]
    with ff.Session() as sess:
        for _ in range(300):
            data = bytearray(samples[rs.randint(len(samples))])
            for _ in range(rs.randint(1, 6)):
                data[rs.randint(len(data))] = rs.randint(256)
            if rs.rand() < 0.3:
                data = data[: rs.randint(1, len(data))]
            for op in ops:
                try:
                    sess.run(op, {contents: bytes(data)})
                except (ff.errors.InvalidArgumentError, ff.errors.ResourceExhaustedError):
                    pass
