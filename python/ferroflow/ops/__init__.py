"""Op-building functions, grouped as in TensorFlow (array, math, state, control flow)."""
