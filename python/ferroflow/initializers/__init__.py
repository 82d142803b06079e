"""`tf.initializers`: the TF-1.x initializers under their short names.

`convolutional_delta_orthogonal` and `convolutional_orthogonal_1d/2d/3d` are TF's
`init_ops` classes, which TF itself does not export under `tf.initializers`.
"""

from ..ops.init_ops import Constant as constant
from ..ops.init_ops import ConvolutionDeltaOrthogonal as convolutional_delta_orthogonal
from ..ops.init_ops import ConvolutionOrthogonal1D as convolutional_orthogonal_1d
from ..ops.init_ops import ConvolutionOrthogonal2D as convolutional_orthogonal_2d
from ..ops.init_ops import ConvolutionOrthogonal3D as convolutional_orthogonal_3d
from ..ops.init_ops import GlorotNormal as glorot_normal
from ..ops.init_ops import GlorotUniform as glorot_uniform
from ..ops.init_ops import Identity as identity
from ..ops.init_ops import Ones as ones
from ..ops.init_ops import Orthogonal as orthogonal
from ..ops.init_ops import RandomNormal as random_normal
from ..ops.init_ops import RandomUniform as random_uniform
from ..ops.init_ops import TruncatedNormal as truncated_normal
from ..ops.init_ops import UniformUnitScaling as uniform_unit_scaling
from ..ops.init_ops import VarianceScaling as variance_scaling
from ..ops.init_ops import Zeros as zeros
from ..ops.init_ops import he_normal, he_uniform, lecun_normal, lecun_uniform
from ..ops.lookup_ops import tables_initializer
from ..ops.variables import global_variables_initializer as global_variables
from ..ops.variables import local_variables_initializer as local_variables
from ..ops.variables import variables_initializer as variables

__all__ = [
    "constant",
    "convolutional_delta_orthogonal",
    "convolutional_orthogonal_1d",
    "convolutional_orthogonal_2d",
    "convolutional_orthogonal_3d",
    "global_variables",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "identity",
    "lecun_normal",
    "lecun_uniform",
    "local_variables",
    "ones",
    "orthogonal",
    "random_normal",
    "random_uniform",
    "tables_initializer",
    "truncated_normal",
    "uniform_unit_scaling",
    "variables",
    "variance_scaling",
    "zeros",
]
