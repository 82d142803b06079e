//! Every optimizer update on the GPU, dense and sparse, generated from the core's
//! `Rule`s: `visit_rule` builds the op's rule over symbolic numbers ([`Expr`]), its
//! `step` traced once per variant becomes the kernel body, so the GPU applies TF's
//! formula exactly as the CPU's fused loop writes it. The variable and its slots are
//! updated in place in GPU memory (copied first only while something still reads the
//! old value, as on the CPU).
//!
//! Hyper-parameters go to the kernel as parameter words: a value in GPU memory (a
//! learning rate computed or held on the GPU) is copied into them on the device, so a
//! step never waits to read one on the host; only FTRL's `lr_power` (which picks the
//! kernel), the sparse rows and AdagradDA's step are host values. A sparse update's
//! repeated rows are applied one occurrence per dispatch, in order, as TF's kernels
//! apply them.
use std::sync::Arc;

use ferroflow_core::error::{Code, Error, Result};
use ferroflow_core::kernels::registry::{KernelDef, register_kernel};
use ferroflow_core::kernels::training::{AdagradDa, Rule, RuleVisitor, check_update_shapes, optimizer_op, visit_rule};
use ferroflow_core::kernels::{KernelBuild, OpContext, OpKernel};
use ferroflow_core::ops::training::{Family, SPECS, Spec};
use ferroflow_core::shape::fmt_shape;
use ferroflow_core::tensor::Tensor;

use super::{Binding, F32, buf, count_u32, device_input, gpu_of, shader, to_device};
use crate::DEVICE_TYPE;
use crate::expr::{Expr, trace};
use crate::gpu::{Gpu, WORKGROUP, groups_for};

/// Names of the variable and slot bindings (a rule updates at most four buffers).
const PARTS: [&str; 4] = ["s0", "s1", "s2", "s3"];

/// Traces a rule's step over element `idx` of the parts and `grad[gi]`.
struct Tracer;

impl RuleVisitor<Expr> for Tracer {
    type Output = (usize, String);
    fn visit<R: Rule<Expr, N>, const N: usize>(self, rule: R) -> (usize, String) {
        let mut x: [Expr; N] = std::array::from_fn(|k| Expr::var(format!("{}[idx]", PARTS[k])));
        rule.step(&mut x, Expr::var("grad[gi]"));
        let stores = x.iter().enumerate().map(|(k, v)| format!("    {}[idx] = {v};\n", PARTS[k])).collect();
        (N, stores)
    }
}

struct Apply {
    gpu: Arc<Gpu>,
    spec: &'static Spec,
    flag: bool,
}

fn apply_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    let (spec, flag) = optimizer_op(b.node)?;
    Ok(Box::new(Apply { gpu: gpu_of(b)?, spec, flag }))
}

/// A scalar hyper-parameter, checked as TF does (`lr is not a scalar: [2]`).
fn scalar_input<'t>(ctx: &'t OpContext<'_>, i: usize, name: &str) -> Result<&'t Tensor> {
    let t = ctx.input(i)?;
    if !t.shape().is_empty() {
        return Err(Error::invalid_argument(format!("{name} is not a scalar: {}", fmt_shape(t.shape()))));
    }
    Ok(t)
}

/// Host-memory inputs of an optimizer op on the GPU: everything but the variable and
/// slots, the gradient and the hyper-parameters other than `lr_power`.
fn host_inputs(s: &Spec) -> Vec<&'static str> {
    (0..s.inputs.len())
        .filter(|&i| !s.refs.contains(&i) && i != s.grad && (!s.hyper().any(|h| h == i) || s.inputs[i] == "lr_power"))
        .map(|i| s.inputs[i])
        .collect()
}

impl Apply {
    /// The kernel of this op's variant: its WGSL from the traced rule.
    fn source(&self, ftrl_sqrt: bool, sparse: bool) -> Result<String> {
        let s = self.spec;
        let hyper: Vec<&str> = s.hyper().map(|i| s.inputs[i]).collect();
        let n_hyper = hyper.len();
        let (traced, body) = trace(|| {
            let h = |name: &str| -> Result<Expr> {
                hyper
                    .iter()
                    .position(|n| *n == name)
                    .map(|k| Expr::var(format!("bitcast<f32>(p[{}u])", 2 + k)))
                    .ok_or_else(|| Error::new(Code::Internal, format!("{} has no hyper-parameter {name}", s.op)))
            };
            let step = Expr::var(format!("bitcast<f32>(p[{}u])", 2 + n_hyper));
            visit_rule(s.family, self.flag, ftrl_sqrt, &h, step, Tracer)
        });
        let (n, stores) = traced?;
        let mut bindings: Vec<Binding> = PARTS[..n].iter().map(|p| Binding(p, "f32", true)).collect();
        bindings.push(Binding("grad", "f32", false));
        let index = if sparse {
            bindings.push(Binding("rows", "u32", false));
            "    let w = p[1];\n    let r = i / w;\n    let col = i % w;\n    let idx = rows[2u * r] * w + col;\n    \
             let gi = rows[2u * r + 1u] * w + col;\n"
        } else {
            "    let idx = i;\n    let gi = i;\n"
        };
        Ok(shader(&bindings, &format!("    if (i >= p[0]) {{ return; }}\n{index}{body}{stores}")))
    }
}

impl OpKernel for Apply {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let s = self.spec;
        let refs: Vec<_> = s.refs.iter().map(|&i| ctx.ref_input(i).map(Arc::clone)).collect::<Result<_>>()?;
        for (k, r) in refs.iter().enumerate() {
            if refs[..k].iter().any(|o| Arc::ptr_eq(o, r)) {
                return Err(Error::invalid_argument(format!(
                    "{} is passed twice to {}: the variable and its slots must be distinct",
                    r.name(),
                    s.op
                )));
            }
        }
        if refs[0].dtype() != ferroflow_core::DType::Float32 {
            return Err(Error::invalid_argument(format!("no GPU optimizer kernel for {}", refs[0].dtype())));
        }
        let mut params = vec![0u32, 1];
        let mut lr_power = None;
        // Hyper-parameters in this GPU's memory, by parameter word.
        let mut on_device: Vec<(Tensor, u32)> = Vec::new();
        for i in s.hyper() {
            let t = scalar_input(ctx, i, s.inputs[i])?;
            if t.dtype() != ferroflow_core::DType::Float32 {
                return Err(Error::invalid_argument(format!("{} must be float32, got {}", s.inputs[i], t.dtype())));
            }
            if s.inputs[i] == "lr_power" || super::buffer_on(t, &self.gpu).is_none() {
                let v = t.to_host()?.scalar_value::<f32>()?;
                if s.inputs[i] == "lr_power" {
                    lr_power = Some(v);
                }
                params.push(v.to_bits());
            } else {
                on_device.push((t.clone(), params.len() as u32));
                params.push(0);
            }
        }
        let step = match s.step {
            Some(i) => {
                let t = ctx.input(i)?.to_host()?;
                if !t.shape().is_empty() {
                    return Err(Error::invalid_argument(format!(
                        "global_step is not a scalar: {}",
                        fmt_shape(t.shape())
                    )));
                }
                AdagradDa::<f32>::step_value(t.scalar_value::<i64>()?)
            }
            None => 0.0,
        };
        params.push(step.to_bits());
        let ftrl_sqrt = matches!(s.family, Family::Ftrl | Family::FtrlV2) && lr_power == Some(-0.5);
        let grad = device_input(ctx, s.grad, &self.gpu)?;
        let indices = s.indices.map(|i| ctx.input(i).and_then(Tensor::to_host)).transpose()?;

        let mut guards = refs.iter().map(|r| r.write()).collect::<Result<Vec<_>>>()?;
        let shapes: Vec<&[usize]> = guards.iter().map(|g| g.shape()).collect();
        let sparse = check_update_shapes(s, &shapes, grad.shape(), indices.as_ref())?;
        // The variable and slots in this GPU's memory, exclusively theirs.
        for g in &mut guards {
            if super::buffer_on(g, &self.gpu).is_none() {
                **g = to_device(g, &self.gpu)?;
            }
            g.device_memory_mut()?;
        }
        let key = format!("apply/{}/{}/{ftrl_sqrt}/{}", s.op.trim_start_matches("Sparse"), self.flag, sparse.is_some());
        let pipeline = self.gpu.try_pipeline(&key, || self.source(ftrl_sqrt, sparse.is_some()))?;
        let mut buffers: Vec<&wgpu::Buffer> = guards.iter().map(|g| buf(g)).collect::<Result<_>>()?;
        buffers.push(buf(&grad)?);
        let patches: Vec<(&wgpu::Buffer, u32)> =
            on_device.iter().map(|(t, word)| Ok((buf(t)?, *word))).collect::<Result<_>>()?;
        match sparse {
            None => {
                let n = count_u32(grad.num_elements(), s.op)?;
                params[0] = n;
                self.gpu.dispatch_patched(&pipeline, &buffers, &params, &patches, groups_for(n as usize, WORKGROUP));
            }
            Some((rows, width)) => {
                params[1] = count_u32(width, s.op)?;
                let layers = super::occurrence_layers(rows.iter().enumerate().map(|(g, &row)| (row, g)), s.op)?;
                for layer in layers {
                    let pairs = to_device(&Tensor::from_slice(&[layer.len()], &layer)?, &self.gpu)?;
                    let threads = layer.len() / 2 * width;
                    params[0] = count_u32(threads, s.op)?;
                    let mut with_rows = buffers.clone();
                    with_rows.push(buf(&pairs)?);
                    self.gpu.dispatch_patched(&pipeline, &with_rows, &params, &patches, groups_for(threads, WORKGROUP));
                }
            }
        }
        drop(guards);
        ctx.set_ref_output(0, Arc::clone(&refs[0]));
        Ok(())
    }
}

pub(crate) fn register() {
    for s in SPECS {
        // Registration tables live for the process.
        let host: &'static [&'static str] = Box::leak(host_inputs(s).into_boxed_slice());
        register_kernel(KernelDef::new(s.op, DEVICE_TYPE, apply_kernel).type_constraint("T", F32).host_memory(host));
    }
}
