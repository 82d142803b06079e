//! `ReverseSequence` (what bidirectional RNNs reverse their inputs with). The fused
//! recurrent cells' kernels are in `kernels::lstm` and `kernels::gru`.
use super::{KernelBuild, OpContext, OpKernel};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// `ReverseSequence`: along `seq_dim`, the first `seq_lengths[b]` entries of each
/// `batch_dim` slice `b` reversed, the rest copied (TF's kernel and errors).
struct ReverseSequence {
    seq_dim: i64,
    batch_dim: i64,
}

pub(crate) fn reverse_sequence_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(ReverseSequence {
        seq_dim: b.node.required_attr("seq_dim")?,
        batch_dim: b.node.attr_or("batch_dim", 0)?,
    }))
}

impl ReverseSequence {
    /// The source element of each output element's run of `run` contiguous elements:
    /// `runs[j]` is where output run `j` is read from.
    fn source_runs(&self, input: &Tensor, lengths: &[i64]) -> Result<(Vec<usize>, usize)> {
        let dims = input.shape();
        let rank = dims.len() as i64;
        let (seq_dim, batch_dim) = (self.seq_dim, self.batch_dim);
        if seq_dim == batch_dim {
            return Err(Error::invalid_argument(format!("batch_dim == seq_dim == {seq_dim}")));
        }
        for (what, v) in [("seq_dim", seq_dim), ("batch_dim", batch_dim)] {
            if !(0..rank).contains(&v) {
                return Err(Error::invalid_argument(format!("{what} must be < input rank ( {v} vs. {rank})")));
            }
        }
        let (s, b) = (seq_dim as usize, batch_dim as usize);
        if lengths.len() != dims[b] {
            return Err(Error::invalid_argument(format!(
                "Length of seq_lengths != input.dims({b}), ({} vs. {})",
                lengths.len(),
                dims[b]
            )));
        }
        for (d, &len) in lengths.iter().enumerate() {
            if len < 0 {
                return Err(Error::invalid_argument(format!("seq_lens({d}) < 0")));
            }
            if len as u64 > dims[s] as u64 {
                return Err(Error::invalid_argument(format!("seq_lens({d}) > input.dims({s})")));
            }
        }
        let stride = |axis: usize| dims[axis + 1..].iter().product::<usize>();
        let (seq_stride, batch_stride) = (stride(s), stride(b));
        // Elements after the later of the two axes move together.
        let run = seq_stride.min(batch_stride);
        let n = input.num_elements();
        let runs = n.checked_div(run).unwrap_or(0);
        let mut sources = crate::buffer::try_vec(runs)?;
        for j in 0..runs {
            let i = j * run;
            let (t, bi) = ((i / seq_stride) % dims[s], (i / batch_stride) % dims[b]);
            let len = lengths[bi] as usize;
            sources.push(if t < len { i - t * seq_stride + (len - 1 - t) * seq_stride } else { i });
        }
        Ok((sources, run))
    }
}

impl OpKernel for ReverseSequence {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let input = ctx.input(0)?;
        let lengths_t = ctx.input(1)?;
        if lengths_t.shape().len() != 1 {
            return Err(Error::invalid_argument(format!("seq_lengths must be 1-dim, not {}", lengths_t.shape().len())));
        }
        let lengths = crate::framework::tensor_util::int_values(lengths_t)?;
        let (sources, run) = self.source_runs(input, &lengths)?;
        let out = if input.dtype() == crate::dtype::DType::String {
            let src = input.as_strings()?;
            let mut out = crate::buffer::try_vec(src.len())?;
            for &from in &sources {
                out.extend_from_slice(&src[from..from + run]);
            }
            Tensor::from_strings(input.shape(), out)?
        } else {
            let mut out = Tensor::for_overwrite(input.dtype(), input.shape())?;
            let size = input.dtype().size() * run;
            let src = input.as_bytes()?;
            if size > 0 {
                for (dst, &from) in out.as_mut_bytes()?.chunks_exact_mut(size).zip(&sources) {
                    let at = from * input.dtype().size();
                    dst.copy_from_slice(&src[at..at + size]);
                }
            }
            out
        };
        ctx.set_output(0, out);
        Ok(())
    }
}
