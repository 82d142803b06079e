"""Exception types for op and session failures (`tf.errors`), one per canonical error code.

The Rust core reports failures as a status with one of TensorFlow's canonical
codes; the bindings look the code up in `_CODE_TO_EXCEPTION`, raise
`cls(None, None, message)`, and may set `_node_name` on the instance.
"""

from __future__ import annotations

import inspect
import traceback
import warnings

__all__ = [
    "ABORTED",
    "ALREADY_EXISTS",
    "CANCELLED",
    "DATA_LOSS",
    "DEADLINE_EXCEEDED",
    "FAILED_PRECONDITION",
    "INTERNAL",
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "OK",
    "OUT_OF_RANGE",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "UNAUTHENTICATED",
    "UNAVAILABLE",
    "UNIMPLEMENTED",
    "UNKNOWN",
    "AbortedError",
    "AlreadyExistsError",
    "CancelledError",
    "DataLossError",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "OpError",
    "OutOfRangeError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "UnknownError",
    "error_code_from_exception_type",
    "exception_type_from_error_code",
]

# Canonical error codes (tensorflow/core/protobuf/error_codes.proto).
OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


_ELIDED = "[elided {:d} identical lines from previous traceback]\n"


class OpError(Exception):
    """The base class for ferroflow's op and session errors.

    Usually a more specific subclass from this module is raised.
    """

    def __init__(self, node_def, op, message, error_code, *args):
        """Create a new `OpError` indicating that a particular op failed.

        Args:
            node_def: The `NodeDef` of the op that failed, if known; otherwise None.
            op: The `Operation` that failed, if known; otherwise None.
            message: The message string describing the failure.
            error_code: The canonical error code (an int).
            *args: If not empty, its first item is a dict describing details of
                the error (the experimental payloads).
        """
        super().__init__()
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code
        self._experimental_payloads = args[0] if args else {}

    def __reduce__(self):
        params = inspect.getfullargspec(self.__class__.__init__).args[1:]
        return self.__class__, tuple(getattr(self, name) for name in params)

    @property
    def message(self) -> str:
        """The error message that describes the error."""
        return self._message

    @property
    def op(self):
        """The operation that failed, if known; otherwise None.

        If the failed op was synthesized at runtime there is no corresponding
        `Operation`; use `node_def` to find out about the op instead.
        """
        return self._op

    @property
    def error_code(self) -> int:
        """The integer canonical error code that describes the error."""
        return self._error_code

    @property
    def node_def(self):
        """The `NodeDef` of the op that failed, or None."""
        return self._node_def

    @property
    def experimental_payloads(self) -> dict:
        """A dictionary describing the details of the error."""
        return self._experimental_payloads

    def __str__(self) -> str:
        if self._op is None:
            return self.message
        output = [f"{self.message}\n\nOriginal stack trace for {self._op.name!r}:\n"]
        curr_traceback_list = traceback.format_list(getattr(self._op, "traceback", None) or [])
        output.extend(curr_traceback_list)
        original_op = getattr(self._op, "_original_op", None)
        while original_op is not None:
            output.append(
                f"\n...which was originally created as op {original_op.name!r}, defined at:\n"
            )
            prev_traceback_list = curr_traceback_list
            curr_traceback_list = traceback.format_list(
                getattr(original_op, "traceback", None) or []
            )
            # Print the frames shared with the previous traceback once, eliding repeats.
            is_eliding = False
            elide_count = 0
            last_elided_line = ""  # set before it is written: elide_count > 0
            for line, line_in_prev in zip(curr_traceback_list, prev_traceback_list):
                if line == line_in_prev:
                    if is_eliding:
                        elide_count += 1
                        last_elided_line = line
                    else:
                        output.append(line)
                        is_eliding = True
                        elide_count = 0
                else:
                    if is_eliding and elide_count > 0:
                        output.append(_ELIDED.format(elide_count - 1))
                        output.append(last_elided_line)
                    is_eliding = False
                    output.append(line)
            original_op = getattr(original_op, "_original_op", None)
        return "".join(output)


class CancelledError(OpError):
    """Raised when an operation is cancelled.

    For example, a long-running `QueueBase.enqueue` is cancelled by running
    `QueueBase.close(cancel_pending_enqueues=True)`, or by closing the session.
    """

    def __init__(self, node_def, op, message, *args):
        """Create a `CancelledError`."""
        super().__init__(node_def, op, message, CANCELLED, *args)


class UnknownError(OpError):
    """Unknown error.

    Raised, for example, for errors from another address space whose error
    space is unknown here, or for errors from APIs that do not give enough
    information to pick a more specific class.
    """

    def __init__(self, node_def, op, message, *args):
        """Create an `UnknownError`."""
        super().__init__(node_def, op, message, UNKNOWN, *args)


class InvalidArgumentError(OpError):
    """Raised when an operation receives an invalid argument.

    For example, when an op receives mismatched arguments, or a fed value
    does not match its placeholder's shape.
    """

    def __init__(self, node_def, op, message, *args):
        """Create an `InvalidArgumentError`."""
        super().__init__(node_def, op, message, INVALID_ARGUMENT, *args)


class DeadlineExceededError(OpError):
    """Raised when a deadline expires before an operation could complete.

    For example, when a `Session.run` exceeds `RunOptions.timeout_in_ms`.
    """

    def __init__(self, node_def, op, message, *args):
        """Create a `DeadlineExceededError`."""
        super().__init__(node_def, op, message, DEADLINE_EXCEEDED, *args)


class NotFoundError(OpError):
    """Raised when a requested entity (e.g. a file or directory) was not found.

    For example, restoring a checkpoint that does not exist.
    """

    def __init__(self, node_def, op, message, *args):
        """Create a `NotFoundError`."""
        super().__init__(node_def, op, message, NOT_FOUND, *args)


class AlreadyExistsError(OpError):
    """Raised when an entity that we attempted to create already exists.

    For example, writing a file that must not be overwritten.
    """

    def __init__(self, node_def, op, message, *args):
        """Create an `AlreadyExistsError`."""
        super().__init__(node_def, op, message, ALREADY_EXISTS, *args)


class PermissionDeniedError(OpError):
    """Raised when the caller does not have permission to run an operation.

    For example, reading a file the user has no read permission for.
    """

    def __init__(self, node_def, op, message, *args):
        """Create a `PermissionDeniedError`."""
        super().__init__(node_def, op, message, PERMISSION_DENIED, *args)


class UnauthenticatedError(OpError):
    """Raised when the request does not have valid authentication credentials."""

    def __init__(self, node_def, op, message, *args):
        """Create an `UnauthenticatedError`."""
        super().__init__(node_def, op, message, UNAUTHENTICATED, *args)


class ResourceExhaustedError(OpError):
    """Raised when some resource has been exhausted while running an operation.

    For example, a per-user quota is exhausted, the file system is out of
    space, or an allocation runs out of (device) memory.
    """

    def __init__(self, node_def, op, message, *args):
        """Create a `ResourceExhaustedError`."""
        super().__init__(node_def, op, message, RESOURCE_EXHAUSTED, *args)


class FailedPreconditionError(OpError):
    """Raised when the system is not in a state to execute an operation.

    For example, running an op that reads a `Variable` before it has been
    initialized.
    """

    def __init__(self, node_def, op, message, *args):
        """Create a `FailedPreconditionError`."""
        super().__init__(node_def, op, message, FAILED_PRECONDITION, *args)


class AbortedError(OpError):
    """Raised when an operation was aborted, typically due to a concurrent action.

    For example, an enqueue may be aborted because the queue was closed.
    """

    def __init__(self, node_def, op, message, *args):
        """Create an `AbortedError`."""
        super().__init__(node_def, op, message, ABORTED, *args)


class OutOfRangeError(OpError):
    """Raised when an operation iterates past the valid input range.

    For example, dequeuing from a closed, empty queue, or reading past the end
    of the input. Unlike `InvalidArgumentError`, the problem may go away if
    the system state changes.
    """

    def __init__(self, node_def, op, message, *args):
        """Create an `OutOfRangeError`."""
        super().__init__(node_def, op, message, OUT_OF_RANGE, *args)


class UnimplementedError(OpError):
    """Raised when an operation has not been implemented.

    Some ops raise this for otherwise-valid arguments they do not support yet,
    e.g. an op with no kernel for the requested dtype or device.
    """

    def __init__(self, node_def, op, message, *args):
        """Create an `UnimplementedError`."""
        super().__init__(node_def, op, message, UNIMPLEMENTED, *args)


class InternalError(OpError):
    """Raised when the system experiences an internal error.

    This means some invariant expected by the runtime has been broken.
    Catching it is not recommended.
    """

    def __init__(self, node_def, op, message, *args):
        """Create an `InternalError`."""
        super().__init__(node_def, op, message, INTERNAL, *args)


class UnavailableError(OpError):
    """Raised when the runtime is currently unavailable.

    For example, when a remote worker cannot be reached.
    """

    def __init__(self, node_def, op, message, *args):
        """Create an `UnavailableError`."""
        super().__init__(node_def, op, message, UNAVAILABLE, *args)


class DataLossError(OpError):
    """Raised when unrecoverable data loss or corruption is encountered.

    For example, reading a truncated or corrupted file, or a file in the wrong
    format.
    """

    def __init__(self, node_def, op, message, *args):
        """Create a `DataLossError`."""
        super().__init__(node_def, op, message, DATA_LOSS, *args)


_CODE_TO_EXCEPTION: dict[int, type[OpError]] = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    UNAUTHENTICATED: UnauthenticatedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
}
# TensorFlow's name for the same table.
_CODE_TO_EXCEPTION_CLASS = _CODE_TO_EXCEPTION

_EXCEPTION_CLASS_TO_CODE = {cls: code for code, cls in _CODE_TO_EXCEPTION.items()}


def exception_type_from_error_code(error_code) -> type[OpError]:
    """Return the `OpError` subclass for a canonical error code.

    Args:
        error_code: An int canonical error code (not `OK`).

    Returns:
        The exception class.

    Raises:
        KeyError: If the code has no exception class.
    """
    return _CODE_TO_EXCEPTION[error_code]


def error_code_from_exception_type(cls):
    """Return the canonical error code of an `OpError` subclass.

    As in TensorFlow, an unknown class gives a warning and an `UnknownError`
    instance instead of a code.

    Args:
        cls: An `OpError` subclass.

    Returns:
        The int error code, or an `UnknownError` for an unknown class.
    """
    try:
        return _EXCEPTION_CLASS_TO_CODE[cls]
    except KeyError:
        warnings.warn("Unknown class exception", stacklevel=2)
        return UnknownError(None, None, "Unknown class exception", None)


def _make_specific_exception(node_def, op, message, error_code) -> OpError:
    """Return an instance of the `OpError` subclass for `error_code` (`UnknownError` if none)."""
    try:
        exc_type = exception_type_from_error_code(error_code)
        # A subclass from the table: its constructor supplies its own error code.
        return exc_type(node_def, op, message)  # type: ignore[call-arg]
    except KeyError:
        warnings.warn(f"Unknown error code: {error_code:d}", stacklevel=2)
        return UnknownError(node_def, op, message, error_code)


def _codes_caught_by(types) -> list[int]:
    """The canonical codes whose exception class is one of `types` (or a subclass).

    Native threads report statuses, not Python exceptions; a status counts as caught
    by `except types` when the exception it would raise passes `isinstance(ex, types)`.
    """
    codes = []
    for code, cls in _CODE_TO_EXCEPTION.items():
        try:
            if issubclass(cls, types):
                codes.append(code)
        except TypeError:
            # Not a tuple of classes: TF only fails when an exception is filtered.
            return []
    return sorted(codes)
