//! The kernel of `PyFunc` and `PyFuncStateless` (registration in `ops/script.rs`): it
//! hands its inputs to the host callback ([`crate::host`]) and checks the values that
//! come back against `Tout` with the messages of TF's `py_func.cc`.
use crate::dtype::DType;
use crate::error::Result;
use crate::host::host_callback;
use crate::kernels::{KernelBuild, OpContext, OpKernel};

struct PyFuncKernel {
    token: String,
    tout: Vec<DType>,
}

/// `PyFunc` / `PyFuncStateless`: calls the host function registered under `token`.
pub(crate) fn py_func_kernel(b: &KernelBuild<'_>) -> Result<Box<dyn OpKernel>> {
    Ok(Box::new(PyFuncKernel { token: b.node.required_attr("token")?, tout: b.node.required_attr("Tout")? }))
}

impl OpKernel for PyFuncKernel {
    fn compute(&self, ctx: &mut OpContext<'_>) -> Result<()> {
        let Some(host) = host_callback() else {
            ff_bail!(
                Unimplemented,
                "no host language is attached to run {}: PyFunc needs ferroflow's Python module",
                self.token
            )
        };
        // Taken, not cloned: a value this node consumes last reaches the host unshared
        // (and so as a numpy array without a copy).
        let inputs = (0..ctx.num_inputs()).map(|i| ctx.take_input(i)).collect::<Result<Vec<_>>>()?;
        let values = host.call(&self.token, inputs)?;
        if values.len() != self.tout.len() {
            ff_bail!(
                InvalidArgument,
                "{} returns {} values, but expects to see {} values.",
                self.token,
                values.len(),
                self.tout.len()
            );
        }
        for (i, (value, &want)) in values.into_iter().zip(&self.tout).enumerate() {
            let got = match value {
                Ok(t) if t.dtype() == want => {
                    ctx.set_output(i, t);
                    continue;
                }
                Ok(t) => t.dtype().cpp_name().to_string(),
                Err(name) => name,
            };
            ff_bail!(
                InvalidArgument,
                "{i}-th value returned by {} is {got}, but expects {}",
                self.token,
                want.cpp_name()
            );
        }
        Ok(())
    }
}
