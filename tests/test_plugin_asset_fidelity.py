"""TensorBoard plugin assets (`summary/plugin_asset.py`) and their files, against TF's."""

import os

import pytest

import ferroflow as ff
from ferroflow.summary import plugin_asset, writer


def _tf_modules():
    pa = pytest.importorskip("tensorflow.python.summary.plugin_asset")
    tf_writer = pytest.importorskip("tensorflow.python.summary.writer.writer")
    return pa, tf_writer


def _assets_scenario(lib, pa, writer_module, logdir):
    class Example(pa.PluginAsset):
        plugin_name = "example"

        def __init__(self):
            self.words = []

        def assets(self):
            return {"foo.txt": "foo!", "words.txt": ",".join(self.words)}

    class Other(pa.PluginAsset):
        plugin_name = "other"

        def assets(self):
            return {}

    class Clash(pa.PluginAsset):
        plugin_name = "example"

        def assets(self):
            return {}

    class Nameless(pa.PluginAsset):
        def assets(self):
            return {}

    out = []
    with lib.Graph().as_default() as g:
        first = pa.get_plugin_asset(Example)
        first.words.append("a")
        pa.get_plugin_asset(Example).words.append("b")
        out.append(pa.get_plugin_asset(Example) is first)
        pa.get_plugin_asset(Other)
        out.append([type(a).__name__ for a in pa.get_all_plugin_assets()])
        out.append(pa.get_all_plugin_assets(lib.Graph()))
        for cls in (Clash, Nameless):
            try:
                pa.get_plugin_asset(cls)
            except ValueError as e:
                out.append(str(e))
        fw = writer_module.FileWriter(logdir)
        fw.add_graph(g)
        fw.close()
    plugin_dir = os.path.join(logdir, writer_module._PLUGINS_DIR)
    out.append(sorted(os.listdir(plugin_dir)))
    for name in ("foo.txt", "words.txt"):
        with open(os.path.join(plugin_dir, "example", name)) as f:
            out.append(f.read())
    out.append(os.listdir(os.path.join(plugin_dir, "other")))
    return out


def test_plugin_assets_are_graph_singletons_written_with_the_graph(tf1, tmp_path):
    pa, tf_writer = _tf_modules()
    ours = _assets_scenario(ff, plugin_asset, writer, str(tmp_path / "ff"))
    assert ours == _assets_scenario(tf1, pa, tf_writer, str(tmp_path / "tf"))
    assert ours[0] is True and ours[-3:] == ["foo!", "a,b", []]
