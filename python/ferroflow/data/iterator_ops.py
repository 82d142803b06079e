"""`tf.data.Iterator` (TF 1.x): a session resource that yields a dataset's elements.

The resource (`IteratorV2`, `OneShotIterator` or `IteratorFromStringHandleV2`) holds
the running native pipeline; `get_next()` builds an `IteratorGetNext` op that pulls
one element per run and raises `OutOfRangeError` at the end.
"""

from __future__ import annotations

from .._compat import zip_strict
from ..framework import dtypes, ops, tensor_shape
from ..framework.sparse_tensor import SparseTensor
from . import _structure as structure


class Iterator(structure.Structured):
    """An iterator over a dataset's elements (TF-1.x graph mode).

    ```python
    iterator = dataset.make_initializable_iterator()
    next_element = iterator.get_next()
    sess.run(iterator.initializer)
    while True:
        try:
            sess.run(next_element)
        except tf.errors.OutOfRangeError:
            break
    ```
    """

    def __init__(self, iterator_resource, initializer, element_structure):
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._structure = element_structure
        self._string_handle = iterator_resource.graph._create_op(
            "IteratorToStringHandle", [iterator_resource], {}, name="IteratorToStringHandle"
        ).outputs[0]

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None):
        """A reinitializable iterator for datasets of this structure (`make_initializer`)."""
        specs = _specs(output_types, output_shapes, output_classes)
        attrs = {"container": "", "shared_name": shared_name or "", **structure.flat_attrs(specs)}
        resource = ops.get_default_graph()._create_op("IteratorV2", [], attrs, name="IteratorV2")
        return Iterator(resource.outputs[0], None, specs)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None, output_classes=None):
        """A feedable iterator: the iterator whose `string_handle()` is fed as `string_handle`."""
        specs = _specs(output_types, output_shapes, output_classes)
        handle = ops.convert_to_tensor(string_handle, dtype=dtypes.string)
        resource = handle.graph._create_op(
            "IteratorFromStringHandleV2",
            [handle],
            structure.flat_attrs(specs),
            name="IteratorFromStringHandleV2",
        )
        return Iterator(resource.outputs[0], None, specs)

    @property
    def initializer(self):
        """The op that (re)starts this iterator on its dataset.

        Raises:
            ValueError: If the iterator has no initializer (one-shot, or made with
                `from_structure`: use `make_initializer`).
        """
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """An op that starts this iterator on `dataset` (of this iterator's structure).

        Raises:
            TypeError: If `dataset`'s classes, types or shapes do not match.
            ValueError: If its nesting differs.
        """
        structure.assert_same_structure(self._structure, dataset._structure)
        if dataset.output_classes != self.output_classes:
            raise TypeError(
                f"Expected output classes {self.output_classes!r} but got dataset with output "
                f"class {dataset.output_classes!r}."
            )
        if dataset.output_types != self.output_types:
            raise TypeError(
                f"Expected output types {self.output_types!r} but got dataset with output "
                f"types {dataset.output_types!r}."
            )
        for mine, theirs in zip_strict(
            structure.flatten(self._structure), structure.flatten(dataset._structure)
        ):
            if not mine.shape.is_compatible_with(theirs.shape):
                raise TypeError(
                    f"Expected output shapes compatible with {self.output_shapes!r} but got "
                    f"dataset with output shapes {dataset.output_shapes!r}."
                )
        with ops.name_scope(name, "make_initializer") as scope:
            return dataset._variant_tensor.graph._create_op(
                "MakeIterator", [dataset._variant_tensor, self._iterator_resource], {}, name=scope
            )

    def get_next(self, name=None):
        """The next element's tensors, nested as the dataset's elements.

        Each run of them pulls one element; past the end the run raises
        `tf.errors.OutOfRangeError`.
        """
        g = self._iterator_resource.graph
        op = g._create_op(
            "IteratorGetNext",
            [self._iterator_resource],
            structure.flat_attrs(self._structure),
            name=name or "IteratorGetNext",
        )
        return structure.pack_components(self._structure, op.outputs)

    def string_handle(self, name=None):
        """A string scalar naming this iterator, to feed `from_string_handle` iterators."""
        if name is None:
            return self._string_handle
        return self._iterator_resource.graph._create_op(
            "IteratorToStringHandle", [self._iterator_resource], {}, name=name
        ).outputs[0]


def _specs(output_types, output_shapes, output_classes=None):
    output_types = structure.map_structure(dtypes.as_dtype, output_types)
    if output_shapes is not None and not structure.is_nested(output_types):
        output_shapes = tensor_shape.as_shape(output_shapes)
    specs = structure.from_types_and_shapes(output_types, output_shapes)
    if output_classes is None:
        return specs
    classes = structure.flatten_up_to(output_types, output_classes)
    return structure.pack_as(
        specs,
        [
            structure._SparseSpec(s.dtype, s.shape) if c is SparseTensor else s
            for s, c in zip_strict(structure.flatten(specs), classes)
        ],
    )


def make_saveable_from_iterator(iterator, external_state_policy=None):
    """A saveable object for `iterator`: a `Saver` that saves it resumes it mid-epoch.

    ```python
    saveable = tf.data.experimental.make_saveable_from_iterator(iterator)
    tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS, saveable)
    saver = tf.train.Saver()
    ```

    The checkpoint keeps the iterator's position; restoring it needs the iterator
    initialized (its initializer run, or a one-shot iterator), as the position is
    replayed over its dataset (shuffles take the saved seeds).
    """
    from ..train.saver import BaseSaverBuilder

    class IteratorSaveable(BaseSaverBuilder.SaveableObject):
        def __init__(self, resource, name):
            graph = resource.graph
            state = graph._create_op(
                "SerializeIterator", [resource], {}, name="SerializeIterator"
            ).outputs[0]
            specs = [BaseSaverBuilder.SaveSpec(state, "", name + "_STATE")]
            super().__init__(resource, specs, name)

        def restore(self, restored_tensors, restored_shapes):
            return self.op.graph._create_op(
                "DeserializeIterator",
                [self.op, restored_tensors[0]],
                {},
                name="DeserializeIterator",
            )

    resource = iterator._iterator_resource
    return IteratorSaveable(resource, resource.op.name)


def make_one_shot_iterator(dataset):
    """`dataset.make_one_shot_iterator()` (`tf.compat.v1.data.make_one_shot_iterator`)."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """`dataset.make_initializable_iterator(shared_name)`."""
    return dataset.make_initializable_iterator(shared_name)


def get_output_types(dataset_or_iterator):
    """The `output_types` of a dataset or iterator."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    """The `output_shapes` of a dataset or iterator."""
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    """The `output_classes` of a dataset or iterator."""
    return dataset_or_iterator.output_classes
