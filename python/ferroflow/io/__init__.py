"""`tf.io`: file access (`tf.io.gfile`)."""

from ..platform import io_gfile as gfile

__all__ = ["gfile"]
