"""Hostile images and resize sizes: each case runs in a child process under an
address-space cap (`test_hardening.isolated`), so an allocation the decoder cannot have
is an error, never an abort."""

import struct
import sys
import zlib
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_hardening import isolated


def _chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png_file(width, height, color_type=6, rows=None, plte=None):
    """A PNG of zero pixels (8 bits) built chunk by chunk, its IDAT compressed row by row
    (a 16384x16384 RGBA image is about 1 MiB)."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    c = zlib.compressobj(9)
    row = bytes(1 + width * channels)
    parts = [c.compress(row) for _ in range(height if rows is None else rows)]
    parts.append(c.flush())
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
    if plte is not None:
        out += _chunk(b"PLTE", plte)
    return out + _chunk(b"IDAT", b"".join(parts)) + _chunk(b"IEND", b"")


def _decode_in_child(tmp_path, data, expr="tf.image.decode_png(c, channels=0)"):
    path = tmp_path / "image.png"
    path.write_bytes(data)
    return isolated(
        f"""
        c = tf.constant(open({str(path)!r}, "rb").read())
        out = {expr}
        with tf.Session() as s:
            report(lambda: s.run(out))
        """,
        timeout=240,
    )


def test_a_16384_square_rgba_png_decodes_into_one_tensor(tmp_path):
    data = png_file(16384, 16384)
    assert len(data) < 2 << 20
    # The 1 GiB image under a 6 GiB cap: the decoder's copies once made it abort.
    got = _decode_in_child(tmp_path, data)
    assert got == {"error": None, "shape": [16384, 16384, 4]}


def test_a_png_whose_rows_are_missing_is_invalid_argument(tmp_path):
    got = _decode_in_child(tmp_path, png_file(64, 64, rows=10))
    assert got["error"] == "InvalidArgumentError", got


@pytest.mark.parametrize("plte", [b"\x00" * 4, b"", b"\x01" * 771])
def test_a_palette_that_is_not_rgb_triples_is_invalid_argument(tmp_path, plte):
    got = _decode_in_child(tmp_path, png_file(4, 4, color_type=3, plte=plte))
    assert got["error"] == "InvalidArgumentError", got
    assert "palette" in got["message"]


@pytest.mark.parametrize(
    "method", ["resize_bicubic", "resize_area", "resize_bilinear", "resize_nearest_neighbor"]
)
@pytest.mark.parametrize("size", [[2**31 - 1, 1], [2**31 - 1, 2**31 - 1]])
def test_resizes_to_impossible_sizes_are_errors(method, size):
    got = isolated(
        f"""
        x = tf.zeros([1, 4, 4, 3])
        out = tf.image.{method}(x, {size})
        with tf.Session() as s:
            report(lambda: s.run(out))
        """
    )
    # TF: ResourceExhausted for what it cannot allocate, InvalidArgument for sizes
    # whose element count overflows.
    assert got["error"] in {"ResourceExhaustedError", "InvalidArgumentError"}, got


def _with_trns(trns, color_type=3):
    """A 2x1 PNG (palette of 3 entries or 8-bit gray) with `trns` as its tRNS chunk."""
    ihdr = struct.pack(">IIBBBBB", 2, 1, 8, color_type, 0, 0, 0)
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
    if color_type == 3:
        out += _chunk(b"PLTE", bytes([0, 0, 0, 255, 0, 0, 0, 255, 0]))
    out += _chunk(b"tRNS", trns)
    return out + _chunk(b"IDAT", zlib.compress(b"\x00\x01\x02")) + _chunk(b"IEND", b"")


@pytest.mark.parametrize(
    ("trns", "color_type"),
    [
        (b"\x01\x02", 3),  # valid: the first two entries get alphas 1 and 2
        (b"\x01\x02\x03\x04", 3),  # longer than the palette: libpng skips it
        (b"\x00\x01", 0),  # valid gray key: value 1 is transparent
        (b"\x00", 0),  # too short for gray: skipped
        (b"\x00\x01\x00\x02", 0),  # too long for gray: skipped
    ],
)
def test_transparency_chunks_decode_as_in_tf(tf1, trns, color_type):
    import ferroflow as ff

    data = _with_trns(trns, color_type)
    got = []
    for lib in (tf1, ff):
        with lib.Graph().as_default():
            out = lib.image.decode_png(lib.constant(data), channels=4)
            with lib.Session() as s:
                got.append(s.run(out).tolist())
    assert got[1] == got[0]
