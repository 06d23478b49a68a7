# SPDX-License-Identifier: Apache-2.0
"""spt: N-dimensional sparse tensors with TensorFlow's tf.sparse API, on the spt C library.

    import numpy as np, spt
    sp = spt.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    spt.to_dense(spt.reorder(sp))

Every op calls the C library (libspt.so, found through $SPT_LIB, next to the package, the install
prefix, or build/ of the repository); nothing is recomputed in Python. C statuses become exceptions:
InvalidArgumentError (ValueError), OutOfRangeError (an InvalidArgumentError and IndexError), OverflowError,
FailedPreconditionError (RuntimeError), DtypeError (TypeError), OutOfMemoryError (MemoryError),
IOError (OSError), ParseError (ValueError), InternalError (RuntimeError), DataLossError (OSError); all
derive from SptError and
carry the C message (`.message`) and status (`.status`).

The package mirrors the library's families: _core (sorting, validation, group, threads), _layout,
_elementwise, _reduce, _products, _features, _serial, _grad (the op families of src/ops), _tot (tensors
of tensors), _io (files), _tfio (TensorFlow's TFRecord files and tf.train.Example, src/tf), _interop
(SciPy, pydata/sparse, PyTorch), and spt.math. `from spt import *`
binds the public names except those of Python's builtins: spt.abs, spt.round, spt.slice, spt.IOError and
spt.OverflowError are reached through the package.
"""
from ._lib import *  # noqa: F401,F403  (the exceptions and lib_path)
from ._tensor import *  # noqa: F401,F403
from ._core import *  # noqa: F401,F403
from ._layout import *  # noqa: F401,F403
from ._elementwise import *  # noqa: F401,F403
from ._reduce import *  # noqa: F401,F403
from ._products import *  # noqa: F401,F403
from ._features import *  # noqa: F401,F403
from ._serial import *  # noqa: F401,F403
from ._grad import *  # noqa: F401,F403
from ._tot import *  # noqa: F401,F403
from ._io import *  # noqa: F401,F403
from ._tfio import *  # noqa: F401,F403
from ._interop import *  # noqa: F401,F403
from . import math  # noqa: F401  (spt.math.abs, ... on SparseTensor values, as TensorFlow's tf.math dispatches)
from . import _lib, _registry
from ._export import exports as _exports, package_all as _package_all, public as _public

__version__ = _lib.VERSION  # include/spt.h's, the one place it is written


@_public
def available_ops():
    """The names of the ops (module functions) this libspt provides."""
    return sorted(set(_registry.AVAILABLE) | set(_exports("spt._interop")))


@_public
def has_op(name):
    """True when this libspt provides the op `name` (a Python function name of this module)."""
    return name in available_ops()


__all__ = _package_all()
