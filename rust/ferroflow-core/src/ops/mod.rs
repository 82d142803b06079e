//! The op registry: each op's schema ([`OpDef`]: inputs, statefulness, shape function),
//! as TF's `REGISTER_OP`. Adding an op is one `r.add(OpDef::new(...))` line in the
//! module of its family with its shape function, its CPU kernel registered in
//! `kernels/cpu.rs` (backends add theirs through `kernels::registry`) and its gradient
//! in `autodiff/registry.rs`. Ops sit under the graph and the kernels: they name
//! neither.
mod array;
pub use array::DEVICE_COPY;
pub(crate) mod candidate_sampling;
mod compare;
mod complex;
pub(crate) mod control_flow;
pub(crate) mod conv;
mod data;
mod data_flow;
mod functional;
mod image;
pub(crate) mod indexing;
pub(crate) mod io;
mod layout;
mod logging;
pub(crate) mod lookup;
pub(crate) mod math;
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
pub(crate) mod summary;
mod tensor_array;
pub mod training;

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::framework::attr::{AttrValue, FromAttr, read_attr};
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;
use crate::tensor::Tensor;

/// Shape-inference function: the output types of a node from its inputs and attrs.
pub type InferFn = fn(InferCtx<'_>) -> Result<Vec<OutputSpec>>;
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

impl OpDef {
    /// The schema of a stateless op with fixed inputs and its shape function (the
    /// builder methods below declare the rest).
    pub fn new(name: &'static str, inputs: &'static [&'static str], infer: InferFn) -> OpDef {
        OpDef {
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
        }
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

impl OpDef {
    /// Marks inputs that must be variable references.
    #[must_use]
    pub fn refs(mut self, ref_inputs: &'static [usize]) -> Self {
        self.ref_inputs = ref_inputs;
        self
    }
    /// Marks the op stateful.
    #[must_use]
    pub fn stateful(mut self) -> Self {
        self.stateful = true;
        self
    }
    /// Declares that the output is the first input unchanged (see
    /// [`OpDef::forwards_input`]).
    #[must_use]
    pub fn forwards_input(mut self) -> Self {
        self.forwards_input = true;
        self
    }
    /// Declares that feeding the op's output satisfies the control edges out of it
    /// (see [`OpDef::feed_satisfies_control`]).
    #[must_use]
    pub fn feed_satisfies_control(mut self) -> Self {
        self.feed_satisfies_control = true;
        self
    }
    /// Sets how the planner estimates the op's work.
    #[must_use]
    pub fn cost(mut self, cost: Cost) -> Self {
        self.cost = cost;
        self
    }
    /// Lets the last input repeat (at least once).
    #[must_use]
    pub fn variadic(mut self) -> Self {
        self.variadic = true;
        self
    }
    /// Lets the last input repeat any number of times, none included.
    #[must_use]
    pub fn variadic_or_empty(mut self) -> Self {
        self.variadic = true;
        self.variadic_min = 0;
        self
    }
}

/// The schemas under construction (see each family's `register`).
#[derive(Default)]
pub(crate) struct Registry {
    schemas: HashMap<&'static str, &'static OpDef>,
}

impl Registry {
    pub(crate) fn add(&mut self, def: OpDef) {
        let def: &'static OpDef = Box::leak(Box::new(def));
        let previous = self.schemas.insert(def.name, def);
        debug_assert!(previous.is_none(), "op {} registered twice", def.name);
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
