//! `RandomUniform`, `RandomStandardNormal` and `TruncatedNormal` on the GPU: the same
//! Philox-4x32-10 stream as the CPU's kernels (`ferroflow_core::random`), so a seeded
//! op gives the CPU's numbers (exactly for uniform values; normals to the last bits
//! of the device's `log`/`sin`/`cos`). Each invocation makes one group of four values
//! from its own counter, as the CPU's parallel fill does: block `g` for group `g`, or
//! for truncated normals a fresh stretch of 256 blocks per group, rejection-sampled.
//! The node's generator is the CPU kernel's (one per node and session), so runs on
//! either device continue one stream.
use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::Result;
use ferroflow_core::kernels::random::{WORDS_PER_OUTPUT, generator, output_dims};
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::random::GuardedPhilox;

use super::{Binding, F32, buf, count_u32, output, shader};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// Philox-4x32-10 and TF's float constructions in WGSL (no 64-bit integers there:
/// the high half of a 32x32 product comes from 16-bit halves).
const PHILOX: &str = "
fn mul_hi(a: u32, b: u32) -> u32 {
    let a0 = a & 0xffffu; let a1 = a >> 16u; let b0 = b & 0xffffu; let b1 = b >> 16u;
    let cross = ((a0 * b0) >> 16u) + ((a1 * b0) & 0xffffu) + a0 * b1;
    return a1 * b1 + ((a1 * b0) >> 16u) + (cross >> 16u);
}
fn philox(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    var c = counter;
    var k = key;
    for (var round = 0u; round < 10u; round = round + 1u) {
        let hi0 = mul_hi(0xD2511F53u, c.x); let lo0 = 0xD2511F53u * c.x;
        let hi1 = mul_hi(0xCD9E8D57u, c.z); let lo1 = 0xCD9E8D57u * c.z;
        c = vec4<u32>(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
        k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
    }
    return c;
}
// TF's Skip: a 64-bit block count (lo, hi) added with its carry rule.
fn skip(counter: vec4<u32>, lo: u32, hi_in: u32) -> vec4<u32> {
    var c = counter;
    var hi = hi_in;
    c.x = c.x + lo;
    if (c.x < lo) { hi = hi + 1u; }
    c.y = c.y + hi;
    if (c.y < hi) {
        c.z = c.z + 1u;
        if (c.z == 0u) { c.w = c.w + 1u; }
    }
    return c;
}
fn unit(x: u32) -> f32 {
    return bitcast<f32>(0x3f800000u | (x & 0x7fffffu)) - 1.0;
}
// TF's Uint16ToHalf: ten low bits as a half in [1, 2) less one, exact in f32.
fn unit16(x: u32) -> f32 {
    return f32(x & 0x3ffu) / 1024.0;
}
fn box_muller(x0: u32, x1: u32) -> vec2<f32> {
    let u1 = max(unit(x0), 1.0e-7);
    let v1 = 6.2831855 * unit(x1);
    let u2 = sqrt(-2.0 * log(u1));
    return vec2<f32>(sin(v1) * u2, cos(v1) * u2);
}
";

/// Which distribution.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Uniform,
    /// Uniform values for a `float16` node (made here in `f32`, exact when rounded).
    UniformHalf,
    Normal,
    Truncated,
}

/// The kernel body of `kind`: group `g = i` writes `out[4g .. 4g + 4]` (the tail
/// group fewer), from the stream at key `p[1..3]`, counter `p[3..7]`.
fn body(kind: Kind) -> String {
    let head = "    let n = p[0];\n    if (i * 4u >= n) { return; }\n    let key = vec2<u32>(p[1], p[2]);\n    \
                let base = vec4<u32>(p[3], p[4], p[5], p[6]);\n    var v = array<f32, 4>(0.0, 0.0, 0.0, 0.0);\n";
    let fill = match kind {
        Kind::Uniform => "    let b = philox(skip(base, i, 0u), key);\n    \
                          v = array<f32, 4>(unit(b.x), unit(b.y), unit(b.z), unit(b.w));\n"
            .to_string(),
        Kind::UniformHalf => "    let b = philox(skip(base, i, 0u), key);\n    \
                              v = array<f32, 4>(unit16(b.x), unit16(b.y), unit16(b.z), unit16(b.w));\n"
            .to_string(),
        Kind::Normal => "    let b = philox(skip(base, i, 0u), key);\n    let a = box_muller(b.x, b.y);\n    \
                         let c = box_muller(b.z, b.w);\n    v = array<f32, 4>(a.x, a.y, c.x, c.y);\n"
            .to_string(),
        // Group g starts g * 4 * 64 blocks in (the CPU's TRUNCATED_BLOCKS_PER_GROUP_VALUE)
        // and takes the pairs of each next block in order, keeping |x| < 2.
        Kind::Truncated => "    var c = skip(base, i << 8u, i >> 24u);\n    var filled = 0u;\n    \
                            for (var tries = 0u; tries < 256u && filled < 4u; tries = tries + 1u) {\n        \
                            let b = philox(c, key);\n        c = skip(c, 1u, 0u);\n        \
                            let pairs = array<vec2<f32>, 2>(box_muller(b.x, b.y), box_muller(b.z, b.w));\n        \
                            for (var k = 0u; k < 4u; k = k + 1u) {\n            \
                            let x = pairs[k / 2u][k % 2u];\n            \
                            if (filled < 4u && abs(x) < 2.0) { v[filled] = x; filled = filled + 1u; }\n        \
                            }\n    }\n"
            .to_string(),
    };
    format!(
        "{head}{fill}    for (var k = 0u; k < 4u; k = k + 1u) {{\n        if (i * 4u + k < n) {{ out[i * 4u + k] = v[k]; }}\n    }}\n"
    )
}

/// A float random op on the GPU.
struct Random {
    gpu: Arc<Gpu>,
    philox: Arc<GuardedPhilox>,
    kind: Kind,
}

impl OpKernel for Random {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let dims = output_dims(ctx)?;
        let out = output(&self.gpu, DType::Float32, &dims)?;
        let n = out.num_elements();
        let count = count_u32(n, "random fill")?;
        let base = self.philox.reserve_outputs(n, WORDS_PER_OUTPUT);
        let (key, counter) = base.state();
        let kind = self.kind;
        let key_name = match kind {
            Kind::Uniform => "random/uniform",
            Kind::UniformHalf => "random/uniform_half",
            Kind::Normal => "random/normal",
            Kind::Truncated => "random/truncated",
        };
        let pipeline = self
            .gpu
            .pipeline(key_name, || format!("{PHILOX}{}", shader(&[Binding("out", "f32", true)], &body(kind))))?;
        let params = [count, key[0], key[1], counter[0], counter[1], counter[2], counter[3]];
        self.gpu.dispatch(&pipeline, &[buf(&out)?], &params, n.div_ceil(4));
        ctx.set_output(0, out);
        Ok(())
    }
}

fn random_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let kind = match b.node.op_type() {
        // A float16 node (run widened: `half.rs`) draws TF's 16-bit uniforms.
        "RandomUniform" if b.node.outputs[0].dtype == DType::Float16 => Kind::UniformHalf,
        "RandomUniform" => Kind::Uniform,
        "RandomStandardNormal" => Kind::Normal,
        _ => Kind::Truncated,
    };
    Ok(Box::new(Random { gpu: super::gpu_of(b)?, philox: generator(b)?, kind }))
}

pub(crate) fn register() {
    for op in ["RandomUniform", "RandomStandardNormal", "TruncatedNormal"] {
        register_kernel(
            KernelDef::new(op, DEVICE_TYPE, random_kernel).type_constraint("dtype", F32).host_memory(&["shape"]),
        );
    }
}
