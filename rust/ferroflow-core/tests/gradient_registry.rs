//! Which ops have no gradient registered: a `tf.gradients` through them is a
//! `LookupError`. The list is explicit so that a new op cannot silently join it.
use ferroflow_core::ops::{Gradient, gradient, op_names};

#[test]
fn only_the_listed_ops_lack_a_gradient() {
    let missing: Vec<&str> = op_names().into_iter().filter(|n| matches!(gradient(n), Gradient::Missing)).collect();
    // `LRNGrad` has none in TF either; a variable has no inputs, so nothing flows
    // through it; the panic op is a test aid.
    assert_eq!(missing, ["LRNGrad", "VariableV2", "_PanicForTesting"]);
}
