//! The kernel registry: for each op type, the kernels that implement it, keyed by
//! device type and an optional dtype constraint (TF's `REGISTER_KERNEL_BUILDER` with
//! `TypeConstraint` and `HostMemory`). It starts from the CPU kernels
//! ([`super::cpu`]); a backend crate registers its own with [`register_kernel`]. The planner asks it which device types can run a node, and for the factory.
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};

use super::KernelFn;
use crate::dtype::DType;
use crate::graph::{AttrValue, Node};

/// One kernel of one op on one device type.
#[derive(Clone, Copy)]
pub struct KernelDef {
    /// The op type it implements (`MatMul`).
    pub op: &'static str,
    /// The device type it runs on (`CPU`).
    pub device_type: &'static str,
    /// `(attr, dtypes)`: it only runs nodes whose type attr is one of `dtypes`.
    pub type_constraint: Option<(&'static str, &'static [DType])>,
    /// Inputs it keeps in host memory (by argument name), so the executor copies
    /// nothing to the device for them (shapes, axes, indices).
    pub host_memory: &'static [&'static str],
    /// Whether every input is in host memory (a kernel that computes on the host).
    pub host_inputs: bool,
    /// Whether its outputs are in host memory (`Shape` on a GPU: the shape is small
    /// and read by the host).
    pub host_outputs: bool,
    /// Whether it reads only its inputs' dtypes and shapes (`Shape`, `Size`): they are
    /// read wherever they are, never copied.
    pub shape_only: bool,
    /// Builds the kernel of one node, once per plan.
    pub factory: KernelFn,
}

impl KernelDef {
    /// A kernel of `op` on `device_type` for every dtype.
    pub fn new(op: &'static str, device_type: &'static str, factory: KernelFn) -> Self {
        KernelDef {
            op,
            device_type,
            type_constraint: None,
            host_memory: &[],
            host_inputs: false,
            host_outputs: false,
            shape_only: false,
            factory,
        }
    }
    /// Restricts it to nodes whose `attr` is one of `dtypes`.
    #[must_use]
    pub fn type_constraint(mut self, attr: &'static str, dtypes: &'static [DType]) -> Self {
        self.type_constraint = Some((attr, dtypes));
        self
    }
    /// Marks arguments kept in host memory.
    #[must_use]
    pub fn host_memory(mut self, args: &'static [&'static str]) -> Self {
        self.host_memory = args;
        self
    }
    /// Marks every input and output as kept in host memory: a kernel of a device that
    /// computes on the host (small integer maths on shapes, as TF's `HostMemory`
    /// kernels of a GPU).
    #[must_use]
    pub fn on_host(mut self) -> Self {
        self.host_inputs = true;
        self.host_outputs = true;
        self
    }
    /// Marks its outputs as kept in host memory.
    #[must_use]
    pub fn host_outputs(mut self) -> Self {
        self.host_outputs = true;
        self
    }
    /// Marks it as reading only its inputs' dtypes and shapes (no copies for them).
    #[must_use]
    pub fn shape_only(mut self) -> Self {
        self.shape_only = true;
        self
    }
    /// Whether input `i` of `node` is kept in host memory by this kernel.
    pub fn input_on_host(&self, node: &Node, i: usize) -> bool {
        if self.host_inputs {
            return true;
        }
        let names = node.def.inputs;
        let name = names.get(i).or(names.last().filter(|_| node.def.variadic));
        name.is_some_and(|n| self.host_memory.contains(n))
    }
    fn accepts(&self, node: &Node) -> bool {
        match self.type_constraint {
            None => true,
            Some((attr, dtypes)) => matches!(node.attrs.get(attr), Some(AttrValue::Type(t)) if dtypes.contains(t)),
        }
    }
}

type Kernels = HashMap<&'static str, Vec<KernelDef>>;

fn kernels() -> &'static RwLock<Kernels> {
    static KERNELS: OnceLock<RwLock<Kernels>> = OnceLock::new();
    KERNELS.get_or_init(|| {
        let mut all = Kernels::new();
        for k in super::cpu::kernels() {
            all.entry(k.op).or_default().push(k);
        }
        RwLock::new(all)
    })
}

/// Registers a kernel (a backend crate's, or a test's). Plans compiled afterwards can
/// place nodes of `def.op` on `def.device_type`.
pub fn register_kernel(def: KernelDef) {
    let mut all = kernels().write().unwrap_or_else(std::sync::PoisonError::into_inner);
    all.entry(def.op).or_default().push(def);
}

/// TF's error for a node that no registered kernel of any device type accepts (`None`
/// when some kernel does): "No OpKernel was registered to support Op ...", listing the
/// node's attrs and the registered kernels' constraints as TF does.
pub fn no_kernel_error(node: &Node, devices: &str) -> Option<crate::error::Error> {
    let all = kernels().read().unwrap_or_else(std::sync::PoisonError::into_inner);
    let defs = all.get(node.op_type()).map(Vec::as_slice).unwrap_or_default();
    if defs.iter().any(|k| k.accepts(node)) {
        return None;
    }
    let attrs: Vec<String> = node
        .attrs
        .iter()
        .filter_map(|(k, v)| {
            let v = match v {
                AttrValue::Type(t) => format!("DT_{}", t.enum_name()),
                AttrValue::B(b) => b.to_string(),
                AttrValue::I(i) => i.to_string(),
                _ => return None,
            };
            Some(format!("{k}={v}"))
        })
        .collect();
    let mut registered = String::new();
    // TF lists one registration per type, the latest first.
    for k in defs.iter().rev() {
        match k.type_constraint {
            Some((attr, dtypes)) => {
                for t in dtypes.iter().rev() {
                    registered.push_str(&format!("  device='{}'; {attr} in [DT_{}]\n", k.device_type, t.enum_name()));
                }
            }
            None => registered.push_str(&format!("  device='{}'\n", k.device_type)),
        }
    }
    Some(crate::error::Error::invalid_argument(format!(
        "No OpKernel was registered to support Op '{}' used by {{{{node {}}}}} with these attrs: [{}]\n\
         Registered devices: [{devices}]\nRegistered kernels:\n{registered}",
        node.op_type(),
        node.name,
        attrs.join(", ")
    )))
}

/// The kernel of `node` on `device_type`: the latest registered whose constraint the
/// node meets.
pub fn find_kernel(node: &Node, device_type: &str) -> Option<KernelDef> {
    let all = kernels().read().unwrap_or_else(std::sync::PoisonError::into_inner);
    all.get(node.op_type())?.iter().rev().find(|k| k.device_type == device_type && k.accepts(node)).copied()
}

/// The kernels registered for `op` on `device_type`, in registration order (a backend
/// reuses a CPU kernel that never reads element memory, such as `Reshape`'s, for its
/// own device).
pub fn kernels_of(op: &str, device_type: &str) -> Vec<KernelDef> {
    let all = kernels().read().unwrap_or_else(std::sync::PoisonError::into_inner);
    all.get(op).map(|defs| defs.iter().filter(|k| k.device_type == device_type).copied().collect()).unwrap_or_default()
}

/// Every op type with a registered kernel on any device type, sorted.
pub fn registered_ops() -> Vec<&'static str> {
    let all = kernels().read().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut v: Vec<_> = all.keys().copied().collect();
    v.sort_unstable();
    v
}
