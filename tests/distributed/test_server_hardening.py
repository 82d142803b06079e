"""Hostile bytes against a `tf.train.Server`: each server runs in a child process under
an address-space cap, is sent what no real client sends (raw HTTP/2, `grpc_raw.py`),
must answer with a gRPC status, and must still serve a good request afterwards with its
memory back near where it started."""

import struct
import subprocess
import sys
import time

import numpy as np
import pytest

import ferroflow as ff

pytest.importorskip("h2")
from grpc_raw import (
    MASTER,
    WORKER,
    HostileServer,
    RawConnection,
    gzip_bomb,
    message,
    prefix,
    rss_bytes,
    start_server,
)

OK, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, INTERNAL = 0, 4, 8, 13


@pytest.fixture
def child():
    """Starts server children; kills what is left at the end."""
    procs = []

    def start(**kwargs):
        proc, target = start_server(**kwargs)
        procs.append(proc)
        return proc, target

    yield start
    for p in procs:
        p.kill()
        p.communicate()  # waits, and closes its pipes


def answers(target):
    """Whether the server at `target` runs a step for a ferroflow client."""
    with ff.Graph().as_default():
        x = ff.placeholder(ff.float32, [2])
        y = x * 2.0
        with ff.Session(target) as sess:
            return sess.run(y, {x: [1.0, 2.0]}).tolist() == [2.0, 4.0]


def alive(proc, target):
    assert proc.poll() is None, proc.stderr.read()[-3000:]
    assert answers(target)


def test_declared_lengths_with_nothing_behind_them_reserve_nothing(child):
    # ~200 bytes a stream that declare 2 GiB and go quiet: each must cost only what
    # arrived, the server keeps serving meanwhile, and the stalled streams end.
    proc, target = child(stall_ms=1500, headroom=512 << 20)
    base = rss_bytes(proc.pid)
    conns = [RawConnection(target) for _ in range(2)]
    sids = [
        (c, c.open(WORKER + "GetStatus", prefix(0x7FFFFFFF) + b"\x0a\x00", end=False))
        for c in conns
        for _ in range(100)
    ]
    alive(proc, target)
    assert rss_bytes(proc.pid) < base + (64 << 20)
    for c in conns:
        got = c.wait_for([s for cc, s in sids if cc is c], 15)
        assert got == [DEADLINE_EXCEEDED] * 100, got
        c.close()
    alive(proc, target)


def test_messages_over_the_limit_are_resource_exhausted(child):
    proc, target = child(max_message=1 << 20)
    c = RawConnection(target)
    over = c.open(WORKER + "GetStatus", prefix((1 << 20) + 1) + bytes(100), end=False)
    at = c.open(WORKER + "GetStatus", message(bytes(0)))
    assert c.wait_for([over, at], 10) == [RESOURCE_EXHAUSTED, OK]
    c.close()
    alive(proc, target)


def test_a_gzip_bomb_is_refused_and_its_memory_given_back(child):
    # 1 MiB of gzip that inflates to 1 GiB, against TF's default limit (INT32_MAX) with
    # only 768 MiB of address space to spare: the inflating buffer grows fallibly.
    proc, target = child(headroom=768 << 20)
    bomb = message(gzip_bomb(1 << 30), flag=1)
    assert len(bomb) < 2 << 20
    alive(proc, target)
    base = rss_bytes(proc.pid)
    c = RawConnection(target)
    sid = c.open(WORKER + "GetStatus", bomb, gzip=True)
    assert c.wait_for([sid], 60) == [RESOURCE_EXHAUSTED]
    c.close()
    alive(proc, target)
    time.sleep(0.5)
    assert rss_bytes(proc.pid) < base * 1.1 + (16 << 20)
    # With a configured limit the bomb stops at the limit.
    proc, target = child(max_message=64 << 20)
    c = RawConnection(target)
    sid = c.open(WORKER + "GetStatus", bomb, gzip=True)
    assert c.wait_for([sid], 60) == [RESOURCE_EXHAUSTED]
    c.close()
    alive(proc, target)


# Malformed requests and the status each gets: gRPC's (and TF's server's) INTERNAL for
# bytes that cannot be decoded. The two flag cases are INTERNAL here as gRPC's protocol
# says ("MUST fail with INTERNAL"); TF's gRPC core passes them (OK) or not, depending on
# its version and timing, so they are not compared.
MALFORMED = {
    "bad flag": (message(b"\x0a\x00", flag=9), False, INTERNAL),
    "compressed without an encoding": (message(b"\x0a\x00", flag=1), False, INTERNAL),
    "cut gzip": (message(gzip_bomb(1 << 20)[:100], flag=1), True, INTERNAL),
    "not gzip": (message(b"definitely not gzip", flag=1), True, INTERNAL),
    "ends mid-message": (prefix(1000) + bytes(10), False, INTERNAL),
    "ends mid-prefix": (b"\x00\x00", False, INTERNAL),
    "not protobuf": (message(b"\xff\xff\xff\xff\xff"), False, INTERNAL),
    "good": (message(b""), False, OK),
}
TF_PASSES = {"bad flag", "compressed without an encoding"}


def _statuses(target):
    c = RawConnection(target)
    method = WORKER + "GetStatus"
    sids = {k: c.open(method, body, gzip=gz) for k, (body, gz, _) in MALFORMED.items()}
    got = dict(zip(sids, c.wait_for(list(sids.values()), 10), strict=True))
    return c, got


def test_malformed_messages_get_a_status_and_the_server_keeps_serving(child):
    proc, target = child(stall_ms=2000)
    c, got = _statuses(target)
    assert got == {k: want for k, (_, _, want) in MALFORMED.items()}
    # A header block over 16 KiB is refused by HTTP/2 itself.
    big = c.open(WORKER + "GetStatus", message(b""), extra_headers=[("x-pad", "a" * (64 << 10))])
    assert c.wait_for([big], 10) != [OK]
    c.close()
    alive(proc, target)


TF_SERVER_CHILD = r"""
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
server = tf.train.Server.create_local_server()
print(server.target, flush=True)
server.join()
"""


def test_malformed_messages_get_tfs_statuses(tf1):
    proc = subprocess.Popen(
        [sys.executable, "-c", TF_SERVER_CHILD],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        target = proc.stdout.readline().strip()
        c, theirs = _statuses(target)
        c.close()
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.communicate()
    ours = {k: want for k, (_, _, want) in MALFORMED.items()}
    assert {k: v for k, v in theirs.items() if k not in TF_PASSES} == {
        k: v for k, v in ours.items() if k not in TF_PASSES
    }


def test_streams_past_the_per_connection_bound_are_refused(child):
    proc, target = child(stall_ms=3000)
    c = RawConnection(target)
    sids = [c.open(WORKER + "GetStatus", prefix(1 << 30), end=False) for _ in range(1100)]
    c.pump(1.0)
    refused = [s for s in sids if c.status.get(s) == "reset"]
    assert len(refused) >= 1100 - 1024
    c.close()
    alive(proc, target)


def _malformed(i):
    """The i-th request of the soak's rotation of malformed kinds."""
    kind = i % 6
    if kind == 0:
        return message(b"\x0a\x00", flag=9), False, True
    if kind == 1:
        return prefix(0x7FFFFFFF) + b"xx", False, True  # over the 1 MiB limit set below
    if kind == 2:
        return message(b"not gzip at all", flag=1), True, True
    if kind == 3:
        return message(b"\xff" * 7), False, True
    if kind == 4:
        return prefix(500) + bytes(20), False, True  # ends mid-message
    # Well framed, but not the method's protobuf.
    return message(struct.pack("<I", i) * 200, flag=0), False, True


def _send_malformed(target, count, first=0):
    """Sends `count` malformed requests in rounds of 250 streams a connection; each
    must be answered with a status."""
    sent = first
    while sent < first + count:
        c = RawConnection(target)
        sids = []
        for _ in range(min(250, first + count - sent)):
            body, gz, end = _malformed(sent)
            method = MASTER + "ListDevices" if sent % 2 else WORKER + "GetStatus"
            sids.append(c.open(method, body, end=end, gzip=gz))
            sent += 1
        statuses = c.wait_for(sids, 30)
        assert None not in statuses and OK not in statuses, statuses
        c.close()


def _train(target):
    """A linear regression trained through the server."""
    with ff.Graph().as_default():
        x = ff.placeholder(ff.float32, [None, 2])
        y = ff.placeholder(ff.float32, [None, 1])
        w = ff.Variable(ff.zeros([2, 1]))
        loss = ff.reduce_mean(ff.square(ff.matmul(x, w) - y))
        train = ff.train.GradientDescentOptimizer(0.1).minimize(loss)
        xs = np.random.RandomState(0).rand(64, 2).astype(np.float32)
        ys = xs @ np.array([[2.0], [-1.0]], np.float32)
        with ff.Session(target) as sess:
            sess.run(ff.global_variables_initializer())
            for _ in range(300):
                sess.run(train, {x: xs, y: ys})
            np.testing.assert_allclose(sess.run(w).ravel(), [2.0, -1.0], atol=0.05)


def test_soak_ten_thousand_malformed_requests_then_training(child):
    proc, target = child(max_message=1 << 20, stall_ms=2000)
    # The steady state first: the allocator's caches and the server's pools warmed by
    # one round of each kind of request.
    _send_malformed(target, 1_000)
    _train(target)
    start = rss_bytes(proc.pid)
    began = time.monotonic()
    _send_malformed(target, 10_000, first=1_000)
    assert time.monotonic() - began < 300
    assert proc.poll() is None
    _train(target)
    time.sleep(0.5)
    assert rss_bytes(proc.pid) < start * 1.1, (start, rss_bytes(proc.pid))


@pytest.mark.parametrize(
    ("response", "rpc", "error"),
    [
        # Declares 2 GiB, sends two bytes, goes quiet: the stall timeout ends the call.
        (
            prefix(0x7FFFFFFF) + b"ab",
            {"stalled_request_timeout_in_ms": 500},
            "DeadlineExceededError",
        ),
        # Over the session's limit: refused as soon as the prefix is read.
        (prefix(64 << 20) + b"ab", {"max_receive_message_size": 1 << 20}, "ResourceExhaustedError"),
    ],
    ids=["stalled", "over-the-limit"],
)
def test_a_client_bounds_what_a_hostile_master_sends(response, rpc, error):
    server = HostileServer(response)
    try:
        config = ff.ConfigProto(rpc_options=ff.RPCOptions(**rpc))
        with ff.Graph().as_default():
            y = ff.constant(1.0) + 1.0
            with ff.Session(server.target, config=config) as sess:
                began = time.monotonic()
                with pytest.raises(ff.errors.OpError) as e:
                    sess.run(y)
                assert type(e.value).__name__ == error, e.value
                assert time.monotonic() - began < 30
    finally:
        server.stop()
    assert server.calls >= 1
