//! The GPU kernels and their registration.
//!
//! Values in GPU memory are `float32`, `float16` (two halves to a word: `half.rs`),
//! `bool` (four to a word: `logic.rs`) and `int32` where a kernel says so; other
//! dtypes placed on the GPU stay in host memory through kernels registered
//! [`KernelDef::on_host`] (TF's `HostMemory` integer kernels of a GPU), and a GPU
//! kernel handed a host value uploads it ([`device_input`]).
pub mod array;
pub mod conv;
pub mod copy;
pub mod elementwise;
pub mod half;
pub mod indexing;
pub mod logic;
pub mod lstm;
pub mod matmul;
pub mod nn;
pub mod pool;
pub mod random;
pub mod reduce;
pub mod state;
pub mod training;

use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::{Code, Error, Result};
use ferroflow_core::kernels::KernelFn;
use ferroflow_core::kernels::registry::{KernelDef, kernels_of, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext};
use ferroflow_core::tensor::Tensor;

use crate::DEVICE_TYPE;
use crate::gpu::Gpu;
use crate::gpu::GpuBuffer;

/// The dtype GPU kernels compute in.
pub const F32: &[DType] = &[DType::Float32];

/// The device a kernel is built for.
pub fn gpu_of(b: &KernelBuild<'_>) -> Result<Arc<Gpu>> {
    crate::device(b.device.id)
}

/// The GPU buffer behind a tensor in `gpu`'s memory, or `None`.
pub fn buffer_on<'t>(t: &'t Tensor, gpu: &Arc<Gpu>) -> Option<&'t GpuBuffer> {
    let b = t.device_memory()?.as_any().downcast_ref::<GpuBuffer>()?;
    Arc::ptr_eq(b.gpu(), gpu).then_some(b)
}

/// The wgpu buffer of a tensor known to be in GPU memory.
pub fn buf(t: &Tensor) -> Result<&wgpu::Buffer> {
    t.device_memory()
        .and_then(|m| m.as_any().downcast_ref::<GpuBuffer>())
        .map(GpuBuffer::buffer)
        .ok_or_else(|| Error::new(Code::Internal, "a GPU kernel was handed a tensor outside GPU memory"))
}

/// `t` in `gpu`'s memory: itself, or uploaded from the host (or another device).
pub fn to_device(t: &Tensor, gpu: &Arc<Gpu>) -> Result<Tensor> {
    if buffer_on(t, gpu).is_some() {
        return Ok(t.clone());
    }
    if matches!(t.dtype(), DType::String | DType::Resource | DType::Variant) {
        return Err(Error::invalid_argument(format!("a {} tensor cannot be placed in GPU memory", t.dtype())));
    }
    let host = t.to_host()?;
    let memory = gpu.upload(host.as_bytes()?)?;
    Tensor::on_device(t.dtype(), t.shape(), Arc::new(memory))
}

/// Input `i` in `gpu`'s memory (uploaded when it is not there).
pub fn device_input(ctx: &OpContext<'_>, i: usize, gpu: &Arc<Gpu>) -> Result<Tensor> {
    to_device(ctx.input(i)?, gpu)
}

/// A new tensor in `gpu`'s memory, its elements unspecified until a kernel writes them.
pub fn output(gpu: &Arc<Gpu>, dtype: DType, shape: &[usize]) -> Result<Tensor> {
    let n = ferroflow_core::shape::checked_num_elements(shape)?;
    let bytes = n.checked_mul(dtype.size()).ok_or_else(|| ferroflow_core::tensor::oom_error(dtype, shape))?;
    Tensor::on_device(dtype, shape, Arc::new(gpu.alloc(bytes)?))
}

/// A kernel's node element count as a `u32` (WGSL indexes with 32 bits).
pub fn count_u32(n: usize, what: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        Error::new(Code::ResourceExhausted, format!("{what}: {n} elements are more than a GPU kernel indexes (2^32)"))
    })
}

/// The CPU's kernel of `op`, for ops whose CPU kernel never reads element memory
/// (`Reshape` re-labels a shape; `VariableV2` hands out its variable).
fn cpu_factory(op: &'static str) -> Option<KernelFn> {
    kernels_of(op, "CPU").last().map(|k| k.factory)
}

/// Registers `op`'s CPU kernel for the GPU, transformed by `f` (host memory marks).
fn reuse_cpu(op: &'static str, f: impl FnOnce(KernelDef) -> KernelDef) {
    if let Some(factory) = cpu_factory(op) {
        register_kernel(f(KernelDef::new(op, DEVICE_TYPE, factory)));
    }
}

/// The dtypes of constants placed on a GPU that stay in host memory.
const HOST_CONSTS: &[DType] = &[DType::Int32, DType::Int64, DType::Bool, DType::String];

/// The integer dtypes whose GPU kernels run on the host.
const HOST_INTS: &[DType] = &[DType::Int32, DType::Int64];

/// Ops whose integer forms run on the host for a GPU node (shape arithmetic in
/// gradients: TF's `HostMemory` int32 kernels).
const HOST_INT_OPS: &[&str] = &[
    "AddV2",
    "Add",
    "Sub",
    "Mul",
    "Maximum",
    "Minimum",
    "FloorDiv",
    "FloorMod",
    "RealDiv",
    "Neg",
    "Prod",
    "Sum",
    "Max",
    "Min",
    "Mean",
    "Fill",
    "Pack",
    "ConcatV2",
    "StridedSlice",
    "Slice",
    "GatherV2",
    "DynamicStitch",
    "Unique",
    "Equal",
    "NotEqual",
    "Less",
    "Greater",
    "Cast",
    "Tile",
    "Reshape",
    "ExpandDims",
    "Squeeze",
    "Identity",
    "ZerosLike",
    "OnesLike",
    "Assign",
    "AssignAdd",
    "AssignSub",
    "Transpose",
    "Square",
    "Abs",
];

/// Registers every GPU kernel (once, from [`crate::register`]).
pub(crate) fn register_kernels() {
    copy::register();
    array::register();
    // Integer, bool and string constants in host memory, as TF's `HostConstantOp`
    // (their readers are shape arithmetic and host-memory arguments).
    reuse_cpu("Const", |k| k.type_constraint("dtype", HOST_CONSTS).host_outputs());
    elementwise::register();
    indexing::register();
    logic::register();
    matmul::register();
    conv::register();
    pool::register();
    reduce::register();
    nn::register();
    lstm::register();
    random::register();
    training::register();
    state::register();
    // After every float32 kernel: float16 nodes run them widened.
    half::register();
    // Memory-agnostic CPU kernels: they pass values or references on.
    for op in ["VariableV2", "Variable", "NoOp", "Identity", "StopGradient", "Snapshot", "Placeholder", "Assign"] {
        reuse_cpu(op, |k| k);
    }
    reuse_cpu("IsVariableInitialized", KernelDef::host_outputs);
    // They read shapes only: their inputs stay where they are.
    for op in ["Shape", "ShapeN", "Size", "Rank"] {
        reuse_cpu(op, |k| k.host_outputs().shape_only());
    }
    reuse_cpu("Reshape", |k| k.host_memory(&["shape"]));
    reuse_cpu("ExpandDims", |k| k.host_memory(&["dim"]));
    reuse_cpu("Squeeze", |k| k);
    // Integer shape arithmetic on the host, as TF's GPU registrations.
    for &op in HOST_INT_OPS {
        for def in kernels_of(op, "CPU") {
            let attr = match op {
                "Cast" => "DstT",
                "GatherV2" => "Tparams",
                _ => "T",
            };
            register_kernel(KernelDef { device_type: DEVICE_TYPE, ..def }.type_constraint(attr, HOST_INTS).on_host());
        }
    }
    // Shape helpers without a `T` attr run on the host whatever they make.
    for op in ["Range", "BroadcastGradientArgs", "ConcatOffset", "InvertPermutation"] {
        reuse_cpu(op, KernelDef::on_host);
    }
}

/// A storage buffer binding of a generated kernel: its name, WGSL element type and
/// whether the kernel writes it.
pub struct Binding(pub &'static str, pub &'static str, pub bool);

/// The WGSL of a one-dimensional kernel: `bindings` at 0, 1, ..., then the `u32`
/// parameter array `p`; `body` runs with `i`, the invocation's index (bounds are the
/// body's to check), in workgroups of `gpu::WORKGROUP`.
pub fn shader(bindings: &[Binding], body: &str) -> String {
    let mut s = String::new();
    for (k, Binding(name, ty, write)) in bindings.iter().enumerate() {
        let access = if *write { "read_write" } else { "read" };
        s.push_str(&format!("@group(0) @binding({k}) var<storage, {access}> {name}: array<{ty}>;\n"));
    }
    s.push_str(&format!("@group(0) @binding({}) var<storage, read> p: array<u32>;\n", bindings.len()));
    s.push_str(&format!(
        "@compute @workgroup_size({wg})\nfn main(@builtin(global_invocation_id) gid: vec3<u32>, \
         @builtin(num_workgroups) nwg: vec3<u32>) {{\n    let i = gid.x + gid.y * nwg.x * {wg}u;\n{body}}}\n",
        wg = crate::gpu::WORKGROUP
    ));
    s
}

/// WGSL that sets `off` to the offset, in an input with `strides` (at `p[base + rank
/// ..]`), of output element `i` of a tensor with dimensions at `p[base..base + rank]`
/// (rank at `p[1]`); a dimension's coordinate is taken modulo the input's dimension
/// at `p[base + 2 rank ..]` when `wrap` (tiling).
pub fn strided_offset(off: &str, base: u32, wrap: bool) -> String {
    let wrap_expr = if wrap { format!("c % p[{base}u + 2u * rank + d]") } else { "c".to_string() };
    format!(
        "    let rank = p[1];\n    var {off} = 0u;\n    var rem = i;\n    for (var k = rank; k > 0u; k = k - 1u) {{\n        \
         let d = k - 1u;\n        let dim = p[{base}u + d];\n        let c = rem % dim;\n        rem = rem / dim;\n        \
         {off} = {off} + ({wrap_expr}) * p[{base}u + rank + d];\n    }}\n"
    )
}

/// Row-major strides of `dims`, with 0 where a dimension is broadcast (size 1 against
/// a larger output dimension).
pub fn broadcast_strides(dims: &[usize], out: &[usize]) -> Vec<usize> {
    let pad = out.len() - dims.len();
    let mut strides = vec![0; out.len()];
    let mut stride = 1;
    for d in (0..dims.len()).rev() {
        strides[pad + d] = if dims[d] == 1 && out[pad + d] != 1 { 0 } else { stride };
        stride *= dims[d];
    }
    strides
}

/// `(destination row, source row)` pairs split into dispatches: occurrence `k` of a
/// destination goes in layer `k`, so no two invocations of one dispatch write one row
/// and repeated rows apply in order (sparse updates, scatters, segment sums). Each
/// layer is its pairs flattened, ready to upload.
pub fn occurrence_layers(pairs: impl IntoIterator<Item = (usize, usize)>, what: &str) -> Result<Vec<Vec<u32>>> {
    let mut seen: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut layers: Vec<Vec<u32>> = Vec::new();
    for (dst, src) in pairs {
        let k = seen.entry(dst).or_default();
        if layers.len() <= *k {
            layers.push(Vec::new());
        }
        layers[*k].extend([count_u32(dst, what)?, count_u32(src, what)?]);
        *k += 1;
    }
    Ok(layers)
}

/// `values` as `u32` kernel parameters (`ResourceExhausted` past 32 bits).
pub fn words(values: &[usize]) -> Result<Vec<u32>> {
    values.iter().map(|&v| count_u32(v, "GPU kernel parameter")).collect()
}
