//! `MatMul` and `BatchMatMulV2`: 64×64 tiles through workgroup memory, 4×4 outputs per
//! invocation held in registers, either operand transposed (read through its
//! transposed index, no copy), batches along the dispatch's z (broadcast batch
//! dimensions of `BatchMatMulV2` included).
use std::sync::Arc;

use ferroflow_core::DType;
use ferroflow_core::error::{Error, Result};
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::shape::{broadcast_shapes, fmt_shape};
use ferroflow_core::tensor::Tensor;

use super::{buf, count_u32, device_input, gpu_of, output};
use crate::DEVICE_TYPE;
use crate::gpu::Gpu;

/// Output rows and columns per workgroup (16 x 16 invocations, 4 x 4 outputs each).
const TILE: u32 = 64;

// Register blocking: each invocation keeps a 4 x 4 block of C in registers, so every
// value it reads from workgroup memory feeds four multiply-adds instead of one.
// `ELEMENT` and the `load_a`/`load_b` readers are filled in per input dtype.
const MATMUL_WGSL: &str = r"
@group(0) @binding(0) var<storage, read> a: array<ELEMENT>;
@group(0) @binding(1) var<storage, read> b: array<ELEMENT>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<storage, read> p: array<u32>;
// A's 64 x 16 tile (row, k) and B's 16 x 64 tile (k, column).
var<workgroup> tile_a: array<array<f32, 16>, 64>;
var<workgroup> tile_b: array<array<f32, 64>, 16>;

// p: M, N, K, transpose_a, transpose_b, then per batch z the offsets of a, b (in
// elements) at p[5 + 2z], p[6 + 2z].
@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>) {
    let m = p[0];
    let n = p[1];
    let k = p[2];
    let trans_a = p[3] == 1u;
    let trans_b = p[4] == 1u;
    let a0 = p[5u + 2u * wid.z];
    let b0 = p[6u + 2u * wid.z];
    let c0 = wid.z * m * n;
    let row0 = wid.y * 64u;
    let col0 = wid.x * 64u;
    let tid = lid.y * 16u + lid.x;
    var acc: array<array<f32, 4>, 4>;
    let tiles = (k + 15u) / 16u;
    for (var t = 0u; t < tiles; t = t + 1u) {
        // 1024 values of each tile, four per invocation, consecutive invocations
        // reading consecutive addresses of an untransposed operand.
        for (var q = 0u; q < 4u; q = q + 1u) {
            let e = tid + 256u * q;
            let r = e / 16u;
            let ka = t * 16u + e % 16u;
            let gr = row0 + r;
            var va = 0.0;
            if (gr < m && ka < k) {
                if (trans_a) { va = load_a(a0 + ka * m + gr); } else { va = load_a(a0 + gr * k + ka); }
            }
            tile_a[r][e % 16u] = va;
            let kb = t * 16u + e / 64u;
            let gc = col0 + e % 64u;
            var vb = 0.0;
            if (kb < k && gc < n) {
                if (trans_b) { vb = load_b(b0 + gc * k + kb); } else { vb = load_b(b0 + kb * n + gc); }
            }
            tile_b[e / 64u][e % 64u] = vb;
        }
        workgroupBarrier();
        for (var j = 0u; j < 16u; j = j + 1u) {
            var ar: array<f32, 4>;
            var br: array<f32, 4>;
            for (var r = 0u; r < 4u; r = r + 1u) { ar[r] = tile_a[lid.y * 4u + r][j]; }
            for (var s = 0u; s < 4u; s = s + 1u) { br[s] = tile_b[j][lid.x * 4u + s]; }
            for (var r = 0u; r < 4u; r = r + 1u) {
                for (var s = 0u; s < 4u; s = s + 1u) {
                    acc[r][s] = acc[r][s] + ar[r] * br[s];
                }
            }
        }
        workgroupBarrier();
    }
    for (var r = 0u; r < 4u; r = r + 1u) {
        let gr = row0 + lid.y * 4u + r;
        for (var s = 0u; s < 4u; s = s + 1u) {
            let gc = col0 + lid.x * 4u + s;
            if (gr < m && gc < n) {
                c[c0 + gr * n + gc] = acc[r][s];
            }
        }
    }
}
";

/// The matmul shader for inputs of `dtype`: `float32` read as is, `float16` (two
/// halves to a word) unpacked to `f32`; accumulation and the output are `f32`.
fn matmul_source(dtype: DType) -> String {
    let (element, load) = if dtype == DType::Float16 {
        (
            "u32",
            "fn load_a(i: u32) -> f32 { return unpack2x16float(a[i / 2u])[i % 2u]; }\n\
                 fn load_b(i: u32) -> f32 { return unpack2x16float(b[i / 2u])[i % 2u]; }\n",
        )
    } else {
        ("f32", "fn load_a(i: u32) -> f32 { return a[i]; }\nfn load_b(i: u32) -> f32 { return b[i]; }\n")
    };
    format!("{}{load}", MATMUL_WGSL.replace("ELEMENT", element))
}

/// `C[z] = op(A[za]) op(B[zb])` for each batch `z` with its operands' offsets.
#[allow(clippy::too_many_arguments)]
pub fn matmul(
    gpu: &Arc<Gpu>,
    a: &Tensor,
    b: &Tensor,
    out_shape: &[usize],
    (m, n, k): (usize, usize, usize),
    (trans_a, trans_b): (bool, bool),
    offsets: &[(usize, usize)],
) -> Result<Tensor> {
    let half = a.dtype() == DType::Float16;
    // float16 products accumulate in f32 and are rounded once, by a cast at the end.
    let out = output(gpu, DType::Float32, out_shape)?;
    if out.num_elements() == 0 || k == 0 {
        let zeros = super::array::fill(gpu, out_shape, 0.0)?;
        return if half { to_half(gpu, &zeros) } else { Ok(zeros) };
    }
    matmul_into(gpu, a, b, &out, (m, n, k), (trans_a, trans_b), offsets)?;
    if half { to_half(gpu, &out) } else { Ok(out) }
}

/// [`matmul`] into the first `m * n` (per batch) elements of `out`'s `float32` buffer,
/// which may be larger (the rest is left as it is); `m`, `n` and `k` are not zero.
#[allow(clippy::too_many_arguments)]
pub fn matmul_into(
    gpu: &Arc<Gpu>,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
    (m, n, k): (usize, usize, usize),
    (trans_a, trans_b): (bool, bool),
    offsets: &[(usize, usize)],
) -> Result<()> {
    let pipeline = gpu.pipeline(&format!("matmul/64x64/{}", a.dtype()), || matmul_source(a.dtype()))?;
    let mut params = vec![
        count_u32(m, "MatMul")?,
        count_u32(n, "MatMul")?,
        count_u32(k, "MatMul")?,
        u32::from(trans_a),
        u32::from(trans_b),
    ];
    for &(oa, ob) in offsets {
        params.push(count_u32(oa, "MatMul")?);
        params.push(count_u32(ob, "MatMul")?);
    }
    count_u32(out.num_elements(), "MatMul")?;
    // One dispatch per 65535 batches (z's limit), each with its own offsets.
    for offs in params[5..].chunks(2 * 65535) {
        let mut p = params[..5].to_vec();
        p.extend_from_slice(offs);
        let groups = (
            count_u32(n.div_ceil(TILE as usize), "MatMul")?,
            count_u32(m.div_ceil(TILE as usize), "MatMul")?,
            (offs.len() / 2) as u32,
        );
        gpu.dispatch_groups(&pipeline, &[buf(a)?, buf(b)?, buf(out)?], &p, groups);
    }
    Ok(())
}

/// `x` (`float32`) rounded to `float16`.
fn to_half(gpu: &Arc<Gpu>, x: &Tensor) -> Result<Tensor> {
    super::logic::map(gpu, "Cast", &[x], &[None], x.shape(), DType::Float16, "", "v0")
}

struct MatMul {
    gpu: Arc<Gpu>,
    transpose: (bool, bool),
    batched: bool,
}

fn matmul_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let batched = b.node.op_type() != "MatMul";
    let (ta, tb) = if batched { ("adj_x", "adj_y") } else { ("transpose_a", "transpose_b") };
    Ok(Box::new(MatMul {
        gpu: gpu_of(b)?,
        transpose: (b.node.attr_or(ta, false)?, b.node.attr_or(tb, false)?),
        batched,
    }))
}

impl OpKernel for MatMul {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let (a, b) = (device_input(ctx, 0, &self.gpu)?, device_input(ctx, 1, &self.gpu)?);
        let (sa, sb) = (a.shape(), b.shape());
        let (ta, tb) = self.transpose;
        if sa.len() < 2 || sb.len() < 2 || (!self.batched && (sa.len() != 2 || sb.len() != 2)) {
            return Err(Error::invalid_argument(format!(
                "In[0] and In[1] must be matrices: {} {}",
                fmt_shape(sa),
                fmt_shape(sb)
            )));
        }
        let (ra, rb) = (sa.len() - 2, sb.len() - 2);
        let (m, ka) = if ta { (sa[ra + 1], sa[ra]) } else { (sa[ra], sa[ra + 1]) };
        let (kb, n) = if tb { (sb[rb + 1], sb[rb]) } else { (sb[rb], sb[rb + 1]) };
        if ka != kb {
            return Err(Error::invalid_argument(format!(
                "Matrix size-incompatible: In[0]: {}, In[1]: {}",
                fmt_shape(sa),
                fmt_shape(sb)
            )));
        }
        let batch = broadcast_shapes(&sa[..ra], &sb[..rb])?;
        let mut shape = batch.to_vec();
        shape.extend([m, n]);
        // Each output batch's operand offsets (broadcast batch dimensions repeat).
        let count: usize = batch.iter().product();
        let sa_strides = super::broadcast_strides(&sa[..ra], &batch);
        let sb_strides = super::broadcast_strides(&sb[..rb], &batch);
        let mut offsets = Vec::with_capacity(count);
        for z in 0..count {
            let (mut rem, mut oa, mut ob) = (z, 0, 0);
            for d in (0..batch.len()).rev() {
                let c = rem % batch[d];
                rem /= batch[d];
                oa += c * sa_strides[d];
                ob += c * sb_strides[d];
            }
            offsets.push((oa * m * ka, ob * ka * n));
        }
        let out = matmul(&self.gpu, &a, &b, &shape, (m, n, ka), self.transpose, &offsets)?;
        ctx.set_output(0, out);
        Ok(())
    }
}

pub(crate) fn register() {
    for op in ["MatMul", "BatchMatMul", "BatchMatMulV2"] {
        register_kernel(
            KernelDef::new(op, DEVICE_TYPE, matmul_kernel).type_constraint("T", &[DType::Float32, DType::Float16]),
        );
    }
}
