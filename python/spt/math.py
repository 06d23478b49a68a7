# SPDX-License-Identifier: Apache-2.0
"""spt.math: the functions of TensorFlow's tf.math that dispatch on a SparseTensor's values (tf.math.abs(sp)
is tf.sparse.map_values(tf.math.abs, sp)), computed by the C library; plus add, subtract and multiply of
two SparseTensors with the same indices (and add / multiply of a SparseTensor and a scalar)."""
from ._elementwise import _UNARY_FN, _BINARY_FN, cast  # noqa: F401

globals().update(_UNARY_FN)
globals().update(_BINARY_FN)
__all__ = sorted(_UNARY_FN) + sorted(_BINARY_FN) + ["cast"]
