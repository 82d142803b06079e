//! The op registry. Adding an op is one `r.add(OpDef::new(...))` line in the module
//! of its family plus its shape function, and its CPU kernel in `kernels/<family>.rs`.
//! The row is split into three registries: the op's schema ([`OpDef`]: inputs,
//! statefulness, shape function), its CPU kernel (into [`crate::kernels::registry`],
//! where backends add theirs) and its gradient (looked up with [`gradient`]).
mod array;
pub use array::DEVICE_COPY;
mod candidate_sampling;
mod compare;
mod complex;
pub(crate) mod control_flow;
mod conv;
mod data;
mod data_flow;
mod functional;
mod image;
pub(crate) mod indexing;
pub(crate) mod io;
pub use crate::kernels::io::{Checkpoint, restore_tensor};
mod layout;
mod logging;
mod lookup;
mod math;
mod nn;
mod partition;
mod random;
mod reader;
mod reduce;
mod rnn;
mod script;
pub mod sendrecv;
mod sparse;
mod state;
mod strings;
mod summary;
mod tensor_array;
pub mod training;

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use crate::autodiff::GradFn;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, FromAttr, OutputSpec, read_attr};
use crate::kernels::registry::KernelDef;
use crate::kernels::{KernelBuild, OpKernel};
use crate::shape::PartialShape;
use crate::tensor::Tensor;

/// Shape-inference function: the output types of a node from its inputs and attrs.
pub type InferFn = fn(InferCtx<'_>) -> Result<Vec<OutputSpec>>;
/// Kernel factory: builds the kernel of one node once per plan.
pub type KernelFn = fn(&KernelBuild<'_>) -> Result<Box<dyn OpKernel>>;

/// How an op takes part in `tf.gradients`.
#[derive(Clone, Copy)]
pub enum Gradient {
    /// No gradient registered: differentiating through the op is a `LookupError`.
    Missing,
    /// The op has no gradient by definition (shapes, comparisons, `StopGradient`):
    /// its inputs receive none.
    NotDifferentiable,
    /// The function that adds the op's gradient to the graph.
    Fn(GradFn),
}

/// The schema of one op type.
pub struct OpDef {
    /// Type name, as in a GraphDef (`MatMul`).
    pub name: &'static str,
    /// Input names; with `variadic`, the last one repeats (`values` of `AddN`).
    pub inputs: &'static [&'static str],
    /// Whether the last input takes any number of tensors.
    pub variadic: bool,
    /// The fewest tensors a variadic last input takes (1, or 0 for TF's `list(type)`).
    pub variadic_min: usize,
    /// Inputs that must be variable references (`ref` in TF's OpDef).
    pub ref_inputs: &'static [usize],
    /// Whether the op has side effects or reads state (never folded or cached).
    pub stateful: bool,
    /// Whether its output is its first input unchanged (`Identity`): a consumer that
    /// must see a variable's latest value may read the variable behind it instead.
    pub forwards_input: bool,
    /// Whether feeding its output also satisfies the control edges out of it (TF's
    /// `Placeholder`: a fed placeholder's control edges are redirected to the feed).
    pub feed_satisfies_control: bool,
    /// How the planner estimates its work.
    pub cost: Cost,
    /// Shape and dtype inference.
    pub infer: InferFn,
}

/// How the planner estimates an op's work from its static shapes (to decide whether a
/// plan is worth spreading over threads).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Cost {
    /// One operation per element of its largest side (inputs or outputs).
    #[default]
    Elementwise,
    /// A contraction (`MatMul`): each output element is a dot product along the
    /// shared dimension.
    Contraction,
}

/// One registration row: an op's schema, its CPU kernel and its gradient, which
/// [`Registry::add`] files into their three registries.
pub struct OpRow {
    schema: OpDef,
    kernel: KernelFn,
    kernel_types: Option<(&'static str, &'static [DType])>,
    grad: Gradient,
}

impl OpDef {
    /// The row of a stateless op with fixed inputs, its shape function and CPU kernel.
    #[allow(clippy::new_ret_no_self)] // the row's face: `OpDef::new(...).grad(...)`
    pub fn new(name: &'static str, inputs: &'static [&'static str], infer: InferFn, kernel: KernelFn) -> OpRow {
        let schema = OpDef {
            name,
            inputs,
            variadic: false,
            variadic_min: 1,
            ref_inputs: &[],
            stateful: false,
            forwards_input: false,
            feed_satisfies_control: false,
            cost: Cost::Elementwise,
            infer,
        };
        OpRow { schema, kernel, kernel_types: None, grad: Gradient::Missing }
    }
    /// The name of input `i`.
    pub fn input_name(&self, i: usize) -> &'static str {
        self.inputs.get(i).or(self.inputs.last()).copied().unwrap_or("input")
    }
    pub(crate) fn check_arity(&self, n: usize) -> Result<()> {
        let fixed = self.inputs.len();
        let ok = if self.variadic { n + 1 >= fixed + self.variadic_min } else { n == fixed };
        if ok { Ok(()) } else { Err(Error::value(format!("{} op expects {} inputs but got {n}", self.name, fixed))) }
    }
}

impl OpRow {
    /// Restricts the CPU kernel to nodes whose type attr `attr` is one of `dtypes` (TF
    /// registers fewer kernels than its OpDef allows: a node of another type builds,
    /// and running it is TF's "No OpKernel was registered" error).
    #[must_use]
    pub fn kernel_types(mut self, attr: &'static str, dtypes: &'static [DType]) -> Self {
        self.kernel_types = Some((attr, dtypes));
        self
    }
    /// Registers the op's gradient function.
    #[must_use]
    pub fn grad(mut self, f: GradFn) -> Self {
        self.grad = Gradient::Fn(f);
        self
    }
    /// Declares the op not differentiable (its inputs get no gradient).
    #[must_use]
    pub fn no_grad(mut self) -> Self {
        self.grad = Gradient::NotDifferentiable;
        self
    }
    /// Marks inputs that must be variable references.
    #[must_use]
    pub fn refs(mut self, ref_inputs: &'static [usize]) -> Self {
        self.schema.ref_inputs = ref_inputs;
        self
    }
    /// Marks the op stateful.
    #[must_use]
    pub fn stateful(mut self) -> Self {
        self.schema.stateful = true;
        self
    }
    /// Declares that the output is the first input unchanged (see
    /// [`OpDef::forwards_input`]).
    #[must_use]
    pub fn forwards_input(mut self) -> Self {
        self.schema.forwards_input = true;
        self
    }
    /// Declares that feeding the op's output satisfies the control edges out of it
    /// (see [`OpDef::feed_satisfies_control`]).
    #[must_use]
    pub fn feed_satisfies_control(mut self) -> Self {
        self.schema.feed_satisfies_control = true;
        self
    }
    /// Sets how the planner estimates the op's work.
    #[must_use]
    pub fn cost(mut self, cost: Cost) -> Self {
        self.schema.cost = cost;
        self
    }
    /// Lets the last input repeat (at least once).
    #[must_use]
    pub fn variadic(mut self) -> Self {
        self.schema.variadic = true;
        self
    }
    /// Lets the last input repeat any number of times, none included.
    #[must_use]
    pub fn variadic_or_empty(mut self) -> Self {
        self.schema.variadic = true;
        self.schema.variadic_min = 0;
        self
    }
}

/// The three registries under construction (see each family's `register`).
#[derive(Default)]
pub(crate) struct Registry {
    schemas: HashMap<&'static str, &'static OpDef>,
    cpu_kernels: Vec<KernelDef>,
    gradients: HashMap<&'static str, Gradient>,
}

impl Registry {
    pub(crate) fn add(&mut self, row: OpRow) {
        let def: &'static OpDef = Box::leak(Box::new(row.schema));
        let previous = self.schemas.insert(def.name, def);
        debug_assert!(previous.is_none(), "op {} registered twice", def.name);
        let mut kernel = KernelDef::new(def.name, crate::device::CPU, row.kernel);
        if let Some((attr, dtypes)) = row.kernel_types {
            kernel = kernel.type_constraint(attr, dtypes);
        }
        self.cpu_kernels.push(kernel);
        self.gradients.insert(def.name, row.grad);
    }
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r = Registry::default();
        array::register(&mut r);
        candidate_sampling::register(&mut r);
        compare::register(&mut r);
        control_flow::register(&mut r);
        conv::register(&mut r);
        data_flow::register(&mut r);
        functional::register(&mut r);
        data::register(&mut r);
        tensor_array::register(&mut r);
        rnn::register(&mut r);
        image::register(&mut r);
        reader::register(&mut r);
        strings::register(&mut r);
        indexing::register(&mut r);
        io::register(&mut r);
        layout::register(&mut r);
        logging::register(&mut r);
        lookup::register(&mut r);
        summary::register(&mut r);
        math::register(&mut r);
        complex::register(&mut r);
        nn::register(&mut r);
        partition::register(&mut r);
        random::register(&mut r);
        reduce::register(&mut r);
        script::register(&mut r);
        sendrecv::register(&mut r);
        sparse::register(&mut r);
        state::register(&mut r);
        training::register(&mut r);
        r
    })
}

/// The definition of op type `name`.
pub fn lookup(name: &str) -> Result<&'static OpDef> {
    registry().schemas.get(name).copied().ok_or_else(|| Error::value(format!("Op type not registered '{name}'")))
}

/// How op type `name` takes part in `tf.gradients` (`Missing` for an unknown op).
pub fn gradient(name: &str) -> Gradient {
    registry().gradients.get(name).copied().unwrap_or(Gradient::Missing)
}

/// The op rows' CPU kernels (the kernel registry starts from them).
pub(crate) fn cpu_kernels() -> &'static [KernelDef] {
    &registry().cpu_kernels
}

/// Every registered op type name, sorted.
pub fn op_names() -> Vec<&'static str> {
    let mut v: Vec<_> = registry().schemas.keys().copied().collect();
    v.sort_unstable();
    v
}

/// What a shape function sees: the node's inputs, and its attrs (which it may complete).
pub struct InferCtx<'a> {
    /// The op definition.
    pub def: &'static OpDef,
    /// The node's name.
    pub name: &'a str,
    /// Static types of the inputs.
    pub inputs: &'a [OutputSpec],
    /// Attributes (shape functions add inferred ones such as `T`).
    pub attrs: &'a mut BTreeMap<String, AttrValue>,
    /// For each input, its value when the producer is a `Const` node.
    pub consts: &'a [Option<Tensor>],
    /// For each int-vector input, what is known of its value as a shape.
    pub shape_values: &'a [Option<PartialShape>],
}

impl InferCtx<'_> {
    /// Static type of input `i`.
    pub fn input(&self, i: usize) -> &OutputSpec {
        &self.inputs[i]
    }
    /// Checks that the given inputs share one dtype, records it as attr `T` and returns it.
    pub fn same_type(&mut self, indices: &[usize]) -> Result<DType> {
        let first = indices[0];
        let t = self.inputs[first].dtype;
        for &i in &indices[1..] {
            let d = self.inputs[i].dtype;
            if d != t {
                return Err(Error::type_error(format!(
                    "Input '{}' of '{}' Op has type {d} that does not match type {t} of argument '{}'.",
                    self.def.input_name(i),
                    self.def.name,
                    self.def.input_name(first)
                )));
            }
        }
        self.attrs.insert("T".into(), AttrValue::Type(t));
        Ok(t)
    }
    /// Fails with TF's `ValueError` when input `i`'s rank is known and is not `rank`.
    pub fn check_rank(&self, i: usize, rank: usize) -> Result<()> {
        match self.inputs[i].shape.rank() {
            Some(r) if r != rank => Err(Error::value(format!(
                "Shape must be rank {rank} but is rank {r} for '{}' (op: '{}') input '{}'",
                self.name,
                self.def.name,
                self.def.input_name(i)
            ))),
            _ => Ok(()),
        }
    }
    /// Fails with TF's message unless `dtype` is one of `allowed`.
    pub fn check_type(&self, input: usize, allowed: &[DType]) -> Result<()> {
        let d = self.inputs[input].dtype;
        if allowed.contains(&d) {
            return Ok(());
        }
        let names: Vec<_> = allowed.iter().map(|a| a.name()).collect();
        Err(Error::type_error(format!(
            "Value passed to parameter '{}' has DataType {d} not in list of allowed values: {}",
            self.def.input_name(input),
            names.join(", ")
        )))
    }
    /// Attr `name` as a `T` (`None` when absent), through the one typed reader
    /// ([`FromAttr`]).
    pub fn attr<T: FromAttr>(&self, name: &str) -> Result<Option<T>> {
        read_attr(self.attrs, self.name, self.def.name, name)
    }
    /// A required attr as a `T`.
    pub fn required_attr<T: FromAttr>(&self, name: &str) -> Result<T> {
        self.attr(name)?
            .ok_or_else(|| Error::value(format!("{} op '{}' is missing attr '{name}'", self.def.name, self.name)))
    }
    /// Attr `name` as a `T`, with a default that is recorded on the node as TF does.
    pub fn attr_or<T: FromAttr>(&mut self, name: &str, default: T) -> Result<T> {
        if !self.attrs.contains_key(name) {
            self.attrs.insert(name.into(), default.into_attr());
        }
        self.required_attr(name)
    }
    /// A required `type` attr.
    pub fn attr_type(&self, name: &str) -> Result<DType> {
        self.required_attr(name)
    }
    /// A `shape` attr (unknown if absent).
    pub fn attr_shape(&self, name: &str) -> Result<PartialShape> {
        Ok(self.attr(name)?.unwrap_or_else(PartialShape::unknown))
    }
    /// A `bool` attr with a default (recorded on the node as TF does).
    pub fn attr_bool(&mut self, name: &str, default: bool) -> Result<bool> {
        self.attr_or(name, default)
    }
    /// An `int` attr with a default (recorded on the node as TF does).
    pub fn attr_int(&mut self, name: &str, default: i64) -> Result<i64> {
        self.attr_or(name, default)
    }
    /// A required `tensor` attr.
    pub fn attr_tensor(&self, name: &str) -> Result<Tensor> {
        self.required_attr(name)
    }
    /// The value of input `i` when its producer is a constant known at construction
    /// time (for shape functions of ops like Reshape and Sum).
    pub fn constant_input(&self, i: usize) -> Option<&Tensor> {
        self.consts.get(i)?.as_ref()
    }
    /// The static shape an int-vector input describes (partially known), e.g. the
    /// output of `Shape(x)` is known to be `x`'s static shape.
    pub fn shape_value(&self, i: usize) -> Option<&PartialShape> {
        self.shape_values.get(i)?.as_ref()
    }
}

/// Reads an int vector from a constant int32/int64 tensor.
pub fn int_values(t: &Tensor) -> Result<Vec<i64>> {
    match t.dtype() {
        DType::Int32 => Ok(t.as_slice::<i32>()?.iter().map(|&v| i64::from(v)).collect()),
        DType::Int64 => Ok(t.as_slice::<i64>()?.to_vec()),
        d => Err(Error::type_error(format!("expected an int32 or int64 tensor, got {d}"))),
    }
}

/// Element counts from an int vector that must be non-negative.
pub(crate) fn dims_from(values: &[i64], what: &str) -> Result<Vec<usize>> {
    values
        .iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| Error::invalid_argument(format!("{what} must be non-negative, got {d}")))
        })
        .collect()
}

/// A shape from the values of a shape argument (`Fill`'s dims, `BroadcastTo`'s shape,
/// the random ops' shape), with the errors of TF's `TensorShapeUtils::MakeShape`.
pub(crate) fn shape_from_values(values: &[i64], what: &str) -> Result<Vec<usize>> {
    let dims = dims_from(values, what)?;
    crate::shape::checked_num_elements(&dims).map_err(|_| {
        Error::invalid_argument(format!(
            "Shape {} would have more than 2**63 - 1 elements",
            crate::shape::fmt_shape(&dims)
        ))
    })?;
    Ok(dims)
}

/// The value of a 0-D int32/int64 tensor (an axis, a depth, a bound); `what` names it
/// in the `InvalidArgumentError` for any other shape.
pub(crate) fn scalar_int(t: &Tensor, what: &str) -> Result<i64> {
    if !t.shape().is_empty() {
        return Err(Error::invalid_argument(format!(
            "{what} must be 0-D, got shape {}",
            crate::shape::fmt_shape(t.shape())
        )));
    }
    Ok(int_values(t)?[0])
}
