"""Tensor-of-tensors bindings (issue 5)."""
__all__ = []
