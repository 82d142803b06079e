"""Event files: written by ferroflow, read back by TensorBoard and by our reader;
corruption, truncation and a killed writer."""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ferroflow as ff


def _events(path):
    return list(ff.train.summary_iterator(path))


def _event_files(logdir):
    return sorted(os.path.join(logdir, f) for f in os.listdir(logdir) if "tfevents" in f)


def _train_and_log(logdir):
    """A small training run logging every kind of summary."""
    x = ff.constant(np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4))
    w = ff.Variable(np.ones((4, 1), np.float32), name="w")
    loss = ff.reduce_mean(ff.square(ff.matmul(x, w) - 1.0))
    step = ff.train.get_or_create_global_step()
    train = ff.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    ff.summary.scalar("loss", loss)
    ff.summary.histogram("weights", w)
    ff.summary.image("x", ff.reshape(x, [2, 4, 4, 1]), max_outputs=2)
    ff.summary.audio("clip", ff.reshape(x, [2, 16]), 8000.0)
    merged = ff.summary.merge_all()
    with ff.Session() as sess, ff.summary.FileWriter(logdir, sess.graph) as writer:
        sess.run(ff.global_variables_initializer())
        writer.add_session_log(ff.SessionLog(status=ff.SessionLog.START), 0)
        for _ in range(5):
            summary, _, s = sess.run([merged, train, step])
            writer.add_summary(summary, s)
        return writer.event_file


def test_written_files_read_back_with_our_reader(tmp_path):
    path = _train_and_log(str(tmp_path / "run"))
    name = os.path.basename(path)
    assert name.startswith("events.out.tfevents.") and name.split(".")[3].isdigit()
    events = _events(path)
    assert events[0].file_version == "brain.Event:2"
    assert events[1].HasField("graph_def")
    assert ff.GraphDef.FromString(events[1].graph_def).node
    # As TF 1.x's writer, a writer given a graph also writes its meta graph.
    assert ff.MetaGraphDef.FromString(events[2].meta_graph_def).collection_def["summaries"]
    assert events[3].session_log.status == ff.SessionLog.START
    steps = [e.step for e in events[4:]]
    assert steps == [1, 2, 3, 4, 5]
    tags = [v.tag for v in events[4].summary.value]
    assert tags == ["loss", "weights", "x/image/0", "x/image/1", "clip/audio/0", "clip/audio/1"]
    assert all(e.wall_time > 1.6e9 for e in events)


@pytest.mark.tf_oracle
def test_tensorboard_loads_scalars_images_audio_histograms_and_graph(tmp_path):
    ea = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    logdir = str(tmp_path / "run")
    _train_and_log(logdir)
    acc = ea.EventAccumulator(logdir, size_guidance={k: 0 for k in ea.DEFAULT_SIZE_GUIDANCE})
    acc.Reload()
    tags = acc.Tags()
    assert tags["scalars"] == ["loss"]
    assert tags["histograms"] == ["weights"]
    assert sorted(tags["images"]) == ["x/image/0", "x/image/1"]
    assert sorted(tags["audio"]) == ["clip/audio/0", "clip/audio/1"]
    assert tags["graph"] is True
    losses = acc.Scalars("loss")
    assert [s.step for s in losses] == [1, 2, 3, 4, 5]
    assert losses[0].value > losses[-1].value  # training went down hill
    histo = acc.Histograms("weights")[0].histogram_value
    assert histo.num == 4
    image = acc.Images("x/image/0")[0]
    assert (image.width, image.height) == (4, 4)
    assert acc.Audio("clip/audio/0")[0].content_type == "audio/wav"
    assert any(n.name == "w" for n in acc.Graph().node)


@pytest.mark.tf_oracle
def test_tensorflow_reads_our_files_and_we_read_tensorflows(tmp_path, tf1):
    path = _train_and_log(str(tmp_path / "ours"))
    theirs = list(tf1.train.summary_iterator(path))
    assert [e.SerializeToString() for e in theirs] == [e.SerializeToString() for e in _events(path)]
    g = tf1.Graph()
    with g.as_default():
        s = tf1.summary.scalar("x", tf1.constant(3.0))
        with tf1.Session() as sess:
            data = sess.run(s)
        writer = tf1.summary.FileWriter(str(tmp_path / "tf"), g)
        writer.add_summary(data, 7)
        writer.close()
    (tf_file,) = _event_files(str(tmp_path / "tf"))
    ours = _events(tf_file)
    want = list(tf1.train.summary_iterator(tf_file))
    assert [e.SerializeToString() for e in ours] == [e.SerializeToString() for e in want]
    assert ours[-1].step == 7 and ours[-1].summary.value[0].simple_value == 3.0


def test_corruption_and_truncation(tmp_path):
    path = tmp_path / "events.out.tfevents.test"
    with ff.summary.FileWriter(str(tmp_path / "w")) as writer:
        for i in range(10):
            writer.add_summary(ff.Summary(value=[ff.Summary.Value(tag="t", simple_value=i)]), i)
        src = writer.event_file
    with open(src, "rb") as f:
        data = f.read()
    n = len(_events(src))
    assert n == 11
    # A cut anywhere in the last record: every complete record still reads.
    for cut in (len(data) - 1, len(data) - 20):
        path.write_bytes(data[:cut])
        try:
            assert len(_events(str(path))) == n - 1
        except ff.errors.DataLossError as e:  # a cut inside a payload after its header
            assert "truncated record" in str(e)
    corrupt = bytearray(data)
    corrupt[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(corrupt))
    with pytest.raises(ff.errors.DataLossError, match=r"corrupted record at \d+"):
        _events(str(path))
    with pytest.raises(ff.errors.NotFoundError):
        _events(str(tmp_path / "missing"))


def test_writer_api(tmp_path):
    logdir = str(tmp_path / "new" / "dir")
    writer = ff.summary.FileWriter(logdir, max_queue=2, flush_secs=0.01, filename_suffix=".x")
    assert writer.get_logdir() == logdir and writer.event_file.endswith(".x")
    with pytest.raises(ValueError, match="not both"):
        writer.add_graph(ff.get_default_graph(), graph_def=ff.GraphDef())
    meta = ff.RunMetadata()
    writer.add_run_metadata(meta, "step1", 1)
    with pytest.raises(ValueError, match="already used"):
        writer.add_run_metadata(meta, "step1", 2)
    writer.flush()
    assert len(_events(writer.event_file)) == 2
    first = writer.event_file
    writer.close()
    writer.close()
    with pytest.warns(UserWarning, match="closed FileWriter"):
        writer.add_summary(ff.Summary(), 3)  # dropped after close, with TF's warning
    writer.reopen()
    assert writer.event_file != first
    writer.add_summary(ff.Summary(value=[ff.Summary.Value(tag="a", simple_value=1)]))
    writer.close()
    assert len(_events(first)) == 2
    assert len(_events(writer.event_file)) == 2
    assert ff.train.SummaryWriter is ff.summary.FileWriter


def test_a_killed_writer_leaves_only_complete_records(tmp_path):
    logdir = str(tmp_path / "killed")
    script = textwrap.dedent(
        f"""
        import sys, ferroflow as ff
        w = ff.summary.FileWriter({logdir!r}, max_queue=100, flush_secs=0.001)
        s = ff.Summary(value=[ff.Summary.Value(tag="t", simple_value=1.0)]).SerializeToString()
        i = 0
        while True:
            w.add_summary(s, i)
            i += 1
            if i == 2000:
                print("ready", flush=True)
        """
    )
    with subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE) as proc:
        assert proc.stdout.readline().strip() == b"ready"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    (path,) = _event_files(logdir)
    events = []
    try:
        # The writer only ever writes whole records, so the file normally ends on a
        # record boundary; a record cut by the kill would be reported as truncated.
        for e in ff.train.summary_iterator(path):
            events.append(e)
    except ff.errors.DataLossError as e:
        assert "truncated record" in str(e)
    assert len(events) > 100
    assert [e.step for e in events[1:]] == list(range(len(events) - 1))


def test_pending_events_reach_the_file_at_interpreter_exit(tmp_path):
    logdir = str(tmp_path / "exit")
    script = textwrap.dedent(
        f"""
        import ferroflow as ff
        w = ff.summary.FileWriter({logdir!r}, max_queue=100000, flush_secs=3600)
        for i in range(5000):
            w.add_summary(ff.Summary(value=[ff.Summary.Value(tag="t", simple_value=i)]), i)
        # No flush, no close: the exit hook must write them.
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    (path,) = _event_files(logdir)
    events = _events(path)
    assert [e.step for e in events[1:]] == list(range(5000))


def test_add_meta_graph_is_read_by_tensorflow(tmp_path):
    ff.constant(1.0, name="c")
    meta = ff.MetaGraphDef(graph_def=ff.get_default_graph().as_graph_def())
    meta.meta_info_def.tags.append("train")
    meta.collection_def["losses"].node_list.value.append("c:0")
    with ff.summary.FileWriter(str(tmp_path)) as writer:
        with pytest.raises(TypeError, match="must be type MetaGraphDef"):
            writer.add_meta_graph(ff.GraphDef())
        writer.add_meta_graph(meta, global_step=7)
    (event,) = [e for e in _events(writer.event_file) if e.HasField("meta_graph_def")]
    assert event.step == 7
    assert ff.MetaGraphDef.FromString(event.meta_graph_def) == meta
    meta_graph_pb2 = pytest.importorskip("tensorboard.compat.proto.meta_graph_pb2")
    theirs = meta_graph_pb2.MetaGraphDef.FromString(event.meta_graph_def)
    assert [n.name for n in theirs.graph_def.node] == ["c"]
    assert list(theirs.collection_def["losses"].node_list.value) == ["c:0"]
