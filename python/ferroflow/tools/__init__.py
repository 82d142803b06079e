"""Command-line tools (`python -m ferroflow.tools.saved_model_cli`)."""

__all__ = ["saved_model_cli"]
