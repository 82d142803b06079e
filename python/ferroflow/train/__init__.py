"""`tf.train`: optimizers, schedules, the global step, threads and input pipelines.

More of TF-1.x's module lands issue by issue.
"""

from ..protos import SaverDef
from ..summary.writer import FileWriter as SummaryWriter
from ..summary.writer import summary_iterator
from .adadelta import AdadeltaOptimizer
from .adagrad import AdagradOptimizer
from .adagrad_da import AdagradDAOptimizer
from .adam import AdamOptimizer
from .async_checkpoint import AsyncCheckpointSaverHook
from .basic_session_run_hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    ProfilerHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from .checkpoint_management import (
    checkpoint_exists,
    generate_checkpoint_state_proto,
    get_checkpoint_state,
    latest_checkpoint,
    update_checkpoint_state,
)
from .checkpoint_utils import (
    NewCheckpointReader,
    checkpoints_iterator,
    init_from_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)
from .coordinator import Coordinator, LooperThread
from .ftrl import FtrlOptimizer
from .gradient_descent import GradientDescentOptimizer
from .input import (
    batch,
    batch_join,
    input_producer,
    limit_epochs,
    range_input_producer,
    shuffle_batch,
    shuffle_batch_join,
    slice_input_producer,
    string_input_producer,
)
from .learning_rate_decay import (
    cosine_decay,
    exponential_decay,
    inverse_time_decay,
    natural_exp_decay,
    piecewise_constant,
    polynomial_decay,
)
from .momentum import MomentumOptimizer
from .monitored_session import (
    ChiefSessionCreator,
    MonitoredSession,
    MonitoredTrainingSession,
    Scaffold,
    SessionCreator,
    SingularMonitoredSession,
    WorkerSessionCreator,
)
from .moving_averages import ExponentialMovingAverage
from .optimizer import Optimizer
from .proximal_adagrad import ProximalAdagradOptimizer
from .proximal_gradient_descent import ProximalGradientDescentOptimizer
from .queue_runner import QueueRunner, add_queue_runner, start_queue_runners
from .rmsprop import RMSPropOptimizer
from .saver import (
    Saver,
    export_meta_graph,
    get_checkpoint_mtimes,
    import_meta_graph,
    meta_graph_filename,
    remove_checkpoint,
    write_graph,
)
from .session_manager import SessionManager
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues
from .supervisor import Supervisor, basic_train_loop
from .training_util import (
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)

__all__ = [
    "checkpoint_exists",
    "generate_checkpoint_state_proto",
    "get_checkpoint_state",
    "latest_checkpoint",
    "update_checkpoint_state",
    "AdadeltaOptimizer",
    "AdagradDAOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "Coordinator",
    "ExponentialMovingAverage",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "LooperThread",
    "MomentumOptimizer",
    "Optimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "QueueRunner",
    "RMSPropOptimizer",
    "SummaryWriter",
    "cosine_decay",
    "exponential_decay",
    "inverse_time_decay",
    "natural_exp_decay",
    "piecewise_constant",
    "polynomial_decay",
    "summary_iterator",
    "add_queue_runner",
    "start_queue_runners",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "batch",
    "batch_join",
    "input_producer",
    "limit_epochs",
    "range_input_producer",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "string_input_producer",
    "NewCheckpointReader",
    "Saver",
    "SaverDef",
    "SessionManager",
    "ChiefSessionCreator",
    "AsyncCheckpointSaverHook",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LoggingTensorHook",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "ProfilerHook",
    "Scaffold",
    "SecondOrStepTimer",
    "SessionCreator",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "SingularMonitoredSession",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "WorkerSessionCreator",
    "Supervisor",
    "basic_train_loop",
    "checkpoints_iterator",
    "init_from_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "export_meta_graph",
    "import_meta_graph",
    "write_graph",
    "get_checkpoint_mtimes",
    "meta_graph_filename",
    "remove_checkpoint",
]
