//! A node's outputs as the layers above name them: the tensor endpoint ([`Output`])
//! and its static type ([`OutputSpec`]), which shape functions produce and the graph
//! stores.
use crate::dtype::DType;
use crate::shape::PartialShape;

/// Index of a node in its graph.
pub type NodeId = usize;

/// The `index`-th output of node `node` (a tensor of the graph).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Output {
    /// The producing node.
    pub node: NodeId,
    /// Which of its outputs.
    pub index: usize,
}

/// Static type of one node output.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSpec {
    /// Element type.
    pub dtype: DType,
    /// Static shape.
    pub shape: PartialShape,
    /// Whether the output is a reference to a variable (TF-1.x `float32_ref`).
    pub is_ref: bool,
}

impl OutputSpec {
    /// A non-reference output.
    pub fn new(dtype: DType, shape: PartialShape) -> Self {
        OutputSpec { dtype, shape, is_ref: false }
    }
}
