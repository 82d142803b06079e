"""Image ops: `tf.image` as TF-1.x builds it (`image_ops_impl.py`).

The native ops carry TensorFlow's names and attrs (`DecodePng`, `EncodePng`,
`DecodeJpeg`, `DecodeAndCropJpeg`, `ExtractJpegShape`, `EncodeJpeg`, `DecodeImage`,
`ResizeBilinear`, `ResizeNearestNeighbor`, `ResizeBicubic`, `ResizeArea`,
`AdjustContrastv2`, `AdjustHue`, `AdjustSaturation`, `RGBToHSV`, `HSVToRGB`,
`ReverseV2`); their kernels are in `ferroflow-core`'s
`kernels/image.rs` and `kernels/image_codec.rs`. Everything else is composed here from
the same ops as TF's Python builds it (flips from `ReverseV2` under `tf.cond`, crops and
pads from `Slice` and `Pad`, the random ops from `random_uniform` with TF's seeds), with
TF's static shapes and `ValueError`s.
"""

from __future__ import annotations

import numpy as np

from .._compat import zip_strict
from ..framework import dtypes, ops, tensor_shape
from ..framework.tensor_util import constant_value, constant_value_as_shape
from . import array_ops, check_ops, control_flow_ops, math_ops, random_ops
from ._op_util import make_op
from .indexing_ops import pad, tile
from .logging_ops import Assert

__all__ = [
    "ResizeMethod",
    "ResizeMethodV1",
    "ResizeMethodV2",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_gamma",
    "adjust_hue",
    "adjust_saturation",
    "central_crop",
    "convert_image_dtype",
    "crop_to_bounding_box",
    "decode_bmp",
    "decode_and_crop_jpeg",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "encode_jpeg",
    "encode_png",
    "extract_jpeg_shape",
    "flip_left_right",
    "flip_up_down",
    "grayscale_to_rgb",
    "hsv_to_rgb",
    "image_gradients",
    "is_jpeg",
    "pad_to_bounding_box",
    "per_image_standardization",
    "psnr",
    "random_brightness",
    "random_contrast",
    "random_crop",
    "random_flip_left_right",
    "random_flip_up_down",
    "random_hue",
    "random_saturation",
    "resize_area",
    "resize_bicubic",
    "resize_bilinear",
    "resize_image_with_crop_or_pad",
    "resize_image_with_pad",
    "resize_image_with_pad_v1",
    "resize_image_with_pad_v2",
    "resize_images",
    "resize_images_v2",
    "resize_nearest_neighbor",
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "rot90",
    "sobel_edges",
    "ssim",
    "ssim_multiscale",
    "total_variation",
    "transpose_image",
]


class ResizeMethod:
    """TF-1.x's resize methods (`tf.image.ResizeMethod`), the `method` of `resize_images`."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# ---------------------------------------------------------------------------------
# Shape checks (TF's `_Check3DImage` family)


def _is_tensor(x):
    return isinstance(x, ops.Tensor) or (hasattr(x, "_as_graph_element") and not isinstance(x, str))


def _assert(cond, ex_type, msg):
    if _is_tensor(cond):
        return [Assert(cond, [msg])]
    if not cond:
        raise ex_type(msg)
    return []


def _image_dimensions(image, rank):
    if image.get_shape().is_fully_defined():
        return image.get_shape().as_list()
    static_shape = image.get_shape().with_rank(rank).as_list()
    dynamic_shape = array_ops.unstack(array_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip_strict(static_shape, dynamic_shape)]


def _check_at_least_3d_image(image, require_static=True):
    try:
        if image.get_shape().ndims is None:
            image_shape = image.get_shape().with_rank(3)
        else:
            image_shape = image.get_shape().with_rank_at_least(3)
    except ValueError:
        raise ValueError(
            f"'image' (shape {image.shape}) must be at least three-dimensional."
        ) from None
    if require_static and not image_shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    if any(x == 0 for x in image_shape.as_list()[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {image_shape}")
    if not tensor_shape.TensorShape(image_shape.as_list()[-3:]).is_fully_defined():
        return [
            check_ops.assert_positive(
                array_ops.shape(image)[-3:], ["inner 3 dims of 'image.shape' must be > 0."]
            ),
            check_ops.assert_greater_equal(
                array_ops.rank(image), 3, message="'image' must be at least three-dimensional."
            ),
        ]
    return []


def _assert_at_least_3d_image(image):
    return control_flow_ops.with_dependencies(
        _check_at_least_3d_image(image, require_static=False), image
    )


def _check_grayscale_image(image):
    try:
        if image.get_shape().ndims is None:
            image_shape = image.get_shape().with_rank(2)
        else:
            image_shape = image.get_shape().with_rank_at_least(2)
    except ValueError:
        raise ValueError(
            f"A grayscale image (shape {image.shape}) must be at least two-dimensional."
        ) from None
    if image_shape.is_fully_defined():
        if image_shape.as_list()[-1] != 1:
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        return []
    return [
        check_ops.assert_equal(
            array_ops.shape(image)[-1],
            1,
            message="Last dimension of a grayscale image should be size 1.",
        ),
        check_ops.assert_greater_equal(
            array_ops.rank(image), 3, message="A grayscale image must be at least two-dimensional."
        ),
    ]


def _fix_image_flip_shape(image, result):
    image_shape = image.get_shape()
    if image_shape.ndims is None:
        result.set_shape([None, None, None])
    else:
        result.set_shape(image_shape)
    return result


def _batched(image):
    """`image` as a batch (TF's `expand_dims` of a 3-D image), and whether it was one."""
    image_shape = image.get_shape()
    if image_shape.ndims == 3:
        return array_ops.expand_dims(image, 0), False
    if image_shape.ndims is None:
        image = array_ops.expand_dims(image, 0)
        image.set_shape([None] * 4)
        return image, False
    if image_shape.ndims != 4:
        raise ValueError(f"'image' (shape {image_shape}) must have either 3 or 4 dimensions.")
    return image, True


# ---------------------------------------------------------------------------------
# Flips, transposes and rotations


def reverse_v2(tensor, axis, name=None):
    """`tensor` with the dimensions listed in `axis` reversed (TF's `ReverseV2`)."""
    with ops.name_scope(name, "ReverseV2", [tensor, axis]) as scope:
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        axis = ops.convert_to_tensor(axis, dtype=dtypes.int32, name="axis")
        return make_op("ReverseV2", [tensor, axis], scope=scope).outputs[0]


def _random_flip(image, flip_index, seed, scope_name):
    with ops.name_scope(None, scope_name, [image]) as scope:
        image = ops.convert_to_tensor(image, name="image")
        image = _assert_at_least_3d_image(image)
        shape = image.get_shape()

        def f_rank3():
            uniform_random = random_ops.random_uniform([], 0, 1.0, seed=seed)
            mirror_cond = math_ops.less(uniform_random, 0.5)
            result = control_flow_ops.cond(
                mirror_cond,
                lambda: reverse_v2(image, [flip_index]),
                lambda: image,
                name=scope,
            )
            return _fix_image_flip_shape(image, result)

        def f_rank4():
            batch_size = array_ops.shape(image)[0]
            uniform_random = random_ops.random_uniform([batch_size], 0, 1.0, seed=seed)
            flips = math_ops.round(array_ops.reshape(uniform_random, [batch_size, 1, 1, 1]))
            flips = array_ops.cast(flips, image.dtype)
            flipped_input = reverse_v2(image, [flip_index + 1])
            return flips * flipped_input + (1 - flips) * image

        if shape.ndims is None:
            rank = array_ops.rank(image)
            return control_flow_ops.cond(math_ops.equal(rank, 3), f_rank3, f_rank4)
        if shape.ndims == 3:
            return f_rank3()
        if shape.ndims == 4:
            return f_rank4()
        raise ValueError(f"'image' (shape {shape}) must have either 3 or 4 dimensions.")


def random_flip_up_down(image, seed=None):
    """Flips an image (or each image of a batch) vertically with probability 1/2.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        seed: Op-level seed (see `tf.set_random_seed`).

    Returns:
        A tensor of the same type and shape.

    Raises:
        ValueError: `image` has another rank.
    """
    return _random_flip(image, 0, seed, "random_flip_up_down")


def random_flip_left_right(image, seed=None):
    """Flips an image (or each image of a batch) horizontally with probability 1/2.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        seed: Op-level seed (see `tf.set_random_seed`).

    Returns:
        A tensor of the same type and shape.

    Raises:
        ValueError: `image` has another rank.
    """
    return _random_flip(image, 1, seed, "random_flip_left_right")


def _flip(image, flip_index, scope_name):
    with ops.name_scope(None, scope_name, [image]):
        image = ops.convert_to_tensor(image, name="image")
        image = _assert_at_least_3d_image(image)
        shape = image.get_shape()

        def f_rank3():
            return _fix_image_flip_shape(image, reverse_v2(image, [flip_index]))

        def f_rank4():
            return reverse_v2(image, [flip_index + 1])

        if shape.ndims is None:
            rank = array_ops.rank(image)
            return control_flow_ops.cond(math_ops.equal(rank, 3), f_rank3, f_rank4)
        if shape.ndims == 3:
            return f_rank3()
        if shape.ndims == 4:
            return f_rank4()
        raise ValueError(f"'image' (shape {shape})must have either 3 or 4 dimensions.")


def flip_left_right(image):
    """Flips an image (or a batch) horizontally: `ReverseV2` on the width axis.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.

    Returns:
        A tensor of the same type and shape.
    """
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """Flips an image (or a batch) vertically: `ReverseV2` on the height axis.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.

    Returns:
        A tensor of the same type and shape.
    """
    return _flip(image, 0, "flip_up_down")


def _rot90_3d(image, k, name_scope):
    cases = [
        (
            math_ops.equal(k, 1),
            lambda: array_ops.transpose(reverse_v2(image, [1]), [1, 0, 2]),
        ),
        (math_ops.equal(k, 2), lambda: reverse_v2(image, [0, 1])),
        (
            math_ops.equal(k, 3),
            lambda: reverse_v2(array_ops.transpose(image, [1, 0, 2]), [1]),
        ),
    ]
    result = control_flow_ops.case(cases, default=lambda: image, exclusive=True, name=name_scope)
    result.set_shape([None, None, image.get_shape()[2]])
    return result


def _rot90_4d(images, k, name_scope):
    cases = [
        (
            math_ops.equal(k, 1),
            lambda: array_ops.transpose(reverse_v2(images, [2]), [0, 2, 1, 3]),
        ),
        (math_ops.equal(k, 2), lambda: reverse_v2(images, [1, 2])),
        (
            math_ops.equal(k, 3),
            lambda: reverse_v2(array_ops.transpose(images, [0, 2, 1, 3]), [2]),
        ),
    ]
    result = control_flow_ops.case(cases, default=lambda: images, exclusive=True, name=name_scope)
    shape = result.get_shape()
    result.set_shape([shape[0], None, None, shape[3]])
    return result


def rot90(image, k=1, name=None):
    """Rotates an image (or a batch) counter-clockwise by `k` quarter turns.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        k: Scalar int: the number of quarter turns.
        name: A name for the operation.

    Returns:
        The rotated image(s).
    """
    with ops.name_scope(name, "rot90", [image, k]) as scope:
        image = ops.convert_to_tensor(image, name="image")
        image = _assert_at_least_3d_image(image)
        k = ops.convert_to_tensor(k, dtype=dtypes.int32, name="k")
        k.get_shape().assert_has_rank(0)
        k = math_ops.floormod(k, 4)
        shape = image.get_shape()
        if shape.ndims is None:
            rank = array_ops.rank(image)
            return control_flow_ops.cond(
                math_ops.equal(rank, 3),
                lambda: _rot90_3d(image, k, scope),
                lambda: _rot90_4d(image, k, scope),
            )
        if shape.ndims == 3:
            return _rot90_3d(image, k, scope)
        if shape.ndims == 4:
            return _rot90_4d(image, k, scope)
        raise ValueError(f"'image' (shape {shape}) must have either 3 or 4 dimensions.")


def transpose_image(image, name=None):
    """Swaps the height and width of an image (or a batch).

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        name: A name for the operation.

    Returns:
        The transposed image(s).
    """
    with ops.name_scope(name, "transpose", [image]):
        image = ops.convert_to_tensor(image, name="image")
        image = _assert_at_least_3d_image(image)
        shape = image.get_shape()
        if shape.ndims is None:
            rank = array_ops.rank(image)
            return control_flow_ops.cond(
                math_ops.equal(rank, 3),
                lambda: array_ops.transpose(image, [1, 0, 2], name=name or "transpose"),
                lambda: array_ops.transpose(image, [0, 2, 1, 3], name=name or "transpose"),
            )
        if shape.ndims == 3:
            return array_ops.transpose(image, [1, 0, 2], name=name or "transpose")
        if shape.ndims == 4:
            return array_ops.transpose(image, [0, 2, 1, 3], name=name or "transpose")
        raise ValueError(f"'image' (shape {shape}) must have either 3 or 4 dimensions.")


# ---------------------------------------------------------------------------------
# Crops and pads


def random_crop(value, size, seed=None, name=None):
    """Slices a `size` block out of `value` at a uniformly drawn offset (TF's `random_crop`).

    Args:
        value: The tensor to crop.
        size: 1-D int: the size of the block, one entry per dimension of `value`.
        seed: Op-level seed (see `tf.set_random_seed`).
        name: A name for the operation.

    Returns:
        A tensor of `value`'s type and shape `size`; running it fails with
        `InvalidArgumentError` when `value` is smaller than `size`.
    """
    with ops.name_scope(name, "random_crop", [value, size]) as name:
        value = ops.convert_to_tensor(value, name="value")
        size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = Assert(
            math_ops.reduce_all(math_ops.greater_equal(shape, size)),
            ["Need value.shape >= size, got ", shape, size],
            summarize=1000,
        )
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = math_ops.floormod(
            random_ops.random_uniform(
                array_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max, seed=seed
            ),
            limit,
        )
        return array_ops.slice(value, offset, size, name=name)


def central_crop(image, central_fraction):
    """Crops the central `central_fraction` of an image (or of each image of a batch).

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        central_fraction: Float in `(0, 1]`: the fraction of each side kept.

    Returns:
        The cropped image(s).

    Raises:
        ValueError: `central_fraction` is outside `(0, 1]`, or `image` has another rank.
    """
    with ops.name_scope(None, "central_crop", [image]):
        image = ops.convert_to_tensor(image, name="image")
        central_fraction_static = (
            constant_value(central_fraction) if _is_tensor(central_fraction) else central_fraction
        )
        if central_fraction_static is not None:
            if central_fraction_static <= 0.0 or central_fraction_static > 1.0:
                raise ValueError("central_fraction must be within (0, 1]")
            if central_fraction_static == 1.0:
                return image
        else:
            assert_ops = _assert(
                math_ops.logical_or(central_fraction > 0.0, central_fraction <= 1.0),
                ValueError,
                "central_fraction must be within (0, 1]",
            )
            image = control_flow_ops.with_dependencies(assert_ops, image)
        _assert_at_least_3d_image(image)
        rank = image.get_shape().ndims
        if rank != 3 and rank != 4:
            raise ValueError(
                f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}."
            )

        def _get_dim(tensor, idx):
            static = tensor.get_shape().as_list()[idx]
            if static is not None:
                return static, False
            return array_ops.shape(tensor)[idx], True

        dims = image.get_shape().as_list()
        if rank == 3:
            img_h, dynamic_h = _get_dim(image, 0)
            img_w, dynamic_w = _get_dim(image, 1)
            img_d = dims[2]
        else:
            img_bs = dims[0]
            img_h, dynamic_h = _get_dim(image, 1)
            img_w, dynamic_w = _get_dim(image, 2)
            img_d = dims[3]
        dynamic_h = dynamic_h or central_fraction_static is None
        dynamic_w = dynamic_w or central_fraction_static is None

        def start(size, dynamic):
            if dynamic:
                d = array_ops.cast(size, dtypes.float64)
                frac = array_ops.cast(central_fraction, dtypes.float64)
                return array_ops.cast((d - d * frac) / 2, dtypes.int32)
            d = float(size)
            return int((d - d * central_fraction_static) / 2)

        bbox_h_start = start(img_h, dynamic_h)
        bbox_w_start = start(img_w, dynamic_w)
        bbox_h_size = img_h - bbox_h_start * 2
        bbox_w_size = img_w - bbox_w_start * 2
        if rank == 3:
            bbox_begin = array_ops.stack([bbox_h_start, bbox_w_start, 0])
            bbox_size = array_ops.stack([bbox_h_size, bbox_w_size, -1])
        else:
            bbox_begin = array_ops.stack([0, bbox_h_start, bbox_w_start, 0])
            bbox_size = array_ops.stack([-1, bbox_h_size, bbox_w_size, -1])
        image = array_ops.slice(image, bbox_begin, bbox_size)
        h = None if dynamic_h else bbox_h_size
        w = None if dynamic_w else bbox_w_size
        if rank == 3:
            image.set_shape([h, w, img_d])
        else:
            image.set_shape([img_bs, h, w, img_d])
        return image


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Pads an image (or a batch) with zeros to `target_height x target_width`.

    The image's top-left corner lands at `(offset_height, offset_width)`.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        offset_height: Rows of zeros above the image.
        offset_width: Columns of zeros left of the image.
        target_height: Height of the result.
        target_width: Width of the result.

    Returns:
        The padded image(s).

    Raises:
        ValueError: a static offset is negative or the target is too small.
    """
    with ops.name_scope(None, "pad_to_bounding_box", [image]):
        image = ops.convert_to_tensor(image, name="image")
        image, is_batch = _batched(image)
        batch, height, width, depth = _image_dimensions(image, rank=4)
        after_padding_width = target_width - offset_width - width
        after_padding_height = target_height - offset_height - height
        assert_ops = _check_at_least_3d_image(image, require_static=False)
        assert_ops += _assert(offset_height >= 0, ValueError, "offset_height must be >= 0")
        assert_ops += _assert(offset_width >= 0, ValueError, "offset_width must be >= 0")
        assert_ops += _assert(
            after_padding_width >= 0, ValueError, "width must be <= target - offset"
        )
        assert_ops += _assert(
            after_padding_height >= 0, ValueError, "height must be <= target - offset"
        )
        image = control_flow_ops.with_dependencies(assert_ops, image)
        paddings = array_ops.reshape(
            array_ops.stack(
                [
                    0,
                    0,
                    offset_height,
                    after_padding_height,
                    offset_width,
                    after_padding_width,
                    0,
                    0,
                ]
            ),
            [4, 2],
        )
        padded = pad(image, paddings)
        padded.set_shape(
            [None if _is_tensor(i) else i for i in [batch, target_height, target_width, depth]]
        )
        if not is_batch:
            padded = array_ops.squeeze(padded, axis=[0])
        return padded


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Crops the `target_height x target_width` box at `(offset_height, offset_width)`.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        offset_height: Top row of the box.
        offset_width: Left column of the box.
        target_height: Height of the box.
        target_width: Width of the box.

    Returns:
        The cropped image(s).

    Raises:
        ValueError: a static offset or size is out of range.
    """
    with ops.name_scope(None, "crop_to_bounding_box", [image]):
        image = ops.convert_to_tensor(image, name="image")
        image, is_batch = _batched(image)
        assert_ops = _check_at_least_3d_image(image, require_static=False)
        batch, height, width, depth = _image_dimensions(image, rank=4)
        assert_ops += _assert(offset_width >= 0, ValueError, "offset_width must be >= 0.")
        assert_ops += _assert(offset_height >= 0, ValueError, "offset_height must be >= 0.")
        assert_ops += _assert(target_width > 0, ValueError, "target_width must be > 0.")
        assert_ops += _assert(target_height > 0, ValueError, "target_height must be > 0.")
        assert_ops += _assert(
            width >= (target_width + offset_width), ValueError, "width must be >= target + offset."
        )
        assert_ops += _assert(
            height >= (target_height + offset_height),
            ValueError,
            "height must be >= target + offset.",
        )
        image = control_flow_ops.with_dependencies(assert_ops, image)
        cropped = array_ops.slice(
            image,
            array_ops.stack([0, offset_height, offset_width, 0]),
            array_ops.stack(
                [
                    array_ops.shape(image)[0],
                    target_height,
                    target_width,
                    array_ops.shape(image)[3],
                ]
            ),
        )
        cropped.set_shape(
            [None if _is_tensor(i) else i for i in [batch, target_height, target_width, depth]]
        )
        if not is_batch:
            cropped = array_ops.squeeze(cropped, axis=[0])
        return cropped


def _max(x, y):
    return math_ops.maximum(x, y) if _is_tensor(x) or _is_tensor(y) else max(x, y)


def _min(x, y):
    return math_ops.minimum(x, y) if _is_tensor(x) or _is_tensor(y) else min(x, y)


def _equal(x, y):
    return math_ops.equal(x, y) if _is_tensor(x) or _is_tensor(y) else x == y


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Centrally crops or zero-pads an image (or a batch) to the target size.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        target_height: Height of the result.
        target_width: Width of the result.

    Returns:
        The cropped and/or padded image(s).

    Raises:
        ValueError: a static target size is not positive, or `image` has another rank.
    """
    with ops.name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image = ops.convert_to_tensor(image, name="image")
        image, is_batch = _batched(image)
        assert_ops = _check_at_least_3d_image(image, require_static=False)
        assert_ops += _assert(target_width > 0, ValueError, "target_width must be > 0.")
        assert_ops += _assert(target_height > 0, ValueError, "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(assert_ops, image)
        if _is_tensor(target_height):
            target_height = control_flow_ops.with_dependencies(assert_ops, target_height)
        if _is_tensor(target_width):
            target_width = control_flow_ops.with_dependencies(assert_ops, target_width)
        _, height, width, _ = _image_dimensions(image, rank=4)
        width_diff = target_width - width
        offset_crop_width = _max(-width_diff // 2, 0)
        offset_pad_width = _max(width_diff // 2, 0)
        height_diff = target_height - height
        offset_crop_height = _max(-height_diff // 2, 0)
        offset_pad_height = _max(height_diff // 2, 0)
        cropped = crop_to_bounding_box(
            image,
            offset_crop_height,
            offset_crop_width,
            _min(target_height, height),
            _min(target_width, width),
        )
        resized = pad_to_bounding_box(
            cropped, offset_pad_height, offset_pad_width, target_height, target_width
        )
        if resized.get_shape().ndims is None:
            raise ValueError("resized contains no shape.")
        _, resized_height, resized_width, _ = _image_dimensions(resized, rank=4)
        assert_ops = _assert(
            _equal(resized_height, target_height), ValueError, "resized height is not correct."
        )
        assert_ops += _assert(
            _equal(resized_width, target_width), ValueError, "resized width is not correct."
        )
        resized = control_flow_ops.with_dependencies(assert_ops, resized)
        if not is_batch:
            resized = array_ops.squeeze(resized, axis=[0])
        return resized


# ---------------------------------------------------------------------------------
# Resizing


def _resize_op(op_type, images, size, align_corners, half_pixel_centers, name):
    with ops.name_scope(name, op_type, [images, size]) as scope:
        images = ops.convert_to_tensor(images, name="images")
        size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
        attrs = {"align_corners": bool(align_corners)}
        if half_pixel_centers is not None:
            attrs["half_pixel_centers"] = bool(half_pixel_centers)
        return make_op(op_type, [images, size], attrs, scope=scope).outputs[0]


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bilinear resizing of a 4-D batch to `size` (TF's `ResizeBilinear`, float32 out).

    Args:
        images: 4-D `[batch, height, width, channels]` of a real type.
        size: 1-D int32 `[new_height, new_width]`.
        align_corners: Whether the corner pixels of input and output are aligned.
        name: A name for the operation.
        half_pixel_centers: Whether pixel centres sit at half-integer coordinates.

    Returns:
        A float32 `[batch, new_height, new_width, channels]` tensor.
    """
    return _resize_op("ResizeBilinear", images, size, align_corners, half_pixel_centers, name)


def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Nearest-neighbour resizing of a 4-D batch to `size` (TF's `ResizeNearestNeighbor`).

    Args:
        images: 4-D `[batch, height, width, channels]`.
        size: 1-D int32 `[new_height, new_width]`.
        align_corners: Whether the corner pixels of input and output are aligned.
        name: A name for the operation.
        half_pixel_centers: Whether pixel centres sit at half-integer coordinates.

    Returns:
        A tensor of `images`' type, `[batch, new_height, new_width, channels]`.
    """
    return _resize_op(
        "ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers, name
    )


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bicubic resizing of a 4-D batch to `size` (TF's `ResizeBicubic`, float32 out).

    Args:
        images: 4-D `[batch, height, width, channels]` of a real type.
        size: 1-D int32 `[new_height, new_width]`.
        align_corners: Whether the corner pixels of input and output are aligned.
        name: A name for the operation.
        half_pixel_centers: Whether pixel centres sit at half-integer coordinates (then
            Keys' cubic, as TF).

    Returns:
        A float32 `[batch, new_height, new_width, channels]` tensor.
    """
    return _resize_op("ResizeBicubic", images, size, align_corners, half_pixel_centers, name)


def resize_area(images, size, align_corners=False, name=None):
    """Area (box-average) resizing of a 4-D batch to `size` (TF's `ResizeArea`).

    Args:
        images: 4-D `[batch, height, width, channels]` of a real type.
        size: 1-D int32 `[new_height, new_width]`.
        align_corners: Whether the corner pixels of input and output are aligned.
        name: A name for the operation.

    Returns:
        A float32 `[batch, new_height, new_width, channels]` tensor.
    """
    return _resize_op("ResizeArea", images, size, align_corners, None, name)


def _static_aspect_size(size, height, width):
    """The aspect-preserving size, in float32 as the graph computes it, when all is static."""
    value = constant_value(size)
    if value is None or _is_tensor(height) or _is_tensor(width):
        return None
    f32 = np.float32
    scale = min(f32(value[0]) / f32(height), f32(value[1]) / f32(width))
    return int(np.round(scale * f32(height))), int(np.round(scale * f32(width)))


def resize_images(
    images,
    size,
    method=ResizeMethod.BILINEAR,
    align_corners=False,
    preserve_aspect_ratio=False,
    name=None,
):
    """Resizes an image or a batch to `size` with `method` (TF-1.x's `tf.image.resize_images`).

    A resize to the same static size returns `images` unchanged, as in TF.

    Args:
        images: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        size: 1-D int32 `[new_height, new_width]`.
        method: A `ResizeMethod` (or its string name).
        align_corners: Whether the corner pixels of input and output are aligned.
        preserve_aspect_ratio: Whether to scale to fit within `size`, keeping the ratio.
        name: A name for the operation.

    Returns:
        The resized image(s): float32, except for nearest-neighbour resizing (or no
        resize), which keep the type.

    Raises:
        ValueError: `images` has another rank, or `size` is not two int32 values, or
            `method` is unknown.
    """

    def resize_fn(images_t, new_size):
        if method in (ResizeMethod.BILINEAR, "bilinear"):
            return resize_bilinear(images_t, new_size, align_corners=align_corners)
        if method in (ResizeMethod.NEAREST_NEIGHBOR, "nearest"):
            return resize_nearest_neighbor(images_t, new_size, align_corners=align_corners)
        if method in (ResizeMethod.BICUBIC, "bicubic"):
            return resize_bicubic(images_t, new_size, align_corners=align_corners)
        if method in (ResizeMethod.AREA, "area"):
            return resize_area(images_t, new_size, align_corners=align_corners)
        raise ValueError(f"Resize method is not implemented: {method}")

    return _resize_images_common(
        images, resize_fn, size, preserve_aspect_ratio, name, skip_resize_if_same=True
    )


def resize_image_with_pad(
    image, target_height, target_width, method=ResizeMethod.BILINEAR, align_corners=False
):
    """Resizes an image (or batch) to fit the target keeping its aspect ratio, then pads.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        target_height: Height of the result.
        target_width: Width of the result.
        method: A `ResizeMethod`.
        align_corners: Whether the corner pixels of input and output are aligned.

    Returns:
        The resized and padded image(s).
    """
    with ops.name_scope(None, "resize_image_with_pad", [image]):
        image = ops.convert_to_tensor(image, name="image")
        image, is_batch = _batched(image)
        assert_ops = _check_at_least_3d_image(image, require_static=False)
        assert_ops += _assert(target_width > 0, ValueError, "target_width must be > 0.")
        assert_ops += _assert(target_height > 0, ValueError, "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(assert_ops, image)
        _, height, width, _ = _image_dimensions(image, rank=4)
        f32 = dtypes.float32
        f_height = array_ops.cast(height, f32)
        f_width = array_ops.cast(width, f32)
        f_target_height = array_ops.cast(target_height, f32)
        f_target_width = array_ops.cast(target_width, f32)
        ratio = _max(f_width / f_target_width, f_height / f_target_height)
        resized_height_float = f_height / ratio
        resized_width_float = f_width / ratio
        resized_height = array_ops.cast(math_ops.floor(resized_height_float), dtypes.int32)
        resized_width = array_ops.cast(math_ops.floor(resized_width_float), dtypes.int32)
        padding_height = (f_target_height - resized_height_float) / 2
        padding_width = (f_target_width - resized_width_float) / 2
        f_padding_height = math_ops.floor(padding_height)
        f_padding_width = math_ops.floor(padding_width)
        p_height = _max(0, array_ops.cast(f_padding_height, dtypes.int32))
        p_width = _max(0, array_ops.cast(f_padding_width, dtypes.int32))
        resized = resize_images(
            image, [resized_height, resized_width], method, align_corners=align_corners
        )
        padded = pad_to_bounding_box(resized, p_height, p_width, target_height, target_width)
        if padded.get_shape().ndims is None:
            raise ValueError("padded contains no shape.")
        _image_dimensions(padded, rank=4)
        if not is_batch:
            padded = array_ops.squeeze(padded, axis=[0])
        return padded


# ---------------------------------------------------------------------------------
# Dtypes and colours


def _saturate_cast(value, dtype, name=None):
    """TF's `saturate_cast`: clamp to `dtype`'s range (limits nudged inside it), then cast.

    TF-1.x clamps with `Maximum` and `Minimum`, as here (TF 2 fuses them as `ClipByValue`).
    """
    with ops.name_scope(name, "saturate_cast", [value]) as name:
        value = ops.convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        in_dtype = value.dtype.base_dtype
        if in_dtype.min < dtype.min or in_dtype.max > dtype.max:
            np_dtype = in_dtype.as_numpy_dtype
            min_limit = np_dtype(np.maximum(in_dtype.min, dtype.min))
            if float(min_limit) < dtype.min:
                min_limit = np.nextafter(min_limit, np_dtype(0), dtype=np_dtype)
            max_limit = np_dtype(np.minimum(float(in_dtype.max), float(dtype.max)))
            if float(max_limit) > dtype.max:
                max_limit = np.nextafter(max_limit, np_dtype(0), dtype=np_dtype)
            value = math_ops.maximum(value, ops.convert_to_tensor(min_limit, dtype=in_dtype))
            value = math_ops.minimum(value, ops.convert_to_tensor(max_limit, dtype=in_dtype))
        return array_ops.cast(value, dtype, name=name)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts an image to `dtype`, rescaling values (TF's `convert_image_dtype`).

    Floats are in `[0, 1]`, integers in `[0, MAX]`; integer to integer conversions shift
    by whole factors, float to integer multiplies by `MAX + 0.5` and truncates.

    Args:
        image: An image tensor.
        dtype: The target dtype.
        saturate: Whether to clamp to the target's range before casting.
        name: A name for the operation.

    Returns:
        `image` converted to `dtype`.

    Raises:
        AttributeError: either dtype is neither floating nor integer.
    """
    image = ops.convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return array_ops.identity(image, name=name)
    with ops.name_scope(name, "convert_image", [image]) as name:
        if image.dtype.is_integer and dtype.is_integer:
            scale_in = image.dtype.max
            scale_out = dtype.max
            if scale_in > scale_out:
                scale = (scale_in + 1) // (scale_out + 1)
                scaled = math_ops.floordiv(image, scale)
                if saturate:
                    return _saturate_cast(scaled, dtype, name=name)
                return array_ops.cast(scaled, dtype, name=name)
            cast = _saturate_cast(image, dtype) if saturate else array_ops.cast(image, dtype)
            scale = (scale_out + 1) // (scale_in + 1)
            return math_ops.multiply(cast, scale, name=name)
        if image.dtype.is_floating and dtype.is_floating:
            return array_ops.cast(image, dtype, name=name)
        if image.dtype.is_integer:
            cast = array_ops.cast(image, dtype)
            scale = 1.0 / image.dtype.max
            return math_ops.multiply(cast, scale, name=name)
        scale = dtype.max + 0.5
        scaled = math_ops.multiply(image, scale)
        if saturate:
            return _saturate_cast(scaled, dtype, name=name)
        return array_ops.cast(scaled, dtype, name=name)


def _to_float(image):
    """`image` as float: half and float32 pass, others through `convert_image_dtype`."""
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image
    return convert_image_dtype(image, dtypes.float32)


def adjust_brightness(image, delta):
    """Adds `delta` to every channel (in float), converting back with saturation.

    Args:
        image: An image tensor.
        delta: Scalar: the amount added (in `[0, 1]` units).

    Returns:
        The adjusted image, of `image`'s type.
    """
    with ops.name_scope(None, "adjust_brightness", [image, delta]) as name:
        image = ops.convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt_image = _to_float(image)
        adjusted = math_ops.add(flt_image, array_ops.cast(delta, flt_image.dtype), name=name)
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    """Scales each channel's distance to its per-image mean by `contrast_factor`.

    Args:
        images: Images of at least 3 dimensions, `[..., height, width, channels]`.
        contrast_factor: Scalar float multiplier.

    Returns:
        The adjusted images, of `images`' type (TF's `AdjustContrastv2`).
    """
    with ops.name_scope(None, "adjust_contrast", [images, contrast_factor]) as name:
        images = ops.convert_to_tensor(images, name="images")
        orig_dtype = images.dtype
        flt_images = _to_float(images)
        factor = ops.convert_to_tensor(
            contrast_factor, dtype=dtypes.float32, name="contrast_factor"
        )
        adjusted = make_op("AdjustContrastv2", [flt_images, factor], scope=name).outputs[0]
        return convert_image_dtype(adjusted, orig_dtype, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
    """Gamma correction: `gain * image ** gamma` (in float).

    Args:
        image: An image tensor.
        gamma: Non-negative exponent.
        gain: Multiplier.

    Returns:
        The adjusted image, of `image`'s type.

    Raises:
        ValueError: a static `gamma` is negative.
    """
    with ops.name_scope(None, "adjust_gamma", [image, gamma, gain]):
        image = ops.convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt_image = _to_float(image)
        assert_op = _assert(gamma >= 0, ValueError, "Gamma should be a non-negative real number.")
        if assert_op:
            gamma = control_flow_ops.with_dependencies(assert_op, gamma)
        adjusted_img = gain * flt_image**gamma
        return convert_image_dtype(adjusted_img, orig_dtype, saturate=True)


def adjust_hue(image, delta, name=None):
    """Rotates the hue of RGB images by `delta` of a full turn (TF's `AdjustHue`).

    Args:
        image: RGB images, last dimension 3.
        delta: Scalar float in `[-1, 1]`.
        name: A name for the operation.

    Returns:
        The adjusted images, of `image`'s type.
    """
    with ops.name_scope(name, "adjust_hue", [image]):
        image = ops.convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt_image = _to_float(image)
        delta = ops.convert_to_tensor(delta, dtype=dtypes.float32, name="delta")
        rgb_altered = make_op("AdjustHue", [flt_image, delta], name="AdjustHue").outputs[0]
        return convert_image_dtype(rgb_altered, orig_dtype)


def adjust_saturation(image, saturation_factor, name=None):
    """Scales the saturation of RGB images by `saturation_factor` (TF's `AdjustSaturation`).

    Args:
        image: RGB images, last dimension 3.
        saturation_factor: Scalar float multiplier.
        name: A name for the operation.

    Returns:
        The adjusted images, of `image`'s type.
    """
    with ops.name_scope(name, "adjust_saturation", [image]):
        image = ops.convert_to_tensor(image, name="image")
        orig_dtype = image.dtype
        flt_image = _to_float(image)
        scale = ops.convert_to_tensor(saturation_factor, dtype=dtypes.float32, name="scale")
        adjusted = make_op("AdjustSaturation", [flt_image, scale], name="AdjustSaturation").outputs[
            0
        ]
        return convert_image_dtype(adjusted, orig_dtype)


def random_brightness(image, max_delta, seed=None):
    """`adjust_brightness` by a delta drawn uniformly from `[-max_delta, max_delta)`.

    Args:
        image: An image tensor.
        max_delta: Non-negative float.
        seed: Op-level seed (see `tf.set_random_seed`).

    Returns:
        The adjusted image.

    Raises:
        ValueError: `max_delta` is negative.
    """
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image, lower, upper, seed=None):
    """`adjust_contrast` by a factor drawn uniformly from `[lower, upper)`.

    Args:
        image: Images of at least 3 dimensions.
        lower: Lower bound of the factor (non-negative).
        upper: Upper bound of the factor.
        seed: Op-level seed (see `tf.set_random_seed`).

    Returns:
        The adjusted images.

    Raises:
        ValueError: `upper <= lower` or `lower < 0`.
    """
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    contrast_factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, contrast_factor)


def random_hue(image, max_delta, seed=None):
    """`adjust_hue` by a delta drawn uniformly from `[-max_delta, max_delta)`.

    Args:
        image: RGB images, last dimension 3.
        max_delta: Float in `[0, 0.5]`.
        seed: Op-level seed (see `tf.set_random_seed`).

    Returns:
        The adjusted images.

    Raises:
        ValueError: `max_delta` is outside `[0, 0.5]`.
    """
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


def random_saturation(image, lower, upper, seed=None):
    """`adjust_saturation` by a factor drawn uniformly from `[lower, upper)`.

    Args:
        image: RGB images, last dimension 3.
        lower: Lower bound of the factor (non-negative).
        upper: Upper bound of the factor.
        seed: Op-level seed (see `tf.set_random_seed`).

    Returns:
        The adjusted images.

    Raises:
        ValueError: `upper <= lower` or `lower < 0`.
    """
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    saturation_factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, saturation_factor)


def per_image_standardization(image):
    """Scales each image to zero mean and unit variance.

    `(x - mean) / max(stddev, 1 / sqrt(num_elements))` over each image's
    height, width and channels.

    Args:
        image: Images of at least 3 dimensions.

    Returns:
        The standardized images, float32.
    """
    with ops.name_scope(None, "per_image_standardization", [image]) as scope:
        image = ops.convert_to_tensor(image, name="image")
        image = _assert_at_least_3d_image(image)
        image = array_ops.cast(image, dtype=dtypes.float32)
        num_pixels = math_ops.reduce_prod(array_ops.shape(image)[-3:])
        image_mean = math_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        with ops.name_scope(None, "reduce_std", [image]):
            with ops.name_scope(None, "reduce_variance", [image]):
                means = math_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
                squared_deviations = math_ops.square(image - means)
                variance = math_ops.reduce_mean(
                    squared_deviations, axis=[-1, -2, -3], keepdims=True
                )
            stddev = math_ops.sqrt(variance)
        min_stddev = math_ops.rsqrt(array_ops.cast(num_pixels, dtypes.float32))
        adjusted_stddev = math_ops.maximum(stddev, min_stddev)
        image -= image_mean
        return math_ops.divide(image, adjusted_stddev, name=scope)


def rgb_to_grayscale(images, name=None):
    """Converts RGB images to grayscale: `0.2989 R + 0.587 G + 0.114 B`.

    Args:
        images: RGB images, last dimension 3.
        name: A name for the operation.

    Returns:
        Grayscale images (last dimension 1) of `images`' type.
    """
    with ops.name_scope(name, "rgb_to_grayscale", [images]) as name:
        images = ops.convert_to_tensor(images, name="images")
        orig_dtype = images.dtype
        flt_image = convert_image_dtype(images, dtypes.float32)
        rgb_weights = [0.2989, 0.587, 0.114]
        # TF's `tensordot(flt_image, rgb_weights, [-1, -1])`: a [-1, 3] x [3, 1] MatMul.
        with ops.name_scope(None, "Tensordot", [flt_image]):
            weights = ops.convert_to_tensor(rgb_weights, dtype=dtypes.float32, name="b")
            flat = array_ops.reshape(flt_image, [-1, 3])
            product = math_ops.matmul(flat, array_ops.reshape(weights, [3, 1]))
            gray_float = array_ops.reshape(product, array_ops.shape(flt_image)[:-1])
            gray_float.set_shape(flt_image.get_shape()[:-1])
        gray_float = array_ops.expand_dims(gray_float, -1)
        return convert_image_dtype(gray_float, orig_dtype, name=name)


def grayscale_to_rgb(images, name=None):
    """Replicates a grayscale image's single channel into three.

    Args:
        images: Grayscale images, last dimension 1.
        name: A name for the operation.

    Returns:
        RGB images of `images`' type.
    """
    with ops.name_scope(name, "grayscale_to_rgb", [images]) as name:
        images = ops.convert_to_tensor(images, name="images")
        images = control_flow_ops.with_dependencies(_check_grayscale_image(images), images)
        rank_1 = array_ops.expand_dims(array_ops.rank(images) - 1, 0)
        shape_list = [array_ops.ones(rank_1, dtype=dtypes.int32), array_ops.expand_dims(3, 0)]
        multiples = array_ops.concat(shape_list, 0)
        rgb = tile(images, multiples, name=name)
        rgb.set_shape(images.get_shape()[:-1].concatenate([3]))
        return rgb


def rgb_to_hsv(images, name=None):
    """Converts RGB images (floats in `[0, 1]`) to HSV (TF's `RGBToHSV`).

    Args:
        images: Float RGB images, last dimension 3.
        name: A name for the operation.

    Returns:
        HSV images of the same type.
    """
    with ops.name_scope(name, "RGBToHSV", [images]) as scope:
        images = ops.convert_to_tensor(images, name="images")
        return make_op("RGBToHSV", [images], scope=scope).outputs[0]


def hsv_to_rgb(images, name=None):
    """Converts HSV images to RGB (TF's `HSVToRGB`).

    Args:
        images: Float HSV images, last dimension 3.
        name: A name for the operation.

    Returns:
        RGB images of the same type.
    """
    with ops.name_scope(name, "HSVToRGB", [images]) as scope:
        images = ops.convert_to_tensor(images, name="images")
        return make_op("HSVToRGB", [images], scope=scope).outputs[0]


def total_variation(images, name=None):
    """The total variation: the sum of absolute differences of neighbouring pixels.

    Args:
        images: 3-D image or 4-D batch.
        name: A name for the operation.

    Returns:
        A scalar (3-D input) or one value per image (4-D input).

    Raises:
        ValueError: `images` has another rank.
    """
    with ops.name_scope(name, "total_variation"):
        images = ops.convert_to_tensor(images, name="images")
        ndims = images.get_shape().ndims
        if ndims == 3:
            pixel_dif1 = images[1:, :, :] - images[:-1, :, :]
            pixel_dif2 = images[:, 1:, :] - images[:, :-1, :]
            sum_axis = None
        elif ndims == 4:
            pixel_dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            pixel_dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            sum_axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return math_ops.reduce_sum(math_ops.abs(pixel_dif1), axis=sum_axis) + math_ops.reduce_sum(
            math_ops.abs(pixel_dif2), axis=sum_axis
        )


# ---------------------------------------------------------------------------------
# Codecs


def _contents(contents):
    return ops.convert_to_tensor(contents, dtype=dtypes.string, name="contents")


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """Decodes a PNG image to a `[height, width, channels]` tensor (TF's `DecodePng`).

    Args:
        contents: Scalar string: the PNG file's bytes.
        channels: 0 (the file's), 1 (gray), 3 (RGB) or 4 (RGBA).
        dtype: uint8 or uint16.
        name: A name for the operation.

    Returns:
        The decoded image.
    """
    with ops.name_scope(name, "DecodePng", [contents]) as scope:
        attrs = {"channels": int(channels), "dtype": dtypes.as_dtype(dtype)}
        return make_op("DecodePng", [_contents(contents)], attrs, scope=scope).outputs[0]


def decode_jpeg(
    contents,
    channels=0,
    ratio=1,
    fancy_upscaling=True,
    try_recover_truncated=False,
    acceptable_fraction=1,
    dct_method="",
    name=None,
):
    """Decodes a JPEG image to a uint8 `[height, width, channels]` tensor (`DecodeJpeg`).

    The pixels are TensorFlow's: the decoder follows libjpeg-turbo (TF's JPEG library)
    step by step, with the IDCT `dct_method` names, TF's chroma upsampling and colour
    conversions; CMYK files are converted to RGB as TF converts them.

    Args:
        contents: Scalar string: the JPEG file's bytes.
        channels: 0 (the file's, at most 3), 1 (gray) or 3 (RGB).
        ratio: Downscaling ratio: 1, 2, 4 or 8 (libjpeg's scaled IDCTs).
        fancy_upscaling: Smooth (triangle-filtered) chroma upsampling; False
            repeats each chroma sample.
        try_recover_truncated: Decode a file whose data ends without an EOI marker
            (what is missing is left gray, as libjpeg leaves it).
        acceptable_fraction: TF's attr, in `[0, 1]` (a partial decode is an error).
        dct_method: `""` or `"INTEGER_FAST"` (TF's default) or
            `"INTEGER_ACCURATE"`.
        name: A name for the operation.

    Returns:
        The decoded image.
    """
    with ops.name_scope(name, "DecodeJpeg", [contents]) as scope:
        attrs = _jpeg_decode_attrs(
            channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
        )
        return make_op("DecodeJpeg", [_contents(contents)], attrs, scope=scope).outputs[0]


def _jpeg_decode_attrs(
    channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
):
    return {
        "channels": int(channels),
        "ratio": int(ratio),
        "fancy_upscaling": bool(fancy_upscaling),
        "try_recover_truncated": bool(try_recover_truncated),
        "acceptable_fraction": float(acceptable_fraction),
        "dct_method": dct_method,
    }


def decode_and_crop_jpeg(
    contents,
    crop_window,
    channels=0,
    ratio=1,
    fancy_upscaling=True,
    try_recover_truncated=False,
    acceptable_fraction=1,
    dct_method="",
    name=None,
):
    """Decodes the window of a JPEG image (`DecodeAndCropJpeg`).

    Only the MCU columns and rows the window needs are transformed and converted, and
    a file with one scan is decoded only down to the window's last row. The pixels are
    TensorFlow's: libjpeg-turbo's cropped decode treats the window's right edge (and
    its left edge where that falls on an MCU column) as the image's edge for the
    chroma upsampling filter, so an edge column can differ from a crop of
    `decode_jpeg`'s result, exactly as in TF.

    Args:
        contents: Scalar string: the JPEG file's bytes.
        crop_window: 1-D int32 `[y, x, height, width]` in output pixels (after
            `ratio`); a window outside the image is `InvalidArgumentError`.
        channels: 0 (the file's, at most 3), 1 (gray) or 3 (RGB).
        ratio: Downscaling ratio: 1, 2, 4 or 8.
        fancy_upscaling: Smooth chroma upsampling, as in `decode_jpeg`.
        try_recover_truncated: As in `decode_jpeg`.
        acceptable_fraction: TF's attr, in `[0, 1]`.
        dct_method: `""`, `"INTEGER_FAST"` or `"INTEGER_ACCURATE"`.
        name: A name for the operation.

    Returns:
        The window's pixels, `[height, width, channels]` (static when `crop_window`
        is a constant).
    """
    with ops.name_scope(name, "DecodeAndCropJpeg", [contents, crop_window]) as scope:
        window = ops.convert_to_tensor(crop_window, dtype=dtypes.int32, name="crop_window")
        attrs = _jpeg_decode_attrs(
            channels, ratio, fancy_upscaling, try_recover_truncated, acceptable_fraction, dct_method
        )
        return make_op(
            "DecodeAndCropJpeg", [_contents(contents), window], attrs, scope=scope
        ).outputs[0]


def extract_jpeg_shape(contents, output_type=dtypes.int32, name=None):
    """The `[height, width, channels]` of a JPEG image, from its header (`ExtractJpegShape`).

    Nothing is decoded.

    Args:
        contents: Scalar string: the JPEG file's bytes.
        output_type: int32 or int64.
        name: A name for the operation.

    Returns:
        A 1-D tensor of 3 elements; channels is the file's component count (4 for
        CMYK), as TF gives it.
    """
    with ops.name_scope(name, "ExtractJpegShape", [contents]) as scope:
        attrs = {"output_type": dtypes.as_dtype(output_type)}
        return make_op("ExtractJpegShape", [_contents(contents)], attrs, scope=scope).outputs[0]


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    """Decodes a PNG, JPEG, GIF or BMP image, detected from its first bytes (`DecodeImage`).

    A GIF gives all its frames, `[frames, height, width, 3]` (its first frame, 3-D,
    with `expand_animations=False`); the other formats `[height, width, channels]`.

    Args:
        contents: Scalar string: the file's bytes.
        channels: None or 0 (the file's), 1, 3 or 4 (as each format allows).
        dtype: uint8, uint16 or float32 (then scaled to `[0, 1]`); others are
            converted with `convert_image_dtype`.
        name: A name for the operation.
        expand_animations: TF's attr; with False the result is known to be 3-D.

    Returns:
        The decoded image.
    """
    with ops.name_scope(name, "decode_image"):
        channels = 0 if channels is None else channels
        dtype = dtypes.as_dtype(dtype)
        original_dtype = dtype
        decode_dtype = (
            dtype if dtype in (dtypes.float32, dtypes.uint8, dtypes.uint16) else dtypes.uint16
        )
        attrs = {
            "channels": int(channels),
            "dtype": decode_dtype,
            "expand_animations": bool(expand_animations),
        }
        image = make_op("DecodeImage", [_contents(contents)], attrs, name="DecodeImage").outputs[0]
        if decode_dtype != original_dtype:
            image = convert_image_dtype(image, original_dtype)
        if not expand_animations:
            image.set_shape([None, None, channels or None])
        return image


def decode_gif(contents, name=None):
    """Decodes every frame of a GIF: `[frames, height, width, 3]` uint8 (TF's `DecodeGif`).

    As TF, each frame is drawn over the previous one (its transparent pixels keep
    them); a first frame smaller than the canvas leaves black around it.

    Args:
        contents: Scalar string: the GIF file's bytes.
        name: A name for the operation.
    """
    with ops.name_scope(name, "DecodeGif") as scope:
        return make_op("DecodeGif", [_contents(contents)], scope=scope).outputs[0]


def decode_bmp(contents, channels=0, name=None):
    """Decodes an uncompressed BMP: `[height, width, channels]` uint8 (TF's `DecodeBmp`).

    Args:
        contents: Scalar string: the BMP file's bytes.
        channels: 0 (the file's: 1, 3 or 4 bytes per pixel) or the file's count.
        name: A name for the operation.
    """
    with ops.name_scope(name, "DecodeBmp") as scope:
        attrs = {"channels": int(channels)}
        return make_op("DecodeBmp", [_contents(contents)], attrs, scope=scope).outputs[0]


def encode_png(image, compression=-1, name=None):
    """PNG-encodes a uint8 or uint16 `[height, width, channels]` image (TF's `EncodePng`).

    Args:
        image: 3-D image with 1 to 4 channels.
        compression: -1 (default) or 0-9.
        name: A name for the operation.

    Returns:
        A scalar string: the PNG file's bytes.
    """
    with ops.name_scope(name, "EncodePng", [image]) as scope:
        image = ops.convert_to_tensor(image, name="image")
        attrs = {"compression": int(compression)}
        return make_op("EncodePng", [image], attrs, scope=scope).outputs[0]


def encode_jpeg(
    image,
    format="",
    quality=95,
    progressive=False,
    optimize_size=False,
    chroma_downsampling=True,
    density_unit="in",
    x_density=300,
    y_density=300,
    xmp_metadata="",
    name=None,
):
    """JPEG-encodes a uint8 `[height, width, channels]` image (TF's `EncodeJpeg`).

    Args:
        image: 3-D uint8 image with 1 or 3 channels.
        format: `""` (from the channels), `"grayscale"` or `"rgb"`.
        quality: 0-100.
        progressive: Whether to write a progressive JPEG.
        optimize_size: Accepted; the standard Huffman tables are written.
        chroma_downsampling: Whether chroma is subsampled 2x2.
        density_unit: `"in"` or `"cm"`.
        x_density: Horizontal pixels per density unit.
        y_density: Vertical pixels per density unit.
        xmp_metadata: XMP metadata to embed (empty: none).
        name: A name for the operation.

    Returns:
        A scalar string: the JPEG file's bytes.
    """
    with ops.name_scope(name, "EncodeJpeg", [image]) as scope:
        image = ops.convert_to_tensor(image, name="image")
        attrs = {
            "format": format,
            "quality": int(quality),
            "progressive": bool(progressive),
            "optimize_size": bool(optimize_size),
            "chroma_downsampling": bool(chroma_downsampling),
            "density_unit": density_unit,
            "x_density": int(x_density),
            "y_density": int(y_density),
            "xmp_metadata": xmp_metadata,
        }
        return make_op("EncodeJpeg", [image], attrs, scope=scope).outputs[0]


def is_jpeg(contents, name=None):
    """Whether `contents` starts with the JPEG signature (bytes FF D8 FF).

    Args:
        contents: Scalar string.
        name: A name for the operation.

    Returns:
        A scalar bool tensor.
    """
    from .string_ops import substr

    with ops.name_scope(name, "is_jpeg"):
        prefix = substr(contents, 0, 3)
        return math_ops.equal(prefix, b"\xff\xd8\xff", name=name)


# ---------------------------------------------------------------------------------
# Gradients written in Python (TF's `image_grad.py`)


def _custom_reciprocal(x):
    return math_ops.div_no_nan(array_ops.cast(1.0, x.dtype), x)


@ops.RegisterGradient("RGBToHSV")
def _rgb_to_hsv_grad(op, grad):
    """TF's `_RGBToHSVGrad`: the piecewise partial derivatives of hue, saturation, value."""
    reds = op.inputs[0][..., 0]
    greens = op.inputs[0][..., 1]
    blues = op.inputs[0][..., 2]
    saturation = op.outputs[0][..., 1]
    value = op.outputs[0][..., 2]
    dtype = op.inputs[0].dtype

    def both(a, b):
        return array_ops.cast(math_ops.logical_and(a, b), dtype)

    ge, gt, lt, le = (
        math_ops.greater_equal,
        math_ops.greater,
        math_ops.less,
        math_ops.less_equal,
    )
    red_biggest = both(ge(reds, blues), ge(reds, greens))
    green_biggest = both(gt(greens, reds), ge(greens, blues))
    blue_biggest = both(gt(blues, reds), gt(blues, greens))
    red_smallest = both(lt(reds, blues), lt(reds, greens))
    green_smallest = both(le(greens, reds), lt(greens, blues))
    blue_smallest = both(le(blues, reds), le(blues, greens))
    dv_dr, dv_dg, dv_db = red_biggest, green_biggest, blue_biggest

    def pos(x):
        return array_ops.cast(gt(x, 0), dtype)

    rec, sq = _custom_reciprocal, math_ops.square
    ds_dr = pos(reds) * math_ops.add(
        red_biggest * math_ops.add(green_smallest * greens, blue_smallest * blues) * rec(sq(reds)),
        red_smallest * -1 * rec((green_biggest * greens) + (blue_biggest * blues)),
    )
    ds_dg = pos(greens) * math_ops.add(
        green_biggest * math_ops.add(red_smallest * reds, blue_smallest * blues) * rec(sq(greens)),
        green_smallest * -1 * rec((red_biggest * reds) + (blue_biggest * blues)),
    )
    ds_db = pos(blues) * math_ops.add(
        blue_biggest * math_ops.add(green_smallest * greens, red_smallest * reds) * rec(sq(blues)),
        blue_smallest * -1 * rec((green_biggest * greens) + (red_biggest * reds)),
    )
    sv = rec(sq(saturation)) * rec(sq(value))
    dh_dr = (
        60 * (pos(reds) * red_biggest * -1 * (greens - blues) * sv)
        + 60
        * (pos(greens) * green_biggest * red_smallest * (blues - greens) * rec(sq(reds - greens)))
        + 60 * (pos(greens) * green_biggest * blue_smallest * -1 * rec(greens - blues))
        + 60 * (pos(blues) * blue_biggest * red_smallest * (blues - greens) * rec(sq(blues - reds)))
        + 60 * (pos(blues) * blue_biggest * green_smallest * rec(blues - greens))
    ) / 360
    dh_dg = (
        60 * (pos(greens) * green_biggest * -1 * (blues - reds) * sv)
        + 60 * (pos(reds) * red_biggest * green_smallest * (reds - blues) * rec(sq(reds - greens)))
        + 60 * (pos(reds) * red_biggest * blue_smallest * rec(reds - blues))
        + 60
        * (pos(blues) * blue_biggest * green_smallest * (reds - blues) * rec(sq(blues - greens)))
        + 60 * (pos(blues) * blue_biggest * red_smallest * -1 * rec(blues - reds))
    ) / 360
    dh_db = (
        60 * (pos(blues) * blue_biggest * -1 * (reds - greens) * sv)
        + 60 * (pos(reds) * red_biggest * blue_smallest * (greens - reds) * rec(sq(reds - blues)))
        + 60 * (pos(reds) * red_biggest * green_smallest * -1 * rec(reds - greens))
        + 60
        * (pos(greens) * green_biggest * blue_smallest * (greens - reds) * rec(sq(greens - blues)))
        + 60 * (pos(greens) * green_biggest * red_smallest * rec(greens - reds))
    ) / 360
    dv_drgb = array_ops.stack(
        [grad[..., 2] * dv_dr, grad[..., 2] * dv_dg, grad[..., 2] * dv_db], axis=-1
    )
    ds_drgb = array_ops.stack(
        [grad[..., 1] * ds_dr, grad[..., 1] * ds_dg, grad[..., 1] * ds_db], axis=-1
    )
    dh_drgb = array_ops.stack(
        [grad[..., 0] * dh_dr, grad[..., 0] * dh_dg, grad[..., 0] * dh_db], axis=-1
    )
    return [math_ops.add(math_ops.add(dv_drgb, ds_drgb), dh_drgb)]


# ---------------------------------------------------------------------------------
# Image quality and filters (TF's `psnr`, `ssim`, `ssim_multiscale`, `image_gradients`,
# `sobel_edges`): compositions of `DepthwiseConv2dNative`, `AvgPool`, `MirrorPad` and
# the reductions, built as TF's Python builds them.


def _shape_n(inputs, out_type=dtypes.int32, name=None):
    """The shapes of `inputs`, one op (TF's `array_ops.shape_n`, op `ShapeN`)."""
    with ops.name_scope(name, "ShapeN", inputs) as scope:
        inputs = [ops.convert_to_tensor(x, name="input") for x in inputs]
        types = [x.dtype.base_dtype for x in inputs]
        if len(set(types)) > 1:
            raise TypeError(
                "Tensors in list passed to 'input' of 'ShapeN' Op have types "
                f"[{', '.join(t.name for t in types)}] that don't all match."
            )
        attrs = {"out_type": dtypes.as_dtype(out_type)}
        return list(make_op("ShapeN", inputs, attrs, scope=scope).outputs)


def _static_dims(shape, start=None, stop=None):
    """`shape[start:stop]` as a list of ints and Nones, or None when the rank is unknown."""
    shape = tensor_shape.TensorShape(shape)
    return None if shape.ndims is None else shape.as_list()[start:stop]


def _reshape_as_tf_infers(tensor, shape, static):
    """`reshape(tensor, shape)` with the static shape TF's shape inference gives it.

    TF reads a shape tensor built from `Shape`, `ShapeN`, their slices and `ConcatV2`
    in part (`ConstantPartialShape`): `static` is what it reads (a list of ints and
    Nones; None for an unknown rank). As TF's `Reshape`, one unknown dimension is
    resolved when `tensor`'s shape is fully defined.
    """
    result = array_ops.reshape(tensor, shape)
    if static is None:
        return result
    static = list(static)
    unknown = [i for i, d in enumerate(static) if d is None]
    known = int(np.prod([d for d in static if d is not None], dtype=np.int64))
    if tensor.get_shape().is_fully_defined() and len(unknown) == 1 and known > 0:
        static[unknown[0]] = tensor.get_shape().num_elements() // known
    result.set_shape(static)
    return result


def _verify_compatible_image_shapes(img1, img2):
    """Checks that two image batches have rank >= 3 and equal last three dimensions.

    Args:
        img1: First image batch.
        img2: Second image batch.

    Returns:
        The first shape tensor, the second shape tensor, and the `Assert` ops of the
        run-time checks.

    Raises:
        ValueError: the static shapes are not compatible.
    """
    shape1 = img1.get_shape().with_rank_at_least(3)
    shape2 = img2.get_shape().with_rank_at_least(3)
    shape1[-3:].assert_is_compatible_with(shape2[-3:])
    if shape1.ndims is not None and shape2.ndims is not None:
        for dim1, dim2 in zip(reversed(shape1.dims[:-3]), reversed(shape2.dims[:-3])):
            if not (dim1 == 1 or dim2 == 1 or dim1.is_compatible_with(dim2)):
                raise ValueError(f"Two images are not compatible: {shape1} and {shape2}")
    shape1, shape2 = _shape_n([img1, img2])
    checks = [
        Assert(math_ops.greater_equal(array_ops.size(shape1), 3), [shape1, shape2], summarize=10),
        Assert(
            math_ops.reduce_all(math_ops.equal(shape1[-3:], shape2[-3:])),
            [shape1, shape2],
            summarize=10,
        ),
    ]
    return shape1, shape2, checks


def psnr(a, b, max_val, name=None):
    """The peak signal-to-noise ratio between `a` and `b`, one value per image.

    The last three dimensions are `[height, width, depth]`; integer images are
    converted to float32 with `convert_image_dtype` first (and `max_val` with them).

    Args:
        a: First set of images.
        b: Second set of images.
        max_val: The dynamic range of the images (maximum allowed value less minimum).
        name: Namespace to embed the computation in.

    Returns:
        The float32 PSNR: one value per image, of the broadcast shape of `a`'s and
        `b`'s leading dimensions (infinite for identical images).
    """
    with ops.name_scope(name, "PSNR", [a, b]):
        max_val = array_ops.cast(max_val, a.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        mse = math_ops.reduce_mean(math_ops.squared_difference(a, b), [-3, -2, -1])
        psnr_val = math_ops.subtract(
            20 * math_ops.log(max_val) / math_ops.log(10.0),
            np.float32(10 / np.log(10)) * math_ops.log(mse),
            name="psnr",
        )
        _, _, checks = _verify_compatible_image_shapes(a, b)
        with ops.control_dependencies(checks):
            return array_ops.identity(psnr_val)


def _ssim_helper(x, y, reducer, max_val, compensation=1.0, k1=0.01, k2=0.03):
    """The luminance and contrast-structure measures of SSIM (TF's `_ssim_helper`)."""
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0 = reducer(x)
    mean1 = reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = math_ops.square(mean0) + math_ops.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(math_ops.square(x) + math_ops.square(y))
    c2 *= compensation
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance, cs


def _fspecial_gauss(size, sigma):
    """MATLAB's `fspecial('gaussian')`: a `[size, size, 1, 1]` normalized kernel."""
    from .nn_ops import softmax

    size = ops.convert_to_tensor(size, dtypes.int32)
    sigma = ops.convert_to_tensor(sigma)
    coords = array_ops.cast(math_ops.range(size), sigma.dtype)
    coords -= array_ops.cast(size - 1, sigma.dtype) / 2.0
    g = math_ops.square(coords)
    g *= -0.5 / math_ops.square(sigma)
    g = array_ops.reshape(g, shape=[1, -1]) + array_ops.reshape(g, shape=[-1, 1])
    g = array_ops.reshape(g, shape=[1, -1])  # For softmax.
    g = softmax(g)
    return array_ops.reshape(g, shape=[size, size, 1, 1])


def _ssim_per_channel(
    img1,
    img2,
    max_val=1.0,
    filter_size=11,
    filter_sigma=1.5,
    k1=0.01,
    k2=0.03,
    return_index_map=False,
):
    """SSIM and contrast-structure per channel, shape `[..., channels]` (TF's)."""
    from ..framework import constant_op
    from .conv_ops import depthwise_conv2d

    filter_size = constant_op.constant(filter_size, dtype=dtypes.int32)
    filter_sigma = constant_op.constant(filter_sigma, dtype=img1.dtype)
    shape1, shape2 = _shape_n([img1, img2])
    checks = [
        Assert(
            math_ops.reduce_all(math_ops.greater_equal(shape1[-3:-1], filter_size)),
            [shape1, filter_size],
            summarize=8,
        ),
        Assert(
            math_ops.reduce_all(math_ops.greater_equal(shape2[-3:-1], filter_size)),
            [shape2, filter_size],
            summarize=8,
        ),
    ]
    with ops.control_dependencies(checks):
        img1 = array_ops.identity(img1)
    kernel = _fspecial_gauss(filter_size, filter_sigma)
    kernel = tile(kernel, multiples=[1, 1, shape1[-1], 1])
    # TF infers `[filter_size, filter_size, ?, 1]` (it cannot read `shape1[-1]`).
    kernel.set_shape([constant_value(filter_size)] * 2 + [None, 1])
    # TF (and MATLAB's MS-SSIM) use 1.0, not `1 - reduce_sum(square(kernel))`.
    compensation = 1.0

    def reducer(x):
        shape = array_ops.shape(x)
        tail = _static_dims(x.get_shape(), -3)
        x_static = x.get_shape()
        x = _reshape_as_tf_infers(
            x, array_ops.concat([[-1], shape[-3:]], 0), None if tail is None else [None, *tail]
        )
        y = depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")
        head = _static_dims(x_static, None, -3)
        return _reshape_as_tf_infers(
            y,
            array_ops.concat([shape[:-3], array_ops.shape(y)[1:]], 0),
            None if head is None else head + y.get_shape().as_list()[1:],
        )

    luminance, cs = _ssim_helper(img1, img2, reducer, max_val, compensation, k1, k2)
    if return_index_map:
        ssim_val = luminance * cs
    else:
        axes = constant_op.constant([-3, -2], dtype=dtypes.int32)
        ssim_val = math_ops.reduce_mean(luminance * cs, axes)
        cs = math_ops.reduce_mean(cs, axes)
    return ssim_val, cs


def ssim(
    img1,
    img2,
    max_val,
    filter_size=11,
    filter_sigma=1.5,
    k1=0.01,
    k2=0.03,
    return_index_map=False,
):
    """The structural similarity index (SSIM) between `img1` and `img2`.

    Wang et al. (2004)'s SSIM with a Gaussian window, per channel, averaged over the
    channels (no colour transform). The images must be at least
    `filter_size x filter_size`; integer images are converted with
    `convert_image_dtype` (and `max_val` with them). Differentiable.

    Args:
        img1: First image batch, `[..., height, width, channels]`, non-negative.
        img2: Second image batch, broadcastable with `img1` in its leading dimensions.
        max_val: The dynamic range of the images (maximum allowed value less minimum).
        filter_size: Size of the Gaussian filter (default 11).
        filter_sigma: Width of the Gaussian filter (default 1.5).
        k1: Luminance constant (default 0.01).
        k2: Contrast constant (default 0.03).
        return_index_map: Whether to return the local SSIM map instead of its mean.

    Returns:
        A float32 tensor: one value per image, of shape
        `broadcast(img1.shape[:-3], img2.shape[:-3])`, or the map, of shape
        `broadcast(img1.shape[:-1], img2.shape[:-1])` less the filter's margins.

    Raises:
        ValueError: the static shapes are not compatible.
    """
    with ops.name_scope(None, "SSIM", [img1, img2]):
        img1 = ops.convert_to_tensor(img1, name="img1")
        img2 = ops.convert_to_tensor(img2, name="img2")
        _, _, checks = _verify_compatible_image_shapes(img1, img2)
        with ops.control_dependencies(checks):
            img1 = array_ops.identity(img1)
        max_val = array_ops.cast(max_val, img1.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        img1 = convert_image_dtype(img1, dtypes.float32)
        img2 = convert_image_dtype(img2, dtypes.float32)
        ssim_per_channel, _ = _ssim_per_channel(
            img1, img2, max_val, filter_size, filter_sigma, k1, k2, return_index_map
        )
        return math_ops.reduce_mean(ssim_per_channel, [-1])


# Default values obtained by Wang et al.
_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(
    img1,
    img2,
    max_val,
    power_factors=_MSSSIM_WEIGHTS,
    filter_size=11,
    filter_sigma=1.5,
    k1=0.01,
    k2=0.03,
):
    """The multi-scale SSIM (MS-SSIM) between `img1` and `img2`.

    Each scale after the first halves the images with a 2x2 average pool (after a
    symmetric pad to even sizes); the result is the product of the scales'
    contrast-structure measures (the last scale's SSIM) raised to `power_factors`,
    averaged over the channels.

    Args:
        img1: First image batch, `[..., height, width, channels]`, non-negative.
        img2: Second image batch, of `img1`'s rank.
        max_val: The dynamic range of the images (maximum allowed value less minimum).
        power_factors: The weight of each scale; their number is the number of scales
            (default Wang et al.'s five).
        filter_size: Size of the Gaussian filter (default 11).
        filter_sigma: Width of the Gaussian filter (default 1.5).
        k1: Luminance constant (default 0.01).
        k2: Contrast constant (default 0.03).

    Returns:
        A float32 tensor, one value in `[0, 1]` per image, of shape
        `broadcast(img1.shape[:-3], img2.shape[:-3])`.

    Raises:
        ValueError: the static shapes are not compatible.
    """
    from ..framework import constant_op
    from .conv_ops import avg_pool
    from .nn_ops import relu

    with ops.name_scope(None, "MS-SSIM", [img1, img2]):
        img1 = ops.convert_to_tensor(img1, name="img1")
        img2 = ops.convert_to_tensor(img2, name="img2")
        shape1, shape2, checks = _verify_compatible_image_shapes(img1, img2)
        with ops.control_dependencies(checks):
            img1 = array_ops.identity(img1)
        max_val = array_ops.cast(max_val, img1.dtype)
        max_val = convert_image_dtype(max_val, dtypes.float32)
        img1 = convert_image_dtype(img1, dtypes.float32)
        img2 = convert_image_dtype(img2, dtypes.float32)
        imgs = [img1, img2]
        shapes = [shape1, shape2]
        heads = [s[:-3] for s in shapes]
        tails = [s[-3:] for s in shapes]
        # What TF's shape inference reads of `heads` and `tails`.
        static_heads = [_static_dims(x.get_shape(), None, -3) for x in imgs]
        static_tails = [_static_dims(x.get_shape(), -3) for x in imgs]
        divisor = [1, 2, 2, 1]
        divisor_tensor = constant_op.constant(divisor[1:], dtype=dtypes.int32)

        def do_pad(images, remainder):
            padding = array_ops.expand_dims(remainder, -1)
            padding = pad(padding, [[1, 0], [1, 0]])
            return [pad(x, padding, mode="SYMMETRIC") for x in images]

        mcs = []
        ssim_per_channel = None
        for k in range(len(power_factors)):
            with ops.name_scope(None, f"Scale{k}", imgs):
                if k > 0:
                    # Avg pool takes rank 4 tensors. Flatten leading dimensions.
                    flat_imgs = [
                        _reshape_as_tf_infers(
                            x, array_ops.concat([[-1], t], 0), None if st is None else [None, *st]
                        )
                        for x, t, st in zip_strict(imgs, tails, static_tails)
                    ]
                    remainder = tails[0] % divisor_tensor
                    need_padding = math_ops.reduce_any(math_ops.not_equal(remainder, 0))
                    padded = control_flow_ops.cond(
                        need_padding,
                        lambda flat_imgs=flat_imgs, remainder=remainder: do_pad(
                            flat_imgs, remainder
                        ),
                        lambda flat_imgs=flat_imgs: flat_imgs,
                    )
                    downscaled = [
                        avg_pool(x, ksize=divisor, strides=divisor, padding="VALID") for x in padded
                    ]
                    tails = [x[1:] for x in _shape_n(downscaled)]
                    static_tails = [x.get_shape().as_list()[1:] for x in downscaled]
                    imgs = [
                        _reshape_as_tf_infers(
                            x, array_ops.concat([h, t], 0), None if sh is None else [*sh, *st]
                        )
                        for x, h, t, sh, st in zip_strict(
                            downscaled, heads, tails, static_heads, static_tails
                        )
                    ]
                # Overwrite the previous ssim value: only the last one is needed.
                ssim_per_channel, cs = _ssim_per_channel(
                    imgs[0],
                    imgs[1],
                    max_val=max_val,
                    filter_size=filter_size,
                    filter_sigma=filter_sigma,
                    k1=k1,
                    k2=k2,
                )
                mcs.append(relu(cs))
        # The last scale contributes its SSIM (l(p) * cs(p)), not its cs.
        mcs.pop()
        mcs_and_ssim = array_ops.stack([*mcs, relu(ssim_per_channel)], axis=-1)
        ms_ssim = math_ops.reduce_prod(math_ops.pow(mcs_and_ssim, power_factors), [-1])
        return math_ops.reduce_mean(ms_ssim, [-1])  # Average over the channels.


def image_gradients(image):
    """The vertical and horizontal one-step differences `(dy, dx)` of an image batch.

    `dy[:, i, j]` is `image[:, i + 1, j] - image[:, i, j]` (zero in the last row),
    `dx[:, i, j]` is `image[:, i, j + 1] - image[:, i, j]` (zero in the last column).

    Args:
        image: A 4-D `[batch, height, width, depth]` tensor.

    Returns:
        The pair `(dy, dx)`, each of `image`'s shape and type.

    Raises:
        ValueError: `image` is not 4-D.
    """
    if image.get_shape().ndims != 4:
        raise ValueError(
            f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {image.get_shape()}."
        )
    image_shape = array_ops.shape(image)
    batch_size, height, width, depth = array_ops.unstack(image_shape)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    # TF reads the static dimensions of `image_shape`'s parts into the zeros' shapes.
    b, h, w, d = image.get_shape().as_list()
    shape = array_ops.stack([batch_size, 1, width, depth])
    zeros = array_ops.zeros(shape, image.dtype)
    zeros.set_shape([b, 1, w, d])
    dy = array_ops.concat([dy, zeros], 1)
    dy = array_ops.reshape(dy, image_shape)
    shape = array_ops.stack([batch_size, height, 1, depth])
    zeros = array_ops.zeros(shape, image.dtype)
    zeros.set_shape([b, h, 1, d])
    dx = array_ops.concat([dx, zeros], 2)
    dx = array_ops.reshape(dx, image_shape)
    return dy, dx


def sobel_edges(image):
    """The Sobel edge maps of each channel of an image batch.

    The image is reflect-padded by one pixel and convolved (depthwise) with the
    vertical and horizontal 3x3 Sobel kernels.

    Args:
        image: A float32 or float64 `[batch, height, width, depth]` tensor, at least
            2x2.

    Returns:
        A `[batch, height, width, depth, 2]` tensor: `[..., 0]` is the vertical
        (`dy`) and `[..., 1]` the horizontal (`dx`) edge map.
    """
    from ..framework import constant_op
    from .conv_ops import depthwise_conv2d

    static_image_shape = image.get_shape()
    image_shape = array_ops.shape(image)
    sobel = [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]]
    num_kernels = len(sobel)
    kernels = np.expand_dims(np.transpose(np.asarray(sobel), (1, 2, 0)), -2)
    kernels_tf = constant_op.constant(kernels, dtype=image.dtype)
    kernels_tf = tile(kernels_tf, [1, 1, image_shape[-1], 1], name="sobel_filters")
    # TF reads the depth from `image_shape[-1]` when it is static.
    depth = _static_dims(static_image_shape, -1)
    kernels_tf.set_shape([3, 3, depth[0] if depth else None, num_kernels])
    pad_sizes = [[0, 0], [1, 1], [1, 1], [0, 0]]
    padded = pad(image, pad_sizes, mode="REFLECT")
    strides = [1, 1, 1, 1]
    output = depthwise_conv2d(padded, kernels_tf, strides, "VALID")
    shape = array_ops.concat([image_shape, [num_kernels]], 0)
    output = array_ops.reshape(output, shape=shape)
    output.set_shape(static_image_shape.concatenate([num_kernels]))
    return output


# ---------------------------------------------------------------------------------
# TF 2's resizing (`tf.compat.v2.image.resize`, `resize_with_pad`), as TF 1.15's
# `image_ops` defines it beside the v1 functions.

ResizeMethodV1 = ResizeMethod


class ResizeMethodV2:
    """TF 2's resize methods (TF's `image_ops.ResizeMethod`), the `method` of `resize_images_v2`.

    `LANCZOS3`, `LANCZOS5`, `GAUSSIAN` and `MITCHELLCUBIC` (and `antialias` with
    `BILINEAR` or `BICUBIC`) are TF's `ScaleAndTranslate` op (its sampling kernels,
    with its gradient).
    """

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _resize_images_common(
    images, resizer_fn, size, preserve_aspect_ratio, name, skip_resize_if_same
):
    """TF's `_resize_images_common`: the shape handling of the v1 and v2 resizes."""
    with ops.name_scope(name, "resize", [images, size]):
        images = ops.convert_to_tensor(images, name="images")
        if images.get_shape().ndims is None:
            raise ValueError("'images' contains no shape.")
        is_batch = True
        if images.get_shape().ndims == 3:
            is_batch = False
            images = array_ops.expand_dims(images, 0)
        elif images.get_shape().ndims != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = images.get_shape().as_list()
        try:
            size = ops.convert_to_tensor(size, dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.get_shape().is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        static_size = None
        if preserve_aspect_ratio:
            _, current_height, current_width, _ = _image_dimensions(images, rank=4)
            static_size = _static_aspect_size(size, current_height, current_width)
            f32 = dtypes.float32
            scale_factor_height = array_ops.cast(size[0], f32) / array_ops.cast(current_height, f32)
            scale_factor_width = array_ops.cast(size[1], f32) / array_ops.cast(current_width, f32)
            scale_factor = math_ops.minimum(scale_factor_height, scale_factor_width)
            scaled_height_const = array_ops.cast(
                math_ops.round(scale_factor * array_ops.cast(current_height, f32)), dtypes.int32
            )
            scaled_width_const = array_ops.cast(
                math_ops.round(scale_factor * array_ops.cast(current_width, f32)), dtypes.int32
            )
            size = ops.convert_to_tensor(
                [scaled_height_const, scaled_width_const], dtypes.int32, name="size"
            )
        size_const_as_shape = constant_value_as_shape(size)
        new_height_const = tensor_shape.dimension_at_index(size_const_as_shape, 0).value
        new_width_const = tensor_shape.dimension_at_index(size_const_as_shape, 1).value
        if static_size is not None:
            # TF evaluates the constant size subgraph (`TF_TryEvaluateConstant`).
            new_height_const, new_width_const = static_size
        if (
            skip_resize_if_same
            and all(x is not None for x in [new_width_const, width, new_height_const, height])
            and width == new_width_const
            and height == new_height_const
        ):
            if not is_batch:
                images = array_ops.squeeze(images, axis=[0])
            return images
        images = resizer_fn(images, size)
        images.set_shape([None, new_height_const, new_width_const, None])
        if not is_batch:
            images = array_ops.squeeze(images, axis=[0])
        return images


def _scale_and_translate(
    images, size, scale, translation, kernel_type="lanczos3", antialias=True, name=None
):
    """TF's `ScaleAndTranslate` op: `images` resampled to `size` (float32).

    Output pixel `x` samples the input at `(x + 0.5) / scale - translation / scale`
    with the sampling kernel `kernel_type` (`lanczos1/3/5`, `gaussian`, `box`,
    `triangle`, `keyscubic`, `mitchellcubic`), widened when shrinking if `antialias`.
    """
    with ops.name_scope(name, "ScaleAndTranslate", [images, size, scale, translation]) as scope:
        inputs = [
            ops.convert_to_tensor(images, name="images"),
            ops.convert_to_tensor(size, dtype=dtypes.int32, name="size"),
            ops.convert_to_tensor(scale, dtype=dtypes.float32, name="scale"),
            ops.convert_to_tensor(translation, dtype=dtypes.float32, name="translation"),
        ]
        attrs = {"kernel_type": kernel_type, "antialias": bool(antialias)}
        return make_op("ScaleAndTranslate", inputs, attrs, scope=scope).outputs[0]


def resize_images_v2(
    images,
    size,
    method=ResizeMethodV2.BILINEAR,
    preserve_aspect_ratio=False,
    antialias=False,
    name=None,
):
    """Resizes an image or a batch to `size` with `method` (TF 2's `tf.image.resize`).

    Unlike `resize_images` (TF-1.x's `tf.image.resize`), pixel centres are at
    half-integer coordinates, `method` is one of `ResizeMethodV2`'s strings, and a
    resize to the same size is still computed.

    Args:
        images: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        size: 1-D int32 `[new_height, new_width]`.
        method: A `ResizeMethodV2` string (default `"bilinear"`).
        preserve_aspect_ratio: Whether to scale to fit within `size`, keeping the ratio.
        antialias: Whether to anti-alias when downsampling (`bilinear` and `bicubic`
            then use TF's `ScaleAndTranslate`, as the other methods do).
        name: A name for the operation.

    Returns:
        The resized image(s): float32, except for nearest-neighbour resizing, which
        keeps the type.

    Raises:
        ValueError: `images` has another rank, or `size` is not two int32 values, or
            `method` is unknown.
    """

    def resize_fn(images_t, new_size):
        scale_and_translate_methods = [
            ResizeMethodV2.LANCZOS3,
            ResizeMethodV2.LANCZOS5,
            ResizeMethodV2.GAUSSIAN,
            ResizeMethodV2.MITCHELLCUBIC,
        ]

        def resize_with_scale_and_translate(method):
            scale = array_ops.cast(new_size, dtype=dtypes.float32) / array_ops.cast(
                array_ops.shape(images_t)[1:3], dtype=dtypes.float32
            )
            return _scale_and_translate(
                images_t, new_size, scale, array_ops.zeros([2]), method, bool(antialias)
            )

        if method == ResizeMethodV2.BILINEAR:
            if antialias:
                return resize_with_scale_and_translate("triangle")
            return resize_bilinear(images_t, new_size, half_pixel_centers=True)
        if method == ResizeMethodV2.NEAREST_NEIGHBOR:
            return resize_nearest_neighbor(images_t, new_size, half_pixel_centers=True)
        if method == ResizeMethodV2.BICUBIC:
            if antialias:
                return resize_with_scale_and_translate("keyscubic")
            return resize_bicubic(images_t, new_size, half_pixel_centers=True)
        if method == ResizeMethodV2.AREA:
            return resize_area(images_t, new_size)
        if method in scale_and_translate_methods:
            return resize_with_scale_and_translate(method)
        raise ValueError(f"Resize method is not implemented: {method}")

    return _resize_images_common(
        images,
        resize_fn,
        size,
        preserve_aspect_ratio=preserve_aspect_ratio,
        name=name,
        skip_resize_if_same=False,
    )


def resize_image_with_pad_v1(
    image, target_height, target_width, method=ResizeMethodV1.BILINEAR, align_corners=False
):
    """TF's `resize_image_with_pad_v1`: the v1 `tf.image.resize_image_with_pad`.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        target_height: Height of the result.
        target_width: Width of the result.
        method: A `ResizeMethod` (see `resize_images`).
        align_corners: Whether the corner pixels of input and output are aligned.

    Returns:
        The resized and zero-padded image(s).

    Raises:
        ValueError: `target_height` or `target_width` is not positive.
    """
    return resize_image_with_pad(image, target_height, target_width, method, align_corners)


def resize_image_with_pad_v2(
    image, target_height, target_width, method=ResizeMethodV2.BILINEAR, antialias=False
):
    """Resizes an image (or batch) to fit the target, keeping its aspect ratio, then pads.

    TF 2's `tf.image.resize_with_pad`: the resize is `resize_images_v2`'s.

    Args:
        image: 3-D `[height, width, channels]` or 4-D `[batch, height, width, channels]`.
        target_height: Height of the result.
        target_width: Width of the result.
        method: A `ResizeMethodV2` string (see `resize_images_v2`).
        antialias: Whether to anti-alias when resizing (see `resize_images_v2`).

    Returns:
        The resized and zero-padded image(s).

    Raises:
        ValueError: `target_height` or `target_width` is not positive.
    """
    with ops.name_scope(None, "resize_image_with_pad", [image]):
        image = ops.convert_to_tensor(image, name="image")
        image, is_batch = _batched(image)
        assert_ops = _check_at_least_3d_image(image, require_static=False)
        assert_ops += _assert(target_width > 0, ValueError, "target_width must be > 0.")
        assert_ops += _assert(target_height > 0, ValueError, "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(assert_ops, image)
        _, height, width, _ = _image_dimensions(image, rank=4)
        f32 = dtypes.float32
        f_height = array_ops.cast(height, f32)
        f_width = array_ops.cast(width, f32)
        f_target_height = array_ops.cast(target_height, f32)
        f_target_width = array_ops.cast(target_width, f32)
        ratio = _max(f_width / f_target_width, f_height / f_target_height)
        resized_height_float = f_height / ratio
        resized_width_float = f_width / ratio
        resized_height = array_ops.cast(math_ops.floor(resized_height_float), dtypes.int32)
        resized_width = array_ops.cast(math_ops.floor(resized_width_float), dtypes.int32)
        padding_height = (f_target_height - resized_height_float) / 2
        padding_width = (f_target_width - resized_width_float) / 2
        f_padding_height = math_ops.floor(padding_height)
        f_padding_width = math_ops.floor(padding_width)
        p_height = _max(0, array_ops.cast(f_padding_height, dtypes.int32))
        p_width = _max(0, array_ops.cast(f_padding_width, dtypes.int32))
        resized = resize_images_v2(
            image, [resized_height, resized_width], method, antialias=antialias
        )
        padded = pad_to_bounding_box(resized, p_height, p_width, target_height, target_width)
        if padded.get_shape().ndims is None:
            raise ValueError("padded contains no shape.")
        _image_dimensions(padded, rank=4)
        if not is_batch:
            padded = array_ops.squeeze(padded, axis=[0])
        return padded


# -- non-maximum suppression ----------------------------------------------------------
def _nms_inputs(boxes, scores, max_output_size, thresholds):
    boxes = ops.convert_to_tensor(boxes, name="boxes")
    scores = ops.convert_to_tensor(scores, name="scores")
    max_output_size = ops.convert_to_tensor(max_output_size, dtypes.int32, name="max_output_size")
    rest = [ops.convert_to_tensor(value, dtypes.float32, name=name) for name, value in thresholds]
    return [boxes, scores, max_output_size, *rest]


def non_max_suppression(
    boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"), name=None
):
    """Greedily selects boxes by descending score, dropping those overlapping a kept one.

    Boxes are `[y1, x1, y2, x2]` (either corner first). A box is dropped when its IoU
    with an already selected box is above `iou_threshold`; boxes scoring at most
    `score_threshold` are never selected.

    Args:
        boxes: A float `[num_boxes, 4]` tensor.
        scores: A float `[num_boxes]` tensor.
        max_output_size: An int32 scalar: the most boxes to select.
        iou_threshold: The overlap above which a box is suppressed, in [0, 1].
        score_threshold: Boxes must score above this.
        name: A name for the operation.

    Returns:
        The int32 indices of the selected boxes, `[M]` with `M <= max_output_size`.
    """
    with ops.name_scope(name, "non_max_suppression"):
        inputs = _nms_inputs(
            boxes,
            scores,
            max_output_size,
            [("iou_threshold", iou_threshold), ("score_threshold", score_threshold)],
        )
        return make_op("NonMaxSuppressionV3", inputs, name="NonMaxSuppressionV3").outputs[0]


def non_max_suppression_with_scores(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    soft_nms_sigma=0.0,
    name=None,
):
    """`non_max_suppression` that also returns the selected scores.

    With `soft_nms_sigma > 0` it is Soft-NMS: an overlapping box's score decays by
    `exp(-iou^2 / (2 sigma))` instead of the box being dropped.

    Returns:
        `(selected_indices, selected_scores)`.
    """
    with ops.name_scope(name, "non_max_suppression_with_scores"):
        inputs = _nms_inputs(
            boxes,
            scores,
            max_output_size,
            [
                ("iou_threshold", iou_threshold),
                ("score_threshold", score_threshold),
                ("soft_nms_sigma", soft_nms_sigma),
            ],
        )
        op = make_op(
            "NonMaxSuppressionV5",
            inputs,
            {"pad_to_max_output_size": False},
            name="NonMaxSuppressionV5",
        )
        return op.outputs[0], op.outputs[1]


def non_max_suppression_padded(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    pad_to_max_output_size=False,
    name=None,
):
    """`non_max_suppression`, optionally padded with zeros to `max_output_size` indices.

    Returns:
        `(selected_indices, valid_outputs)`: the indices (padded when asked) and how
        many of them are real.
    """
    with ops.name_scope(name, "non_max_suppression_padded"):
        inputs = _nms_inputs(
            boxes,
            scores,
            max_output_size,
            [("iou_threshold", iou_threshold), ("score_threshold", score_threshold)],
        )
        op = make_op(
            "NonMaxSuppressionV4",
            inputs,
            {"pad_to_max_output_size": bool(pad_to_max_output_size)},
            name="NonMaxSuppressionV4",
        )
        return op.outputs[0], op.outputs[1]


def non_max_suppression_with_overlaps(
    overlaps,
    scores,
    max_output_size,
    overlap_threshold=0.5,
    score_threshold=float("-inf"),
    name=None,
):
    """`non_max_suppression` over a given `[num_boxes, num_boxes]` overlap matrix."""
    with ops.name_scope(name, "non_max_suppression_overlaps"):
        overlaps = ops.convert_to_tensor(overlaps, name="overlaps")
        scores = ops.convert_to_tensor(scores, name="scores")
        inputs = [
            overlaps,
            scores,
            ops.convert_to_tensor(max_output_size, dtypes.int32, name="max_output_size"),
            ops.convert_to_tensor(overlap_threshold, dtypes.float32, name="overlap_threshold"),
            ops.convert_to_tensor(score_threshold, dtypes.float32, name="score_threshold"),
        ]
        return make_op(
            "NonMaxSuppressionWithOverlaps", inputs, name="NonMaxSuppressionWithOverlaps"
        ).outputs[0]


def _gen_nms(op_type, boxes, scores, max_output_size, *thresholds, name=None, **attrs):
    """TF's `gen_image_ops.non_max_suppression_v*`: the op with its inputs as given."""
    with ops.name_scope(name, op_type) as scope:
        boxes = ops.convert_to_tensor(boxes, name="boxes")
        scores = ops.convert_to_tensor(scores, name="scores")
        inputs = [boxes, scores, ops.convert_to_tensor(max_output_size, dtypes.int32)]
        inputs += [ops.convert_to_tensor(t) for t in thresholds]
        op = make_op(op_type, inputs, attrs, scope=scope)
        return op.outputs[0] if len(op.outputs) == 1 else tuple(op.outputs)


# -- random crops ---------------------------------------------------------------------
def sample_distorted_bounding_box(
    image_size,
    bounding_boxes,
    seed=None,
    seed2=None,
    min_object_covered=0.1,
    aspect_ratio_range=None,
    area_range=None,
    max_attempts=None,
    use_image_if_no_bounding_boxes=None,
    name=None,
):
    """A random crop of an image that covers enough of one of its bounding boxes.

    TF's sampler draw for draw (`SampleDistortedBoundingBoxV2`): up to `max_attempts`
    crops with an aspect ratio in `aspect_ratio_range` and an area fraction in
    `area_range`; the first covering at least `min_object_covered` of a box wins, else
    the whole image.

    Args:
        image_size: `[height, width, channels]`, an integer vector.
        bounding_boxes: A float `[batch, N, 4]` tensor of `[ymin, xmin, ymax, xmax]` in
            [0, 1].
        seed: The op's seed (with `seed2`; both 0 or None: nondeterministic).
        seed2: The op's second seed.
        min_object_covered: A float scalar: the fraction of a box the crop must cover.
        aspect_ratio_range: `[min, max]` width/height (default `[0.75, 1.33]`).
        area_range: `[min, max]` fraction of the image (default `[0.05, 1.0]`).
        max_attempts: Tries before falling back to the whole image (default 100).
        use_image_if_no_bounding_boxes: Use the whole image as the box when none is
            given (else an error).
        name: A name for the operation.

    Returns:
        `(begin, size, bboxes)`: `tf.slice` arguments for the crop, and the crop as a
        `[1, 1, 4]` box.
    """
    with ops.name_scope(name, "sample_distorted_bounding_box"):
        image_size = ops.convert_to_tensor(image_size, name="image_size")
        boxes = ops.convert_to_tensor(bounding_boxes, dtypes.float32, name="bounding_boxes")
        covered = ops.convert_to_tensor(
            min_object_covered, dtypes.float32, name="min_object_covered"
        )
        attrs: dict = {"seed": int(seed or 0), "seed2": int(seed2 or 0)}
        for key, value in (
            ("aspect_ratio_range", aspect_ratio_range),
            ("area_range", area_range),
        ):
            if value is not None:
                attrs[key] = [float(v) for v in value]
        if max_attempts is not None:
            attrs["max_attempts"] = int(max_attempts)
        if use_image_if_no_bounding_boxes is not None:
            attrs["use_image_if_no_bounding_boxes"] = bool(use_image_if_no_bounding_boxes)
        op = make_op(
            "SampleDistortedBoundingBoxV2",
            [image_size, boxes, covered],
            attrs,
            name="SampleDistortedBoundingBoxV2",
        )
        return op.outputs[0], op.outputs[1], op.outputs[2]


def crop_and_resize(
    image,
    boxes,
    box_ind=None,
    crop_size=None,
    method="bilinear",
    extrapolation_value=0,
    name=None,
    box_indices=None,
):
    """Crops boxes out of a batch of images and resizes each to `crop_size`.

    Args:
        image: A `[batch, height, width, depth]` tensor (any real type).
        boxes: A float `[num_boxes, 4]` tensor of normalized `[y1, x1, y2, x2]`
            (`y1 > y2` flips the crop; coordinates outside [0, 1] extrapolate).
        box_ind: An int32 `[num_boxes]` tensor: the image of each box.
        crop_size: Two int32s, `[crop_height, crop_width]`.
        method: `"bilinear"` or `"nearest"`.
        extrapolation_value: The value of points outside the image.
        name: A name for the operation.
        box_indices: Alias of `box_ind` (TF 2's name).

    Returns:
        A float32 `[num_boxes, crop_height, crop_width, depth]` tensor.
    """
    box_ind = box_indices if box_ind is None else box_ind
    with ops.name_scope(name, "CropAndResize", [image, boxes, box_ind, crop_size]) as scope:
        inputs = [
            ops.convert_to_tensor(image, name="image"),
            ops.convert_to_tensor(boxes, dtypes.float32, name="boxes"),
            ops.convert_to_tensor(box_ind, dtypes.int32, name="box_ind"),
            ops.convert_to_tensor(crop_size, dtypes.int32, name="crop_size"),
        ]
        attrs = {"method": method.encode(), "extrapolation_value": float(extrapolation_value)}
        return make_op("CropAndResize", inputs, attrs, scope=scope).outputs[0]
