# SPDX-License-Identifier: Apache-2.0
"""Argument helpers shared by the op modules (not public API): TF1/TF2 keyword aliases, optional int64
vectors and counts, dtypes, and dense operands."""
import numpy as np

from . import _lib as L
from ._export import exports
from ._tensor import SparseTensor
from ._dense import Dense


_UNSET = object()


UNSET = -1  # SPT_UNSET: TensorFlow's None for a count


def _alias(fn, new, new_name, old, old_name, default):
    """TF2 keyword `new_name` with the TF1 spelling `old_name` kept as an alias (not both)."""
    if old is not _UNSET:
        if new is not _UNSET:
            raise L.err(L.InvalidArgumentError, fn, "give %s or its TF1 alias %s, not both" % (new_name, old_name))
        return old
    return default if new is _UNSET else new


def _opt_i64(x, name, fn):
    return None if x is None else L.i64_arg(x, name, fn).reshape(-1)


def _dense_like(x, sp, arg, fn):
    """A dense operand: numpy arrays are passed as they are (the C library checks the dtype); lists and
    scalars are converted exactly to the sparse operand's dtype."""
    if isinstance(x, np.ndarray):
        return x
    return L.exact_cast(np.asarray(x, dtype=object if sp.dtype.kind == "O" else None), sp.dtype, arg, fn)


def _is_minus_one(x):
    """x is the integer -1 (TensorFlow's "not given" for bincount's lengths)."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool) and int(x) == -1


def _opt_count(x, arg, fn):
    """None -> SPT_UNSET; an explicit value must be an integer >= 0 (so -1 never silently means None)."""
    if x is None:
        return UNSET
    v = x if type(x) is int else L.int_arg(x, arg, fn)
    if v < 0:
        raise L.err(L.InvalidArgumentError, fn, "%s must be >= 0 or None, got %d" % (arg, v))
    return v


def _spt_dtype(dtype, arg, fn):
    try:
        return L.spt_dtype_of(L.as_dtype(dtype))
    except L.DtypeError:
        raise L.err(L.DtypeError, fn, "%s=%r is not a dtype spt has" % (arg, dtype)) from None


def _dense_operand(x, arg, fn):
    """A dense operand as a Dense handle over a numpy array (lists become arrays as numpy converts them;
    strings become spt strings)."""
    if isinstance(x, SparseTensor):
        raise L.err(L.DtypeError, fn, "%s must be a dense array, got a SparseTensor" % arg)
    a = x if isinstance(x, np.ndarray) else np.asarray(x)
    if a.dtype.kind not in "biufcOSU":
        raise L.err(L.DtypeError, fn, "%s has dtype %s, which spt has not" % (arg, a.dtype))
    return Dense.from_numpy(a, arg=arg, op=fn)


__all__ = exports(__name__)
