"""tf.saved_model in ferroflow alone: builder, simple_save and loader round trips."""

import os

import numpy as np
import pytest

import ferroflow as ff

X = np.array([[1.0, 2.0], [3.0, 4.0], [-1.0, 0.5]], np.float32)


def _model(lib):
    """A small linear model with a training step; returns (x, y, train_op)."""
    x = lib.placeholder(lib.float32, [None, 2], name="x")
    w = lib.Variable([[1.0], [2.0]], name="w")
    b = lib.Variable([0.5], name="b")
    y = lib.add(lib.matmul(x, w), b, name="y")
    loss = lib.reduce_mean(lib.square(y - 1.0))
    train = lib.train.GradientDescentOptimizer(0.05).minimize(loss, name="train")
    return x, y, train


def _trained_export(export_dir, how="builder", as_text=False, steps=3):
    """Trains the model a few steps in a fresh graph, exports it, returns y(X)."""
    with ff.Graph().as_default(), ff.Session() as sess:
        x, y, train = _model(ff)
        sess.run(ff.global_variables_initializer())
        for _ in range(steps):
            sess.run(train, {x: X})
        want = sess.run(y, {x: X})
        if how == "simple_save":
            ff.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": y})
        else:
            builder = ff.saved_model.builder.SavedModelBuilder(export_dir)
            signature = ff.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})
            builder.add_meta_graph_and_variables(
                sess,
                [ff.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": signature},
            )
            builder.save(as_text=as_text)
    return want


def _run_signature(sess, meta, key="serving_default", feeds=None):
    signature = meta.signature_def[key]
    fetch = {k: v.name for k, v in signature.outputs.items()}
    feed = {signature.inputs[k].name: v for k, v in (feeds or {"x": X}).items()}
    return sess.run(fetch, feed)


@pytest.mark.parametrize(
    ("how", "as_text"), [("builder", False), ("builder", True), ("simple_save", False)]
)
def test_round_trip(tmp_path, how, as_text):
    export_dir = str(tmp_path / "model")
    want = _trained_export(export_dir, how, as_text)
    names = sorted(os.listdir(export_dir))
    assert names == ["saved_model.pbtxt" if as_text else "saved_model.pb", "variables"]
    assert sorted(os.listdir(os.path.join(export_dir, "variables"))) == [
        "variables.data-00000-of-00001",
        "variables.index",
    ]
    assert ff.saved_model.contains_saved_model(export_dir)
    assert ff.saved_model.loader.maybe_saved_model_directory(tmp_path / "model")
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        meta = ff.saved_model.loader.load(sess, ["serve"], export_dir)
        assert list(meta.meta_info_def.tags) == ["serve"]
        assert meta.signature_def["serving_default"].method_name == (
            ff.saved_model.PREDICT_METHOD_NAME
        )
        got = _run_signature(sess, meta)["y"]
        np.testing.assert_allclose(got, want, rtol=1e-6)
        # The graph is a full training graph again: its train op runs.
        sess.run("train", {"x:0": X})
        assert not np.allclose(sess.run("y:0", {"x:0": X}), want)


def test_load_is_tf_saved_model_load_and_compat(tmp_path):
    assert ff.saved_model.load is ff.saved_model.loader.load
    assert ff.compat.v1.saved_model is ff.saved_model
    assert ff.saved_model.Builder is ff.saved_model.builder.SavedModelBuilder
    assert ff.saved_model.main_op.main_op_with_restore is ff.saved_model.main_op_with_restore
    assert not ff.saved_model.contains_saved_model(str(tmp_path))


def test_import_scope(tmp_path):
    export_dir = str(tmp_path / "model")
    want = _trained_export(export_dir)
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        meta = ff.saved_model.loader.load(sess, ["serve"], export_dir, import_scope="imported")
        # The returned MetaGraphDef keeps the names as saved.
        assert meta.signature_def["serving_default"].outputs["y"].name == "y:0"
        got = sess.run("imported/y:0", {"imported/x:0": X})
        np.testing.assert_allclose(got, want, rtol=1e-6)
        info = meta.signature_def["serving_default"].outputs["y"]
        t = ff.saved_model.utils.get_tensor_from_tensor_info(info, import_scope="imported")
        assert t.name == "imported/y:0"


def test_second_meta_graph_and_clear_devices(tmp_path):
    export_dir = str(tmp_path / "model")
    with ff.Graph().as_default(), ff.Session() as sess:
        with ff.device("/cpu:0"):
            x, y, _ = _model(ff)
        sess.run(ff.global_variables_initializer())
        want = sess.run(y, {x: X})
        builder = ff.saved_model.Builder(export_dir)
        with pytest.raises(AssertionError, match=r"has not been saved yet"):
            builder.add_meta_graph(["train"])
        signature = ff.saved_model.predict_signature_def({"x": x}, {"y": y})
        builder.add_meta_graph_and_variables(
            sess, ["serve"], signature_def_map={"serving_default": signature}
        )
        with pytest.raises(AssertionError, match=r"has already been saved"):
            builder.add_meta_graph_and_variables(sess, ["other"])
        builder.add_meta_graph(
            ["train", "gpu"], signature_def_map={"predict": signature}, clear_devices=True
        )
        with pytest.raises(AssertionError, match=r"must be distinct"):
            builder.add_meta_graph(["gpu", "train"])
        builder.save()
    saved = ff.saved_model.loader.parse_saved_model(export_dir)
    assert [list(m.meta_info_def.tags) for m in saved.meta_graphs] == [
        ["serve"],
        ["train", "gpu"],
    ]
    devices = [{n.device for n in m.graph_def.node} for m in saved.meta_graphs]
    assert "/device:CPU:0" in devices[0]
    assert devices[1] == {""}
    for tags, key in ((["serve"], "serving_default"), (["gpu", "train"], "predict")):
        with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
            meta = ff.saved_model.loader.load(sess, tags, export_dir)
            np.testing.assert_allclose(_run_signature(sess, meta, key)["y"], want)


def _asset_graph(asset_file):
    """A graph whose main op reads an asset file into a local variable."""
    asset = ff.constant(str(asset_file), name="asset_path")
    ff.add_to_collection(ff.GraphKeys.ASSET_FILEPATHS, asset)
    contents = ff.Variable(
        "",
        dtype=ff.string,
        trainable=False,
        collections=[ff.GraphKeys.LOCAL_VARIABLES],
        name="contents",
    )
    w = ff.Variable(3.0, name="w")
    x = ff.placeholder(ff.float32, [], name="x")
    y = ff.multiply(x, w, name="y")
    read = ff.assign(contents, ff.read_file(asset)).op
    return x, y, read


@pytest.mark.parametrize("argument", ["main_op", "legacy_init_op", "simple_save"])
def test_assets_copied_and_fed_to_the_main_op(tmp_path, argument):
    asset_file = tmp_path / "vocab.txt"
    asset_file.write_bytes(b"hello asset")
    export_dir = str(tmp_path / "model")
    with ff.Graph().as_default(), ff.Session() as sess:
        x, y, read = _asset_graph(asset_file)
        sess.run(ff.global_variables_initializer())
        if argument == "simple_save":
            ff.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": y}, legacy_init_op=read)
        else:
            builder = ff.saved_model.builder.SavedModelBuilder(export_dir)
            builder.add_meta_graph_and_variables(
                sess,
                ["serve"],
                assets_collection=ff.get_collection(ff.GraphKeys.ASSET_FILEPATHS),
                **{argument: read},
            )
            builder.save()
    # The loader feeds the copy under assets/, not the path the graph was built with.
    asset_file.unlink()
    assert os.listdir(os.path.join(export_dir, "assets")) == ["vocab.txt"]
    saved = ff.saved_model.loader.parse_saved_model(export_dir)
    meta = saved.meta_graphs[0]
    assert [(a.tensor_info.name, a.filename) for a in meta.asset_file_def] == [
        ("asset_path:0", "vocab.txt")
    ]
    assert list(meta.collection_def["asset_filepaths"].node_list.value) == ["asset_path:0"]
    # legacy_init_op is stored as the main op, as TF's builder stores it.
    assert list(meta.collection_def["saved_model_main_op"].node_list.value) == [read.name]
    assert "legacy_init_op" not in meta.collection_def
    assert ff.saved_model.loader.get_asset_tensors(export_dir, meta) == {
        "asset_path:0": os.path.join(export_dir, "assets", "vocab.txt").encode()
    }
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        ff.saved_model.loader.load(sess, ["serve"], export_dir)
        assert sess.run("contents:0") == b"hello asset"
        assert sess.run("y:0", {"x:0": 2.0}) == 6.0


def test_assets_of_the_graph_reach_later_meta_graphs(tmp_path):
    # As TF-1.x's builder: the assets go into a collection of the graph, so a meta
    # graph added later from the same graph lists them too.
    asset_file = tmp_path / "vocab.txt"
    asset_file.write_bytes(b"abc")
    export_dir = str(tmp_path / "model")
    with ff.Graph().as_default(), ff.Session() as sess:
        _, _, read = _asset_graph(asset_file)
        sess.run(ff.global_variables_initializer())
        builder = ff.saved_model.builder.SavedModelBuilder(export_dir)
        builder.add_meta_graph_and_variables(
            sess,
            ["serve"],
            assets_collection=ff.get_collection(ff.GraphKeys.ASSET_FILEPATHS),
            main_op=read,
        )
        builder.add_meta_graph(["train"])
        builder.save()
    asset_file.unlink()
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        ff.saved_model.loader.load(sess, ["train"], export_dir)
        assert sess.run("contents:0") == b"abc"


def test_duplicate_asset_basenames_are_made_unique(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "vocab.txt").write_bytes(b"first")
    (tmp_path / "b" / "vocab.txt").write_bytes(b"second")
    export_dir = str(tmp_path / "model")
    with ff.Graph().as_default(), ff.Session() as sess:
        a = ff.constant(str(tmp_path / "a" / "vocab.txt"), name="a")
        b = ff.constant(str(tmp_path / "b" / "vocab.txt"), name="b")
        builder = ff.saved_model.builder.SavedModelBuilder(export_dir)
        builder.add_meta_graph_and_variables(sess, ["serve"], assets_collection=[a, b])
        builder.save()
    assert sorted(os.listdir(os.path.join(export_dir, "assets"))) == ["vocab.txt", "vocab.txt_1"]
    assets = ff.saved_model.loader.parse_saved_model(export_dir).meta_graphs[0].asset_file_def
    assert [(x.tensor_info.name, x.filename) for x in assets] == [
        ("a:0", "vocab.txt"),
        ("b:0", "vocab.txt_1"),
    ]


def test_bad_assets(tmp_path):
    with ff.Session() as sess:
        builder = ff.saved_model.builder.SavedModelBuilder(str(tmp_path / "m"))
        with pytest.raises(TypeError, match="must be of type constant"):
            builder.add_meta_graph_and_variables(
                sess, ["serve"], assets_collection=[ff.placeholder(ff.string)]
            )
        with pytest.raises(TypeError, match="must be of dtype string"):
            builder.add_meta_graph_and_variables(
                sess, ["serve"], assets_collection=[ff.constant(1.0)]
            )
        with pytest.raises(TypeError, match="must be a scalar"):
            builder.add_meta_graph_and_variables(
                sess, ["serve"], assets_collection=[ff.constant(["a", "b"])]
            )


def test_main_op_and_main_op_with_restore(tmp_path):
    export_dir = str(tmp_path / "model")
    with ff.Graph().as_default(), ff.Session() as sess:
        v = ff.Variable(5.0, name="v")
        counter = ff.Variable(
            7.0, name="counter", trainable=False, collections=[ff.GraphKeys.LOCAL_VARIABLES]
        )
        sess.run(ff.global_variables_initializer())
        sess.run(ff.assign(v, 9.0))
        main = ff.saved_model.main_op.main_op()
        builder = ff.saved_model.builder.SavedModelBuilder(export_dir)
        builder.add_meta_graph_and_variables(sess, ["serve"], main_op=main)
        builder.save()
        assert isinstance(main, ff.Operation)
        del counter
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        ff.saved_model.loader.load(sess, ["serve"], export_dir)
        # The main op runs after the restore: it re-initializes every variable.
        assert sess.run("v:0") == 5.0
        assert sess.run("counter:0") == 7.0
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        v = ff.Variable(1.0, name="v")
        saver = ff.train.Saver()
        sess.run(ff.global_variables_initializer())
        prefix = saver.save(sess, str(tmp_path / "ckpt" / "model"))
        sess.run(ff.assign(v, 2.0))
        op = ff.saved_model.main_op_with_restore(saver.saver_def.restore_op_name)
        sess.run(op, {saver.saver_def.filename_tensor_name: prefix})
        assert sess.run(v) == 1.0


def test_builder_validation(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "file").write_text("x")
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        ff.saved_model.builder.SavedModelBuilder(str(tmp_path / "full"))
    (tmp_path / "empty").mkdir()
    ff.saved_model.builder.SavedModelBuilder(str(tmp_path / "empty"))
    x = ff.placeholder(ff.float32, name="x")
    good = ff.saved_model.predict_signature_def({"x": x}, {"y": x})
    bad = ff.saved_model.build_signature_def(
        inputs={"x": ff.protos.TensorInfo(name="x:0")}, method_name="m"
    )
    with ff.Session() as sess:
        builder = ff.saved_model.builder.SavedModelBuilder(str(tmp_path / "m"))
        with pytest.raises(AssertionError, match="must have the dtype field set"):
            builder.add_meta_graph_and_variables(sess, ["serve"], signature_def_map={"k": bad})
        with pytest.raises(KeyError, match="reserved for initialization"):
            builder.add_meta_graph_and_variables(
                sess, ["serve"], signature_def_map={"__saved_model_init_op": good}
            )
        with pytest.raises(TypeError, match="Expected init to be an Operation"):
            builder.add_meta_graph_and_variables(sess, ["serve"], main_op="init")
        with pytest.raises(TypeError):  # TF: `main_op or legacy_init_op` on a Tensor
            builder.add_meta_graph_and_variables(sess, ["serve"], main_op=x)
        builder.add_meta_graph_and_variables(sess, ["serve"], main_op=ff.no_op(name="init"))
        # TF: a graph holds one main op.
        with pytest.raises(ValueError, match="already contains one or more main ops"):
            builder.add_meta_graph(["train"], main_op=ff.no_op())
        path = builder.save()
    assert path == os.path.join(str(tmp_path / "m"), "saved_model.pb").encode()


def test_model_without_variables(tmp_path):
    export_dir = str(tmp_path / "model")
    with ff.Graph().as_default(), ff.Session() as sess:
        x = ff.placeholder(ff.float32, [None], name="x")
        y = ff.multiply(x, 2.0, name="y")
        ff.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": y})
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        meta = ff.saved_model.loader.load(sess, ["serve"], export_dir)
        got = _run_signature(sess, meta, feeds={"x": np.array([1.0, 2.0], np.float32)})
        np.testing.assert_array_equal(got["y"], [2.0, 4.0])


def test_signature_def_utils():
    sdu = ff.saved_model.signature_def_utils
    examples = ff.placeholder(ff.string, [None], name="examples")
    scores = ff.placeholder(ff.float32, [None, 3], name="scores")
    classes = ff.placeholder(ff.string, [None, 3], name="classes")
    ints = ff.placeholder(ff.int32, [None], name="ints")
    c = sdu.classification_signature_def(examples, classes, scores)
    assert c.method_name == "tensorflow/serving/classify"
    assert sorted(c.outputs) == ["classes", "scores"]
    assert sdu.is_valid_signature(c)
    r = sdu.regression_signature_def(examples, ff.placeholder(ff.float32, [None]))
    assert (r.method_name, sorted(r.inputs), sorted(r.outputs)) == (
        "tensorflow/serving/regress",
        ["inputs"],
        ["outputs"],
    )
    assert sdu.is_valid_signature(r)
    p = sdu.predict_signature_def({"a": ints}, {"b": scores})
    assert sdu.is_valid_signature(p)
    assert not sdu.is_valid_signature(None)
    assert not sdu.is_valid_signature(sdu.build_signature_def({}, {}, "tensorflow/serving/predict"))
    with pytest.raises(ValueError, match="Regression input tensors must be of type string"):
        sdu.regression_signature_def(ints, scores)
    with pytest.raises(ValueError, match="Regression output tensors must be of type float"):
        sdu.regression_signature_def(examples, ints)
    with pytest.raises(ValueError, match="`classes` and `scores` cannot both be None"):
        sdu.classification_signature_def(examples, None, None)
    with pytest.raises(ValueError, match="Classification scores must be a float Tensor"):
        sdu.classification_signature_def(examples, None, ints)
    with pytest.raises(ValueError, match="Prediction `inputs` cannot be None or empty"):
        sdu.predict_signature_def({}, {"b": scores})
    d = sdu.build_signature_def(
        {"a": ff.saved_model.build_tensor_info(ints)},
        method_name="m",
        defaults={"a": ff.constant([1, 2], name="default")},
    )
    assert d.defaults["a"] == ff.constant([1, 2]).op.node_def.attr["value"].tensor
    with pytest.raises(ValueError, match="Unable to convert object"):
        sdu.build_signature_def(defaults={"a": ints})


def test_tensor_info_dense_sparse_and_invalid():
    x = ff.placeholder(ff.float32, [None, 2], name="x")
    info = ff.saved_model.utils.build_tensor_info(x)
    assert (info.name, info.dtype) == ("x:0", ff.float32.as_datatype_enum)
    assert [d.size for d in info.tensor_shape.dim] == [-1, 2]
    assert ff.saved_model.get_tensor_from_tensor_info(info) is x
    sp = ff.sparse_placeholder(ff.int64, name="sp")
    sinfo = ff.saved_model.build_tensor_info(sp)
    assert sinfo.WhichOneof("encoding") == "coo_sparse"
    assert sinfo.coo_sparse.values_tensor_name == sp.values.name
    assert sinfo.coo_sparse.indices_tensor_name == sp.indices.name
    assert sinfo.coo_sparse.dense_shape_tensor_name == sp.dense_shape.name
    back = ff.saved_model.get_tensor_from_tensor_info(sinfo)
    assert isinstance(back, ff.SparseTensor)
    assert back.values is sp.values
    with pytest.raises(ValueError, match=r"Invalid TensorInfo\.encoding: None"):
        ff.saved_model.get_tensor_from_tensor_info(ff.protos.TensorInfo())
    with pytest.raises(KeyError):
        ff.saved_model.get_tensor_from_tensor_info(ff.protos.TensorInfo(name="nope:0"))


def test_method_name_updater(tmp_path):
    for as_text in (False, True):
        export_dir = str(tmp_path / f"model{as_text}")
        _trained_export(export_dir, as_text=as_text)
        updater = ff.saved_model.signature_def_utils.MethodNameUpdater(export_dir)
        with pytest.raises(ValueError, match="does not have a signature_def with key"):
            updater.replace_method_name("nope", "regress")
        with pytest.raises(ValueError, match="could not be found in SavedModel"):
            updater.replace_method_name("serving_default", "regress", tags="train")
        updater.replace_method_name("serving_default", "regress", tags="serve")
        updater.save()
        saved = ff.saved_model.loader.parse_saved_model(export_dir)
        assert saved.meta_graphs[0].signature_def["serving_default"].method_name == "regress"


def test_loader_errors(tmp_path):
    with ff.Session() as sess:
        with pytest.raises(OSError, match=r"SavedModel file does not exist at: .*nowhere"):
            ff.saved_model.loader.load(sess, ["serve"], str(tmp_path / "nowhere"))
    export_dir = str(tmp_path / "model")
    _trained_export(export_dir)
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        with pytest.raises(RuntimeError) as e:
            ff.saved_model.loader.load(sess, ["serve", "gpu"], export_dir)
    assert str(e.value) == (
        "MetaGraphDef associated with tags 'serve', 'gpu' could not be found in SavedModel, "
        "with available tags '[{'serve'}]'. To inspect available tag-sets in the SavedModel, "
        "please use the SavedModel CLI: `saved_model_cli`."
    )
    pb = tmp_path / "model" / "saved_model.pb"
    pb.write_bytes(pb.read_bytes()[:100])
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        with pytest.raises(OSError, match=r"^Cannot parse file b'.*saved_model.pb': "):
            ff.saved_model.loader.load(sess, ["serve"], export_dir)


def test_two_imports_into_one_graph_run_their_own_main_ops(tmp_path):
    # The main op is found by name under the import scope (TF takes the first op of the
    # graph's collection, which would be the first import's).
    asset_file = tmp_path / "vocab.txt"
    asset_file.write_bytes(b"shared")
    export_dir = str(tmp_path / "model")
    with ff.Graph().as_default(), ff.Session() as sess:
        x, y, read = _asset_graph(asset_file)
        sess.run(ff.global_variables_initializer())
        ff.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": y}, legacy_init_op=read)
    with ff.Graph().as_default() as g, ff.Session(graph=g) as sess:
        for scope in ("a", "b"):
            ff.saved_model.loader.load(sess, ["serve"], export_dir, import_scope=scope)
        assert sess.run(["a/contents:0", "b/contents:0"]) == [b"shared", b"shared"]
        assert sess.run("b/y:0", {"b/x:0": 1.0}) == 3.0
