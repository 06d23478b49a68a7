# SPDX-License-Identifier: Apache-2.0
"""The core ops (src/core, src/sort): reorder, argsort, validation, the order metadata, group and the
thread count."""
import threading

import numpy as np

from . import _lib as L
from ._export import exports, public
from ._registry import C, FREE, op, provide, raw, register
from ._tensor import sparse_arg
from ._registry.kinds import Entry, R_BOOL, STATUS, T, VOID, buffer, handle, i64, i64in, i64out, out, struct

# The registry entries of the core ops (the handles, accessors and constructors every module needs stay in
# _registry/core.py): the C functions the ops below call, each argument's kind in C order
# (python/spt/_registry/kinds.py); register() generates the checked C.<name> of each.
ENTRIES = [
    Entry("spt_validate", STATUS, handle("sp_input", T, const=False)),
    Entry("spt_indices_valid", STATUS, handle("sp_input", T, const=False)),
    Entry("spt_reordered", STATUS, handle("sp_input", T), i64in("order", n="sp_input.rank", nullable=True), out("out", T),
          py="reorder"),
    Entry("spt_argsort", STATUS, handle("sp_input", T), i64in("order", n="sp_input.rank", nullable=True),
          i64out("perm", n="sp_input.nnz", nullable=True)),
    Entry("spt_group_begin", STATUS, handle("sp_input", T), i64in("dims", nullable=True), i64("ndims", 0, len_of="dims"),
          out("out", "iter"), py="group"),
    Entry("spt_group_next", R_BOOL, handle("it", "iter", const=False), struct("g", "spt_group *", L.spt_group, False)),
    Entry("spt_group_end", VOID, buffer("it", "spt_group_iter *")),
]
register("core", ENTRIES)


@op("spt_reordered")
def reorder(sp_input, order=None, name=None):
    """tf.sparse.reorder: a new tensor with the entries sorted by `order` (None = row-major; else a
    permutation: the dimension order) and that order recorded. Stable. The input is never modified: the
    sorted entries are written straight into the new tensor (C spt_reordered). OutOfRangeError for an
    index outside the shape."""
    return C.spt_reordered(sp_input, order)


# The in-place C sort as the registry declared it (status return, raw handle): bench/peers.py times it as
# bench_core does (reorder_inplace). Not public API: spt.reorder never modifies its input.
_reorder = raw("spt_reorder")


@op("spt_argsort")
def argsort(sp_input, order=None):
    """The stable sorting permutation by `order` (None = row-major): perm[k] = the entry that goes to k."""
    sp = sparse_arg(sp_input)
    perm = np.empty(sp.nnz, dtype=np.int64)
    C.spt_argsort(sp, order, perm)
    return perm


@op("spt_validate")
def validate(sp_input):
    """Every index inside the shape, else OutOfRangeError (the message names the first bad entry).
    Caches the fact on the tensor. Returns the tensor."""
    sp = sparse_arg(sp_input)
    C.spt_validate(sp)
    return sp


@op("spt_indices_valid")
def indices_valid(sp_input):
    """TensorFlow's IndicesValid() with the tensor's own `order`: raises OutOfRangeError (out of bounds),
    InvalidArgumentError (out of order / repeated) or FailedPreconditionError (no order, rank != 1);
    returns True otherwise."""
    C.spt_indices_valid(sp_input)
    return True


@public
def with_order(sp_input, order):
    """A copy of the tensor claiming `order` (None = undefined) without sorting (the order metadata)."""
    t = sparse_arg(sp_input).copy()
    C.spt_tensor_set_order(t, order)
    return t


@op("spt_group_begin", "spt_group_next", "spt_group_end")
def group(sp_input=None, dims=None, sp=None):
    """An iterator of (key, indices, values) over the maximal runs of consecutive entries with equal
    values in `dims` (the group() of TensorFlow's C++ SparseTensor). The tensor's order must start with
    `dims` (reorder it first), else FailedPreconditionError. `key` is a tuple of ints; `indices`
    (count x rank) and `values` are read-only views into the tensor (strings: a copy).

    The iterator may be shared between threads (a lock serialises next()); copying or pickling it gives
    an independent iterator at the same position (it carries the tensor, the dims and the position).
    `sp` is the earlier name of sp_input, still accepted."""
    if sp is not None:
        if sp_input is not None:
            raise L.err(L.InvalidArgumentError, "group", "give sp_input or its earlier name sp, not both")
        sp_input = sp
    sp = sparse_arg(sp_input)
    d = L.i64_arg(L.as_list(dims, "dims", "group") if not isinstance(dims, np.ndarray) else dims, "dims",
                  "group").reshape(-1)
    return GroupIter(sp, d)


_group_end = raw(FREE["iter"])


class GroupIter:
    __slots__ = ("sp", "dims", "_it", "_lock", "_pos")

    def __init__(self, sp, dims, pos=0):
        if getattr(self, "_lock", None) is not None:
            raise L.err(L.FailedPreconditionError, "group", "__init__ was already called on this iterator")
        self._lock = threading.Lock()
        self.sp, self.dims, self._pos = sp, dims, 0
        self._it = C.spt_group_begin(sp, dims)
        self._it._c.keep = sp._c  # the C iterator reads the tensor: its owner keeps the tensor's owner
        for _ in range(pos):
            if self._next() is None:
                break

    def __iter__(self):
        return self

    def _next(self):
        it = self._it
        if it is None:
            return None
        g = L.spt_group()
        if not C.spt_group_next(it, g):
            self._close()
            return None
        self._pos += 1
        sp = self.sp
        nd = self.dims.size
        key = tuple(g.key[i] for i in range(nd))
        ix = L.view(sp._c, L.addr_of_ptr(g.indices), (g.count, sp.rank), np.int64)
        dt = sp.dtype
        vals = L.strings_from(g.values, g.count) if dt.kind == "O" else L.view(sp._c, g.values, (g.count,), dt)
        return key, ix, vals

    def __next__(self):
        with self._lock:
            r = self._next()
        if r is None:
            raise StopIteration
        return r

    def _close(self):
        it, self._it = self._it, None
        if it is not None:
            it._c.__del__()

    def close(self):
        with self._lock:
            self._close()

    # by value: the tensor, the dims and the position travel
    def __reduce__(self):
        with self._lock:
            return (GroupIter, (self.sp, self.dims, self._pos))

    def __copy__(self):
        with self._lock:
            return GroupIter(self.sp, self.dims, self._pos)

    def __deepcopy__(self, memo):
        with self._lock:
            return GroupIter(self.sp.copy(), self.dims.copy(), self._pos)


_GroupIter = GroupIter


class _IterHandle:
    """The C group iterator, owned (spt_group_end when the last reference goes)."""

    __slots__ = ("h", "_c")

    def __init__(self, h):
        self.h = h
        self._c = L.Owner(h, _group_end)


provide("iter", _IterHandle, _IterHandle)


@public
def set_num_threads(n):
    """The number of threads spt's ops may use (n <= 0 restores the default: OMP_NUM_THREADS). n must fit
    in a C int (OverflowError otherwise)."""
    C.spt_set_num_threads(n)


@public
def get_num_threads():
    return C.spt_get_num_threads()


__all__ = exports(__name__)
