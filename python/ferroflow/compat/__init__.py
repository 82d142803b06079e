"""`ferroflow.compat.v1`: the same namespace as `ferroflow` (TF-1.x code ports by import)."""

import sys

import ferroflow as v1

sys.modules[__name__ + ".v1"] = v1

__all__ = ["v1"]
