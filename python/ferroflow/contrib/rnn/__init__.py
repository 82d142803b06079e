"""`tf.contrib.rnn`: the core RNN cells and static RNN functions under TF 1.x's contrib names."""

from ...ops.fused_rnn_cell import FusedRNNCell, FusedRNNCellAdaptor, TimeReversedFusedRNN
from ...ops.gru_ops import GRUBlockCell, GRUBlockCellV2
from ...ops.rnn import (
    stack_bidirectional_dynamic_rnn,
    stack_bidirectional_rnn,
    static_bidirectional_rnn,
    static_rnn,
    static_state_saving_rnn,
)
from ...ops.rnn_cell_impl import (
    BasicLSTMCell,
    BasicRNNCell,
    GRUCell,
    LayerRNNCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    RNNCell,
)
from ...ops.rnn_cell_wrapper_impl import DeviceWrapper, DropoutWrapper, ResidualWrapper
from ...ops.rnn_ops import LSTMBlockCell, LSTMBlockFusedCell, LSTMBlockWrapper

__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "DeviceWrapper",
    "DropoutWrapper",
    "FusedRNNCell",
    "FusedRNNCellAdaptor",
    "GRUBlockCell",
    "GRUBlockCellV2",
    "GRUCell",
    "LSTMBlockCell",
    "LSTMBlockFusedCell",
    "LSTMBlockWrapper",
    "LSTMCell",
    "LSTMStateTuple",
    "LayerRNNCell",
    "MultiRNNCell",
    "RNNCell",
    "ResidualWrapper",
    "TimeReversedFusedRNN",
    "stack_bidirectional_dynamic_rnn",
    "stack_bidirectional_rnn",
    "static_bidirectional_rnn",
    "static_rnn",
    "static_state_saving_rnn",
]
