# SPDX-License-Identifier: Apache-2.0
"""The products and contractions (src/ops/products): sparse x dense matmul and matvec, sparse x sparse
matmul (SpGEMM), batched matmul, MTTKRP, TTV, TTM, tensordot and einsum; each one call into the C library
through the registry."""
import numpy as np

from . import _lib as L
from ._args import _dense_like
from ._export import exports
from ._registry import C, op, register
from ._tensor import SparseTensor, sparse_arg
from ._registry.kinds import (D, Entry, STATUS, T, boolean, handle, handles, i64, i64in, out, text)

# The registry entries of this family: the C functions its ops call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
ENTRIES = [
    Entry("spt_sparse_dense_matmul", STATUS, handle("sp_a", T), handle("b", D), boolean("adjoint_a"),
          boolean("adjoint_b"), out("out", D)),
    Entry("spt_sparse_dense_matvec", STATUS, handle("sp_a", T), handle("x", D), boolean("adjoint_a"), out("out", D)),
    Entry("spt_sparse_sparse_matmul", STATUS, handle("a", T), handle("b", T), boolean("adjoint_a"),
          boolean("adjoint_b"), boolean("keep_zeros"), out("out", T)),
    Entry("spt_sparse_dense_bmm", STATUS, handle("a", T), handle("b", D), boolean("adjoint_a"),
          boolean("adjoint_b"), out("out", D)),
    Entry("spt_mttkrp", STATUS, handle("t", T), handles("factors", D), i64("nfactors", len_of="factors"),
          i64("mode"), out("out", D)),
    Entry("spt_ttv", STATUS, handle("t", T), handle("v", D), i64("mode"), out("out", T)),
    Entry("spt_ttm", STATUS, handle("t", T), handle("u", D), i64("mode"), out("out", T)),
    Entry("spt_tensordot", STATUS, handle("a", T), handle("b", D), i64in("axes_a", nullable=True),
          i64in("axes_b", n="naxes", nullable=True), i64("naxes", len_of="axes_a"), out("out", D)),
    Entry("spt_einsum", STATUS, text("subscripts"), handle("a", T), handle("b", D), out("out", D)),
]
register("products", ENTRIES)


@op("spt_sparse_dense_matmul")
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """tf.sparse.sparse_dense_matmul: op(A) @ op(B) as a numpy array (op = conjugate transpose when the
    adjoint flag is set). A sparse and B a numpy matrix, or A a numpy matrix and B sparse."""
    if not isinstance(sp_a, SparseTensor) and isinstance(b, SparseTensor):
        # op(A) op(B) = (op'(B) op'(A))^H with the adjoint flags flipped
        r = sparse_dense_matmul(b, sp_a, adjoint_a=not L.bool_arg(adjoint_b, "adjoint_b", "sparse_dense_matmul"),
                                adjoint_b=not L.bool_arg(adjoint_a, "adjoint_a", "sparse_dense_matmul"))
        return np.ascontiguousarray(r.conj().T)
    sp = sparse_arg(sp_a, "sp_a", "sparse_dense_matmul")
    return C.spt_sparse_dense_matmul(sp, _dense_like(b, sp, "b", "sparse_dense_matmul"), adjoint_a, adjoint_b)


@op("spt_sparse_dense_matvec")
def sparse_dense_matvec(sp_a, x, adjoint_a=False):
    """op(A) @ x for a rank-2 sparse A and a vector x, as a numpy vector."""
    sp = sparse_arg(sp_a, "sp_a", "sparse_dense_matvec")
    return C.spt_sparse_dense_matvec(sp, _dense_like(x, sp, "x", "sparse_dense_matvec"), adjoint_a)


@op("spt_sparse_sparse_matmul")
def sparse_sparse_matmul(a, b, adjoint_a=False, adjoint_b=False, keep_zeros=False, name=None):
    """op(a) @ op(b) of two sparse matrices (rank 2) or two batches of them (rank 3, batch dim first) as a
    SparseTensor (torch.sparse.mm; TensorFlow's SparseMatMul with two sparse operands). op(x) is the
    conjugate transpose when the adjoint flag is set. The result is row-major without duplicates; cells
    whose sum is zero are dropped unless keep_zeros. Also `a @ b` for two SparseTensors."""
    return C.spt_sparse_sparse_matmul(a, b, adjoint_a, adjoint_b, keep_zeros)


@op("spt_sparse_dense_bmm")
def bmm(a, b, adjoint_a=False, adjoint_b=False, name=None):
    """Batched sparse x dense product (torch.bmm): a is a SparseTensor [P, M, K] (batch dim first), b a numpy
    array [P, K, N] or one matrix [K, N] shared by the batch; the adjoint flags take the conjugate
    transpose of each matrix. Returns a numpy array [P, M, N]."""
    sp = sparse_arg(a, "a", "bmm")
    return C.spt_sparse_dense_bmm(sp, _dense_like(b, sp, "b", "bmm"), adjoint_a, adjoint_b)


# ---- contractions with dense factors -------------------------------------------------------------


@op("spt_mttkrp")
def mttkrp(t, factors, mode):
    """MTTKRP (matricized tensor times Khatri-Rao product, the kernel of CP decomposition): for a rank-N
    SparseTensor t and factor matrices factors[m] [shape[m], R] (factors[mode] is not read and may be
    None), the numpy array out[i, r] = sum over entries with index[mode] == i of
    value * prod_{m != mode} factors[m][index[m], r]. mode is in [0, N)."""
    sp = sparse_arg(t, "t", "mttkrp")
    factors = L.as_list(factors, "factors", "mttkrp")
    # factors[mode] is not read: None there becomes an empty placeholder (and, when mode is outside
    # [0, N), every None does, so that C reports the mode rather than a missing factor)
    bad_mode = type(mode) is int and not 0 <= mode < len(factors)
    fs = []
    for k, f in enumerate(factors):
        if f is None and type(mode) is int and (k == mode or bad_mode):
            fs.append(np.zeros((0, 0), dtype=sp.dtype))
        elif f is None:
            fs.append(None)  # refused by the registry, naming factors
        else:
            fs.append(_dense_like(f, sp, "factors", "mttkrp"))
    return C.spt_mttkrp(sp, fs, mode)


@op("spt_ttv")
def ttv(t, v, mode):
    """Tensor times vector along `mode` (summed away): a SparseTensor of rank N-1 holding, for every
    non-empty cell of the other modes, sum value * v[index[mode]]. mode is in [0, N)."""
    sp = sparse_arg(t, "t", "ttv")
    return C.spt_ttv(sp, _dense_like(v, sp, "v", "ttv"), mode)


@op("spt_ttm")
def ttm(t, m, mode):
    """Tensor times matrix along `mode` (the mode-n product): m is [J, shape[mode]]; the result is a
    SparseTensor of t's shape with shape[mode] replaced by J, out[..., j, ...] = sum_k t[..., k, ...] m[j, k],
    holding all J entries of every non-empty fiber of t. mode is in [0, N)."""
    sp = sparse_arg(t, "t", "ttm")
    return C.spt_ttm(sp, _dense_like(m, sp, "m", "ttm"), mode)


def _operands(a, b, fn):
    """(sparse, dense, swapped) of a sparse x dense op given in either order."""
    a_sp, b_sp = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if a_sp and b_sp:
        raise L.err(L.DtypeError, fn, "both operands are SparseTensors; one must be dense (a numpy array)")
    if not a_sp and not b_sp:
        raise L.err(L.DtypeError, fn, "one operand must be a SparseTensor, got %s and %s"
                    % (type(a).__name__, type(b).__name__))
    sp, d = (a, b) if a_sp else (b, a)
    return sp, _dense_like(d, sp, "b" if a_sp else "a", fn), not a_sp


def _axis_list(x, arg):
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        return np.array([x], dtype=np.int64)
    ax = L.i64_arg(x, arg, "tensordot")
    if ax.ndim > 1:
        raise L.err(L.InvalidArgumentError, "tensordot", "%s must be an int or a list of ints, got shape %s"
                    % (arg, ax.shape))
    return ax.reshape(-1)


@op("spt_tensordot")
def tensordot(a, b, axes=2, name=None):
    """numpy.tensordot of a SparseTensor and a numpy array (in either order), returning a numpy array whose
    dims are a's free dims followed by b's. axes: an int n (the last n dims of a with the first n of b), or
    a pair (axes_a, axes_b) of ints or equal-length lists of dims (negative dims count from the end)."""
    sp, d, swapped = _operands(a, b, "tensordot")
    ra, rb = (sp.rank, np.ndim(d)) if not swapped else (np.ndim(d), sp.rank)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, (bool, np.bool_)):
        n = int(axes)
        if not 0 <= n <= min(ra, rb):
            raise L.err(L.InvalidArgumentError, "tensordot", "axes=%d must be in [0, %d] (the operands have ranks "
                        "%d and %d)" % (n, min(ra, rb), ra, rb))
        xa, xb = np.arange(ra - n, ra, dtype=np.int64), np.arange(n, dtype=np.int64)
    else:
        try:
            pa, pb = axes
        except (TypeError, ValueError):
            raise L.err(L.InvalidArgumentError, "tensordot", "axes must be an int or a pair (axes_a, axes_b), got %r"
                        % (axes,)) from None
        xa, xb = _axis_list(pa, "axes[0]"), _axis_list(pb, "axes[1]")
        if xa.size != xb.size:
            raise L.err(L.InvalidArgumentError, "tensordot", "axes[0] has %d dims and axes[1] %d; they must pair up"
                        % (xa.size, xb.size))
    if not swapped:
        return C.spt_tensordot(sp, d, xa, xb)
    # dense x sparse: the sparse-first product, its dims moved back (the dense operand's free dims first)
    r = C.spt_tensordot(sp, d, xb, xa)
    fs, fd = rb - xa.size, ra - xa.size
    return r.transpose(list(range(fs, fs + fd)) + list(range(fs))).copy(order="C")


@op("spt_einsum")
def einsum(subscripts, a, b, name=None):
    """numpy.einsum for one SparseTensor and one numpy array (in either order): "ijk,jr->ikr",
    "ijk,k->ij", "ij,jk" (numpy's implicit output)... Indices are letters; an index in both operands and
    not the output is summed over, in both and the output is a batch index. Repeated indices within one
    operand (diagonals) and ellipses are refused. Returns a numpy array."""
    sp, d, swapped = _operands(a, b, "einsum")
    if swapped and isinstance(subscripts, (str, bytes)):
        # the sparse operand's term goes first; the output (explicit, or implicit: sorted) is unchanged
        raw = isinstance(subscripts, bytes)
        s = subscripts.decode("latin-1") if raw else subscripts
        lhs, arrow, rhs = s.partition("->")
        terms = lhs.split(",")
        if len(terms) == 2:
            s = terms[1] + "," + terms[0] + arrow + rhs
        subscripts = s.encode("latin-1") if raw else s
    return C.spt_einsum(subscripts, sp, d)


__all__ = exports(__name__)
