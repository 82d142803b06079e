"""Graph-construction framework: dtypes, shapes, ops, sessions."""
