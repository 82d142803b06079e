"""A raw HTTP/2 gRPC client for hostile-input tests: it sends the frames and message
prefixes a real client never would (declared lengths with nothing behind them, gzip
bombs, bad flags, huge headers) and reads back each stream's gRPC status."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import time
import zlib

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

WORKER = "/tensorflow.WorkerService/"
MASTER = "/tensorflow.MasterService/"

# The server child: a tf.train.Server under an address-space cap, so a reservation it
# cannot have aborts the process instead of being swapped or overcommitted.
SERVER_CHILD = r"""
import os, resource, sys
import ferroflow as ff
cfg = ff.ConfigProto(rpc_options=ff.RPCOptions(
    max_receive_message_size=int(sys.argv[1]), stalled_request_timeout_in_ms=int(sys.argv[2])))
server = ff.train.Server.create_local_server(config=cfg)
with ff.Session(server.target) as s:  # warm up: threads and pools exist before the cap
    s.run(ff.constant(1.0) + 1.0)
size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
cap = size + int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
print(server.target, flush=True)
server.join()
"""


def start_server(max_message=0, stall_ms=0, headroom=1 << 30):
    """A server child process and its `grpc://` target; the cap is `headroom` bytes
    of address space above what it has after start-up."""
    env = dict(os.environ, MALLOC_ARENA_MAX="2", PYTHONUNBUFFERED="1")
    args = [str(max_message), str(stall_ms), str(headroom)]
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER_CHILD, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    line = proc.stdout.readline().strip()
    if not line.startswith("grpc://"):
        proc.kill()
        raise RuntimeError(f"server did not start: {line} {proc.stderr.read()[-2000:]}")
    return proc, line


def rss_bytes(pid):
    """The resident set of process `pid`."""
    with open(f"/proc/{pid}/status") as f:
        return int(f.read().split("VmRSS:")[1].split()[0]) * 1024


def prefix(length, flag=0):
    """A gRPC message prefix declaring `length` bytes."""
    return struct.pack(">BI", flag, length)


def message(payload, flag=0):
    """A whole gRPC message."""
    return prefix(len(payload), flag) + payload


def gzip_bomb(inflated):
    """A gzip member of `inflated` zero bytes (about 1/1000 of that), built in steps."""
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = bytes(16 << 20)
    parts = []
    left = inflated
    while left:
        n = min(left, len(chunk))
        parts.append(c.compress(chunk[:n]))
        left -= n
    parts.append(c.flush())
    return b"".join(parts)


class RawConnection:
    """One HTTP/2 connection to a server, driven by hand."""

    def __init__(self, target, timeout=20.0):
        host, port = target.removeprefix("grpc://").rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        config = h2.config.H2Configuration(client_side=True, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.conn.local_settings = h2.settings.Settings(
            client=True, initial_values={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 30}
        )
        self.conn.initiate_connection()
        self.conn.increment_flow_control_window(1 << 30)
        self.flush()
        self.status = {}  # stream id -> grpc-status (int), or "reset"
        self.closed = False

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def open(self, method, body=b"", end=True, extra_headers=(), gzip=False):
        """Starts a call of `method` sending `body` raw; returns its stream id."""
        sid = self.conn.get_next_available_stream_id()
        headers = [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", method),
            (":authority", "localhost"),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
        ]
        if gzip:
            headers.append(("grpc-encoding", "gzip"))
        headers.extend(extra_headers)
        self.conn.send_headers(sid, headers, end_stream=end and not body)
        self.flush()
        if body:
            self.send(sid, body, end=end)
        return sid

    def send(self, sid, data, end=False):
        """Sends `data` on stream `sid` within the flow-control windows."""
        view = memoryview(data)
        while view:
            window = min(
                self.conn.local_flow_control_window(sid), self.conn.max_outbound_frame_size
            )
            if window <= 0:
                self.pump(0.5)
                continue
            n = min(window, len(view))
            self.conn.send_data(sid, bytes(view[:n]), end_stream=end and n == len(view))
            view = view[n:]
            self.flush()
        if end and not data:
            self.conn.end_stream(sid)
            self.flush()

    def pump(self, seconds):
        """Reads and handles what the server sends for up to `seconds`."""
        deadline = time.monotonic() + seconds
        while not self.closed:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(1 << 16)
            except TimeoutError:
                return
            except OSError:
                self.closed = True
                return
            if not data:
                self.closed = True
                return
            try:
                events = self.conn.receive_data(data)
            except h2.exceptions.ProtocolError:
                self.closed = True
                return
            for e in events:
                if isinstance(e, h2.events.ResponseReceived | h2.events.TrailersReceived):
                    for k, v in e.headers:
                        if k == "grpc-status":
                            self.status[e.stream_id] = int(v)
                elif isinstance(e, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                elif isinstance(e, h2.events.StreamReset):
                    self.status.setdefault(e.stream_id, "reset")
                elif isinstance(e, h2.events.ConnectionTerminated):
                    self.closed = True
            self.flush()

    def wait_for(self, sids, seconds):
        """The statuses of `sids`, waiting up to `seconds` for all of them."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not all(s in self.status for s in sids):
            if self.closed:
                break
            self.pump(min(0.2, deadline - time.monotonic()))
        return [self.status.get(s) for s in sids]

    def close(self):
        try:
            self.conn.close_connection()
            self.flush()
        except Exception:
            pass
        self.sock.close()


class HostileServer:
    """A gRPC server on loopback that answers every call with `response` (raw bytes
    after the response headers) and then goes quiet: what a client must survive."""

    def __init__(self, response):
        import threading

        self.response = response
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.target = f"grpc://localhost:{self.listener.getsockname()[1]}"
        self.calls = 0
        self.stopped = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        self.listener.settimeout(0.2)
        conns = []
        while not self.stopped:
            try:
                sock, _ = self.listener.accept()
            except (TimeoutError, OSError):
                sock = None
            if sock is not None:
                conn = h2.connection.H2Connection(
                    config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
                )
                conn.initiate_connection()
                sock.sendall(conn.data_to_send())
                sock.settimeout(0.05)
                conns.append((sock, conn))
            for sock, conn in conns:
                try:
                    data = sock.recv(1 << 16)
                except (TimeoutError, OSError):
                    continue
                if not data:
                    continue
                for e in conn.receive_data(data):
                    if isinstance(e, h2.events.RequestReceived):
                        self.calls += 1
                        conn.send_headers(
                            e.stream_id, [(":status", "200"), ("content-type", "application/grpc")]
                        )
                        conn.send_data(e.stream_id, self.response)
                    elif isinstance(e, h2.events.DataReceived):
                        conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
                sock.sendall(conn.data_to_send())
        for sock, _ in conns:
            sock.close()
        self.listener.close()

    def stop(self):
        self.stopped = True
        self.thread.join(5)
