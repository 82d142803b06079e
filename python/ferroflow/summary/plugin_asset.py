"""TensorBoard plugin assets: files a plugin keeps next to the event files (TF's).

TensorBoard plugins may need to provide arbitrary assets, such as configuration
for specific outputs, vocabulary files or sprite images. A plugin defines a
`PluginAsset` subclass, which is a singleton per graph (kept in a graph collection):
code building the graph gets the instance with `get_plugin_asset` and configures it,
and `tf.summary.FileWriter.add_graph` writes what its `assets()` returns to
`<logdir>/plugins/<plugin_name>/<asset name>`.

Example:
    ```python
    class VocabAsset(plugin_asset.PluginAsset):
        plugin_name = "vocab"

        def __init__(self):
            self.words = []

        def assets(self):
            return {"vocab.txt": " ".join(self.words)}

    plugin_asset.get_plugin_asset(VocabAsset).words.append("hello")
    tf.summary.FileWriter(logdir, graph=tf.get_default_graph())  # writes the file
    ```
"""

from __future__ import annotations

import abc

from ..framework import ops

__all__ = ["PluginAsset", "get_all_plugin_assets", "get_plugin_asset"]

_PLUGIN_ASSET_PREFIX = "__tensorboard_plugin_asset__"


def get_plugin_asset(plugin_asset_cls, graph=None):
    """The singleton instance of a `PluginAsset` class in a graph (made on first use).

    Plugin assets are kept in graph collections, so that they can be defined
    anywhere while the graph is built, and every part configuring the same plugin
    modifies the same instance.

    Args:
        plugin_asset_cls: The `PluginAsset` subclass.
        graph: The graph to get the instance from (default: the default graph).

    Returns:
        The instance of `plugin_asset_cls` of the graph.

    Raises:
        ValueError: If the class has no `plugin_name`, another class has its plugin
            name, or the graph's collection for it holds other than one item.
    """
    if graph is None:
        graph = ops.get_default_graph()
    if not plugin_asset_cls.plugin_name:
        raise ValueError(f"Class {plugin_asset_cls.__name__} has no plugin_name")

    name = _PLUGIN_ASSET_PREFIX + plugin_asset_cls.plugin_name
    container = graph.get_collection(name)
    if container:
        if len(container) != 1:
            raise ValueError(f"Collection for {name} had {len(container)} items, expected 1")
        instance = container[0]
        if not isinstance(instance, plugin_asset_cls):
            raise ValueError(
                f"Plugin name collision between classes {plugin_asset_cls.__name__} and "
                f"{instance.__class__.__name__}"
            )
    else:
        instance = plugin_asset_cls()
        graph.add_to_collection(name, instance)
        graph.add_to_collection(_PLUGIN_ASSET_PREFIX, plugin_asset_cls.plugin_name)
    return instance


def get_all_plugin_assets(graph=None):
    """Every `PluginAsset` instance of a graph, in the order they were made.

    Args:
        graph: The graph to get the assets from (default: the default graph).

    Returns:
        A list of the `PluginAsset` instances.

    Raises:
        ValueError: If the collection of a plugin holds other than one item.
    """
    if graph is None:
        graph = ops.get_default_graph()

    out = []
    for name in graph.get_collection(_PLUGIN_ASSET_PREFIX):
        collection = graph.get_collection(_PLUGIN_ASSET_PREFIX + name)
        if len(collection) != 1:
            raise ValueError(f"Collection for {name} had {len(collection)} items, expected 1")
        out.append(collection[0])
    return out


class PluginAsset(metaclass=abc.ABCMeta):
    """The base class of the assets a TensorBoard plugin writes next to the event files.

    A subclass has a unique `plugin_name` and an `assets` method returning
    `{asset_name: asset_contents}` (contents are strings).

    Life cycle of an instance: it is made when `get_plugin_asset` is first called
    with its class for a graph; code building the graph then configures it; when a
    `tf.summary.FileWriter` writes the graph, it calls `assets()` and writes each
    asset to `<logdir>/plugins/<plugin_name>/<asset_name>`.
    """

    plugin_name: str | None = None

    @abc.abstractmethod
    def assets(self):
        """All the assets of this instance: a dict `{asset_name: asset_contents}`.

        `tf.summary.FileWriter` calls it when it writes the graph.
        """
        raise NotImplementedError()
