# SPDX-License-Identifier: Apache-2.0
"""Differential test of spt against TensorFlow: the framework (case generation helpers, conversions,
comparison, error-class mapping, the runner).

    python tests/tf/harness.py            (make test-tf runs it in build/tf-venv)

Environment: SPT_TF_CASES (cases per op, default 200), SPT_TF_SEED (default 20261124), SPT_TF_OPS (a
comma-separated subset of op names), SPT_TF_VERBOSE=1 (print every failure in full, not the first 5 per op).

The op table is tests/tf/ops.py (one OpSpec per op: generator, TensorFlow call, spt call, comparator), and
tests/tf/derive.py derives one for each op src/ops/ops.def marks TF that ops.py does not cover;
the rules where spt is deliberately stricter than TensorFlow are tests/tf/rules.py; the hostile inputs
from TensorFlow's advisories are tests/tf/hostile.py. Both libraries run in this one process; TensorFlow
calls that may crash it (the advisories) run in a worker subprocess (hostile.py).

Comparison: integers, bools and strings exactly; floats with NaN == NaN, infinities equal by sign, and
otherwise |spt - tf| <= rtol * (1 + scale), rtol = 1e-5 (float32, complex64) or 1e-12 (float64,
complex128), scale = the sum of |input values| of the case (a bound on the rounding of any sum of them in
another order). Indices, shapes and the order of entries exactly.
"""
import os
import sys
import time
import traceback
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
if __name__ == "__main__":  # ops.py, rules.py and hostile.py import this module as `harness`
    sys.modules["harness"] = sys.modules[__name__]

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # TF's own Eigen kernels (no oneDNN notices)

import tensorflow as tf  # noqa: E402

tf.config.threading.set_intra_op_parallelism_threads(2)
tf.config.threading.set_inter_op_parallelism_threads(2)
tf.get_logger().setLevel("ERROR")  # no deprecation notices (tf.compat.v1.sparse.merge)
# boundary values overflow on purpose (MIN + MIN, max * 2): numpy's warnings about it are noise here
warnings.filterwarnings("ignore", category=RuntimeWarning)

import spt  # noqa: E402


def _any_volume():
    """Does this libspt take shapes whose volume exceeds int64 (conformance README policy 1)?"""
    try:
        spt.SparseTensor([[0, 0]], [1.0], [2 ** 62, 4])
        return True
    except spt.SptError:
        return False


ANY_VOLUME = _any_volume()

# ---- dtypes ----------------------------------------------------------------------------------------

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
COMPLEX = ["complex64", "complex128"]
REAL = INTS + FLOATS
NUMBER = REAL + COMPLEX
ALL = ["bool"] + NUMBER + ["string"]

RTOL = {"float32": 1e-5, "complex64": 1e-5, "float64": 1e-12, "complex128": 1e-12}


def npdt(name):
    return np.dtype(object) if name == "string" else np.dtype(name)


def tfdt(name):
    return tf.string if name == "string" else tf.as_dtype(name)


# ---- random values ---------------------------------------------------------------------------------

ALPHABET = np.array(list(b"abcxyz\x00\xff"), dtype=np.uint8)


def gen_values(rng, dt, n, nonzero=False, special=0.08, small=False):
    """n values of dtype `dt` (a name): small integers or halves mostly (exact sums), random floats
    sometimes, and with probability `special` per value a boundary: the dtype's min / max, 0, inf, -inf,
    NaN, -0.0, the smallest normal. nonzero: no zero (nor False, nor b"")."""
    if dt == "string":
        out = np.empty(n, dtype=object)
        for i in range(n):
            k = int(rng.integers(1 if nonzero else 0, 5))
            out[i] = bytes(ALPHABET[rng.integers(0, len(ALPHABET), k)])
        return out
    d = np.dtype(dt)
    if d.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
        return v | True if nonzero else v
    if d.kind in "iu":
        lo = 0 if d.kind == "u" else -6
        v = rng.integers(lo, 7, n).astype(d)
        if not small and special:
            info = np.iinfo(d)
            pool = np.array([info.min, info.max, info.min + 1, info.max - 1, 0, 1], dtype=d)
            m = rng.random(n) < special
            v[m] = pool[rng.integers(0, len(pool), int(m.sum()))]
        if nonzero:
            v[v == 0] = 3
        return v
    if d.kind == "f":
        if rng.random() < 0.5:
            v = (rng.integers(-8, 9, n) / 2).astype(d)
        else:
            v = rng.normal(0, 4, n).astype(d)
        if not small and special:
            fi = np.finfo(d)
            pool = np.array([np.inf, -np.inf, np.nan, -0.0, fi.tiny, fi.max, -fi.max], dtype=d)
            m = rng.random(n) < special
            v[m] = pool[rng.integers(0, len(pool), int(m.sum()))]
        if nonzero:
            v[v == 0] = 1.5
        return v
    if d.kind == "c":
        part = "float32" if d == np.complex64 else "float64"
        re = gen_values(rng, part, n, False, special / 2, small)
        im = gen_values(rng, part, n, False, special / 2, small)
        v = (re + 1j * im).astype(d)
        if nonzero:
            v[v == 0] = 1 + 1j
        return v
    raise ValueError(dt)


def gen_shape(rng, rank, dmin=0, dmax=7):
    return np.array(rng.integers(dmin, dmax + 1, rank), dtype=np.int64)


def row_major_sort(ix):
    if ix.shape[0] == 0 or ix.shape[1] == 0:
        return np.arange(ix.shape[0])
    return np.lexsort(ix.T[::-1])


class Sp:
    """A sparse operand of a case: indices [n, r] int64, values [n], dense_shape [r] int64, dtype name."""

    def __init__(self, indices, values, shape, dtype):
        self.indices = np.asarray(indices, dtype=np.int64)
        self.values = values
        self.shape = np.asarray(shape, dtype=np.int64)
        self.dtype = dtype

    @property
    def rank(self):
        return len(self.shape)

    @property
    def nnz(self):
        return self.indices.shape[0]

    def tf(self):
        return tf.sparse.SparseTensor(tf.constant(self.indices, tf.int64),
                                      tf.constant(self.values, tfdt(self.dtype)),
                                      tf.constant(self.shape, tf.int64))

    def raw(self):
        """(indices, values, shape) as TF tensors, for raw ops."""
        return (tf.constant(self.indices, tf.int64), tf.constant(self.values, tfdt(self.dtype)),
                tf.constant(self.shape, tf.int64))

    def spt(self):
        return spt.SparseTensor(self.indices, self.values, self.shape, dtype=npdt(self.dtype))

    def __repr__(self):
        ix = self.indices.tolist() if self.nnz <= 12 else "<%d x %d>" % self.indices.shape
        va = list(self.values) if self.nnz <= 12 else "<%d values>" % self.nnz
        return "Sp(%s, indices=%s, values=%s, shape=%s)" % (self.dtype, ix, va, self.shape.tolist())


def gen_sparse(rng, dtype, rank=None, shape=None, rmin=0, rmax=5, dmin=0, dmax=7, nnz=None, mode=None,
               nonzero=False, small=False, nmax=60):
    """A random sparse operand. mode: 'sorted' (row-major, unique), 'unsorted' (unique, shuffled) or
    'dups' (repeated indices, any order); None picks one (1/2, 1/4, 1/4)."""
    if shape is None:
        if rank is None:
            rank = int(rng.integers(rmin, rmax + 1))
        shape = gen_shape(rng, rank, dmin, dmax)
    shape = np.asarray(shape, dtype=np.int64)
    rank = len(shape)
    vol = int(np.prod(shape)) if rank else 1
    if mode is None:
        mode = ["sorted", "sorted", "unsorted", "dups"][int(rng.integers(0, 4))]
    if vol == 0:
        n = 0
    elif nnz is not None:
        n = nnz
    else:
        hi = nmax if mode == "dups" else min(nmax, vol)
        n = int(rng.integers(0, hi + 1))
    if mode == "dups" and vol:
        flat = rng.integers(0, vol, n)
        if n >= 2 and rng.random() < 0.7:  # make sure there is a repeat
            flat[int(rng.integers(0, n))] = flat[int(rng.integers(0, n))]
    else:
        n = min(n, vol)
        flat = np.sort(rng.choice(vol, n, replace=False)) if n else np.zeros(0, np.int64)
        if mode == "unsorted":
            rng.shuffle(flat)
    ix = np.array(np.unravel_index(flat, tuple(shape)), dtype=np.int64).T.reshape(n, rank) if rank else \
        np.zeros((n, 0), np.int64)
    return Sp(ix, gen_values(rng, dtype, n, nonzero=nonzero, small=small), shape, dtype)


def gen_huge_sparse(rng, dtype, rank=None, shape=None, huge_dims=None, small_dims=(), nmax=20, mode=None,
                    small=False):
    """A sparse operand whose shape's volume exceeds int64 (spt's any-volume policy): the dims in huge_dims
    are drawn from [2^31, 2^63 - 1]; coordinates come from a small pool per dim that holds 0 and dim - 1
    (the boundaries), so duplicates and shared rows occur. Returns the Sp with .huge_dims set."""
    if shape is None:
        rank = int(rng.integers(1, 6)) if rank is None else rank
        shape = gen_shape(rng, rank, 1, 7)
        cand = [d for d in range(rank) if d not in small_dims] or [0]
        if huge_dims is None:
            k = int(rng.integers(1, len(cand) + 1))
            huge_dims = sorted(int(d) for d in rng.permutation(cand)[:k])
        for d in huge_dims:
            shape[d] = [2 ** 63 - 1, 2 ** 62, 2 ** 40 + 3, 2 ** 31 + int(rng.integers(0, 100))][int(rng.integers(0, 4))]
        if len(huge_dims) == 1:
            shape[huge_dims[0]] = 2 ** 63 - 1 - int(rng.integers(0, 3))  # volume > 2^63 when another dim > 1
    shape = np.asarray(shape, dtype=np.int64)
    rank = len(shape)
    pools = []
    for d in range(rank):
        dim = int(shape[d])
        if d in huge_dims:
            pool = sorted({0, dim - 1} | {int(v) for v in rng.integers(0, dim, 3)})
        else:
            pool = list(range(dim))
        pools.append(pool)
    n = 0 if any(len(p) == 0 for p in pools) else int(rng.integers(0, nmax + 1))
    ix = np.zeros((n, rank), np.int64)
    for d in range(rank):
        if n:
            ix[:, d] = np.array(pools[d], dtype=np.int64)[rng.integers(0, len(pools[d]), n)]
    if mode is None:
        mode = ["sorted", "unsorted", "dups"][int(rng.integers(0, 3))]
    if mode != "dups" and n:
        _, keep = np.unique(ix, axis=0, return_index=True)
        ix = ix[np.sort(keep)]
        n = ix.shape[0]
    if mode == "sorted":
        ix = ix[row_major_sort(ix)]
    sp = Sp(ix, gen_values(rng, dtype, n, small=small), shape, dtype)
    sp.huge_dims = list(huge_dims)
    return sp


def canonical(sp):
    """Row-major sorted copy (duplicates kept, stable)."""
    p = row_major_sort(sp.indices)
    out = Sp(sp.indices[p], sp.values[p], sp.shape, sp.dtype)
    if hasattr(sp, "huge_dims"):
        out.huge_dims = sp.huge_dims
    return out


def is_canonical(sp):
    """Sorted row-major with no duplicate index."""
    if sp.nnz < 2:
        return True
    if sp.rank == 0:
        return False
    a, b = sp.indices[:-1], sp.indices[1:]
    for i in range(sp.nnz - 1):
        for d in range(sp.rank):
            if a[i, d] != b[i, d]:
                if a[i, d] > b[i, d]:
                    return False
                break
        else:
            return False
    return True


def in_bounds(sp):
    return bool(np.all((sp.indices >= 0) & (sp.indices < sp.shape))) if sp.nnz else True


def inject_bad_index(rng, sp):
    """Put one coordinate of an entry outside [0, dim) (negative, == dim, or huge); None when the operand
    has no entry or rank 0."""
    if sp.rank == 0 or sp.nnz == 0:
        return None
    ix = sp.indices.copy()
    vals = sp.values
    i, d = int(rng.integers(0, ix.shape[0])), int(rng.integers(0, sp.rank))
    dim = int(sp.shape[d])
    bad = [v for v in (-1, dim, dim + 5, 2 ** 62, 2 ** 63 - 1) if (v < 0 or v >= dim) and v < 2 ** 63]
    ix[i, d] = bad[int(rng.integers(0, len(bad)))]
    return Sp(ix, vals, sp.shape, sp.dtype)


# ---- outputs ---------------------------------------------------------------------------------------

class SpOut:
    """A sparse result reduced to numpy: indices, values, shape."""

    def __init__(self, indices, values, shape):
        self.indices = np.asarray(indices, dtype=np.int64)
        self.values = np.asarray(values)
        self.shape = np.asarray(shape, dtype=np.int64)

    def __repr__(self):
        return "SpOut(indices=%s, values=%s, shape=%s)" % (self.indices.tolist()[:12], self.values.tolist()[:12],
                                                          self.shape.tolist())


def from_tf(x):
    """TF results -> numpy / SpOut (recursively for tuples and lists)."""
    if isinstance(x, (tuple, list)):
        return [from_tf(y) for y in x]
    if isinstance(x, SpOut):
        return x
    if isinstance(x, tf.sparse.SparseTensor):
        return SpOut(x.indices.numpy(), x.values.numpy(), x.dense_shape.numpy())
    if hasattr(x, "numpy"):
        v = x.numpy()
        # a 0-d string result comes back as bytes; np.asarray would drop its trailing NULs ('S' dtype)
        return np.array(v, dtype=object) if isinstance(v, bytes) else v
    return np.asarray(x)


def from_spt(x):
    if isinstance(x, (tuple, list)):
        return [from_spt(y) for y in x]
    if isinstance(x, SpOut):
        return x
    if isinstance(x, spt.SparseTensor):
        return SpOut(np.array(x.indices), np.array(x.values), np.array(x.dense_shape))
    return np.asarray(x)


def values_equal(a, b, dtype_name, scale):
    """'' when equal (floats within tolerance), else a description of the first difference."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return "shape %s vs %s" % (a.shape, b.shape)
    if a.size == 0:
        return ""
    if a.dtype.kind == "O" or b.dtype.kind == "O":
        aa = [bytes(x) for x in a.reshape(-1)]
        bb = [bytes(x) for x in b.reshape(-1)]
        for i, (x, y) in enumerate(zip(aa, bb)):
            if x != y:
                return "element %d: %r vs %r" % (i, x, y)
        return ""
    if a.dtype != b.dtype:
        return "dtype %s vs %s" % (a.dtype, b.dtype)
    if a.dtype.kind in "fc":
        rtol = RTOL.get(str(a.dtype), 1e-12)
        fa, fb = a.reshape(-1), b.reshape(-1)
        parts = [(fa.real, fb.real), (fa.imag, fb.imag)] if a.dtype.kind == "c" else [(fa, fb)]
        for x, y in parts:
            x, y = x.astype(np.float64), y.astype(np.float64)
            both_nan = np.isnan(x) & np.isnan(y)
            same = (x == y) | both_nan
            with np.errstate(invalid="ignore", over="ignore"):
                close = np.isfinite(x) & np.isfinite(y) & (np.abs(x - y) <= rtol * (1.0 + scale))
                if not scale < np.finfo(a.real.dtype).max:
                    # the inputs' magnitudes overflow: a sum may or may not overflow depending on the order
                    # of its terms, so near the top of the range inf, NaN and a huge finite value all agree
                    big = np.finfo(a.real.dtype).max * 1e-3
                    close |= (~np.isfinite(x) | (np.abs(x) > big)) & (~np.isfinite(y) | (np.abs(y) > big))
            bad = ~(same | close)
            if bad.any():
                i = int(np.argmax(bad))
                return "element %d: %r vs %r (rtol %g, scale %g)" % (i, fa[i], fb[i], rtol, scale)
        return ""
    if not np.array_equal(a, b):
        i = int(np.argmax(a.reshape(-1) != b.reshape(-1)))
        return "element %d: %r vs %r" % (i, a.reshape(-1)[i], b.reshape(-1)[i])
    return ""


def dup_runs_permuted(a, b, dtype_name, scale):
    """True when the values differ only by their order inside runs of equal indices: the order of
    duplicate entries is unspecified in TF (its sorts are not stable), so either order is right."""
    ix = a.indices
    n = ix.shape[0]
    if n < 2:
        return False
    brk = np.ones(n, bool)
    brk[1:] = np.any(ix[1:] != ix[:-1], axis=1) if ix.shape[1] else False
    starts = list(np.flatnonzero(brk)) + [n]
    for s, e in zip(starts[:-1], starts[1:]):
        x, y = a.values[s:e], b.values[s:e]
        if e - s > 1:
            def fkey(f):  # a total order: NaN last, all NaNs equal
                return (True, 0.0) if f != f else (False, float(f))

            key = (lambda v: (bytes(v),)) if x.dtype.kind == "O" else \
                (lambda v: fkey(v.real) + fkey(v.imag)) if x.dtype.kind == "c" else \
                (lambda v: fkey(v)) if x.dtype.kind == "f" else (lambda v: (v,))
            x = np.array(sorted(x, key=key), dtype=x.dtype)
            y = np.array(sorted(y, key=key), dtype=y.dtype)
        if values_equal(x, y, dtype_name, scale):
            return False
    return True


def compare(tf_out, spt_out, dtype_name, scale=0.0, what="out"):
    """'' when spt's result equals TF's; otherwise what differs."""
    if isinstance(tf_out, list):
        if not isinstance(spt_out, list) or len(tf_out) != len(spt_out):
            return "%s: %d results vs %r" % (what, len(tf_out), type(spt_out).__name__)
        for k, (x, y) in enumerate(zip(tf_out, spt_out)):
            m = compare(x, y, dtype_name, scale, "%s[%d]" % (what, k))
            if m:
                return m
        return ""
    if isinstance(tf_out, SpOut):
        if not isinstance(spt_out, SpOut):
            return "%s: sparse vs %s" % (what, type(spt_out).__name__)
        if not np.array_equal(tf_out.shape, spt_out.shape):
            return "%s.dense_shape %s vs %s" % (what, tf_out.shape.tolist(), spt_out.shape.tolist())
        if tf_out.indices.shape != spt_out.indices.shape:
            return "%s.indices shape %s vs %s" % (what, tf_out.indices.shape, spt_out.indices.shape)
        if not np.array_equal(tf_out.indices, spt_out.indices):
            same_set = sorted(map(tuple, tf_out.indices.tolist())) == sorted(map(tuple, spt_out.indices.tolist()))
            return "%s.indices differ%s: %s vs %s" % (what, " (same set, other order)" if same_set else "",
                                                       tf_out.indices.tolist()[:8], spt_out.indices.tolist()[:8])
        m = values_equal(tf_out.values, spt_out.values, dtype_name, scale)
        if m and dup_runs_permuted(tf_out, spt_out, dtype_name, scale):
            return ""
        return "%s.values: %s" % (what, m) if m else ""
    m = values_equal(tf_out, spt_out, dtype_name, scale)
    return "%s: %s" % (what, m) if m else ""


# ---- errors ----------------------------------------------------------------------------------------

TF_ERRORS = (tf.errors.OpError, ValueError, TypeError, IndexError)


def tf_error_name(e):
    return getattr(e, "tf_class", None) or type(e).__name__


# The class spt must raise for each TensorFlow error class, compared exactly (type(e) is C: OutOfRangeError
# is a subclass of InvalidArgumentError, so isinstance would accept it everywhere). Where TF's message is
# about an index, axis or id outside its range (or the generator put such a fault in), OutOfRangeError is
# accepted for TF's InvalidArgument (rule class-out-of-range); where it is about a size past int64 or an
# allocation (or the case has a huge shape), OverflowError / OutOfMemoryError (rule class-overflow).
import re  # noqa: E402

EXACT = {
    "InvalidArgumentError": spt.InvalidArgumentError, "ValueError": spt.InvalidArgumentError,
    "InternalError": spt.InvalidArgumentError, "OutOfRangeError": spt.OutOfRangeError,
    "IndexError": spt.OutOfRangeError, "FailedPreconditionError": spt.FailedPreconditionError,
    "UnimplementedError": spt.InvalidArgumentError, "ResourceExhaustedError": spt.OutOfMemoryError,
}
INDEX_MESSAGE = re.compile(r"out of (bounds|range)|out-of-bound|not in \[|in range|range \[|outside|must be in|"
                           r"is not in|index|Invalid reduction dimension|invalid axis|axis .* (for|of) |"
                           r"ids must be <|must be < num", re.I)
OVERFLOW_MESSAGE = re.compile(r"overflow|too large|too big|exceed|allocat|int64|larger than|more than 2\*\*63",
                              re.I)
INDEX_FAULTS = {"bad_index", "bad_axis", "bad_id", "axis_single", "perm_out_of_range"}


def accepted_classes(tf_err, case):
    """[(spt class, rule id or None)] spt may raise where TensorFlow raised tf_err; a TypeError of TF's is
    any TypeError of spt's (DtypeError is one)."""
    name = tf_error_name(tf_err)
    if case.expect is not None:
        return [(case.expect, None)]
    if name == "TypeError":
        return [(TypeError, None)]
    base = EXACT.get(name, spt.InvalidArgumentError)
    out = [(base, None)]
    msg = str(tf_err)
    if base is spt.InvalidArgumentError and (INDEX_MESSAGE.search(msg) or case.fault in INDEX_FAULTS):
        out.append((spt.OutOfRangeError, "class-out-of-range"))
    if name in ("InvalidArgumentError", "ValueError", "ResourceExhaustedError", "InternalError") and (
            OVERFLOW_MESSAGE.search(msg) or getattr(case, "huge", False)):
        out += [(spt.OverflowError, "class-overflow"), (spt.OutOfMemoryError, "class-overflow")]
    return out


def class_matches(spt_err, want):
    return isinstance(spt_err, want) if want is TypeError else type(spt_err) is want


def tf_dtype_unsupported(e):
    """TF has no kernel (or its Python layer refuses) this dtype: the case is outside the common domain."""
    s = str(e)
    if isinstance(e, tf.errors.NotFoundError) and ("kernel" in s.lower() or "Could not find" in s):
        return True
    if isinstance(e, TypeError) and ("allowed values" in s or "not in list of allowed" in s):
        return True
    if isinstance(e, tf.errors.InvalidArgumentError) and ("No OpKernel" in s or "no registered" in s.lower()
                                                          or re.match(r"Value for attr '\w+' of \w+ is not in the "
                                                                      r"list of allowed values", s)):
        return True
    if isinstance(e, tf.errors.UnimplementedError) and "dtype" in s.lower():
        return True
    return False


# ---- the runner ------------------------------------------------------------------------------------

class Case:
    """One drawn case: `args` (op-specific, sparse operands as Sp), `dtype` (a name), `fault` (None, or
    the name of the fault the generator put in; `expect` then names the spt error class), `scale` (the
    float tolerance scale)."""

    def __init__(self, dtype, fault=None, expect=None, **args):
        self.dtype = dtype
        self.fault = fault
        self.expect = expect
        self.args = args
        self.scale = 0.0

    def __getattr__(self, k):
        try:
            return self.__dict__["args"][k]
        except KeyError:
            raise AttributeError(k) from None

    def __repr__(self):
        a = ", ".join("%s=%r" % (k, v) for k, v in self.args.items())
        return "Case(%s, fault=%s, %s)" % (self.dtype, self.fault, a)


def input_scale(case):
    s = 0.0
    for v in case.args.values():
        for x in (v if isinstance(v, (list, tuple)) else [v]):
            arr = x.values if isinstance(x, Sp) else x
            if isinstance(arr, np.ndarray) and arr.dtype.kind in "fc" and arr.size:
                a = np.abs(arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64))
                s += float(np.sum(a[np.isfinite(a)]))
    return s


class Result:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.rule_hits = {}
        self.failures = []
        self.outcomes = {}
        self.isolated = 0

    def note(self, key):
        self.outcomes[key] = self.outcomes.get(key, 0) + 1


# An input TF may die on (OpSpec.tf_unsafe) runs TF in a subprocess; when a rule states what spt must do
# there, only the first ISOLATED_SAMPLES such cases per op run TF (to record what it does: the crash count
# is printed), since each costs a process start and a TensorFlow import.
ISOLATED_SAMPLES = 3


class TFCrash(Exception):
    """TensorFlow died on the case (run in a subprocess because the op spec says it may)."""


def run_tf_isolated(spec, case):
    """spec.tf(case) in a new process (tests/tf/harness.py --isolated OP): returns its result, raises the
    error it raised (as TFIsolatedError carrying the class name), or TFCrash when the process dies."""
    import pickle
    import subprocess

    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--isolated", spec.name], input=pickle.dumps(case),
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=300)
    if p.returncode != 0 or not p.stdout:
        rc = p.returncode
        raise TFCrash("TensorFlow died (%s)" % (("signal %d" % -rc) if rc < 0 else "exit %d" % rc))
    kind, payload = pickle.loads(p.stdout)
    if kind == "ok":
        return payload
    err = TFIsolatedError(payload[1])
    err.tf_class = payload[0]
    raise err


class TFIsolatedError(Exception):
    tf_class = "?"


def isolated_main(op):
    import pickle

    import derive

    spec = {s.name: s for s in derive.all_specs()}[op]
    case = pickle.loads(sys.stdin.buffer.read())
    try:
        out = ("ok", from_tf(spec.tf(case)))
    except TF_ERRORS as e:
        out = ("err", (type(e).__name__, str(e)))
    sys.stdout.buffer.write(pickle.dumps(out))


def run_case(spec, case, res, rules):
    """Run one case through both libraries and judge it. Returns None (passed) or a failure text."""
    tf_out = tf_err = None
    rule = rules.match(spec.name, case, None, None)
    unsafe = spec.tf_unsafe(case)
    try:
        if unsafe and rule is not None and res.isolated >= ISOLATED_SAMPLES:
            res.note("TF not run")  # the rule decides without TF's result on this input (see ISOLATED_SAMPLES)
        elif unsafe:
            res.isolated += 1
            tf_out = run_tf_isolated(spec, case)
        else:
            tf_out = from_tf(spec.tf(case))
    except TFCrash as e:
        tf_err = e
        res.note("TF crashed")
    except TFIsolatedError as e:
        tf_err = e
    except TF_ERRORS as e:
        tf_err = e
    if tf_err is not None and tf_dtype_unsupported(tf_err):
        return "dtype"
    spt_out = spt_err = None
    try:
        spt_out = from_spt(spec.spt(case))
    except Exception as e:  # noqa: BLE001 - every exception is judged below
        spt_err = e
    if spt_err is not None and not isinstance(spt_err, (spt.SptError, ValueError, TypeError, IndexError,
                                                        OverflowError, MemoryError)):
        return "spt raised %s (not a clean error): %s" % (type(spt_err).__name__, spt_err)
    if rule is not None:
        res.rule_hits[rule.id] = res.rule_hits.get(rule.id, 0) + 1
        return rule.judge(spec, case, tf_out, tf_err, spt_out, spt_err)
    if tf_err is None and spt_err is None:
        if case.fault:
            res.note("both ok on fault " + case.fault)
        res.note("ok")
        return compare(tf_out, spt_out, case.dtype, case.scale) or None
    if tf_err is not None and spt_err is not None:
        res.note("both raise")
        want = accepted_classes(tf_err, case)
        for cls, rid in want:
            if class_matches(spt_err, cls):
                if rid is not None:
                    res.rule_hits[rid] = res.rule_hits.get(rid, 0) + 1
                    rules.hits[rid] = rules.hits.get(rid, 0) + 1
                return None
        return "error class: TF %s (%s), spt %s (%s); expected %s" % (
            tf_error_name(tf_err), short(tf_err), type(spt_err).__name__, short(spt_err),
            "/".join(w.__name__ for w, _ in want))
    if type(tf_err).__name__ == "TFCrash":
        return "%s and no rule states what spt does (spt: %s)" % (tf_err, "ok" if spt_err is None else short(spt_err))
    if tf_err is not None:
        return "TF raises %s (%s), spt succeeds" % (tf_error_name(tf_err), short(tf_err))
    return "spt raises %s (%s), TF succeeds" % (type(spt_err).__name__, short(spt_err))


def short(e, n=160):
    s = str(e).replace("\n", " ")
    s = s.split(" [Op:")[0]
    return s if len(s) <= n else s[:n] + "..."


def api_differences(pairs):
    """Print the TF 2 keywords each spt function lacks (informational)."""
    import inspect

    out = []
    for name, tf_fn in pairs:
        f = getattr(spt, name, None)
        if f is None:
            continue
        try:
            have = set(inspect.signature(f).parameters)
            want = [p for p in inspect.signature(inspect.unwrap(tf_fn)).parameters if p != "name"]
        except (TypeError, ValueError):
            continue
        miss = [p for p in want if p not in have]
        if miss:
            out.append("spt.%s lacks %s" % (name, ", ".join(miss)))
    if out:
        print("API (informational): TF 2 keywords spt does not accept: " + "; ".join(out))


def main():
    import derive
    import ops as ops_mod
    import rules as rules_mod
    import hostile

    ncases = int(os.environ.get("SPT_TF_CASES", "200"))
    seed = int(os.environ.get("SPT_TF_SEED", "20261124"))
    only = [s for s in os.environ.get("SPT_TF_OPS", "").split(",") if s]
    verbose = os.environ.get("SPT_TF_VERBOSE") == "1"
    t0 = time.time()
    print("spt vs TensorFlow %s (numpy %s): %d cases per op, seed %d, spt library %s"
          % (tf.__version__, np.__version__, ncases, seed, spt.lib_path))
    print("this libspt %s shapes whose volume exceeds int64 (policy 1): huge-shape cases %s"
          % (("takes", "are compared with TF on compressed coordinates (rule P1-any-volume)") if ANY_VOLUME else
             ("rejects", "must raise OverflowError (rule P1-pending)")))
    total_pass = total_fail = 0
    specs = derive.all_specs()  # ops.py's, then those derived from the TF rows of ops.def
    covered = set()
    for s in specs:
        covered.update(s.covers)
    no_tf = ops_mod.NO_TF_COUNTERPART | derive.no_counterpart_rows()
    missing = [n for n in spt.available_ops() if n not in covered and n not in no_tf]
    marks = derive.check(specs)
    for spec in specs:
        if only and spec.name not in only:
            continue
        if not all(spt.has_op(n) for n in spec.needs):
            print("%-28s skipped: this libspt lacks %s" % (spec.name, spec.needs))
            continue
        res = Result()
        rng = np.random.default_rng([seed, sum(map(ord, spec.name))])
        dtypes = list(spec.dtypes)
        dropped = []
        attempts = 0
        t1 = time.time()
        while res.passed + res.failed < ncases and attempts < 20 * ncases and dtypes:
            attempts += 1
            dt = dtypes[int(rng.integers(0, len(dtypes)))]
            case = spec.gen(rng, dt)
            if case is None:
                continue
            case.scale = input_scale(case)
            case.op = spec.name
            try:
                why = run_case(spec, case, res, rules_mod.RULES)
            except Exception:  # noqa: BLE001 - a harness bug is a failure, shown in full
                why = "harness error: " + traceback.format_exc()
            if why == "dtype":
                if dt in dtypes and not spec.fault_can_hide_dtype(case):
                    dtypes.remove(dt)
                    dropped.append(dt)
                res.skipped += 1
                continue
            if why:
                res.failed += 1
                res.failures.append((case, why))
            else:
                res.passed += 1
        rh = ", ".join("%s %d" % kv for kv in sorted(res.rule_hits.items()))
        if res.isolated:
            rh += "; TF run in a subprocess on %d, crashed on %d%s" % (
                res.isolated, res.outcomes.get("TF crashed", 0),
                ", not run on %d more (a rule decides)" % res.outcomes["TF not run"] if res.outcomes.get("TF not run")
                else "")
        print("%-28s %5d passed %4d failed  (%.1fs; dtypes not in TF: %s%s)" % (
            spec.name, res.passed, res.failed, time.time() - t1, ",".join(dropped) or "-",
            "; rules: " + rh if rh else ""))
        for case, why in res.failures[:None if verbose else 5]:
            print("    FAIL %s\n         %s" % (why, case))
        total_pass += res.passed
        total_fail += res.failed
    api_differences(ops_mod.API_PAIRS)
    if not only or "hostile" in only:
        hp, hf = hostile.run(verbose)
        total_pass += hp
        total_fail += hf
    m = rules_mod.check_table()
    if m:
        print("the differences table and tests/tf/rules.py disagree: " + m)
        total_fail += 1
    if not only:
        rules_mod.print_unused()
    if missing:
        print("spt ops with no entry in tests/tf/ops.py (register them): %s" % ", ".join(missing))
        total_fail += len(missing)
    for m in marks:
        print(m)
    total_fail += len(marks)
    derived = [s.name for s in specs if s not in ops_mod.SPECS]
    print("specs derived from ops.def (tests/tf/derive.py): %s" % (", ".join(derived) or "none"))
    print("time %.1fs" % (time.time() - t0))
    print("%d passed, %d failed" % (total_pass, total_fail))
    return 1 if total_fail else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--isolated":
        isolated_main(sys.argv[2])
        sys.exit(0)
    sys.exit(main())
