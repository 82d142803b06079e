"""Tests for ferroflow.errors, with tf.errors as the oracle where installed."""

import inspect
import pickle

import pytest

from ferroflow import errors

CODES = {
    "OK": 0,
    "CANCELLED": 1,
    "UNKNOWN": 2,
    "INVALID_ARGUMENT": 3,
    "DEADLINE_EXCEEDED": 4,
    "NOT_FOUND": 5,
    "ALREADY_EXISTS": 6,
    "PERMISSION_DENIED": 7,
    "RESOURCE_EXHAUSTED": 8,
    "FAILED_PRECONDITION": 9,
    "ABORTED": 10,
    "OUT_OF_RANGE": 11,
    "UNIMPLEMENTED": 12,
    "INTERNAL": 13,
    "UNAVAILABLE": 14,
    "DATA_LOSS": 15,
    "UNAUTHENTICATED": 16,
}
CLASSES = {
    "CancelledError": 1,
    "UnknownError": 2,
    "InvalidArgumentError": 3,
    "DeadlineExceededError": 4,
    "NotFoundError": 5,
    "AlreadyExistsError": 6,
    "PermissionDeniedError": 7,
    "ResourceExhaustedError": 8,
    "FailedPreconditionError": 9,
    "AbortedError": 10,
    "OutOfRangeError": 11,
    "UnimplementedError": 12,
    "InternalError": 13,
    "UnavailableError": 14,
    "DataLossError": 15,
    "UnauthenticatedError": 16,
}


class FakeOp:
    """Has what OpError.__str__ reads from an op: name, traceback, _original_op."""

    def __init__(self, name, frames, original_op=None):
        self.name = name
        self.traceback = frames
        self._original_op = original_op


def frames(*names):
    return [("model.py", 10 + i, name, f"x = {name}()") for i, name in enumerate(names)]


def fake_ops():
    """A few ops, including an original-op chain whose tracebacks share frames."""
    root = FakeOp("root", frames("main", "build", "layer", "dense"))
    middle = FakeOp("middle", frames("main", "build", "layer", "conv", "relu"), root)
    return [
        FakeOp("plain", frames("main")),
        FakeOp("empty", None),
        FakeOp("chained", frames("main", "build", "train"), middle),
    ]


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow.compat.v1")


# -- without the oracle -------------------------------------------------------------------------


def test_codes():
    for name, code in CODES.items():
        assert getattr(errors, name) == code


@pytest.mark.parametrize(("name", "code"), CLASSES.items())
def test_classes(name, code):
    cls = getattr(errors, name)
    assert issubclass(cls, errors.OpError)
    assert issubclass(cls, Exception)
    assert cls.__doc__
    assert errors._CODE_TO_EXCEPTION[code] is cls
    assert errors.exception_type_from_error_code(code) is cls
    assert errors.error_code_from_exception_type(cls) == code
    e = cls(None, None, "boom")
    assert (e.error_code, e.message, e.op, e.node_def) == (code, "boom", None, None)
    assert e.experimental_payloads == {}
    assert str(e) == "boom"
    copy = pickle.loads(pickle.dumps(e))
    assert type(copy) is cls
    assert (copy.message, copy.error_code) == ("boom", code)
    assert cls(None, None, "m", {"k": b"v"}).experimental_payloads == {"k": b"v"}


def test_rust_binding_protocol():
    # The bindings build cls(None, None, message) and then tag the node name.
    e = errors._CODE_TO_EXCEPTION[errors.OUT_OF_RANGE](None, None, "queue closed")
    e._node_name = "fifo_queue_Dequeue"
    with pytest.raises(errors.OutOfRangeError, match="queue closed"):
        raise e
    assert set(errors._CODE_TO_EXCEPTION) == set(range(1, 17))


def test_op_error_base():
    e = errors.OpError("node", None, "msg", errors.INTERNAL)
    assert (e.node_def, e.error_code, str(e)) == ("node", 13, "msg")
    copy = pickle.loads(pickle.dumps(e))
    assert (copy.node_def, copy.message, copy.error_code) == ("node", "msg", 13)


def test_str_with_op():
    op = FakeOp("my_op", frames("main", "build"))
    text = str(errors.InvalidArgumentError(None, op, "bad shape"))
    assert text.startswith("bad shape\n\nOriginal stack trace for 'my_op':\n")
    assert "model.py" in text
    assert errors.InvalidArgumentError(None, op, "bad shape").op is op


def test_unknown_lookups():
    with pytest.raises(KeyError):
        errors.exception_type_from_error_code(99)
    with pytest.warns(UserWarning, match="Unknown class exception"):
        result = errors.error_code_from_exception_type(ValueError)
    assert isinstance(result, errors.UnknownError)
    e = errors._make_specific_exception(None, None, "m", errors.ABORTED)
    assert type(e) is errors.AbortedError
    with pytest.warns(UserWarning, match="Unknown error code: 99"):
        e = errors._make_specific_exception(None, None, "m", 99)
    assert type(e) is errors.UnknownError


# -- against TensorFlow --------------------------------------------------------------------------


@pytest.mark.tf_oracle
def test_public_names_match_tf(tf):
    theirs = {n for n in dir(tf.errors) if not n.startswith("_")}
    theirs.discard("raise_exception_on_not_ok_status")  # needs TensorFlow's C API
    assert theirs <= set(dir(errors))
    for name in CODES:
        assert getattr(errors, name) == getattr(tf.errors, name)


@pytest.mark.tf_oracle
@pytest.mark.parametrize("name", ["OpError", *CLASSES])
def test_class_matches_tf(tf, name):
    ours, theirs = getattr(errors, name), getattr(tf.errors, name)
    assert inspect.signature(ours.__init__) == inspect.signature(theirs.__init__)
    assert [c.__name__ for c in ours.__mro__[:-2]] == [c.__name__ for c in theirs.__mro__[:-2]]
    if name == "OpError":
        return
    assert errors.error_code_from_exception_type(ours) == tf.errors.error_code_from_exception_type(
        theirs
    )
    assert errors.exception_type_from_error_code(CLASSES[name]).__name__ == (
        tf.errors.exception_type_from_error_code(CLASSES[name]).__name__
    )
    for args in [(None, None, "boom"), ("nd", None, "m", {"a": 1})]:
        a, b = ours(*args), theirs(*args)
        for attr in ["message", "op", "node_def", "error_code", "experimental_payloads"]:
            assert getattr(a, attr) == getattr(b, attr), attr
        assert str(a) == str(b)
        assert a.__reduce__()[1] == b.__reduce__()[1]


@pytest.mark.tf_oracle
@pytest.mark.parametrize("index", range(3))
def test_str_with_op_matches_tf(tf, index):
    op = fake_ops()[index]
    assert str(errors.AbortedError(None, op, "stop")) == str(
        tf.errors.AbortedError(None, op, "stop")
    )
