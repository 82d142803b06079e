"""`_Send`/`_Recv` pairs in one process, compared with TensorFlow: a GraphDef holding a
pair imports and runs in both (each run meets in its own rendezvous, as TF's
`DirectSession` gives each step one), and a pair missing an attr is refused with TF's
message."""

import pytest

import ferroflow as ff

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"
DT_FLOAT = 1


def _pair_graph_def(lib, drop=None):
    """A constant sent through a `_Send`/`_Recv` pair (attrs as TF's partitioner writes
    them); `drop` leaves one attr of the `_Recv` out."""
    g = lib.Graph()
    with g.as_default():
        lib.constant(3.0, name="c")
    gd = g.as_graph_def()

    def key_attrs(n):
        n.attr["tensor_name"].s = b"edge_1_c"
        n.attr["send_device"].s = CPU.encode()
        n.attr["send_device_incarnation"].i = -0x112210F47DE98115
        n.attr["recv_device"].s = CPU.encode()

    send = gd.node.add()
    send.name, send.op = "send", "_Send"
    send.input.append("c")
    send.attr["T"].type = DT_FLOAT
    key_attrs(send)
    recv = gd.node.add()
    recv.name, recv.op = "recv", "_Recv"
    recv.attr["tensor_type"].type = DT_FLOAT
    key_attrs(recv)
    if drop is not None:
        del recv.attr[drop]
    return gd


def _run_pair(lib):
    g = lib.Graph()
    with g.as_default():
        lib.import_graph_def(_pair_graph_def(lib), name="")
        y = g.get_tensor_by_name("recv:0") * 2.0
        send = g.get_operation_by_name("send")
        options = lib.RunOptions(timeout_in_ms=10000)
        with lib.Session() as sess:
            return [sess.run([y, send], options=options)[0] for _ in range(2)]


def test_a_pair_runs_as_in_tensorflow(tf1):
    assert _run_pair(ff) == _run_pair(tf1) == [6.0, 6.0]


def test_the_recv_waits_for_a_send_that_does_not_run(tf1):
    for lib in (ff, tf1):
        g = lib.Graph()
        with g.as_default():
            lib.import_graph_def(_pair_graph_def(lib), name="")
            y = g.get_tensor_by_name("recv:0")
            with lib.Session() as sess, pytest.raises(lib.errors.DeadlineExceededError):
                sess.run(y, options=lib.RunOptions(timeout_in_ms=100))


def test_missing_attrs_are_tfs_error(tf1):
    messages = []
    for lib in (ff, tf1):
        g = lib.Graph()
        with g.as_default(), pytest.raises(ValueError) as info:
            lib.import_graph_def(_pair_graph_def(lib, drop="recv_device"), name="")
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert messages[0].startswith("NodeDef missing attr 'recv_device' from Op<name=_Recv;")
