//! TF's `_Send`, `_Recv`, `_HostSend` and `_HostRecv` (`ops/sendrecv_ops.cc`): the
//! ends of an edge cut by graph partitioning, or of a fed/fetched tensor
//! (`client_terminated`). They meet in the step's rendezvous under the key their
//! attrs spell (see [`crate::runtime::rendezvous`]). Stateful, without gradients (as TF's).
use super::{InferCtx, OpDef, Registry};
use crate::error::{Error, Result};
use crate::framework::attr::AttrValue;
use crate::framework::output::OutputSpec;
use crate::shape::PartialShape;

/// Op types that deposit their input in the step's rendezvous.
pub const SEND_OPS: [&str; 2] = ["_Send", "_HostSend"];
/// Op types that take their output from the step's rendezvous.
pub const RECV_OPS: [&str; 2] = ["_Recv", "_HostRecv"];

pub(crate) fn register(r: &mut Registry) {
    r.add(OpDef::new("_Send", &["tensor"], infer_send).stateful());
    r.add(OpDef::new("_Recv", &[], infer_recv).stateful());
    r.add(OpDef::new("_HostSend", &["tensor"], infer_send).stateful());
    r.add(OpDef::new("_HostRecv", &[], infer_recv).stateful());
}

/// The attrs both ends carry after their type attr, in TF's order.
const KEY_ATTRS: [(&str, &str); 4] = [
    ("tensor_name", "string"),
    ("send_device", "string"),
    ("send_device_incarnation", "int"),
    ("recv_device", "string"),
];

/// TF's `SummarizeOpDef` of the op, for its "NodeDef missing attr" message.
fn summarize(op: &str) -> String {
    let send = SEND_OPS.contains(&op);
    let (signature, type_attr) = if send { ("tensor:T -> ", "T") } else { (" -> tensor:tensor_type", "tensor_type") };
    let attrs: String = KEY_ATTRS.iter().map(|(n, t)| format!("; attr={n}:{t}")).collect();
    format!(
        "Op<name={op}; signature={signature}; attr={type_attr}:type{attrs}; attr=client_terminated:bool,default=false; \
         is_stateful=true; is_distributed_communication=true>"
    )
}

/// TF's `ValidateNodeDef` for the required attrs: "NodeDef missing attr 'x' from
/// Op<...>; NodeDef: {{node n}}" (`InvalidArgument`, a `ValueError` in Python as TF's
/// graph construction raises it); records `client_terminated`'s default.
fn check_attrs(ctx: &mut InferCtx<'_>, type_attr: &str) -> Result<()> {
    for name in std::iter::once(type_attr).chain(KEY_ATTRS.iter().map(|(n, _)| *n)) {
        if !ctx.attrs.contains_key(name) {
            return Err(Error::value(format!(
                "NodeDef missing attr '{name}' from {}; NodeDef: {{{{node {}}}}}",
                summarize(ctx.def.name),
                ctx.name
            )));
        }
    }
    for (name, _) in KEY_ATTRS {
        if name == "send_device_incarnation" {
            ctx.attr::<i64>(name)?;
        } else {
            ctx.attr::<String>(name)?;
        }
    }
    ctx.attr_or("client_terminated", false)?;
    Ok(())
}

fn infer_send(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    let dtype = ctx.input(0).dtype;
    ctx.attrs.entry("T".into()).or_insert(AttrValue::Type(dtype));
    check_attrs(&mut ctx, "T")?;
    let t = ctx.attr_type("T")?;
    if t != dtype {
        return Err(Error::type_error(format!(
            "Input 'tensor' of '{}' Op has type {dtype} that does not match type {t} of attr 'T'.",
            ctx.def.name
        )));
    }
    Ok(vec![])
}

fn infer_recv(mut ctx: InferCtx<'_>) -> Result<Vec<OutputSpec>> {
    check_attrs(&mut ctx, "tensor_type")?;
    Ok(vec![OutputSpec::new(ctx.attr_type("tensor_type")?, PartialShape::unknown())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_tfs() {
        assert_eq!(
            summarize("_Send"),
            "Op<name=_Send; signature=tensor:T -> ; attr=T:type; attr=tensor_name:string; attr=send_device:string; \
             attr=send_device_incarnation:int; attr=recv_device:string; attr=client_terminated:bool,default=false; \
             is_stateful=true; is_distributed_communication=true>"
        );
        assert!(
            summarize("_HostRecv")
                .starts_with("Op<name=_HostRecv; signature= -> tensor:tensor_type; attr=tensor_type:type;")
        );
    }
}
