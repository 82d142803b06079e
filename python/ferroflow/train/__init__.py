"""`tf.train`: optimizers, schedules, the global step, threads and input pipelines.

More of TF-1.x's module lands issue by issue.
"""

from ..protos import (
    BytesList,
    ClusterDef,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    JobDef,
    SaverDef,
    SequenceExample,
    ServerDef,
)
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
from .device_setter import replica_device_setter
from .ftrl import FtrlOptimizer
from .gradient_descent import GradientDescentOptimizer
from .input import (
    batch,
    batch_join,
    input_producer,
    limit_epochs,
    match_filenames_once,
    maybe_batch,
    maybe_batch_join,
    maybe_shuffle_batch,
    maybe_shuffle_batch_join,
    range_input_producer,
    shuffle_batch,
    shuffle_batch_join,
    slice_input_producer,
    string_input_producer,
)
from .learning_rate_decay import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    noisy_linear_cosine_decay,
    piecewise_constant,
    piecewise_constant_decay,
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
from .server_lib import ClusterSpec, Server
from .session_manager import SessionManager
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues
from .supervisor import Supervisor, basic_train_loop
from .sync_replicas_optimizer import SyncReplicasOptimizer
from .training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)
from .warm_starting_util import VocabInfo, warm_start

__all__ = [
    "AdadeltaOptimizer",
    "AdagradDAOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "add_queue_runner",
    "assert_global_step",
    "AsyncCheckpointSaverHook",
    "basic_train_loop",
    "batch",
    "batch_join",
    "BytesList",
    "checkpoint_exists",
    "checkpoints_iterator",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "ChiefSessionCreator",
    "ClusterDef",
    "ClusterSpec",
    "Coordinator",
    "cosine_decay",
    "cosine_decay_restarts",
    "create_global_step",
    "Example",
    "exponential_decay",
    "ExponentialMovingAverage",
    "export_meta_graph",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FeedFnHook",
    "FinalOpsHook",
    "FloatList",
    "FtrlOptimizer",
    "generate_checkpoint_state_proto",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "GlobalStepWaiterHook",
    "GradientDescentOptimizer",
    "import_meta_graph",
    "init_from_checkpoint",
    "input_producer",
    "Int64List",
    "inverse_time_decay",
    "JobDef",
    "latest_checkpoint",
    "limit_epochs",
    "linear_cosine_decay",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "LoggingTensorHook",
    "LooperThread",
    "match_filenames_once",
    "maybe_batch",
    "maybe_batch_join",
    "maybe_shuffle_batch",
    "maybe_shuffle_batch_join",
    "meta_graph_filename",
    "MomentumOptimizer",
    "MonitoredSession",
    "MonitoredTrainingSession",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "natural_exp_decay",
    "NewCheckpointReader",
    "noisy_linear_cosine_decay",
    "Optimizer",
    "piecewise_constant",
    "piecewise_constant_decay",
    "polynomial_decay",
    "ProfilerHook",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "QueueRunner",
    "range_input_producer",
    "remove_checkpoint",
    "replica_device_setter",
    "RMSPropOptimizer",
    "Saver",
    "SaverDef",
    "Scaffold",
    "SecondOrStepTimer",
    "SequenceExample",
    "Server",
    "ServerDef",
    "SessionCreator",
    "SessionManager",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "shuffle_batch",
    "shuffle_batch_join",
    "SingularMonitoredSession",
    "slice_input_producer",
    "start_queue_runners",
    "StepCounterHook",
    "StopAtStepHook",
    "string_input_producer",
    "summary_iterator",
    "SummarySaverHook",
    "SummaryWriter",
    "Supervisor",
    "SyncReplicasOptimizer",
    "update_checkpoint_state",
    "VocabInfo",
    "warm_start",
    "WorkerSessionCreator",
    "write_graph",
]
