# SPDX-License-Identifier: Apache-2.0
"""spt: N-dimensional sparse tensors with TensorFlow's tf.sparse API, on the spt C library.

    import numpy as np, spt
    sp = spt.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    spt.to_dense(spt.reorder(sp))

Every op calls the C library (libspt.so, found through $SPT_LIB, next to the package, the install
prefix, or build/ of the repository); nothing is recomputed in Python. C statuses become exceptions:
InvalidArgumentError (ValueError), OutOfRangeError (IndexError), OverflowError (OverflowError),
FailedPreconditionError (RuntimeError), DtypeError (TypeError), OutOfMemoryError (MemoryError),
IOError (OSError), ParseError (ValueError), InternalError (RuntimeError), DataLossError (OSError); all derive from SptError and
carry the C message (`.message`) and status (`.status`).
"""
from ._lib import (SptError, InvalidArgumentError, OutOfRangeError, OverflowError, FailedPreconditionError,
                   DtypeError, OutOfMemoryError, IOError, ParseError, InternalError, DataLossError, lib_path)
from ._registry import has as _has
from ._tensor import SparseTensor
from ._core import (reorder, argsort, validate, indices_valid, with_order, to_dense, to_dense_into, from_dense,
                    sparse_to_dense, group, set_num_threads, get_num_threads)
from ._ops import *  # noqa: F401,F403  (the ops whose C functions this libspt has)
from ._ops import available_ops
from ._tfsparse import *  # noqa: F401,F403  (segment ops, bincount, cross, map_values, embeddings, serialization)
from ._tfsparse import abs, round  # noqa: F401,A004  (not in __all__: `from spt import *` keeps the builtins)
from . import math  # noqa: F401  (spt.math.abs, ... on SparseTensor values, as TensorFlow's tf.math dispatches)
from ._algebra import *  # noqa: F401,F403  (sparse algebra and gradient kernels)
from ._interop import from_scipy, to_scipy, from_pydata, to_pydata, from_torch, to_torch
from . import _tot
from ._tot import *  # noqa: F401,F403
from . import _io
from ._io import *  # noqa: F401,F403
from ._tfio import *  # noqa: F401,F403  (TensorFlow's serialized SparseTensors, TFRecord files, tf.train.Example)

__version__ = "0.1.0"


def has_op(name):
    """True when this libspt provides the op `name` (a Python function name of this module)."""
    return name in available_ops()
