//! Comparisons, logical ops, `SelectV2` and casts to `float32`, `float16` and `bool` on
//! the GPU, with numpy broadcasting.
//!
//! A `bool` tensor in GPU memory has the CPU's layout, one byte per element (so copies
//! are byte for byte); WGSL has no byte stores, so a kernel that makes bools computes
//! four elements per invocation and writes their word whole, and a kernel that reads
//! them picks the byte out of its word.
use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::{Error, Result};
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::shape::broadcast_shapes;
use ferroflow_core::tensor::Tensor;

use super::{Binding, F32, broadcast_strides, buf, count_u32, device_input, gpu_of, output, shader, words};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// The dtypes these kernels read and write in GPU memory.
fn wgsl_type(dtype: DType) -> Result<&'static str> {
    match dtype {
        DType::Float32 => Ok("f32"),
        DType::Bool | DType::Float16 => Ok("u32"),
        DType::Int32 => Ok("i32"),
        d => Err(Error::invalid_argument(format!("no GPU kernel reads {d} here"))),
    }
}

/// WGSL reading operand `k` (of `dtype`) at offset `o<k>`.
fn read(k: usize, dtype: DType) -> String {
    match dtype {
        DType::Bool => format!("(((x{k}[o{k} / 4u] >> (8u * (o{k} % 4u))) & 0xffu) != 0u)"),
        DType::Float16 => format!("unpack2x16float(x{k}[o{k} / 2u])[o{k} % 2u]"),
        _ => format!("x{k}[o{k}]"),
    }
}

/// `expr` (over `v0`, `v1`, ...: the operands' elements, after the WGSL statements
/// `prelude`) for every element of `shape`, operand `k` read through `strides[k]`
/// (`None`: the output's own layout). Returns a new tensor of `out_dtype`: `float32`,
/// `bool` (four bytes to a word) or `float16` (two halves to a word: computed in
/// `f32`, rounded when packed).
#[allow(clippy::too_many_arguments)]
pub fn map(
    gpu: &Arc<Gpu>,
    name: &str,
    operands: &[&Tensor],
    strides: &[Option<Vec<usize>>],
    shape: &[usize],
    out_dtype: DType,
    prelude: &str,
    expr: &str,
) -> Result<Tensor> {
    let out = output(gpu, out_dtype, shape)?;
    let n = count_u32(out.num_elements(), name)?;
    if n == 0 {
        return Ok(out);
    }
    let dtypes: Vec<DType> = operands.iter().map(|t| t.dtype()).collect();
    let layout: String = strides.iter().map(|s| if s.is_some() { 's' } else { 'o' }).collect();
    let key = format!("map/{name}/{dtypes:?}/{layout}/{out_dtype}");
    let pipeline = gpu.try_pipeline(&key, || {
        let mut bindings = Vec::new();
        for (k, d) in dtypes.iter().enumerate() {
            bindings.push(Binding(["x0", "x1", "x2"][k], wgsl_type(*d)?, false));
        }
        bindings.push(Binding("out", wgsl_type(out_dtype)?, true));
        // Offsets: the element's own index, or through the operand's strides (the
        // output dims at p[2..], operand k's strides after k + 1 ranks).
        let mut index = String::from("        var rem = e;\n");
        for (k, s) in strides.iter().enumerate() {
            index.push_str(&if s.is_some() {
                format!("        var o{k} = 0u;\n")
            } else {
                format!("        let o{k} = e;\n")
            });
        }
        index.push_str(
            "        for (var q = rank; q > 0u; q = q - 1u) {\n            let d = q - 1u;\n            \
                        let c = rem % p[2u + d];\n            rem = rem / p[2u + d];\n",
        );
        let mut slot = 1;
        for (k, s) in strides.iter().enumerate() {
            if s.is_some() {
                index.push_str(&format!("            o{k} = o{k} + c * p[2u + {slot}u * rank + d];\n"));
                slot += 1;
            }
        }
        index.push_str("        }\n");
        let values: String =
            (0..dtypes.len()).map(|k| format!("        let v{k} = {};\n", read(k, dtypes[k]))).collect();
        let body = if out_dtype == DType::Bool {
            format!(
                "    let n = p[0];\n    let rank = p[1];\n    if (i * 4u >= n) {{ return; }}\n    var word = 0u;\n    \
                 for (var k = 0u; k < 4u; k = k + 1u) {{\n        let e = i * 4u + k;\n        \
                 if (e >= n) {{ break; }}\n{index}{values}{prelude}        \
                 if ({expr}) {{ word = word | (1u << (8u * k)); }}\n    }}\n    out[i] = word;\n"
            )
        } else if out_dtype == DType::Float16 {
            format!(
                "    let n = p[0];\n    let rank = p[1];\n    if (i * 2u >= n) {{ return; }}\n    \
                 var pair = vec2<f32>(0.0, 0.0);\n    for (var k = 0u; k < 2u; k = k + 1u) {{\n        \
                 let e = i * 2u + k;\n        if (e >= n) {{ break; }}\n{index}{values}{prelude}        \
                 pair[k] = {expr};\n    }}\n    out[i] = pack2x16float(pair);\n"
            )
        } else {
            format!(
                "    let n = p[0];\n    let rank = p[1];\n    if (i >= n) {{ return; }}\n    {{\n        let e = i;\n\
                 {index}{values}{prelude}        out[e] = {expr};\n    }}\n"
            )
        };
        Ok(shader(&bindings, &body))
    })?;
    let mut params = vec![n, count_u32(shape.len(), name)?];
    params.extend(words(shape)?);
    for s in strides.iter().flatten() {
        params.extend(words(s)?);
    }
    let buffers: Vec<&wgpu::Buffer> =
        operands.iter().map(|t| buf(t)).chain(std::iter::once(buf(&out))).collect::<Result<_>>()?;
    let threads = match out_dtype {
        DType::Bool => (n as usize).div_ceil(4),
        DType::Float16 => (n as usize).div_ceil(2),
        _ => n as usize,
    };
    gpu.dispatch(&pipeline, &buffers, &params, threads);
    Ok(out)
}

/// `expr` over operands broadcast together (numpy's rules, TF's error).
pub fn broadcast_map(
    gpu: &Arc<Gpu>,
    name: &str,
    operands: &[&Tensor],
    out_dtype: DType,
    prelude: &str,
    expr: &str,
) -> Result<Tensor> {
    let mut shape: Vec<usize> = operands[0].shape().to_vec();
    for t in &operands[1..] {
        shape = broadcast_shapes(&shape, t.shape())?.to_vec();
    }
    let strides: Vec<Option<Vec<usize>>> = operands
        .iter()
        .map(|t| (t.shape() != shape.as_slice()).then(|| broadcast_strides(t.shape(), &shape)))
        .collect();
    map(gpu, name, operands, &strides, &shape, out_dtype, prelude, expr)
}

/// An op computing `expr` over its inputs (in GPU memory), broadcast.
struct Elementwise {
    gpu: Arc<Gpu>,
    name: &'static str,
    out: DType,
    expr: &'static str,
}

impl OpKernel for Elementwise {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let inputs: Vec<Tensor> =
            (0..ctx.num_inputs()).map(|i| device_input(ctx, i, &self.gpu)).collect::<Result<_>>()?;
        let refs: Vec<&Tensor> = inputs.iter().collect();
        let out = broadcast_map(&self.gpu, self.name, &refs, self.out, "", self.expr)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

/// The dtypes comparisons read in GPU memory (halves unpacked as they are read).
const FLOATS: &[DType] = &[DType::Float32, DType::Float16];

const SELECT: &str = "select(v2, v1, v0)";

/// The ops: name, output dtype, expression, input constraint attr and dtypes.
const OPS: &[(&str, DType, &str, &str, &[DType])] = &[
    ("Equal", DType::Bool, "v0 == v1", "T", FLOATS),
    ("NotEqual", DType::Bool, "v0 != v1", "T", FLOATS),
    ("Less", DType::Bool, "v0 < v1", "T", FLOATS),
    ("LessEqual", DType::Bool, "v0 <= v1", "T", FLOATS),
    ("Greater", DType::Bool, "v0 > v1", "T", FLOATS),
    ("GreaterEqual", DType::Bool, "v0 >= v1", "T", FLOATS),
    ("LogicalAnd", DType::Bool, "v0 && v1", "", &[]),
    ("LogicalOr", DType::Bool, "v0 || v1", "", &[]),
    ("LogicalNot", DType::Bool, "!v0", "", &[]),
    ("SelectV2", DType::Float32, SELECT, "T", F32),
];

/// A kernel factory per table row (plain `fn`s, as the registry stores them).
macro_rules! factories {
    ($($i:literal)*) => {
        [$(|b: &KernelBuild<'_>| -> Result<Box<dyn OpKernel>> {
            let (name, out, expr, _, _) = OPS[$i];
            Ok(Box::new(Elementwise { gpu: gpu_of(b)?, name, out, expr }))
        }),*]
    };
}

/// The element conversion of a `Cast` the GPU computes (over `v0`, read as its dtype:
/// `float16` unpacked to `f32`, `bool` as a WGSL `bool`), or `None`.
fn cast_expr(from: DType, to: DType) -> Option<&'static str> {
    use DType::{Bool, Float16, Float32, Int32};
    match (from, to) {
        (Float32 | Float16, Float32 | Float16) => Some("v0"),
        (Int32, Float32 | Float16) => Some("f32(v0)"),
        (Bool, Float32 | Float16) => Some("select(0.0, 1.0, v0)"),
        (Float32 | Float16, Bool) => Some("v0 != 0.0"),
        (Int32, Bool) => Some("v0 != 0"),
        _ => None,
    }
}

/// `Cast` to `float32`, `float16` or `bool`: on the GPU from the dtypes `cast_expr`
/// converts; other sources (int64, float64: host-memory values on a GPU) converted
/// where they are, then uploaded.
struct Cast {
    gpu: Arc<Gpu>,
    to: DType,
}

impl OpKernel for Cast {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let x = ctx.input(0)?;
        let out = if x.dtype() == self.to {
            super::to_device(x, &self.gpu)?
        } else if let Some(expr) = cast_expr(x.dtype(), self.to) {
            let x = super::to_device(x, &self.gpu)?;
            map(&self.gpu, "Cast", &[&x], &[None], x.shape(), self.to, "", expr)?
        } else {
            super::to_device(&ferroflow_core::kernels::array::cast(&x.to_host()?, self.to)?, &self.gpu)?
        };
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(crate) fn register() {
    let factories = factories!(0 1 2 3 4 5 6 7 8 9);
    for (&(name, _, _, attr, dtypes), factory) in OPS.iter().zip(factories) {
        let def = KernelDef::new(name, DEVICE_TYPE, factory);
        register_kernel(if attr.is_empty() { def } else { def.type_constraint(attr, dtypes) });
    }
    register_kernel(
        KernelDef::new("Cast", DEVICE_TYPE, |b: &KernelBuild<'_>| {
            Ok(Box::new(Cast { gpu: gpu_of(b)?, to: b.node.outputs[0].dtype }) as Box<dyn OpKernel>)
        })
        .type_constraint("DstT", &[DType::Float32, DType::Float16, DType::Bool]),
    );
}
