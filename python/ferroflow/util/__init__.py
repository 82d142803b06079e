"""Utilities shared by the layers above the framework (TF's `tensorflow/python/util`)."""
