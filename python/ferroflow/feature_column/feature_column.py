"""The feature column abstraction and the models over it (TF-1.x's `feature_column.py`).

A feature column says how one raw feature (or a combination of them) becomes a
model input. Two kinds exist:

* a `_DenseColumn` gives a dense `[batch] + _variable_shape` tensor
  (`_get_dense_tensor`): `numeric_column`, `embedding_column`, `indicator_column`,
  `bucketized_column`;
* a `_CategoricalColumn` gives sparse ids, and optionally weights
  (`_get_sparse_tensors`): the `categorical_column_with_*` columns,
  `bucketized_column`, `crossed_column`, `weighted_categorical_column`.

`input_layer` concatenates dense columns into a model's first layer; `linear_model`
weighs every column (a categorical one as if multi-hot) into `units` logits. Both
transform each feature once through a `_LazyBuilder` (a transformation cache), and
name their variables exactly as TensorFlow does (`input_layer/<col>_embedding/
embedding_weights`, `linear_model/<col>/weights`, `linear_model/bias_weights`), with
the partitioner of the enclosing variable scope, so that checkpoints interchange with
TensorFlow's and `tf.train.warm_start` finds them.

The columns themselves are in `columns.py`.
"""

from __future__ import annotations

import collections
import collections.abc
import logging

from ..framework import dtypes, ops
from ..framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from ..ops import (
    array_ops,
    check_ops,
    control_flow_ops,
    init_ops,
    math_ops,
    nn_ops,
    sparse_ops,
    variable_scope,
)
from ..ops import template as template_lib
from ..ops.embedding_ops import safe_embedding_lookup_sparse
from ..ops.sparse_ops import gather_nd
from ..ops.variables import PartitionedVariable, Variable

__all__ = ["InputLayer", "input_layer", "linear_model", "make_parse_example_spec"]

_log = logging.getLogger(__name__)


# -- the abstract columns --------------------------------------------------------------
class _FeatureColumn:
    """A feature column: how a raw feature becomes a model input (TF's `_FeatureColumn`).

    Subclasses (namedtuples, so that equal columns are equal and hash alike) define
    `name`, `_transform_feature` and `_parse_example_spec`.
    """

    @property
    def name(self) -> str:
        """The column's name, used for naming variables and name scopes."""
        raise NotImplementedError

    def __lt__(self, other):
        """Orders columns by their text, so that they sort as in Python 2 (TF's)."""
        return str(self) < str(other)

    def __gt__(self, other):
        """Orders columns by their text (see `__lt__`)."""
        return str(self) > str(other)

    @property
    def _var_scope_name(self):
        """The name of the variable scope the column's variables live in."""
        return self.name

    def _transform_feature(self, inputs):
        """The column's intermediate representation, built from `inputs` (a `_LazyBuilder`)."""
        raise NotImplementedError

    @property
    def _parse_example_spec(self):
        """`{feature key: FixedLenFeature or VarLenFeature}` for `tf.parse_example`."""
        raise NotImplementedError

    @property
    def parse_example_spec(self):
        """The public name of `_parse_example_spec` (TF's v2 columns have both)."""
        return self._parse_example_spec

    def _reset_config(self):
        """Resets state some columns keep between models (none here)."""


class _DenseColumn(_FeatureColumn):
    """A column represented as a dense `Tensor` (TF's `_DenseColumn`)."""

    @property
    def _variable_shape(self):
        """The `TensorShape` of `_get_dense_tensor`'s result, without the batch dimension."""
        raise NotImplementedError

    @property
    def variable_shape(self):
        """The public name of `_variable_shape` (TF's v2 columns have both)."""
        return self._variable_shape

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        """The dense `[batch] + _variable_shape` tensor of the column.

        Args:
            inputs: A `_LazyBuilder`.
            weight_collections: Collections for the variables the column makes.
            trainable: Whether those variables are trainable.
        """
        raise NotImplementedError


class _CategoricalColumn(_FeatureColumn):
    """A column of sparse ids, with optional weights (TF's `_CategoricalColumn`)."""

    IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])

    @property
    def _num_buckets(self):
        """The number of distinct ids (the rows of a weight or embedding table)."""
        raise NotImplementedError

    @property
    def num_buckets(self):
        """The public name of `_num_buckets` (TF's v2 columns have both)."""
        return self._num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        """An `IdWeightPair`: int64 id `SparseTensor`, and float weights or None (all 1).

        Args:
            inputs: A `_LazyBuilder`.
            weight_collections: Collections for the variables the column makes.
            trainable: Whether those variables are trainable.
        """
        raise NotImplementedError


# -- the transformation cache ----------------------------------------------------------
class _LazyBuilder:
    """Transforms each feature column once, caching the result (TF's `_LazyBuilder`).

    A column used by several others (a bucketized column on its own and in a cross)
    is transformed once. Raw features (string keys) are converted to tensors or
    sparse tensors and, when of rank 1, given a second dimension.
    """

    def __init__(self, features):
        """Caches transformations of `features` (a `{key: tensor or SparseTensor}` mapping).

        A key may also be a `_FeatureColumn`: its value is then taken as that column's
        transformed output.
        """
        self._features = features.copy()
        self._feature_tensors: dict = {}

    def get(self, key):
        """The tensor for `key`: a raw feature (a string) or a column's transformed output.

        Raises:
            ValueError: The feature is missing, or the column transforms to nothing.
            TypeError: `key` is neither a string nor a `_FeatureColumn`.
        """
        if key in self._feature_tensors:
            return self._feature_tensors[key]
        if key in self._features:
            feature_tensor = self._get_raw_feature_as_tensor(key)
            self._feature_tensors[key] = feature_tensor
            return feature_tensor
        if isinstance(key, str):
            raise ValueError(f"Feature {key} is not in features dictionary.")
        if not isinstance(key, _FeatureColumn):
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Provided: {key}')
        column = key
        _log.debug("Transforming feature_column %s.", column)
        transformed = column._transform_feature(self)
        if transformed is None:
            raise ValueError(f"Column {column.name} is not supported.")
        self._feature_tensors[column] = transformed
        return transformed

    def _get_raw_feature_as_tensor(self, key):
        """The raw feature as a (sparse) tensor of rank >= 2 (rank 1 gets a 2nd dimension).

        Raises:
            ValueError: The feature has rank 0.
        """
        raw_feature = self._features[key]
        feature_tensor = convert_to_tensor_or_sparse_tensor(raw_feature)

        def expand_dims(input_tensor):
            if isinstance(input_tensor, SparseTensor):
                return sparse_ops.sparse_reshape(
                    input_tensor, [array_ops.shape(input_tensor)[0], 1]
                )
            return array_ops.expand_dims(input_tensor, -1)

        rank = feature_tensor.get_shape().ndims
        if rank is not None:
            if rank == 0:
                raise ValueError(
                    f"Feature (key: {key}) cannot have rank 0. Given: {feature_tensor}"
                )
            return feature_tensor if rank != 1 else expand_dims(feature_tensor)
        # A rank known only when run.
        with ops.control_dependencies(
            [
                check_ops.assert_positive(
                    array_ops.rank(feature_tensor),
                    message=f"Feature (key: {key}) cannot have rank 0. Given: {feature_tensor}",
                )
            ]
        ):
            return control_flow_ops.cond(
                math_ops.equal(1, array_ops.rank(feature_tensor)),
                lambda: expand_dims(feature_tensor),
                lambda: feature_tensor,
            )


# -- helpers ---------------------------------------------------------------------------
def _to_sparse_input_and_drop_ignore_values(input_tensor, ignore_value=None):
    """`input_tensor` as a `SparseTensor` without the cells equal to `ignore_value`.

    A `SparseTensor` is returned as it is. `ignore_value` defaults to `""` for
    strings, -1 for integers and 0 otherwise.
    """
    input_tensor = convert_to_tensor_or_sparse_tensor(input_tensor)
    if isinstance(input_tensor, SparseTensor):
        return input_tensor
    with ops.name_scope(None, "to_sparse_input", [input_tensor]):
        if ignore_value is None:
            if input_tensor.dtype == dtypes.string:
                ignore_value = ""
            elif input_tensor.dtype.is_integer:
                ignore_value = -1  # -1 means a missing feature
            else:
                ignore_value = input_tensor.dtype.as_numpy_dtype()
        ignore_value = array_ops.cast(ignore_value, input_tensor.dtype, name="ignore_value")
        indices = array_ops.where(math_ops.not_equal(input_tensor, ignore_value), name="indices")
        return SparseTensor(
            indices=indices,
            values=gather_nd(input_tensor, indices, name="values"),
            dense_shape=array_ops.shape(input_tensor, out_type=dtypes.int64, name="dense_shape"),
        )


def _sparse_cast(sp_input, dtype, name=None):
    """`sp_input` (a `Tensor` or `SparseTensor`) with its values cast to `dtype`."""
    if isinstance(sp_input, SparseTensor):
        return SparseTensor(
            sp_input.indices,
            array_ops.cast(sp_input.values, dtype, name=name),
            sp_input.dense_shape,
        )
    return array_ops.cast(sp_input, dtype, name=name)


def _normalize_feature_columns(feature_columns) -> list:
    """`feature_columns` as a list, checked.

    Raises:
        ValueError: It is a dict, empty, holds a non-column, or two columns of one name.
    """
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, collections.abc.Iterator):
        feature_columns = list(feature_columns)
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(
                f"Items of feature_columns must be a _FeatureColumn. Given (type "
                f"{type(column)}): {column}."
            )
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    name_to_column: dict = {}
    for column in feature_columns:
        if column.name in name_to_column:
            raise ValueError(
                f"Duplicate feature column name found for columns: {column} and "
                f"{name_to_column[column.name]}. This usually means that these columns refer "
                "to same base feature. Either one must be discarded or a duplicated but "
                "renamed item must be inserted in features dict."
            )
        name_to_column[column.name] = column
    return list(feature_columns)


def _verify_static_batch_size_equality(tensors, columns) -> None:
    """Checks that the tensors' static batch sizes (first dimensions) agree.

    Raises:
        ValueError: Two differ.
    """
    expected_batch_size = None
    batch_size_column_index = 0
    for i, tensor in enumerate(tensors):
        dims = tensor.shape.dims
        if dims is None or dims[0].value is None:
            continue
        if expected_batch_size is None:
            batch_size_column_index = i
            expected_batch_size = dims[0]
        elif not expected_batch_size.is_compatible_with(dims[0]):
            raise ValueError(
                "Batch size (first dimension) of each feature must be same. Batch size of "
                f"columns ({columns[batch_size_column_index].name}, {columns[i].name}): "
                f"({expected_batch_size}, {dims[0]})"
            )


def _strip_leading_slashes(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def _weight_collections(weight_collections) -> list:
    """`weight_collections` with the global and model variable collections added."""
    collections_ = list(weight_collections or [])
    if ops.GraphKeys.GLOBAL_VARIABLES not in collections_:
        collections_.append(ops.GraphKeys.GLOBAL_VARIABLES)
    if ops.GraphKeys.MODEL_VARIABLES not in collections_:
        collections_.append(ops.GraphKeys.MODEL_VARIABLES)
    return collections_


def _add_to_collections(var, weight_collections) -> None:
    """Adds `var` (or each part of a partitioned `var`) to `weight_collections`.

    The global variables collection is skipped: `get_variable` added it there.
    """
    for collection in weight_collections:
        if collection == ops.GraphKeys.GLOBAL_VARIABLES:
            continue
        if isinstance(var, PartitionedVariable):
            for part in list(var):
                ops.add_to_collection(collection, part)
        else:
            ops.add_to_collection(collection, var)


# -- input_layer -----------------------------------------------------------------------
def _internal_input_layer(
    features,
    feature_columns,
    weight_collections=None,
    trainable=True,
    cols_to_vars=None,
    scope=None,
    cols_to_output_tensors=None,
    from_template=False,
):
    """`input_layer` in the variable scope `scope` (default `input_layer`)."""
    feature_columns = _normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, _DenseColumn):
            raise ValueError(
                "Items of feature_columns must be a _DenseColumn. You can wrap a "
                "categorical column with an embedding_column or indicator_column. "
                f"Given: {column}"
            )
    weight_collections = _weight_collections(weight_collections)

    def _get_logits():
        builder = _LazyBuilder(features)
        output_tensors = []
        ordered_columns = []
        for column in sorted(feature_columns, key=lambda x: x.name):
            ordered_columns.append(column)
            with variable_scope.variable_scope(None, default_name=column._var_scope_name):
                tensor = column._get_dense_tensor(
                    builder, weight_collections=weight_collections, trainable=trainable
                )
                num_elements = column._variable_shape.num_elements()
                batch_size = array_ops.shape(tensor)[0]
                output_tensor = array_ops.reshape(tensor, shape=(batch_size, num_elements))
                output_tensors.append(output_tensor)
                if cols_to_vars is not None:
                    # The variables the column made (none for most dense columns).
                    cols_to_vars[column] = ops.get_collection(
                        ops.GraphKeys.GLOBAL_VARIABLES,
                        scope=variable_scope.get_variable_scope().name,
                    )
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output_tensor
        _verify_static_batch_size_equality(output_tensors, ordered_columns)
        return array_ops.concat(output_tensors, 1)

    if from_template:
        # `make_template` opened the layer's variable scope already.
        return _get_logits()
    with variable_scope.variable_scope(
        scope, default_name="input_layer", values=list(features.values())
    ):
        return _get_logits()


def input_layer(
    features,
    feature_columns,
    weight_collections=None,
    trainable=True,
    cols_to_vars=None,
    cols_to_output_tensors=None,
):
    """A dense `[batch, total dimension]` tensor: the dense columns, concatenated.

    Columns are taken in the order of their names; each one's output is flattened to
    `[batch, prod(_variable_shape)]`. Variables (embeddings) are created under
    `input_layer/<column name>/`.

    Example:
        ```python
        price = tf.feature_column.numeric_column("price")
        keywords = tf.feature_column.embedding_column(
            tf.feature_column.categorical_column_with_hash_bucket("keywords", 10000), 16)
        features = tf.parse_example(
            serialized, tf.feature_column.make_parse_example_spec([price, keywords]))
        net = tf.feature_column.input_layer(features, [price, keywords])
        ```

    Args:
        features: `{key: Tensor or SparseTensor}`, the raw features the columns read.
        feature_columns: `_DenseColumn`s (wrap categorical columns in
            `embedding_column` or `indicator_column`).
        weight_collections: Collections for the variables, besides the global and
            model variables.
        trainable: Whether the variables are trainable.
        cols_to_vars: A dict, filled with `{column: [variables it made]}`.
        cols_to_output_tensors: A dict, filled with `{column: its output tensor}`.

    Returns:
        A float32 tensor `[batch, sum of the columns' dimensions]`.

    Raises:
        ValueError: A column is not a `_DenseColumn`.
    """
    return _internal_input_layer(
        features,
        feature_columns,
        weight_collections=weight_collections,
        trainable=trainable,
        cols_to_vars=cols_to_vars,
        cols_to_output_tensors=cols_to_output_tensors,
    )


class InputLayer:
    """`input_layer` as an object: every call reuses the variables of the first one."""

    def __init__(
        self,
        feature_columns,
        weight_collections=None,
        trainable=True,
        cols_to_vars=None,
        name="feature_column_input_layer",
        create_scope_now=True,
    ):
        """An input layer over `feature_columns` (see `input_layer` for the arguments).

        `name` names the layer's variable scope, opened now if `create_scope_now`.
        """
        self._feature_columns = feature_columns
        self._weight_collections = weight_collections
        self._trainable = trainable
        self._cols_to_vars = cols_to_vars
        self._name = name
        self._input_layer_template = template_lib.make_template(
            self._name, _internal_input_layer, create_scope_now_=create_scope_now
        )
        self._scope = self._input_layer_template.variable_scope

    def __call__(self, features):
        """The input layer's tensor for `features` (see `input_layer`)."""
        return self._input_layer_template(
            features=features,
            feature_columns=self._feature_columns,
            weight_collections=self._weight_collections,
            trainable=self._trainable,
            cols_to_vars=None,
            from_template=True,
        )

    @property
    def name(self):
        """The layer's name."""
        return self._name

    @property
    def non_trainable_variables(self):
        """The layer's non-trainable variables."""
        return self._input_layer_template.non_trainable_variables

    @property
    def non_trainable_weights(self):
        """The layer's non-trainable variables."""
        return self.non_trainable_variables

    @property
    def trainable_variables(self):
        """The layer's trainable variables."""
        return self._input_layer_template.trainable_variables

    @property
    def trainable_weights(self):
        """The layer's trainable variables."""
        return self.trainable_variables

    @property
    def variables(self):
        """All the layer's variables."""
        return self._input_layer_template.variables

    @property
    def weights(self):
        """All the layer's variables."""
        return self.variables


# -- linear_model ----------------------------------------------------------------------
def _create_weighted_sum(
    column, builder, units, sparse_combiner, weight_collections, trainable, weight_var
):
    """The `[batch, units]` weighted sum of one column, for `linear_model`."""
    if isinstance(column, _CategoricalColumn):
        return _create_categorical_column_weighted_sum(
            column, builder, sparse_combiner, weight_collections, trainable, weight_var
        )
    return _create_dense_column_weighted_sum(
        column, builder, weight_collections, trainable, weight_var
    )


def _create_dense_column_weighted_sum(column, builder, weight_collections, trainable, weight):
    """`matmul(flattened dense tensor, weight)`."""
    tensor = column._get_dense_tensor(
        builder, weight_collections=weight_collections, trainable=trainable
    )
    num_elements = column._variable_shape.num_elements()
    batch_size = array_ops.shape(tensor)[0]
    tensor = array_ops.reshape(tensor, shape=(batch_size, num_elements))
    return math_ops.matmul(tensor, weight, name="weighted_sum")


def _create_categorical_column_weighted_sum(
    column, builder, sparse_combiner, weight_collections, trainable, weight
):
    """The sum of the weights' rows at the column's ids (a multi-hot product).

    It is an embedding lookup of the weights, combined by `sparse_combiner`.
    """
    sparse_tensors = column._get_sparse_tensors(
        builder, weight_collections=weight_collections, trainable=trainable
    )
    id_tensor = sparse_ops.sparse_reshape(
        sparse_tensors.id_tensor, [array_ops.shape(sparse_tensors.id_tensor)[0], -1]
    )
    weight_tensor = sparse_tensors.weight_tensor
    if weight_tensor is not None:
        weight_tensor = sparse_ops.sparse_reshape(
            weight_tensor, [array_ops.shape(weight_tensor)[0], -1]
        )
    return safe_embedding_lookup_sparse(
        weight,
        id_tensor,
        sparse_weights=weight_tensor,
        combiner=sparse_combiner,
        name="weighted_sum",
    )


def _expanded_variable_list(variable) -> list:
    if isinstance(variable, Variable):
        return [variable]
    return list(variable)


class _LinearModel:
    """The linear model over feature columns (TF's `_LinearModel` layer).

    One `<model>/<column>/weights` variable per column (`[num_buckets, units]` for a
    categorical column, `[dimension, units]` for a dense one), and
    `<model>/bias_weights`, all zero-initialized, in the order TF creates them.
    """

    def __init__(
        self,
        feature_columns,
        units=1,
        sparse_combiner="sum",
        weight_collections=None,
        trainable=True,
        name=None,
    ):
        self._feature_columns = _normalize_feature_columns(feature_columns)
        self._weight_collections = _weight_collections(weight_collections)
        self._units = units
        self._sparse_combiner = sparse_combiner
        self._trainable = trainable
        self.name = name
        # TF names each column's layer here, in the enclosing scope: a name two
        # columns share (shared embeddings) becomes `name_1` for the second.
        self._column_names = []
        for column in sorted(self._feature_columns, key=lambda x: x.name):
            with variable_scope.variable_scope(None, default_name=column._var_scope_name) as vs:
                self._column_names.append((_strip_leading_slashes(vs.name), column))
        self._cols_to_vars: dict = {}

    def cols_to_vars(self) -> dict:
        """`{column: [its variables]}` and `{"bias": [the bias]}`, once called."""
        return self._cols_to_vars

    def _weight_variable(self, name, shape):
        var = variable_scope.get_variable(
            name=name,
            shape=shape,
            dtype=dtypes.float32,
            initializer=init_ops.zeros_initializer(),
            trainable=self._trainable,
        )
        _add_to_collections(var, self._weight_collections)
        return var

    def __call__(self, features):
        """The `[batch, units]` predictions for `features`.

        Raises:
            ValueError: A column is neither dense nor categorical.
        """
        with ops.name_scope(self.name), variable_scope.variable_scope(self.name):
            for column in self._feature_columns:
                if not isinstance(column, (_DenseColumn, _CategoricalColumn)):
                    raise ValueError(
                        "Items of feature_columns must be either a _DenseColumn or "
                        f"_CategoricalColumn. Given: {column}"
                    )
            weighted_sums = []
            ordered_columns = []
            builder = _LazyBuilder(features)
            for column_name, column in sorted(self._column_names, key=lambda x: x[0]):
                ordered_columns.append(column)
                with variable_scope.variable_scope(None, default_name=column_name) as vs:
                    if isinstance(column, _CategoricalColumn):
                        shape = [column._num_buckets, self._units]
                    else:
                        shape = [column._variable_shape.num_elements(), self._units]
                    weight = self._weight_variable("weights", shape)
                    weighted_sums.append(
                        _create_weighted_sum(
                            column,
                            builder,
                            self._units,
                            self._sparse_combiner,
                            self._weight_collections,
                            self._trainable,
                            weight,
                        )
                    )
                    self._cols_to_vars[column] = ops.get_collection(
                        ops.GraphKeys.GLOBAL_VARIABLES, scope=vs.name
                    )
            _verify_static_batch_size_equality(weighted_sums, ordered_columns)
            predictions_no_bias = math_ops.add_n(weighted_sums, name="weighted_sum_no_bias")
            bias = self._weight_variable("bias_weights", [self._units])
            predictions = nn_ops.bias_add(predictions_no_bias, bias, name="weighted_sum")
            # As TF's (its bias layer's first variable): a partitioned bias gives its
            # first part only.
            first = bias if isinstance(bias, Variable) else next(iter(bias))
            self._cols_to_vars["bias"] = _expanded_variable_list(first)
        return predictions


def linear_model(
    features,
    feature_columns,
    units=1,
    sparse_combiner="sum",
    weight_collections=None,
    trainable=True,
    cols_to_vars=None,
):
    """`units` logits: a weighted sum of the feature columns, plus a bias.

    A dense column contributes `matmul(its flattened tensor, weights)`; a categorical
    column is taken as multi-hot, so it contributes the sum of the weights' rows at
    its ids (`sparse_combiner` "mean" or "sqrtn" normalizes that sum per example, by
    the number of ids or the square root of the sum of the squared weights). The
    variables, all zeros at first, are `linear_model/<column name>/weights` and
    `linear_model/bias_weights`; the enclosing variable scope's partitioner splits
    them.

    Example:
        ```python
        price = tf.feature_column.numeric_column("price")
        buckets = tf.feature_column.bucketized_column(price, [0., 10., 100.])
        keywords = tf.feature_column.categorical_column_with_hash_bucket("keywords", 10000)
        logits = tf.feature_column.linear_model(features, [buckets, keywords])
        ```

    Args:
        features: `{key: Tensor or SparseTensor}`, the raw features the columns read.
        feature_columns: `_DenseColumn`s and `_CategoricalColumn`s.
        units: The number of outputs.
        sparse_combiner: `"sum"` (default), `"mean"` or `"sqrtn"`.
        weight_collections: Collections for the variables, besides the global and
            model variables.
        trainable: Whether the variables are trainable.
        cols_to_vars: A dict, filled with `{column: [its variables]}` and
            `{"bias": [the bias variable]}`.

    Returns:
        A float32 tensor `[batch, units]`.

    Raises:
        ValueError: A column is neither dense nor categorical.
    """
    with variable_scope.variable_scope(None, "linear_model") as vs:
        model_name = _strip_leading_slashes(vs.name)
    model = _LinearModel(
        feature_columns=feature_columns,
        units=units,
        sparse_combiner=sparse_combiner,
        weight_collections=weight_collections,
        trainable=trainable,
        name=model_name,
    )
    retval = model(features)
    if cols_to_vars is not None:
        cols_to_vars.update(model.cols_to_vars())
    return retval


# -- parsing and transforming ----------------------------------------------------------
def _transform_features(features, feature_columns) -> dict:
    """`{column: its transformed Tensor or SparseTensor}` for `feature_columns`."""
    feature_columns = _normalize_feature_columns(feature_columns)
    outputs = {}
    with ops.name_scope(None, "transform_features", list(features.values())):
        builder = _LazyBuilder(features)
        for column in sorted(feature_columns, key=lambda x: x.name):
            with ops.name_scope(None, column.name):
                outputs[column] = builder.get(column)
    return outputs


def make_parse_example_spec(feature_columns) -> dict:
    """The `tf.parse_example` spec of `feature_columns`: `{key: FixedLenFeature/VarLenFeature}`.

    Example:
        ```python
        columns = [tf.feature_column.numeric_column("price"),
                   tf.feature_column.categorical_column_with_hash_bucket("kw", 100)]
        spec = tf.feature_column.make_parse_example_spec(columns)
        # {"price": FixedLenFeature([1], tf.float32), "kw": VarLenFeature(tf.string)}
        features = tf.parse_example(serialized, spec)
        ```

    Raises:
        ValueError: An item is not a `_FeatureColumn`, or two columns give one key
            different specs.
    """
    result: dict = {}
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(
                f"All feature_columns must be _FeatureColumn instances. Given: {column}"
            )
        config = column._parse_example_spec
        for key, value in config.items():
            if key in result and value != result[key]:
                raise ValueError(
                    f"feature_columns contain different parse_spec for key {key}. Given "
                    f"{value} and {result[key]}"
                )
        result.update(config)
    return result


def _check_shape(shape, key) -> tuple:
    """`shape` (an int or a sequence of ints) as a tuple of positive ints.

    Raises:
        TypeError: A dimension is not an int.
        ValueError: A dimension is below 1.
    """
    if not isinstance(shape, (list, tuple)):
        shape = [shape]
    shape = tuple(shape)
    for dimension in shape:
        if not isinstance(dimension, int):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if dimension < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, key: {key}")
    return shape
